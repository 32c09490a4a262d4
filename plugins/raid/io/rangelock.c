/* nbdkit-raid-plugin: the array ranges that writes hold.  See
 * rangelock.h.
 *
 * A list under one mutex: it holds at most one range per nbdkit thread
 * (a request holds one range at a time), so a scan is a handful of
 * comparisons, and only arrays with copies use it.
 */

#include "rangelock.h"

void
range_lock_init (struct range_lock *rl)
{
  pthread_mutex_init (&rl->lock, NULL);
  pthread_cond_init (&rl->cond, NULL);
  rl->held = NULL;
}

void
range_lock_destroy (struct range_lock *rl)
{
  pthread_cond_destroy (&rl->cond);
  pthread_mutex_destroy (&rl->lock);
}

static bool
conflicts (const struct range_lock *rl, uint64_t offset, uint64_t end)
{
  const struct range_hold *h;

  for (h = rl->held; h; h = h->next)
    if (ranges_overlap (offset, end, h->offset, h->end))
      return true;
  return false;
}

void
range_acquire (struct range_lock *rl, struct range_hold *h,
               uint64_t offset, uint64_t length)
{
  h->offset = offset;
  h->end = offset + length;
  pthread_mutex_lock (&rl->lock);
  while (conflicts (rl, h->offset, h->end))
    pthread_cond_wait (&rl->cond, &rl->lock);
  h->next = rl->held;
  rl->held = h;
  pthread_mutex_unlock (&rl->lock);
}

void
range_release (struct range_lock *rl, struct range_hold *h)
{
  struct range_hold **p;

  pthread_mutex_lock (&rl->lock);
  for (p = &rl->held; *p != h; p = &(*p)->next)
    ;
  *p = h->next;
  /* Any waiter may be waiting for this range; each checks its own. */
  pthread_cond_broadcast (&rl->cond);
  pthread_mutex_unlock (&rl->lock);
}
