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
 *   - bs=R,W, bsrange and bssplit draw sizes with fio's frequencies;
 *   - size and offset in percent, offset_increment, io_size, loops;
 *   - rate, rate_iops (linear and poisson, inline and offload),
 *     thinktime and startdelay pace a thread as fio's do_io does;
 *   - random_distribution: zipf, pareto, normal and zoned as fio draws
 *     them;
 *   - zonemode=strided; fio's rw suffix, blockalign, fill_device,
 *     filesize, wait_for, exitall;
 *   - docs/fio-jobs.md holds the reference the tables generate.
 *
 * Run: meson test -C build --suite unit sim-fio
 * Print the generated reference: build/tests/unit/test-sim-fio --doc
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/workload.h"
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
                  "iomem=malloc\nreadfua=0\n"
                  "[b]\nioengine=io_uring\nverify=md5\nmem=malloc\n");
  ck_assert_str_eq (jf->noted, "ioengine, direct, thread, group_reporting, "
                    "filename, write_bw_log, iomem, readfua, verify");
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
 * Options that ask for nothing (readfua=0, nrfiles=1) are noted
 * instead.  Mutants killed: the harmless values refused; readfua=1
 * accepted; the line of [global] blamed for a job's option.
 */
START_TEST (refusals_name_option_and_reason)
{
  struct raidsim_jobfile *jf;

  expect_refusal ("[global]\nbs=4k\n[j]\nrw=randread\nreadfua=1\n", 5,
                  "readfua=1: refused: reads with forced unit access (which "
                  "skip a drive's read cache) or sync_file_range (which "
                  "needs a page cache), and the models have neither "
                  "(sync=1 and writefua are modelled)");
  expect_refusal ("[j]\nwrite_mode=zeroes\n", 2,
                  "write_mode=zeroes: refused: commands other than read and "
                  "write (SCSI WRITE AND VERIFY, WRITE SAME), and the device "
                  "models have only those two");
  expect_refusal ("[j]\nioengine=cpuio\ncpuload=50\n", 2,
                  "ioengine=cpuio: refused: an I/O engine that does no reads "
                  "or writes at offsets of a block device or file, which is "
                  "what the array model takes");
  expect_refusal ("[j]\nioengine=libaoi\n", 2,
                  "ioengine=libaoi: not an I/O engine of fio 3.33");
  expect_refusal ("[j]\nzonemode=zbd\n", 2,
                  "zonemode=zbd: refused: zoned block devices, and the "
                  "device models are conventional drives");
  expect_refusal ("[j]\niodepth_low=1\n", 2,
                  "iodepth_low=1: refused: timing raidsim does not model "
                  "yet");
  expect_refusal ("[j]\nreplay_skip=read\n", 2,
                  "replay_skip=read: refused: a trace replay option "
                  "raidsim does not model (it models read_iolog, "
                  "replay_no_stall and replay_time_scale)");
  jf = load_text ("[j]\nwrite_barrier=8\nreadfua=0\nnrfiles=1\n"
                  "verify_only=0\n");
  ck_assert_str_eq (jf->noted, "write_barrier, readfua, nrfiles, verify_only");
  raidsim_jobfile_free (jf);
}
END_TEST

/* Trims and FUA writes are modelled: rw=trim and its kin are writes
 * that trim (or are trimmed first), with the trims' size bs=R,W,T;
 * sync= and writefua make the writes FUA.  Newer fio's engines and
 * options without timing meaning are noted.  Mutants killed: a trim
 * direction read as its write direction (trim mode lost); the third
 * bs ignored; sync=dsync or writefua=1 not making FUA writes; libblkio
 * refused as an unknown engine.
 */
START_TEST (trims_and_fua_load)
{
  static const struct { const char *rw; int base, trim; } t[] = {
    { "trim", RAIDSIM_RW_WRITE, RAIDSIM_TRIM_ONLY },
    { "randtrim", RAIDSIM_RW_RANDWRITE, RAIDSIM_TRIM_ONLY },
    { "trimwrite", RAIDSIM_RW_WRITE, RAIDSIM_TRIM_THEN_WRITE },
    { "randtrimwrite", RAIDSIM_RW_RANDWRITE, RAIDSIM_TRIM_THEN_WRITE },
  };
  struct raidsim_jobfile *jf;
  struct raidsim_bsdist d;
  char text[128];
  unsigned i;

  for (i = 0; i < sizeof t / sizeof t[0]; ++i) {
    snprintf (text, sizeof text, "[j]\nrw=%s\nbs=512,512,16k\n", t[i].rw);
    jf = load_text (text);
    ck_assert_int_eq (jf->jobs[0].rw, t[i].base);
    ck_assert_int_eq (jf->jobs[0].trim, t[i].trim);
    ck_assert_str_eq (raidsim_job_rw_name (&jf->jobs[0]), t[i].rw);
    raidsim_job_bsdist (&jf->jobs[0], 1, &d);
    /* A trim job's requests are the trims' 16k; trimwrite's writes
     * keep the writes' size.
     */
    ck_assert_uint_eq (d.min, t[i].trim == RAIDSIM_TRIM_ONLY ? 16 * KiB : 512);
    raidsim_jobfile_free (jf);
  }
  jf = load_text ("[a]\nrw=write\nsync=dsync\n[b]\nrw=write\nwritefua=1\n"
                  "[c]\nrw=write\nsync=0\n");
  ck_assert (jf->jobs[0].fua);
  ck_assert (jf->jobs[1].fua);
  ck_assert (!jf->jobs[2].fua);
  raidsim_jobfile_free (jf);
  jf = load_text ("[j]\nioengine=libblkio\nlibblkio_driver=io_uring\n"
                  "md_per_io_size=64\npi_act=0\nverify_write_sequence=0\n"
                  "fdp=1\n");
  ck_assert_str_eq (jf->noted, "ioengine, libblkio_driver, md_per_io_size, "
                    "pi_act, verify_write_sequence, fdp");
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
                  "rw: empty value: ${RAIDSIM_TEST_RW} is not set in the "
                  "environment (fio replaces it with nothing)");
}
END_TEST

/* ---- block sizes ---- */

/* bs=R,W sets reads and writes apart; an empty piece keeps the earlier
 * size (parse.c, handle_option); one size sets both again.  Mutants
 * killed: the write size dropped (wbs ignored), "bs=,8k" refused or
 * setting reads, a later single bs not resetting the writes' size.
 */
START_TEST (bs_read_write)
{
  struct raidsim_jobfile *jf;
  struct raidsim_bsdist d;

  jf = load_text ("[a]\nbs=4k,64k\n"
                  "[global]\nbs=16k\n"
                  "[b]\nbs=,8k\n"
                  "[global]\nbs=4k,64k\n"
                  "[c]\nbs=8k\n"
                  "[d]\nbs=4k,4k,1k\n"
                  "[e]\nbs=4k:64k\n");
  raidsim_job_bsdist (&jf->jobs[0], 0, &d);
  ck_assert_uint_eq (d.min, 4 * KiB);
  ck_assert_uint_eq (d.max, 4 * KiB);
  raidsim_job_bsdist (&jf->jobs[0], 1, &d);
  ck_assert_uint_eq (d.min, 64 * KiB);
  ck_assert_uint_eq (d.max, 64 * KiB);
  ck_assert (!raidsim_job_bs_fixed (&jf->jobs[0]));
  ck_assert_uint_eq (jf->jobs[1].bs, 16 * KiB);
  ck_assert_uint_eq (jf->jobs[1].wbs, 8 * KiB);
  ck_assert_uint_eq (jf->jobs[2].bs, 8 * KiB);
  ck_assert (raidsim_job_bs_fixed (&jf->jobs[2]));
  ck_assert (raidsim_job_bs_fixed (&jf->jobs[3]));
  ck_assert_uint_eq (jf->jobs[4].wbs, 64 * KiB);
  raidsim_jobfile_free (jf);
}
END_TEST

/* bssplit as options.c reads it: entries sorted by percentage; those
 * without one (or with 0) share what is left, (100 - 40) / 2 = 30
 * each; one list for reads and writes unless a comma separates them;
 * bssplit over bsrange over bs.  Mutants killed: missing percentages
 * left at 0, the list not sorted, the write list ignored.
 */
