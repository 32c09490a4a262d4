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
 * scan's average), and whether the row was used to set a parameter
 * ("fitted") or is held out.  Only held-out rows count towards the
 * thresholds.
 *
 * All of these files, and every config file the mapping names, are
 * compiled into the program (builtin.h, made by embed-files.py from the
 * mapping) and read from memory, so the command runs from any
 * directory, installed or in the build tree, and the meson test needs
 * no paths.  --csv reads another copy of the published figures instead
 * (the mapping still comes from the program).
 *
 * Each (array, workload) pair is simulated once, whole: a
 * CrystalDiskMark row is one test of a full cdm3 run, so the drives
 * carry their state (caches, flash wear) from test to test as under
 * the real tool.
 *
 * The thresholds (issue 5): over held-out rows, median absolute
 * relative error <= 15% and worst <= 40%; and the VROC shape rules
 * (shape_check below).  --require chooses which must hold for exit
 * status 0.
 *
 * Run:
 *   build/raidsim/raidsim validate
 *   build/raidsim/raidsim validate --case optane-900p-vroc --format csv
 */

#include <errno.h>
#include <getopt.h>
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
#include "cmd.h"
#include "options.h"
#include "util.h"
#include "builtin.h"

#define CMD PROGRAM_NAME " validate"

#define PUBLISHED_FILE "tests/data/published.csv"
#define MAP_FILE "configs/validation/published-map.csv"

/* The thresholds of issue 5, on held-out rows only. */
#define MEDIAN_LIMIT 0.15
#define WORST_LIMIT 0.40

#define MAX_ROWS 256
#define MAX_SIMS 64
#define FIELD_MAX 256

enum metric { METRIC_IOPS, METRIC_MBPS, METRIC_SURFACE_AVG };

