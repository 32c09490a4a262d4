/* raidsim: the built-in benchmark presets (see preset.h).
 *
 * Each preset is data: a table of rows, each row one fio-like job (or,
 * for a surface scan, one job repeated at evenly spaced points of the
 * array).  The expander below turns a table into a struct
 * raidsim_jobfile without knowing any preset by name, so adding a
 * benchmark is adding a table.  docs/presets.md gives the definitions
 * and their sources; a unit test checks that the expansion matches it.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/datadir.h"
#include "raidsim/engine.h"
#include "raidsim/error.h"
#include "raidsim/preset.h"

#define KiB (UINT64_C (1) << 10)
#define MiB (UINT64_C (1) << 20)
#define GiB (UINT64_C (1) << 30)
#define SEC RAIDSIM_NS_PER_S
#define MSEC RAIDSIM_NS_PER_MS

/* size = SPAN: the preset's span (its default, or the :SPAN given). */
#define SPAN UINT64_MAX
/* iodepth = QD: the preset's queue depth (its default, or the :qd=N
 * given), for a tool whose queue depth is not documented.
 */
#define QD UINT64_MAX

struct row {
  const char *name;
  int rw;                       /* enum raidsim_rw */
  uint64_t bs;
  uint64_t iodepth;             /* or QD */
  uint64_t size;                /* bytes; SPAN; 0: to the end of the array */
  uint64_t runtime;             /* ns; 0: none */
  uint64_t ramp_time;           /* ns */
  uint64_t number_ios;          /* 0: none */
  bool time_based;
  bool hidden;                  /* run, but not reported */
  unsigned points;              /* > 0: a surface scan of this many jobs */
  bool norandommap;             /* random offsets drawn with replacement */
  uint64_t startdelay;          /* ns of idle before the job starts */
};

struct preset {
  const char *name;
  const char *summary;
  bool takes_span;
  uint64_t span;                /* default; 0: the whole array */
  int summary_kind;             /* enum raidsim_summary */
  const struct row *rows;
  unsigned nrows;
  /* > 0: the rows' QD, and the preset takes :qd=N instead of a span.
   * The tool does not document its queue depth, so the value is ours
   * and the run says so (assumed, below).
   */
  uint64_t qd;
  /* What the preset assumes where its sources are silent, said in
   * every run's output ("preset:SPEC: assumed ..."), after the queue
   * depth if the preset takes one.  NULL: nothing assumed.
   */
  const char *assumed;
};

#define R(x) RAIDSIM_RW_##x

/* CrystalDiskMark 3: after writing its test file, Seq (1 MiB), 512K and
 * 4K random at QD1, 4K random at QD32, each read then write, 5 s each,
 * over the test file.  Sizes in CrystalDiskMark are binary: its
 * "1000MB" file is 1000 MiB.  Its benchmark loop runs every test once
 * unscored ("Preparing...") before the scored passes and reports the
 * best scored pass; the passes are alike once the drives' caches have
 * settled, so the unscored pass is run (hidden) and one scored pass
 * stands for the best of them.  Its random tests draw every offset
 * afresh, (xor128 () % split) x block size (DiskBench.cpp of
 * CrystalDiskMark 2.x, the loop read above), with no
 * map of the blocks already done: norandommap.
 */
#define CDM(name, rw, bs, qd) \
  { name "-prep", R (rw), bs, qd, SPAN, 5 * SEC, 0, 0, true, true, 0, \
    true, 0 }, \
  { name, R (rw), bs, qd, SPAN, 5 * SEC, 0, 0, true, false, 0, true, 0 }
