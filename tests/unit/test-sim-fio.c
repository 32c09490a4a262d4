/* raidsim: fio job files as people write them (issue 15, item 1).
 *
 * Each test states the fio behaviour it checks, with the figure worked
 * out by hand from fio's documentation and source (fio 3.33: HOWTO.rst,
 * parse.c, options.c), and the mutant of the loader it kills: the
 * wrong implementation that the assertion would catch.
 *
 *   - fio's other names for options and its number spellings;
 *   - options with no timing meaning are noted, listed once, and change
 *     nothing in the run;
 *   - options a model cannot honour are refused naming file, line and
 *     option, with the reason;
 *   - docs/fio-jobs.md holds the reference the tables generate.
 *
 * Run: meson test -C build --suite unit sim-fio
 * Print the generated reference: build/tests/unit/test-sim-fio --doc
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim-test.h"

#ifndef SRCDIR
#error "SRCDIR must be defined by the build"
#endif

#define KiB (UINT64_C (1) << 10)
#define MiB (UINT64_C (1) << 20)

/* Load a job file written from text; fail the test if it is refused. */
static struct raidsim_jobfile *
load_text (const char *text)
{
  const char *p = sim_test_file ("j.fio", "%s", text);
  struct raidsim_jobfile *jf = raidsim_jobfile_load (p);

  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  return jf;
}

/* Loading text must fail with "PATH:LINE: REST". */
static void
expect_refusal (const char *text, unsigned line, const char *rest)
{
  const char *p = sim_test_file ("j.fio", "%s", text);
  struct raidsim_jobfile *jf = raidsim_jobfile_load (p);
  char want[1024];

  ck_assert_msg (jf == NULL, "loaded, but should not:\n%s", text);
  snprintf (want, sizeof want, "%s:%u: %s", p, line, rest);
  ck_assert_str_eq (raidsim_error (), want);
}

/* fio's aliases (options.c .alias) read as the option they name.
 * Mutant killed: an alias missing from the table (the job is refused),
 * or mapped to the wrong option.
 */
START_TEST (aliases_are_fio_options)
{
  struct raidsim_jobfile *jf;
  const struct raidsim_job *j;

  jf = load_text ("[j]\nreadwrite=randwrite\nblocksize=64k\n"
                  "fileoffset=1m\ntimeout=7\nio_limit=0\n"
                  "[k]\nwait_for_previous\n");
  j = &jf->jobs[0];
  ck_assert_int_eq (j->rw, RAIDSIM_RW_RANDWRITE);
  ck_assert_uint_eq (j->bs, 64 * KiB);
  ck_assert_uint_eq (j->offset, MiB);
  ck_assert_uint_eq (j->runtime, UINT64_C (7) * RAIDSIM_NS_PER_S);
  ck_assert_uint_eq (j->opt_line[RAIDSIM_FIO_RW], 2);
  ck_assert_uint_eq (j->opt_line[RAIDSIM_FIO_BS], 3);
  ck_assert (jf->jobs[1].stonewall);
  ck_assert (!j->stonewall);
  raidsim_jobfile_free (jf);
}
END_TEST

/* fio keeps one mix: rwmixwrite=30 is rwmixread=70 (options.c,
 * str_rwmix_write_cb), and the later of the two wins.  Mutant killed:
 * rwmixwrite read as rwmixread (30), or ignored (50).
 */
START_TEST (rwmixwrite_is_the_other_side)
{
  struct raidsim_jobfile *jf;

  jf = load_text ("[j]\nrw=randrw\nrwmixwrite=30\n"
                  "[k]\nrw=randrw\nrwmixwrite=30\nrwmixread=10\n"
                  "[l]\nrw=randrw\nrwmixread=10\nrwmixwrite=100\n");
  ck_assert_uint_eq (jf->jobs[0].rwmixread, 70);
  ck_assert_uint_eq (jf->jobs[0].opt_line[RAIDSIM_FIO_RWMIXREAD], 3);
  ck_assert_uint_eq (jf->jobs[1].rwmixread, 10);
  ck_assert_uint_eq (jf->jobs[2].rwmixread, 0);
  raidsim_jobfile_free (jf);
  expect_refusal ("[j]\nrwmixwrite=101\n", 2,
                  "rwmixwrite: 101 is above the maximum, 100");
}
END_TEST

/* fio's multipliers (parse.c, get_mult_bytes): the suffix is
 * lower-cased; k, kb and ki are kb_base (1024 by default) and kib the
 * other base, so bs=4ki is 4096 and 4KiB 4000; b and nothing are
 * bytes.  Mutants killed: "ki" read as IEC (4000), "b" refused, upper
 * case refused, p missing.
 */
