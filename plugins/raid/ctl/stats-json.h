/* nbdkit-raid-plugin: writing the statistics out, as JSON to stats=PATH
 * (at exit and on SIGUSR1) and as one log line per member at exit.  The
 * JSON layout is described in stats.h.
 */
#ifndef RAID_STATS_JSON_H
#define RAID_STATS_JSON_H

#include <stdbool.h>

#include "raidsim/geometry.h"
#include "md/state.h"
#include "member/member.h"
#include "member/stats.h"
#include "sync/scrub.h"

/* What to report: a view of the plugin's state. */
struct stats_source {
  const struct raid_geom *geom;
  struct member *members;
  unsigned nmembers;
  struct io_stats *array;
  const char *io;               /* "uring", "threads", "inline", "mixed"
                                 * or "none" */
  bool sync_on;                 /* safe mode and resync run */
  struct raid_sync_status sync; /* the sync action, if sync_on */
  struct scrub_view scrub;      /* check and repair (sync/scrub.h) */
};

/* Fills *src with the plugin's current state. */
typedef void (*stats_source_fn) (struct stats_source *src);

/* Start the thread that writes PATH, from what source gives, whenever
 * SIGUSR1 arrives.
 */
extern int stats_json_start (const char *path, stats_source_fn source);
extern void stats_json_stop (void);

/* Write the JSON file (atomically: a temporary file renamed over PATH). */
extern int stats_json_write (const char *path, const struct stats_source *src);

/* One line per member and one for the array: to stderr if to_stderr,
 * else as debug messages, which nbdkit prints only with -v.
 */
extern void stats_log_summary (const struct stats_source *src,
                               bool to_stderr);

#endif