static const struct row cdm3_rows[] = {
  { "prepare", R (WRITE), MiB, 1, SPAN, 0, 0, 0, false, true, 0, false, 0 },
  CDM ("seq-read", READ, MiB, 1),
  CDM ("seq-write", WRITE, MiB, 1),
  CDM ("512k-read", RANDREAD, 512 * KiB, 1),
  CDM ("512k-write", RANDWRITE, 512 * KiB, 1),
  CDM ("4k-read", RANDREAD, 4 * KiB, 1),
  CDM ("4k-write", RANDWRITE, 4 * KiB, 1),
  CDM ("4k-qd32-read", RANDREAD, 4 * KiB, 32),
  CDM ("4k-qd32-write", RANDWRITE, 4 * KiB, 32),
};
#undef CDM
/* A CrystalDiskMark 8 test: its unscored 5 s pass, after the 5 s pause
 * the tool leaves before every test but the first, then the scored
 * pass.
 */
#define CDM(name, rw, bs, qd, pause) \
  { name "-prep", R (rw), bs, qd, SPAN, 5 * SEC, 0, 0, true, true, 0, \
    true, pause }, \
  { name, R (rw), bs, qd, SPAN, 5 * SEC, 0, 0, true, false, 0, true, 0 }

/* CrystalDiskMark 8's default set, as its DiskBench.cpp (8.0.5) runs
 * it: the test file written in 1 MiB blocks, then every read test and
 * every write test, each an unscored 5 s pass ("Preparing...") and the
 * scored passes (one stands for the best of five, as for cdm3), 5 s
 * apart, over a 1 GiB test file.  It runs DiskSpd with -S (no OS
 * cache) and -W0 (no warm-up), whose -r draws each offset afresh
 * (Rand64 () modulo the aligned target size, NextRelativeRandomOffset
 * in its Common/Common.h), with no record of the blocks already done:
 * norandommap, as for cdm3.
 */
static const struct row cdm8_rows[] = {
  { "prepare", R (WRITE), MiB, 1, SPAN, 0, 0, 0, false, true, 0, false, 0 },
  CDM ("SEQ1M-Q8T1-read", READ, MiB, 8, 0),
  CDM ("SEQ1M-Q1T1-read", READ, MiB, 1, 5 * SEC),
  CDM ("RND4K-Q32T1-read", RANDREAD, 4 * KiB, 32, 5 * SEC),
  CDM ("RND4K-Q1T1-read", RANDREAD, 4 * KiB, 1, 5 * SEC),
  CDM ("SEQ1M-Q8T1-write", WRITE, MiB, 8, 5 * SEC),
  CDM ("SEQ1M-Q1T1-write", WRITE, MiB, 1, 5 * SEC),
  CDM ("RND4K-Q32T1-write", RANDWRITE, 4 * KiB, 32, 5 * SEC),
  CDM ("RND4K-Q1T1-write", RANDWRITE, 4 * KiB, 1, 5 * SEC),
};
#undef CDM

/* winsat disk's three throughput tests, in the order `winsat disk`
 * runs them (-ran -read, -seq -read, -seq -write), over the whole
 * disk, 5 s each.  The queue depth is not documented anywhere we could
 * read; published outputs rule out one I/O at a time (an NVMe drive's
 * 3,301 MB/s of 16 KiB random reads is 5 us a read, below even 3D
 * XPoint's 10 us).  QD 16 is our estimate, winsat-disk:qd=N changes it:
 * docs/presets.md has the sources and the arithmetic.
 */
#define WIN(name, rw, bs) \
  { name, R (rw), bs, QD, 0, 5 * SEC, 0, 0, false, false, 0, false, 0 }
static const struct row winsat_rows[] = {
  WIN ("Random 16.0 Read", RANDREAD, 16 * KiB),
  WIN ("Sequential 64.0 Read", READ, 64 * KiB),
  WIN ("Sequential 64.0 Write", WRITE, 64 * KiB),
};
#undef WIN

/* HD Tune: 64 KiB transfers at 100 points spread evenly over the whole
 * surface, 32 MiB read (or written) at each, one at a time; the report
 * gives the minimum, maximum and average of the points' rates.
 */
