/* raidsim: benchmark presets, stonewall groups and sweeps.
 *
 *   - every preset expands to the jobs docs/presets.md documents (the
 *     tables below are written from that page, not from preset.c);
 *   - bad preset names and arguments give a clear error;
 *   - stonewall runs jobs one after another, and time_based keeps a job
 *     going over its region until runtime;
 *   - a sweep gives byte-identical output in one process and in two,
 *     and varying the member count scales a closed form.
 *
 * Run: meson test -C build --suite unit sim-presets
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/embedded.h"
#include "raidsim/preset.h"
#include "raidsim/sweep.h"
#include "sim-test.h"

#define KiB UINT64_C (1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define SEC RAIDSIM_NS_PER_S

/* What docs/presets.md says a job of a preset is. */
struct want {
  const char *name;
  int rw;
  uint64_t bs, iodepth;
};

static void
check_jobs (const struct raidsim_jobfile *jf, const struct want *w,
            unsigned n, uint64_t size, uint64_t runtime, bool time_based)
{
  unsigned i;

  ck_assert_uint_eq (jf->njobs, n);
  /* Every test waits for the one before: one stonewall group each. */
  ck_assert_uint_eq (jf->ngroups, n);
  for (i = 0; i < n; ++i) {
    const struct raidsim_job *j = &jf->jobs[i];

    ck_assert_str_eq (j->name, w[i].name);
    ck_assert_int_eq (j->rw, w[i].rw);
    ck_assert_uint_eq (j->bs, w[i].bs);
    ck_assert_uint_eq (j->iodepth, w[i].iodepth);
    ck_assert_uint_eq (j->numjobs, 1);
    ck_assert_uint_eq (j->group, i);
    if (strcmp (j->name, "prepare") == 0) {
      /* The test file is written once, whole, and not reported. */
      ck_assert (j->hidden);
      ck_assert_uint_eq (j->size, size);
      ck_assert (!j->time_based);
      continue;
    }
    /* A test's unscored pass ("Preparing..."): run like the test, not
     * reported.
     */
    {
      size_t len = strlen (j->name);

      ck_assert_int_eq (j->hidden, len > 5 &&
                        strcmp (j->name + len - 5, "-prep") == 0);
    }
    ck_assert_uint_eq (j->size, size);
    ck_assert_uint_eq (j->runtime, runtime);
    ck_assert_int_eq (j->time_based, time_based);
  }
}

/* CrystalDiskMark 3 and DiskSpd (CrystalDiskMark 8) draw every random
 * offset afresh (norandommap); sequential tests have no offsets to draw.
 */
static void
check_norandommap (const struct raidsim_jobfile *jf, bool want)
{
  unsigned i;

  for (i = 0; i < jf->njobs; ++i)
    ck_assert_msg (jf->jobs[i].norandommap ==
                   (want && raidsim_rw_is_random (jf->jobs[i].rw)),
                   "%s: norandommap %d", jf->jobs[i].name,
                   jf->jobs[i].norandommap);
}

#define R(x) RAIDSIM_RW_##x

