/* nbdkit-raid-plugin: md's throttle for the background jobs.  See
 * throttle.h for the rule; here, how.
 */

#include <stdbool.h>
#include <stdint.h>

#include "throttle.h"

double
throttle_rate (uint64_t bytes, uint64_t ns)
{
  return ns ? (double) bytes / 1024 * 1e9 / ns : 0;
}

uint64_t
throttle_wait_ns (uint64_t bytes, uint64_t elapsed_ns, uint64_t min,
                  uint64_t max, bool busy)
{
  uint64_t limit = busy ? min : max, need;

  if (elapsed_ns == 0 || bytes == 0)
    return 0;
  if (limit == 0)
    return THROTTLE_RECHECK_NS;
  /* The time bytes take at the limit: the job is within the limit
   * once that much has passed since the mark.
   */
  need = (uint64_t) ((double) bytes / 1024 / limit * 1e9);
  if (need <= elapsed_ns)
    return 0;
  return need - elapsed_ns < THROTTLE_RECHECK_NS
    ? need - elapsed_ns : THROTTLE_RECHECK_NS;
}

/* Client requests so far, ended or in flight: while the count changes,
 * clients are busy.
 */
static uint64_t
requests (struct io_stats *s)
{
  return stats_activity (s);
}

/* Whether clients have been busy since the last look. */
static bool
busy (struct throttle *t)
{
  uint64_t n = requests (t->clients);
  bool b = n != t->requests;

  t->requests = n;
  return b;
}

void
throttle_start (struct throttle *t, struct io_stats *clients, uint64_t min,
                uint64_t max, uint64_t done)
{
  t->min = min;
  t->max = max;
  t->clients = clients;
  t->mark_ns = stats_now_ns ();
  t->mark_done = done;
  t->requests = requests (clients);
}

double
throttle_rate_now (const struct throttle *t, uint64_t done)
{
  return throttle_rate (done - t->mark_done, stats_now_ns () - t->mark_ns);
}

void
throttle_pace (struct throttle *t, uint64_t done,
               bool (*sleep) (void *opaque, uint64_t ns), void *opaque)
{
  for (;;) {
    uint64_t ns = throttle_wait_ns (done - t->mark_done,
                                    stats_now_ns () - t->mark_ns,
                                    t->min, t->max, busy (t));

    if (ns == 0 || sleep (opaque, ns))
      break;
  }
  if (stats_now_ns () - t->mark_ns > THROTTLE_MARK_NS) {
    t->mark_ns = stats_now_ns ();
    t->mark_done = done;
  }
}