static const struct row hdtune_read_rows[] = {
  { "read", R (READ), 64 * KiB, 1, 32 * MiB, 0, 0, 0, false, false, 100,
    false, 0 },
};
static const struct row hdtune_write_rows[] = {
  { "write", R (WRITE), 64 * KiB, 1, 32 * MiB, 0, 0, 0, false, false, 100,
    false, 0 },
};

/* The four-corner QD sweep: sequential 128 KiB and random 4 KiB, reads
 * and writes, at QD 1 to 32, one worker.  Each point runs 1 s after
 * 100 ms of ramp, or 100,000 I/Os if that comes first.
 */
#define FC1(name, rw, bs, qd) \
  { name "-qd" #qd, R (rw), bs, qd, SPAN, SEC, 100 * MSEC, 100000, true, \
    false, 0, false, 0 }
#define FC(name, rw, bs) \
  FC1 (name, rw, bs, 1), FC1 (name, rw, bs, 2), FC1 (name, rw, bs, 4), \
  FC1 (name, rw, bs, 8), FC1 (name, rw, bs, 16), FC1 (name, rw, bs, 32)
static const struct row four_corners_rows[] = {
  FC ("seq-read-128k", READ, 128 * KiB),
  FC ("seq-write-128k", WRITE, 128 * KiB),
  FC ("rand-read-4k", RANDREAD, 4 * KiB),
  FC ("rand-write-4k", RANDWRITE, 4 * KiB),
};
#undef FC
#undef FC1
#undef R

#define ROWS(r) r, sizeof r / sizeof r[0]
/* The winsat default: see winsat_rows and docs/presets.md. */
#define WINSAT_QD 16
static const struct preset presets[] = {
  { "cdm3", "CrystalDiskMark 3: Seq 1M, 512K, 4K at QD1 and 4K at QD32, "
    "read and write, 5 s each; span 1000MB, or cdm3:50MB",
    true, 1000 * MiB, RAIDSIM_SUMMARY_NONE, ROWS (cdm3_rows), 0,
    "one scored pass for the best of five, no FlushFileBuffers after a "
    "write pass (docs/presets.md)" },
  { "cdm8", "CrystalDiskMark 8 defaults: SEQ1M Q8T1 and Q1T1, RND4K Q32T1 "
    "and Q1T1, reads then writes, 5 s each after an unscored 5 s pass, 5 s "
    "apart; span 1GiB, or cdm8:SPAN",
    true, GiB, RAIDSIM_SUMMARY_NONE, ROWS (cdm8_rows), 0,
    "one scored pass for the best of five (docs/presets.md)" },
  { "winsat-disk", "winsat disk: Random 16.0 Read, Sequential 64.0 Read, "
    "Sequential 64.0 Write, 5 s each over the whole array at QD 16 "
    "(an estimate), or winsat-disk:qd=N",
    false, 0, RAIDSIM_SUMMARY_NONE, ROWS (winsat_rows), WINSAT_QD,
    "in every test; 5 s per test, the whole array, no latency tests "
    "(docs/presets.md)" },
  { "hdtune-read", "HD Tune read: 64 KiB reads at 100 points over the "
    "whole surface; min, max and average MB/s",
    false, 0, RAIDSIM_SUMMARY_SURFACE, ROWS (hdtune_read_rows), 0, NULL },
  { "hdtune-write", "HD Tune Pro write: as hdtune-read, writing",
    false, 0, RAIDSIM_SUMMARY_SURFACE, ROWS (hdtune_write_rows), 0, NULL },
  { "four-corners", "sequential 128 KiB and random 4 KiB reads and writes "
    "at QD 1, 2, 4, 8, 16, 32, one worker, 1 s each; whole array, or "
    "four-corners:SPAN",
    true, 0, RAIDSIM_SUMMARY_NONE, ROWS (four_corners_rows), 0,
    "1 s per point after 100 ms of ramp, at most 100,000 I/Os "
    "(docs/presets.md)" },
};
#undef ROWS
#undef WINSAT_QD
#define NPRESETS (sizeof presets / sizeof presets[0])

