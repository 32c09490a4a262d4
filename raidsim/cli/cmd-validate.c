/* raidsim validate: the simulator's predictions against published
 * measurements, row by row, as DiskSim's validation suite prints each
 * drive model's error beside the measured figure.
 *
 * The published figures are tests/data/published.csv (a verbatim copy
 * of the reference file; tests/data/README.md explains its columns).
 * Which array and workload reproduce each row is data, not code:
 * configs/validation/published-map.csv names, per row id, an array
 * file, a workload (a preset with its span), the job of that workload
 * whose figure is compared, the figure (IOPS, MB/s, or a surface
 * scan's average), and how far the row is independent of the model:
 *
 *   fitted     the row set a parameter (`fitted` yes, `sets` says which)
 *   informed   the row was looked at while a parameter or a model
 *              feature was chosen, adopted or not (`informed` yes, `why`
 *              cites the sentence that says so)
 *   untouched  neither: the only rows the thresholds count
 *
 * All of these files, and every config file the mapping names, are
 * compiled into the program (builtin.h, made by embed-files.py from the
 * mapping) and read from memory, so the command runs from any
 * directory, installed or in the build tree, and the meson test needs
 * no paths.  --csv reads another copy of the published figures, --map
 * another mapping (whose arrays must still be built in).
 *
 * Each (array, workload) pair is simulated once per seed, whole: a
 * CrystalDiskMark row is one test of a full cdm3 run, so the drives
 * carry their state (caches, flash wear) from test to test as under
 * the real tool.  A row's prediction is the mean over the seeds
 * --seed, --seed + 1, ..., --seed + N - 1 (N = --seeds, default 5), with
 * the 95% interval of that mean (raidsim/report/stats.c: Student t over
 * the N figures); a row whose interval straddles a limit is flagged.
 *
 * The thresholds (issue 5, applied by issue 16 to untouched rows only):
 * median absolute relative error <= 15% and worst <= 40%; and the VROC
 * shape rules (shape_check below).  --require chooses which must hold
 * for exit status 0.
 *
 * Run:
 *   build/raidsim/raidsim validate
 *   build/raidsim/raidsim validate --case optane-900p-vroc --format csv
 *   build/raidsim/raidsim validate --seed 1 --seeds 1     (one seed, fast)
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/config.h"
#include "raidsim/csv.h"
#include "raidsim/error.h"
#include "raidsim/preset.h"
#include "raidsim/report.h"
#include "raidsim/sim.h"
#include "raidsim/stats.h"
#include "cmd.h"
#include "options.h"
#include "util.h"
#include "builtin.h"

#define CMD PROGRAM_NAME " validate"

#define PUBLISHED_FILE "tests/data/published.csv"
#define MAP_FILE "configs/validation/published-map.csv"

/* The thresholds of issue 5, on untouched rows only (issue 16). */
#define MEDIAN_LIMIT 0.15
#define WORST_LIMIT 0.40

/* Seeds of a row's mean when --seeds is not given. */
#define DEFAULT_SEEDS 5

#define MAX_ROWS 256
#define MAX_SIMS 64
#define FIELD_MAX 256

enum metric { METRIC_IOPS, METRIC_MBPS, METRIC_SURFACE_AVG };

/* How far a row is independent of the model: the three sets. */
enum use { USE_FITTED, USE_INFORMED, USE_UNTOUCHED, NUSES };
static const char *const use_name[NUSES] = {
  "fitted", "informed", "untouched",
};
#define MASK(u) (1u << (u))
#define ALL_USES (MASK (USE_FITTED) | MASK (USE_INFORMED) \
                  | MASK (USE_UNTOUCHED))
#define HELD_OUT (MASK (USE_INFORMED) | MASK (USE_UNTOUCHED))

/* Which limits a row's interval straddles. */
#define STRADDLES_MEDIAN 1u
#define STRADDLES_WORST 2u

struct row {
  /* From published.csv. */
  char id[FIELD_MAX], casename[FIELD_MAX], unit[FIELD_MAX];
  double published;
  /* From the mapping. */
  char array[PATH_MAX + FIELD_MAX], workload[FIELD_MAX], job[FIELD_MAX];
  int metric;
  bool fitted, informed, mapped;
  enum use use;
  unsigned map_line;
  /* The figure of each seed; their mean, its interval and its error. */
  double pred[RAIDSIM_SEEDS_MAX];
  struct raidsim_interval iv;
  double predicted, err, err_lo, err_hi;
  unsigned straddles;
  bool ran;
};

struct simrun {
  char array[PATH_MAX + FIELD_MAX], workload[FIELD_MAX];
  struct raidsim_array_config *ac;
  struct raidsim_jobfile *jf;
  struct raidsim_sim *s;
};

static struct row rows[MAX_ROWS];
static unsigned nrows;
/* The mapping's name (a path, or MAP_FILE), for errors about a row. */
static char map_name[PATH_MAX];
static struct simrun sims[MAX_SIMS];
static unsigned nsims;

