/* raidsim: the simulator's config files, and the tables that describe
 * them.
 *
 * An array file names its level, member count, chunk, read policy, its
 * device file(s) and its controller file; paths are relative to the
 * array file, and a file not found there is looked for by name in the
 * data directories (datadir.h).  A device file has one [device] section, a controller file
 * one [controller] section; each starts with `model = NAME`, which
 * selects the model and with it the rest of the keys the section may
 * have.  Every key is described once in a parameter table (param.h), and
 * docs/config-reference.md is generated from the same tables by
 * `raidsim config --markdown`.
 */
#ifndef RAIDSIM_CONFIG_H
#define RAIDSIM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "raidsim/array.h"
#include "raidsim/controller.h"
#include "raidsim/device.h"
#include "raidsim/geometry.h"
#include "raidsim/link.h"
#include "raidsim/param.h"

/* An array file's read-policy when it names none: the controller
 * file's mirror_reads (raidsim_array_config_params resolves it).
 */
#define RAIDSIM_POLICY_CONTROLLER (RAIDSIM_POLICY_ALL + 1)
#define RAIDSIM_POLICY_CONTROLLER_NAME "controller"

struct raidsim_device_config {
  char path[RAIDSIM_STR_MAX];
  char model[RAIDSIM_STR_MAX];
  uint64_t capacity;
  const struct raidsim_device_ops *ops;
  void *params;                 /* ops->params_size bytes */
};

struct raidsim_controller_config {
  char path[RAIDSIM_STR_MAX];
  char model[RAIDSIM_STR_MAX];
  struct raidsim_link_spec port;   /* each member's own link */
  struct raidsim_link_spec uplink; /* the link all members share */
  bool merge_pieces;            /* one command per run of pieces */
  /* How the controller reads a mirror (RAID 1, RAID 10): a read policy
   * (readpolicy.h, or RAIDSIM_POLICY_ALL), for arrays whose file names
   * none; the document it comes from, or else the assumption behind it,
   * which `raidsim run` prints (raidsim_array_config_read_assumed).
   */
  int mirror_reads;
  char mirror_reads_source[RAIDSIM_STR_MAX];
  char mirror_reads_assumed[RAIDSIM_STR_MAX];
  const struct raidsim_controller_ops *ops;
  void *params;
};

struct raidsim_embedded;

struct raidsim_array_config {
  /* Where it and the files it names were read from: NULL for the file
   * system, or a table of files built into the program (embedded.h).
   */
  const struct raidsim_embedded *files;
  char path[RAIDSIM_STR_MAX];
  char name[RAIDSIM_STR_MAX];   /* the file's base name, without .ini */
  int level;                    /* RAIDSIM_LEVEL_SINGLE or a raid_level */
  uint64_t members;
  uint64_t chunk;
  uint64_t copies;
  int read_policy;
  char device[RAIDSIM_STR_MAX];
  char controller[RAIDSIM_STR_MAX];
  /* A degraded array and its background stream (background.h). */
  char failed[RAIDSIM_STR_MAX];      /* "none" or member indexes */
  char rebuild[RAIDSIM_STR_MAX];     /* "none" or a member index */
  int resync;                        /* enum raidsim_resync */
  uint64_t speed_limit_min;          /* bytes/s */
  uint64_t speed_limit_max;          /* bytes/s; 0: unlimited */
  int sync_throttle;                 /* enum raidsim_sync_throttle */
  uint64_t sync_runtime;             /* ns */
  uint32_t failed_mask, rebuild_mask; /* from failed and rebuild */

  struct raidsim_device_config *devices[RAID_MAX_MEMBERS];
  struct raidsim_controller_config *ctl;
};

/* The tables, for the docs and the tests.  The array file's is
 * raidsim_array_keys, so that it is not taken for struct
 * raidsim_array_params, the RAID layer's parameters (array.h).
 */
extern const struct raidsim_param raidsim_array_keys[];
extern const struct raidsim_param raidsim_device_common_params[];
extern const struct raidsim_param raidsim_controller_common_params[];

/* Load and check a file, and for an array the files it names.  path
 * is a path or a name in the data directories ("raid0-2x-fixed",
 * datadir.h).  NULL with raidsim_error () set to "FILE:LINE: KEY: what
 * is wrong", or to where a name was looked for.
 */
extern struct raidsim_device_config *
raidsim_device_config_load (const char *path);
extern void raidsim_device_config_free (struct raidsim_device_config *c);
extern struct raidsim_controller_config *
raidsim_controller_config_load (const char *path);
extern void raidsim_controller_config_free (struct raidsim_controller_config *c);
extern struct raidsim_array_config *raidsim_array_config_load (const char *path);
extern void raidsim_array_config_free (struct raidsim_array_config *c);

/* The same from a table of files built into the program: path is a
 * name in it, and so is every file an array file names, by its path
 * relative to the array file (embedded.h).  Messages name the files so.
 * files NULL is the file system.
 */
extern struct raidsim_device_config *
raidsim_device_config_load_from (const struct raidsim_embedded *files,
                                 const char *path);
extern struct raidsim_array_config *
raidsim_array_config_load_from (const struct raidsim_embedded *files,
                                const char *path);

/* Why an [array] key means nothing for a level (a RAIDSIM_LEVEL_SINGLE
 * or raid_level): chunk on single and RAID 1, copies on all but RAID 10,
 * read-policy on single and RAID 0.  NULL when it has a meaning.  Array
 * files and sweeps refuse such keys.
 */
extern const char *raidsim_array_key_unused (int level, const char *key);

/* Set one key of a loaded array file, as `raidsim run --set KEY=VALUE`
 * does: any [array] key but those that name files (device, controller)
 * or need more of them (members), checked as the file's own keys are.
 * Returns 0, or -1 with raidsim_error () set to "KEY: what is wrong"
 * and ac unchanged.
 */
extern int raidsim_array_config_set (struct raidsim_array_config *ac,
                                     const char *key_value);

/* The array's RAID-layer parameters, for raidsim_array_new.  member_size
 * must have room for ac->members entries.
 */
extern void raidsim_array_config_params (const struct raidsim_array_config *ac,
                                         uint64_t *member_size,
                                         struct raidsim_array_params *p);

/* The read policy the array runs with: its file's read-policy, or for
 * "controller" (the default) the controller file's mirror_reads.
 */
extern int raidsim_array_config_read_policy
  (const struct raidsim_array_config *ac);
/* For a RAID 1 or RAID 10 array that reads as its controller does, the
 * assumption behind the controller's mirror_reads (its
 * mirror_reads_assumed), for the run's output; NULL when the file cites
 * a source, the array names its own policy, or there is no mirror.
 */
extern const char *raidsim_array_config_read_assumed
  (const struct raidsim_array_config *ac);

/* The array's usable size in bytes, from the shared geometry. */
extern uint64_t
raidsim_array_config_size (const struct raidsim_array_config *ac);

/* Print the effective settings, defaults included, in file syntax. */
extern void raidsim_array_config_print (FILE *fp,
                                        const struct raidsim_array_config *ac);

/* The whole reference: every section, every model, the fio subset.
 * Markdown for docs/config-reference.md, text for `raidsim help config`.
 */
extern void raidsim_config_reference (FILE *fp, bool markdown);

#endif /* RAIDSIM_CONFIG_H */