START_TEST (bssplit_parsing)
{
  struct raidsim_jobfile *jf;
  struct raidsim_bsdist d;
  char text[256];

  jf = load_text ("[a]\nbssplit=16k/40:4k:8k/0\n"
                  "[b]\nbs=1m\nbsrange=1k-2k\nbssplit=4k/10:64k/90,1m\n"
                  "[c]\nbssplit=4k/10:64k/90\nbsrange=32k-8k\n"
                  "[d]\nbsrange=32k-8k,1k:2k\n");
  raidsim_job_bsdist (&jf->jobs[0], 0, &d);
  ck_assert_uint_eq (d.nsplit, 3);
  ck_assert_uint_eq (d.split[0].bs, 4 * KiB);
  ck_assert_uint_eq (d.split[0].perc, 30);
  ck_assert_uint_eq (d.split[1].bs, 8 * KiB);
  ck_assert_uint_eq (d.split[1].perc, 30);
  ck_assert_uint_eq (d.split[2].bs, 16 * KiB);
  ck_assert_uint_eq (d.split[2].perc, 40);
  ck_assert_uint_eq (d.min, 4 * KiB);
  ck_assert_uint_eq (d.max, 16 * KiB);
  raidsim_job_bsdist (&jf->jobs[0], 1, &d);
  ck_assert_uint_eq (d.nsplit, 3);
  raidsim_job_bsdist (&jf->jobs[1], 0, &d);
  ck_assert_uint_eq (d.nsplit, 2);
  ck_assert_uint_eq (d.min, 4 * KiB);
  ck_assert_uint_eq (d.max, 64 * KiB);
  raidsim_job_bsdist (&jf->jobs[1], 1, &d);
  ck_assert_uint_eq (d.nsplit, 0);
  ck_assert_uint_eq (d.min, MiB);
  ck_assert_uint_eq (d.max, MiB);
  raidsim_job_bs_text (&jf->jobs[1], text, sizeof text);
  ck_assert_str_eq (text, "4k/10:64k/90,1m");
  /* bsrange written after bssplit still loses to it. */
  raidsim_job_bsdist (&jf->jobs[2], 0, &d);
  ck_assert_uint_eq (d.nsplit, 2);
  /* MIN and MAX the wrong way round are swapped, as fio does. */
  raidsim_job_bsdist (&jf->jobs[3], 0, &d);
  ck_assert_uint_eq (d.min, 8 * KiB);
  ck_assert_uint_eq (d.max, 32 * KiB);
  raidsim_job_bsdist (&jf->jobs[3], 1, &d);
  ck_assert_uint_eq (d.min, KiB);
  ck_assert_uint_eq (d.max, 2 * KiB);
  raidsim_jobfile_free (jf);

  expect_refusal ("[a]\nbssplit=4k/60:8k/60\n", 2,
                  "bssplit: the percentages add up to 120, more than 100");
  expect_refusal ("[a]\nbssplit=4k/101\n", 2,
                  "bssplit: 101% is more than 100%");
  expect_refusal ("[a]\nbsrange=4k\n", 2,
                  "bsrange: '4k' is not a range MIN-MAX");
}
END_TEST

/* Draw n requests from thread 0 of the first job of text, over a
 * region of len bytes from 0, and count them by size (sizes[i] bytes,
 * count[i]; anything else fails the test).  Every request must lie
 * inside the region, and a random job's start on a multiple of align.
 */
static void
count_sizes (const char *text, uint64_t len, unsigned n, const uint64_t *sizes,
             unsigned nsizes, unsigned *count, uint64_t align)
{
  struct raidsim_jobfile *jf = load_text (text);
  struct raidsim_region r = { .start = 0, .len = len, .room = len,
    .bytes = UINT64_MAX };
  struct raidsim_worker w;
  struct raidsim_hostreq req;
  unsigned i, k;

  memset (count, 0, nsizes * sizeof *count);
  raidsim_worker_init_region (&w, &jf->jobs[0], &r, 1, 0, 0);
  for (i = 0; i < n; ++i) {
    ck_assert (raidsim_worker_next (&w, 0, &req));
    ck_assert_uint_le (req.offset + req.len, len);
    if (align)
      ck_assert_uint_eq (req.offset % align, 0);
    for (k = 0; k < nsizes && sizes[k] != req.len; ++k)
      ;
    ck_assert_msg (k < nsizes, "unexpected size %lu", (unsigned long) req.len);
    count[k]++;
  }
  raidsim_jobfile_free (jf);
}

/* The fraction c of n is p within 5 standard deviations. */
#define ck_assert_frac(c, n, p)                                         \
  ck_assert_double_eq_tol ((double) (c) / (n), (p),                     \
                           5 * sqrt ((p) * (1 - (p)) / (n)) + 1e-9)

/* bssplit=4k/10:64k/90: 10% of I/Os are 4k.  With percentages that add
 * up to 80, what is left goes to the last entry of fio's sorted list,
 * the one with the largest percentage: bssplit=4k/50:8k/30 is sorted
 * 8k/30, 4k/50, so 4k gets 70% and 8k 30%.  Mutants killed: weights
 * ignored (50/50), weights swapped, the rest given to the last entry in
 * file order (8k 50%).
 */
START_TEST (bssplit_frequencies)
{
  static const uint64_t s1[] = { 4 * KiB, 64 * KiB };
  static const uint64_t s2[] = { 4 * KiB, 8 * KiB };
  const unsigned n = 100000;
  unsigned c[2];

  count_sizes ("[j]\nrw=randread\nnorandommap\nbssplit=4k/10:64k/90\n",
               UINT64_C (1) << 40, n, s1, 2, c, 4 * KiB);
  ck_assert_frac (c[0], n, 0.10);
  count_sizes ("[j]\nrw=randread\nnorandommap\nbssplit=4k/50:8k/30\n",
               UINT64_C (1) << 40, n, s2, 2, c, 4 * KiB);
  ck_assert_frac (c[0], n, 0.70);
}
END_TEST

/* bsrange as fio's get_next_buflen draws it: MIN + a uniform fraction
 * of MAX, rounded down to a multiple of MIN, capped at MAX.  4k-16k:
 * 4k + [0, 16k) is [4k, 20k), so 4k, 8k, 12k and 16k (with [16k, 20k))
 * have a quarter each.  3k-8k: [3k, 11k) gives 3k for [3k, 6k), 6k for
 * [6k, 9k) and 9k, capped to 8k, for [9k, 11k): 3/8, 3/8 and 2/8.
 * Mutants killed: no rounding to MIN (other sizes appear), MAX
 * excluded, a plain uniform draw over MIN..MAX (3k-8k would give 6k at
 * 1/2 of the multiples' draws, not 3/8), the cap missing (9k appears).
 */
START_TEST (bsrange_frequencies)
{
  static const uint64_t s1[] = { 4 * KiB, 8 * KiB, 12 * KiB, 16 * KiB };
  static const uint64_t s2[] = { 3 * KiB, 6 * KiB, 8 * KiB };
  const unsigned n = 100000;
  unsigned c[4], i;

  count_sizes ("[j]\nrw=randread\nnorandommap\nbsrange=4k-16k\n",
               UINT64_C (1) << 40, n, s1, 4, c, 4 * KiB);
  for (i = 0; i < 4; ++i)
    ck_assert_frac (c[i], n, 0.25);
  count_sizes ("[j]\nrw=randread\nnorandommap\nbsrange=3k-8k\n",
               UINT64_C (1) << 40, n, s2, 3, c, 3 * KiB);
  ck_assert_frac (c[0], n, 0.375);
  ck_assert_frac (c[1], n, 0.375);
  ck_assert_frac (c[2], n, 0.25);
}
END_TEST

/* bs=4k,64k with rw=randrw: reads are 4k at multiples of 4k, writes
 * 64k at multiples of 64k (fio's ba defaults to each direction's
 * block size).  Mutant killed: one size or one alignment for both.
 */