/* The seeds: first, first + 1, ..., first + nseeds - 1. */
static uint64_t first_seed;
static unsigned nseeds;

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s [--csv PATH] [--map PATH] [--format table|csv|json]\n"
           "       %*s [--case NAME] [--require all|shape|none]\n"
           "       %*s [--seed S] [--seeds N]\n"
           "\n"
           "Run every row of the published figures (%s) under its\n"
           "stated conditions, once per seed, and print the mean prediction\n"
           "against the published figure, with the relative error and its\n"
           "95%% interval; then the median and worst absolute error of the\n"
           "fitted, informed and untouched rows, and the VROC shape rules.\n"
           "The row -> array + workload mapping, which also says which rows\n"
           "are fitted and informed, is\n"
           "%s; both files and the configs they\n"
           "name are built into the program.\n"
           "\n"
           "Options:\n"
           "      --csv PATH     read the published figures from PATH\n"
           "      --map PATH     read the row mapping from PATH (its arrays\n"
           "                     must be built in)\n"
           "      --case NAME    only the rows of one case\n"
           "  -f, --format FMT   table (default), csv or json\n"
           "      --require WHAT which checks decide the exit status: all\n"
           "                     (default: thresholds and shape rules),\n"
           "                     shape (only the VROC shape rules), none\n"
           "  -s, --seed S       the first seed (default 1)\n"
           "      --seeds N      how many seeds, S to S + N - 1, a row's\n"
           "                     figure is the mean of (default %d, at most\n"
           "                     %d); --seeds 1 is one run per row\n"
           "  -h, --help         show this help\n"
           "\n"
           "Thresholds, on the untouched rows only: median |error| <= %.0f%%,"
           "\nworst <= %.0f%%.  A row whose 95%% interval straddles a limit is "
           "flagged.\n",
           CMD, (int) strlen (CMD), "", (int) strlen (CMD), "",
           PUBLISHED_FILE, MAP_FILE, DEFAULT_SEEDS, RAIDSIM_SEEDS_MAX,
           MEDIAN_LIMIT * 100, WORST_LIMIT * 100);
}

/* A field into one of a row's buffers: -1 naming the file, the line and
 * the column if it does not fit.
 */
static int
copy_field (char *dst, const struct raidsim_csv *c,
            const struct raidsim_csv_row *row, int col, const char *column)
{
  if (snprintf (dst, FIELD_MAX, "%s", row->field[col]) >= FIELD_MAX) {
    raidsim_set_error ("%s:%u: %s: longer than %d characters",
                       raidsim_csv_name (c), row->line, column,
                       FIELD_MAX - 1);
    return -1;
  }
  return 0;
}

static int
read_published (struct raidsim_csv *c)
{
  static const char *const want[] = { "id", "case", "value", "unit" };
  enum { ID, CASE, VALUE, UNIT, NWANT };
  struct raidsim_csv_row row;
  int col[NWANT], ret;

  if (raidsim_csv_header (c, want, NWANT, col, "a published.csv (id, case, "
                          "value, unit)") == -1)
    return -1;
  while ((ret = raidsim_csv_next (c, &row)) == 1) {
    struct row *r;
    char *end;

    if (nrows == MAX_ROWS) {
      raidsim_set_error ("%s:%u: more than %d rows", raidsim_csv_name (c),
                         row.line, MAX_ROWS);
      return -1;
    }
    r = &rows[nrows++];
    if (copy_field (r->id, c, &row, col[ID], "id") == -1
        || copy_field (r->casename, c, &row, col[CASE], "case") == -1
        || copy_field (r->unit, c, &row, col[UNIT], "unit") == -1)
      return -1;
    r->published = strtod (row.field[col[VALUE]], &end);
    if (*end != '\0' || r->published <= 0) {
      raidsim_set_error ("%s:%u: value: '%s' is not a positive number",
                         raidsim_csv_name (c), row.line,
                         row.field[col[VALUE]]);
      return -1;
    }
  }
  return ret;
}

static struct row *
find_row (const char *id)
{
  unsigned i;

  for (i = 0; i < nrows; ++i)
    if (strcmp (rows[i].id, id) == 0)
      return &rows[i];
  return NULL;
}

/* A yes/no column: 0 with *v set, or -1 naming the file and line. */
static int
yes_no (const struct raidsim_csv *c, const struct raidsim_csv_row *row,
        const char *column, const char *value, bool *v)
{
  if (strcmp (value, "yes") == 0)
    *v = true;
  else if (strcmp (value, "no") == 0)
    *v = false;
  else {
    raidsim_set_error ("%s:%u: %s: '%s' is not yes or no",
                       raidsim_csv_name (c), row->line, column, value);
    return -1;
  }
  return 0;
}

/* The mapping: id,array,workload,job,metric,fitted,sets,informed,why;
 * lines starting with '#' are comments.  Array paths are relative to
 * configs/, and become names of the built-in files.  A fitted row names
 * what it set; an informed row cites why.
 */
