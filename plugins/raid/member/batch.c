/* nbdkit-raid-plugin: batches of member I/O.  See batch.h. */

#include <stdio.h>
#include <stdlib.h>

#include "batch.h"

/* tests/unit/test-batch.c builds this file with BATCH_TEST_HOOKS, to
 * stop a thread at the points where the threads' order matters.
 */
#ifdef BATCH_TEST_HOOKS
extern void batch_test_hook (struct member_batch *b, const char *point);
#define HOOK(b, point) batch_test_hook ((b), (point))
#else
#define HOOK(b, point) ((void) 0)
#endif

void
batch_init (struct member_batch *b, unsigned count)
{
  b->count = count;
  b->waiter = pthread_self ();
  b->done_here = 0;
  b->shared = false;
}

void
batch_share (struct member_batch *b)
{
  if (b->shared)
    return;
  pthread_mutex_init (&b->lock, NULL);
  pthread_cond_init (&b->cond, NULL);
  b->done_elsewhere = 0;
  b->need = 0;
  b->shared = true;
}

/* In another thread than the waiter's, the batch lives on the stack of
 * the thread in batch_wait, which may return and destroy it as soon as
 * the lock is dropped: touch nothing after the unlock.
 */
void
batch_done (struct member_batch *b)
{
  if (pthread_equal (pthread_self (), b->waiter)) {
    b->done_here++;
    return;
  }
  /* An I/O that reached another thread without batch_share: its lock
   * was never made.  Stop here rather than lock garbage.
   */
  if (!b->shared) {
    fprintf (stderr, "raid: batch_done in another thread on a batch "
             "that was not shared\n");
    abort ();
  }
  pthread_mutex_lock (&b->lock);
  if (++b->done_elsewhere == b->need)
    pthread_cond_broadcast (&b->cond);
  HOOK (b, "done-locked");
  pthread_mutex_unlock (&b->lock);
}

void
batch_wait (struct member_batch *b)
{
  /* Every I/O ended in this thread, so no other thread ever had the
   * batch: nothing to wait for, not even a lock.
   */
  if (b->done_here == b->count)
    return;
  HOOK (b, "wait-lock");
  pthread_mutex_lock (&b->lock);
  b->need = b->count - b->done_here;
  while (b->done_elsewhere < b->need) {
    HOOK (b, "wait-sleep");
    pthread_cond_wait (&b->cond, &b->lock);
  }
  pthread_mutex_unlock (&b->lock);
}

void
batch_destroy (struct member_batch *b)
{
  if (!b->shared)
    return;
  pthread_cond_destroy (&b->cond);
  pthread_mutex_destroy (&b->lock);
}