START_TEST (bs_read_write_offsets)
{
  struct raidsim_jobfile *jf = load_text ("[j]\nrw=randrw\nbs=4k,64k\n");
  struct raidsim_region r = { .start = 0, .len = 64 * MiB,
    .room = 64 * MiB, .bytes = UINT64_MAX };
  struct raidsim_worker w;
  struct raidsim_hostreq req;
  unsigned i, n[2] = { 0, 0 };

  raidsim_worker_init_region (&w, &jf->jobs[0], &r, 1, 0, 0);
  for (i = 0; i < 2000; ++i) {
    ck_assert (raidsim_worker_next (&w, 0, &req));
    n[req.dir]++;
    ck_assert_uint_eq (req.len, req.dir == RAIDSIM_READ ? 4 * KiB : 64 * KiB);
    ck_assert_uint_eq (req.offset % req.len, 0);
  }
  ck_assert_uint_gt (n[0], 0);
  ck_assert_uint_gt (n[1], 0);
  raidsim_jobfile_free (jf);
}
END_TEST

/* A sequential job of several sizes tiles its region: each I/O starts
 * where the last ended, none crosses the region's end, and the job
 * stops once it has done size bytes, so a 1 MiB job of 4k and 64k
 * blocks does exactly 1 MiB.  Mutants killed: the position moved by
 * the smallest size instead of the I/O's, sizes not fitted to the
 * region's end, the job stopped by I/O count.
 */
START_TEST (sequential_sizes_tile_the_region)
{
  struct raidsim_jobfile *jf;
  struct raidsim_region r = { .start = 8 * MiB, .len = MiB,
    .room = 64 * MiB, .bytes = MiB };
  struct raidsim_worker w;
  struct raidsim_hostreq req;
  uint64_t pos = 8 * MiB;
  unsigned n = 0;

  jf = load_text ("[j]\nrw=read\nbssplit=4k/50:64k/50\n");
  raidsim_worker_init_region (&w, &jf->jobs[0], &r, 7, 0, 0);
  while (raidsim_worker_next (&w, 0, &req)) {
    ck_assert_uint_eq (req.offset, pos);
    pos += req.len;
    ck_assert_uint_le (pos, 9 * MiB);
    n++;
  }
  ck_assert_uint_eq (pos, 9 * MiB);
  ck_assert_uint_gt (n, 16);
  ck_assert_uint_lt (n, 256);
  raidsim_jobfile_free (jf);
}
END_TEST

/* Whole runs, counted by hand: a 1 MiB job of bs=4k,64k does 256 reads
 * of 4k when it reads, and 16 writes of 64k when it writes.  Mutant
 * killed: the writes' size ignored (256 writes).
 */
START_TEST (bs_read_write_runs)
{
  const char *array = SRCDIR "/configs/arrays/raid0-2x-fixed.ini";
  struct sim_test_run r;
  const char *p;

  p = sim_test_file ("rw.fio", "[r]\nrw=read\nbs=4k,64k\nsize=1m\n"
                     "[w]\nrw=write\nbs=4k,64k\nsize=1m\n"
                     "[s]\nrw=randread\nbssplit=4k/50:64k/50\nsize=1m\n");
  sim_test_run (&r, array, p, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].ios, 256);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].bytes, MiB);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->dir[RAIDSIM_WRITE].ios, 16);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->dir[RAIDSIM_WRITE].bytes,
                     MiB);
  /* A random job of several sizes stops at size bytes or more. */
  ck_assert_uint_ge (raidsim_sim_job (r.s, 2)->dir[RAIDSIM_READ].bytes, MiB);
  ck_assert_uint_lt (raidsim_sim_job (r.s, 2)->dir[RAIDSIM_READ].bytes,
                     MiB + 64 * KiB);
  sim_test_done (&r);
}
END_TEST

/* ---- regions: percentages, numjobs and offset_increment ---- */

/* The region of thread t of the first job of text on an array of
 * array_size bytes.
 */
static struct raidsim_region
region_of (const char *text, uint64_t array_size, unsigned t)
{
  struct raidsim_jobfile *jf = load_text (text);
  struct raidsim_region r;

  ck_assert_msg (raidsim_job_thread_region (jf, &jf->jobs[0], array_size,
                                            t, &r) == 0,
                 "%s", raidsim_error ());
  raidsim_jobfile_free (jf);
  return r;
}

/* size and offset in percent, as fio's setup_files and
 * get_start_offset work them out, on an array of 1000000 bytes with
 * bs=4k: size=50% is 500000 rounded down to a multiple of 4096, 122 x
 * 4096 = 499712; offset=33% is 330000 rounded up, 81 x 4096 = 331776;
 * size=90% from there is capped at the 668224 bytes left, rounded down
 * to 163 x 4096 = 667648.  offset_align=1000 rounds 330000 up to
 * itself.  Mutants killed: offsets rounded down or not at all, sizes
 * not rounded, the cap missing (the job refused), a percentage of the
 * room after the offset instead of the array.
 */
START_TEST (percent_size_and_offset)
{
  struct raidsim_region r;

  r = region_of ("[j]\nsize=50%\n", 1000000, 0);
  ck_assert_uint_eq (r.start, 0);
  ck_assert_uint_eq (r.len, 499712);
  r = region_of ("[j]\noffset=33%\nsize=50%\n", 1000000, 0);
  ck_assert_uint_eq (r.start, 331776);
  ck_assert_uint_eq (r.len, 499712);
  r = region_of ("[j]\noffset=33%\nsize=90%\n", 1000000, 0);
  ck_assert_uint_eq (r.len, 667648);
  r = region_of ("[j]\noffset=33%\noffset_align=1000\n", 1000000, 0);
  ck_assert_uint_eq (r.start, 330000);
  ck_assert_uint_eq (r.len, 670000);
  /* A plain offset is not rounded. */
  r = region_of ("[j]\noffset=1000\nsize=8k\n", 1000000, 0);
  ck_assert_uint_eq (r.start, 1000);
  expect_refusal ("[j]\nsize=101%\n", 2, "size: 101% is more than 100%");
  expect_refusal ("[j]\nbs=10%\n", 2, "bs: '10%': fio takes a percentage "
                  "for size, io_size, offset and offset_increment only");
}
END_TEST

/* Thread i of a numjobs job starts at offset + i x offset_increment
 * (fio's get_start_offset), each with its own region of size.  In
 * percent the increment is 250000 bytes of 1000000 and each start is
 * rounded up to 4096 on its own: 253952, 503808 (123 x 4096, not 2 x
 * 253952 = 507904), 753664.  Mutants killed: the increment ignored,
 * applied once, rounded before it is multiplied.
 */
START_TEST (offset_increment_per_thread)
{
  static const uint64_t want[] = { 0, 253952, 503808, 753664 };
  struct raidsim_region r;
  unsigned t;

  for (t = 0; t < 4; ++t) {
    r = region_of ("[j]\nnumjobs=4\noffset=1m\noffset_increment=10m\n"
                   "size=1m\n", UINT64_C (1) << 30, t);
    ck_assert_uint_eq (r.start, MiB + t * 10 * MiB);
    ck_assert_uint_eq (r.len, MiB);
  }
  for (t = 0; t < 4; ++t) {
    r = region_of ("[j]\nnumjobs=4\noffset_increment=25%\nsize=64k\n",
                   1000000, t);
    ck_assert_uint_eq (r.start, want[t]);
  }
  {
    const char *p = sim_test_file ("j.fio", "[j]\nnumjobs=3\n"
                                   "offset_increment=600k\n");
    struct raidsim_jobfile *jf = raidsim_jobfile_load (p);
    struct raidsim_region rr;
    char msg[1024];

    ck_assert_int_eq (raidsim_job_thread_region (jf, &jf->jobs[0], MiB, 2,
                                                 &rr), -1);
    snprintf (msg, sizeof msg, "%s:3: offset_increment: thread 2 of 3 would "
              "start at 1228800, not inside the array (1048576 bytes)", p);
    ck_assert_str_eq (raidsim_error (), msg);
    raidsim_jobfile_free (jf);
  }
}
END_TEST

/* A whole run on RAID 0 over two drives with 128 KiB chunks: two
 * threads writing 128 KiB each, offset_increment=128k apart, write
 * chunk 0 (member 0) and chunk 1 (member 1), two 64k writes each.
 * Mutant killed: the increment ignored by the simulator (all four
 * writes on member 0).
 */
