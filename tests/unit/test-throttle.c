/* raidsim: unit tests for md's throttle of the plugin's background jobs
 * (plugins/raid/sync/throttle.c, compiled in here), with no I/O.
 *
 * md's rule (md_do_sync; throttle.h): a job's rate since its mark may
 * be at most speed_limit_max, or speed_limit_min while clients are
 * busy; a job ahead of its limit waits until it is down to it, in steps
 * of at most 500 ms.  Every expected wait below is worked out by hand
 * from that rule: the time the bytes take at the limit, less the time
 * already spent, capped at 500 ms.  The figures are chosen so that the
 * divisions are exact (KiB counts that the limit divides).
 *
 * Mutants each test kills (checked by hand):
 *   idle_at_max, busy_at_min: busy and idle swapped (limit = busy ? max
 *     : min); idle_at_max also min used as max (limit = min);
 *   capped: no 500 ms cap (the whole 3 s at once);
 *   within: the guard for no time spent removed (the job with nothing
 *     measured yet waits 0.5 s);
 *   pace_busy: throttle_pace never looking at the clients (busy always
 *     false).
 *
 * Run: meson test -C build throttle
 */

#include <stdint.h>
#include <stdlib.h>

#include <check.h>

#include "sync/throttle.h"

#define KiB UINT64_C (1024)
#define MiB (KiB * 1024)
#define MS UINT64_C (1000000)
#define S (1000 * MS)

/* Idle: the limit is max.  4 MiB = 4096 KiB at max 2048 KiB/s take 2 s;
 * after 1.9 s the job waits 0.1 s.  (At min, 1024 KiB/s, they would take
 * 4 s: a wait of 0.5 s, the cap.)
 */
START_TEST (test_idle_at_max)
{
  ck_assert_uint_eq (throttle_wait_ns (4 * MiB, 1900 * MS, 1024, 2048,
                                       false), 100 * MS);
}
END_TEST

/* Busy: the limit is min.  4096 KiB at min 1024 KiB/s take 4 s; after
 * 3.75 s the job waits 0.25 s.  (At max, 2^20 KiB/s, they take under
 * 4 ms: no wait.)
 */
START_TEST (test_busy_at_min)
{
  ck_assert_uint_eq (throttle_wait_ns (4 * MiB, 3750 * MS, 1024, 1048576,
                                       true), 250 * MS);
}
END_TEST

/* 4 s needed, 1 s spent: 3 s to go, but at most 500 ms at a time, after
 * which the caller looks again at whether clients are busy.
 */
START_TEST (test_capped)
{
  ck_assert_uint_eq (throttle_wait_ns (4 * MiB, 1 * S, 1024, 1048576, true),
                     THROTTLE_RECHECK_NS);
  ck_assert_uint_eq (THROTTLE_RECHECK_NS, 500 * MS);
}
END_TEST

/* Within the limit: no wait.  4096 KiB at 2048 KiB/s after exactly 2 s,
 * and after 2.5 s; no time spent (rate taken as 0); nothing done.
 */
START_TEST (test_within)
{
  ck_assert_uint_eq (throttle_wait_ns (4 * MiB, 2 * S, 1024, 2048, false), 0);
  ck_assert_uint_eq (throttle_wait_ns (4 * MiB, 2500 * MS, 1024, 2048,
                                       false), 0);
  ck_assert_uint_eq (throttle_wait_ns (4 * MiB, 0, 1024, 2048, false), 0);
  ck_assert_uint_eq (throttle_wait_ns (0, 1 * S, 1024, 2048, true), 0);
}
END_TEST

/* test-recovery.sh's speed scenario, one step of it: 15 MiB (15360 KiB)
 * at 3000 KiB/s take 5.12 s; after 5 s the job waits 0.12 s.  5.12 is
 * not exact in binary: within a nanosecond.
 */
START_TEST (test_recovery_speed)
{
  uint64_t w = throttle_wait_ns (15 * MiB, 5 * S, 3000, 3000, false);

  ck_assert_uint_ge (w, 120 * MS - 1);
  ck_assert_uint_le (w, 120 * MS);
}
END_TEST

START_TEST (test_rate)
{
  ck_assert_double_eq (throttle_rate (1 * MiB, 500 * MS), 2048.0);
  ck_assert_double_eq (throttle_rate (3 * MiB, 0), 0.0);
}
END_TEST

/* throttle_pace with the clock and a client count, and a sleep that
 * records the wait asked for and stops the job.
 */
static uint64_t asked;
static unsigned calls;

static bool
record (void *opaque, uint64_t ns)
{
  (void) opaque;
  asked = ns;
  calls++;
  return true;
}

/* 4096 KiB done at once, min 1024 KiB/s (4 s needed) and max
 * 10240 KiB/s (0.4 s needed).  Idle: it asks for a
 * wait of 0.4 s less the microseconds since the mark, under the cap.
 * After a client request the limit is min: the cap, 0.5 s.
 */
START_TEST (test_pace_busy)
{
  struct io_stats clients = { 0 };
  struct throttle t;
  uint64_t start;

  ck_assert_int_eq (stats_init (&clients), 0);
  throttle_start (&t, &clients, 1024, 10240, 0);
  calls = 0;
  throttle_pace (&t, 4 * MiB, record, NULL);
  ck_assert_uint_eq (calls, 1);
  ck_assert_uint_gt (asked, 0);
  ck_assert_uint_le (asked, 400 * MS);

  start = stats_start (&clients);       /* a client request */
  stats_done (&clients, 0, 4096, 1, start, 0);
  calls = 0;
  throttle_pace (&t, 4 * MiB, record, NULL);
  ck_assert_uint_eq (calls, 1);
  ck_assert_uint_eq (asked, THROTTLE_RECHECK_NS);
  stats_destroy (&clients);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("throttle");
  TCase *tc = tcase_create ("md's rule");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, test_idle_at_max);
  tcase_add_test (tc, test_busy_at_min);
  tcase_add_test (tc, test_capped);
  tcase_add_test (tc, test_within);
  tcase_add_test (tc, test_recovery_speed);
  tcase_add_test (tc, test_rate);
  tcase_add_test (tc, test_pace_busy);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
