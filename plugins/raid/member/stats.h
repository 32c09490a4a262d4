/* nbdkit-raid-plugin: I/O statistics for the array and each member.
 *
 * Counts and bytes per operation, the largest number of I/Os seen in
 * flight at once, and latency histograms of constant size (the
 * simulator's log-linear histogram, raidsim/core/histogram.c), for reads and
 * for writes (zero and trim count as writes).  Written as JSON to
 * stats=PATH when nbdkit exits and on SIGUSR1.
 *
 * JSON layout (all latencies in nanoseconds):
 *
 *   { "level": 0, "chunk": 131072, "size": N, "io": "uring",
 *     "array":   { STATS },
 *     "members": [ { "index": 0, "name": "a.img", "backend": "file",
 *                    "engine": "uring", "failed": false, STATS... },
 *                  ... ] }
 *
 *   "io" is the file and device members' engine ("uring", "threads",
 *   "inline", "mixed" or "none"); "engine" each member's, "nbd" too.
 *
 *   STATS = "ops": { "read": N, "write": N, "zero": N, "trim": N,
 *                    "flush": N },
 *           "pieces": { "read": N, "write": N, "zero": N, "trim": N },
 *           "bytes": { "read": N, "write": N, "zero": N, "trim": N },
 *           "errors": N,
 *           "max_inflight": N,
 *           "lat_ns": { "read":  { "count": N, "mean": X, "min": N,
 *                                  "max": N, "p50": N, "p95": N,
 *                                  "p99": N },
 *                       "write": { ... } }
 *
 * For the array, ops and bytes count client requests; for a member,
 * member I/Os.  Pieces count the chunk-sized pieces the geometry cuts a
 * request into (RAID 1: one per request): for the array, each piece
 * once; for a member, the pieces its I/Os carried.  A member I/O is one
 * run of pieces that are contiguous on the member (raid_geom_runs), so
 * a 1 MiB read of a 2-member RAID 0 with 128K chunks is 1 op and 8
 * pieces on the array, and 1 op and 4 pieces on each member.
 */
#ifndef RAID_STATS_H
#define RAID_STATS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "raidsim/histogram.h"
#include "op.h"

/* The counts, in a shard and in a snapshot (the sum of the shards). */
struct stats_counts {
  uint64_t ops[MOP_COUNT];      /* by enum member_op */
  uint64_t pieces[MOP_COUNT];   /* array pieces (chunks) the ops carried */
  uint64_t bytes[MOP_COUNT];
  uint64_t errors;
  /* Filled with raid_hist_add: min, max, mean and percentiles, no
   * standard deviation (which the JSON does not give).
   */
  struct raid_histogram lat_read, lat_write;
};

/* Every I/O of the array passes here, from every thread, and so does
 * every I/O of a member: one lock for them all made its cache line
 * travel between the CPUs twice per I/O, and had threads queue for it.
 * So the counts are kept in one shard per CPU (up to STATS_MAX_SHARDS, a
 * power of two; CPUs beyond that share), each with its own lock, which
 * in the main only threads on that CPU take (a thread that moves CPU
 * meanwhile shares it once); a snapshot adds them up.  The I/Os in
 * flight must be counted at one place to know their greatest number:
 * an atomic counter, with the greatest value it ever took beside it.
 */
#define STATS_MAX_SHARDS 8

struct stats_shard {
  pthread_mutex_t lock;
  struct stats_counts c;
};

struct io_stats {
  atomic_uint inflight, max_inflight;
  unsigned nshards;
  struct stats_shard *shard;    /* [nshards], each on its own cache lines */
};

/* Returns 0, or -1 with errno set (no memory). */
extern int stats_init (struct io_stats *s);
extern void stats_destroy (struct io_stats *s);
/* Count an I/O starting; returns its start time. */
extern uint64_t stats_start (struct io_stats *s);
/* Count an I/O of op (enum member_op), length bytes and pieces array
 * pieces, started at start_ns, that ended with err (0 for success).
 * STATS_NOT_DONE ends it without counting it at all.
 */
#define STATS_NOT_DONE (-1)
extern void stats_done (struct io_stats *s, int op, uint64_t length,
                        unsigned pieces, uint64_t start_ns, int err);
extern uint64_t stats_now_ns (void);
/* A CLOCK_REALTIME time ns from now, for pthread_cond_timedwait. */
struct timespec;
extern void stats_deadline (struct timespec *ts, uint64_t ns);

/* A snapshot: the counts so far, each no less than in any earlier
 * snapshot, and the greatest number of I/Os in flight.
 */
struct stats_snapshot {
  struct stats_counts c;
  unsigned max_inflight;
};
extern void stats_snapshot (struct io_stats *s, struct stats_snapshot *out);
/* The ops and errors so far, without the histograms (cheaper). */
extern void stats_totals (struct io_stats *s, uint64_t ops[MOP_COUNT],
                          uint64_t *errors);
/* Requests done so far plus those in flight: while this changes, the
 * array is busy (the background work's idle test).
 */
extern uint64_t stats_activity (struct io_stats *s);

#endif /* RAID_STATS_H */