static const struct preset *
find (const char *spec, size_t len)
{
  size_t i;

  for (i = 0; i < NPRESETS; ++i)
    if (strlen (presets[i].name) == len &&
        strncmp (presets[i].name, spec, len) == 0)
      return &presets[i];
  return NULL;
}

bool
raidsim_preset_is (const char *spec)
{
  return find (spec, strcspn (spec, ":")) != NULL;
}

const char *
raidsim_preset_names (void)
{
  static char buf[256];
  size_t i, n = 0;

  if (buf[0] == '\0')
    for (i = 0; i < NPRESETS && n < sizeof buf; ++i)
      n += snprintf (buf + n, sizeof buf - n, "%s%s", i ? ", " : "",
                     presets[i].name);
  return buf;
}

void
raidsim_preset_list (FILE *fp, bool markdown)
{
  size_t i;

  for (i = 0; i < NPRESETS; ++i)
    if (markdown)
      fprintf (fp, "| `%s` | %s |\n", presets[i].name, presets[i].summary);
    else
      fprintf (fp, "  %-13s %s\n", presets[i].name, presets[i].summary);
}

/* A span as CrystalDiskMark writes it: "50MB", "1000MB", "1GiB", "4G";
 * every unit a power of 1024, as CrystalDiskMark means them.
 */
static int
parse_span (const char *s, uint64_t *v)
{
  static const struct { const char *name; uint64_t mult; } units[] = {
    { "", 1 },
    { "K", KiB }, { "KB", KiB }, { "KIB", KiB },
    { "M", MiB }, { "MB", MiB }, { "MIB", MiB },
    { "G", GiB }, { "GB", GiB }, { "GIB", GiB },
    { "T", GiB * KiB }, { "TB", GiB * KiB }, { "TIB", GiB * KiB },
  };
  char unit[8];
  uint64_t n = 0;
  size_t i;

  if (!isdigit ((unsigned char) *s))
    return -1;
  for (; isdigit ((unsigned char) *s); ++s) {
    if (n > (UINT64_MAX - 9) / 10)
      return -1;
    n = n * 10 + (*s - '0');
  }
  if (strlen (s) >= sizeof unit)
    return -1;
  for (i = 0; s[i]; ++i)
    unit[i] = toupper ((unsigned char) s[i]);
  unit[i] = '\0';
  for (i = 0; i < sizeof units / sizeof units[0]; ++i)
    if (strcmp (unit, units[i].name) == 0) {
      if (n > UINT64_MAX / units[i].mult || n == 0)
        return -1;
      *v = n * units[i].mult;
      return 0;
    }
  return -1;
}

/* "qd=N": N a whole number in iodepth's range (fio's table). */
static int
parse_qd (const char *s, uint64_t *v)
{
  const struct raidsim_param *p = &raidsim_fio_params[RAIDSIM_FIO_IODEPTH];
  uint64_t n = 0;

  if (strncmp (s, "qd=", 3) != 0)
    return -1;
  s += 3;
  if (!isdigit ((unsigned char) *s))
    return -1;
  for (; isdigit ((unsigned char) *s); ++s) {
    n = n * 10 + (*s - '0');
    if (n > p->max)
      return -1;
  }
  if (*s || n < p->min)
    return -1;
  *v = n;
  return 0;
}

static unsigned
row_jobs (const struct row *r)
{
  return r->points ? r->points : 1;
}

/* Fill job j from row r.  The options a row sets are marked as set
 * (opt_line), so that reports and the job-file writer show them.
 */
