/* raidsim: fuzzing the fio job parser (raidsim/config/fiojob.c over
 * param.c's INI reader in fio's syntax).
 *
 * The input is one job file.  What loads is used as the simulator uses
 * it: every job's block sizes, every option formatted back, and each
 * thread's region worked out against arrays of three sizes, whose
 * results must lie inside the array.
 *
 * Run: build/tests/fuzz/fuzz-fiojob tests/fuzz/corpus/fiojob
 */

#include "raidsim/error.h"
#include "raidsim/fiojob.h"
#include "fuzz.h"

static const uint64_t array_sizes[] = {
  UINT64_C (1) << 20, UINT64_C (1) << 30, UINT64_C (1) << 44,
};

static void
use_job (const struct raidsim_jobfile *jf, const struct raidsim_job *j)
{
  struct raidsim_bsdist d;
  char buf[RAIDSIM_STR_MAX * 2];
  unsigned dir, o, s, t;

  for (dir = 0; dir < 2; ++dir) {
    raidsim_job_bsdist (j, dir, &d);
    FUZZ_ASSERT (d.min <= d.max);
    FUZZ_ASSERT (d.nsplit <= RAIDSIM_BSSPLIT_MAX);
  }
  raidsim_job_bs_text (j, buf, sizeof buf);
  for (o = 0; o < RAIDSIM_FIO_NOPTS; ++o)
    raidsim_job_format_opt (j, o, buf, sizeof buf);
  raidsim_job_timed (j);
  if (raidsim_job_bs_gcd (j))
    FUZZ_ASSERT (raidsim_job_max_bs (j) % raidsim_job_bs_gcd (j) == 0);

  for (s = 0; s < sizeof array_sizes / sizeof array_sizes[0]; ++s) {
    uint64_t start, nblocks, size_ios;

    for (t = 0; t < j->numjobs && t < 4; ++t) {
      struct raidsim_region r;

      if (raidsim_job_thread_region (jf, j, array_sizes[s], t, &r) == -1)
        continue;
      FUZZ_ASSERT (r.start <= array_sizes[s]);
      FUZZ_ASSERT (r.room == array_sizes[s] - r.start);
      FUZZ_ASSERT (r.len <= r.room);
    }
    if (raidsim_job_region (jf, j, array_sizes[s], &start, &nblocks,
                            &size_ios) == 0)
      FUZZ_ASSERT (start <= array_sizes[s]);
  }
}

void
fuzz_one (const uint8_t *data, size_t size)
{
  char *text = fuzz_text (data, size);
  struct raidsim_jobfile *jf;
  unsigned i;

  jf = raidsim_jobfile_load_text ("fuzz.fio", text);
  /* FUZZ_VERBOSE=1: say what became of the input. */
  if (getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "  jobs: %s\n", jf ? "loaded" : raidsim_error ());
  if (jf) {
    FUZZ_ASSERT (jf->njobs > 0);
    raidsim_jobfile_print_noted (fuzz_null (), "fuzz", jf);
    for (i = 0; i < jf->njobs; ++i) {
      FUZZ_ASSERT (jf->jobs[i].group < jf->ngroups);
      use_job (jf, &jf->jobs[i]);
    }
    raidsim_jobfile_free (jf);
  }
  free (text);
}