static int
read_map (struct raidsim_csv *c)
{
  static const char *const want[] = {
    "id", "array", "workload", "job", "metric", "fitted", "sets",
    "informed", "why",
  };
  enum { ID, ARRAY, WORKLOAD, JOB, METRIC, FITTED, SETS, INFORMED, WHY,
         NWANT };
  struct raidsim_csv_row row;
  int col[NWANT], ret;
  unsigned i;

  snprintf (map_name, sizeof map_name, "%s", raidsim_csv_name (c));
  if (raidsim_csv_header (c, want, NWANT, col, "the row mapping (id, array, "
                          "workload, job, metric, fitted, sets, informed, "
                          "why)") == -1)
    return -1;
  while ((ret = raidsim_csv_next (c, &row)) == 1) {
    const char *metric = row.field[col[METRIC]];
    struct row *r = find_row (row.field[col[ID]]);

    if (r == NULL)
      continue;               /* a mapped row the published file lacks */
    if (r->mapped) {
      raidsim_set_error ("%s:%u: id: '%s' is mapped already, on line %u",
                         raidsim_csv_name (c), row.line, r->id, r->map_line);
      return -1;
    }
    if (raidsim_embedded_path ("configs/", row.field[col[ARRAY]], r->array,
                               sizeof r->array) == -1
        || raidsim_embedded_find (raidsim_validation_files, r->array)
        == NULL) {
      raidsim_set_error ("%s:%u: array: %s", raidsim_csv_name (c), row.line,
                         raidsim_error ());
      return -1;
    }
    if (copy_field (r->workload, c, &row, col[WORKLOAD], "workload") == -1
        || copy_field (r->job, c, &row, col[JOB], "job") == -1)
      return -1;
    if (strcmp (metric, "iops") == 0)
      r->metric = METRIC_IOPS;
    else if (strcmp (metric, "mbps") == 0)
      r->metric = METRIC_MBPS;
    else if (strcmp (metric, "surface-avg") == 0)
      r->metric = METRIC_SURFACE_AVG;
    else {
      raidsim_set_error ("%s:%u: metric: '%s' is not iops, mbps or "
                         "surface-avg", raidsim_csv_name (c), row.line,
                         metric);
      return -1;
    }
    if (yes_no (c, &row, "fitted", row.field[col[FITTED]], &r->fitted) == -1
        || yes_no (c, &row, "informed", row.field[col[INFORMED]],
                   &r->informed) == -1)
      return -1;
    if (r->fitted && row.field[col[SETS]][0] == '\0') {
      raidsim_set_error ("%s:%u: sets: empty, but the row is fitted: say "
                         "what it set", raidsim_csv_name (c), row.line);
      return -1;
    }
    if (r->informed && row.field[col[WHY]][0] == '\0') {
      raidsim_set_error ("%s:%u: why: empty, but the row is informed: cite "
                         "the sentence that says it was consulted",
                         raidsim_csv_name (c), row.line);
      return -1;
    }
    /* A fitted row is fitted whatever else was read from it; informed
     * there records that it was consulted for other choices too.
     */
    r->use = r->fitted ? USE_FITTED
      : r->informed ? USE_INFORMED : USE_UNTOUCHED;
    r->map_line = row.line;
    r->mapped = true;
  }
  if (ret == -1)
    return -1;
  for (i = 0; i < nrows; ++i)
    if (!rows[i].mapped) {
      raidsim_set_error ("%s: row '%s' of the published figures has no "
                         "mapping", raidsim_csv_name (c), rows[i].id);
      return -1;
    }
  return 0;
}

/* The run of (array, workload) under the current seed, simulated on
 * first use; free_sims ends a seed's runs.
 */
static struct simrun *
get_sim (const char *array, const char *workload, uint64_t seed)
{
  struct simrun *sr;
  unsigned i;

  for (i = 0; i < nsims; ++i)
    if (strcmp (sims[i].array, array) == 0
        && strcmp (sims[i].workload, workload) == 0)
      return &sims[i];
  if (nsims == MAX_SIMS) {
    raidsim_set_error ("more than %d distinct runs", MAX_SIMS);
    return NULL;
  }
  sr = &sims[nsims++];
  snprintf (sr->array, sizeof sr->array, "%s", array);
  snprintf (sr->workload, sizeof sr->workload, "%s", workload);
  sr->ac = raidsim_array_config_load_from (raidsim_validation_files, array);
  if (sr->ac == NULL)
    return NULL;
  sr->jf = raidsim_workload_load (workload, raidsim_array_config_size (sr->ac));
  if (sr->jf == NULL)
    return NULL;
  sr->s = raidsim_sim_new (sr->ac, sr->jf, seed);
  if (sr->s == NULL || raidsim_sim_run (sr->s) == -1)
    return NULL;
  return sr;
}

static void
free_sims (void)
{
  unsigned i;

  for (i = 0; i < nsims; ++i) {
    raidsim_sim_free (sims[i].s);
    raidsim_jobfile_free (sims[i].jf);
    raidsim_array_config_free (sims[i].ac);
  }
  memset (sims, 0, sizeof sims[0] * nsims);
  nsims = 0;
}

static const struct raidsim_job_result *
find_job (const struct simrun *sr, const char *name)
{
  unsigned i;

  for (i = 0; i < raidsim_sim_njobs (sr->s); ++i) {
    const struct raidsim_job_result *jr = raidsim_sim_job (sr->s, i);

    if (strcmp (jr->job->name, name) == 0)
      return jr;
  }
  return NULL;
}

