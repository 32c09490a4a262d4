/* raidsim: the host workload, one closed-loop thread of a fio job.
 *
 * A worker decides what a thread issues next and when it must stop; it
 * does not know about time beyond being told it, and it does not keep
 * requests in flight itself: the driver (sim.c) asks for the next
 * request whenever the thread has fewer than iodepth in flight, which is
 * fio's behaviour with its default iodepth_low and batch settings.
 *
 * fio semantics kept here:
 *   - sequential jobs walk the region block by block from its start and
 *     wrap at its end; reads and writes of rw= keep separate positions;
 *   - random jobs visit every block of the region once per pass, in a
 *     seeded pseudo-random order (fio's default random map; the order
 *     itself differs from fio's); with norandommap each offset is drawn
 *     uniformly and independently, as fio then does;
 *   - rwmixread picks each I/O's direction at random;
 *   - unless time_based, a thread stops issuing when it has done size
 *     bytes, those issued during ramp_time included (fio 3.33 with
 *     size=32m, rate=8m and ramp_time=1s reports 24 MiB), its last
 *     block taking it past size if bs
 *     does not divide size; or sooner, when its blocks run out: a random
 *     map holds the region's whole blocks only, and a sequential block
 *     may not run past the array (norandommap draws among the whole
 *     blocks and never runs out);
 *   - it also stops when it has issued number_ios I/Os since ramp_time,
 *     or when runtime has passed since ramp_time;
 *   - I/Os issued before ramp_time are not measured and do not count
 *     towards number_ios, only towards size;
 *   - times count from the thread's start, t0, which is later than 0 for
 *     a job after a stonewall.
 *
 * Jobs whose I/Os are not all one size (bs=R,W, bsrange, bssplit) draw
 * each I/O's size from its direction's raidsim_bsdist, as fio's
 * get_next_buflen does, and otherwise keep the rules above with bytes
 * for blocks:
 *   - sequentially each direction's position moves on by the size of
 *     its last I/O; an I/O must end inside the region (one of a fixed
 *     size, bs=R,W, only inside the array, as above), and when not even
 *     the smallest fits the thread stops, or with time_based starts
 *     again at the region's start;
 *   - random offsets are multiples of the direction's smallest size:
 *     without norandommap each direction visits every such offset once
 *     per pass, in its own seeded order (fio keeps one map of the
 *     smallest blocks, shared by reads and writes, and marks all the
 *     blocks an I/O covers; raidsim's passes may overlap a larger I/O
 *     with a later one, and the thread stops after size bytes or when a
 *     direction's pass is done); a drawn size that would run past the
 *     region is replaced as fio replaces it;
 *   - a thread stops issuing when it has issued size bytes, reads and
 *     writes together, as fio's io_bytes_exceeded.
 *
 * io_size replaces size as the bytes of a pass: a thread that runs out
 * of region first starts over (sequentially from the region's start,
 * randomly with a new pass), as fio does.  loops makes that many
 * passes, each from the region's start and, for random jobs with a
 * map, in a new order; number_ios is then multiplied by loops, as in
 * fio's exceeds_number_ios.
 *
 * fio's rw suffix (str_rw_cb, get_next_seq_offset): rw=read:N starts
 * each sequential I/O N bytes after the end of the last (N < 0: before
 * it, going backwards, from the region's end once it would leave the
 * array); the thread stops at the region's end, or with time_based
 * starts again.  rw=randread:N takes a random offset for every Nth I/O
 * and goes on sequentially from the last I/O's end in between (a random
 * one if that would leave the region).  ba (blockalign) makes random
 * offsets multiples of it instead of the smallest block size.
 *
 * zonemode=strided (fio's setup_strided_zone_mode): the thread works in
 * a zone of zonerange bytes until it has done zonesize bytes there,
 * then moves zonerange + zoneskip on, back to the region's start once
 * past the end of the array; sequentially it restarts at each zone's
 * start and goes over the zone again if zonesize is larger; randomly it
 * draws within the zone (with a map, each block once per zonerange
 * bytes).  size counts bytes of I/O, not an extent.
 *
 * random_distribution (zipf, pareto, normal) draws a rank and maps it
 * to a block as fio's lib/zipf.c and lib/gauss.c do: ranks over
 * ceil(size / bs) blocks, multiplied by a 64-bit golden-ratio constant
 * (fio's __hash_u64) and offset by a random or given centre, modulo
 * the blocks; with replacement, as fio then has no random map.  Jobs of
 * several sizes take the rank modulo each direction's blocks.
 *
 * Trace replay (read_iolog, trace.h): the thread issues the trace's
 * records in order, each due at t0 + its time x 100 / replay_time_scale
 * (or at once with replay_no_stall), at most iodepth in flight; a
 * record whose slot comes free late is issued late, and req->due says
 * when it was due (the host-queue stage).  fio instead waits each gap
 * from the previous issue, so its schedule slips by a late I/O; the two
 * agree whenever no I/O is held back by iodepth.  It stops after the
 * last record, or at runtime or number_ios.
 *
 * Pacing (raidsim_worker_ready), as fio's do_io paces a thread:
 *   - startdelay: the thread starts that much later (the driver adds
 *     w->delay to t0);
 *   - thinktime: after every thinktime_blocks I/Os issued, the thread
 *     waits for its I/Os in flight to complete, then thinktime;
 *   - rate, rate_iops: the I/O after B bytes of its direction is due
 *     B / rate after t0 (rate_process=poisson: after a sum of
 *     exponential gaps, fio's usec_for_io); a thread ahead of schedule
 *     waits, and with io_submit_mode=inline, fio's default, it first
 *     lets its I/Os in flight complete and then waits the time it was
 *     ahead when it stopped (fio's rate_ddir); a mixed job whose chosen
 *     direction is ahead takes the other if that is due.
 */
