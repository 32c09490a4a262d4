/* raidsim: the array file's keys of a degraded array and its background
 * stream (raidsim/config/synckeys.c): failed, rebuild, resync, the
 * speed limits and sync_throttle, their values, and their checks.  The
 * stream that runs them is background.h's; config.c parses the keys
 * with these tables and checks them with raidsim_sync_keys_check.
 */
#ifndef RAIDSIM_SYNCKEYS_H
#define RAIDSIM_SYNCKEYS_H

#include <stdint.h>

#include "raidsim/array.h"
#include "raidsim/param.h"

/* The `resync` key. */
enum raidsim_resync {
  RAIDSIM_RESYNC_NO,
  RAIDSIM_RESYNC_YES,           /* read the first live copy, write the rest */
  RAIDSIM_RESYNC_CHECK,         /* read every live copy, write none */
};

/* The `sync_throttle` key. */
enum raidsim_sync_throttle {
  RAIDSIM_THROTTLE_MIN,
  RAIDSIM_THROTTLE_DRAIN,
};

extern const struct raidsim_enum raidsim_resync_enums[];
extern const struct raidsim_enum raidsim_sync_throttle_enums[];

/* What the stream does. */
enum raidsim_sync_action {
  RAIDSIM_SYNC_NONE,
  RAIDSIM_SYNC_RESYNC,
  RAIDSIM_SYNC_CHECK,
  RAIDSIM_SYNC_REBUILD,
};

extern const char *raidsim_sync_action_name (int action);

/* The keys as an array file gives them. */
struct raidsim_sync_keys {
  int level;                    /* RAIDSIM_LEVEL_SINGLE or a raid_level */
  unsigned members;
  const char *failed, *rebuild; /* "none" or member indexes */
  int resync;                   /* enum raidsim_resync */
  uint64_t speed_limit_min, speed_limit_max;    /* bytes/s; max 0: none */
};

/* Check the keys, once the RAID layer's other parameters (ap) have been
 * accepted: parse failed and rebuild into *failed and *rebuild, and
 * refuse an array with a chunk that has no live copy (or, with a
 * rebuild, no live copy besides the member being rebuilt), as md's
 * enough () does (raidsim/core/mdrules.c).  Returns 0, or -1 with
 * raidsim_error () set to a message that starts with the key at fault.
 */
extern int raidsim_sync_keys_check (const struct raidsim_sync_keys *k,
                                    const struct raidsim_array_params *ap,
                                    uint32_t *failed, uint32_t *rebuild);

/* The action the keys ask for (RAIDSIM_SYNC_NONE if none). */
extern int raidsim_sync_keys_action (uint32_t rebuild, int resync);

#endif /* RAIDSIM_SYNCKEYS_H */
