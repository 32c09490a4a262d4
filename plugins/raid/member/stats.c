/* nbdkit-raid-plugin: I/O statistics.  See stats.h. */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

/* A shard takes whole cache lines, so that two CPUs never write one. */
#define SHARD_ALIGN 64
#define SHARD_SIZE \
  ((sizeof (struct stats_shard) + SHARD_ALIGN - 1) & ~(size_t) (SHARD_ALIGN - 1))

static struct stats_shard *
shard_at (const struct io_stats *s, unsigned i)
{
  return (struct stats_shard *) ((char *) s->shard + i * SHARD_SIZE);
}

int
stats_init (struct io_stats *s)
{
  long ncpus = sysconf (_SC_NPROCESSORS_CONF);
  unsigned i;

  /* A power of two, so that my_shard masks instead of dividing. */
  for (s->nshards = 1;
       s->nshards * 2 <= STATS_MAX_SHARDS && s->nshards * 2 <= ncpus;
       s->nshards *= 2)
    ;
  s->shard = aligned_alloc (SHARD_ALIGN, s->nshards * SHARD_SIZE);
  if (s->shard == NULL)
    return -1;
  for (i = 0; i < s->nshards; ++i) {
    struct stats_shard *sh = shard_at (s, i);

    pthread_mutex_init (&sh->lock, NULL);
    memset (&sh->c, 0, sizeof sh->c);
    raid_hist_init (&sh->c.lat_read);
    raid_hist_init (&sh->c.lat_write);
  }
  atomic_init (&s->inflight, 0);
  atomic_init (&s->max_inflight, 0);
  return 0;
}

void
stats_destroy (struct io_stats *s)
{
  unsigned i;

  if (s->shard == NULL)
    return;
  for (i = 0; i < s->nshards; ++i)
    pthread_mutex_destroy (&shard_at (s, i)->lock);
  free (s->shard);
  s->shard = NULL;
}

void
stats_deadline (struct timespec *ts, uint64_t ns)
{
  clock_gettime (CLOCK_REALTIME, ts);
  ns += ts->tv_nsec;
  ts->tv_sec += ns / 1000000000;
  ts->tv_nsec = ns % 1000000000;
}

uint64_t
stats_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t
stats_start (struct io_stats *s)
{
  unsigned n = atomic_fetch_add_explicit (&s->inflight, 1,
                                          memory_order_relaxed) + 1;
  unsigned max = atomic_load_explicit (&s->max_inflight,
                                       memory_order_relaxed);

  /* Every value inflight takes is offered here, so the greatest is
   * kept exactly.
   */
  while (n > max &&
         !atomic_compare_exchange_weak_explicit (&s->max_inflight, &max, n,
                                                 memory_order_relaxed,
                                                 memory_order_relaxed))
    ;
  return stats_now_ns ();
}

/* This CPU's shard (sched_getcpu reads the kernel's rseq area: no
 * system call).  A thread that moves to another CPU meanwhile only
 * shares a lock for once.
 */
static struct stats_shard *
my_shard (struct io_stats *s)
{
  int cpu = sched_getcpu ();

  return shard_at (s, cpu < 0 ? 0 : (unsigned) cpu & (s->nshards - 1));
}

void
stats_done (struct io_stats *s, int op, uint64_t length, unsigned pieces,
            uint64_t start_ns, int err)
{
  uint64_t lat = stats_now_ns () - start_ns;
  struct stats_shard *sh = my_shard (s);
  struct stats_counts *c = &sh->c;

  pthread_mutex_lock (&sh->lock);
  if (err == STATS_NOT_DONE)
    ;
  else if (err)
    c->errors++;
  else {
    c->ops[op]++;
    c->pieces[op] += pieces;
    if (op != MOP_FLUSH)
      c->bytes[op] += length;
    if (op == MOP_READ)
      raid_hist_add (&c->lat_read, lat);
    else if (op != MOP_FLUSH)
      raid_hist_add (&c->lat_write, lat);
  }
  pthread_mutex_unlock (&sh->lock);
  atomic_fetch_sub_explicit (&s->inflight, 1, memory_order_relaxed);
}

void
stats_snapshot (struct io_stats *s, struct stats_snapshot *out)
{
  unsigned i, k;

  memset (&out->c, 0, sizeof out->c);
  raid_hist_init (&out->c.lat_read);
  raid_hist_init (&out->c.lat_write);
  for (i = 0; i < s->nshards; ++i) {
    struct stats_shard *sh = shard_at (s, i);

    pthread_mutex_lock (&sh->lock);
    for (k = 0; k < MOP_COUNT; ++k) {
      out->c.ops[k] += sh->c.ops[k];
      out->c.pieces[k] += sh->c.pieces[k];
      out->c.bytes[k] += sh->c.bytes[k];
    }
    out->c.errors += sh->c.errors;
    raid_hist_merge (&out->c.lat_read, &sh->c.lat_read);
    raid_hist_merge (&out->c.lat_write, &sh->c.lat_write);
    pthread_mutex_unlock (&sh->lock);
  }
  out->max_inflight = atomic_load (&s->max_inflight);
}

void
stats_totals (struct io_stats *s, uint64_t ops[MOP_COUNT], uint64_t *errors)
{
  unsigned i, k;

  memset (ops, 0, MOP_COUNT * sizeof ops[0]);
  *errors = 0;
  for (i = 0; i < s->nshards; ++i) {
    struct stats_shard *sh = shard_at (s, i);

    pthread_mutex_lock (&sh->lock);
    for (k = 0; k < MOP_COUNT; ++k)
      ops[k] += sh->c.ops[k];
    *errors += sh->c.errors;
    pthread_mutex_unlock (&sh->lock);
  }
}

uint64_t
stats_activity (struct io_stats *s)
{
  uint64_t ops[MOP_COUNT], errors, n;
  unsigned k;

  stats_totals (s, ops, &errors);
  for (n = 0, k = 0; k < MOP_COUNT; ++k)
    n += ops[k];
  return n + atomic_load (&s->inflight);
}