#ifndef RAIDSIM_WORKLOAD_H
#define RAIDSIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/engine.h"
#include "raidsim/fiojob.h"
#include "raidsim/io.h"
#include "raidsim/rng.h"

struct raidsim_hostreq {
  enum raidsim_dir dir;
  uint64_t offset, len;         /* array bytes */
  bool measured;                /* issued at or after ramp_time */
  raidsim_ns due;               /* when the thread wanted to issue it:
                                 * a replayed trace's time, else now */
  /* A flush of the array (raidsim_hostreq_flush): the driver sends one
   * to every live member (raidsim_array_flush), and the thread issues
   * nothing else until it completes.  dir, offset and len are then
   * RAIDSIM_WRITE, 0 and 0.
   */
  bool flush;
  /* A trim of offset+len (dir RAIDSIM_WRITE): the driver sends it to
   * the members by md's discard rules (raidsim_array_discard).
   */
  bool trim;
  /* A write that must be on stable media when it completes (sync=1,
   * writefua=1: fio's O_SYNC writes, which the kernel sends with FUA).
   */
  bool fua;
};

/* Make req a flush, measured or not.  Any source of host requests (a
 * job's worker, a trace's sync entries) asks for a flush this way.
 */
static inline void
raidsim_hostreq_flush (struct raidsim_hostreq *req, bool measured)
{
  req->dir = RAIDSIM_WRITE;
  req->offset = 0;
  req->len = 0;
  req->measured = measured;
  req->flush = true;
  req->trim = false;
  req->fua = false;
}

/* One direction's state in a job of several block sizes. */
struct raidsim_worker_dir {
  struct raidsim_bsdist dist;
  uint64_t align;               /* random offsets are multiples (ba) */
  uint64_t pos;                 /* sequential: next offset in the region */
  uint64_t nblocks;             /* random: offsets, multiples of dist.min */
  uint64_t drawn;               /* random: offsets drawn in this pass */
  struct raidsim_perm perm;     /* random: their order */
};

struct raidsim_worker {
  const struct raidsim_job *job;
  uint64_t start, nblocks;      /* the region, in bs blocks */
  uint64_t size_ios;            /* I/Os that do size bytes */
  bool random;
  struct raidsim_rng rng;       /* read/write choice */
  struct raidsim_perm perm;     /* random block order */
  uint64_t seq_block[RAIDSIM_NDIRS]; /* next block, sequential jobs */
  uint64_t seq_pos[RAIDSIM_NDIRS]; /* rw=...:N: end of the last I/O, from
                                 * the region's start */
  uint64_t seq_count;           /* rw=randread:N: I/Os so far */
  uint64_t ios;                 /* issued since ramp_time */
  uint64_t issued;              /* issued in all, the ramp's too */
  raidsim_ns t0;                /* when the thread started; 0 by default */
  bool stopped;

  bool general;                 /* any feature beyond fio's plain jobs
                                 * (then the general path draws) */
  uint64_t ios_limit;           /* size_ios x loops */
  uint64_t number_limit;        /* number_ios x loops */
  uint64_t loops;               /* passes to make, unless time_based */
  uint64_t pass;                /* passes started, less one */
  uint64_t loop_key;            /* state of the keys of new passes */
  bool wrap;                    /* start over when the region runs out */

