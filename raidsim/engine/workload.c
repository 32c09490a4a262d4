/* raidsim: the host workload generator (see workload.h for the fio
 * semantics it keeps).
 */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "raidsim/trace.h"
#include "raidsim/workload.h"

static bool
uses_dir (const struct raidsim_job *j, enum raidsim_dir d)
{
  switch (j->rw) {
  case RAIDSIM_RW_READ: case RAIDSIM_RW_RANDREAD:
    return d == RAIDSIM_READ;
  case RAIDSIM_RW_WRITE: case RAIDSIM_RW_RANDWRITE:
    return d == RAIDSIM_WRITE;
  default:
    return j->rwmixread != (d == RAIDSIM_READ ? 0 : 100);
  }
}

/* fio's __hash_u64 (hash.h): the ranks of a distribution are spread
 * over the file by this multiplication.
 */
#define GOLDEN_RATIO_64 UINT64_C (0x61C8864680B583EB)

/* zipf's normalising sum over n ranks, up to fio's 10 million terms
 * (lib/zipf.c, zipf_update).  It takes a while for large n, and every
 * thread of a job asks for the same one: the last is kept (the
 * simulator runs in one thread; sweeps fork).
 */
static double
zipf_zetan (uint64_t n, double theta)
{
  static uint64_t last_n;
  static double last_theta, last_zetan;
  uint64_t i, to_gen = n < 10000000 ? n : 10000000;
  double z = 0;

  if (n == last_n && theta == last_theta)
    return last_zetan;
  for (i = 0; i < to_gen; i++)
    z += pow (1.0 / (double) (i + 1), theta);
  last_n = n;
  last_theta = theta;
  last_zetan = z;
  return z;
}

/* A uniform number in [0, 1], as fio's __rand / FRAND32_MAX. */
static double
uniform (struct raidsim_rng *r)
{
  return (double) (raidsim_rng_next (r) >> 32) / (double) UINT32_MAX;
}

static void
dist_init (struct raidsim_worker *w, uint64_t *sm)
{
  const struct raidsim_job *j = w->job;
  uint64_t n;

  w->dist = j->random_distribution;
  if (w->dist == RAIDSIM_DIST_RANDOM || !w->random)
    return;
  raidsim_rng_seed (&w->drng, raidsim_splitmix64 (sm));
  if (w->dist == RAIDSIM_DIST_ZONED)
    return;
  /* fio's __init_rand_distribution: ranges of the smallest block size
   * over the region, the last one partial.
   */
  if (!w->variable) {
    n = (w->region.len + j->bs - 1) / j->bs;
    if (w->region.room / j->bs < n)
      n = w->region.room / j->bs;
  }
  else {
    uint64_t m = w->dir[0].dist.min < w->dir[1].dist.min
      ? w->dir[0].dist.min : w->dir[1].dist.min;

    n = (w->region.len + m - 1) / m;
  }
  w->nranges = n ? n : 1;
  w->rand_off = raidsim_rng_next (&w->drng) >> 32;
  switch (w->dist) {
  case RAIDSIM_DIST_ZIPF:
    w->theta = j->dist_param;
    w->zeta2 = pow (1.0, w->theta) + pow (0.5, w->theta);
    w->zetan = zipf_zetan (w->nranges, w->theta);
    if (j->dist_center >= 0)
      w->rand_off = w->nranges * j->dist_center;
    break;
  case RAIDSIM_DIST_PARETO:
    w->pareto_pow = log (j->dist_param) / log (1.0 - j->dist_param);
    if (j->dist_center >= 0)
      w->rand_off = w->nranges * j->dist_center;
    break;
  case RAIDSIM_DIST_NORMAL:
    if (j->dist_param != 0.0) {
      w->gauss_dev = ceil ((double) w->nranges * j->dist_param / 100.0);
      if (w->gauss_dev > w->nranges / 2)
        w->gauss_dev = w->nranges / 2;
    }
    /* fio: (center - 0.5) of the ranges, 0 without a center; kept in
     * [0, n) here, which is the same modulo n.
     */
    if (j->dist_center >= 0) {
      double o = (double) w->nranges * (j->dist_center - 0.5);

      w->rand_off = o >= 0 ? (uint64_t) o
        : w->nranges - ((uint64_t) -o % w->nranges);
    }
    else
      w->rand_off = 0;
    break;
  }
}

