/* raidsim: the progress line of long sweeps (raidsim/report/progress.c),
 * its text for chosen figures and what it leaves on the screen.
 *
 * The time left is worked by hand: 12 of 40 runs in 7 s leave 28 runs
 * at 7/12 s each, 16.33 s, shown as ~00:16.  Whether the line appears
 * at all (a terminal or not) is test-sim-sweep-tty.sh's business.
 *
 * Run: meson test -C build --suite unit sim-progress
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "raidsim/progress.h"

#define S 1000000000ull

static void
want (unsigned done, unsigned total, uint64_t ns, const char *expect)
{
  char buf[160];

  raidsim_progress_format (buf, sizeof buf, "sweep", done, total, ns);
  ck_assert_msg (strcmp (buf, expect) == 0, "%u/%u after %llu ns: '%s', "
                 "want '%s'", done, total, (unsigned long long) ns, buf,
                 expect);
}

START_TEST (format_by_hand)
{
  /* The estimate scales the elapsed time by the runs left per run done. */
  want (12, 40, 7 * S, "sweep: 12/40 runs, 00:07 elapsed, ~00:16 left");
  /* Nothing to estimate from before the first run ends. */
  want (0, 40, 0, "sweep: 0/40 runs, 00:00 elapsed");
  /* At the end the estimate goes. */
  want (40, 40, 65 * S, "sweep: 40/40 runs, 01:05 elapsed");
  /* Rounded to the nearest second, not cut: 1.6 s is 00:02. */
  want (1, 2, 1600000000ull, "sweep: 1/2 runs, 00:01 elapsed, ~00:02 left");
  /* From an hour on, h:mm:ss: 3725 s, and twice that left. */
  want (1, 3, 3725 * S, "sweep: 1/3 runs, 1:02:05 elapsed, ~2:04:10 left");
}
END_TEST

/* What the line writes: each update starts with '\r', a shorter line
 * is padded over a longer one, and the end blanks the widest line and
 * returns to column 0.
 */
START_TEST (screen)
{
  char *text = NULL;
  size_t len = 0, n;
  FILE *fp = open_memstream (&text, &len);
  struct raidsim_progress p;
  const char *last;

  ck_assert (fp != NULL);
  raidsim_progress_start (&p, fp, "sweep", 3);
  raidsim_progress_update (&p, 1);
  raidsim_progress_update (&p, 3);
  n = p.shown;
  raidsim_progress_end (&p);
  fclose (fp);
  ck_assert_msg (strncmp (text, "\rsweep: 0/3 runs, ", 18) == 0, "%s", text);
  ck_assert_msg (strstr (text, "\rsweep: 1/3 runs, ") != NULL, "%s", text);
  ck_assert_msg (strstr (text, " left\rsweep: 3/3 runs, ") != NULL, "%s",
                 text);
  /* "sweep: 1/3 runs, 00:00 elapsed, ~00:00 left" is the widest. */
  ck_assert_uint_eq (n, strlen ("sweep: 1/3 runs, 00:00 elapsed, "
                                "~00:00 left"));
  /* The 3/3 line is padded to that width, then blanked: '\r', the
   * line and its padding (n), '\r', n blanks, '\r'.
   */
  last = strstr (text, "\rsweep: 3/3");
  ck_assert (last != NULL);
  ck_assert_uint_eq (len - (size_t) (last - text), 1 + n + 1 + n + 1);
  ck_assert (text[len - n - 2] == '\r');
  ck_assert_uint_eq (strspn (text + len - n - 1, " "), n);
  ck_assert (text[len - 1] == '\r');
  free (text);
}
END_TEST

/* A later part (the second seed of sweep --seeds) counts on from the
 * runs before it.
 */
START_TEST (base)
{
  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream (&text, &len);
  struct raidsim_progress p;

  ck_assert (fp != NULL);
  raidsim_progress_start (&p, fp, "sweep", 8);
  p.base = 4;
  raidsim_progress_update (&p, 1);
  fclose (fp);
  ck_assert_msg (strstr (text, "\rsweep: 5/8 runs, ") != NULL, "%s", text);
  free (text);
}
END_TEST

/* With no stream nothing is written, and nothing crashes. */
START_TEST (off)
{
  struct raidsim_progress p;

  raidsim_progress_start (&p, NULL, "sweep", 3);
  raidsim_progress_update (&p, 1);
  raidsim_progress_end (&p);
  ck_assert (p.fp == NULL);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("sim-progress");
  TCase *tc = tcase_create ("progress");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, format_by_hand);
  tcase_add_test (tc, screen);
  tcase_add_test (tc, base);
  tcase_add_test (tc, off);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