/* A job's figure in the row's unit: IOPS or MB/s (10^6 bytes/s). */
static double
job_figure (const struct raidsim_job_result *jr, int metric)
{
  enum raidsim_dir d = raidsim_job_dir (jr->job);

  if (metric == METRIC_IOPS)
    return raidsim_result_iops (jr, d);
  return raidsim_result_bw (jr, d) / 1e6;
}

/* The row's figure under seed number k (the seed first_seed + k). */
static int
predict (struct row *r, unsigned k)
{
  struct simrun *sr = get_sim (r->array, r->workload, first_seed + k);
  const struct raidsim_job_result *jr;

  /* Errors name the row's line of the mapping. */
  if (sr == NULL) {
    raidsim_set_error ("%s:%u: %s: %s", map_name, r->map_line, r->id,
                       raidsim_error ());
    return -1;
  }
  if (r->metric == METRIC_SURFACE_AVG) {
    double mn, mx, avg;

    if (raidsim_result_surface (sr->s, &mn, &mx, &avg) == 0) {
      raidsim_set_error ("%s:%u: %s: %s is not a surface scan", map_name,
                         r->map_line, r->id, r->workload);
      return -1;
    }
    r->pred[k] = avg / 1e6;
  }
  else {
    jr = find_job (sr, r->job);
    if (jr == NULL) {
      raidsim_set_error ("%s:%u: %s: %s has no job '%s'", map_name,
                         r->map_line, r->id, r->workload, r->job);
      return -1;
    }
    r->pred[k] = job_figure (jr, r->metric);
  }
  r->ran = true;
  return 0;
}

/* Whether [lo, hi], an interval of signed errors, has the |error| limit
 * strictly inside it on either side.
 */
static bool
error_straddles (double lo, double hi, double limit)
{
  return raidsim_straddles (lo, hi, limit)
    || raidsim_straddles (lo, hi, -limit);
}

/* The row's mean over the seeds, its interval and its error. */
static void
combine (struct row *r)
{
  r->iv = raidsim_interval95 (r->pred, nseeds);
  r->predicted = r->iv.mean;
  r->err = r->predicted / r->published - 1;
  r->err_lo = (r->iv.mean - r->iv.half) / r->published - 1;
  r->err_hi = (r->iv.mean + r->iv.half) / r->published - 1;
  r->straddles = 0;
  if (r->iv.known) {
    if (error_straddles (r->err_lo, r->err_hi, MEDIAN_LIMIT))
      r->straddles |= STRADDLES_MEDIAN;
    if (error_straddles (r->err_lo, r->err_hi, WORST_LIMIT))
      r->straddles |= STRADDLES_WORST;
  }
}

/* Median and worst |error| of a set of rows: of the rows' means (these
 * decide the thresholds), and, as a measure of the seeds' spread, the
 * mean and 95% interval of the set's median and worst taken seed by
 * seed.
 */
struct stats {
  unsigned n;
  double median, worst;
  struct raidsim_interval seed_median, seed_worst;
};

static bool
in_set (const struct row *r, unsigned mask, const char *casename)
{
  return r->ran && (mask & MASK (r->use))
    && (casename == NULL || strcmp (r->casename, casename) == 0);
}

static struct stats
set_stats (unsigned mask, const char *casename)
{
  static double e[MAX_ROWS];
  double med[RAIDSIM_SEEDS_MAX], worst[RAIDSIM_SEEDS_MAX];
  struct stats st;
  unsigned i, k;

  memset (&st, 0, sizeof st);
  for (i = 0; i < nrows; ++i)
    if (in_set (&rows[i], mask, casename))
      e[st.n++] = fabs (rows[i].err);
  if (st.n == 0)
    return st;
  st.median = raidsim_median (e, st.n);
  st.worst = e[st.n - 1];
  for (k = 0; k < nseeds; ++k) {
    unsigned n = 0;

    for (i = 0; i < nrows; ++i)
      if (in_set (&rows[i], mask, casename))
        e[n++] = fabs (rows[i].pred[k] / rows[i].published - 1);
    med[k] = raidsim_median (e, n);
    worst[k] = e[n - 1];
  }
  st.seed_median = raidsim_interval95 (med, nseeds);
  st.seed_worst = raidsim_interval95 (worst, nseeds);
  return st;
}

/* The thresholds on the untouched rows (of the case, with --case).  No
 * untouched row: nothing to judge, not met.
 */
static bool
thresholds_met (const struct stats *st)
{
  return st->n > 0 && st->median <= MEDIAN_LIMIT && st->worst <= WORST_LIMIT;
}

/* The VROC shape rules of issue 5, on the means over the seeds.  The
 * rows they name are the CSV's; the curves (sequential reads over QD)
 * come from the same four-corners runs the rows come from, recorded
 * seed by seed (record_curves).
 */
struct rule {
  const char *name;
  bool ok, known;
  char detail[512];
};

#define NRULES 4
static struct rule rules[NRULES] = {
  { "array QD1 random read below a quarter of the single drive's",
    false, false, "" },
  { "array QD2 random read above the single drive's QD1", false, false, "" },
  { "sequential read peaks by QD4, near twice one drive", false, false, "" },
  { "sequential write rises QD1 -> QD2 -> QD4 as published (each within "
    "40%)", false, false, "" },
};