static void
fill_job (struct raidsim_job *j, const struct row *r, unsigned line,
          uint64_t size, uint64_t offset, bool stonewall)
{
  raidsim_params_defaults (raidsim_fio_params, j);
  j->line = line;
#define SET(opt, field, value) \
  do { j->field = (value); j->opt_line[RAIDSIM_FIO_##opt] = line; } while (0)
  SET (RW, rw, r->rw);
  SET (BS, bs, r->bs);
  SET (IODEPTH, iodepth, r->iodepth);
  if (size)
    SET (SIZE, size, size);
  if (offset)
    SET (OFFSET, offset, offset);
  if (r->runtime)
    SET (RUNTIME, runtime, r->runtime);
  if (r->ramp_time)
    SET (RAMP_TIME, ramp_time, r->ramp_time);
  if (r->number_ios)
    SET (NUMBER_IOS, number_ios, r->number_ios);
  if (r->time_based)
    SET (TIME_BASED, time_based, true);
  if (stonewall)
    SET (STONEWALL, stonewall, true);
  if (r->norandommap && raidsim_rw_is_random (r->rw))
    SET (NORANDOMMAP, norandommap, true);
  if (r->startdelay)
    SET (STARTDELAY, startdelay, r->startdelay);
#undef SET
  j->hidden = r->hidden;
}

struct raidsim_jobfile *
raidsim_preset_expand (const char *spec, uint64_t array_size)
{
  size_t namelen = strcspn (spec, ":");
  const struct preset *p = find (spec, namelen);
  const char *arg = spec[namelen] == ':' ? spec + namelen + 1 : NULL;
  struct raidsim_jobfile *jf;
  uint64_t span, qd;
  unsigned i, k, n = 0;

  if (p == NULL) {
    raidsim_set_error ("preset: '%.*s' is not a preset; the presets are %s",
                       (int) namelen, spec, raidsim_preset_names ());
    return NULL;
  }
  span = p->span;
  qd = p->qd;
  if (arg && p->qd) {
    const struct raidsim_param *d = &raidsim_fio_params[RAIDSIM_FIO_IODEPTH];

    if (parse_qd (arg, &qd) == -1) {
      raidsim_set_error ("%s: '%s' is not qd=N, a queue depth from %" PRIu64
                         " to %" PRIu64 " (the default is %" PRIu64 ")",
                         spec, arg, d->min, d->max, p->qd);
      return NULL;
    }
  }
  else if (arg && !p->takes_span) {
    raidsim_set_error ("%s: %s takes no argument", spec, p->name);
    return NULL;
  }
  else if (arg && strcmp (arg, "full") == 0)
    span = 0;
  else if (arg && parse_span (arg, &span) == -1) {
    raidsim_set_error ("%s: '%s' is not a span: a whole number and K, M, G "
                       "or T (KB, MB... and KiB, MiB... alike: all powers of "
                       "1024, as CrystalDiskMark means them), or full",
                       spec, arg);
    return NULL;
  }
  if (span > array_size) {
    raidsim_set_error ("%s: span of %" PRIu64 " bytes is larger than the "
                       "array (%" PRIu64 " bytes)", spec, span, array_size);
    return NULL;
  }

  for (i = 0; i < p->nrows; ++i)
    n += row_jobs (&p->rows[i]);
  jf = calloc (1, sizeof *jf);
  if (jf == NULL || (jf->jobs = calloc (n, sizeof *jf->jobs)) == NULL) {
    free (jf);
    raidsim_set_error ("%s: %s", spec, strerror (ENOMEM));
    return NULL;
  }
  /* Errors about a job name it as "preset:SPEC:N", N its row. */
  snprintf (jf->path, sizeof jf->path, "preset:%s", spec);
  jf->summary = p->summary_kind;
  if (p->assumed) {
    char depth[96] = "";

    if (p->qd)
      snprintf (depth, sizeof depth, "queue depth %" PRIu64 " (%s) ", qd,
                arg ? "given" : "the default: an estimate, the tool's own "
                "is not documented");
    if (asprintf (&jf->assumed, "%s%s", depth, p->assumed) == -1) {
      jf->assumed = NULL;
      raidsim_jobfile_free (jf);
      raidsim_set_error ("%s: %s", spec, strerror (ENOMEM));
      return NULL;
    }
  }

  for (i = 0; i < p->nrows; ++i) {
    const struct row *r = &p->rows[i];
    uint64_t size = r->size == SPAN ? span : r->size;
    struct row qr = *r;

    /* The rows are const; the queue depth is this expansion's. */
    if (r->iodepth == QD) {
      qr.iodepth = qd;
      r = &qr;
    }

    if (r->points == 0) {
      struct raidsim_job *j = &jf->jobs[jf->njobs];

      fill_job (j, r, i + 1, size, 0, jf->njobs > 0);
      snprintf (j->name, sizeof j->name, "%s", r->name);
      jf->njobs++;
      continue;
    }
    /* A surface scan: sample points from the start to the end of the
     * array, each aligned to the block size.
     */
    if (size > array_size) {
      raidsim_set_error ("%s: the array (%" PRIu64 " bytes) is smaller than "
                         "one sample of %" PRIu64 " bytes", spec, array_size,
                         size);
      raidsim_jobfile_free (jf);
      return NULL;
    }
    for (k = 0; k < r->points; ++k) {
      struct raidsim_job *j = &jf->jobs[jf->njobs];
      uint64_t off = r->points > 1
        ? (array_size - size) / (r->points - 1) * k : 0;

      off -= off % r->bs;
      fill_job (j, r, i + 1, size, off, jf->njobs > 0);
      snprintf (j->name, sizeof j->name, "%s-%03u", r->name, k);
      jf->njobs++;
    }
  }
  raidsim_jobfile_groups (jf);
  return jf;
}

struct raidsim_jobfile *
raidsim_workload_load (const char *spec, uint64_t array_size)
{
  char found[RAIDSIM_STR_MAX];

  if (raidsim_preset_is (spec))
    return raidsim_preset_expand (spec, array_size);
  /* A job file by path, or by name in the data directories' workloads/
   * (datadir.h).  A name found nowhere that could be a mistyped preset
   * ("cdm4", "fourcorners:1G") gets the list of presets too.
   */
  if (raidsim_datadir_find (RAIDSIM_KIND_WORKLOAD, spec, NULL, found,
                            sizeof found) == -1) {
    if (strchr (spec, '.') == NULL) {
      char where[2048];

      snprintf (where, sizeof where, "%s", raidsim_error ());
      raidsim_set_error ("'%s' is neither a fio job file nor a preset; the "
                         "presets are %s; %s", spec, raidsim_preset_names (),
                         where);
    }
    return NULL;
  }
  return raidsim_jobfile_load (found);
}

void
raidsim_jobfile_write (FILE *fp, const struct raidsim_jobfile *jf)
{
  unsigned i, o;

  if (jf->assumed)
    fprintf (fp, "; %s: assumed %s\n", jf->path, jf->assumed);
  for (i = 0; i < jf->njobs; ++i) {
    const struct raidsim_job *j = &jf->jobs[i];

    fprintf (fp, "%s[%s]\n", i ? "\n" : "", j->name);
    if (j->hidden)
      fprintf (fp, "; raidsim runs this job but leaves it out of its "
               "reports\n");
    for (o = 0; o < RAIDSIM_FIO_NOPTS; ++o) {
      const struct raidsim_param *p = &raidsim_fio_params[o];
      char buf[RAIDSIM_STR_MAX + 64];

      if (j->opt_line[o] == 0)
        continue;
      if (p->type == RAIDSIM_PT_BOOL) {
        if (*(const bool *) ((const char *) j + p->offset))
          fprintf (fp, "%s\n", p->name);
        continue;
      }
      raidsim_job_format_opt (j, o, buf, sizeof buf);
      fprintf (fp, "%s=%s\n", p->name, buf);
    }
  }
}