  /* Pacing (raidsim_job_timed). */
  bool timed;
  raidsim_ns delay;             /* startdelay; the driver adds it to t0 */
  uint64_t bps[RAIDSIM_NDIRS];  /* rate in bytes/s; 0: unlimited */
  uint64_t iops[RAIDSIM_NDIRS]; /* the same in I/Os of the smallest size */
  raidsim_ns due[RAIDSIM_NDIRS]; /* next I/O's time on schedule, from t0 */
  uint64_t rate_bytes[RAIDSIM_NDIRS]; /* issued, for the schedule */
  int next_dir;                 /* chosen by ready; -1: none */
  enum { W_RUN, W_DRAIN_RATE, W_DRAIN_THINK, W_SLEEP } pace;
  raidsim_ns gap;               /* to wait once drained */
  raidsim_ns wake;              /* end of the wait */
  uint64_t thought;             /* I/Os since the last think */
  struct raidsim_rng trng;      /* poisson gaps, startdelay ranges */

  /* zonemode=strided (one block size). */
  bool strided;
  uint64_t zone_start;          /* from the region's start */
  uint64_t zone_range;          /* bytes of a zone */
  uint64_t zone_blocks;         /* blocks of bs in this zone */
  uint64_t zone_bytes;          /* done in this zone */
  struct raidsim_perm zone_perm; /* random order in the zone */

  /* random_distribution other than random. */
  int dist;                     /* enum raidsim_random_dist */
  uint64_t nranges;             /* blocks it draws among */
  uint64_t rand_off;            /* rotation of the ranks (fio's rand_off) */
  double theta, zetan, zeta2;   /* zipf */
  double pareto_pow;            /* pareto */
  uint64_t gauss_dev;           /* normal: jitter, in blocks */
  struct raidsim_rng drng;

  /* Trace replay (read_iolog): the next record, and whether its time
   * holds it back (raidsim_job_timed).
   */
  const struct raidsim_trace *trace;
  size_t tnext;
  uint64_t tscale;              /* replay_time_scale, percent */
  /* fsync, fdatasync: writes issued so far, the ramp's too (fio's
   * io_issues), and whether the next request is a flush; end_fsync.
   */
  uint64_t writes;
  bool flush_due;
  bool end_flushed;
  /* trimwrite: the range just trimmed, to be written next. */
  bool trimmed;
  uint64_t trim_offset, trim_len;

  /* Jobs of several block sizes (!raidsim_job_bs_fixed). */
  bool variable;
  struct raidsim_region region;
  uint64_t issued_bytes;        /* the ramp's too */
  struct raidsim_rng bsrng;     /* block sizes */
  struct raidsim_worker_dir dir[RAIDSIM_NDIRS];
};

/* Set up thread `thread_index` of job j over its region, from
 * raidsim_job_thread_region.  seed is the run's seed; each thread
 * derives its own streams from it.
 */
extern void raidsim_worker_init_region (struct raidsim_worker *w,
                                        const struct raidsim_job *j,
                                        const struct raidsim_region *r,
                                        uint64_t seed, unsigned job_index,
                                        unsigned thread_index);

/* The same for a job whose every I/O is bs, over nblocks blocks from
 * start of which it does size_ios.
 */
extern void raidsim_worker_init (struct raidsim_worker *w,
                                 const struct raidsim_job *j,
                                 uint64_t start, uint64_t nblocks,
                                 uint64_t size_ios, uint64_t seed,
                                 unsigned job_index, unsigned thread_index);

/* When the thread may issue its next request, asked by the driver
 * whenever the thread has fewer than iodepth requests in flight
 * (inflight of them) and before raidsim_worker_next: now if at once, a
 * later time at which to ask again, or RAIDSIM_NEVER to ask again when
 * one of those in flight completes.  Always now for a job that does
 * not pace itself.
 */
extern raidsim_ns raidsim_worker_ready (struct raidsim_worker *w,
                                        raidsim_ns now, unsigned inflight);

/* The thread's next request at time now, or false if it has stopped
 * issuing (and will not start again).  With fsync or fdatasync, the
 * request after every Nth write is a flush (req->flush), as fio's
 * get_rw_ddir chooses DDIR_SYNC after the write that makes io_issues a
 * multiple of N; the thread's stopping rules are checked first, as
 * fio's do_io loop checks them before it gets the next io_u.
 */
extern bool raidsim_worker_next (struct raidsim_worker *w, raidsim_ns now,
                                 struct raidsim_hostreq *req);

/* Once the thread has stopped and its I/O has completed: true, once,
 * with req a flush (not measured) if its job asks for one then
 * (end_fsync, fsync_on_close) and writes, as fio's do_io ends.
 */
extern bool raidsim_worker_end_flush (struct raidsim_worker *w,
                                      struct raidsim_hostreq *req);

#endif /* RAIDSIM_WORKLOAD_H */