#define NQDS 6
static const char *const qds[NQDS] = { "1", "2", "4", "8", "16", "32" };
/* Sequential 128 KiB reads at each QD: the single drive's and the
 * array's, per seed.
 */
static double curve_single[NQDS][RAIDSIM_SEEDS_MAX];
static double curve_array[NQDS][RAIDSIM_SEEDS_MAX];
static bool curves_known;

static double
curve_point (const struct row *ref, const char *job, unsigned k)
{
  struct simrun *sr = get_sim (ref->array, ref->workload, first_seed + k);
  const struct raidsim_job_result *jr = sr ? find_job (sr, job) : NULL;

  return jr ? job_figure (jr, METRIC_MBPS) : -1;
}

static void
record_curves (unsigned k)
{
  const struct row *single = find_row ("vroc-rr-single-qd1");
  const struct row *sr4 = find_row ("vroc-sr-raid0-qd4");
  unsigned i;

  curves_known = single && single->ran && sr4 && sr4->ran;
  if (!curves_known)
    return;
  for (i = 0; i < NQDS; ++i) {
    char job[64];

    snprintf (job, sizeof job, "seq-read-128k-qd%s", qds[i]);
    curve_single[i][k] = curve_point (single, job, k);
    curve_array[i][k] = curve_point (sr4, job, k);
  }
}

static double
mean_over_seeds (const double *v)
{
  return raidsim_interval95 (v, nseeds).mean;
}

static void
shape_check (void)
{
  const struct row *single = find_row ("vroc-rr-single-qd1");
  const struct row *a1 = find_row ("vroc-rr-raid0-qd1");
  const struct row *a2 = find_row ("vroc-rr-raid0-qd2");
  const struct row *sr4 = find_row ("vroc-sr-raid0-qd4");
  const struct row *w[3] = { find_row ("vroc-sw-raid0-qd1"),
                             find_row ("vroc-sw-raid0-qd2"),
                             find_row ("vroc-sw-raid0-qd4") };
  unsigned i;

  for (i = 0; i < NRULES; ++i)
    rules[i].known = rules[i].ok = false;
  if (single && single->ran && a1 && a1->ran) {
    rules[0].known = true;
    rules[0].ok = a1->predicted < single->predicted / 4;
    snprintf (rules[0].detail, sizeof rules[0].detail,
              "%.0f vs %.0f / 4 = %.0f IOPS", a1->predicted,
              single->predicted, single->predicted / 4);
  }
  if (single && single->ran && a2 && a2->ran) {
    rules[1].known = true;
    rules[1].ok = a2->predicted > single->predicted;
    snprintf (rules[1].detail, sizeof rules[1].detail,
              "%.0f vs %.0f IOPS", a2->predicted, single->predicted);
  }
  /* Peak by QD4: no later QD beats QD4 by more than 5%.  Near twice one
   * drive: the array's QD4 figure is 1.7 to 2.3 times the single
   * drive's best sequential read.
   */
  if (sr4 && sr4->ran && curves_known) {
    double at4 = sr4->predicted, later = 0, one = 0;

    for (i = 0; i < NQDS; ++i) {
      double v;

      if (i > 2 && (v = mean_over_seeds (curve_array[i])) > later)
        later = v;
      if ((v = mean_over_seeds (curve_single[i])) > one)
        one = v;
    }
    rules[2].known = one > 0;
    rules[2].ok = later <= 1.05 * at4 && at4 >= 1.7 * one && at4 <= 2.3 * one;
    snprintf (rules[2].detail, sizeof rules[2].detail,
              "QD4 %.0f MB/s, best after QD4 %.0f, one drive's best %.0f "
              "(x%.2f)", at4, later, one, one > 0 ? at4 / one : 0);
  }
  if (w[0] && w[1] && w[2] && w[0]->ran && w[1]->ran && w[2]->ran) {
    rules[3].known = true;
    rules[3].ok = w[0]->predicted < w[1]->predicted
      && w[1]->predicted < w[2]->predicted;
    for (i = 0; i < 3; ++i)
      if (fabs (w[i]->err) > WORST_LIMIT)
        rules[3].ok = false;
    snprintf (rules[3].detail, sizeof rules[3].detail,
              "%.0f -> %.0f -> %.0f MB/s (published 600 -> 1500 -> 4500)",
              w[0]->predicted, w[1]->predicted, w[2]->predicted);
  }
}

static const char *
pass (bool ok)
{
  return ok ? "PASS" : "FAIL";
}

/* The limits a row's interval straddles, as the table and CSV give
 * them: "", "15%", "40%" or "15% 40%".
 */
static const char *
straddle_text (unsigned straddles)
{
  static char buf[32];

  snprintf (buf, sizeof buf, "%s%s%s",
            straddles & STRADDLES_MEDIAN ? "15%" : "",
            straddles == (STRADDLES_MEDIAN | STRADDLES_WORST) ? " " : "",
            straddles & STRADDLES_WORST ? "40%" : "");
  return buf;
}

