/* raidsim: the background stream of a resync or a rebuild (the array
 * keys that ask for one, and describe a degraded array, are
 * synckeys.h's).
 *
 * md repairs an array with a thread of its own (md_do_sync) that walks
 * it from start to end, one sync request at a time (raid1.c and
 * raid10.c's sync_request), beside the host's I/O:
 *
 *   - a rebuild (md's "recovery") reads each region of the member being
 *     rebuilt from a live copy (the first one in layout order that is in
 *     sync) and writes it to that member;
 *   - a resync, after an unclean shutdown, reads each region from its
 *     first live copy and writes it to the others (raid1.c; the nbdkit
 *     raid plugin does the same for RAID 10);
 *   - a check (md's sync_action=check, the scrub) reads every live copy
 *     and writes none.  md's own RAID 10 resync reads every copy and
 *     rewrites only those that differ, so for copies that agree it costs
 *     what a check costs.
 *
 * A sync request covers up to 64 KiB (md's RESYNC_BLOCK_SIZE, 16 pages),
 * never across a chunk boundary, and at most 32 are in flight at once
 * (RESYNC_DEPTH, md's barrier limit).
 *
 * Its speed is held between two limits, bytes of progress per second:
 * the array bytes walked for a resync or a check, the bytes written to
 * the member for a rebuild (md counts its position the same way).  md
 * measures its own speed and, above speed_limit_max, sleeps; above
 * speed_limit_min, it looks at whether the array is idle
 * (is_mddev_idle): a member that has done more than 32 KiB of other I/O
 * since it was last found busy makes the array busy.  What md then does
 * has changed:
 *
 *   - throttle "min" (md before Linux 4.1, and what md's documentation
 *     and the limits' names describe): while the array is busy the
 *     stream goes no faster than speed_limit_min;
 *   - throttle "drain" (md since Linux 4.1, commit ac8fa4196d20 "md:
 *     allow resync to go faster when there is competing IO"): while the
 *     array is busy the stream waits for its own requests in flight to
 *     finish before it issues more, so it slows by as much as the
 *     devices make it wait, and speed_limit_min only says when it stops
 *     waiting.
 *
 * The stream here paces its requests instead of measuring and sleeping:
 * each request of L bytes is released no sooner than L / limit after the
 * one before, at speed_limit_max while the array is idle and (throttle
 * "min") at speed_limit_min while it is busy.  Over a long run the mean
 * is the same as md's; md's own rate swings around it, since it measures
 * over up to 30 s with a one-second offset and sleeps 500 ms at a time.
 * The idle test is md's, made every 128 KiB of progress (md's window):
 * foreground bytes given to each member's device, against a mark that
 * moves only when the member is found busy.
 *
 * The stream is a state machine like the models (device.h): it never
 * reads a clock; sim.c tells it the time, asks next () when it wants to
 * issue, and hands it each of its commands back when done.
 */
#ifndef RAIDSIM_BACKGROUND_H
#define RAIDSIM_BACKGROUND_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/array.h"
#include "raidsim/engine.h"
#include "raidsim/histogram.h"
#include "raidsim/io.h"
#include "raidsim/param.h"
#include "raidsim/synckeys.h"

struct raidsim_array_config;

#define RAIDSIM_SYNC_BLOCK  (UINT64_C (64) << 10)  /* md's RESYNC_BLOCK_SIZE */
#define RAIDSIM_SYNC_DEPTH  32                     /* md's RESYNC_DEPTH */
#define RAIDSIM_SYNC_WINDOW (UINT64_C (128) << 10) /* md_do_sync's window */
#define RAIDSIM_SYNC_IDLE   (UINT64_C (32) << 10)  /* is_mddev_idle's 64 sectors */
#define RAIDSIM_SYNC_PAUSE  (500 * RAIDSIM_NS_PER_MS) /* md's msleep (500) */

/* ---- the stream ---- */

struct raidsim_bg_result {
  int action;                   /* enum raidsim_sync_action */
  int member;                   /* the member rebuilt, or -1 */
  uint64_t total;               /* bytes of progress to do in all */
  uint64_t done;                /* bytes of progress done */
  uint64_t units;               /* sync requests completed */
  uint64_t ios[RAIDSIM_NDIRS];  /* member commands sent */
  uint64_t bytes[RAIDSIM_NDIRS];
  raidsim_ns start;             /* the stream started */
  raidsim_ns end;               /* it completed, or was stopped */
  raidsim_ns busy;              /* time the array was found busy */
  bool complete;                /* it reached the end of its work */
  struct raid_histogram lat; /* each sync request, first command
                                 * issued to last one finished */
};

struct raidsim_bg;

/* Send one member command of the stream; tag comes back through
 * raidsim_bg_cmd_done.  Cannot fail (the driver sizes its pools with
 * raidsim_bg_max_cmds).
 */
typedef void (*raidsim_bg_send_fn) (void *opaque, enum raidsim_dir dir,
                                    const struct raidsim_member_cmd *cmd,
                                    void *tag);

/* A stream for the array file's action over the RAID layer a, or NULL
 * with raidsim_error () set.  The array must outlive it.
 */
extern struct raidsim_bg *raidsim_bg_new (const struct raidsim_array_config *ac,
                                          struct raidsim_array *a,
                                          unsigned nmembers);
extern void raidsim_bg_free (struct raidsim_bg *bg);

/* The most commands it has in flight at once, and the gcd of their
 * lengths (for a controller cache's sizing).
 */
extern uint64_t raidsim_bg_max_cmds (const struct raidsim_bg *bg);
extern uint64_t raidsim_bg_min_len (const struct raidsim_bg *bg);

/* It starts at now. */
extern void raidsim_bg_start (struct raidsim_bg *bg, raidsim_ns now);
/* When it next wants to issue (RAIDSIM_NEVER: only a completion or the
 * end of the foreground can make it).
 */
extern raidsim_ns raidsim_bg_next (const struct raidsim_bg *bg);
/* Issue what is due by now. */
extern void raidsim_bg_run (struct raidsim_bg *bg, raidsim_ns now,
                            raidsim_bg_send_fn send, void *opaque);
/* A command it sent is done (or acknowledged by a controller's cache). */
extern void raidsim_bg_cmd_done (struct raidsim_bg *bg, void *tag,
                                 raidsim_ns now, raidsim_bg_send_fn send,
                                 void *opaque);
/* The foreground gave len bytes to member's device. */
extern void raidsim_bg_fg_io (struct raidsim_bg *bg, unsigned member,
                              uint64_t len);
/* The foreground workload has finished: from sync_runtime on (or now,
 * if later) the stream issues nothing new.
 */
extern void raidsim_bg_fg_done (struct raidsim_bg *bg, raidsim_ns now);

/* The run is over: close the figures.  A stream that did not complete
 * ends when it was stopped (or at its last completion, if later).
 */
extern void raidsim_bg_finish (struct raidsim_bg *bg);

extern const struct raidsim_bg_result *
raidsim_bg_result (const struct raidsim_bg *bg);

/* Its mean rate, bytes of progress per second over start..end, and the
 * time the rest would take at that rate (RAIDSIM_NEVER if the rate is
 * 0 and work is left; 0 if complete).
 */
extern double raidsim_bg_rate (const struct raidsim_bg_result *r);
extern raidsim_ns raidsim_bg_eta (const struct raidsim_bg_result *r);

#endif /* RAIDSIM_BACKGROUND_H */