START_TEST (size_spellings_as_fio)
{
  static const struct { const char *text; uint64_t v; } sizes[] = {
    { "4ki", 4096 }, { "4Ki", 4096 }, { "4096b", 4096 }, { "4096B", 4096 },
    { "4k", 4096 }, { "4K", 4096 }, { "4kb", 4096 }, { "4kB", 4096 },
    { "4kib", 4000 }, { "4KiB", 4000 }, { "1mi", 1048576 },
    { "1MiB", 1000000 }, { "1gi", UINT64_C (1) << 30 },
    { "1GiB", UINT64_C (1000000000) }, { "1t", UINT64_C (1) << 40 },
    { "1ti", UINT64_C (1) << 40 }, { "1tib", UINT64_C (1000000000000) },
    { "1p", UINT64_C (1) << 50 }, { "1pib", UINT64_C (1000000000000000) },
    { "0x1000", 4096 }, { "512", 512 },
  };
  unsigned i;

  for (i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    const char *p = sim_test_file ("j.fio", "[j]\nsize=%s\n",
                                   sizes[i].text);
    struct raidsim_jobfile *jf = raidsim_jobfile_load (p);

    ck_assert_msg (jf != NULL, "size=%s: %s", sizes[i].text,
                   raidsim_error ());
    ck_assert_msg (jf->jobs[0].size == sizes[i].v, "size=%s gave %lu",
                   sizes[i].text, (unsigned long) jf->jobs[0].size);
    raidsim_jobfile_free (jf);
  }
}
END_TEST

/* kb_base=1000 makes k 1000 and kib 1024 (parse.c), for every option
 * of its section whatever the order, since fio reads kb_base first
 * (options.c gives it priority), and a [global] one applies to the jobs
 * after it.  Mutants killed: kb_base ignored, applied only to the
 * options after it in the file, or not inherited from [global].
 */
START_TEST (kb_base_1000)
{
  struct raidsim_jobfile *jf;

  jf = load_text ("[j]\nbs=4k\nsize=1mib\nkb_base=1000\n"
                  "[global]\nkb_base=1000\n"
                  "[k]\nbs=8k\n"
                  "[l]\nkb_base=1024\nbs=8k\n");
  ck_assert_uint_eq (jf->jobs[0].bs, 4000);
  ck_assert_uint_eq (jf->jobs[0].size, 1048576);
  ck_assert_uint_eq (jf->jobs[1].bs, 8000);
  ck_assert_uint_eq (jf->jobs[2].bs, 8192);
  raidsim_jobfile_free (jf);
  expect_refusal ("[j]\nkb_base=1023\n", 2,
                  "kb_base: '1023' is not one of 1024, 1000");
}
END_TEST

/* A number past 2^64 - 1 is "too large", not "not an integer"
 * (issue 15).  2^64 - 1 = 18446744073709551615 still fits.  Mutants
 * killed: overflow wrapping silently (size would load as a small
 * number), or reported as a syntax error.
 */
START_TEST (numbers_too_large)
{
  struct raidsim_jobfile *jf;

  expect_refusal ("[j]\nsize=99999999999999999999\n", 2,
                  "size: 99999999999999999999 is too large");
  /* 16384p = 2^14 x 2^50 = 2^64: one more than fits. */
  expect_refusal ("[j]\nsize=16384p\n", 2, "size: 16384p is too large");
  expect_refusal ("[j]\nsize=0x10000000000000000\n", 2,
                  "size: 0x10000000000000000 is too large");
  expect_refusal ("[j]\nruntime=99999999999999999999\n", 2,
                  "runtime: 99999999999999999999 is too large");
  /* 2^64 ns is 18446744073.709... s, so 18446744074 s does not fit. */
  expect_refusal ("[j]\nruntime=18446744074\n", 2,
                  "runtime: 18446744074 is too large");
  jf = load_text ("[j]\nsize=18446744073709551615\n"
                  "[k]\nsize=16383p\n");
  ck_assert_uint_eq (jf->jobs[0].size, UINT64_MAX);
  ck_assert_uint_eq (jf->jobs[1].size, UINT64_C (16383) << 50);
  raidsim_jobfile_free (jf);
  /* Typos are still not numbers: fio would read "4kx" as 4096 and
   * "1.5g" as 1; raidsim refuses both.
   */
  expect_refusal ("[j]\nbs=4kx\n", 2, "bs: '4kx' is not an integer with "
                  "an optional fio suffix (k, m, g, t, p)");
  expect_refusal ("[j]\nsize=1.5g\n", 2, "size: '1.5g' is not an integer "
                  "with an optional fio suffix (k, m, g, t, p)");
}
END_TEST