START_TEST (cdm3)
{
#define W2(name, rw, bs, qd) \
  { name "-prep", R (rw), bs, qd }, { name, R (rw), bs, qd }
  static const struct want w[] = {
    { "prepare", R (WRITE), MiB, 1 },
    W2 ("seq-read", READ, MiB, 1),
    W2 ("seq-write", WRITE, MiB, 1),
    W2 ("512k-read", RANDREAD, 512 * KiB, 1),
    W2 ("512k-write", RANDWRITE, 512 * KiB, 1),
    W2 ("4k-read", RANDREAD, 4 * KiB, 1),
    W2 ("4k-write", RANDWRITE, 4 * KiB, 1),
    W2 ("4k-qd32-read", RANDREAD, 4 * KiB, 32),
    W2 ("4k-qd32-write", RANDWRITE, 4 * KiB, 32),
  };
#undef W2
  struct raidsim_jobfile *jf;

  /* CrystalDiskMark's sizes are binary: 1000MB is 1000 MiB. */
  jf = raidsim_preset_expand ("cdm3", 100 * GiB);
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  check_jobs (jf, w, 17, 1000 * MiB, 5 * SEC, true);
  ck_assert_int_eq (jf->summary, RAIDSIM_SUMMARY_NONE);
  raidsim_jobfile_free (jf);

  jf = raidsim_preset_expand ("cdm3:50MB", 100 * GiB);
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  check_jobs (jf, w, 17, 50 * MiB, 5 * SEC, true);
  check_norandommap (jf, true);
  raidsim_jobfile_free (jf);

  jf = raidsim_preset_expand ("cdm3:1000MB", 100 * GiB);
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  check_jobs (jf, w, 17, 1000 * MiB, 5 * SEC, true);
  raidsim_jobfile_free (jf);
}
END_TEST

/* CrystalDiskMark 8, from its DiskBench.cpp and DiskMarkDlg.cpp (8.0.5,
 * hiyohiyo/CrystalDiskMark 8eb3bc1): ExecDiskBenchAll runs TEST_READ_0
 * to 3 then TEST_WRITE_0 to 3, with Interval () (IntervalTime, default
 * 5 s) between tests; each test runs once with duration = 5 unscored
 * ("Preparing...") and then its scored passes; the default set
 * (IsDefaultMode) is SEQ 1 MiB Q8T1, SEQ 1 MiB Q1T1, RND 4 KiB Q32T1,
 * RND 4 KiB Q1T1.  Mutants killed: the unscored passes dropped; the
 * pause missing before a test, or added before the first; the reads
 * and writes interleaved.
 */
START_TEST (cdm8)
{
#define W2(name, rw, bs, qd) \
  { name "-prep", R (rw), bs, qd }, { name, R (rw), bs, qd }
  static const struct want w[] = {
    { "prepare", R (WRITE), MiB, 1 },
    W2 ("SEQ1M-Q8T1-read", READ, MiB, 8),
    W2 ("SEQ1M-Q1T1-read", READ, MiB, 1),
    W2 ("RND4K-Q32T1-read", RANDREAD, 4 * KiB, 32),
    W2 ("RND4K-Q1T1-read", RANDREAD, 4 * KiB, 1),
    W2 ("SEQ1M-Q8T1-write", WRITE, MiB, 8),
    W2 ("SEQ1M-Q1T1-write", WRITE, MiB, 1),
    W2 ("RND4K-Q32T1-write", RANDWRITE, 4 * KiB, 32),
    W2 ("RND4K-Q1T1-write", RANDWRITE, 4 * KiB, 1),
  };
#undef W2
  struct raidsim_jobfile *jf = raidsim_preset_expand ("cdm8", 100 * GiB);
  unsigned i;

  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  check_jobs (jf, w, 17, GiB, 5 * SEC, true);
  check_norandommap (jf, true);
  /* The 5 s pause comes before every test's unscored pass but the
   * first's, and nowhere else.
   */
  for (i = 0; i < jf->njobs; ++i) {
    const struct raidsim_job *j = &jf->jobs[i];
    bool paused = i >= 3 && j->hidden;

    ck_assert_msg (j->startdelay == (paused ? 5 * SEC : 0),
                   "%s: startdelay %" PRIu64, j->name, j->startdelay);
  }
  raidsim_jobfile_free (jf);
  jf = raidsim_preset_expand ("cdm8:4GiB", 100 * GiB);
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  check_jobs (jf, w, 17, 4 * GiB, 5 * SEC, true);
  raidsim_jobfile_free (jf);
}
END_TEST

