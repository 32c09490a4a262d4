/* raidsim plot: draw a sweep (the CSV or JSON that `raidsim sweep`
 * writes) as a PNG or SVG through gnuplot.
 *
 * One panel per access pattern (sequential or random, read or write,
 * block size), one line per array.  The x axis is the queue depth when
 * the sweep varied it or when its jobs carry it (four-corners), or a
 * varied key (--x, by default the first whose values are numbers).  A
 * grid's other keys make a panel per value (--layout panels, the
 * default), or a line per value (--layout lines); --layout heatmap
 * draws a cell per pair of values instead (see "the plot of a sweep"
 * below).  The y axis is MB/s for sequential patterns and IOPS for
 * random ones unless --metric says otherwise; with intervals (sweep
 * --seeds, the *_ci95 columns) each figure gets its error bar.  The
 * plot is written as a gnuplot script with the data inline, so
 * `--script` shows exactly what gnuplot is given.
 *
 * Measured points.  `--points FILE` marks measurements on a queue-depth
 * plot: a CSV with the columns array, rw, bs, iodepth, value and unit
 * (IOPS or MB/s), one row per point.  Each lands in the panel of its
 * pattern, in the colour of its array's line, as an open marker, so a
 * prediction and the figure it is judged against are read together.
 * scripts/validation-plots.sh writes such a file from published.csv.
 *
 * Bars.  Given the CSV of `raidsim validate --format csv` (columns id,
 * unit, published, predicted) instead of a sweep, it draws published
 * against predicted as pairs of bars.  A row's id is split at its last
 * '-': what comes before names the panel (with the unit, since MB/s and
 * IOPS share no axis), what comes after labels the pair, so
 * cdm-new-r0-50m-seqr is the pair "seqr" in panel "cdm-new-r0-50m".
 * With --group case the panel is the row's case instead, and the pair
 * is labelled with the whole id.  Fitted rows are labelled with a '*'.
 *
 * Run:
 *   build/raidsim/raidsim sweep configs/arrays/raid0-4x-sata-ssd.ini \
 *       --workload configs/workloads/randread-4k-qd8.fio --qd-per-member \
 *       --vary level=0,1,10 --vary members=2,4,8 --format csv > grid.csv
 *   build/raidsim/raidsim plot grid.csv -o grid.png
 *   build/raidsim/raidsim plot grid.csv -o heat.png --layout heatmap
 *   build/raidsim/raidsim sweep configs/arrays/single-optane-900p.ini \
 *       configs/arrays/raid0-2x-optane-vroc.ini --workload four-corners \
 *       --format csv > fc.csv
 *   build/raidsim/raidsim plot fc.csv -o fc.png
 *   build/raidsim/raidsim validate --require none --case hdd-raid0-raid10 \
 *       --format csv > cdm.csv
 *   build/raidsim/raidsim plot cdm.csv -o cdm.svg
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "raidsim/config.h"
#include "raidsim/csv.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"
#include "raidsim/geometry.h"
#include "cmd.h"
#include "options.h"
#include "util.h"

#define CMD PROGRAM_NAME " plot"

enum metric { METRIC_AUTO, METRIC_IOPS, METRIC_MBPS };

/* One line of the sweep, as much of it as a plot needs. */
struct row {
  char array[64];
  char job[64];
  unsigned nvary;               /* the varied keys, as the sweep gave them */
  char vary[4][16];
  char value[4][32];
  int rw;
  uint64_t bs, iodepth;
  double iops[2], bw[2];
  /* Over several seeds (sweep --seeds): each figure's 95% half-width. */
  bool has_ci;
  double ci_iops[2], ci_bw[2];
};

struct rows {
  struct row *r;
  size_t n, cap;
};

/* A measured point to mark (--points): value in IOPS or bytes/s. */
struct point {
  char array[64];
  int rw;
  uint64_t bs, iodepth;
  double value;
  bool iops;
};

struct points {
  struct point *p;
  size_t n, cap;
};

/* One row of `raidsim validate --format csv`, for bars. */
struct bar {
  char panel[64];
  char label[64];
  char unit[16];
  double published, predicted;
};

struct bars {
  struct bar *b;
  size_t n, cap;
};

/* Grow a table of elements of size `size` by one, zeroed. */
static void *
grow (void **v, size_t *n, size_t *cap, size_t size)
{
  char *e;

  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 64;
    void *nv = realloc (*v, c * size);

    if (nv == NULL)
      return NULL;
    *v = nv;
    *cap = c;
  }
  e = (char *) *v + (*n)++ * size;
  memset (e, 0, size);
  return e;
}

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s SWEEP.csv|SWEEP.json -o OUT.png|OUT.svg\n"
           "       [--layout panels|lines|heatmap] [--x KEY]\n"
           "       [--metric auto|iops|mbps] [--points POINTS.csv]\n"
           "       [--log-y] [--title TEXT] [--script]\n"
           "       %s VALIDATE.csv -o OUT.png|OUT.svg [--group prefix|case]\n"
           "       [--title TEXT] [--script]\n"
           "\n"
           "Draw the output of `raidsim sweep --format csv` (or json): a\n"
           "panel per access pattern, a line per array, against queue\n"
           "depth or the varied parameter.  --points marks measured\n"
           "points on a queue-depth plot: a CSV with the columns array,\n"
           "rw, bs, iodepth, value, unit (IOPS or MB/s).  --log-y puts\n"
           "the y axis on a log scale.\n"
           "\n"
           "A grid (several --vary): --x KEY goes across (default: the\n"
           "first key whose values are numbers); each other key makes a\n"
           "panel per value (--layout panels, the default) or a line per\n"
           "value (--layout lines).  --layout heatmap: a cell per pair of\n"
           "values, coloured and labelled by its figure, a panel per\n"
           "array.  Levels are categories, never joined by a line.\n"
           "Columns *_ci95 (sweep --seeds) are drawn as error bars.\n"
           "\n"
           "Given the CSV of `raidsim validate --format csv`, draw\n"
           "published against predicted as pairs of bars, a panel per\n"
           "id prefix (the id up to its last '-') and unit, or with\n"
           "--group case a panel per case and unit; '*' marks fitted\n"
           "rows.\n"
           "\n"
           "Needs gnuplot (Debian: gnuplot-nox); the terminal is\n"
           "pngcairo or svg, chosen by OUT's extension.  --script prints\n"
           "the gnuplot script instead of running it.\n"
           "\n"
           "Options:\n"
           "  -o, --output OUT     the PNG or SVG file to write\n"
           "  -m, --metric M       sweeps: auto (default), iops or mbps\n"
           "      --layout L       sweeps with varied keys: panels\n"
           "                       (default), lines or heatmap\n"
           "      --x KEY          sweeps: the varied key across the x axis\n"
           "                       (default: the first whose values are\n"
           "                       numbers)\n"
           "      --points CSV     sweeps: measured points to mark\n"
           "      --log-y          sweeps: a log scale on the y axis\n"
           "      --group G        validate: a panel per id prefix\n"
           "                       (default) or per case\n"
           "  -t, --title TEXT     the plot's title\n"
           "  -S, --script         print the gnuplot script, run nothing\n"
           "  -h, --help           show this help\n",
           CMD, CMD);
}

static struct row *
add_row (struct rows *rs)
{
  if (rs->n == rs->cap) {
    size_t cap = rs->cap ? 2 * rs->cap : 64;
    struct row *r = realloc (rs->r, cap * sizeof *r);

    if (r == NULL)
      return NULL;
    rs->r = r;
    rs->cap = cap;
  }
  memset (&rs->r[rs->n], 0, sizeof rs->r[0]);
  return &rs->r[rs->n++];
}