/* "10.3 +- 0.5" (percent) for a per-seed interval, "-" without one. */
static const char *
seed_text (char *buf, size_t len, const struct raidsim_interval *iv)
{
  if (!iv->known)
    snprintf (buf, len, "-");
  else
    snprintf (buf, len, "%5.1f +-%5.1f", 100 * iv->mean, 100 * iv->half);
  return buf;
}

static void
stats_line (const char *label, const struct stats *st)
{
  char m[32], w[32];

  if (st->n == 0) {
    printf ("  %-18s %5u %8s %8s\n", label, 0u, "-", "-");
    return;
  }
  printf ("  %-18s %5u %7.1f%% %7.1f%%  %s  %s\n", label, st->n,
          100 * st->median, 100 * st->worst,
          seed_text (m, sizeof m, &st->seed_median),
          seed_text (w, sizeof w, &st->seed_worst));
}

static void
report_table (const char *only)
{
  unsigned i, c, u;
  const char *cases[MAX_ROWS];
  unsigned ncases = 0;
  bool any = false;

  if (nseeds > 1)
    printf ("mean of %u seeds (%" PRIu64 " to %" PRIu64 "); +-95%%: "
            "half-width of the error's 95%% interval, t(0.975, %u) = "
            "%.3f\n\n", nseeds, first_seed, first_seed + nseeds - 1,
            nseeds - 1, raidsim_t_quantile (0.975, nseeds - 1));
  else
    printf ("one seed (%" PRIu64 "): no interval\n\n", first_seed);
  printf ("%-26s %-9s %10s %10s %8s %6s  %-9s  %s\n", "id", "unit",
          "published", "predicted", "error", "+-95%", "use", "straddles");
  for (i = 0; i < nrows; ++i) {
    const struct row *r = &rows[i];
    char half[16];

    if (!r->ran)
      continue;
    if (i == 0 || strcmp (r->casename, rows[i - 1].casename) != 0)
      printf ("-- %s\n", r->casename);
    if (r->iv.known)
      snprintf (half, sizeof half, "%.1f%%", 100 * r->iv.half / r->published);
    else
      snprintf (half, sizeof half, "-");
    printf ("%-26s %-9s %10.1f %10.1f %+7.1f%% %6s  ", r->id, r->unit,
            r->published, r->predicted, 100 * r->err, half);
    if (r->straddles)
      printf ("%-9s  %s\n", use_name[r->use], straddle_text (r->straddles));
    else
      printf ("%s\n", use_name[r->use]);
  }

  printf ("\n|error| by set          n   median    worst  per seed, "
          "mean +- 95%%: median, worst\n");
  for (u = 0; u < NUSES; ++u) {
    struct stats st = set_stats (MASK (u), only);

    stats_line (use_name[u], &st);
  }
  /* With --case the lines above are already the case's. */
  if (only == NULL) {
    for (i = 0; i < nrows; ++i) {
      bool seen = false;

      if (!rows[i].ran)
        continue;
      for (c = 0; c < ncases; ++c)
        if (strcmp (cases[c], rows[i].casename) == 0)
          seen = true;
      if (!seen)
        cases[ncases++] = rows[i].casename;
    }
    printf ("untouched rows by case:\n");
    for (c = 0; c < ncases; ++c) {
      struct stats st = set_stats (MASK (USE_UNTOUCHED), cases[c]);

      stats_line (cases[c], &st);
    }
  }
  {
    struct stats st = set_stats (MASK (USE_UNTOUCHED), only);

    printf ("\nthresholds (untouched rows%s):\n", only ? ", this case" : "");
    if (st.n == 0)
      printf ("  none: no untouched rows to judge them on: FAIL\n");
    else
      printf ("  median |error| <= %.0f%%: %s (%.1f%%, %u rows)\n"
              "  worst |error| <= %.0f%%: %s (%.1f%%)\n",
              100 * MEDIAN_LIMIT, pass (st.median <= MEDIAN_LIMIT),
              100 * st.median, st.n,
              100 * WORST_LIMIT, pass (st.worst <= WORST_LIMIT),
              100 * st.worst);
    printf ("  untouched rows whose interval straddles a limit:");
    for (i = 0; i < nrows; ++i)
      if (in_set (&rows[i], MASK (USE_UNTOUCHED), only)
          && rows[i].straddles) {
        printf ("\n    %s (%s)", rows[i].id,
                straddle_text (rows[i].straddles));
        any = true;
      }
    printf ("%s\n", any ? "" : " none");
  }
  printf ("VROC shape rules:\n");
  for (i = 0; i < NRULES; ++i)
    if (rules[i].known)
      printf ("  %s: %s (%s)\n", rules[i].name, pass (rules[i].ok),
              rules[i].detail);
}

/* The columns up to `fitted` are those of before issue 16; the rest
 * were added at the end.
 */
