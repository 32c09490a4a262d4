/* nbdkit-raid-plugin: a batch of member I/Os that complete together.
 *
 * The thread that makes a batch (batch_init) submits its I/Os and then
 * sleeps in batch_wait until every one has called batch_done.  Many
 * batches never need that sleep: on inline members (files on tmpfs or
 * ramfs) the waiting thread runs every I/O of the batch itself before
 * it waits (member_submit_all), and a batch of I/Os that another thread
 * will complete is the exception.  So the batch counts the two kinds
 * apart:
 *
 *   - batch_done in the waiting thread (pthread_equal to the thread
 *     that called batch_init) only adds one to a counter that no other
 *     thread reads: no lock, no atomic instruction;
 *   - batch_done in any other thread hands the completion over under
 *     the lock, and wakes the waiter if it is the last one it needs.
 *
 * The lock and the condition variable are only made (batch_share) when
 * the waiting thread is about to hand an I/O to another thread
 * (member_submit): a batch run wholly in its own thread never pays for
 * them.
 *
 * batch_wait returns at once, without the lock, when the waiting thread
 * completed every I/O itself: then no other thread has touched or will
 * touch the batch, which lives on the waiter's stack.  Otherwise it
 * takes the lock, which also waits for any other thread still inside
 * batch_done, since the batch may be gone as soon as batch_wait
 * returns.
 */
#ifndef RAID_BATCH_H
#define RAID_BATCH_H

#include <pthread.h>
#include <stdbool.h>

struct member_batch {
  unsigned count;               /* I/Os in the batch */
  pthread_t waiter;             /* the thread that called batch_init */
  unsigned done_here;           /* done by the waiter: only it reads or
                                 * writes this */
  bool shared;                  /* batch_share has made lock and cond */
  /* Under lock: */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  unsigned done_elsewhere;      /* done by other threads */
  unsigned need;                /* done_elsewhere that batch_wait waits
                                 * for; 0 while it does not wait */
};

/* In the thread that will call batch_wait. */
extern void batch_init (struct member_batch *b, unsigned count);
/* In that thread too, before it hands one of the batch's I/Os to
 * another thread, which may then call batch_done.
 */
extern void batch_share (struct member_batch *b);
/* One I/O of b is done; in any thread, count times in all. */
extern void batch_done (struct member_batch *b);
extern void batch_wait (struct member_batch *b);
extern void batch_destroy (struct member_batch *b);

#endif /* RAID_BATCH_H */