static int
rw_of (const char *name)
{
  int rw;

  for (rw = RAIDSIM_RW_READ; rw <= RAIDSIM_RW_RANDMIXED; ++rw)
    if (strcmp (raidsim_rw_name (rw), name) == 0)
      return rw;
  return -1;
}

/* ---- reading CSV ---- */

static bool
is_vary_key (const char *name)
{
  return strcmp (name, "qd") == 0 || strcmp (name, "chunk") == 0 ||
    strcmp (name, "members") == 0 || strcmp (name, "level") == 0;
}

/* The rows of a sweep's CSV, after its header. */
static int
read_sweep_csv (struct raidsim_csv *c, const struct raidsim_csv_row *header,
                struct rows *rs)
{
  static const char *const want[] = {
    "array", "job", "rw", "bs", "iodepth",
    "read_iops", "read_bw_bytes", "write_iops", "write_bw_bytes",
  };
  enum { NWANT = sizeof want / sizeof want[0] };
  /* Over several seeds (sweep --seeds), each figure's 95% half-width. */
  static const char *const ci_names[] = {
    "read_iops_ci95", "read_bw_bytes_ci95",
    "write_iops_ci95", "write_bw_bytes_ci95",
  };
  struct raidsim_csv_row row;
  int col[NWANT], r, kcol[4], ci_col[4] = { -1, -1, -1, -1 };
  int vary_col = -1, value_col = -1;
  unsigned nk = 0, i, k;
  char kname[4][16];

  if (raidsim_csv_columns (c, header, want, NWANT, col,
                           "the CSV of `raidsim sweep --format csv`") == -1)
    return -1;
  /* A column per varied key, named by the key, between "array" and
   * "job" (whatever the keys are); or, from older sweeps, the one key
   * in "vary" and its value in "value".
   */
  for (i = 0; i < header->n; ++i) {
    if (strcmp (header->field[i], "vary") == 0)
      vary_col = i;
    else if (strcmp (header->field[i], "value") == 0)
      value_col = i;
    else if (nk < 4 && (col[0] < col[1]
                        ? (int) i > col[0] && (int) i < col[1]
                        : is_vary_key (header->field[i]))) {
      /* The header's text is gone once the next row is read. */
      snprintf (kname[nk], sizeof kname[nk], "%.15s", header->field[i]);
      kcol[nk++] = i;
    }
    for (k = 0; k < 4; ++k)
      if (strcmp (header->field[i], ci_names[k]) == 0)
        ci_col[k] = i;
  }
  while ((r = raidsim_csv_next (c, &row)) == 1) {
    char **f = row.field;
    struct row *rw = add_row (rs);

    if (rw == NULL) {
      raidsim_set_error ("%s: %s", raidsim_csv_name (c), strerror (ENOMEM));
      return -1;
    }
    snprintf (rw->array, sizeof rw->array, "%s", f[col[0]]);
    for (k = 0; k < nk; ++k) {
      memcpy (rw->vary[k], kname[k], sizeof rw->vary[k]);
      snprintf (rw->value[k], sizeof rw->value[k], "%.31s", f[kcol[k]]);
    }
    rw->nvary = nk;
    if (nk == 0 && vary_col >= 0 && value_col >= 0 && f[vary_col][0]) {
      snprintf (rw->vary[0], sizeof rw->vary[0], "%.15s", f[vary_col]);
      snprintf (rw->value[0], sizeof rw->value[0], "%.31s", f[value_col]);
      rw->nvary = 1;
    }
    snprintf (rw->job, sizeof rw->job, "%s", f[col[1]]);
    rw->rw = rw_of (f[col[2]]);
    rw->bs = strtoull (f[col[3]], NULL, 10);
    rw->iodepth = strtoull (f[col[4]], NULL, 10);
    rw->iops[0] = strtod (f[col[5]], NULL);
    rw->bw[0] = strtod (f[col[6]], NULL);
    rw->iops[1] = strtod (f[col[7]], NULL);
    rw->bw[1] = strtod (f[col[8]], NULL);
    rw->has_ci = ci_col[0] >= 0 && ci_col[1] >= 0 && ci_col[2] >= 0 &&
      ci_col[3] >= 0;
    if (rw->has_ci) {
      rw->ci_iops[0] = strtod (f[ci_col[0]], NULL);
      rw->ci_bw[0] = strtod (f[ci_col[1]], NULL);
      rw->ci_iops[1] = strtod (f[ci_col[2]], NULL);
      rw->ci_bw[1] = strtod (f[ci_col[3]], NULL);
    }
    if (rw->rw < 0) {
      raidsim_set_error ("%s:%u: rw: '%s' is not an fio rw value",
                         raidsim_csv_name (c), row.line, f[col[2]]);
      return -1;
    }
  }
  return r;
}

static int
read_points (const char *path, struct points *ps)
{
  static const char *const want[] = {
    "array", "rw", "bs", "iodepth", "value", "unit",
  };
  enum { NWANT = sizeof want / sizeof want[0] };
  struct raidsim_csv *c = raidsim_csv_open (path, RAIDSIM_CSV_COMMENTS);
  struct raidsim_csv_row row;
  int col[NWANT], ret = -1, r;

  if (c == NULL) {
    raidsim_set_error ("--points: %s", raidsim_error ());
    return -1;
  }
  if (raidsim_csv_header (c, want, NWANT, col,
                          "a points file (array,rw,bs,iodepth,value,unit)")
      == -1)
    goto out;
  while ((r = raidsim_csv_next (c, &row)) == 1) {
    char **f = row.field;
    struct point *pt;

    pt = grow ((void **) &ps->p, &ps->n, &ps->cap, sizeof *pt);
    if (pt == NULL) {
      raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
      goto out;
    }
    snprintf (pt->array, sizeof pt->array, "%s", f[col[0]]);
    pt->rw = rw_of (f[col[1]]);
    pt->bs = strtoull (f[col[2]], NULL, 10);
    pt->iodepth = strtoull (f[col[3]], NULL, 10);
    pt->value = strtod (f[col[4]], NULL);
    if (pt->rw < 0) {
      raidsim_set_error ("%s:%u: rw: '%s' is not an fio rw value", path,
                         row.line, f[col[1]]);
      goto out;
    }
    if (strcmp (f[col[5]], "IOPS") == 0)
      pt->iops = true;
    else if (strcmp (f[col[5]], "MB/s") == 0)
      pt->value *= 1e6;
    else {
      raidsim_set_error ("%s:%u: unit: '%s' is not IOPS or MB/s", path,
                         row.line, f[col[5]]);
      goto out;
    }
  }
  if (r == 0)
    ret = 0;
 out:
  raidsim_csv_close (c);
  return ret;
}

