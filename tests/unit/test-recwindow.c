/* raidsim: unit tests for the recovery's window of regions in flight
 * (plugins/raid/sync/recwindow.c, compiled in here), with no I/O.
 *
 * The rule (recwindow.h): regions come back out in the order they went
 * in, each only once it is done, so that a recovery position never
 * passes a region still being copied, however the copies finish.
 *
 * Mutants each test kills (checked by hand):
 *   out_of_order: recwindow_pop giving back the first done region
 *     wherever it is (not only the head): region 2 done before region
 *     1 would move the position past region 1;
 *   take_order: recwindow_take taking from the tail (the highest region
 *     first), or twice the same region.
 *
 * Run: meson test -C build recwindow
 */

#include <stdint.h>
#include <stdlib.h>

#include <check.h>

#include "sync/recwindow.h"

#define MiB (UINT64_C (1) << 20)

/* Regions 0, 1, 2 (1 MiB each) in flight; 1 and 2 finish first: nothing
 * comes out until 0 is done, then all three, in order.
 */
START_TEST (test_out_of_order)
{
  struct rec_window w;
  struct rec_region out, *r[3];
  unsigned i;

  recwindow_init (&w);
  for (i = 0; i < 3; ++i)
    r[i] = recwindow_push (&w, i * MiB, MiB);
  for (i = 0; i < 3; ++i)
    ck_assert_ptr_eq (recwindow_take (&w), r[i]);
  ck_assert_ptr_null (recwindow_take (&w));
  r[2]->done = r[2]->ok = true;
  r[1]->done = r[1]->ok = true;
  ck_assert (!recwindow_pop (&w, &out));
  ck_assert_uint_eq (w.count, 3);
  r[0]->done = r[0]->ok = true;
  for (i = 0; i < 3; ++i) {
    ck_assert (recwindow_pop (&w, &out));
    ck_assert_uint_eq (out.offset, i * MiB);
    ck_assert_uint_eq (out.offset + out.len, (i + 1) * MiB);
  }
  ck_assert (!recwindow_pop (&w, &out));
}
END_TEST

/* The ring wraps: 40 regions through a window kept at 3, each done in
 * reverse order of its group; they come out in ascending order, each
 * once, and each is taken once, lowest first.
 */
START_TEST (test_take_order)
{
  struct rec_window w;
  struct rec_region out, *r[3];
  uint64_t next = 0, popped = 0;
  unsigned g, i;

  recwindow_init (&w);
  for (g = 0; g < 40 / 3 + 1; ++g) {
    for (i = 0; i < 3; ++i)
      r[i] = recwindow_push (&w, next++ * MiB, MiB);
    for (i = 0; i < 3; ++i) {
      struct rec_region *t = recwindow_take (&w);
      ck_assert_ptr_eq (t, r[i]);
    }
    for (i = 3; i-- > 0;) {
      r[i]->done = true;
      ck_assert (recwindow_pop (&w, &out) == (i == 0));
      if (i == 0)
        ck_assert_uint_eq (out.offset, popped++ * MiB);
    }
    while (recwindow_pop (&w, &out))
      ck_assert_uint_eq (out.offset, popped++ * MiB);
    ck_assert_uint_eq (w.count, 0);
  }
  ck_assert_uint_eq (popped, next);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("recwindow");
  TCase *tc = tcase_create ("recwindow");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, test_out_of_order);
  tcase_add_test (tc, test_take_order);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