/* A block of direction d among lastb for random_distribution=zoned,
 * as fio's __get_next_rand_offset_zoned: a percentile of the accesses
 * picks the zone, a uniform draw the block in it.
 */
static uint64_t
zoned_next (struct raidsim_worker *w, enum raidsim_dir d, uint64_t lastb)
{
  const struct raidsim_job *j = w->job;
  uint64_t v = 1 + raidsim_rng_below (&w->drng, 100), zb;
  unsigned i, cum = 0, sprev = 0;

  for (i = 0; i < j->nzones[d]; ++i) {
    cum += j->zones[d][i].access;
    if (v <= cum)
      break;
    sprev += j->zones[d][i].size;
  }
  if (i == j->nzones[d])
    return raidsim_rng_below (&w->drng, lastb);
  zb = lastb * j->zones[d][i].size / 100;
  return sprev * lastb / 100 + (zb ? raidsim_rng_below (&w->drng, zb) : 0);
}

/* The next block of a random job with a distribution, as fio's
 * zipf_next, pareto_next and gauss_next.
 */
static uint64_t
dist_next (struct raidsim_worker *w)
{
  uint64_t n = w->nranges, val = 0;

  switch (w->dist) {
  case RAIDSIM_DIST_ZIPF: {
    double alpha = 1.0 / (1.0 - w->theta);
    double eta = (1.0 - pow (2.0 / n, 1.0 - w->theta)) /
      (1.0 - w->zeta2 / w->zetan);
    double u = uniform (&w->drng), z = u * w->zetan;

    if (z < 1.0)
      val = 1;
    else if (z < 1.0 + pow (0.5, w->theta))
      val = 2;
    else
      val = 1 + (uint64_t) (n * pow (eta * u - eta + 1.0, alpha));
    val--;
    break;
  }
  case RAIDSIM_DIST_PARETO:
    val = (uint64_t) ((n - 1) * pow (uniform (&w->drng), w->pareto_pow));
    break;
  case RAIDSIM_DIST_NORMAL: {
    unsigned i;

    for (i = 0; i < 12; i++)
      val += (raidsim_rng_next (&w->drng) >> 32) % (n + 1);
    val = (val + 12 - 1) / 12;
    if (w->gauss_dev) {
      int64_t dev = (int64_t) (w->gauss_dev *
                               ((raidsim_rng_next (&w->drng) >> 32) /
                                (UINT32_MAX + 1.0)))
        - (int64_t) (w->gauss_dev / 2);

      while (dev + (int64_t) val >= (int64_t) n)
        dev /= 2;
      val += dev;
    }
    break;
  }
  }
  return (val * GOLDEN_RATIO_64 + w->rand_off) % n;
}

/* Enter the zone at w->zone_start (strided zones): its blocks, the
 * positions at its start, a new random order.
 */
static void
zone_enter (struct raidsim_worker *w)
{
  const struct raidsim_job *j = w->job;
  uint64_t len;

  if (w->zone_start >= w->region.room ||
      (w->region.room - w->zone_start) / j->bs == 0)
    w->zone_start = 0;
  len = w->region.room - w->zone_start;
  if (len > w->zone_range)
    len = w->zone_range;
  w->zone_blocks = len / j->bs ? len / j->bs : 1;
  w->seq_block[RAIDSIM_READ] = w->seq_block[RAIDSIM_WRITE] = 0;
  if (w->random && !j->norandommap)
    raidsim_perm_init (&w->zone_perm, w->zone_blocks,
                       raidsim_splitmix64 (&w->loop_key));
}

/* The next offset (from the region's start) of a job in strided zones. */
static uint64_t
strided_next (struct raidsim_worker *w, enum raidsim_dir d)
{
  const struct raidsim_job *j = w->job;
  uint64_t b;

  if (w->zone_bytes >= j->zonesize) {
    w->zone_bytes = 0;
    w->zone_start += w->zone_range + j->zoneskip;
    zone_enter (w);
  }
  if (w->random && j->norandommap)
    b = raidsim_rng_below (&w->rng, w->zone_blocks);
  else if (w->random)
    b = raidsim_perm_next (&w->zone_perm);
  else {
    b = w->seq_block[d];
    if (b >= w->zone_blocks)
      b = 0;
    w->seq_block[d] = b + 1;
  }
  w->zone_bytes += j->bs;
  return w->zone_start + b * j->bs;
}