/* The rows of `raidsim validate --format csv`, after its header. */
static int
read_bars (struct raidsim_csv *c, const struct raidsim_csv_row *header,
           bool by_case, struct bars *bs)
{
  static const char *const want[] = {
    "id", "unit", "published", "predicted", "fitted", "case",
  };
  enum { NWANT = sizeof want / sizeof want[0] };
  struct raidsim_csv_row row;
  int col[NWANT], r;

  if (raidsim_csv_columns (c, header, want, NWANT, col,
                           "the CSV of `raidsim validate --format csv`") == -1)
    return -1;
  while ((r = raidsim_csv_next (c, &row)) == 1) {
    char **f = row.field;
    struct bar *b;
    const char *id, *dash;

    b = grow ((void **) &bs->b, &bs->n, &bs->cap, sizeof *b);
    if (b == NULL) {
      raidsim_set_error ("%s: %s", raidsim_csv_name (c), strerror (ENOMEM));
      return -1;
    }
    id = f[col[0]];
    if (by_case) {
      snprintf (b->panel, sizeof b->panel, "%s", f[col[5]]);
      snprintf (b->label, sizeof b->label, "%s%s", id,
                strcmp (f[col[4]], "yes") == 0 ? "*" : "");
      goto values;
    }
    dash = strrchr (id, '-');
    if (dash == NULL || dash == id || dash[1] == '\0') {
      raidsim_set_error ("%s:%u: id '%s' has no '-' to split into a panel "
                         "and a label", raidsim_csv_name (c), row.line, id);
      return -1;
    }
    snprintf (b->panel, sizeof b->panel, "%.*s", (int) (dash - id), id);
    snprintf (b->label, sizeof b->label, "%s%s", dash + 1,
              strcmp (f[col[4]], "yes") == 0 ? "*" : "");
  values:
    snprintf (b->unit, sizeof b->unit, "%s", f[col[1]]);
    b->published = strtod (f[col[2]], NULL);
    b->predicted = strtod (f[col[3]], NULL);
  }
  return r;
}

/* ---- reading JSON ---- */

static const char *
jstr (json_object *o, const char *key)
{
  json_object *v;

  return json_object_object_get_ex (o, key, &v) ? json_object_get_string (v)
    : "";
}

static double
jnum (json_object *o, const char *dir, const char *key)
{
  json_object *d, *v;

  if (!json_object_object_get_ex (o, dir, &d) ||
      !json_object_object_get_ex (d, key, &v))
    return 0;
  return json_object_get_double (v);
}

static int
read_json (const char *path, struct rows *rs)
{
  json_object *root = json_object_from_file (path), *pts, *keys = NULL;
  size_t i, n, k, nk = 0;
  int ret = -1;

  if (root == NULL) {
    raidsim_set_error ("%s: not JSON: %s", path, json_util_get_last_err ());
    return -1;
  }
  if (!json_object_object_get_ex (root, "points", &pts) ||
      !json_object_is_type (pts, json_type_array)) {
    raidsim_set_error ("%s: no \"points\" array: not the JSON of "
                       "`raidsim sweep --format json`", path);
    goto out;
  }
  /* "vary": the keys in order, each a member of every point; older
   * sweeps gave one key as a string, its value in each point's "value".
   */
  if (json_object_object_get_ex (root, "vary", &keys) &&
      json_object_is_type (keys, json_type_array))
    nk = json_object_array_length (keys);
  if (nk > 4)
    nk = 4;
  n = json_object_array_length (pts);
  for (i = 0; i < n; ++i) {
    json_object *o = json_object_array_get_idx (pts, i), *v;
    struct row *row = add_row (rs);

    if (row == NULL) {
      raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
      goto out;
    }
    snprintf (row->array, sizeof row->array, "%s", jstr (o, "array"));
    for (k = 0; k < nk; ++k) {
      const char *key =
        json_object_get_string (json_object_array_get_idx (keys, k));

      snprintf (row->vary[k], sizeof row->vary[k], "%s", key ? key : "");
      snprintf (row->value[k], sizeof row->value[k], "%s",
                jstr (o, key ? key : ""));
    }
    row->nvary = nk;
    if (nk == 0 && jstr (o, "vary")[0]) {
      snprintf (row->vary[0], sizeof row->vary[0], "%s", jstr (o, "vary"));
      snprintf (row->value[0], sizeof row->value[0], "%s",
                jstr (o, "value"));
      row->nvary = 1;
    }
    snprintf (row->job, sizeof row->job, "%s", jstr (o, "jobname"));
    row->rw = rw_of (jstr (o, "rw"));
    row->bs = json_object_object_get_ex (o, "bs", &v)
      ? (uint64_t) json_object_get_int64 (v) : 0;
    row->iodepth = json_object_object_get_ex (o, "iodepth", &v)
      ? (uint64_t) json_object_get_int64 (v) : 0;
    row->iops[0] = jnum (o, "read", "iops");
    row->bw[0] = jnum (o, "read", "bw_bytes");
    row->iops[1] = jnum (o, "write", "iops");
    row->bw[1] = jnum (o, "write", "bw_bytes");
    /* Over several seeds: "ci95" holds each figure's half-width. */
    if (json_object_object_get_ex (o, "ci95", &v)) {
      row->has_ci = true;
      row->ci_iops[0] = jnum (v, "read", "iops");
      row->ci_bw[0] = jnum (v, "read", "bw_bytes");
      row->ci_iops[1] = jnum (v, "write", "iops");
      row->ci_bw[1] = jnum (v, "write", "bw_bytes");
    }
    if (row->rw < 0) {
      raidsim_set_error ("%s: points[%zu]: rw: '%s' is not an fio rw value",
                         path, i, jstr (o, "rw"));
      goto out;
    }
  }
  ret = 0;
 out:
  json_object_put (root);
  return ret;
}

/* ---- the plot ---- */

static bool
is_write (int rw)
{
  return rw == RAIDSIM_RW_WRITE || rw == RAIDSIM_RW_RANDWRITE;
}

static void
pattern_title (const struct row *r, char *buf, size_t len)
{
  char bs[32];

  raidsim_param_format_value (RAIDSIM_PT_SIZE, r->bs, bs, sizeof bs);
  snprintf (buf, len, "%s %s %s",
            raidsim_rw_is_random (r->rw) ? "random" : "sequential",
            r->rw == RAIDSIM_RW_MIXED || r->rw == RAIDSIM_RW_RANDMIXED
            ? "mixed" : is_write (r->rw) ? "write" : "read", bs);
}

static double
y_of (const struct row *r, enum metric m, bool *iops)
{
  int d = is_write (r->rw) ? 1 : 0;

  *iops = m == METRIC_IOPS ||
    (m == METRIC_AUTO && raidsim_rw_is_random (r->rw));
  /* Thousands of IOPS keep the tics short ("400", not "400000"). */
  return *iops ? r->iops[d] / 1e3 : r->bw[d] / 1e6;
}

/* gnuplot string: double quotes, with backslashes and quotes escaped. */
static void
gp_string (FILE *fp, const char *s)
{
  fputc ('"', fp);
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\')
      fputc ('\\', fp);
    fputc (*s, fp);
  }
  fputc ('"', fp);
}

/* A point's pattern, as pattern_title names it. */
static void
point_title (const struct point *pt, char *buf, size_t len)
{
  struct row r = { .rw = pt->rw, .bs = pt->bs };

  pattern_title (&r, buf, len);
}

/* A point's height in a panel of IOPS (thousands) or of MB/s: a figure
 * given in the other unit is converted with its block size.
 */
static double
point_y (const struct point *pt, bool iops)
{
  if (iops)
    return (pt->iops ? pt->value : pt->value / pt->bs) / 1e3;
  return (pt->iops ? pt->value * pt->bs : pt->value) / 1e6;
}

/* Every point must land in a panel; one that does not is a mistake in
 * the file (or the wrong sweep), not something to drop quietly.
 */
static int
check_points (const struct rows *rs, const struct points *pts,
              const char *path)
{
  size_t i, k;

  for (k = 0; k < pts->n; ++k) {
    char t[64], u[64];
    bool found = false;

    point_title (&pts->p[k], t, sizeof t);
    for (i = 0; i < rs->n && !found; ++i) {
      pattern_title (&rs->r[i], u, sizeof u);
      found = strcmp (t, u) == 0;
    }
    if (!found) {
      raidsim_set_error ("--points: %s: the sweep has no panel '%s' for %s "
                         "at QD %" PRIu64, path, t, pts->p[k].array,
                         pts->p[k].iodepth);
      return -1;
    }
  }
  return 0;
}

