/* raidsim: the host workload generator (see workload.h for the fio
 * semantics it keeps).
 */

#include <stdint.h>
#include <string.h>

#include "raidsim/workload.h"

void
raidsim_worker_init (struct raidsim_worker *w, const struct raidsim_job *j,
                     uint64_t start, uint64_t nblocks, uint64_t size_ios,
                     uint64_t seed, unsigned job_index, unsigned thread_index)
{
  uint64_t sm;

  memset (w, 0, sizeof *w);
  w->job = j;
  w->start = start;
  w->nblocks = nblocks;
  w->size_ios = size_ios;
  w->random = raidsim_rw_is_random (j->rw);
  /* Independent streams per (seed, job, thread), and no two of the
   * three numbers can trade places and give the same streams.
   */
  sm = seed;
  raidsim_splitmix64 (&sm);
  sm ^= (uint64_t) job_index * UINT64_C (0x9e3779b97f4a7c15);
  raidsim_splitmix64 (&sm);
  sm ^= (uint64_t) thread_index * UINT64_C (0xc2b2ae3d27d4eb4f);
  raidsim_rng_seed (&w->rng, raidsim_splitmix64 (&sm));
  raidsim_perm_init (&w->perm, nblocks, raidsim_splitmix64 (&sm));
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

bool
raidsim_worker_next (struct raidsim_worker *w, raidsim_ns now,
                     struct raidsim_hostreq *req)
{
  const struct raidsim_job *j = w->job;
  uint64_t block;

  if (w->stopped)
    return false;
  req->measured = now >= w->t0 + j->ramp_time;
  if ((!j->time_based && w->issued >= w->size_ios) ||
      (req->measured &&
       ((j->runtime && now - w->t0 - j->ramp_time >= j->runtime) ||
        (j->number_ios && w->ios >= j->number_ios)))) {
    w->stopped = true;
    return false;
  }

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
  w->issued++;
  if (req->measured)
    w->ios++;
  return true;
}