START_TEST (offset_increment_runs)
{
  const char *array = SRCDIR "/configs/arrays/raid0-2x-fixed.ini";
  struct sim_test_run r;
  const char *p;

  p = sim_test_file ("inc.fio", "[w]\nrw=write\nbs=64k\nsize=128k\n"
                     "numjobs=2\noffset_increment=128k\n");
  sim_test_run (&r, array, p, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_WRITE].ios, 4);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_WRITE], 2);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 1)->ios[RAIDSIM_WRITE], 2);
  sim_test_done (&r);
}
END_TEST

/* Requests of the first job of text over its thread 0 region on an
 * array of array_size bytes, until it stops (at most max).
 */
static unsigned
drain (const char *text, uint64_t array_size, struct raidsim_hostreq *reqs,
       unsigned max)
{
  struct raidsim_jobfile *jf = load_text (text);
  struct raidsim_region r;
  struct raidsim_worker w;
  unsigned n = 0;

  ck_assert_int_eq (raidsim_job_thread_region (jf, &jf->jobs[0], array_size,
                                               0, &r), 0);
  raidsim_worker_init_region (&w, &jf->jobs[0], &r, 1, 0, 0);
  while (n < max && raidsim_worker_next (&w, 0, &reqs[n]))
    n++;
  raidsim_jobfile_free (jf);
  return n;
}

/* io_size=3m over size=1m of 64k blocks: 48 I/Os, the region three
 * times over from its start; io_size=50%: 8.  Mutant killed: io_size
 * ignored (16 I/Os).
 */
START_TEST (io_size_goes_over_again)
{
  static struct raidsim_hostreq q[200];
  unsigned n, i;

  n = drain ("[j]\nrw=read\nbs=64k\nsize=1m\nio_size=3m\n", MiB * 64, q,
             200);
  ck_assert_uint_eq (n, 48);
  for (i = 0; i < n; ++i)
    ck_assert_uint_eq (q[i].offset, (i % 16) * 64 * KiB);
  n = drain ("[j]\nrw=read\nbs=64k\nsize=1m\nio_limit=50%\n", MiB * 64,
             q, 200);
  ck_assert_uint_eq (n, 8);
  /* Several sizes: bytes, not I/Os, and over the region again,
   * sequentially and randomly.
   */
  n = drain ("[j]\nrw=read\nbssplit=4k/50:64k/50\nsize=1m\nio_size=2m\n",
             MiB * 64, q, 200);
  {
    uint64_t bytes = 0;

    for (i = 0; i < n; ++i)
      bytes += q[i].len;
    ck_assert_uint_eq (bytes, 2 * MiB);
  }
  n = drain ("[j]\nrw=randread\nbsrange=64k-128k\nsize=1m\nio_size=4m\n",
             MiB * 64, q, 200);
  {
    uint64_t bytes = 0;

    for (i = 0; i < n; ++i)
      bytes += q[i].len;
    ck_assert_uint_ge (bytes, 4 * MiB);
  }
}
END_TEST

/* loops=3 of a random job over 16 blocks: 48 I/Os, each pass of 16
 * visiting every block once, in a new order each time; of a sequential
 * mixed job, each pass starts again at the region's start.  Mutants
 * killed: loops ignored (16), passes that repeat one order, positions
 * not reset between passes, number_ios not multiplied by loops.
 */
START_TEST (loops_make_passes)
{
  static struct raidsim_hostreq q[200];
  unsigned n, i, pass;
  bool same = true;

  n = drain ("[j]\nrw=randread\nbs=64k\nsize=1m\nloops=3\n", MiB * 64, q,
             200);
  ck_assert_uint_eq (n, 48);
  for (pass = 0; pass < 3; ++pass) {
    bool seen[16] = { false };

    for (i = 0; i < 16; ++i) {
      unsigned b = q[pass * 16 + i].offset / (64 * KiB);

      ck_assert_uint_lt (b, 16);
      ck_assert (!seen[b]);
      seen[b] = true;
      if (pass > 0 && q[pass * 16 + i].offset != q[i].offset)
        same = false;
    }
  }
  ck_assert (!same);
  n = drain ("[j]\nrw=rw\nbs=64k\nsize=1m\nloops=2\n", MiB * 64, q, 200);
  ck_assert_uint_eq (n, 32);
  ck_assert_uint_eq (q[16].offset, 0);
  /* number_ios counts over all passes (fio's exceeds_number_ios takes
   * number_ios x loops): 4 x 3 = 12 reads, the first 12 blocks.
   */
  n = drain ("[j]\nrw=read\nbs=64k\nsize=1m\nloops=3\nnumber_ios=4\n",
             MiB * 64, q, 200);
  ck_assert_uint_eq (n, 12);
  for (i = 0; i < n; ++i)
    ck_assert_uint_eq (q[i].offset, i * 64 * KiB);
  /* Each pass starts with a full map, as fio resets it: a pass of 8
   * I/Os (io_size) over 16 blocks does not go on with the blocks the
   * first left.  Two fresh passes share no block with probability
   * 1/C(16, 8) = 1/12870.
   */
  n = drain ("[j]\nrw=randread\nbs=64k\nsize=1m\nio_size=512k\nloops=2\n",
             MiB * 64, q, 200);
  ck_assert_uint_eq (n, 16);
  {
    bool seen[16] = { false }, repeat = false;

    for (i = 0; i < 16; ++i) {
      unsigned b = q[i].offset / (64 * KiB);

      repeat |= seen[b];
      seen[b] = true;
    }
    ck_assert (repeat);
  }
}
END_TEST

/* ---- pacing: rate, rate_iops, thinktime, startdelay ---- */

#define US RAIDSIM_NS_PER_US
#define MS RAIDSIM_NS_PER_MS

/* One drive that serves every request in exactly 100 us, 4 at once,
 * behind a controller with no cost and no links: an I/O's latency is
 * 100 us as long as at most 4 (fixed_parallelism) are in flight.
 */
static unsigned fixed_parallelism = 4;

static const char *
fixed_array (void)
{
  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 1G\n"
                 "latency = 100us\nparallelism = %u\n", fixed_parallelism);
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
  return sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                        "device = d.ini\ncontroller = c.ini\n");
}

/* Run text on fixed_array; the result of job i. */
static const struct raidsim_job_result *
run_job (struct sim_test_run *r, const char *text, unsigned i)
{
  const char *a = fixed_array ();
  const char *p = sim_test_file ("pace.fio", "%s", text);

  sim_test_run (r, a, p, 1);
  return raidsim_sim_job (r->s, i);
}

/* rate_iops=1000 with io_submit_mode=offload: I/O k is issued at k ms
 * whatever is in flight, and takes 100 us, so 100 I/Os take 99.1 ms
 * from the first issue to the last completion, each with a latency of
 * 100 us.  rate=4m with bs=64k is 64 I/Os per second, one every
 * 15.625 ms: 10 take 9 x 15.625 + 0.1 = 140.725 ms.  Mutants killed:
 * the rate ignored (100 I/Os at iodepth 32 take 2.5 ms), rate in bits
 * or in I/Os, rate_iops of 4k blocks taken for 64k.
 */
START_TEST (rate_schedule)
{
  struct sim_test_run r;
  const struct raidsim_job_result *res;

  res = run_job (&r, "[j]\nrw=randread\niodepth=32\nrate_iops=1000\n"
                 "io_submit_mode=offload\nnumber_ios=100\nsize=64m\n", 0);
  ck_assert_uint_eq (res->end - res->start, 99 * MS + 100 * US);
  ck_assert_uint_eq (res->dir[RAIDSIM_READ].ios, 100);
  ck_assert_uint_eq (raid_hist_max (&res->dir[RAIDSIM_READ].lat),
                     100 * US);
  sim_test_done (&r);

  res = run_job (&r, "[j]\nrw=read\nbs=64k\nrate=4m\nnumber_ios=10\n"
                 "size=64m\n", 0);
  ck_assert_uint_eq (res->end - res->start, 140725 * US);
  sim_test_done (&r);

  /* rate_iops counts the job's own block size: 1000 x 64k. */
  res = run_job (&r, "[j]\nrw=read\nbs=64k\nrate_iops=1000\n"
                 "number_ios=10\nsize=64m\n", 0);
  ck_assert_uint_eq (res->end - res->start, 9 * MS + 100 * US);
  sim_test_done (&r);
}
END_TEST

