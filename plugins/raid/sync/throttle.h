/* nbdkit-raid-plugin: md's throttle for the sync actions, one for all
 * four: the resync (resync.c), the rebuild (rebuild.c), the replacement
 * (replace.c) and check and repair (scrub.c).
 *
 * md's rule (md_do_sync), with sync-speed-min= and sync-speed-max=
 * (speed_limit_min and speed_limit_max, KiB/s):
 *
 *   - the job's rate is measured since a mark, which is taken again
 *     every THROTTLE_MARK_NS (md keeps ten marks 3 s apart and measures
 *     from the oldest; one mark is what the plugin has always done);
 *   - while clients are busy (their request count changed since the
 *     last look) the job goes at most at min, otherwise at most at max;
 *   - a job ahead of its limit waits until it is down to it, in steps
 *     of at most THROTTLE_RECHECK_NS (md's msleep (500)), looking again
 *     after each step whether clients are still busy: a wait worked out
 *     at min while a client ran must not go on after it has stopped.
 *
 * throttle_wait_ns is the rule alone, pure and tested without I/O
 * (tests/unit/test-throttle.c); throttle_pace applies it to a running
 * job, with the clock and the array's client statistics.
 */
#ifndef RAID_THROTTLE_H
#define RAID_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

#include "member/stats.h"

/* The longest single wait before looking again at whether clients are
 * busy (md rechecks every 500 ms).
 */
#define THROTTLE_RECHECK_NS UINT64_C (500000000)
/* How often the mark the rate is measured from is taken again. */
#define THROTTLE_MARK_NS UINT64_C (3000000000)

/* The rate, in KiB/s, of bytes done in ns; 0 when no time has passed. */
extern double throttle_rate (uint64_t bytes, uint64_t ns);

/* How long a job that has done bytes in elapsed_ns since its mark waits
 * now, in ns: 0 if its rate is within the limit (busy ? min : max,
 * KiB/s), else the time until it would be, but at most
 * THROTTLE_RECHECK_NS.  No time elapsed counts as rate 0 (no wait).  A
 * limit of 0 holds the job: it waits THROTTLE_RECHECK_NS at a time.
 */
extern uint64_t throttle_wait_ns (uint64_t bytes, uint64_t elapsed_ns,
                                  uint64_t min, uint64_t max, bool busy);

struct throttle {
  uint64_t min, max;            /* KiB/s */
  struct io_stats *clients;     /* the array's client requests */
  uint64_t mark_ns, mark_done;  /* the mark: when, and the bytes by then */
  uint64_t requests;            /* client requests at the last look */
};

/* A job starts, with done bytes counted already (its counter, which
 * throttle_pace is then given as it grows).
 */
extern void throttle_start (struct throttle *t, struct io_stats *clients,
                            uint64_t min, uint64_t max, uint64_t done);

/* The job's rate since the mark, KiB/s (for its status). */
extern double throttle_rate_now (const struct throttle *t, uint64_t done);

/* After a step of the job, which has done bytes in all: wait as md's
 * throttle says, by calling sleep (opaque, ns) for each step of the
 * wait; sleep returns true if the job is to stop (or otherwise end the
 * wait at once).  Then the mark is taken again if it is
 * THROTTLE_MARK_NS old.  Whatever lock sleep waits on is the caller's.
 */
extern void throttle_pace (struct throttle *t, uint64_t done,
                           bool (*sleep) (void *opaque, uint64_t ns),
                           void *opaque);

#endif /* RAID_THROTTLE_H */