struct row {
  /* From published.csv. */
  char id[FIELD_MAX], casename[FIELD_MAX], unit[FIELD_MAX];
  double published;
  /* From the mapping. */
  char array[PATH_MAX + FIELD_MAX], workload[FIELD_MAX], job[FIELD_MAX];
  int metric;
  bool fitted, mapped;
  /* The run's figure and its relative error. */
  double predicted, err;
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
static struct simrun sims[MAX_SIMS];
static unsigned nsims;

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s [--csv PATH] [--format table|csv|json] [--case NAME]\n"
           "       %*s [--require all|shape|none] [--seed N]\n"
           "\n"
           "Run every row of the published figures (%s) under its\n"
           "stated conditions and print predicted against published, with\n"
           "the relative error; then the median and worst absolute error\n"
           "of the held-out rows, per case and overall, and the VROC shape\n"
           "rules.  The row -> array + workload mapping is %s;\n"
           "both files and the configs they name are built into the program.\n"
           "\n"
           "Options:\n"
           "      --csv PATH     read the published figures from PATH\n"
           "      --case NAME    only the rows of one case\n"
           "  -f, --format FMT   table (default), csv or json\n"
           "      --require WHAT which checks decide the exit status: all\n"
           "                     (default: thresholds and shape rules),\n"
           "                     shape (only the VROC shape rules), none\n"
           "  -s, --seed N       seed of every run (default 1)\n"
           "  -h, --help         show this help\n"
           "\n"
           "Thresholds: held-out rows' median |error| <= %.0f%%, worst <= "
           "%.0f%%.\n",
           CMD, (int) strlen (CMD), "", PUBLISHED_FILE, MAP_FILE,
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

/* The mapping: id,array,workload,job,metric,fitted,sets; lines starting
 * with '#' are comments.  Array paths are relative to configs/, and
 * become names of the built-in files.
 */
static int
read_map (struct raidsim_csv *c)
{
  static const char *const want[] = {
    "id", "array", "workload", "job", "metric", "fitted",
  };
  enum { ID, ARRAY, WORKLOAD, JOB, METRIC, FITTED, NWANT };
  struct raidsim_csv_row row;
  int col[NWANT], ret;
  unsigned i;

  if (raidsim_csv_header (c, want, NWANT, col, "the row mapping (id, array, "
                          "workload, job, metric, fitted)") == -1)
    return -1;
  while ((ret = raidsim_csv_next (c, &row)) == 1) {
    const char *metric = row.field[col[METRIC]];
    const char *fitted = row.field[col[FITTED]];
    struct row *r = find_row (row.field[col[ID]]);

    if (r == NULL)
      continue;               /* a mapped row the published file lacks */
    if (raidsim_embedded_path ("configs/", row.field[col[ARRAY]], r->array,
                               sizeof r->array) == -1) {
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
    if (strcmp (fitted, "yes") == 0)
      r->fitted = true;
    else if (strcmp (fitted, "no") == 0)
      r->fitted = false;
    else {
      raidsim_set_error ("%s:%u: fitted: '%s' is not yes or no",
                         raidsim_csv_name (c), row.line, fitted);
      return -1;
    }
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

/* The run of (array, workload), simulated on first use. */
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

static int
predict (struct row *r, uint64_t seed)
{
  struct simrun *sr = get_sim (r->array, r->workload, seed);
  const struct raidsim_job_result *jr;

  if (sr == NULL) {
    raidsim_set_error ("%s: %s", r->id, raidsim_error ());
    return -1;
  }
  if (r->metric == METRIC_SURFACE_AVG) {
    double mn, mx, avg;

    if (raidsim_result_surface (sr->s, &mn, &mx, &avg) == 0) {
      raidsim_set_error ("%s: %s is not a surface scan", r->id, r->workload);
      return -1;
    }
    r->predicted = avg / 1e6;
  }
  else {
    jr = find_job (sr, r->job);
    if (jr == NULL) {
      raidsim_set_error ("%s: %s has no job '%s'", r->id, r->workload,
                         r->job);
      return -1;
    }
    r->predicted = job_figure (jr, r->metric);
  }
  r->err = r->predicted / r->published - 1;
  r->ran = true;
  return 0;
}

struct stats {
  unsigned n;
  double median, worst;
};

/* Median and worst |error| of the held-out rows of casename (NULL:
 * every case).
 */
static struct stats
held_out_stats (const char *casename)
{
  double e[MAX_ROWS];
  struct stats st = { 0, 0, 0 };
  unsigned i;

  for (i = 0; i < nrows; ++i) {
    if (!rows[i].ran || rows[i].fitted)
      continue;
    if (casename && strcmp (rows[i].casename, casename) != 0)
      continue;
    e[st.n++] = fabs (rows[i].err);
  }
  if (st.n == 0)
    return st;
  qsort (e, st.n, sizeof e[0], cmp_double);
  st.median = st.n % 2 ? e[st.n / 2] : (e[st.n / 2 - 1] + e[st.n / 2]) / 2;
  st.worst = e[st.n - 1];
  return st;
}

/* The VROC shape rules of issue 5, on predictions.  The rows they name
 * are the CSV's; the curves (sequential reads and writes over QD) come
 * from the same four-corners runs the rows come from.
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

static double
curve_point (const struct row *ref, const char *job)
{
  struct simrun *sr = get_sim (ref->array, ref->workload, 0);
  const struct raidsim_job_result *jr = sr ? find_job (sr, job) : NULL;

  return jr ? job_figure (jr, METRIC_MBPS) : -1;
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
  static const char *const qds[] = { "1", "2", "4", "8", "16", "32" };
  unsigned i;

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
  if (sr4 && sr4->ran && single && single->ran) {
    double at4 = sr4->predicted, later = 0, one = 0;
    char job[64];

    for (i = 0; i < 6; ++i) {
      double v;

      snprintf (job, sizeof job, "seq-read-128k-qd%s", qds[i]);
      if (i > 2 && (v = curve_point (sr4, job)) > later)
        later = v;
      if ((v = curve_point (single, job)) > one)
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

static void
report_table (const char *only, bool *thresholds_ok)
{
  unsigned i, c;
  const char *cases[MAX_ROWS];
  unsigned ncases = 0;

  printf ("%-26s %-9s %10s %10s %8s  %s\n", "id", "unit", "published",
          "predicted", "error", "use");
  for (i = 0; i < nrows; ++i) {
    const struct row *r = &rows[i];

    if (!r->ran)
      continue;
    if (i == 0 || strcmp (r->casename, rows[i - 1].casename) != 0)
      printf ("-- %s\n", r->casename);
    printf ("%-26s %-9s %10.1f %10.1f %+7.1f%%  %s\n", r->id, r->unit,
            r->published, r->predicted, 100 * r->err,
            r->fitted ? "fitted" : "held out");
  }

  printf ("\nheld-out rows: |error|      n   median    worst\n");
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
  for (c = 0; c < ncases; ++c) {
    struct stats st = held_out_stats (cases[c]);

    printf ("  %-24s %5u %7.1f%% %7.1f%%\n", cases[c], st.n,
            100 * st.median, 100 * st.worst);
  }
  {
    struct stats st = held_out_stats (NULL);

    *thresholds_ok = st.median <= MEDIAN_LIMIT && st.worst <= WORST_LIMIT;
    /* With --case the one case's line above is already the total. */
    if (only == NULL)
      printf ("  %-24s %5u %7.1f%% %7.1f%%\n", "overall", st.n,
              100 * st.median, 100 * st.worst);
    printf ("\nthresholds (held-out rows%s):\n"
            "  median |error| <= %.0f%%: %s (%.1f%%)\n"
            "  worst |error| <= %.0f%%: %s (%.1f%%)\n",
            only ? ", this case" : "",
            100 * MEDIAN_LIMIT, pass (st.median <= MEDIAN_LIMIT),
            100 * st.median,
            100 * WORST_LIMIT, pass (st.worst <= WORST_LIMIT),
            100 * st.worst);
  }
  printf ("VROC shape rules:\n");
  for (i = 0; i < NRULES; ++i)
    if (rules[i].known)
      printf ("  %s: %s (%s)\n", rules[i].name, pass (rules[i].ok),
              rules[i].detail);
}

static void
report_csv (void)
{
  unsigned i;

  printf ("id,case,unit,published,predicted,error,fitted\n");
  for (i = 0; i < nrows; ++i) {
    if (!rows[i].ran)
      continue;
    raidsim_csv_field (stdout, rows[i].id);
    putchar (',');
    raidsim_csv_field (stdout, rows[i].casename);
    putchar (',');
    raidsim_csv_field (stdout, rows[i].unit);
    printf (",%g,%.6g,%.4f,%s\n", rows[i].published, rows[i].predicted,
            rows[i].err, rows[i].fitted ? "yes" : "no");
  }
}

static void
report_json (bool thresholds_ok)
{
  struct stats st = held_out_stats (NULL);
  unsigned i;
  bool first = true;

  printf ("{\n  \"rows\": [\n");
  for (i = 0; i < nrows; ++i) {
    if (!rows[i].ran)
      continue;
    printf ("%s    { \"id\": \"%s\", \"case\": \"%s\", \"unit\": \"%s\", "
            "\"published\": %g, \"predicted\": %.6g, \"error\": %.4f, "
            "\"fitted\": %s }", first ? "" : ",\n", rows[i].id,
            rows[i].casename, rows[i].unit, rows[i].published,
            rows[i].predicted, rows[i].err,
            rows[i].fitted ? "true" : "false");
    first = false;
  }
  printf ("\n  ],\n  \"held_out\": { \"n\": %u, \"median_abs_error\": %.4f, "
          "\"worst_abs_error\": %.4f, \"thresholds_met\": %s },\n",
          st.n, st.median, st.worst, thresholds_ok ? "true" : "false");
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

int
cmd_validate (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "csv", required_argument, NULL, 'c' },
    { "case", required_argument, NULL, 'C' },
    { "format", required_argument, NULL, 'f' },
    { "require", required_argument, NULL, 'r' },
    { "seed", required_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *csv = NULL, *only = NULL, *require = "all";
  enum raidsim_format format = RAIDSIM_FORMAT_TABLE;
  uint64_t seed = 1;
  struct raidsim_csv *reader = NULL;
  const char *text;
  bool thresholds_ok = false, shape_ok = true;
  unsigned i, nran = 0;
  int c, ret = 1;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":f:s:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'c':
      csv = optarg;
      break;
    case 'C':
      only = optarg;
      break;
    case 'f':
      if (cli_format (CMD, optarg, &format) == -1)
        return 1;
      break;
    case 'r':
      if (strcmp (optarg, "all") != 0 && strcmp (optarg, "shape") != 0
          && strcmp (optarg, "none") != 0) {
        fprintf (stderr, "%s: --require: '%s' is not all, shape or none\n",
                 CMD, optarg);
        return 1;
      }
      require = optarg;
      break;
    case 's':
      if (cli_seed (CMD, optarg, &seed) == -1)
        return 1;
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

  nrows = nsims = 0;
  if (csv)
    reader = raidsim_csv_open (csv, 0);
  else if ((text = raidsim_embedded_find (raidsim_validation_files,
                                          PUBLISHED_FILE)) != NULL)
    reader = raidsim_csv_open_text (PUBLISHED_FILE, text, 0);
  if (reader == NULL || read_published (reader) == -1)
    goto err;
  raidsim_csv_close (reader);
  reader = NULL;
  if ((text = raidsim_embedded_find (raidsim_validation_files,
                                     MAP_FILE)) == NULL
      || (reader = raidsim_csv_open_text (MAP_FILE, text,
                                          RAIDSIM_CSV_COMMENTS)) == NULL
      || read_map (reader) == -1)
    goto err;
  raidsim_csv_close (reader);
  reader = NULL;

  for (i = 0; i < nrows; ++i) {
    if (only && strcmp (rows[i].casename, only) != 0)
      continue;
    if (predict (&rows[i], seed) == -1)
      goto err;
    nran++;
  }
  if (nran == 0) {
    fprintf (stderr, "%s: --case: no rows of case '%s'\n", CMD, only);
    goto out;
  }
  shape_check ();
  for (i = 0; i < NRULES; ++i)
    if (rules[i].known && !rules[i].ok)
      shape_ok = false;

  {
    struct stats st = held_out_stats (NULL);

    thresholds_ok = st.median <= MEDIAN_LIMIT && st.worst <= WORST_LIMIT;
  }
  if (format == RAIDSIM_FORMAT_TABLE)
    report_table (only, &thresholds_ok);
  else if (format == RAIDSIM_FORMAT_CSV)
    report_csv ();
  else
    report_json (thresholds_ok);
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
  raidsim_csv_close (reader);
  for (i = 0; i < nsims; ++i) {
    raidsim_sim_free (sims[i].s);
    raidsim_jobfile_free (sims[i].jf);
    raidsim_array_config_free (sims[i].ac);
  }
  nsims = 0;
  return ret;
}
