/* nbdkit-raid-plugin: its parameters.  Each is described once, in the
 * table in params.c (the array's shape and read policy in the core's
 * raid_keys[], include/raidsim/raidkeys.h): parsing, --help and, through
 * tests/integration/test-pod-params.sh, the man page all come from it.
 */
#ifndef RAID_PARAMS_H
#define RAID_PARAMS_H

#include <stdbool.h>

#include "raidsim/raidkeys.h"
#include "md/assemble.h"
#include "md/spares.h"
#include "member/member.h"

#define MAX_INFLIGHT_DEFAULT 64
#define MAX_INFLIGHT_MAX 4096

/* timeout=: the SCSI command timeout's default (the kernel's
 * /sys/block/SD/device/timeout), what md users are used to waiting.
 */
#define TIMEOUT_DEFAULT_S 30
#define TIMEOUT_MAX_S 86400      /* a day */

/* sync-speed-min= and sync-speed-max=: md's speed_limit_min and
 * speed_limit_max defaults, KiB/s (sync/throttle.h).
 */
#define SYNC_SPEED_MIN_DEFAULT 1000
#define SYNC_SPEED_MAX_DEFAULT 200000

/* The parameters as given; checked across keys in raid_config_complete. */
struct raid_params {
  struct raid_settings raid;    /* level, chunk, copies, read-policy */
  enum raid_metadata metadata;
  enum file_io_mode io_mode;
  unsigned max_inflight;
  unsigned timeout_ms;          /* 0: never */
  unsigned long sync_speed_min, sync_speed_max; /* KiB/s (throttle.h) */
  char *stats_path;             /* absolute, or NULL */
  char *control_path;           /* the control socket: absolute, or NULL */
  unsigned nmembers;
  char *member[RAID_MAX_MEMBERS]; /* as given: in layout order without
                                 * md metadata, in any order with it */
  unsigned nspares;
  char *spare[RAID_MAX_SPARES]; /* hot spares (md/spares.h) */
  bool force;                   /* write over a new member's, spare's or
                                 * replacement's signature (member/probe.h) */
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
