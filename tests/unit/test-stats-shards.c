/* raidsim tests: the plugin's statistics kept in per-CPU shards
 * (plugins/raid/member/stats.c, compiled in here).
 *
 * I/Os counted by threads on two CPUs whose shards differ (this thread
 * pinned to one CPU, then to the other) must all be in a snapshot, and
 * max_inflight must be the greatest number of I/Os ever in flight, not
 * the last.  Needs two CPUs this process may run on; exits 77 without.
 *
 * Run: meson test -C build --suite unit stats-shards
 */

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <check.h>

#include "member/member.h"
#include "member/stats.h"

static int cpu_a = -1, cpu_b = -1;      /* in different shards */

static void
pin (int cpu)
{
  cpu_set_t set;

  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  ck_assert_int_eq (pthread_setaffinity_np (pthread_self (), sizeof set,
                                            &set), 0);
  ck_assert_int_eq (sched_getcpu (), cpu);
}

static void
one (struct io_stats *s, int op, uint64_t length, unsigned pieces, int err)
{
  uint64_t t = stats_start (s);

  stats_done (s, op, length, pieces, t, err);
}

START_TEST (test_shards_summed)
{
  struct io_stats s;
  struct stats_snapshot *snap = malloc (sizeof *snap);
  uint64_t ops[MOP_COUNT], errors;

  ck_assert_ptr_nonnull (snap);
  ck_assert_int_eq (stats_init (&s), 0);
  ck_assert_uint_ne (cpu_a % s.nshards, cpu_b % s.nshards);

  pin (cpu_a);
  one (&s, MOP_READ, 4096, 1, 0);
  one (&s, MOP_WRITE, 8192, 2, 0);
  one (&s, MOP_READ, 4096, 1, EIO);
  pin (cpu_b);
  one (&s, MOP_READ, 65536, 16, 0);
  one (&s, MOP_FLUSH, 0, 0, 0);
  one (&s, MOP_ZERO, 4096, 1, STATS_NOT_DONE);

  stats_snapshot (&s, snap);
  ck_assert_uint_eq (snap->c.ops[MOP_READ], 2);
  ck_assert_uint_eq (snap->c.bytes[MOP_READ], 4096 + 65536);
  ck_assert_uint_eq (snap->c.pieces[MOP_READ], 17);
  ck_assert_uint_eq (snap->c.ops[MOP_WRITE], 1);
  ck_assert_uint_eq (snap->c.bytes[MOP_WRITE], 8192);
  ck_assert_uint_eq (snap->c.ops[MOP_FLUSH], 1);
  ck_assert_uint_eq (snap->c.ops[MOP_ZERO], 0);
  ck_assert_uint_eq (snap->c.errors, 1);
  ck_assert_uint_eq (snap->c.lat_read.count, 2);
  ck_assert_uint_eq (snap->c.lat_write.count, 1);
  ck_assert_uint_eq (snap->max_inflight, 1);

  stats_totals (&s, ops, &errors);
  ck_assert_uint_eq (ops[MOP_READ], 2);
  ck_assert_uint_eq (ops[MOP_WRITE], 1);
  ck_assert_uint_eq (errors, 1);
  /* Done ops, none in flight: 2 reads, 1 write, 1 flush. */
  ck_assert_uint_eq (stats_activity (&s), 4);

  stats_destroy (&s);
  free (snap);
}
END_TEST

START_TEST (test_max_inflight)
{
  struct io_stats s;
  struct stats_snapshot *snap = malloc (sizeof *snap);
  uint64_t t[3];
  unsigned i;

  ck_assert_ptr_nonnull (snap);
  ck_assert_int_eq (stats_init (&s), 0);
  pin (cpu_a);
  for (i = 0; i < 3; ++i)
    t[i] = stats_start (&s);
  /* Three in flight: each counts towards the array's activity. */
  ck_assert_uint_eq (stats_activity (&s), 3);
  pin (cpu_b);
  for (i = 0; i < 3; ++i)
    stats_done (&s, MOP_READ, 4096, 1, t[i], 0);
  one (&s, MOP_READ, 4096, 1, 0);       /* one at a time again */
  stats_snapshot (&s, snap);
  ck_assert_uint_eq (snap->max_inflight, 3);
  ck_assert_uint_eq (snap->c.ops[MOP_READ], 4);
  ck_assert_uint_eq (stats_activity (&s), 4);
  stats_destroy (&s);
  free (snap);
}
END_TEST

int
main (void)
{
  struct io_stats probe;
  cpu_set_t set;
  Suite *su = suite_create ("stats-shards");
  TCase *tc = tcase_create ("stats-shards");
  SRunner *sr;
  int cpu, failed;

  if (stats_init (&probe) == -1) {
    perror ("stats_init");
    return 1;
  }
  /* Two CPUs this process may use whose shards differ. */
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof set, &set) == 0)
    for (cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET (cpu, &set))
        continue;
      if (cpu_a < 0)
        cpu_a = cpu;
      else if ((unsigned) cpu % probe.nshards !=
               (unsigned) cpu_a % probe.nshards) {
        cpu_b = cpu;
        break;
      }
    }
  stats_destroy (&probe);
  if (cpu_b < 0) {
    printf ("stats-shards: needs two CPUs in different shards; skipped\n");
    return 77;
  }
  tcase_add_test (tc, test_shards_summed);
  tcase_add_test (tc, test_max_inflight);
  suite_add_tcase (su, tc);
  sr = srunner_create (su);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