/* winsat disk, from its sources (docs/presets.md):
 *   - the order is the one `winsat disk -drive X` prints as it runs
 *     (gists oledid/3976b1ac... and lukedemi/17c1e7ba...): '-ran
 *     -read', '-seq -read', '-seq -write';
 *   - the sizes are the XML's ioSize, 16384 for "Random Read" and 65536
 *     for "Sequential Read" (askwoody.com's DataStore excerpt); "64.0"
 *     in the names is KiB;
 *   - the queue depth is the page's estimate, 16 in every test, since no
 *     source gives winsat's own; qd=N replaces it in every test;
 *   - the whole disk (size 0, to the end of the array) and 5 s are the
 *     page's stated assumptions.
 * Mutants killed: the default back at QD 1 (or any other than 16); the
 * QD marker left in a row (iodepth UINT64_MAX); qd=N ignored; the
 * tests in another order; 64 KiB taken for 64,000 bytes.
 */
START_TEST (winsat)
{
  static const struct { const char *spec; uint64_t qd; } t[] = {
    { "winsat-disk", 16 },
    { "winsat-disk:qd=1", 1 },
    { "winsat-disk:qd=32", 32 },
    { "winsat-disk:qd=65536", 65536 },
  };
  unsigned k;

  for (k = 0; k < sizeof t / sizeof t[0]; ++k) {
    const struct want w[] = {
      { "Random 16.0 Read", R (RANDREAD), 16384, t[k].qd },
      { "Sequential 64.0 Read", R (READ), 65536, t[k].qd },
      { "Sequential 64.0 Write", R (WRITE), 65536, t[k].qd },
    };
    struct raidsim_jobfile *jf = raidsim_preset_expand (t[k].spec,
                                                        100 * GiB);
    char want[256];

    ck_assert_msg (jf != NULL, "%s: %s", t[k].spec, raidsim_error ());
    check_jobs (jf, w, 3, 0, 5 * SEC, false);
    check_norandommap (jf, false);
    /* The run says which queue depth it assumed, and whose it is. */
    if (k == 0)
      snprintf (want, sizeof want, "queue depth 16 (the default: an "
                "estimate, the tool's own is not documented) in every "
                "test; ");
    else
      snprintf (want, sizeof want, "queue depth %" PRIu64 " (given) in "
                "every test; ", t[k].qd);
    ck_assert_ptr_nonnull (jf->assumed);
    ck_assert_msg (strncmp (jf->assumed, want, strlen (want)) == 0,
                   "%s: assumed '%s'", t[k].spec, jf->assumed);
    raidsim_jobfile_free (jf);
  }
}
END_TEST

/* A bad queue depth is one line naming it, and the range.  Mutants
 * killed: qd=0 or 65537 accepted (the range check dropped); trailing
 * text after the number accepted; a span taken for a queue depth.
 */
START_TEST (winsat_bad_qd)
{
  static const char *const bad[] = {
    "qd=0", "qd=", "qd=x", "qd=65537", "qd=99999999999999999999999",
    "qd=4x", "qd=-1", "QD=4", "1G", "full",
  };
  char spec[64], want[256];
  unsigned k;

  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    snprintf (spec, sizeof spec, "winsat-disk:%s", bad[k]);
    ck_assert_ptr_null (raidsim_preset_expand (spec, GiB));
    snprintf (want, sizeof want, "%s: '%s' is not qd=N, a queue depth from "
              "1 to 65536 (the default is 16)", spec, bad[k]);
    ck_assert_str_eq (raidsim_error (), want);
  }
  /* Presets with a span take no queue depth. */
  ck_assert_ptr_null (raidsim_preset_expand ("cdm3:qd=4", 100 * GiB));
  ck_assert_ptr_null (raidsim_preset_expand ("hdtune-read:qd=4", GiB));
  ck_assert_str_eq (raidsim_error (), "hdtune-read:qd=4: hdtune-read takes "
                    "no argument");
}
END_TEST

