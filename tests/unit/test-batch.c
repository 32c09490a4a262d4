/* raidsim tests: a batch's hand-off between threads (plugins/raid/member/
 * batch.c, built here with BATCH_TEST_HOOKS).
 *
 * batch.c lets the waiting thread finish its own I/Os without a lock,
 * and return from batch_wait without one when it finished them all.
 * What that must not break, each forced by stopping a thread at a hook
 * point of batch.c rather than hoped for from timing:
 *
 *   - hand-off while the waiter finishes its own I/O: another thread is
 *     stopped inside batch_done, holding the lock, after it counted its
 *     I/O, while the waiter completes the batch's other I/O and calls
 *     batch_wait.  batch_wait must not return (the batch, on the
 *     waiter's stack, would be gone under the other thread: a use after
 *     free) until that thread has left batch_done.
 *   - no lost wake-up: the waiter sleeps in batch_wait first, then
 *     another thread completes the only I/O; the waiter must wake.
 *   - a batch done wholly by the waiter returns without the lock.
 *
 * Run: meson test -C build --suite unit batch
 */

#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include <check.h>

#include "member/batch.h"

/* The hook: a thread that reaches stop_at posts reached and, if
 * hold_there, waits for release.
 */
static const char *_Atomic stop_at;
static atomic_bool hold_there;
static sem_t reached, release;
static atomic_int slept;        /* wait-sleep hook calls */
static atomic_int locked;       /* wait-lock hook calls */

void
batch_test_hook (struct member_batch *b, const char *point)
{
  const char *stop = atomic_load (&stop_at);
  /* Read before the post: the main thread changes it once it sees the
   * post.
   */
  bool hold = atomic_load (&hold_there);

  if (strcmp (point, "wait-sleep") == 0)
    atomic_fetch_add (&slept, 1);
  if (strcmp (point, "wait-lock") == 0)
    atomic_fetch_add (&locked, 1);
  if (stop && strcmp (point, stop) == 0) {
    sem_post (&reached);
    if (hold)
      while (sem_wait (&release) == -1 && errno == EINTR)
        ;
  }
}

static void
reset (const char *point, bool hold)
{
  atomic_store (&stop_at, point);
  atomic_store (&hold_there, hold);
  sem_init (&reached, 0, 0);
  sem_init (&release, 0, 0);
  atomic_store (&slept, 0);
  atomic_store (&locked, 0);
}

/* A deadline for events that a correct batch.c brings at once: only a
 * broken one would miss it (a hang must fail, not stall the suite).
 */
static int
sem_wait_s (sem_t *s, int seconds)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  ts.tv_sec += seconds;
  while (sem_timedwait (s, &ts) == -1)
    if (errno != EINTR)
      return -1;
  return 0;
}

/* ---- hand-off while the waiter finishes its own I/O ------------------- */

static struct member_batch *shared;
static sem_t waiter_go, waiter_event;
static atomic_bool waiter_returned;     /* from batch_wait */
static atomic_bool other_left;          /* batch_done, in the other thread */

static void *
other_done (void *arg)
{
  batch_done (shared);
  atomic_store (&other_left, true);
  return NULL;
}

static void *
waiter (void *arg)
{
  struct member_batch b;

  batch_init (&b, 2);
  batch_share (&b);
  shared = &b;
  sem_post (&waiter_event);             /* b is made */
  sem_wait (&waiter_go);
  batch_done (&b);                      /* its own I/O */
  batch_wait (&b);
  /* A correct batch_wait returns only after the other thread's unlock. */
  atomic_store (&waiter_returned, true);
  ck_assert_msg (atomic_load (&locked) == 1,
                 "batch_wait returned without taking the lock while "
                 "another thread was in batch_done");
  batch_destroy (&b);
  sem_post (&waiter_event);
  return NULL;
}

START_TEST (test_handoff_while_waiter_finishes)
{
  pthread_t w, o;

  reset ("done-locked", true);
  sem_init (&waiter_go, 0, 0);
  sem_init (&waiter_event, 0, 0);
  atomic_store (&waiter_returned, false);
  atomic_store (&other_left, false);
  ck_assert_int_eq (pthread_create (&w, NULL, waiter, NULL), 0);
  ck_assert_int_eq (sem_wait_s (&waiter_event, 30), 0);
  /* The other thread counts its I/O and stops, holding the lock. */
  ck_assert_int_eq (pthread_create (&o, NULL, other_done, NULL), 0);
  ck_assert_int_eq (sem_wait_s (&reached, 30), 0);
  /* The waiter completes the last I/O itself and waits.  It either
   * returns at once (wrong: the other thread is still in batch_done)
   * or reaches the lock, which the other thread holds.
   */
  atomic_store (&stop_at, "wait-lock");
  atomic_store (&hold_there, false);
  sem_post (&waiter_go);
  ck_assert_int_eq (sem_wait_s (&reached, 30), 0);
  ck_assert_msg (!atomic_load (&waiter_returned),
                 "batch_wait returned while another thread was still "
                 "in batch_done: use after free");
  sem_post (&release);                  /* the other thread goes on */
  ck_assert_int_eq (pthread_join (o, NULL), 0);
  ck_assert_int_eq (sem_wait_s (&waiter_event, 30), 0);
  ck_assert_int_eq (pthread_join (w, NULL), 0);
  ck_assert (atomic_load (&waiter_returned));
  ck_assert (atomic_load (&other_left));
}
END_TEST

/* ---- no lost wake-up ---------------------------------------------------- */

static void *
sleeper (void *arg)
{
  struct member_batch b;

  batch_init (&b, 1);
  batch_share (&b);
  shared = &b;
  batch_wait (&b);                      /* stops at wait-sleep first */
  batch_destroy (&b);
  sem_post (&waiter_event);
  return NULL;
}

START_TEST (test_wakeup_after_sleep)
{
  pthread_t w, o;

  reset ("wait-sleep", false);
  sem_init (&waiter_event, 0, 0);
  ck_assert_int_eq (pthread_create (&w, NULL, sleeper, NULL), 0);
  /* The hook runs under the lock, just before pthread_cond_wait, which
   * drops it: the other thread's batch_done can only take the lock once
   * the waiter sleeps.
   */
  ck_assert_int_eq (sem_wait_s (&reached, 30), 0);
  ck_assert_int_eq (pthread_create (&o, NULL, other_done, NULL), 0);
  ck_assert_int_eq (pthread_join (o, NULL), 0);
  ck_assert_msg (sem_wait_s (&waiter_event, 30) == 0,
                 "the waiter was not woken: lost wake-up");
  ck_assert_int_eq (pthread_join (w, NULL), 0);
}
END_TEST

/* ---- done wholly in the waiting thread ------------------------------- */

START_TEST (test_all_in_waiter)
{
  struct member_batch b;
  unsigned i;

  reset (NULL, false);
  batch_init (&b, 3);
  for (i = 0; i < 3; ++i)
    batch_done (&b);
  batch_wait (&b);
  batch_destroy (&b);
  ck_assert_int_eq (atomic_load (&locked), 0);
  ck_assert_int_eq (atomic_load (&slept), 0);

  /* An empty batch too. */
  batch_init (&b, 0);
  batch_wait (&b);
  batch_destroy (&b);
  ck_assert_int_eq (atomic_load (&locked), 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("batch");
  TCase *tc = tcase_create ("batch");
  SRunner *sr;
  int failed;

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_handoff_while_waiter_finishes);
  tcase_add_test (tc, test_wakeup_after_sleep);
  tcase_add_test (tc, test_all_in_waiter);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
