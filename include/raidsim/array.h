/* raidsim: the RAID layer of the simulator.
 *
 * It turns one host request into member commands, the same ones the
 * nbdkit raid plugin issues: the split comes from the shared geometry
 * (raid_geom_foreach), never from a second implementation.  A read
 * takes one copy of each piece, chosen by the read policy; a write goes
 * to every copy, and the host request completes when its last member
 * command does (the caller counts them).
 *
 * It knows nothing of time: the read policies look only at the
 * commands it has sent and not yet been told are done.
 *
 * A degraded array has failed (or missing) members: no copy on them is
 * read or written.  During a rebuild (background.h) the members being
 * rebuilt are written like any other, but read only below the point
 * the rebuild has reached, as md reads a recovering member only below
 * its recovery_offset; during a resync, a piece not yet in sync is read
 * from its first live copy only, as md's read_balance does past
 * next_resync, so that every read of it returns the same data.
 */
#ifndef RAIDSIM_ARRAY_H
#define RAIDSIM_ARRAY_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/geometry.h"
#include "raidsim/io.h"
#include "raidsim/readpolicy.h"

/* A single drive with no RAID layer, for the single-drive baselines that
 * every array is compared against.  Not a geometry: the member offset is
 * the array offset.
 */
#define RAIDSIM_LEVEL_SINGLE (-1)

/* The read policies: the plugin's, from the core (enum raid_read_policy,
 * include/raidsim/readpolicy.h, chosen by the very code the plugin
 * runs), and one the plugin does not have: ALL reads every copy and the
 * read completes when the last has answered (a model of a RAID driver,
 * not a policy a real RAID would choose for speed).  A value of enum
 * raid_read_policy, or RAIDSIM_POLICY_ALL.
 */
typedef int raidsim_read_policy;
#define RAIDSIM_POLICY_ALL ((int) RAID_READ_POLICY_COUNT)
#define RAIDSIM_POLICY_ALL_NAME "all"

struct raidsim_array_params {
  int level;                    /* RAIDSIM_LEVEL_SINGLE or a raid_level */
  uint64_t chunk;               /* bytes */
  unsigned copies;              /* RAID 10; 0: the default */
  unsigned nmembers;
  const uint64_t *member_size;  /* bytes, per member */
  raidsim_read_policy policy;
  bool merge;                   /* one command per run (raid_geom_runs) */
  uint32_t failed;              /* members failed or missing (bit i:
                                 * member i), never read or written */
  uint32_t rebuild;             /* members being rebuilt */
  bool resync;                  /* a resync is under way */
};

struct raidsim_member_cmd {
  unsigned member;
  uint64_t offset;              /* on the member */
  uint64_t len;
};

typedef int (*raidsim_member_fn) (const struct raidsim_member_cmd *cmd,
                                  void *opaque);

struct raidsim_array;

/* NULL with raidsim_error () set ("level: ...", "chunk: ..."). */
extern struct raidsim_array *
raidsim_array_new (const struct raidsim_array_params *p);
extern void raidsim_array_free (struct raidsim_array *a);

extern uint64_t raidsim_array_size (const struct raidsim_array *a);
extern unsigned raidsim_array_nmembers (const struct raidsim_array *a);
/* The most member commands one host request of len bytes can become,
 * for sizing request pools.
 */
extern uint64_t raidsim_array_max_cmds (const struct raidsim_array *a,
                                        uint64_t len);

/* Call fn once per member command of the host request, in array order.
 * Returns 0, fn's first non-zero value, or -1 if the range is outside
 * the array (raidsim_error () set).
 */
extern int raidsim_array_split (struct raidsim_array *a, enum raidsim_dir dir,
                                uint64_t offset, uint64_t len,
                                raidsim_member_fn fn, void *opaque);

/* A flush of the array: fn once per member that is not failed, in
 * member order, with a command of length 0 at offset 0 (the caller
 * sends it as a flush, io->flush).  Returns 0 or fn's first non-zero
 * value.  Flush commands are not pending for the read policies: do not
 * call raidsim_array_cmd_done for them.
 */
extern int raidsim_array_flush (struct raidsim_array *a, raidsim_member_fn fn,
                                void *opaque);

/* A trim (discard) of array bytes offset+len: fn once per member
 * command, as md sends a discard to its members (array.c states the
 * rules of each level).  The commands are sent as trims (io->trim) and
 * finish through raidsim_array_cmd_done.  Returns 0, fn's first
 * non-zero value, or -1 if the range is outside the array.
 */
extern int raidsim_array_discard (struct raidsim_array *a, uint64_t offset,
                                  uint64_t len, raidsim_member_fn fn,
                                  void *opaque);

/* A command that the background stream (background.h) sends: it
 * counts as pending, as md counts sync I/O in a member's nr_pending,
 * but does not move the member's head (md moves it only for reads it
 * balances).  It finishes through raidsim_array_cmd_done.
 */
extern void raidsim_array_cmd_sent (struct raidsim_array *a,
                                    const struct raidsim_member_cmd *cmd);

/* The members' state has changed: failed and rebuild as in struct
 * raidsim_array_params, and whether a resync is under way.  The nbdkit
 * raid plugin's models follow its real array with this (timing.c), so
 * that a member failed or being rebuilt there is treated so here.
 * Commands already sent finish as before.
 */
extern void raidsim_array_set_state (struct raidsim_array *a,
                                     uint32_t failed, uint32_t rebuild,
                                     bool resync);

/* How far the background stream has got: the members being rebuilt
 * hold good data below member offset pos; during a resync, array bytes
 * below pos are in sync.  UINT64_MAX once it is complete.
 */
extern void raidsim_array_sync_progress (struct raidsim_array *a,
                                         uint64_t pos);

/* The geometry (NULL for a single drive). */
extern const struct raid_geom *raidsim_array_geom (const struct raidsim_array *a);

/* A command that raidsim_array_split sent has finished. */
extern void raidsim_array_cmd_done (struct raidsim_array *a,
                                    const struct raidsim_member_cmd *cmd);

extern const char *raidsim_read_policy_name (raidsim_read_policy p);

#endif /* RAIDSIM_ARRAY_H */