/* Pacing set-up, from the last of the thread's seeds. */
static void
pace_init (struct raidsim_worker *w, uint64_t *sm)
{
  const struct raidsim_job *j = w->job;
  unsigned d;

  if (!w->timed)
    return;
  raidsim_rng_seed (&w->trng, raidsim_splitmix64 (sm));
  w->delay = j->startdelay;
  if (j->startdelay_high > j->startdelay)
    w->delay += raidsim_rng_below (&w->trng,
                                   j->startdelay_high - j->startdelay + 1);
  for (d = 0; d < RAIDSIM_NDIRS; ++d) {
    struct raidsim_bsdist dist;
    uint64_t rate = d == RAIDSIM_WRITE && j->wrate ? j->wrate : j->rate;
    uint64_t iops = d == RAIDSIM_WRITE && j->wrate_iops ? j->wrate_iops
      : j->rate_iops;

    /* fio's __setup_rate: rate wins; rate_iops counts the direction's
     * smallest blocks.
     */
    raidsim_job_bsdist (j, d, &dist);
    w->bps[d] = rate ? rate : iops * dist.min;
    w->iops[d] = w->bps[d] / dist.min;
  }
}

void
raidsim_worker_init_region (struct raidsim_worker *w,
                            const struct raidsim_job *j,
                            const struct raidsim_region *r, uint64_t seed,
                            unsigned job_index, unsigned thread_index)
{
  uint64_t sm;
  unsigned d;

  memset (w, 0, sizeof *w);
  w->job = j;
  w->region = *r;
  w->start = r->start;
  w->nblocks = r->nblocks;
  w->size_ios = r->size_ios;
  w->random = raidsim_rw_is_random (j->rw);
  w->variable = !raidsim_job_bs_fixed (j);
  /* Independent streams per (seed, job, thread), and no two of the
   * three numbers can trade places and give the same streams.
   */
  sm = seed;
  raidsim_splitmix64 (&sm);
  sm ^= (uint64_t) job_index * UINT64_C (0x9e3779b97f4a7c15);
  raidsim_splitmix64 (&sm);
  sm ^= (uint64_t) thread_index * UINT64_C (0xc2b2ae3d27d4eb4f);
  raidsim_rng_seed (&w->rng, raidsim_splitmix64 (&sm));
  w->loops = r->loops ? r->loops : 1;
  w->ios_limit = r->size_ios * w->loops;
  w->number_limit = j->number_ios * w->loops;
  w->wrap = j->time_based || j->io_size || j->pct[RAIDSIM_FIO_IO_SIZE];
  w->next_dir = -1;
  w->timed = raidsim_job_timed (j);
  if (j->trace) {
    w->trace = j->trace;
    w->tscale = j->replay_time_scale ? j->replay_time_scale : 100;
    w->general = true;
    return;
  }
  w->general = w->variable || w->timed || w->loops > 1 || j->zonemode ||
    j->seq_add || j->seq_nr > 1 ||
    j->random_distribution != RAIDSIM_DIST_RANDOM;
  if (!w->variable) {
    raidsim_perm_init (&w->perm, r->nblocks, raidsim_splitmix64 (&sm));
    w->loop_key = raidsim_splitmix64 (&sm);
    pace_init (w, &sm);
    dist_init (w, &sm);
    if (j->zonemode) {
      w->strided = true;
      w->zone_range = j->zonerange ? j->zonerange : j->zonesize;
      zone_enter (w);
    }
    return;
  }
  /* Streams of their own for what only these jobs draw, after the
   * ones above, so that those stay as they were.
   */
  raidsim_splitmix64 (&sm);
  raidsim_rng_seed (&w->bsrng, raidsim_splitmix64 (&sm));
  for (d = 0; d < RAIDSIM_NDIRS; ++d) {
    struct raidsim_worker_dir *wd = &w->dir[d];
    uint64_t key = raidsim_splitmix64 (&sm);

    raidsim_job_bsdist (j, d, &wd->dist);
    /* fio's ba, by default the direction's smallest size; last_block
     * keeps room for the smallest I/O after the last offset.
     */
    wd->align = d == RAIDSIM_WRITE && j->wba ? j->wba
      : j->ba ? j->ba : wd->dist.min;
    wd->nblocks = (r->len - (wd->dist.min > wd->align && r->len >=
                             wd->dist.min - wd->align
                             ? wd->dist.min - wd->align : 0)) / wd->align;
    if (w->random && uses_dir (j, d) && wd->nblocks > 0)
      raidsim_perm_init (&wd->perm, wd->nblocks, key);
  }
  w->loop_key = raidsim_splitmix64 (&sm);
  pace_init (w, &sm);
  dist_init (w, &sm);
}

