/* raidsim: stopping a job early once its figures are known
 * (raidsim_sim_set_precision, sim.h), against a fixed device whose
 * every request takes the same time, so that the batches agree
 * exactly and the rule's own limits decide when it stops:
 *
 *   - a time-based job of runtime over a minute stops by default, once
 *     it has 16 batches and a second of simulated time, and says so;
 *   - one of runtime up to a minute runs to its end by default;
 *   - precision 0 runs every job to its end; a precision given applies
 *     to a job that is not time-based too.
 *
 * Run: meson test -C build --suite unit sim-early
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/report.h"
#include "sim-test.h"

#define S RAIDSIM_NS_PER_S

static const char *
setup (void)
{
  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 64G\n"
                 "latency = 100us\nparallelism = 8\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
  return sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                        "device = d.ini\ncontroller = c.ini\n");
}

static raidsim_ns
run (const char *job_text, double precision, double *stopped)
{
  struct sim_test_run r;
  const struct raidsim_job_result *j;
  const char *a = setup ();
  const char *job = sim_test_file ("j.fio", "%s", job_text);
  raidsim_ns t;

  /* sim_test_run runs at once; set the precision on a sim of our own. */
  memset (&r, 0, sizeof r);
  r.ac = raidsim_array_config_load (a);
  ck_assert_msg (r.ac != NULL, "%s", raidsim_error ());
  r.jf = raidsim_jobfile_load (job);
  ck_assert_msg (r.jf != NULL, "%s", raidsim_error ());
  r.s = raidsim_sim_new (r.ac, r.jf, 1);
  ck_assert_msg (r.s != NULL, "%s", raidsim_error ());
  if (precision >= 0)
    raidsim_sim_set_precision (r.s, precision);
  ck_assert_int_eq (raidsim_sim_run (r.s), 0);
  j = raidsim_sim_job (r.s, 0);
  t = j->end - j->start;
  *stopped = j->stopped_at_precision;
  sim_test_done (&r);
  return t;
}

/* QD8 on parallelism 8 at 100 us: 80,000 IOPS, every batch the same.
 * 16 batches of 4096 are 65,536 requests, 0.82 s: the second of
 * simulated time is what holds it, so it stops within the batch
 * after 1 s (4096 requests, 51 ms).  Mutants killed: no minimum time
 * (stops at 0.82 s); the rule never satisfied (runs 120 s); the
 * default not given to a long time-based job (120 s).
 */
START_TEST (long_time_based_job_stops_by_default)
{
  double stopped;
  raidsim_ns t = run ("[j]\nrw=randread\nbs=4k\nsize=1g\niodepth=8\n"
                      "time_based\nruntime=120\n", -1, &stopped);

  ck_assert (stopped == 0.01);
  ck_assert_uint_ge (t, 1 * S);
  ck_assert_uint_lt (t, 1 * S + 60 * RAIDSIM_NS_PER_MS);
}
END_TEST

/* runtime=30 by default, and runtime=120 with precision 0, run to the
 * end.  Mutants killed: the default given to every time-based job;
 * precision 0 taken as "the default".
 */
START_TEST (short_jobs_and_precision_zero_run_all)
{
  double stopped;
  raidsim_ns t;

  t = run ("[j]\nrw=randread\nbs=4k\nsize=1g\niodepth=8\ntime_based\n"
           "runtime=30\n", -1, &stopped);
  ck_assert (stopped == 0);
  ck_assert_uint_ge (t, 30 * S - RAIDSIM_NS_PER_MS);
  t = run ("[j]\nrw=randread\nbs=4k\nsize=1g\niodepth=8\ntime_based\n"
           "runtime=120\n", 0, &stopped);
  ck_assert (stopped == 0);
  ck_assert_uint_ge (t, 120 * S - RAIDSIM_NS_PER_MS);
}
END_TEST

/* A size-based job of 2^20 reads (13 s) with precision 0.05 given
 * stops at about a second.  Mutant killed: a given precision applied
 * to time-based jobs only.
 */
START_TEST (given_precision_applies_to_any_job)
{
  double stopped;
  raidsim_ns t = run ("[j]\nrw=randread\nbs=4k\nsize=4g\niodepth=8\n",
                      0.05, &stopped);

  ck_assert (stopped == 0.05);
  ck_assert_uint_lt (t, 2 * S);
}
END_TEST

/* Two jobs that run together on the 8 servers: A at QD7 is known
 * within 1% after about a second, B at QD1 (10,000 IOPS, 0.41 s a
 * batch) only after 16 batches, 6.6 s.  A keeps running until B is
 * ready, and both stop then, since A stopping alone would change what
 * B measures.  Mutant killed: each job stopping on its own (A ends at
 * about 1 s, B much later).
 */
START_TEST (jobs_that_run_together_stop_together)
{
  struct sim_test_run r;
  const struct raidsim_job_result *a, *b;

  sim_test_run (&r, setup (),
                sim_test_file ("j.fio", "[global]\nrw=randread\nbs=4k\n"
                               "size=1g\ntime_based\nruntime=120\n"
                               "[a]\niodepth=7\n[b]\niodepth=1\n"), 1);
  a = raidsim_sim_job (r.s, 0);
  b = raidsim_sim_job (r.s, 1);
  ck_assert (a->stopped_at_precision == 0.01);
  ck_assert (b->stopped_at_precision == 0.01);
  ck_assert_uint_ge (b->end - b->start, 6 * S);
  ck_assert_uint_lt (b->end - b->start, 10 * S);
  ck_assert_uint_ge (a->end, b->end - RAIDSIM_NS_PER_MS);
  ck_assert_uint_le (a->end, b->end + RAIDSIM_NS_PER_MS);
  sim_test_done (&r);
}
END_TEST

static Suite *
early_suite (void)
{
  Suite *s = suite_create ("sim-early");
  TCase *tc = tcase_create ("early");

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, long_time_based_job_stops_by_default);
  tcase_add_test (tc, short_jobs_and_precision_zero_run_all);
  tcase_add_test (tc, given_precision_applies_to_any_job);
  tcase_add_test (tc, jobs_that_run_together_stop_together);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (early_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