/* fio's default io_submit_mode=inline: a thread ahead of its schedule
 * first lets its I/O in flight complete, then waits the time it was
 * ahead (rate_ddir computes the wait before io_u_quiesce).  At iodepth
 * 2 and rate_iops=1000: I/O 0 at 0; at once the thread is 1 ms ahead,
 * drains until 0.1 ms and waits 1 ms more, so I/O 1 goes at 1.1 ms,
 * I/O 2 at 2.1 ms (0.9 ms ahead at 1.1, drained at 1.2), ...: 100 I/Os
 * end at 99.1 + 0.1 = 99.2 ms.  Mutants killed: no drain (99.1 ms),
 * waiting for the schedule after the drain instead of the gap (99.1).
 */
START_TEST (rate_inline_drains)
{
  struct sim_test_run r;
  const struct raidsim_job_result *res;

  res = run_job (&r, "[j]\nrw=randread\niodepth=2\nrate_iops=1000\n"
                 "number_ios=100\nsize=64m\n", 0);
  ck_assert_uint_eq (res->end - res->start, 99 * MS + 200 * US);
  sim_test_done (&r);
}
END_TEST

/* rate_process=poisson, as fio's usec_for_io: gaps of (1000000 /
 * iops) x -ln U microseconds, so at rate_iops=1000 exponential with
 * mean 1 ms: over 20000 gaps the mean is 1 ms within 5 standard errors
 * (5 x 1 ms / sqrt (20000) = 35 us), and P(gap < 1 ms) = 1 - 1/e =
 * 0.632.  Mutants killed: the linear schedule (every gap 1 ms), a mean
 * of 1 / rate in the wrong unit.
 */
START_TEST (rate_poisson_gaps)
{
  struct raidsim_jobfile *jf;
  struct raidsim_region reg;
  struct raidsim_worker w;
  struct raidsim_hostreq req;
  const unsigned n = 20000;
  raidsim_ns now = 0, last = 0;
  double sum = 0;
  unsigned i, below = 0;

  jf = load_text ("[j]\nrw=randread\nnorandommap\nrate_iops=1000\n"
                  "time_based\nruntime=1h\n"
                  "rate_process=poisson\nio_submit_mode=offload\n"
                  "number_ios=100000\n");
  ck_assert_int_eq (raidsim_job_thread_region (jf, &jf->jobs[0], 64 * MiB,
                                               0, &reg), 0);
  raidsim_worker_init_region (&w, &jf->jobs[0], &reg, 1, 0, 0);
  for (i = 0; i <= n; ++i) {
    now = raidsim_worker_ready (&w, now, 0);
    ck_assert_uint_ne (now, RAIDSIM_NEVER);
    ck_assert_uint_eq (raidsim_worker_ready (&w, now, 0), now);
    ck_assert (raidsim_worker_next (&w, now, &req));
    if (i > 0) {
      sum += now - last;
      below += now - last < MS;
    }
    last = now;
  }
  ck_assert_double_eq_tol (sum / n, 1e6, 5 * 1e6 / sqrt (n));
  ck_assert_frac (below, n, 1 - exp (-1));
  raidsim_jobfile_free (jf);
}
END_TEST

/* thinktime=900 (microseconds without a unit, as in fio) at iodepth 1:
 * each I/O takes 100 us and is followed by 900 us, so 100 I/Os end at
 * 99 ms + 100 us.  With thinktime_blocks=4, 25 groups of 4 I/Os (400
 * us) and 900 us between them: 24 x 1.3 + 0.4 = 31.6 ms.  At iodepth 4
 * with thinktime=1ms and thinktime_blocks=4 the thread issues 4, waits
 * for all 4 (100 us), then 1 ms: 24 x 1.1 + 0.1 = 26.5 ms; on a drive
 * that serves 2 at once the 4 take 200 us: 24 x 1.2 + 0.2 = 29 ms.
 * Mutants killed: thinktime in seconds, thinktime ignored,
 * thinktime_blocks ignored, the think started at the first completion
 * instead of the last (26.6 ms on the second drive).
 */
START_TEST (thinktime_waits)
{
  struct sim_test_run r;
  const struct raidsim_job_result *res;

  res = run_job (&r, "[j]\nrw=randread\nthinktime=900\nnumber_ios=100\n"
                 "size=64m\n", 0);
  ck_assert_uint_eq (res->end - res->start, 99 * MS + 100 * US);
  sim_test_done (&r);
  res = run_job (&r, "[j]\nrw=randread\nthinktime=900\n"
                 "thinktime_blocks=4\nnumber_ios=100\nsize=64m\n", 0);
  ck_assert_uint_eq (res->end - res->start, 31600 * US);
  sim_test_done (&r);
  res = run_job (&r, "[j]\nrw=randread\niodepth=4\nthinktime=1ms\n"
                 "thinktime_blocks=4\nnumber_ios=100\nsize=64m\n", 0);
  ck_assert_uint_eq (res->end - res->start, 26500 * US);
  sim_test_done (&r);
  fixed_parallelism = 2;
  res = run_job (&r, "[j]\nrw=randread\niodepth=4\nthinktime=1ms\n"
                 "thinktime_blocks=4\nnumber_ios=100\nsize=64m\n", 0);
  ck_assert_uint_eq (res->end - res->start, 29000 * US);
  sim_test_done (&r);
  fixed_parallelism = 4;
}
END_TEST

/* startdelay=2 starts the job 2 s into the run, and its figures count
 * from there; a second job without it starts at 0.  Mutant killed:
 * startdelay ignored.
 */
START_TEST (startdelay_starts_later)
{
  struct sim_test_run r;
  const struct raidsim_job_result *res;

  res = run_job (&r, "[late]\nrw=read\nstartdelay=2\nnumber_ios=10\n"
                 "size=1m\n[early]\nrw=read\nnumber_ios=10\nsize=1m\n", 0);
  ck_assert_uint_eq (res->start, 2 * RAIDSIM_NS_PER_S);
  ck_assert_uint_eq (res->end, 2 * RAIDSIM_NS_PER_S + 1000 * US);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->start, 0);
  sim_test_done (&r);
}
END_TEST

/* A wait never outlasts runtime: rate_iops=1 and runtime=2500ms issue
 * at 0, 1 and 2 s, and the thread is done at 2.5 s, where the next
 * group starts.  Mutant killed: the wait not capped (the next group at
 * 3 s).
 */
START_TEST (runtime_caps_waits)
{
  struct sim_test_run r;

  run_job (&r, "[slow]\nrw=read\nrate_iops=1\nruntime=2500ms\nsize=1m\n"
           "[next]\nstonewall\nrw=read\nnumber_ios=1\nsize=1m\n", 0);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].ios, 3);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->start,
                     2500 * RAIDSIM_NS_PER_MS);
  sim_test_done (&r);
}
END_TEST

/* ---- random_distribution ---- */

static int
cmp_desc (const void *a, const void *b)
{
  unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;

  return x < y ? 1 : x > y ? -1 : 0;
}

/* Draw n requests of a random job over 4 MiB of 4k blocks (1024: a
 * power of two, so that fio's multiplicative hash maps the ranks one
 * to one onto the blocks) and count them by block.  The counts are
 * left in count[1024]; returns the hottest block.
 */
