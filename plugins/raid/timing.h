/* nbdkit-raid-plugin: model=ARRAY.ini, the simulator's models on the
 * wall clock.
 *
 * With model= the array's member I/O still goes to the real members, so
 * the data is real; what the models change is when a request
 * completes.  The array file's controller, links and devices (the very
 * code `raidsim run` drives in simulated time, raidsim_lib) are driven
 * here by CLOCK_MONOTONIC instead of the event engine, and a batch of
 * member I/Os (one client request, member.h) is handed back when both
 * its real I/O and the models are done with it:
 *
 *   member_submit_all   timing_submit: each member I/O becomes one
 *                       command to the controller model, at the clock's
 *                       reading (include/raidsim/device.h: the driver
 *                       tells the models the time);
 *   the timing thread   runs the models: it sleeps (timer slack 1 ns)
 *                       until shortly before the next time a model has
 *                       something to do, and hands each completed
 *                       command's time to its batch;
 *   batch_wait          timing_wait: after the real I/O, sleeps to just
 *                       before the model's completion time and spins
 *                       the last microseconds, so that the request
 *                       returns at that time.
 *
 * The emulator can only add latency.  A batch whose real I/O ends after
 * the model's time is late: it returns at once, and is counted, with by
 * how much, in the statistics JSON ("timing") and the log summary.
 *
 * See timing.c for why the thread runs the models a little ahead of the
 * clock (lookahead) and what that costs.
 */
#ifndef RAID_TIMING_H
#define RAID_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "raidsim/geometry.h"
#include "raidsim/raidkeys.h"

struct member_io;
struct member_batch;

/* model=PATH: load the array file and the files it names.  -1 after
 * nbdkit_error ("model: FILE:LINE: ...").
 */
extern int timing_config (const char *path);

/* Before assembly: level=, chunk= and copies= given on the command
 * line must agree with the array file's.  0, or -1 after one
 * nbdkit_error naming the key and both values.
 */
extern int timing_settings (const struct raid_settings *s);

/* An array without md metadata (assemble.c): its level, chunk and
 * copies are the array file's.
 */
extern void timing_fill (struct raid_settings *s);

/* After assembly: the array served (from md metadata, or as filled in
 * above) must be the file's: level, chunk, copies and member count.
 */
extern int timing_check_array (enum raid_level level, uint64_t chunk,
                               unsigned copies, unsigned nmembers);

/* Build the models and start the thread (after nbdkit's fork). */
extern int timing_start (void);
extern void timing_stop (void);

/* True once model= was given. */
extern bool timing_enabled (void);

/* The hooks in member.c (see above).  Both are no-ops without model=. */
extern void timing_submit (struct member_io *ios, size_t n);
extern void timing_wait (struct member_batch *b);

/* The "timing" object of the statistics JSON, or NULL without model=. */
extern json_object *timing_json (void);
/* One summary line (see stats_log_summary). */
extern void timing_log_summary (bool to_stderr);

/* -D raid.timing_lookahead_us=N and -D raid.timing_spin_us=N */
extern int raid_debug_timing_lookahead_us;
extern int raid_debug_timing_spin_us;

#endif /* RAID_TIMING_H */