/* A new pass of loops: back to the region's start, and a new order for
 * a random job's map.
 */
static void
new_loop (struct raidsim_worker *w)
{
  unsigned d;

  w->pass++;
  w->seq_block[RAIDSIM_READ] = w->seq_block[RAIDSIM_WRITE] = 0;
  w->seq_pos[RAIDSIM_READ] = w->seq_pos[RAIDSIM_WRITE] = 0;
  w->seq_count = 0;
  if (w->strided) {
    w->zone_start = w->zone_bytes = 0;
    zone_enter (w);
    return;
  }
  if (w->random && !w->job->norandommap && !w->variable)
    raidsim_perm_init (&w->perm, w->nblocks,
                       raidsim_splitmix64 (&w->loop_key));
  for (d = 0; w->variable && d < RAIDSIM_NDIRS; ++d) {
    struct raidsim_worker_dir *wd = &w->dir[d];

    wd->pos = 0;
    if (wd->drawn && !w->job->norandommap)
      raidsim_perm_init (&wd->perm, wd->nblocks,
                         raidsim_splitmix64 (&w->loop_key));
    wd->drawn = 0;
  }
}

void
raidsim_worker_init (struct raidsim_worker *w, const struct raidsim_job *j,
                     uint64_t start, uint64_t nblocks, uint64_t size_ios,
                     uint64_t seed, unsigned job_index, unsigned thread_index)
{
  struct raidsim_region r = {
    .start = start, .len = nblocks * j->bs, .room = nblocks * j->bs,
    .bytes = size_ios * j->bs, .nblocks = nblocks, .size_ios = size_ios,
  };

  raidsim_worker_init_region (w, j, &r, seed, job_index, thread_index);
}

static enum raidsim_dir
pick_dir (struct raidsim_worker *w)
{
  /* A direction raidsim_worker_ready chose for the rate goes first. */
  if (w->next_dir >= 0) {
    enum raidsim_dir d = w->next_dir;

    w->next_dir = -1;
    return d;
  }
  switch (w->job->rw) {
  case RAIDSIM_RW_READ: case RAIDSIM_RW_RANDREAD:
    return RAIDSIM_READ;
  case RAIDSIM_RW_WRITE: case RAIDSIM_RW_RANDWRITE:
    return RAIDSIM_WRITE;
  default:
    return raidsim_rng_below (&w->rng, 100) < w->job->rwmixread
      ? RAIDSIM_READ : RAIDSIM_WRITE;
  }
}

/* The size of the next I/O of a direction drawing from d, which has
 * room bytes left before the region's end (at least d->min), as fio's
 * get_next_buflen draws it: bsrange takes min plus a uniform fraction
 * of max, rounded down to a multiple of min and capped at max; bssplit
 * takes the first entry whose cumulative percentage passes the draw
 * and that fits, or draws again.
 */
static uint64_t
draw_size (struct raidsim_rng *rng, const struct raidsim_bsdist *d,
           uint64_t room)
{
  unsigned tries;

  if (d->min == d->max)
    return d->min;
  for (tries = 0; tries < 1000; ++tries) {
    uint64_t len;

    if (d->nsplit) {
      uint64_t u = raidsim_rng_below (rng, 100);
      unsigned cum = 0, i;

      len = 0;
      for (i = 0; i < d->nsplit; ++i) {
        if (d->split[i].perc == 0)
          continue;
        len = d->split[i].bs;
        cum += d->split[i].perc;
        if (u < cum && len <= room)
          break;
      }
    }
    else
      len = d->min + raidsim_rng_below (rng, d->max);
    len -= len % d->min;
    if (len > d->max)
      len = d->max;
    if (len != 0 && len <= room)
      return len;
  }
  return d->min;
}

