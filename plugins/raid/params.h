/* nbdkit-raid-plugin: its parameters.  Each is described once, in the
 * table in params.c (the array's shape and read policy in the core's
 * raid_keys[], include/raidsim/raidkeys.h): parsing, --help and, through
 * tests/integration/test-pod-params.sh, the man page all come from it.
 */
#ifndef RAID_PARAMS_H
#define RAID_PARAMS_H

#include <stdbool.h>

#include "raidsim/raidkeys.h"
#include "member.h"

#define MAX_INFLIGHT_DEFAULT 64
#define MAX_INFLIGHT_MAX 4096

/* timeout=: the SCSI command timeout's default (the kernel's
 * /sys/block/SD/device/timeout), what md users are used to waiting.
 */
#define TIMEOUT_DEFAULT_S 30
#define TIMEOUT_MAX_S 86400      /* a day */

/* The parameters as given; checked across keys in raid_config_complete. */
struct raid_params {
  struct raid_settings raid;    /* level, chunk, copies, read-policy */
  enum file_io_mode io_mode;
  unsigned max_inflight;
  unsigned timeout_ms;          /* 0: never */
  char *stats_path;             /* absolute, or NULL */
  unsigned nmembers;
  char *member[RAID_MAX_MEMBERS]; /* as given, in layout order */
};

extern struct raid_params params;

/* nbdkit's .config: one key=value. */
extern int params_config (const char *key, const char *value);
/* The names of io= values, by enum file_io_mode. */
extern const char *params_io_name (enum file_io_mode m);
/* --help, built from the tables on the first call. */
extern const char *params_help_text (void);
extern void params_free (void);

#endif