/* ---- the plot of a sweep ----
 *
 * A sweep's rows have up to four varied keys, the array and the job.
 * Each of those is a dimension; the layout decides what each does:
 *
 *   panels (default)  one key on the x axis, a line per array (and per
 *                     job where several share a pattern), a panel per
 *                     access pattern and value of every other key;
 *   heatmap           one key across, another (or the arrays, with one
 *                     key and several arrays) up, a cell per pair
 *                     coloured and labelled by its figure, a panel per
 *                     pattern and whatever is left.
 *
 * The x key is --x's, or else the first key whose values are numbers
 * (members, not level), so `--vary level=0,10 --vary members=2,4,8`
 * draws members across and a panel per level.  Keys whose values are
 * not numbers (level, or any value that does not parse) are categories:
 * evenly spaced, labelled by name, drawn as points and never joined by
 * a line, since nothing lies between RAID 1 and RAID 10.
 */

enum { DIM_ARRAY = 4, DIM_JOB, NDIMS };
#define DIM_IODEPTH (-1)        /* the jobs' own queue depth (no key) */

struct plot {
  const struct rows *rs;
  unsigned nkeys;
  size_t nval[NDIMS];
  char (*val[NDIMS])[64];       /* each dimension's values, in order */
  bool cat[NDIMS];              /* categorical */
  int x, y;                     /* x dimension (or DIM_IODEPTH); heat
                                 * map: y dimension */
  bool panel[NDIMS];            /* dimensions that split panels */
  bool line[NDIMS];             /* ... that split lines (panels layout) */
  bool heatmap, ci;
};

static const char *
dim_value (const struct row *r, int d)
{
  return d == DIM_ARRAY ? r->array : d == DIM_JOB ? r->job : r->value[d];
}

static const char *
dim_name (const struct plot *pl, int d)
{
  return d == DIM_ARRAY ? "array" : d == DIM_JOB ? "job"
    : pl->rs->r[0].vary[d];
}

static size_t
dim_index (const struct plot *pl, int d, const char *v)
{
  size_t i;

  for (i = 0; i < pl->nval[d] && strcmp (pl->val[d][i], v) != 0; ++i)
    ;
  return i;
}

/* A value as a tic: RAID levels by name, the rest as the sweep wrote. */
static void
tic_label (const struct plot *pl, int d, const char *v, char *buf,
           size_t len)
{
  if (d < DIM_ARRAY && strcmp (dim_name (pl, d), "level") == 0 &&
      v[0] >= '0' && v[0] <= '9')
    snprintf (buf, len, "RAID %s", v);
  else
    snprintf (buf, len, "%s", v);
}

/* A value in a panel's title: "RAID 10", "4 members", "chunk 64K". */
static void
title_label (const struct plot *pl, int d, const char *v, char *buf,
             size_t len)
{
  const char *k = dim_name (pl, d);

  if (d >= DIM_ARRAY || strcmp (k, "level") == 0)
    tic_label (pl, d, v, buf, len);
  else if (strcmp (k, "members") == 0)
    snprintf (buf, len, "%s members", v);
  else if (strcmp (k, "qd") == 0)
    snprintf (buf, len, "QD %s", v);
  else
    snprintf (buf, len, "%s %s", k, v);
}

/* The axis label of a dimension, with its unit. */
static const char *
axis_label (const struct plot *pl, int d)
{
  const char *k;

  if (d == DIM_IODEPTH)
    return "queue depth (I/Os in flight)";
  k = dim_name (pl, d);
  if (strcmp (k, "qd") == 0)
    return "queue depth (I/Os in flight)";
  if (strcmp (k, "chunk") == 0)
    return "chunk (KiB)";
  if (strcmp (k, "members") == 0)
    return "members (drives)";
  if (strcmp (k, "level") == 0)
    return "RAID level";
  return k;
}

/* A numeric value's place on its axis: chunks in KiB, the rest as
 * written.  Returns false for a value that is no number.
 */
static bool
numeric_value (const char *key, const char *v, double *x)
{
  uint64_t b;
  char *end;

  if (strcmp (key, "chunk") == 0) {
    if (raid_parse_size (v, &b) != 0)
      return false;
    *x = b / 1024.0;
    return true;
  }
  if (strcmp (key, "level") == 0 || v[0] == '\0')
    return false;
  *x = strtod (v, &end);
  return *end == '\0';
}

/* Where a row sits across: its category's index, or its number. */
static double
x_pos (const struct plot *pl, const struct row *r)
{
  double x = 0;

  if (pl->x == DIM_IODEPTH)
    return r->iodepth;
  if (pl->cat[pl->x] || pl->heatmap)
    return dim_index (pl, pl->x, dim_value (r, pl->x));
  numeric_value (dim_name (pl, pl->x), dim_value (r, pl->x), &x);
  return x;
}

/* The label of a row's panel or line: its values of the chosen
 * dimensions, joined by sep.
 */
static void
row_label (const struct plot *pl, const struct row *r, const bool *dims,
           const char *sep, char *buf, size_t len)
{
  size_t n = 0;
  int i;

  buf[0] = '\0';
  /* The array and the job first, then the keys in the sweep's order. */
  for (i = 0; i < NDIMS && n + 1 < len; ++i) {
    char v[96];
    int d = (i + DIM_ARRAY) % NDIMS;

    if (!dims[d] || (d < DIM_ARRAY && (unsigned) d >= pl->nkeys))
      continue;
    title_label (pl, d, dim_value (r, d), v, sizeof v);
    n += snprintf (buf + n, len - n, "%s%s", n ? sep : "", v);
  }
}

/* Two rows of one pattern, array and run, that only their jobs tell
 * apart.
 */
static bool
same_but_job (const struct plot *pl, const struct row *a, const struct row *b)
{
  unsigned k;

  if (a->rw != b->rw || a->bs != b->bs || strcmp (a->array, b->array) != 0)
    return false;
  for (k = 0; k < pl->nkeys; ++k)
    if (strcmp (a->value[k], b->value[k]) != 0)
      return false;
  return strcmp (a->job, b->job) != 0;
}

static void
add_value (struct plot *pl, int d, const char *v)
{
  if (dim_index (pl, d, v) == pl->nval[d])
    snprintf (pl->val[d][pl->nval[d]++], sizeof pl->val[d][0], "%s", v);
}

/* Lay out the plot: the values of every dimension, which are
 * categories, and what goes across, up, into panels and into lines.
 * Returns 0, or -1 with raidsim_error () set.
 */
enum layout { LAYOUT_PANELS, LAYOUT_LINES, LAYOUT_HEATMAP };

static int
plan_plot (struct plot *pl, const struct rows *rs, const char *xkey,
           enum layout layout)
{
  size_t i, npat = 0;
  int d;
  char (*pat)[64];

  memset (pl, 0, sizeof *pl);
  pl->rs = rs;
  pl->heatmap = layout == LAYOUT_HEATMAP;
  pl->nkeys = rs->r[0].nvary;
  for (d = 0; d < NDIMS; ++d)
    if ((pl->val[d] = calloc (rs->n, sizeof pl->val[d][0])) == NULL)
      abort ();
  pat = calloc (rs->n, sizeof *pat);
  if (pat == NULL)
    abort ();
  for (i = 0; i < rs->n; ++i) {
    char t[64];
    size_t p;

    for (d = 0; d < NDIMS; ++d)
      if (d >= DIM_ARRAY || (unsigned) d < pl->nkeys)
        add_value (pl, d, dim_value (&rs->r[i], d));
    pl->ci |= rs->r[i].has_ci;
    pattern_title (&rs->r[i], t, sizeof t);
    for (p = 0; p < npat && strcmp (pat[p], t) != 0; ++p)
      ;
    if (p == npat)
      snprintf (pat[npat++], sizeof pat[0], "%s", t);
  }
  free (pat);
  pl->cat[DIM_ARRAY] = pl->cat[DIM_JOB] = true;
  for (d = 0; d < (int) pl->nkeys; ++d)
    for (i = 0; i < pl->nval[d]; ++i) {
      double x;

      pl->cat[d] |= !numeric_value (dim_name (pl, d), pl->val[d][i], &x);
    }