/* Options with no timing meaning are accepted, have no effect and are
 * listed once, in the order they first appear, as written.  Mutants
 * killed: a noted option refused; listed twice; listed under its
 * canonical name instead of as written; the list left empty.
 */
START_TEST (noted_options_listed_once)
{
  struct raidsim_jobfile *jf;
  char *buf = NULL, want[1024];
  size_t len = 0;
  FILE *fp;

  jf = load_text ("[global]\nioengine=libaio\ndirect=1\nthread\n"
                  "group_reporting\n"
                  "[a]\nfilename=/dev/sdb\ndirect=1\nwrite_bw_log=a\n"
                  "iomem=malloc\nfsync=0\n"
                  "[b]\nioengine=io_uring\nverify=md5\nmem=malloc\n");
  ck_assert_str_eq (jf->noted, "ioengine, direct, thread, group_reporting, "
                    "filename, write_bw_log, iomem, fsync, verify");
  fp = open_memstream (&buf, &len);
  raidsim_jobfile_print_noted (fp, "raidsim run", jf);
  fclose (fp);
  snprintf (want, sizeof want, "raidsim run: %s: noted, no effect on the "
            "model: %s\n", jf->path, jf->noted);
  ck_assert_str_eq (buf, want);
  raidsim_jobfile_free (jf);
  free (buf);

  /* Nothing noted, nothing printed: stderr stays as it was. */
  jf = load_text ("[j]\nrw=read\n");
  ck_assert_ptr_null (jf->noted);
  buf = NULL;
  fp = open_memstream (&buf, &len);
  raidsim_jobfile_print_noted (fp, "raidsim run", jf);
  fclose (fp);
  ck_assert_str_eq (buf, "");
  raidsim_jobfile_free (jf);
  free (buf);
}
END_TEST

/* The same job with and without the noted options, and in fio's other
 * spellings, runs identically: the same report, byte for byte.  Mutant
 * killed: a noted option that changes the job (such as direct=1 read
 * as a boolean into a job field).
 */
START_TEST (noted_options_change_nothing)
{
  const char *array = SRCDIR "/configs/arrays/raid0-2x-fixed.ini";
  struct sim_test_run a, b;
  char *ra, *rb;

  sim_test_run (&a, array, SRCDIR "/tests/data/fio/as-written.fio", 1);
  sim_test_run (&b, array, SRCDIR "/tests/data/fio/bare.fio", 1);
  ck_assert_ptr_nonnull (a.jf->noted);
  ck_assert_ptr_null (b.jf->noted);
  ra = sim_test_report (a.s, RAIDSIM_FORMAT_JSON);
  rb = sim_test_report (b.s, RAIDSIM_FORMAT_JSON);
  ck_assert_str_eq (ra, rb);
  free (ra);
  free (rb);
  sim_test_done (&a);
  sim_test_done (&b);
}
END_TEST

/* Refusals name the file, the line and the option, with the reason.
 * Options that ask for nothing (fsync=0, sync=none, nrfiles=1) are
 * noted instead.  Mutants killed: the harmless values refused; fsync=1
 * accepted; the line of [global] blamed for a job's option.
 */
START_TEST (refusals_name_option_and_reason)
{
  struct raidsim_jobfile *jf;

  expect_refusal ("[global]\nbs=4k\n[j]\nrw=randwrite\nfsync=1\n", 5,
                  "fsync=1: refused: flushes or synchronous writes, and the "
                  "device and controller models have no flush operation "
                  "(include/raidsim/device.h)");
  expect_refusal ("[j]\nsync=dsync\n", 2,
                  "sync=dsync: refused: flushes or synchronous writes, and "
                  "the device and controller models have no flush operation "
                  "(include/raidsim/device.h)");
  expect_refusal ("[j]\nrw=randtrim\n", 2,
                  "rw=randtrim: refused: trims (discards), and the device "
                  "models have no trim operation");
  expect_refusal ("[j]\nioengine=cpuio\ncpuload=50\n", 2,
                  "ioengine=cpuio: refused: an I/O engine that does no reads "
                  "or writes at offsets of a block device or file, which is "
                  "what the array model takes");
  expect_refusal ("[j]\nioengine=libaoi\n", 2,
                  "ioengine=libaoi: not an I/O engine of fio 3.33");
  expect_refusal ("[j]\nzonemode=zbd\n", 2,
                  "zonemode=zbd: refused: zoned block devices, and the "
                  "device models are conventional drives");
  expect_refusal ("[j]\nexitall\n", 2,
                  "exitall: refused: timing raidsim does not model yet");
  expect_refusal ("[j]\nread_iolog=trace.log\n", 2,
                  "read_iolog=trace.log: refused: trace replay, which "
                  "raidsim does not do yet (issue 15, item 2)");
  jf = load_text ("[j]\nfsync=0\nsync=none\nnrfiles=1\nexitall=0\n");
  ck_assert_str_eq (jf->noted, "fsync, sync, nrfiles, exitall");
  raidsim_jobfile_free (jf);
}
END_TEST