/* The next request of a job of several block sizes. */
static bool
next_variable (struct raidsim_worker *w, struct raidsim_hostreq *req)
{
  const struct raidsim_job *j = w->job;
  struct raidsim_worker_dir *wd;
  uint64_t off, room;

  if (!j->time_based && w->issued_bytes >= w->region.bytes * w->loops)
    return false;
  if (!j->time_based && w->issued_bytes >= w->region.bytes * (w->pass + 1))
    new_loop (w);
  req->dir = pick_dir (w);
  wd = &w->dir[req->dir];
  if (w->random) {
    uint64_t b;

    if (wd->nblocks == 0)
      return false;
    if (w->dist == RAIDSIM_DIST_ZONED)
      b = zoned_next (w, req->dir, wd->nblocks);
    else if (w->dist != RAIDSIM_DIST_RANDOM)
      b = dist_next (w) % wd->nblocks;
    else if (j->norandommap)
      b = raidsim_rng_below (&w->rng, wd->nblocks);
    else {
      if (wd->drawn == wd->nblocks) {
        if (!w->wrap)
          return false;
        wd->drawn = 0;
      }
      b = raidsim_perm_next (&wd->perm);
      wd->drawn++;
    }
    off = b * wd->align;
    room = w->region.len - off;
    if (room < wd->dist.min)
      return false;
  }
  else {
    /* A size that is always the same needs only to start inside the
     * region and end inside the array (fio does not check it against
     * the region); one that varies must end inside the region.
     */
    uint64_t end = wd->dist.min == wd->dist.max ? w->region.room
      : w->region.len;

    off = wd->pos;
    if (off >= w->region.len || end - off < wd->dist.min) {
      if (!w->wrap)
        return false;
      off = 0;
    }
    room = end - off;
  }
  req->offset = w->region.start + off;
  req->len = draw_size (&w->bsrng, &wd->dist, room);
  if (!w->random)
    wd->pos = off + req->len;
  w->issued_bytes += req->len;
  return true;
}

/* The next request of a job with fio's rw suffix (one block size;
 * req->dir is chosen).  Returns false if the thread is done.
 */
static bool
next_suffix (struct raidsim_worker *w, struct raidsim_hostreq *req)
{
  const struct raidsim_job *j = w->job;
  enum raidsim_dir d = req->dir;
  uint64_t len = w->region.len, room = w->region.room, off;

  if (w->random) {
    /* Every seq_nr-th I/O random, the others sequential after it. */
    off = w->seq_pos[d];
    if (++w->seq_count % j->seq_nr == 0 || off >= len ||
        room - off < j->bs) {
      uint64_t b = j->norandommap ? raidsim_rng_below (&w->rng, w->nblocks)
        : raidsim_perm_next (&w->perm);

      off = b * j->bs;
    }
  }
  else {
    int64_t pos;

    if (j->time_based && w->seq_pos[d] >= len)
      w->seq_pos[d] = 0;
    pos = w->seq_pos[d];
    if (pos && j->seq_add) {
      pos += j->seq_add;
      /* fio wraps at the end of the file: forwards to the start,
       * backwards to the region's end.
       */
      if (pos < 0 || (uint64_t) pos >= room)
        pos = j->seq_add > 0 ? 0
          : (int64_t) (len < room ? len : room) + j->seq_add;
      if (pos < 0)
        pos = 0;
    }
    off = pos;
    if (off >= len || room - off < j->bs)
      return false;
  }
  w->seq_pos[d] = off + j->bs;
  req->offset = w->start + off;
  req->len = j->bs;
  return true;
}

/* The end of the thread's runtime, past which no wait need last. */
static raidsim_ns
deadline (const struct raidsim_worker *w)
{
  const struct raidsim_job *j = w->job;

  return j->runtime ? w->t0 + j->ramp_time + j->runtime : RAIDSIM_NEVER;
}

static raidsim_ns
sleep_until (struct raidsim_worker *w, raidsim_ns t)
{
  raidsim_ns end = deadline (w);

  w->pace = W_SLEEP;
  w->wake = t < end ? t : end;
  return w->wake;
}

/* When the next record of a replayed trace is due. */
static raidsim_ns
trace_due (const struct raidsim_worker *w)
{
  raidsim_ns t = w->trace->recs[w->tnext].time;

  if (!w->timed)
    return w->t0;
  if (w->tscale != 100)
    t = (raidsim_ns) ((unsigned __int128) t * 100 / w->tscale);
  return w->t0 + t;
}