  /* Across: --x's key, else the first numeric key, else the first. */
  pl->x = pl->nkeys ? 0 : DIM_IODEPTH;
  if (xkey) {
    for (d = 0; d < (int) pl->nkeys && strcmp (dim_name (pl, d), xkey); ++d)
      ;
    if (d == (int) pl->nkeys) {
      raidsim_set_error ("--x: '%s' is not a varied key of this sweep%s%s",
                         xkey, pl->nkeys ? "; it varies " : "",
                         pl->nkeys ? pl->rs->r[0].vary[0] : "");
      return -1;
    }
    pl->x = d;
  }
  else
    for (d = (int) pl->nkeys - 1; d >= 0; --d)
      if (!pl->cat[d])
        pl->x = d;

  /* Several jobs of one pattern in one run (cdm's QD1 and QD32 reads)
   * are lines of their own, except against the jobs' own depth, where
   * they are the points of one line.  A job renamed by the depth it
   * runs at (qd=, --qd-per-member) stays one line.
   */
  if (pl->x != DIM_IODEPTH)
    for (i = 0; i < rs->n && !pl->line[DIM_JOB]; ++i) {
      size_t j;

      for (j = 0; j < i && !pl->line[DIM_JOB]; ++j)
        pl->line[DIM_JOB] = same_but_job (pl, &rs->r[i], &rs->r[j]);
    }
  /* The array names its lines when there are several, or when nothing
   * else would (one array, one job per pattern).
   */
  pl->line[DIM_ARRAY] = pl->nval[DIM_ARRAY] > 1 || !pl->line[DIM_JOB];
  /* The other keys split panels, or with --layout lines, lines. */
  for (d = 0; d < (int) pl->nkeys; ++d) {
    pl->panel[d] = d != pl->x && layout != LAYOUT_LINES;
    pl->line[d] = d != pl->x && layout == LAYOUT_LINES;
  }

  if (pl->heatmap) {
    if (pl->x == DIM_IODEPTH) {
      raidsim_set_error ("--layout heatmap: needs a varied key (--vary); "
                         "this sweep varies none");
      return -1;
    }
    pl->y = -1;
    for (d = 0; d < (int) pl->nkeys && pl->y < 0; ++d)
      if (d != pl->x)
        pl->y = d;
    if (pl->y < 0 && pl->nval[DIM_ARRAY] > 1)
      pl->y = DIM_ARRAY;
    if (pl->y < 0) {
      raidsim_set_error ("--layout heatmap: needs two varied keys, or one "
                         "and several arrays");
      return -1;
    }
    pl->panel[pl->y] = false;
    /* What was a line is a panel: one heat map per array and job. */
    pl->panel[DIM_ARRAY] = pl->y != DIM_ARRAY && pl->nval[DIM_ARRAY] > 1;
    pl->panel[DIM_JOB] = pl->line[DIM_JOB];
    pl->line[DIM_ARRAY] = pl->line[DIM_JOB] = false;
  }
  return 0;
}

static void
free_plot (struct plot *pl)
{
  int d;

  for (d = 0; d < NDIMS; ++d)
    free (pl->val[d]);
}

/* The 95% half-width of a row's figure, in the figure's unit. */
static double
ci_of (const struct row *r, bool iops)
{
  int d = is_write (r->rw) ? 1 : 0;

  return iops ? r->ci_iops[d] / 1e3 : r->ci_bw[d] / 1e6;
}

struct xyz {
  double x, y, e;
};

static int
cmp_xyz (const void *a, const void *b)
{
  const struct xyz *p = a, *q = b;

  return (p->x > q->x) - (p->x < q->x);
}

/* Categorical tics: every value at its index, by name. */
static void
write_cat_tics (FILE *fp, const struct plot *pl, int d, char axis)
{
  size_t i;

  fprintf (fp, "set %ctics (", axis);
  for (i = 0; i < pl->nval[d]; ++i) {
    char t[96];

    tic_label (pl, d, pl->val[d][i], t, sizeof t);
    fprintf (fp, "%s", i ? ", " : "");
    gp_string (fp, t);
    fprintf (fp, " %zu", i);
  }
  fprintf (fp, ")\nset %crange [-0.5:%zu.5]\n", axis,
           pl->nval[d] ? pl->nval[d] - 1 : 0);
}

