/* nbdkit-raid-plugin: I/O statistics.  See stats.h. */

#include <time.h>

#include "member.h"
#include "stats.h"

void
stats_init (struct io_stats *s)
{
  pthread_mutex_init (&s->lock, NULL);
  raid_hist_init (&s->lat_read);
  raid_hist_init (&s->lat_write);
}

void
stats_destroy (struct io_stats *s)
{
  pthread_mutex_destroy (&s->lock);
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
  pthread_mutex_lock (&s->lock);
  if (++s->inflight > s->max_inflight)
    s->max_inflight = s->inflight;
  pthread_mutex_unlock (&s->lock);
  return stats_now_ns ();
}

void
stats_done (struct io_stats *s, int op, uint64_t length, unsigned pieces,
            uint64_t start_ns, int err)
{
  uint64_t lat = stats_now_ns () - start_ns;

  pthread_mutex_lock (&s->lock);
  s->inflight--;
  if (err == STATS_NOT_DONE)
    ;
  else if (err)
    s->errors++;
  else {
    s->ops[op]++;
    s->pieces[op] += pieces;
    if (op != MOP_FLUSH)
      s->bytes[op] += length;
    if (op == MOP_READ)
      raid_hist_record (&s->lat_read, lat);
    else if (op != MOP_FLUSH)
      raid_hist_record (&s->lat_write, lat);
  }
  pthread_mutex_unlock (&s->lock);
}