raidsim_ns
raidsim_worker_ready (struct raidsim_worker *w, raidsim_ns now,
                      unsigned inflight)
{
  const struct raidsim_job *j = w->job;
  raidsim_ns rel;
  int d, o;

  if (!w->timed || w->stopped)
    return now;
  if (w->trace) {
    raidsim_ns due;

    if (w->tnext >= w->trace->n)
      return now;               /* raidsim_worker_next stops the thread */
    due = trace_due (w);
    return due > now ? due : now;
  }
  if (now < w->t0)
    return w->t0;
  switch (w->pace) {
  case W_SLEEP:
    if (now < w->wake)
      return w->wake;
    w->pace = W_RUN;
    break;
  case W_DRAIN_THINK: case W_DRAIN_RATE:
    if (inflight > 0)
      return RAIDSIM_NEVER;
    if (w->pace == W_DRAIN_THINK)
      return sleep_until (w, now + j->thinktime);
    return sleep_until (w, now + w->gap);
  case W_RUN:
    break;
  }
  if (!w->bps[RAIDSIM_READ] && !w->bps[RAIDSIM_WRITE])
    return now;

  /* fio's rate_ddir: the direction drawn, if it is due; else the other
   * one of a mixed job, if due; else wait for the earlier of the two.
   */
  if (w->next_dir < 0)
    w->next_dir = pick_dir (w);
  d = w->next_dir;
  o = d ^ 1;
  rel = now - w->t0;
  if (w->due[d] <= rel)
    return now;
  if ((j->rw == RAIDSIM_RW_MIXED || j->rw == RAIDSIM_RW_RANDMIXED) &&
      j->rwmixread != (o == RAIDSIM_READ ? 0 : 100)) {
    if (w->due[o] <= rel) {
      w->next_dir = o;
      return now;
    }
    if (w->due[o] < w->due[d])
      w->next_dir = d = o;
  }
  w->gap = w->due[d] - rel;
  if (j->io_submit_mode == RAIDSIM_SUBMIT_INLINE && inflight > 0) {
    w->pace = W_DRAIN_RATE;
    return RAIDSIM_NEVER;
  }
  return sleep_until (w, now + w->gap);
}

/* After an I/O of len bytes in direction d: its next time on the rate
 * schedule (fio's usec_for_io), and a think if one is due.
 */
static void
paced (struct raidsim_worker *w, enum raidsim_dir d, uint64_t len)
{
  const struct raidsim_job *j = w->job;

  if (w->bps[d]) {
    w->rate_bytes[d] += len;
    if (j->rate_process == RAIDSIM_RATE_POISSON) {
      /* fio: (1000000 / iops) * -log (U) microseconds, U in (0, 1]. */
      double u = ((raidsim_rng_next (&w->trng) >> 11) + 1) * 0x1p-53;
      uint64_t us = (uint64_t) ((double) (1000000 / (w->iops[d] ? w->iops[d]
                                                     : 1)) * -log (u));

      w->due[d] += us * RAIDSIM_NS_PER_US;
    }
    else
      w->due[d] = (raidsim_ns) ((unsigned __int128) w->rate_bytes[d] *
                                RAIDSIM_NS_PER_S / w->bps[d]);
  }
  if (j->thinktime &&
      ++w->thought >= (j->thinktime_blocks ? j->thinktime_blocks : 1)) {
    w->thought = 0;
    w->pace = W_DRAIN_THINK;
  }
}

/* The next request of a job with any of the features beyond fio's
 * plain jobs: several block sizes, loops, strided zones, the rw suffix,
 * a random_distribution, pacing.  Returns false if the thread is done.
 */
static bool
next_general (struct raidsim_worker *w, struct raidsim_hostreq *req)
{
  const struct raidsim_job *j = w->job;
  uint64_t block;

  if (!w->variable && w->loops > 1 && !j->time_based &&
      w->issued == w->size_ios * (w->pass + 1))
    new_loop (w);
  if (w->variable)
    return next_variable (w, req);
  req->dir = pick_dir (w);
  req->len = j->bs;
  if (w->strided) {
    req->offset = w->start + strided_next (w, req->dir);
    return true;
  }
  if (j->seq_add || (w->random && j->seq_nr > 1))
    return next_suffix (w, req);
  if (w->random && w->dist == RAIDSIM_DIST_ZONED)
    block = zoned_next (w, req->dir, w->nblocks);
  else if (w->random && w->dist != RAIDSIM_DIST_RANDOM)
    block = dist_next (w);
  else if (w->random && j->norandommap)
    block = raidsim_rng_below (&w->rng, w->nblocks);
  else if (w->random)
    block = raidsim_perm_next (&w->perm);
  else {
    block = w->seq_block[req->dir];
    w->seq_block[req->dir] = block + 1 == w->nblocks ? 0 : block + 1;
  }
  req->offset = w->start + block * j->bs;
  return true;
}

