/* raidsim: helpers shared by the simulator's unit tests (tests/unit/test-sim-*.c):
 * a scratch directory for config files written by the tests, and a
 * one-call simulation run.  Header-only so that each test stays one
 * executable with no extra library.
 */
#ifndef RAIDSIM_SIM_TEST_H
#define RAIDSIM_SIM_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "raidsim/config.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"
#include "raidsim/report.h"
#include "raidsim/sim.h"

/* A directory for the current test's files.  check forks every test,
 * so each gets its own; they live under $TMPDIR and are removed at exit.
 */
static char sim_test_dir[256];

static inline void
sim_test_cleanup (void)
{
  char cmd[300];

  if (sim_test_dir[0]) {
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", sim_test_dir);
    if (system (cmd) != 0)
      fprintf (stderr, "cannot remove %s\n", sim_test_dir);
  }
}

static inline const char *
sim_test_tmpdir (void)
{
  if (sim_test_dir[0] == '\0') {
    const char *t = getenv ("TMPDIR");

    snprintf (sim_test_dir, sizeof sim_test_dir, "%s/raidsim-test-XXXXXX",
              t ? t : "/tmp");
    ck_assert_ptr_nonnull (mkdtemp (sim_test_dir));
    atexit (sim_test_cleanup);
  }
  return sim_test_dir;
}

/* Write a file in the scratch directory; returns its path (static
 * storage, one of a small ring, so several can be held at once).
 */
static const char * __attribute__ ((format (printf, 2, 3)))
sim_test_file (const char *name, const char *fs, ...)
{
  static char paths[8][512];
  static unsigned next;
  char *path = paths[next++ % 8];
  va_list args;
  FILE *fp;

  snprintf (path, 512, "%s/%s", sim_test_tmpdir (), name);
  fp = fopen (path, "w");
  ck_assert_ptr_nonnull (fp);
  va_start (args, fs);
  vfprintf (fp, fs, args);
  va_end (args);
  ck_assert_int_eq (fclose (fp), 0);
  return path;
}

/* Load an array and a job file and run them.  Fails the test, with the
 * simulator's message, on any error.
 */
struct sim_test_run {
  struct raidsim_array_config *ac;
  struct raidsim_jobfile *jf;
  struct raidsim_sim *s;
};

static inline void
sim_test_run (struct sim_test_run *r, const char *array, const char *job,
              uint64_t seed)
{
  r->ac = raidsim_array_config_load (array);
  ck_assert_msg (r->ac != NULL, "%s", raidsim_error ());
  r->jf = raidsim_jobfile_load (job);
  ck_assert_msg (r->jf != NULL, "%s", raidsim_error ());
  r->s = raidsim_sim_new (r->ac, r->jf, seed);
  ck_assert_msg (r->s != NULL, "%s", raidsim_error ());
  ck_assert_int_eq (raidsim_sim_run (r->s), 0);
}

static inline void
sim_test_done (struct sim_test_run *r)
{
  raidsim_sim_free (r->s);
  raidsim_jobfile_free (r->jf);
  raidsim_array_config_free (r->ac);
}

/* The report of a finished run as a string (free it). */
static inline char *
sim_test_report (const struct raidsim_sim *s, enum raidsim_format format)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream (&buf, &len);

  ck_assert_ptr_nonnull (fp);
  ck_assert_int_eq (raidsim_report (fp, s, format), 0);
  ck_assert_int_eq (fclose (fp), 0);
  return buf;
}

/* Relative comparison for figures computed in double from exact
 * integers: only rounding of the final division may differ.
 */
#define ck_assert_rel(x, y) \
  ck_assert_double_eq_tol ((x), (y), 1e-9 * ((y) > 0 ? (y) : -(y)) + 1e-12)

#endif /* RAIDSIM_SIM_TEST_H */
