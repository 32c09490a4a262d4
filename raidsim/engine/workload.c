/* raidsim: the host workload generator (see workload.h for the fio
 * semantics it keeps).
 */

#include <stdint.h>
#include <string.h>

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
  w->wrap = j->time_based || j->io_size || j->pct[RAIDSIM_FIO_IO_SIZE];
  if (!w->variable) {
    raidsim_perm_init (&w->perm, r->nblocks, raidsim_splitmix64 (&sm));
    w->loop_key = raidsim_splitmix64 (&sm);
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
    wd->nblocks = r->len / wd->dist.min;
    if (w->random && uses_dir (j, d) && wd->nblocks > 0)
      raidsim_perm_init (&wd->perm, wd->nblocks, key);
  }
  w->loop_key = raidsim_splitmix64 (&sm);
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
    if (j->norandommap)
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
    off = b * wd->dist.min;
    room = w->region.len - off;
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

bool
raidsim_worker_next (struct raidsim_worker *w, raidsim_ns now,
                     struct raidsim_hostreq *req)
{
  const struct raidsim_job *j = w->job;
  uint64_t block;

  if (w->stopped)
    return false;
  req->measured = now >= w->t0 + j->ramp_time;
  if ((!w->variable && !j->time_based &&
       w->issued >= w->size_ios * w->loops) ||
      (req->measured &&
       ((j->runtime && now - w->t0 - j->ramp_time >= j->runtime) ||
        (j->number_ios && w->ios >= j->number_ios * w->loops)))) {
    w->stopped = true;
    return false;
  }
  if (!w->variable && w->loops > 1 && !j->time_based &&
      w->issued == w->size_ios * (w->pass + 1))
    new_loop (w);

  if (w->variable) {
    if (!next_variable (w, req)) {
      w->stopped = true;
      return false;
    }
  }
  else {
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
  w->issued++;
  if (req->measured)
    w->ios++;
  return true;
}