static unsigned
count_blocks (const char *dist, unsigned n, unsigned *count)
{
  struct raidsim_jobfile *jf;
  struct raidsim_region r;
  struct raidsim_worker w;
  struct raidsim_hostreq req;
  char text[256];
  unsigned i, hot = 0;

  snprintf (text, sizeof text, "[j]\nrw=randread\nsize=4m\n"
            "random_distribution=%s\ntime_based\nruntime=1h\n", dist);
  jf = load_text (text);
  ck_assert_int_eq (raidsim_job_thread_region (jf, &jf->jobs[0], 64 * MiB, 0,
                                               &r), 0);
  raidsim_worker_init_region (&w, &jf->jobs[0], &r, 1, 0, 0);
  memset (count, 0, 1024 * sizeof *count);
  for (i = 0; i < n; ++i) {
    ck_assert (raidsim_worker_next (&w, 0, &req));
    ck_assert_uint_lt (req.offset, 4 * MiB);
    count[req.offset / (4 * KiB)]++;
  }
  for (i = 1; i < 1024; ++i)
    if (count[i] > count[hot])
      hot = i;
  raidsim_jobfile_free (jf);
  return hot;
}

static double
top_share (unsigned *count, unsigned k, unsigned n)
{
  unsigned long sum = 0;
  unsigned i;

  qsort (count, 1024, sizeof *count, cmp_desc);
  for (i = 0; i < k; ++i)
    sum += count[i];
  return (double) sum / n;
}

/* zipf:1.2 over 1024 blocks, as fio's zipf_next: rank 1 with
 * probability 1 / zeta, rank 2 with 2^-1.2 / zeta, where zeta = sum
 * of i^-1.2 for i = 1..1024 = 4.3417, so 0.2303 and 0.1003.  With
 * centre 0 the hottest block is rank 0 hashed, 0; the second is rank
 * 1 hashed: 0x61C8864680B583EB mod 1024 = 0x3EB = 1003.  Centre 0.5
 * moves them by 512.  Mutants killed: theta ignored (the default 1.1
 * gives 1 / 5.03 = 0.199 ... for the top block), no hash (the second
 * hottest block would be 1), the centre ignored.
 */
START_TEST (zipf_as_fio)
{
  static unsigned c[1024];
  const unsigned n = 200000;
  unsigned hot;

  hot = count_blocks ("zipf:1.2:0", n, c);
  ck_assert_uint_eq (hot, 0);
  ck_assert_frac (c[0], n, 0.2303);
  ck_assert_frac (c[1003], n, 0.1003);
  hot = count_blocks ("zipf:1.2:0.5", n, c);
  ck_assert_uint_eq (hot, 512);
  ck_assert_frac (c[(1003 + 512) % 1024], n, 0.1003);
  /* The sorted counts do not depend on where the ranks land. */
  count_blocks ("zipf:1.2", n, c);
  ck_assert_frac ((unsigned) (top_share (c, 1, n) * n), n, 0.2303);
}
END_TEST

/* pareto:0.2, as fio's pareto_next: rank (n - 1) x U^p with p = ln 0.2
 * / ln 0.8 = 7.2126, so P(rank < k) = (k / 1023)^(1/p): the 205
 * hottest of 1024 blocks take (205 / 1023)^0.13865 = 0.8002 of the
 * I/Os, fio's 80/20.  Mutants killed: h read as 1 - h, the exponent
 * inverted, uniform draws.
 */
START_TEST (pareto_as_fio)
{
  static unsigned c[1024];
  const unsigned n = 200000;

  count_blocks ("pareto:0.2", n, c);
  ck_assert_frac ((unsigned) (top_share (c, 205, n) * n), n, 0.8002);
  count_blocks ("pareto:0.1", n, c);
  /* h = 0.1: p = ln 0.1 / ln 0.9 = 21.85; (205 / 1023)^(1/p) = 0.929. */
  ck_assert_frac ((unsigned) (top_share (c, 205, n) * n), n, 0.929);
}
END_TEST

/* normal, as fio's gauss_next with no deviation: the mean of 12
 * uniform draws on 0..1024, standard deviation sqrt ((1025^2 - 1) /
 * 12) / sqrt (12) = 85.4 ranks, centred on rank 512, which the hash
 * sends to 512 x 1003 mod 1024 = 512: that block takes 1 / (85.4 x
 * sqrt (2 pi)) = 0.00467 of the I/Os (0.00461 for the sum of 12
 * uniforms), its neighbours in rank are scattered.  The 171 hottest
 * blocks (ranks 512 +- 85) take about 68% (a normal's 68.3%, the sum
 * of 12 uniforms 67.9%).  normal:20 adds a uniform jitter of 205 blocks, which
 * flattens it: fewer than 60% then.  Mutants killed: one uniform draw
 * instead of 12 (17% in 171 blocks), the jitter ignored.
 */
START_TEST (normal_as_fio)
{
  static unsigned c[1024];
  const unsigned n = 200000;

  count_blocks ("normal", n, c);
  ck_assert_frac (c[512], n, 0.00461);
  ck_assert_double_eq_tol (top_share (c, 171, n), 0.68, 0.01);
  count_blocks ("normal:20", n, c);
  ck_assert_double_lt (top_share (c, 171, n), 0.60);
}
END_TEST

/* Parsing: fio's defaults (zipf 1.1, pareto 0.2), its range checks,
 * and no random map: a distribution draws with replacement, so a job
 * of 16 blocks does 16 I/Os but not every block.  Mutant killed: the
 * random map kept (every block once).
 */
START_TEST (distribution_parsing)
{
  static struct raidsim_hostreq q[64];
  struct raidsim_jobfile *jf;
  bool seen[16] = { false };
  unsigned n, i, distinct = 0;

  jf = load_text ("[a]\nrandom_distribution=zipf\n"
                  "[b]\nrandom_distribution=pareto:0.3:0.25\n");
  ck_assert_int_eq (jf->jobs[0].random_distribution, RAIDSIM_DIST_ZIPF);
  ck_assert_double_eq (jf->jobs[0].dist_param, 1.1);
  ck_assert_double_eq (jf->jobs[0].dist_center, -1);
  ck_assert_double_eq (jf->jobs[1].dist_param, 0.3);
  ck_assert_double_eq (jf->jobs[1].dist_center, 0.25);
  raidsim_jobfile_free (jf);
  expect_refusal ("[a]\nrandom_distribution=zipf:1\n", 2,
                  "random_distribution: 'zipf:1': zipf's theta must be above "
                  "0 and not 1");
  expect_refusal ("[a]\nrandom_distribution=pareto:1.5\n", 2,
                  "random_distribution: 'pareto:1.5': pareto's H must be "
                  "between 0 and 1");
  expect_refusal ("[a]\nrandom_distribution=zoned_abs:50/1g:50/1g\n", 2,
                  "random_distribution=zoned_abs:50/1g:50/1g: refused: fio's "
                  "zoned_abs distribution is timing raidsim does not model "
                  "yet");

  n = drain ("[j]\nrw=randread\nbs=64k\nsize=1m\n"
             "random_distribution=zipf:1.5\n", 64 * MiB, q, 64);
  ck_assert_uint_eq (n, 16);
  for (i = 0; i < n; ++i) {
    unsigned b = q[i].offset / (64 * KiB);

    ck_assert_uint_lt (b, 16);
    distinct += !seen[b];
    seen[b] = true;
  }
  ck_assert_uint_lt (distinct, 16);
}
END_TEST

/* ---- zonemode=strided ---- */

/* fio's setup_strided_zone_mode.  zonesize=64k, zoneskip=192k, bs=64k:
 * one block in each zone of 64k, the next 256k on: offsets k x 256k,
 * 16 of them for size=1m (size counts bytes, not extent).  zonerange=64k
 * with zonesize=128k does each zone twice: 0, 0, 256k, 256k...  On an
 * array of 1 MiB the zones come back to the start after 768k.  Mutants
 * killed: zoneskip ignored (offsets k x 64k), zonerange taken as the
 * step without the skip, no wrap within a zone (0, 64k, 256k...), no
 * wrap at the end of the array.
 */