START_TEST (four_corners)
{
  static const struct { const char *name; int rw; uint64_t bs; } pat[] = {
    { "seq-read-128k", R (READ), 128 * KiB },
    { "seq-write-128k", R (WRITE), 128 * KiB },
    { "rand-read-4k", R (RANDREAD), 4 * KiB },
    { "rand-write-4k", R (RANDWRITE), 4 * KiB },
  };
  struct want w[24];
  char names[24][64];
  struct raidsim_jobfile *jf;
  unsigned p, q, k = 0;

  for (p = 0; p < 4; ++p)
    for (q = 1; q <= 32; q *= 2, ++k) {
      snprintf (names[k], sizeof names[k], "%s-qd%u", pat[p].name, q);
      w[k] = (struct want) { names[k], pat[p].rw, pat[p].bs, q };
    }
  jf = raidsim_preset_expand ("four-corners", 100 * GiB);
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  /* 1 s each after 100 ms of ramp, at most 100,000 I/Os. */
  check_jobs (jf, w, 24, 0, SEC, true);
  for (k = 0; k < 24; ++k) {
    ck_assert_uint_eq (jf->jobs[k].ramp_time, SEC / 10);
    ck_assert_uint_eq (jf->jobs[k].number_ios, 100000);
  }
  raidsim_jobfile_free (jf);
  jf = raidsim_preset_expand ("four-corners:8GiB", 100 * GiB);
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  check_jobs (jf, w, 24, 8 * GiB, SEC, true);
  raidsim_jobfile_free (jf);
}
END_TEST

/* HD Tune: 100 points of 32 MiB spread from the start to the end of the
 * array, 64 KiB reads at QD1, each point aligned to the block.
 */
START_TEST (hdtune)
{
  const uint64_t size = 1000 * GiB + 12345, sample = 32 * MiB;
  const char *const specs[] = { "hdtune-read", "hdtune-write" };
  unsigned s, k;

  for (s = 0; s < 2; ++s) {
    struct raidsim_jobfile *jf = raidsim_preset_expand (specs[s], size);

    ck_assert_msg (jf != NULL, "%s", raidsim_error ());
    ck_assert_uint_eq (jf->njobs, 100);
    ck_assert_int_eq (jf->summary, RAIDSIM_SUMMARY_SURFACE);
    for (k = 0; k < 100; ++k) {
      const struct raidsim_job *j = &jf->jobs[k];
      uint64_t want = (size - sample) / 99 * k;

      want -= want % (64 * KiB);
      ck_assert_int_eq (j->rw, s ? RAIDSIM_RW_WRITE : RAIDSIM_RW_READ);
      ck_assert_uint_eq (j->bs, 64 * KiB);
      ck_assert_uint_eq (j->iodepth, 1);
      ck_assert_uint_eq (j->size, sample);
      ck_assert_uint_eq (j->offset, want);
      ck_assert_uint_eq (j->group, k);
    }
    /* The last point ends inside the array, near its end. */
    ck_assert (jf->jobs[99].offset + sample <= size);
    ck_assert (jf->jobs[99].offset + sample + 64 * KiB + 99 > size);
    raidsim_jobfile_free (jf);
  }
}
END_TEST