bool
raidsim_worker_next (struct raidsim_worker *w, raidsim_ns now,
                     struct raidsim_hostreq *req)
{
  const struct raidsim_job *j = w->job;
  uint64_t block;

  if (w->stopped)
    return false;
  req->measured = now >= w->t0 + j->ramp_time;
  req->due = now;
  if (w->trace) {
    const struct raidsim_trace_rec *r;

    if (w->tnext >= w->trace->n ||
        (req->measured &&
         ((j->runtime && now - w->t0 - j->ramp_time >= j->runtime) ||
          (j->number_ios && w->ios >= j->number_ios)))) {
      w->stopped = true;
      return false;
    }
    if (w->timed)
      req->due = trace_due (w);
    r = &w->trace->recs[w->tnext++];
    req->flush = req->trim = req->fua = false;
    req->dir = r->dir;
    req->offset = r->offset;
    req->len = r->len;
    w->issued++;
    if (req->measured)
      w->ios++;
    return true;
  }
  if ((!w->variable && !j->time_based && w->issued >= w->ios_limit) ||
      (req->measured &&
       ((j->runtime && now - w->t0 - j->ramp_time >= j->runtime) ||
        (j->number_ios && w->ios >= w->number_limit)))) {
    w->stopped = true;
    return false;
  }
  if (w->flush_due) {
    w->flush_due = false;
    raidsim_hostreq_flush (req, req->measured);
    return true;
  }
  req->flush = false;
  /* trimwrite: the write of the range just trimmed. */
  if (w->trimmed) {
    w->trimmed = false;
    req->dir = RAIDSIM_WRITE;
    req->offset = w->trim_offset;
    req->len = w->trim_len;
    req->trim = false;
    req->fua = j->fua;
    goto issued;
  }

  if (w->general) {
    if (!next_general (w, req)) {
      w->stopped = true;
      return false;
    }
  }
  else {
    /* fio's plain jobs: one block size, a random map or none, or
     * sequential blocks, one pass.
     */
    req->dir = pick_dir (w);
    if (w->random && j->norandommap)
      block = raidsim_rng_below (&w->rng, w->nblocks);
    else if (w->random)
      block = raidsim_perm_next (&w->perm);
    else {
      block = w->seq_block[req->dir];
      w->seq_block[req->dir] = block + 1 == w->nblocks ? 0 : block + 1;
    }
    req->offset = w->start + block * j->bs;
    req->len = j->bs;
  }
  /* rw=trim, randtrim: every write is a trim; trimwrite: each is a
   * trim first, then the write (above).  sync=1, writefua: FUA writes.
   */
  req->trim = j->trim != RAIDSIM_TRIM_NONE && req->dir == RAIDSIM_WRITE;
  req->fua = j->fua && req->dir == RAIDSIM_WRITE && !req->trim;
  if (req->trim && j->trim == RAIDSIM_TRIM_THEN_WRITE) {
    w->trimmed = true;
    w->trim_offset = req->offset;
    w->trim_len = req->len;
    if (req->measured)
      w->ios++;
    return true;
  }
 issued:
  w->issued++;
  if (req->measured)
    w->ios++;
  if (w->timed)
    paced (w, req->dir, req->len);
  if (req->dir == RAIDSIM_WRITE && !req->trim && (j->fsync || j->fdatasync)) {
    w->writes++;
    w->flush_due = (j->fsync && w->writes % j->fsync == 0) ||
      (j->fdatasync && w->writes % j->fdatasync == 0);
  }
  return true;
}

bool
raidsim_worker_end_flush (struct raidsim_worker *w,
                          struct raidsim_hostreq *req)
{
  const struct raidsim_job *j = w->job;

  if (w->end_flushed || !(j->end_fsync || j->fsync_on_close) ||
      !uses_dir (j, RAIDSIM_WRITE))
    return false;
  w->end_flushed = true;
  raidsim_hostreq_flush (req, false);
  return true;
}