static void
report_csv (void)
{
  unsigned i;

  printf ("id,case,unit,published,predicted,error,fitted,"
          "informed,use,seeds,predicted_lo,predicted_hi,error_lo,error_hi,"
          "straddles\n");
  for (i = 0; i < nrows; ++i) {
    const struct row *r = &rows[i];

    if (!r->ran)
      continue;
    raidsim_csv_field (stdout, r->id);
    putchar (',');
    raidsim_csv_field (stdout, r->casename);
    putchar (',');
    raidsim_csv_field (stdout, r->unit);
    printf (",%g,%.6g,%.4f,%s,%s,%s,%u,", r->published, r->predicted,
            r->err, r->fitted ? "yes" : "no", r->informed ? "yes" : "no",
            use_name[r->use], nseeds);
    if (r->iv.known)
      printf ("%.6g,%.6g,%.4f,%.4f,", r->iv.mean - r->iv.half,
              r->iv.mean + r->iv.half, r->err_lo, r->err_hi);
    else
      printf (",,,,");
    raidsim_csv_field (stdout, straddle_text (r->straddles));
    putchar ('\n');
  }
}

static void
json_interval (const char *name, const struct raidsim_interval *iv)
{
  if (iv->known)
    printf ("\"%s\": { \"mean\": %.4f, \"half_width\": %.4f }", name,
            iv->mean, iv->half);
  else
    printf ("\"%s\": null", name);
}

static void
json_stats (const char *name, const struct stats *st, const char *end)
{
  printf ("    \"%s\": { \"n\": %u, \"median_abs_error\": %.4f, "
          "\"worst_abs_error\": %.4f, ", name, st->n, st->median,
          st->worst);
  json_interval ("per_seed_median", &st->seed_median);
  printf (", ");
  json_interval ("per_seed_worst", &st->seed_worst);
  printf (" }%s\n", end);
}

static void
report_json (const char *only, bool thresholds_ok)
{
  struct stats held = set_stats (HELD_OUT, only);
  unsigned i, u;
  bool first = true;

  printf ("{\n  \"seeds\": { \"first\": %" PRIu64 ", \"n\": %u },\n",
          first_seed, nseeds);
  printf ("  \"rows\": [\n");
  for (i = 0; i < nrows; ++i) {
    const struct row *r = &rows[i];

    if (!r->ran)
      continue;
    printf ("%s    { \"id\": \"%s\", \"case\": \"%s\", \"unit\": \"%s\", "
            "\"published\": %g, \"predicted\": %.6g, \"error\": %.4f, "
            "\"fitted\": %s, \"informed\": %s, \"use\": \"%s\", ",
            first ? "" : ",\n", r->id, r->casename, r->unit, r->published,
            r->predicted, r->err, r->fitted ? "true" : "false",
            r->informed ? "true" : "false", use_name[r->use]);
    if (r->iv.known)
      printf ("\"predicted_interval\": [%.6g, %.6g], "
              "\"error_interval\": [%.4f, %.4f], ",
              r->iv.mean - r->iv.half, r->iv.mean + r->iv.half, r->err_lo,
              r->err_hi);
    else
      printf ("\"predicted_interval\": null, \"error_interval\": null, ");
    printf ("\"straddles\": [%s%s%s] }",
            r->straddles & STRADDLES_MEDIAN ? "0.15" : "",
            r->straddles == (STRADDLES_MEDIAN | STRADDLES_WORST) ? ", " : "",
            r->straddles & STRADDLES_WORST ? "0.40" : "");
    first = false;
  }
  /* held_out: the rows not fitted, as before issue 16; thresholds_met
   * is now the verdict on the untouched rows.
   */
  printf ("\n  ],\n  \"held_out\": { \"n\": %u, \"median_abs_error\": %.4f, "
          "\"worst_abs_error\": %.4f, \"thresholds_met\": %s },\n",
          held.n, held.median, held.worst, thresholds_ok ? "true" : "false");
  printf ("  \"sets\": {\n");
  for (u = 0; u < NUSES; ++u) {
    struct stats st = set_stats (MASK (u), only);

    json_stats (use_name[u], &st, u + 1 < NUSES ? "," : "");
  }
  printf ("  },\n  \"thresholds\": { \"rows\": \"untouched\", "
          "\"median_limit\": %.2f, \"worst_limit\": %.2f, \"met\": %s },\n",
          MEDIAN_LIMIT, WORST_LIMIT, thresholds_ok ? "true" : "false");
  printf ("  \"shape_rules\": [\n");
  first = true;
  for (i = 0; i < NRULES; ++i) {
    if (!rules[i].known)
      continue;
    printf ("%s    { \"rule\": \"%s\", \"pass\": %s, \"detail\": \"%s\" }",
            first ? "" : ",\n", rules[i].name,
            rules[i].ok ? "true" : "false", rules[i].detail);
    first = false;
  }
  printf ("\n  ]\n}\n");
}

/* The published figures, then the mapping, from a path or from the
 * built-in copy.
 */
