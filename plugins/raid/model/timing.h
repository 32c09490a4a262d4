/* nbdkit-raid-plugin: model=ARRAY.ini, the simulator's models on the
 * wall clock.
 *
 * With model= the array's member I/O still goes to the real members, so
 * the data is real; what the models change is when a request
 * completes.  The array file's RAID layer (raidsim's array.c: the split
 * and the read policy, read-policy = all included), controller, links
 * and devices, the very code `raidsim run` drives in simulated time
 * (raidsim_lib), are driven here by CLOCK_MONOTONIC instead of the
 * event engine:
 *
 *   timing_begin   a client request arrives (raid.c): the model's RAID
 *                  layer splits it into member commands for the
 *                  controller model, at the clock's reading
 *                  (include/raidsim/device.h: the driver tells the
 *                  models the time); then the real request runs;
 *   the timing thread  runs the models: it sleeps (timer slack 1 ns)
 *                  until shortly before the next time a model has
 *                  something to do, and hands each request the time
 *                  its last command completed;
 *   timing_end     after the real request: sleeps to just before the
 *                  model's completion time and spins the last
 *                  microseconds, so that the request returns then.
 *
 * The models see the request as the simulator would, not the plugin's
 * own member I/O: on RAID 1 and 10 the model's read policy picks the
 * copies it times, whichever the plugin read (the plugin's choice looks
 * at the real members' queues, which are not the modelled ones).
 *
 * The models' RAID layer follows the real array's members (struct
 * timing_state, read as each request arrives): a member failed or
 * missing in the plugin is failed in the models, as the simulator's
 * `failed` key makes it.  The plugin's own rebuild, resync, check and
 * replacement I/O goes to the models too (timing_begin_background,
 * syncio.c) and takes their time.
 *
 * The emulator can only add latency.  A request whose real I/O ends
 * after the model's time is late: it returns at once, and is counted,
 * with by how much, in the statistics JSON ("timing") and the log
 * summary.
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

#include <pthread.h>

/* One client request, on its thread's stack from timing_begin to
 * timing_end.
 */
struct timing_req {
  bool timed;
  bool background;              /* timing_begin_background's */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  unsigned left;                /* member commands the models still hold */
  uint64_t start, done;         /* CLOCK_MONOTONIC ns: given to the
                                 * models, and the models' completion */
};

/* The real array's state, which the models' RAID layer follows: a
 * member failed or missing (bit i: member i) is neither read nor
 * written; a member being rebuilt is read only below sync_pos (bytes
 * past its data offset, md's recovery_offset); during a resync, array
 * bytes at or past sync_pos are read from their first live copy.  The
 * simulator's own keys for these (failed, rebuild, resync) describe
 * the same states (raidsim/engine/array.c).
 */
struct timing_state {
  uint32_t failed, rebuild;
  bool resync;
  uint64_t sync_pos;
};
typedef void (*timing_state_fn) (struct timing_state *st);

/* Build the models and start the thread (after nbdkit's fork).  state,
 * called as each request arrives, gives the array's state then.
 */
extern int timing_start (timing_state_fn state);
extern void timing_stop (void);

/* True once model= was given. */
extern bool timing_enabled (void);

/* The hooks in raid.c (see above).  All are no-ops without model=.
 * write: a write or a zero (the members write zeroes); trims are not
 * timed.  A flush is timed by timing_begin_flush: a flush command to
 * every member, through the controller and device models.
 */
extern void timing_begin (struct timing_req *r, bool write, uint64_t offset,
                          uint64_t len);
extern void timing_begin_flush (struct timing_req *r);

/* The member I/O of a rebuild, resync, check or replacement (syncio.c):
 * n commands straight to the members' models, bypassing the RAID
 * layer's split, as md's sync I/O goes to the drives beside the
 * client's; the read policies count them as pending, as md counts
 * sync I/O in nr_pending.  timing_end then holds the walk until the
 * models have completed them (sleeping, not spinning: a walk needs no
 * precision), so that it goes at the modelled drives' speed and client
 * requests queue behind it in the models.  Offsets are bytes past the
 * member's data offset; a command to a member the models do not have
 * (a replacement being built) is left out.  Counted apart from client
 * requests in the statistics ("background").
 */
struct timing_member_cmd {
  unsigned member;
  bool write;
  uint64_t offset, len;
};
extern void timing_begin_background (struct timing_req *r,
                                     const struct timing_member_cmd *cmds,
                                     size_t n);

extern void timing_end (struct timing_req *r);

/* The "timing" object of the statistics JSON (limits.h), or NULL
 * without model=.
 */
extern json_object *timing_json (void);
/* One summary line (see stats_log_summary). */
extern void timing_log_summary (bool to_stderr);

/* -D raid.timing_lookahead_us=N, -D raid.timing_spin_us=N and
 * -D raid.timing_host_us=N (timing.c).
 */
extern int raid_debug_timing_lookahead_us;
extern int raid_debug_timing_spin_us;
extern int raid_debug_timing_host_us;

#endif /* RAID_TIMING_H */