START_TEST (strided_zones)
{
  static struct raidsim_hostreq q[64];
  unsigned n, i;

  n = drain ("[j]\nrw=read\nbs=64k\nsize=1m\nzonemode=strided\n"
             "zonesize=64k\nzoneskip=192k\n", 64 * MiB, q, 64);
  ck_assert_uint_eq (n, 16);
  for (i = 0; i < n; ++i)
    ck_assert_uint_eq (q[i].offset, i * 256 * KiB);
  n = drain ("[j]\nrw=read\nbs=64k\nsize=512k\nzonemode=strided\n"
             "zonesize=128k\nzonerange=64k\nzoneskip=192k\n", 64 * MiB, q,
             64);
  ck_assert_uint_eq (n, 8);
  for (i = 0; i < n; ++i)
    ck_assert_uint_eq (q[i].offset, (i / 2) * 256 * KiB);
  n = drain ("[j]\nrw=read\nbs=64k\nsize=512k\nzonemode=strided\n"
             "zonesize=64k\nzoneskip=192k\n", MiB, q, 64);
  ck_assert_uint_eq (n, 8);
  for (i = 0; i < n; ++i)
    ck_assert_uint_eq (q[i].offset, (i % 4) * 256 * KiB);
  /* Random: each zone of 4 blocks done once each per 256k. */
  n = drain ("[j]\nrw=randread\nbs=64k\nsize=1m\nzonemode=strided\n"
             "zonesize=256k\nzoneskip=768k\n", 64 * MiB, q, 64);
  ck_assert_uint_eq (n, 16);
  for (i = 0; i < n; i += 4) {
    bool seen[4] = { false };
    unsigned k;

    for (k = 0; k < 4; ++k) {
      uint64_t zone = (i / 4) * MiB, off = q[i + k].offset;

      ck_assert_uint_ge (off, zone);
      ck_assert_uint_lt (off, zone + 256 * KiB);
      ck_assert (!seen[(off - zone) / (64 * KiB)]);
      seen[(off - zone) / (64 * KiB)] = true;
    }
  }
  expect_refusal ("[j]\nzonesize=64k\n", 2, "zonesize: needs "
                  "zonemode=strided (fio: zonemode=none and zonesize are not "
                  "compatible)");
  expect_refusal ("[j]\nzonemode=strided\n", 2,
                  "zonemode: strided needs zonesize");
}
END_TEST

/* ---- fio's rw suffix, blockalign, fill_device, filesize ---- */

/* rw=read:-8k with bs=4k, as fio's get_next_seq_offset: the first read
 * at 0; then 8k back from its end is before the start, so fio wraps to
 * the region's end less 8k, 56k of 64k; then each read 8k back from the
 * last one's end, 4k before it: 56k, 52k, ... 0, 16 reads for size=64k.
 * rw=read:4k: 4k holes, reads at 0, 8k, ... 56k, and the job ends at
 * the region's end, after 8.  Mutants killed: the suffix ignored,
 * holes added to the start instead of the end, no wrap backwards.
 */
START_TEST (rw_suffix_sequential)
{
  static struct raidsim_hostreq q[64];
  unsigned n, i;

  n = drain ("[j]\nrw=read:-8k\nbs=4k\nsize=64k\n", 64 * MiB, q, 64);
  ck_assert_uint_eq (n, 16);
  ck_assert_uint_eq (q[0].offset, 0);
  for (i = 1; i < n; ++i)
    ck_assert_uint_eq (q[i].offset, 56 * KiB - (i - 1) * 4 * KiB);
  n = drain ("[j]\nrw=read:4k\nbs=4k\nsize=64k\n", 64 * MiB, q, 64);
  ck_assert_uint_eq (n, 8);
  for (i = 0; i < n; ++i)
    ck_assert_uint_eq (q[i].offset, i * 8 * KiB);
}
END_TEST

/* rw=randread:4: fio draws a random offset for every 4th I/O only
 * (str_rw_cb's ddir_seq_nr) and reads on from the last one's end in
 * between; the first three follow the region's start.  Mutant killed:
 * the suffix ignored (every offset random).
 */
START_TEST (rw_suffix_random)
{
  static struct raidsim_hostreq q[64];
  unsigned n, i;

  n = drain ("[j]\nrw=randread:4\nbs=4k\nsize=16m\nnumber_ios=40\n",
             64 * MiB, q, 64);
  ck_assert_uint_eq (n, 40);
  ck_assert_uint_eq (q[0].offset, 0);
  for (i = 1; i < n; ++i)
    if ((i + 1) % 4 != 0)
      ck_assert_uint_eq (q[i].offset, q[i - 1].offset + 4 * KiB);
}
END_TEST

/* ba=64k with bs=4k: random offsets are multiples of 64k, so 1m has 16
 * of them and the random map is full after 16 reads (fio's last_block
 * counts blocks of ba).  Mutant killed: ba ignored (256 reads at
 * multiples of 4k).
 */
START_TEST (blockalign)
{
  static struct raidsim_hostreq q[300];
  unsigned n, i;

  n = drain ("[j]\nrw=randread\nbs=4k\nblockalign=64k\nsize=1m\n",
             64 * MiB, q, 300);
  ck_assert_uint_eq (n, 16);
  for (i = 0; i < n; ++i) {
    ck_assert_uint_eq (q[i].offset % (64 * KiB), 0);
    ck_assert_uint_eq (q[i].len, 4 * KiB);
  }
}
END_TEST

/* fill_device=1 runs to the end of the array whatever size says;
 * filesize=1m is a file of 1 MiB: the region ends there, size caps the
 * bytes (256k: 4 reads of 64k), and an offset moves the start inside
 * the file.  Mutants killed: fill_device ignored, filesize ignored
 * (the region to the end of the array), size not applied within the
 * file.
 */
START_TEST (fill_device_and_filesize)
{
  struct raidsim_region r;

  r = region_of ("[j]\nrw=write\nsize=1m\nfill_device=1\n", 64 * MiB, 0);
  ck_assert_uint_eq (r.len, 64 * MiB);
  r = region_of ("[j]\nrw=read\nbs=64k\nfilesize=1m\n", 64 * MiB, 0);
  ck_assert_uint_eq (r.len, MiB);
  ck_assert_uint_eq (r.size_ios, 16);
  r = region_of ("[j]\nrw=read\nbs=64k\nfilesize=1m\nsize=256k\n",
                 64 * MiB, 0);
  ck_assert_uint_eq (r.len, MiB);
  ck_assert_uint_eq (r.size_ios, 4);
  r = region_of ("[j]\nrw=read\nbs=64k\nfilesize=1m\noffset=512k\n",
                 64 * MiB, 0);
  ck_assert_uint_eq (r.start, 512 * KiB);
  ck_assert_uint_eq (r.len, 512 * KiB);
  expect_refusal ("[j]\nfilesize=1k-8k\n", 2, "filesize=1k-8k: refused: "
                  "files of random sizes are several files, and raidsim "
                  "runs each job over one region of the array");
}
END_TEST

/* wait_for=a starts a job when every thread of a is done.  On a drive
 * that serves one request at a time, a's two threads at iodepth 1
 * take turns: thread 0's 10th read ends at 1.9 ms, thread 1's at 2 ms,
 * so b starts at 2 ms and its one read ends at 2.1 ms.  A name that is
 * not a job before, or that two jobs have, is refused, as in fio.
 * Mutants killed: wait_for ignored (b at 0), b started when a's first
 * thread is done (1.9 ms).
 */
START_TEST (wait_for_job)
{
  struct sim_test_run r;

  fixed_parallelism = 1;
  run_job (&r, "[a]\nrw=read\nnumber_ios=10\nsize=1m\nnumjobs=2\n"
           "[b]\nwait_for=a\nrw=read\nnumber_ios=1\nsize=1m\n", 0);
  fixed_parallelism = 4;
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->start, 0);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->end, 2000 * US);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->start, 2000 * US);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 1)->end, 2100 * US);
  /* Issued at 2 ms to an idle drive, not queued behind a's last. */
  ck_assert_uint_eq (raid_hist_max (&raidsim_sim_job (r.s, 1)->dir[0].lat),
                     100 * US);
  sim_test_done (&r);
  expect_refusal ("[a]\nwait_for=b\n[b]\n", 2,
                  "wait_for: 'b' is not the name of a job before this one");
  expect_refusal ("[a]\n[a]\n[b]\nwait_for=a\n", 4,
                  "wait_for: 'a' is not the name of one job only");
}
END_TEST