static void
write_script (FILE *fp, const struct plot *pl, const struct points *pts,
              const char *out, bool svg, enum metric m, bool log_y,
              const char *title)
{
  const struct rows *rs = pl->rs;
  char (*panel)[192] = calloc (rs->n, sizeof *panel);
  char (*pat)[64] = calloc (rs->n, sizeof *pat);
  double *pat_max = calloc (rs->n, sizeof *pat_max);
  size_t *panel_pat = calloc (rs->n, sizeof *panel_pat);
  char (*line)[160] = calloc (rs->n, sizeof *line);
  struct xyz *xy = calloc (rs->n, sizeof *xy);
  size_t npanel = 0, npat = 0, ncombo = 0, i, j, p, cols, nrows, width;
  bool log_x, cat_x;
  char (*combo)[160] = calloc (rs->n, sizeof *combo);
  const char *xname = pl->x == DIM_IODEPTH ? "qd" : dim_name (pl, pl->x);

  if (panel == NULL || pat == NULL || pat_max == NULL || line == NULL ||
      panel_pat == NULL || xy == NULL || combo == NULL)
    abort ();
  cat_x = pl->heatmap || (pl->x != DIM_IODEPTH && pl->cat[pl->x]);
  log_x = !cat_x && (strcmp (xname, "qd") == 0 ||
                     strcmp (xname, "chunk") == 0);

  /* Panels: pattern by pattern, and within one, the values of the
   * other dimensions as they first appear; so the multiplot's rows are
   * the patterns and its columns the other key's values.  Each
   * pattern's highest figure sets the scale of all its panels, so that
   * panels side by side compare.
   */
  for (i = 0; i < rs->n; ++i) {
    char t[64], c[160];
    bool iops;
    double y = y_of (&rs->r[i], m, &iops) + ci_of (&rs->r[i], iops);

    pattern_title (&rs->r[i], t, sizeof t);
    for (p = 0; p < npat && strcmp (pat[p], t) != 0; ++p)
      ;
    if (p == npat)
      snprintf (pat[npat++], sizeof pat[0], "%s", t);
    if (y > pat_max[p])
      pat_max[p] = y;
    row_label (pl, &rs->r[i], pl->panel, ", ", c, sizeof c);
    for (j = 0; j < ncombo && strcmp (combo[j], c) != 0; ++j)
      ;
    if (j == ncombo)
      snprintf (combo[ncombo++], sizeof combo[0], "%s", c);
  }
  for (p = 0; p < npat; ++p)
    for (j = 0; j < ncombo; ++j) {
      for (i = 0; i < rs->n; ++i) {
        char t[64], c[160];

        pattern_title (&rs->r[i], t, sizeof t);
        row_label (pl, &rs->r[i], pl->panel, ", ", c, sizeof c);
        if (strcmp (t, pat[p]) == 0 && strcmp (c, combo[j]) == 0)
          break;
      }
      if (i == rs->n)
        continue;
      if (combo[j][0])
        snprintf (panel[npanel], sizeof panel[0], "%s, %s", pat[p],
                  combo[j]);
      else
        snprintf (panel[npanel], sizeof panel[0], "%s", pat[p]);
      panel_pat[npanel++] = p;
    }
  if (ncombo > 1 && ncombo <= 4)
    cols = ncombo;
  else
    cols = npanel <= 1 ? 1 : npanel <= 4 ? 2 : 3;
  nrows = (npanel + cols - 1) / cols;
  width = pl->heatmap ? 480 : 560;

  fprintf (fp, "# raidsim plot: %zu points, %zu panels, %s, x %s\n",
           rs->n, npanel, pl->heatmap ? "heat map" : "lines in panels",
           xname);
  if (svg)
    fprintf (fp, "set terminal svg size %zu,%zu noenhanced font "
             "'sans,11' background '#ffffff'\n", width * cols, 400 * nrows);
  else
    fprintf (fp, "set terminal pngcairo size %zu,%zu noenhanced font "
             "'sans,10' background '#ffffff'\n", width * cols, 400 * nrows);
  fprintf (fp, "set output ");
  gp_string (fp, out);
  fprintf (fp, "\n");
  if (pl->heatmap)
    /* Light to dark, so the black figures in the cells stay legible. */
    fprintf (fp, "unset grid\nunset key\n"
             "set palette defined (0 '#ffffe5', 1 '#fee391', 2 '#fe9929', "
             "3 '#cc4c02')\nset style textbox opaque noborder\n");
  else {
    /* The key goes below the panels, where it hides no curve; the
     * offset keeps a flat top line off the frame.
     */
    fprintf (fp, "set grid\nset key below\n"
             "set offsets graph 0.04, graph 0.04, 0, 0\n"
             "set style data linespoints\n");
    /* A log axis shows a QD1 figure ten times below the QD32 one. */
    if (log_y)
      fprintf (fp, "set logscale y 10\n");
  }
  fprintf (fp, "set multiplot layout %zu,%zu title ", nrows, cols);
  gp_string (fp, title);
  fprintf (fp, "\n");

  for (p = 0; p < npanel; ++p) {
    size_t nlines = 0, l;
    bool iops = false;

    fprintf (fp, "set title ");
    gp_string (fp, panel[p]);
    fprintf (fp, "\nset xlabel ");
    gp_string (fp, axis_label (pl, pl->x));
    /* Raised a little, clear of the key below it. */
    fprintf (fp, "%s\n", pl->heatmap ? "" : " offset 0,0.5");
    if (log_x)
      fprintf (fp, "set logscale x 2\n");
    else
      fprintf (fp, "unset logscale x\n");
    if (cat_x)
      write_cat_tics (fp, pl, pl->x, 'x');
    else if (pl->x != DIM_IODEPTH) {
      /* A tic at each value, as the sweep wrote it ("64K"). */
      fprintf (fp, "set xtics (");
      for (i = 0; i < pl->nval[pl->x]; ++i) {
        double x = 0;

        numeric_value (xname, pl->val[pl->x][i], &x);
        fprintf (fp, "%s", i ? ", " : "");
        gp_string (fp, pl->val[pl->x][i]);
        fprintf (fp, " %.6g", x);
      }
      fprintf (fp, ")\nset autoscale x\n");
    }
    else
      fprintf (fp, "set xtics autofreq\nset autoscale x\n");

    if (pl->heatmap) {
      /* One cell per (x, y): its figure as colour and as text. */
      fprintf (fp, "$h%zu << EOD\n", p);
      for (i = 0; i < rs->n; ++i) {
        const struct row *r = &rs->r[i];
        char t[192], c[160], cell[48];
        double y;

        pattern_title (r, t, sizeof t);
        row_label (pl, r, pl->panel, ", ", c, sizeof c);
        if (c[0])
          snprintf (t + strlen (t), sizeof t - strlen (t), ", %s", c);
        if (strcmp (t, panel[p]) != 0)
          continue;
        y = y_of (r, m, &iops);
        if (r->has_ci)
          snprintf (cell, sizeof cell, "%.3g ±%.2g", y, ci_of (r, iops));
        else
          snprintf (cell, sizeof cell, "%.3g", y);
        fprintf (fp, "%.6g %zu %.6f ", x_pos (pl, r),
                 dim_index (pl, pl->y, dim_value (r, pl->y)), y);
        gp_string (fp, cell);
        fprintf (fp, "\n");
      }
      fprintf (fp, "EOD\nset ylabel ");
      gp_string (fp, axis_label (pl, pl->y));
      fprintf (fp, "\n");
      write_cat_tics (fp, pl, pl->y, 'y');
      fprintf (fp, "set cbrange [0:%.6g]\nset cblabel \"%s\"\n",
                   pat_max[panel_pat[p]] > 0 ? pat_max[panel_pat[p]] : 1,
                   iops ? "thousand IOPS" : "MB/s");
      /* Boxes, not `with image`: a grid of any size, even 1 x 2. */
      fprintf (fp, "plot $h%zu using 1:2:(0.5):(0.5):3 with boxxyerror "
               "fillstyle solid 1.0 noborder linecolor palette, "
               "$h%zu using 1:2:4 with labels boxed\n", p, p);
      continue;
    }

    /* The lines of this panel: one per array, and per job where
     * several share the pattern.
     */
    for (i = 0; i < rs->n; ++i) {
      char t[192], c[160], key[160];

      pattern_title (&rs->r[i], t, sizeof t);
      row_label (pl, &rs->r[i], pl->panel, ", ", c, sizeof c);
      if (c[0])
        snprintf (t + strlen (t), sizeof t - strlen (t), ", %s", c);
      if (strcmp (t, panel[p]) != 0)
        continue;
      row_label (pl, &rs->r[i], pl->line, " ", key, sizeof key);
      for (l = 0; l < nlines && strcmp (line[l], key) != 0; ++l)
        ;
      if (l == nlines)
        snprintf (line[nlines++], sizeof line[0], "%s", key);
    }
    for (l = 0; l < nlines; ++l) {
      size_t n = 0;
      /* Categories side by side, not on top of one another. */
      double dx = cat_x && nlines > 1
        ? ((double) l / (nlines - 1) - 0.5) * 0.3 : 0;

      for (i = 0; i < rs->n; ++i) {
        char t[192], c[160], key[160];

        pattern_title (&rs->r[i], t, sizeof t);
        row_label (pl, &rs->r[i], pl->panel, ", ", c, sizeof c);
        if (c[0])
          snprintf (t + strlen (t), sizeof t - strlen (t), ", %s", c);
        row_label (pl, &rs->r[i], pl->line, " ", key, sizeof key);
        if (strcmp (t, panel[p]) != 0 || strcmp (key, line[l]) != 0)
          continue;
        xy[n].x = x_pos (pl, &rs->r[i]) + dx;
        xy[n].y = y_of (&rs->r[i], m, &iops);
        xy[n].e = ci_of (&rs->r[i], iops);
        n++;
      }
      qsort (xy, n, sizeof *xy, cmp_xyz);
      fprintf (fp, "$p%zul%zu << EOD\n", p, l);
      for (j = 0; j < n; ++j)
        fprintf (fp, "%.6g %.6f %.6f\n", xy[j].x, xy[j].y, xy[j].e);
      fprintf (fp, "EOD\n");
    }
    fprintf (fp, "set ylabel \"%s\"\n", iops ? "thousand IOPS" : "MB/s");
    if (log_y)
      fprintf (fp, "set yrange [*:*]\n");
    else
      /* Room above the highest point, so a flat top line stays off
       * the frame.
       */
      fprintf (fp, "set yrange [0:%.6g]\n",
               pat_max[panel_pat[p]] > 0 ? 1.08 * pat_max[panel_pat[p]] : 1);
    /* The measured points of this panel, one series per array, in
     * the colour of that array's line.
     */
    {
      char (*parr)[64] = calloc (pts->n + 1, sizeof *parr);
      size_t npa = 0, k, a;
      /* With intervals (--seeds), each figure carries its 95% bar.
       * Categories are points and bars only: nothing joins them.
       */
      const char *style = pl->ci
        ? (cat_x ? "using 1:2:3 with yerrorbars pointsize 1.5"
           : "using 1:2:3 with yerrorlines")
        : (cat_x ? "using 1:2 with points pointsize 1.5"
           : "using 1:2 with linespoints");

      if (parr == NULL)
        abort ();
      for (k = 0; k < pts->n; ++k) {
        char t[64];

        point_title (&pts->p[k], t, sizeof t);
        if (strcmp (t, pat[panel_pat[p]]) != 0)
          continue;
        for (a = 0; a < npa && strcmp (parr[a], pts->p[k].array) != 0; ++a)
          ;
        if (a == npa)
          snprintf (parr[npa++], sizeof parr[0], "%s", pts->p[k].array);
      }
      for (a = 0; a < npa; ++a) {
        fprintf (fp, "$p%zuq%zu << EOD\n", p, a);
        for (k = 0; k < pts->n; ++k) {
          char t[64];

          point_title (&pts->p[k], t, sizeof t);
          if (strcmp (t, pat[panel_pat[p]]) == 0 &&
              strcmp (pts->p[k].array, parr[a]) == 0)
            fprintf (fp, "%" PRIu64 " %.6f\n", pts->p[k].iodepth,
                     point_y (&pts->p[k], iops));
        }
        fprintf (fp, "EOD\n");
      }
      fprintf (fp, "plot ");
      for (l = 0; l < nlines; ++l) {
        fprintf (fp, "%s$p%zul%zu %s pointtype 7 linecolor %zu title ",
                 l ? ", " : "", p, l, style, l + 1);
        gp_string (fp, line[l]);
      }
      for (a = 0; a < npa; ++a) {
        char t[96];
        size_t colour = nlines + a + 1;

        for (l = 0; l < nlines; ++l)
          if (strcmp (line[l], parr[a]) == 0)
            colour = l + 1;
        snprintf (t, sizeof t, "%s (published)", parr[a]);
        fprintf (fp, ", $p%zuq%zu using 1:2 with points pointtype 6 "
                 "pointsize 2.5 linewidth 2 linecolor %zu title ", p, a,
                 colour);
        gp_string (fp, t);
      }
      fprintf (fp, "\n");
      free (parr);
    }
  }
  fprintf (fp, "unset multiplot\nset output\n");
  free (panel);
  free (pat);
  free (pat_max);
  free (panel_pat);
  free (line);
  free (xy);
  free (combo);
}