/* ${VAR} is the environment variable, or nothing (options.c,
 * fio_option_dup_subs).  Mutant killed: no substitution (the value
 * "${RAIDSIM_TEST_RW}" is refused) or an unset variable kept literally.
 */
START_TEST (environment_variables)
{
  struct raidsim_jobfile *jf;

  setenv ("RAIDSIM_TEST_RW", "randwrite", 1);
  setenv ("RAIDSIM_TEST_BS", "16", 1);
  jf = load_text ("[j]\nrw=${RAIDSIM_TEST_RW}\nbs=${RAIDSIM_TEST_BS}k\n");
  ck_assert_int_eq (jf->jobs[0].rw, RAIDSIM_RW_RANDWRITE);
  ck_assert_uint_eq (jf->jobs[0].bs, 16 * KiB);
  raidsim_jobfile_free (jf);
  unsetenv ("RAIDSIM_TEST_RW");
  expect_refusal ("[j]\nrw=${RAIDSIM_TEST_RW}\n", 2,
                  "rw: empty value (an unset ${VARIABLE}?)");
}
END_TEST

/* docs/fio-jobs.md contains the reference that the tables generate,
 * between its two markers.  Print it: build/tests/unit/test-sim-fio
 * --doc
 */
START_TEST (reference_doc_is_current)
{
  static const char begin[] = "<!-- fio options: begin -->\n";
  static const char end[] = "<!-- fio options: end -->";
  char *gen = NULL, *doc, *b, *e;
  size_t genlen = 0;
  FILE *fp = open_memstream (&gen, &genlen);
  long n;

  raidsim_fio_options_doc (fp);
  fclose (fp);
  fp = fopen (SRCDIR "/docs/fio-jobs.md", "r");
  ck_assert_msg (fp != NULL, "docs/fio-jobs.md is missing");
  fseek (fp, 0, SEEK_END);
  n = ftell (fp);
  rewind (fp);
  doc = calloc (1, n + 1);
  ck_assert_uint_eq (fread (doc, 1, n, fp), (size_t) n);
  fclose (fp);
  b = strstr (doc, begin);
  e = strstr (doc, end);
  ck_assert_msg (b && e && e > b, "docs/fio-jobs.md: no '%s' ... '%s'",
                 begin, end);
  b += strlen (begin);
  *e = '\0';
  ck_assert_msg (strcmp (b, gen) == 0,
                 "docs/fio-jobs.md differs from the tables; replace what is "
                 "between its markers with the output of "
                 "build/tests/unit/test-sim-fio --doc");
  free (doc);
  free (gen);
}
END_TEST

static Suite *
fio_suite (void)
{
  Suite *s = suite_create ("sim-fio");
  TCase *tc = tcase_create ("spellings");

  tcase_add_test (tc, aliases_are_fio_options);
  tcase_add_test (tc, rwmixwrite_is_the_other_side);
  tcase_add_test (tc, size_spellings_as_fio);
  tcase_add_test (tc, kb_base_1000);
  tcase_add_test (tc, numbers_too_large);
  tcase_add_test (tc, environment_variables);
  suite_add_tcase (s, tc);
  tc = tcase_create ("noted");
  tcase_add_test (tc, noted_options_listed_once);
  tcase_add_test (tc, noted_options_change_nothing);
  tcase_add_test (tc, refusals_name_option_and_reason);
  tcase_add_test (tc, reference_doc_is_current);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  SRunner *sr;
  int failed;

  if (argc == 2 && strcmp (argv[1], "--doc") == 0) {
    raidsim_fio_options_doc (stdout);
    return EXIT_SUCCESS;
  }
  sr = srunner_create (fio_suite ());
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