START_TEST (bad_presets)
{
  char want[512];

  ck_assert_ptr_null (raidsim_preset_expand ("cdm4", GiB));
  snprintf (want, sizeof want, "preset: 'cdm4' is not a preset; the "
            "presets are %s", raidsim_preset_names ());
  ck_assert_str_eq (raidsim_error (), want);
  ck_assert_str_eq (raidsim_preset_names (), "cdm3, cdm8, winsat-disk, "
                    "hdtune-read, hdtune-write, four-corners");

  /* A name that is no file and no preset gets the list too, and where
   * a job file of that name was looked for (datadir.h).
   */
  ck_assert_ptr_null (raidsim_workload_load ("fourcorners", GiB));
  snprintf (want, sizeof want, "'fourcorners' is neither a fio job file "
            "nor a preset; the presets are %s; fourcorners: no fio job "
            "file of that name: looked for fourcorners and fourcorners.fio "
            "in the current directory, then for fourcorners and "
            "fourcorners.fio in ", raidsim_preset_names ());
  ck_assert_msg (strncmp (raidsim_error (), want, strlen (want)) == 0,
                 "got: %s", raidsim_error ());

  ck_assert_ptr_null (raidsim_preset_expand ("cdm3:50XB", GiB));
  ck_assert_str_eq (raidsim_error (), "cdm3:50XB: '50XB' is not a span: a "
                    "whole number and K, M, G or T (KB, MB... and KiB, "
                    "MiB... alike: all powers of 1024, as CrystalDiskMark "
                    "means them), or full");
  ck_assert_ptr_null (raidsim_preset_expand ("cdm3:", GiB));
  ck_assert_ptr_null (raidsim_preset_expand ("cdm3:0MB", GiB));
  ck_assert_ptr_null (raidsim_preset_expand ("hdtune-write:1G", GiB));
  ck_assert_str_eq (raidsim_error (), "hdtune-write:1G: hdtune-write takes "
                    "no argument");
  ck_assert_ptr_null (raidsim_preset_expand ("cdm3", 100 * MiB));
  ck_assert_str_eq (raidsim_error (), "cdm3: span of 1048576000 bytes is "
                    "larger than the array (104857600 bytes)");
  ck_assert_ptr_null (raidsim_preset_expand ("hdtune-read", 16 * MiB));
}
END_TEST

/* ---- stonewall and time_based ---- */

static const char *
fixed_array (unsigned members)
{
  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 1G\n"
                 "latency = 100us\nparallelism = 1\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
  if (members == 1)
    return sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                          "device = d.ini\ncontroller = c.ini\n");
  return sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = %u\n"
                        "chunk = 4K\ndevice = d.ini\ncontroller = c.ini\n",
                        members);
}

/* Two jobs of 100 I/Os of 100 us: side by side they share the drive and
 * both end at 20 ms; with stonewall the second starts at 10 ms, when the
 * first ends, and ends at 20 ms.  A time_based job over a 10-block
 * region keeps going for its whole runtime: 50 ms, 500 I/Os.
 */
