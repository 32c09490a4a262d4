/* nbdkit-raid-plugin: its parameters.  Each is described once, in the
 * table in params.c (the array's shape and read policy in the core's
 * raid_keys[], include/raidsim/raidkeys.h): parsing, --help and, through
 * tests/integration/test-pod-params.sh, the man page all come from it.
 */
#ifndef RAID_PARAMS_H
#define RAID_PARAMS_H

#include <stdbool.h>

#include "raidsim/raidkeys.h"
#include "md/recovery.h"
#include "member/member.h"

#define MAX_INFLIGHT_DEFAULT 64
#define MAX_INFLIGHT_MAX 4096

/* timeout=: the SCSI command timeout's default (the kernel's
 * /sys/block/SD/device/timeout), what md users are used to waiting.
 */
#define TIMEOUT_DEFAULT_S 30
#define TIMEOUT_MAX_S 86400      /* a day */

/* metadata=: what the members carry (assemble.c). */
enum raid_metadata {
  METADATA_AUTO,                /* md v1.2 if every member has it, none if
                                 * no member has any md metadata */
  METADATA_1_2,                 /* md v1.2 superblocks, required */
  METADATA_NONE,                /* none: data from offset 0, as mdadm
                                 * --build; members with md metadata are
                                 * refused */
};

/* The parameters as given; checked across keys in raid_config_complete. */
struct raid_params {
  struct raid_settings raid;    /* level, chunk, copies, read-policy */
  enum raid_metadata metadata;
  enum file_io_mode io_mode;
  unsigned max_inflight;
  unsigned timeout_ms;          /* 0: never */
  unsigned long sync_speed_min, sync_speed_max; /* KiB/s (sync.h) */
  char *stats_path;             /* absolute, or NULL */
  char *control_path;           /* the control socket: absolute, or NULL */
  unsigned nmembers;
  char *member[RAID_MAX_MEMBERS]; /* as given: in layout order without
                                 * md metadata, in any order with it */
  unsigned nspares;
  char *spare[RAID_MAX_SPARES]; /* hot spares (recovery.h) */
  bool force;                   /* write over a replacement's or spare's
                                 * signature (recovery.h) */
};

extern struct raid_params params;

/* nbdkit's .config: one key=value. */
extern int params_config (const char *key, const char *value);
/* The names of io= values, by enum file_io_mode. */
extern const char *params_io_name (enum file_io_mode m);
/* The names of metadata= values, by enum raid_metadata. */
extern const char *params_metadata_name (enum raid_metadata m);
/* --dump-plugin's raid_param_* lines, from the tables. */
extern void params_dump (void);
/* --help, built from the tables on the first call. */
extern const char *params_help_text (void);
extern void params_free (void);

#endif