/* Published against predicted, a pair of bars per row, a panel per id
 * prefix and unit, in the order they first appear.
 */
static void
write_bars (FILE *fp, const struct bars *bs, const char *out, bool svg,
            const char *title)
{
  char (*panel)[96] = calloc (bs->n, sizeof *panel);
  size_t npanel = 0, i, p, cols, nrows, most = 0, width, height;
  bool long_labels = false;

  if (panel == NULL)
    abort ();
  for (i = 0; i < bs->n; ++i)
    long_labels |= strlen (bs->b[i].label) > 8;
  for (i = 0; i < bs->n; ++i) {
    char key[96];

    snprintf (key, sizeof key, "%s (%s)", bs->b[i].panel, bs->b[i].unit);
    for (p = 0; p < npanel && strcmp (panel[p], key) != 0; ++p)
      ;
    if (p == npanel)
      snprintf (panel[npanel++], sizeof panel[0], "%s", key);
  }
  cols = npanel <= 1 ? 1 : npanel <= 4 ? 2 : npanel <= 9 ? 3 : 4;
  nrows = (npanel + cols - 1) / cols;
  /* Room for the widest panel's pairs, and for slanted whole ids. */
  for (p = 0; p < npanel; ++p) {
    size_t k = 0;

    for (i = 0; i < bs->n; ++i) {
      char key[96];

      snprintf (key, sizeof key, "%s (%s)", bs->b[i].panel, bs->b[i].unit);
      k += strcmp (key, panel[p]) == 0;
    }
    if (k > most)
      most = k;
  }
  width = most * 70 > 420 ? most * 70 : 420;
  height = long_labels ? 420 : 320;

  fprintf (fp, "# raidsim plot: %zu bars, %zu panels\n", bs->n, npanel);
  if (svg)
    fprintf (fp, "set terminal svg size %zu,%zu noenhanced font "
             "'sans,11' background '#ffffff'\n", width * cols, height * nrows);
  else
    fprintf (fp, "set terminal pngcairo size %zu,%zu noenhanced font "
             "'sans,10' background '#ffffff'\n", width * cols, height * nrows);
  fprintf (fp, "set output ");
  gp_string (fp, out);
  fprintf (fp, "\nset grid ytics\nset key tmargin horizontal center\n"
           "set yrange [0:*]\nset offsets 0, 0, graph 0.1, 0\n"
           "set style data histogram\n"
           "set style histogram clustered gap 1\n"
           "set style fill solid 0.7 border -1\nset boxwidth 0.9\n");
  fprintf (fp, "set multiplot layout %zu,%zu title ", nrows, cols);
  gp_string (fp, title);
  fprintf (fp, "\n");
  for (p = 0; p < npanel; ++p) {
    const char *unit = NULL;

    fprintf (fp, "$b%zu << EOD\n", p);
    for (i = 0; i < bs->n; ++i) {
      char key[96];

      snprintf (key, sizeof key, "%s (%s)", bs->b[i].panel, bs->b[i].unit);
      if (strcmp (key, panel[p]) != 0)
        continue;
      unit = bs->b[i].unit;
      gp_string (fp, bs->b[i].label);
      fprintf (fp, " %.6g %.6g\n", bs->b[i].published, bs->b[i].predicted);
    }
    fprintf (fp, "EOD\nset title ");
    gp_string (fp, panel[p]);
    /* Whole ids (--group case) need room: slant them. */
    fprintf (fp, "\nset xtics %s\n", long_labels
             ? "rotate by 30 right\nset bmargin 9" : "norotate");
    fprintf (fp, "set ylabel ");
    gp_string (fp, unit ? unit : "");
    fprintf (fp, "\nplot $b%zu using 2:xtic(1) title \"published\" "
             "linecolor 1, '' using 3 title \"predicted\" linecolor 2\n", p);
  }
  fprintf (fp, "unset multiplot\nset output\n");
  free (panel);
}

/* The gnuplot to run: $RAIDSIM_GNUPLOT, or gnuplot found on $PATH. */
static const char *
find_gnuplot (void)
{
  static char buf[4096];
  const char *env = getenv ("RAIDSIM_GNUPLOT"), *path = getenv ("PATH");
  char *copy, *dir, *save = NULL;

  if (env && *env)
    return env;
  if (path == NULL)
    path = "/usr/bin:/bin";
  copy = strdup (path);
  if (copy == NULL)
    return NULL;
  for (dir = strtok_r (copy, ":", &save); dir;
       dir = strtok_r (NULL, ":", &save)) {
    snprintf (buf, sizeof buf, "%s/gnuplot", dir);
    if (access (buf, X_OK) == 0) {
      free (copy);
      return buf;
    }
  }
  free (copy);
  return NULL;
}