static int
read_inputs (const char *csv, const char *map)
{
  struct raidsim_csv *reader = NULL;
  const char *text;
  int ret = -1;

  if (csv)
    reader = raidsim_csv_open (csv, 0);
  else if ((text = raidsim_embedded_find (raidsim_validation_files,
                                          PUBLISHED_FILE)) != NULL)
    reader = raidsim_csv_open_text (PUBLISHED_FILE, text, 0);
  else
    raidsim_set_error ("%s: not built in", PUBLISHED_FILE);
  if (reader == NULL || read_published (reader) == -1)
    goto out;
  raidsim_csv_close (reader);
  reader = NULL;
  if (map)
    reader = raidsim_csv_open (map, RAIDSIM_CSV_COMMENTS);
  else if ((text = raidsim_embedded_find (raidsim_validation_files,
                                          MAP_FILE)) != NULL)
    reader = raidsim_csv_open_text (MAP_FILE, text, RAIDSIM_CSV_COMMENTS);
  else
    raidsim_set_error ("%s: not built in", MAP_FILE);
  if (reader == NULL || read_map (reader) == -1)
    goto out;
  ret = 0;
 out:
  raidsim_csv_close (reader);
  return ret;
}

int
cmd_validate (int argc, char **argv)
{
  enum { OPT_CSV = 256, OPT_MAP, OPT_CASE, OPT_REQUIRE, OPT_SEEDS };
  static const struct option longopts[] = {
    { "csv", required_argument, NULL, OPT_CSV },
    { "map", required_argument, NULL, OPT_MAP },
    { "case", required_argument, NULL, OPT_CASE },
    { "format", required_argument, NULL, 'f' },
    { "require", required_argument, NULL, OPT_REQUIRE },
    { "seed", required_argument, NULL, 's' },
    { "seeds", required_argument, NULL, OPT_SEEDS },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *csv = NULL, *map = NULL, *only = NULL, *require = "all";
  enum raidsim_format format = RAIDSIM_FORMAT_TABLE;
  bool thresholds_ok = false, shape_ok = true;
  unsigned i, k, nran = 0;
  int c, ret = 1;

  first_seed = 1;
  nseeds = DEFAULT_SEEDS;
  optind = 1;
  while ((c = getopt_long (argc, argv, ":f:s:h", longopts, NULL)) != -1) {
    switch (c) {
    case OPT_CSV:
      csv = optarg;
      break;
    case OPT_MAP:
      map = optarg;
      break;
    case OPT_CASE:
      only = optarg;
      break;
    case 'f':
      if (cli_format (CMD, optarg, &format) == -1)
        return 1;
      break;
    case OPT_REQUIRE:
      if (strcmp (optarg, "all") != 0 && strcmp (optarg, "shape") != 0
          && strcmp (optarg, "none") != 0) {
        fprintf (stderr, "%s: --require: '%s' is not all, shape or none\n",
                 CMD, optarg);
        return 1;
      }
      require = optarg;
      break;
    case 's':
      if (cli_seed (CMD, optarg, &first_seed) == -1)
        return 1;
      break;
    case OPT_SEEDS:
      if (raidsim_parse_seeds (optarg, &nseeds) == -1) {
        fprintf (stderr, "%s: --seeds: %s\n", CMD, raidsim_error ());
        return 1;
      }
      break;
    case 'h':
      usage (stdout);
      return 0;
    default:
      cli_bad_option (CMD, c, argv);
      return 1;
    }
  }
  if (optind != argc) {
    fprintf (stderr, "%s: takes no arguments; see '%s --help'\n", CMD, CMD);
    return 1;
  }
  if (!raidsim_seeds_fit (first_seed, nseeds)) {
    fprintf (stderr, "%s: --seed %" PRIu64 " --seeds %u: the seeds run "
             "past %" PRIu64 "\n", CMD, first_seed, nseeds, UINT64_MAX);
    return 1;
  }

  nrows = nsims = 0;
  memset (rows, 0, sizeof rows);
  if (read_inputs (csv, map) == -1)
    goto err;

  for (k = 0; k < nseeds; ++k) {
    nran = 0;
    for (i = 0; i < nrows; ++i) {
      if (only && strcmp (rows[i].casename, only) != 0)
        continue;
      if (predict (&rows[i], k) == -1)
        goto err;
      nran++;
    }
    if (nran == 0)
      break;
    record_curves (k);
    free_sims ();
  }
  if (nran == 0) {
    fprintf (stderr, "%s: --case: no rows of case '%s'\n", CMD, only);
    goto out;
  }
  for (i = 0; i < nrows; ++i)
    if (rows[i].ran)
      combine (&rows[i]);
  shape_check ();
  for (i = 0; i < NRULES; ++i)
    if (rules[i].known && !rules[i].ok)
      shape_ok = false;

  {
    struct stats st = set_stats (MASK (USE_UNTOUCHED), only);

    thresholds_ok = thresholds_met (&st);
  }
  if (format == RAIDSIM_FORMAT_TABLE)
    report_table (only);
  else if (format == RAIDSIM_FORMAT_CSV)
    report_csv ();
  else
    report_json (only, thresholds_ok);
  if (fflush (stdout) == EOF) {
    fprintf (stderr, "%s: write: %s\n", CMD, strerror (errno));
    goto out;
  }

  if (strcmp (require, "none") == 0)
    ret = 0;
  else if (strcmp (require, "shape") == 0)
    ret = !shape_ok;
  else
    ret = !(shape_ok && thresholds_ok);
  if (ret)
    fprintf (stderr, "%s: %s not met\n", CMD,
             !shape_ok ? "VROC shape rules" : "error thresholds");
  goto out;

 err:
  fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
  ret = 1;
 out:
  free_sims ();
  return ret;
}