/* zoned:50/5:30/15:20/, as fio's zone_split_ddir and
 * __get_next_rand_offset_zoned: over 1000 blocks, the first 5% (50
 * blocks) take 50% of the I/Os, the next 15% (150) 30%, and the rest,
 * whose size is missing and so 100 - 20 = 80% (800 blocks), 20%.  A
 * list after a comma is the writes': with zoned:100/10,50/50:50/50
 * every read is in the first 100 blocks.  Mutants killed: the sizes
 * read as access shares, the missing size left 0, the write list used
 * for reads.
 */
START_TEST (zoned_as_fio)
{
  struct raidsim_jobfile *jf;
  struct raidsim_region r;
  struct raidsim_worker w;
  struct raidsim_hostreq req;
  const unsigned n = 100000;
  unsigned i, c[3] = { 0, 0, 0 }, wlow = 0, nw = 0, far = 0;

  jf = load_text ("[j]\nrw=randread\nsize=4096000\ntime_based\n"
                  "runtime=1h\nrandom_distribution=zoned:50/5:30/15:20/\n"
                  "[k]\nrw=randrw\nsize=4096000\ntime_based\nruntime=1h\n"
                  "random_distribution=zoned:100/10,50/50:50/50\n");
  ck_assert_int_eq (raidsim_job_thread_region (jf, &jf->jobs[0], 64 * MiB, 0,
                                               &r), 0);
  raidsim_worker_init_region (&w, &jf->jobs[0], &r, 1, 0, 0);
  for (i = 0; i < n; ++i) {
    uint64_t b;

    ck_assert (raidsim_worker_next (&w, 0, &req));
    b = req.offset / (4 * KiB);
    c[b < 50 ? 0 : b < 200 ? 1 : 2]++;
    far += b >= 600;
  }
  ck_assert_frac (c[0], n, 0.5);
  ck_assert_frac (c[1], n, 0.3);
  ck_assert_frac (c[2], n, 0.2);
  /* Uniform within the last zone: half of it, 400 of 800 blocks. */
  ck_assert_frac (far, n, 0.1);

  ck_assert_int_eq (raidsim_job_thread_region (jf, &jf->jobs[1], 64 * MiB, 0,
                                               &r), 0);
  raidsim_worker_init_region (&w, &jf->jobs[1], &r, 1, 1, 0);
  for (i = 0; i < n; ++i) {
    ck_assert (raidsim_worker_next (&w, 0, &req));
    if (req.dir == RAIDSIM_READ)
      ck_assert_uint_lt (req.offset, 100 * 4 * KiB);
    else {
      nw++;
      wlow += req.offset < 500 * 4 * KiB;
    }
  }
  ck_assert_frac (wlow, nw, 0.5);
  raidsim_jobfile_free (jf);
  expect_refusal ("[j]\nrandom_distribution=zoned:50/5:30/15\n", 2,
                  "random_distribution: the access percentages add up to 80, "
                  "not 100");
}
END_TEST

/* exitall, as fio 3.33's: once any section has it (even exitall=0: its
 * callback sets a global flag whatever the value), each thread that
 * finishes stops the threads its exit_what names.  a does 5 reads of
 * 100 us and finishes at 0.5 ms; b, in a's reporting group, stops
 * then, after 5 or 6 reads instead of 1000; d, after a new_group,
 * goes on.  exit_what=stonewall stops every thread that has started,
 * d too, but not the next stonewall group (e); exit_what=all stops e
 * as well, before it starts.  Mutants killed: exitall ignored,
 * exitall=0 taken as off, the reporting groups ignored, not-started
 * threads stopped by stonewall, or not by all.
 */
START_TEST (exitall_as_fio)
{
  static const char *const what[] = { "group", "stonewall", "all" };
  unsigned k;

  for (k = 0; k < 3; ++k) {
    struct sim_test_run r;
    char text[512];

    snprintf (text, sizeof text,
              "[global]\nrw=read\nsize=1m\nexitall=0\n"
              "[a]\nnumber_ios=5\nexit_what=%s\n"
              "[b]\nnumber_ios=1000\n"
              "[d]\nnew_group\nnumber_ios=50\n"
              "[e]\nstonewall\nnumber_ios=3\n", what[k]);
    run_job (&r, text, 0);
    ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[0].ios, 5);
    ck_assert_uint_le (raidsim_sim_job (r.s, 1)->dir[0].ios, 6);
    if (k == 0)
      ck_assert_uint_eq (raidsim_sim_job (r.s, 2)->dir[0].ios, 50);
    else
      ck_assert_uint_le (raidsim_sim_job (r.s, 2)->dir[0].ios, 6);
    ck_assert_uint_eq (raidsim_sim_job (r.s, 3)->dir[0].ios, k == 2 ? 0 : 3);
    sim_test_done (&r);
  }
}
END_TEST

/* Every job file in tests/data/fio opens with a comment that says how
 * to run it, loads, and runs, each job doing some I/O.
 */
START_TEST (data_files_run)
{
  static const char *const files[] = {
    "as-written", "bare", "sizes", "regions", "paced", "distributions",
  };
  unsigned i, k;

  for (i = 0; i < sizeof files / sizeof files[0]; ++i) {
    char path[512], line[512];
    struct sim_test_run r;
    bool seen_run = false;
    FILE *fp;

    snprintf (path, sizeof path, SRCDIR "/tests/data/fio/%s.fio", files[i]);
    fp = fopen (path, "r");
    ck_assert_msg (fp != NULL, "%s", path);
    while (fgets (line, sizeof line, fp) && line[0] == ';')
      if (strstr (line, "build/raidsim/raidsim "))
        seen_run = true;
    fclose (fp);
    ck_assert_msg (seen_run, "%s: no command in its opening comment", path);
    sim_test_run (&r, SRCDIR "/configs/arrays/raid0-2x-fixed.ini", path, 1);
    for (k = 0; k < raidsim_sim_njobs (r.s); ++k) {
      const struct raidsim_job_result *res = raidsim_sim_job (r.s, k);

      ck_assert_msg (res->dir[0].ios + res->dir[1].ios > 0, "%s: job %s "
                     "did nothing", path, res->job->name);
    }
    sim_test_done (&r);
  }
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
  tcase_add_test (tc, trims_and_fua_load);
  tcase_add_test (tc, reference_doc_is_current);
  tcase_add_test (tc, data_files_run);
  suite_add_tcase (s, tc);
  tc = tcase_create ("block sizes");
  tcase_add_test (tc, bs_read_write);
  tcase_add_test (tc, bssplit_parsing);
  tcase_add_test (tc, bssplit_frequencies);
  tcase_add_test (tc, bsrange_frequencies);
  tcase_add_test (tc, bs_read_write_offsets);
  tcase_add_test (tc, sequential_sizes_tile_the_region);
  tcase_add_test (tc, bs_read_write_runs);
  suite_add_tcase (s, tc);
  tc = tcase_create ("regions");
  tcase_add_test (tc, percent_size_and_offset);
  tcase_add_test (tc, offset_increment_per_thread);
  tcase_add_test (tc, offset_increment_runs);
  tcase_add_test (tc, io_size_goes_over_again);
  tcase_add_test (tc, loops_make_passes);
  suite_add_tcase (s, tc);
  tc = tcase_create ("pacing");
  tcase_add_test (tc, rate_schedule);
  tcase_add_test (tc, rate_inline_drains);
  tcase_add_test (tc, rate_poisson_gaps);
  tcase_add_test (tc, thinktime_waits);
  tcase_add_test (tc, startdelay_starts_later);
  tcase_add_test (tc, runtime_caps_waits);
  suite_add_tcase (s, tc);
  tc = tcase_create ("distributions");
  tcase_add_test (tc, zipf_as_fio);
  tcase_add_test (tc, pareto_as_fio);
  tcase_add_test (tc, normal_as_fio);
  tcase_add_test (tc, distribution_parsing);
  tcase_add_test (tc, zoned_as_fio);
  tcase_add_test (tc, strided_zones);
  suite_add_tcase (s, tc);
  tc = tcase_create ("more");
  tcase_add_test (tc, rw_suffix_sequential);
  tcase_add_test (tc, rw_suffix_random);
  tcase_add_test (tc, blockalign);
  tcase_add_test (tc, fill_device_and_filesize);
  tcase_add_test (tc, wait_for_job);
  tcase_add_test (tc, exitall_as_fio);
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