int
cmd_plot (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "output", required_argument, NULL, 'o' },
    { "metric", required_argument, NULL, 'm' },
    { "title", required_argument, NULL, 't' },
    { "script", no_argument, NULL, 'S' },
    { "points", required_argument, NULL, 'P' },
    { "log-y", no_argument, NULL, 'L' },
    { "group", required_argument, NULL, 'G' },
    { "layout", required_argument, NULL, 'Y' },
    { "x", required_argument, NULL, 'X' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *out = NULL, *title = NULL, *in, *gnuplot, *points = NULL;
  const char *xkey = NULL;
  enum layout layout = LAYOUT_PANELS;
  struct plot pl = { 0 };
  char auto_title[256] = "";
  enum metric m = METRIC_AUTO;
  bool script = false, svg, bars = false, log_y = false, by_case = false;
  struct rows rs = { 0 };
  struct points pts = { 0 };
  struct bars bs = { 0 };
  FILE *fp;
  int c, first, ret = 1;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":o:m:t:Sh", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 't': title = optarg; break;
    case 'S': script = true; break;
    case 'P': points = optarg; break;
    case 'L': log_y = true; break;
    case 'X': xkey = optarg; break;
    case 'Y':
      if (strcmp (optarg, "panels") == 0) layout = LAYOUT_PANELS;
      else if (strcmp (optarg, "lines") == 0) layout = LAYOUT_LINES;
      else if (strcmp (optarg, "heatmap") == 0) layout = LAYOUT_HEATMAP;
      else {
        fprintf (stderr, "%s: --layout: '%s' is not panels, lines or "
                 "heatmap\n", CMD, optarg);
        return 1;
      }
      break;
    case 'G':
      if (strcmp (optarg, "prefix") == 0) by_case = false;
      else if (strcmp (optarg, "case") == 0) by_case = true;
      else {
        fprintf (stderr, "%s: --group: '%s' is not prefix or case\n",
                 CMD, optarg);
        return 1;
      }
      break;
    case 'm':
      if (strcmp (optarg, "auto") == 0) m = METRIC_AUTO;
      else if (strcmp (optarg, "iops") == 0) m = METRIC_IOPS;
      else if (strcmp (optarg, "mbps") == 0) m = METRIC_MBPS;
      else {
        fprintf (stderr, "%s: --metric: '%s' is not auto, iops or mbps\n",
                 CMD, optarg);
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
  if (optind + 1 != argc) {
    fprintf (stderr, "%s: give exactly one sweep file (CSV or JSON); see "
             "'%s --help'\n", CMD, CMD);
    return 1;
  }
  in = argv[optind];
  if (out == NULL) {
    fprintf (stderr, "%s: -o: missing; give OUT.png or OUT.svg\n", CMD);
    return 1;
  }
  if (has_extension (out, ".svg"))
    svg = true;
  else if (has_extension (out, ".png"))
    svg = false;
  else {
    fprintf (stderr, "%s: -o: '%s': the name must end in .png or .svg\n",
             CMD, out);
    return 1;
  }

  fp = fopen (in, "r");
  if (fp == NULL) {
    fprintf (stderr, "%s: %s: %s\n", CMD, in, strerror (errno));
    return 1;
  }
  while ((first = getc (fp)) == ' ' || first == '\n' || first == '\t')
    ;
  if (first == '{') {
    fclose (fp);
    if (read_json (in, &rs) == -1)
      goto err;
  }
  else {
    /* A sweep, or the rows of `raidsim validate` (bars): the header
     * says which.
     */
    struct raidsim_csv *csv;
    struct raidsim_csv_row header;
    unsigned i;

    fclose (fp);
    if ((csv = raidsim_csv_open (in, 0)) == NULL)
      goto err;
    c = raidsim_csv_next (csv, &header);
    if (c == 0) {
      raidsim_set_error ("%s: empty", in);
      c = -1;
    }
    if (c == 1) {
      for (i = 0; i < header.n; ++i)
        bars |= strcmp (header.field[i], "predicted") == 0;
      c = bars ? read_bars (csv, &header, by_case, &bs)
        : read_sweep_csv (csv, &header, &rs);
    }
    raidsim_csv_close (csv);
    if (c != 0)
      goto err;
  }
  if (bars ? bs.n == 0 : rs.n == 0) {
    raidsim_set_error ("%s: no points", in);
    goto err;
  }
  if (!bars && plan_plot (&pl, &rs, xkey, layout) == -1)
    goto err;
  if (points) {
    const char *across = pl.x == DIM_IODEPTH ? "qd" : dim_name (&pl, pl.x);

    if (bars) {
      raidsim_set_error ("--points: marks a sweep; %s is the output of "
                         "raidsim validate, whose bars already hold the "
                         "published figures", in);
      goto err;
    }
    if (strcmp (across, "qd") != 0 || pl.heatmap) {
      raidsim_set_error ("--points: needs a plot against queue depth; %s "
                         "has %s across%s", in, across,
                         pl.heatmap ? " in a heat map" : "");
      goto err;
    }
    if (read_points (points, &pts) == -1 ||
        check_points (&rs, &pts, points) == -1)
      goto err;
  }
  /* The title names what is drawn: the arrays, not the CSV's path. */
  if (title == NULL && !bars) {
    size_t i, j, len = 0;

    for (i = 0; i < rs.n && len + 1 < sizeof auto_title; ++i) {
      bool seen = false;

      for (j = 0; j < i && !seen; ++j)
        seen = strcmp (rs.r[j].array, rs.r[i].array) == 0;
      if (!seen)
        len += snprintf (auto_title + len, sizeof auto_title - len, "%s%s",
                         len ? ", " : "", rs.r[i].array);
    }
    /* and what the sweep varied, across first: "members x level". */
    if (pl.nkeys && len + 1 < sizeof auto_title) {
      unsigned k;

      len += snprintf (auto_title + len, sizeof auto_title - len, ": %s",
                       dim_name (&pl, pl.x));
      for (k = 0; k < pl.nkeys && len + 1 < sizeof auto_title; ++k)
        if ((int) k != pl.x)
          len += snprintf (auto_title + len, sizeof auto_title - len,
                           " x %s", dim_name (&pl, k));
    }
    title = auto_title;
  }
  if (title == NULL)
    title = in;

  if (script) {
    if (bars)
      write_bars (stdout, &bs, out, svg, title);
    else
      write_script (stdout, &pl, &pts, out, svg, m, log_y, title);
    ret = fflush (stdout) == EOF;
    goto out;
  }
  gnuplot = find_gnuplot ();
  if (gnuplot == NULL) {
    raidsim_set_error ("gnuplot not found on PATH (Debian: apt-get install "
                       "gnuplot-nox); --script prints the script instead");
    goto err;
  }
  {
    char cmdline[4200];
    int status;

    snprintf (cmdline, sizeof cmdline, "'%s'", gnuplot);
    fflush (NULL);
    fp = popen (cmdline, "w");
    if (fp == NULL) {
      raidsim_set_error ("%s: %s", gnuplot, strerror (errno));
      goto err;
    }
    if (bars)
      write_bars (fp, &bs, out, svg, title);
    else
      write_script (fp, &pl, &pts, out, svg, m, log_y, title);
    status = pclose (fp);
    if (status != 0) {
      raidsim_set_error ("%s failed (exit status %d) drawing %s", gnuplot,
                         WIFEXITED (status) ? WEXITSTATUS (status) : -1, out);
      goto err;
    }
  }
  ret = 0;
  goto out;

 err:
  fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
 out:
  if (!bars)
    free_plot (&pl);
  free (rs.r);
  free (pts.p);
  free (bs.b);
  return ret;
}