START_TEST (stonewall_and_time_based)
{
  struct sim_test_run r;
  const char *a = fixed_array (1), *j;
  const raidsim_ns MS = RAIDSIM_NS_PER_MS;

  j = sim_test_file ("j.fio", "[one]\nrw=randread\nnumber_ios=100\n"
                     "[two]\nrw=randread\nnumber_ios=100\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (r.jf->ngroups, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->start, 0);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->end, 20 * MS - 100000);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->end, 20 * MS);
  sim_test_done (&r);

  j = sim_test_file ("j.fio", "[one]\nrw=randread\nnumber_ios=100\n"
                     "[two]\nstonewall\nrw=randread\nnumber_ios=100\n"
                     "ramp_time=1ms\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (r.jf->ngroups, 2);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->end, 10 * MS);
  /* Its ramp counts from its own start. */
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->start, 11 * MS);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->end, 21 * MS);
  sim_test_done (&r);

  j = sim_test_file ("j.fio", "[tb]\nrw=read\nsize=40k\nruntime=50ms\n"
                     "time_based\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].ios, 500);
  sim_test_done (&r);
  j = sim_test_file ("j.fio", "[once]\nrw=read\nsize=40k\nruntime=50ms\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].ios, 10);
  sim_test_done (&r);
}
END_TEST

/* winsat-disk:qd=N changes what runs, not only what is printed: on a
 * drive that serves up to 64 commands at once, each in 1 ms, a test at
 * QD q completes q I/Os a millisecond, q x 1,000 IOPS.  The report
 * says which queue depth it assumed.  Mutants killed: the QD left at 1
 * (or the default) whatever qd= says; the assumed line dropped from the
 * report.
 */
START_TEST (winsat_qd_runs)
{
  static const struct { const char *spec; double qd; } t[] = {
    { "winsat-disk:qd=1", 1 }, { "winsat-disk:qd=4", 4 },
    { "winsat-disk", 16 },
  };
  const char *a;
  unsigned k, i;

  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 1G\n"
                 "latency = 1ms\nparallelism = 64\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  for (k = 0; k < sizeof t / sizeof t[0]; ++k) {
    struct raidsim_array_config *ac = raidsim_array_config_load (a);
    struct raidsim_jobfile *jf;
    struct raidsim_sim *s;
    char *out, want[128];

    ck_assert_msg (ac != NULL, "%s", raidsim_error ());
    jf = raidsim_preset_expand (t[k].spec, raidsim_array_config_size (ac));
    ck_assert_msg (jf != NULL, "%s", raidsim_error ());
    s = raidsim_sim_new (ac, jf, 1);
    ck_assert_msg (s != NULL, "%s", raidsim_error ());
    ck_assert_int_eq (raidsim_sim_run (s), 0);
    for (i = 0; i < 3; ++i) {
      const struct raidsim_job_result *r = raidsim_sim_job (s, i);

      ck_assert_double_eq_tol (raidsim_result_iops
                               (r, raidsim_job_dir (r->job)),
                               t[k].qd * 1000, t[k].qd * 1000 * 0.001);
    }
    out = sim_test_report (s, RAIDSIM_FORMAT_TABLE);
    snprintf (want, sizeof want, "\npreset:%s: assumed queue depth %.0f (",
              t[k].spec, t[k].qd);
    ck_assert_msg (strstr (out, want) != NULL, "%s", out);
    free (out);
    raidsim_sim_free (s);
    raidsim_jobfile_free (jf);
    raidsim_array_config_free (ac);
  }
}
END_TEST

/* cdm8's pause is idle time in the run, not only an option printed: a
 * test's unscored pass starts 5 s after the test before it ends (the
 * first right after the test file is written).  Mutant killed:
 * startdelay set on the jobs but not copied into fill_job's output
 * (SET dropped), so every test starts at once.
 */
START_TEST (cdm8_pauses_run)
{
  struct raidsim_array_config *ac;
  struct raidsim_jobfile *jf;
  struct raidsim_sim *s;
  const char *a;
  unsigned i;

  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 1G\n"
                 "latency = 1ms\nparallelism = 1\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  ac = raidsim_array_config_load (a);
  ck_assert_msg (ac != NULL, "%s", raidsim_error ());
  jf = raidsim_preset_expand ("cdm8:16MB", raidsim_array_config_size (ac));
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  s = raidsim_sim_new (ac, jf, 1);
  ck_assert_msg (s != NULL, "%s", raidsim_error ());
  ck_assert_int_eq (raidsim_sim_run (s), 0);
  for (i = 1; i < raidsim_sim_njobs (s); ++i) {
    const struct raidsim_job_result *r = raidsim_sim_job (s, i);
    raidsim_ns gap = i >= 3 && r->job->hidden ? 5 * SEC : 0;

    ck_assert_msg (r->start == raidsim_sim_job (s, i - 1)->end + gap,
                   "%s starts at %" PRIu64 ", the job before ends at %"
                   PRIu64, r->job->name, (uint64_t) r->start,
                   (uint64_t) raidsim_sim_job (s, i - 1)->end);
  }
  raidsim_sim_free (s);
  raidsim_jobfile_free (jf);
  raidsim_array_config_free (ac);
}
END_TEST

/* ---- sweeps ---- */

static char *
sweep_output (struct raidsim_sweep *sw, enum raidsim_format format)
{
  struct raidsim_sweep_result res;
  char *buf = NULL;
  size_t len = 0;
  FILE *fp;

  ck_assert_msg (raidsim_sweep_run (sw, &res) == 0, "%s", raidsim_error ());
  fp = open_memstream (&buf, &len);
  ck_assert_int_eq (raidsim_sweep_report (fp, sw, &res, format), 0);
  fclose (fp);
  raidsim_sweep_result_free (&res);
  return buf;
}

/* Runs go to worker processes in whatever order they come free; the
 * output must not show it.
 */
START_TEST (sweep_parallel_equals_serial)
{
  const char *arrays[2];
  struct raidsim_sweep sw = { .seed = 7 };
  char *one, *two;
  char a0[512], a1[512];
  enum raidsim_format f;

  snprintf (a0, sizeof a0, "%s", fixed_array (2));
  sim_test_file ("a1.ini", "[array]\nlevel = 1\nmembers = 2\n"
                 "device = d.ini\ncontroller = c.ini\n");
  snprintf (a1, sizeof a1, "%s/a1.ini", sim_test_tmpdir ());
  arrays[0] = a0;
  arrays[1] = a1;
  sw.narrays = 2;
  sw.arrays = arrays;
  sw.workload = sim_test_file ("j.fio", "[j]\nrw=randrw\nbs=4k\n"
                               "number_ios=3000\n");
  ck_assert_int_eq (raidsim_sweep_parse_vary (&sw, "qd=1,2,3,4,8,16"), 0);
  for (f = RAIDSIM_FORMAT_TABLE; f <= RAIDSIM_FORMAT_JSON; ++f) {
    sw.workers = 1;
    one = sweep_output (&sw, f);
    sw.workers = 2;
    two = sweep_output (&sw, f);
    ck_assert_str_eq (one, two);
    free (one);
    free (two);
  }
  /* More workers than runs, and a preset. */
  sw.nvary = 0;
  sw.workload = "winsat-disk";
  sw.workers = 1;
  one = sweep_output (&sw, RAIDSIM_FORMAT_CSV);
  sw.workers = 8;
  two = sweep_output (&sw, RAIDSIM_FORMAT_CSV);
  ck_assert_str_eq (one, two);
  free (one);
  free (two);
}
END_TEST

/* Sequential 4 KiB reads over 4 KiB chunks visit the members in turn;
 * at QD 8 every one of m members is always busy: m x 10,000 IOPS.
 */
START_TEST (sweep_members_closed_form)
{
  const char *arrays[1];
  struct raidsim_sweep sw = { .seed = 1, .workers = 2 };
  struct raidsim_sweep_result res;
  unsigned i;

  arrays[0] = fixed_array (2);
  sw.narrays = 1;
  sw.arrays = arrays;
  sw.workload = sim_test_file ("j.fio", "[j]\nrw=read\nbs=4k\niodepth=8\n"
                               "number_ios=8000\n");
  ck_assert_int_eq (raidsim_sweep_parse_vary (&sw, "members=2,4,8"), 0);
  ck_assert_msg (raidsim_sweep_run (&sw, &res) == 0, "%s", raidsim_error ());
  ck_assert_uint_eq (res.npoints, 3);
  for (i = 0; i < 3; ++i)
    ck_assert_rel (res.points[i].iops[RAIDSIM_READ],
                   sw.vary[0].values[i] * 10000.0);
  raidsim_sweep_result_free (&res);

  /* A value the geometry refuses is an error naming the run. */
  sw.nvary = 0;
  ck_assert_int_eq (raidsim_sweep_parse_vary (&sw, "level=10,single"), 0);
  ck_assert_int_eq (raidsim_sweep_run (&sw, &res), -1);
  ck_assert_ptr_nonnull (strstr (raidsim_error (), "level=single"));
  ck_assert_int_eq (raidsim_sweep_parse_vary (&sw, "depth=1"), -1);
  ck_assert_str_eq (raidsim_error (), "--vary: 'depth=1': expected qd=, "
                    "chunk=, members= or level= and a comma-separated list");
  ck_assert_int_eq (raidsim_sweep_parse_vary (&sw, "chunk=4K,5X"), -1);
  ck_assert_str_eq (raidsim_error (), "--vary: chunk: '5X' is not a size "
                    "(4K, 128K, 1M)");
}
END_TEST

/* A sweep over files built into the program reads them from memory,
 * the files that varying the member count adds too, and prints what the
 * same files on disk give.
 */
START_TEST (sweep_built_in_files)
{
  static const struct raidsim_embedded files[] = {
    { "configs/arrays/a.ini", "[array]\nlevel = 0\nmembers = 2\n"
      "chunk = 4K\ndevice = ../devices/d.ini\n"
      "controller = ../controllers/c.ini\n" },
    { "configs/devices/d.ini", "[device]\nmodel = fixed\ncapacity = 1G\n"
      "latency = 100us\nparallelism = 1\n" },
    { "configs/controllers/c.ini", "[controller]\nmodel = generic\n" },
    { NULL, NULL },
  };
  const char *built_in[] = { "configs/arrays/a.ini" }, *on_disk[1];
  struct raidsim_sweep sw = { .seed = 1, .workers = 1, .narrays = 1 };
  char *one, *two;

  on_disk[0] = fixed_array (2);
  sw.workload = sim_test_file ("j.fio", "[j]\nrw=read\nbs=4k\niodepth=8\n"
                               "number_ios=800\n");
  ck_assert_int_eq (raidsim_sweep_parse_vary (&sw, "members=2,4"), 0);
  sw.arrays = on_disk;
  one = sweep_output (&sw, RAIDSIM_FORMAT_CSV);
  sw.arrays = built_in;
  sw.files = files;
  two = sweep_output (&sw, RAIDSIM_FORMAT_CSV);
  ck_assert_str_eq (one, two);
  free (one);
  free (two);
}
END_TEST

/* A job's name follows the queue depth a sweep gives it.  Mutants
 * killed: no renaming ("4k-qd32-read" kept at QD 2); a 'q' inside a
 * word taken for the depth ("SEQ1M" becoming "SEQ2M").
 */
START_TEST (sweep_job_names_follow_qd)
{
  static const struct { const char *name, *want; } t[] = {
    { "4k-qd32-read", "4k-qd2-read" },
    { "randread-4k-qd1", "randread-4k-qd2" },
    { "RND4K-Q32T1-read", "RND4K-Q2T1-read" },
    { "SEQ1M-Q8T1-read", "SEQ1M-Q2T1-read" },
    { "QD32", "QD2" },
    { "4k-read", "4k-read" },
    { "seq-1m", "seq-1m" },
    { "squid", "squid" },
    { "freq8", "freq8" },
    { "seq-lq8t1", "seq-lq8t1" },
    { "q32x", "q32x" },
  };
  char buf[64];
  size_t i;

  for (i = 0; i < sizeof t / sizeof t[0]; ++i) {
    raidsim_sweep_job_name (t[i].name, 2, buf, sizeof buf);
    ck_assert_str_eq (buf, t[i].want);
  }
}
END_TEST

static Suite *
presets_suite (void)
{
  Suite *s = suite_create ("sim-presets");
  TCase *tc = tcase_create ("presets");

  tcase_add_test (tc, cdm3);
  tcase_add_test (tc, cdm8);
  tcase_add_test (tc, winsat);
  tcase_add_test (tc, winsat_bad_qd);
  tcase_add_test (tc, four_corners);
  tcase_add_test (tc, hdtune);
  tcase_add_test (tc, bad_presets);
  tcase_add_test (tc, sweep_job_names_follow_qd);
  suite_add_tcase (s, tc);
  tc = tcase_create ("groups");
  tcase_add_test (tc, stonewall_and_time_based);
  tcase_add_test (tc, winsat_qd_runs);
  tcase_add_test (tc, cdm8_pauses_run);
  suite_add_tcase (s, tc);
  tc = tcase_create ("sweep");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, sweep_parallel_equals_serial);
  tcase_add_test (tc, sweep_members_closed_form);
  tcase_add_test (tc, sweep_built_in_files);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (presets_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
