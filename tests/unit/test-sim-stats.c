/* raidsim: combining a figure over seeds (raidsim/report/stats.c),
 * against figures worked by hand and the printed t table.
 *
 * The t quantiles are those of any table of Student's t (two-sided
 * 95%, i.e. p = 0.975): df 1 12.706, 2 4.303, 3 3.182, 4 2.776,
 * 9 2.262, 30 2.042, and 1.960 as df grows.  The interval of 1, 2, 3,
 * 4, 5 is worked by hand in stats.h.
 *
 * Run: meson test -C build --suite unit sim-stats
 */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <check.h>

#include "raidsim/error.h"
#include "raidsim/stats.h"

#define near(a, b, tol) ck_assert_msg (fabs ((a) - (b)) <= (tol), \
                                       "%s = %.7f, want %.7f", #a, \
                                       (double) (a), (double) (b))

START_TEST (t_table)
{
  near (raidsim_t_quantile (0.975, 1), 12.7062047, 1e-6);
  near (raidsim_t_quantile (0.975, 2), 4.3026527, 1e-6);
  near (raidsim_t_quantile (0.975, 3), 3.1824463, 1e-6);
  near (raidsim_t_quantile (0.975, 4), 2.7764451, 1e-6);
  near (raidsim_t_quantile (0.975, 9), 2.2621572, 1e-6);
  near (raidsim_t_quantile (0.975, 30), 2.0422725, 1e-6);
  /* The normal's 1.959964 is the limit, not the value at small df. */
  near (raidsim_t_quantile (0.975, 100000), 1.9599877, 1e-5);
  /* One-sided 95% and 99.5%, from the same table. */
  near (raidsim_t_quantile (0.95, 4), 2.1318468, 1e-6);
  near (raidsim_t_quantile (0.995, 4), 4.6040949, 1e-6);
  /* Symmetry and the middle. */
  near (raidsim_t_quantile (0.025, 4), -2.7764451, 1e-6);
  near (raidsim_t_quantile (0.5, 7), 0, 1e-12);
  ck_assert (isnan (raidsim_t_quantile (0.975, 0)));
  ck_assert (isnan (raidsim_t_quantile (1, 4)));
}
END_TEST

START_TEST (interval_by_hand)
{
  /* 1..5: mean 3, s = sqrt (10 / 4) = 1.5811388, half-width
   * 2.7764451 * 1.5811388 / sqrt (5) = 1.9632432.
   */
  const double five[] = { 1, 2, 3, 4, 5 };
  /* 10, 12: mean 11, s = sqrt (2), half-width t(0.975, 1) * sqrt (2) /
   * sqrt (2) = 12.7062047.
   */
  const double two[] = { 10, 12 };
  const double same[] = { 7, 7, 7 };
  struct raidsim_interval iv;

  iv = raidsim_interval95 (five, 5);
  ck_assert_uint_eq (iv.n, 5);
  ck_assert (iv.known);
  near (iv.mean, 3, 1e-12);
  near (iv.sd, 1.5811388, 1e-7);
  near (iv.half, 1.9632432, 1e-6);

  iv = raidsim_interval95 (two, 2);
  near (iv.mean, 11, 1e-12);
  near (iv.half, 12.7062047, 1e-6);

  iv = raidsim_interval95 (same, 3);
  ck_assert (iv.known);
  near (iv.half, 0, 0);

  /* One seed: a mean, no interval. */
  iv = raidsim_interval95 (five + 2, 1);
  ck_assert (!iv.known);
  near (iv.mean, 3, 0);
  near (iv.half, 0, 0);
}
END_TEST

START_TEST (straddle_and_median)
{
  double odd[] = { 5, 1, 4, 2, 3 }, even[] = { 4, 1, 3, 2 };

  ck_assert (raidsim_straddles (0.35, 0.45, 0.40));
  ck_assert (!raidsim_straddles (0.41, 0.45, 0.40));
  ck_assert (!raidsim_straddles (0.30, 0.39, 0.40));
  /* An end on the limit does not straddle it. */
  ck_assert (!raidsim_straddles (0.40, 0.45, 0.40));
  near (raidsim_median (odd, 5), 3, 0);
  near (raidsim_median (even, 4), 2.5, 0);
}
END_TEST

START_TEST (seeds_option)
{
  unsigned n = 0;

  ck_assert_int_eq (raidsim_parse_seeds ("5", &n), 0);
  ck_assert_uint_eq (n, 5);
  ck_assert_int_eq (raidsim_parse_seeds ("64", &n), 0);
  ck_assert_int_eq (raidsim_parse_seeds ("0", &n), -1);
  ck_assert_int_eq (raidsim_parse_seeds ("65", &n), -1);
  ck_assert_int_eq (raidsim_parse_seeds ("-1", &n), -1);
  ck_assert_int_eq (raidsim_parse_seeds ("5x", &n), -1);
  ck_assert_msg (strstr (raidsim_error (), "'5x'") != NULL, "%s",
                 raidsim_error ());
  ck_assert (raidsim_seeds_fit (1, 5));
  ck_assert (raidsim_seeds_fit (UINT64_MAX, 1));
  ck_assert (!raidsim_seeds_fit (UINT64_MAX - 3, 5));
  ck_assert (raidsim_seeds_fit (UINT64_MAX - 4, 5));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("sim-stats");
  TCase *tc = tcase_create ("stats");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, t_table);
  tcase_add_test (tc, interval_by_hand);
  tcase_add_test (tc, straddle_and_median);
  tcase_add_test (tc, seeds_option);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
