/* raidsim plot: draw a sweep (the CSV or JSON that `raidsim sweep`
 * writes) as a PNG or SVG through gnuplot.
 *
 * One panel per access pattern (sequential or random, read or write,
 * block size), one line per array.  The x axis is the queue depth when
 * the sweep varied it or when its jobs carry it (four-corners), or the
 * varied chunk, member count or RAID level.  The y axis is MB/s for
 * sequential patterns and IOPS for random ones unless --metric says
 * otherwise.  The plot is written as a gnuplot script with the data
 * inline, so `--script` shows exactly what gnuplot is given.
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
  struct raidsim_csv_row row;
  int col[NWANT], r, kcol[4], vary_col = -1, value_col = -1;
  unsigned nk = 0, i, k;
  char kname[4][16];

  if (raidsim_csv_columns (c, header, want, NWANT, col,
                           "the CSV of `raidsim sweep --format csv`") == -1)
    return -1;
  /* A column per varied key, named by the key; or, from older sweeps,
   * the one key in "vary" and its value in "value".
   */
  for (i = 0; i < header->n; ++i) {
    if (strcmp (header->field[i], "vary") == 0)
      vary_col = i;
    else if (strcmp (header->field[i], "value") == 0)
      value_col = i;
    else if (nk < 4 && is_vary_key (header->field[i])) {
      /* The header's text is gone once the next row is read. */
      snprintf (kname[nk], sizeof kname[nk], "%.15s", header->field[i]);
      kcol[nk++] = i;
    }
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

/* Where a row sits on the x axis; level sweeps use the order of first
 * appearance, with the level's name as the tic.
 */
static double
x_of (const struct rows *rs, const struct row *r)
{
  size_t i;
  unsigned k = 0;
  uint64_t v;

  if (r->nvary == 0 || strcmp (r->vary[0], "qd") == 0)
    return r->iodepth;
  if (strcmp (r->vary[0], "chunk") == 0)
    return raid_parse_size (r->value[0], &v) == 0 ? v / 1024.0 : 0;
  if (strcmp (r->vary[0], "members") == 0)
    return strtod (r->value[0], NULL);
  for (i = 0; i < rs->n; ++i) {
    size_t j;
    bool seen = false;

    for (j = 0; j < i && !seen; ++j)
      seen = strcmp (rs->r[j].value[0], rs->r[i].value[0]) == 0;
    if (seen)
      continue;
    if (strcmp (rs->r[i].value[0], r->value[0]) == 0)
      return k;
    k++;
  }
  return k;
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

/* A row's line in its panel: its array, with the job when the x axis
 * is not the queue depth, and in a grid the second key's value (the
 * first is the x axis, any further keys split the panels).
 */
static void
line_key (const struct row *r, bool by_qd, char *buf, size_t len)
{
  int n;

  if (by_qd)
    n = snprintf (buf, len, "%s", r->array);
  else
    n = snprintf (buf, len, "%s %s", r->array, r->job);
  if (r->nvary > 1 && n >= 0 && (size_t) n < len)
    snprintf (buf + n, len - n, " %s=%s", r->vary[1], r->value[1]);
}

static void
write_script (FILE *fp, const struct rows *rs, const struct points *pts,
              const char *out, bool svg, enum metric m, bool log_y,
              const char *title)
{
  char (*pat)[64] = calloc (rs->n, sizeof *pat);
  char (*line)[160] = calloc (rs->n, sizeof *line);
  size_t npat = 0, i, j, p, cols, nrows;
  const char *vary = rs->n && rs->r[0].nvary ? rs->r[0].vary[0] : "";
  bool by_qd = vary[0] == '\0' || strcmp (vary, "qd") == 0;
  bool log_x = by_qd || strcmp (vary, "chunk") == 0;
  bool level = strcmp (vary, "level") == 0;

  if (pat == NULL || line == NULL)
    abort ();
  for (i = 0; i < rs->n; ++i) {
    char t[64];

    pattern_title (&rs->r[i], t, sizeof t);
    for (p = 0; p < npat && strcmp (pat[p], t) != 0; ++p)
      ;
    if (p == npat)
      snprintf (pat[npat++], sizeof pat[0], "%s", t);
  }
  cols = npat <= 1 ? 1 : npat <= 4 ? 2 : 3;
  nrows = (npat + cols - 1) / cols;

  fprintf (fp, "# raidsim plot: %zu points, %zu panels\n", rs->n, npat);
  if (svg)
    fprintf (fp, "set terminal svg size %zu,%zu noenhanced font "
             "'sans,11' background '#ffffff'\n", 560 * cols, 400 * nrows);
  else
    fprintf (fp, "set terminal pngcairo size %zu,%zu noenhanced font "
             "'sans,10' background '#ffffff'\n", 560 * cols, 400 * nrows);
  fprintf (fp, "set output ");
  gp_string (fp, out);
  /* The key goes below the panels, where it hides no curve; the
   * offset keeps a flat top line off the frame.
   */
  fprintf (fp, "\nset grid\nset key below\n"
           "set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n"
           "set style data linespoints\n");
  /* A log axis shows a QD1 figure ten times below the QD32 one. */
  if (log_y)
    fprintf (fp, "set logscale y 10\nset yrange [*:*]\n"
             "set offsets 0, 0, 0, 0\n");
  fprintf (fp, "set multiplot layout %zu,%zu title ", nrows, cols);
  gp_string (fp, title);
  fprintf (fp, "\n");

  for (p = 0; p < npat; ++p) {
    size_t nlines = 0, l;
    bool iops = false;

    /* The lines of this panel: one per array, or per array and job
     * when the x axis is not the queue depth.
     */
    for (i = 0; i < rs->n; ++i) {
      char t[64], key[160];

      pattern_title (&rs->r[i], t, sizeof t);
      if (strcmp (t, pat[p]) != 0)
        continue;
      line_key (&rs->r[i], by_qd, key, sizeof key);
      for (l = 0; l < nlines && strcmp (line[l], key) != 0; ++l)
        ;
      if (l == nlines)
        snprintf (line[nlines++], sizeof line[0], "%s", key);
    }
    for (l = 0; l < nlines; ++l) {
      double (*xy)[2] = calloc (rs->n, sizeof *xy);
      size_t n = 0;

      if (xy == NULL)
        abort ();
      for (i = 0; i < rs->n; ++i) {
        char t[64], key[160];

        pattern_title (&rs->r[i], t, sizeof t);
        line_key (&rs->r[i], by_qd, key, sizeof key);
        if (strcmp (t, pat[p]) != 0 || strcmp (key, line[l]) != 0)
          continue;
        xy[n][0] = x_of (rs, &rs->r[i]);
        xy[n][1] = y_of (&rs->r[i], m, &iops);
        n++;
      }
      qsort (xy, n, sizeof *xy, cmp_double);
      fprintf (fp, "$p%zul%zu << EOD\n", p, l);
      for (j = 0; j < n; ++j)
        fprintf (fp, "%.6g %.6f\n", xy[j][0], xy[j][1]);
      fprintf (fp, "EOD\n");
      free (xy);
    }
    fprintf (fp, "set title ");
    gp_string (fp, pat[p]);
    fprintf (fp, "\nset ylabel \"%s\"\n", iops ? "thousand IOPS" : "MB/s");
    if (by_qd)
      fprintf (fp, "set xlabel \"queue depth\"\n");
    else if (strcmp (vary, "chunk") == 0)
      fprintf (fp, "set xlabel \"chunk (KiB)\"\n");
    else
      fprintf (fp, "set xlabel \"%s\"\n", vary);
    if (log_x)
      fprintf (fp, "set logscale x 2\n");
    else
      fprintf (fp, "unset logscale x\n");
    if (level) {
      /* The levels in the order they appear, by name. */
      size_t k = 0;

      fprintf (fp, "set xtics (");
      for (i = 0; i < rs->n; ++i) {
        bool seen = false;

        for (j = 0; j < i; ++j)
          seen |= strcmp (rs->r[j].value[0], rs->r[i].value[0]) == 0;
        if (seen)
          continue;
        fprintf (fp, "%s\"%s\" %zu", k ? ", " : "", rs->r[i].value[0], k);
        k++;
      }
      fprintf (fp, ")\nset xrange [-0.5:%zu.5]\n", k ? k - 1 : 0);
    }
    else
      fprintf (fp, "set xtics autofreq\nset autoscale x\n");
    /* The measured points of this panel, one series per array, in
     * the colour of that array's line.
     */
    {
      char (*parr)[64] = calloc (pts->n + 1, sizeof *parr);
      size_t npa = 0, k, a;

      if (parr == NULL)
        abort ();
      for (k = 0; k < pts->n; ++k) {
        char t[64];

        point_title (&pts->p[k], t, sizeof t);
        if (strcmp (t, pat[p]) != 0)
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
          if (strcmp (t, pat[p]) == 0 && strcmp (pts->p[k].array,
                                                 parr[a]) == 0)
            fprintf (fp, "%" PRIu64 " %.6f\n", pts->p[k].iodepth,
                     point_y (&pts->p[k], iops));
        }
        fprintf (fp, "EOD\n");
      }
      fprintf (fp, "plot ");
      for (l = 0; l < nlines; ++l) {
        /* Levels are categories: no line joins RAID 0 to RAID 1. */
        fprintf (fp, "%s$p%zul%zu using 1:2%s pointtype 7 linecolor %zu "
                 "title ", l ? ", " : "", p, l,
                 level ? " with points pointsize 1.5" : "", l + 1);
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
  free (pat);
  free (line);
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
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *out = NULL, *title = NULL, *in, *gnuplot, *points = NULL;
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
  if (points) {
    const char *vary = rs.r && rs.r[0].nvary ? rs.r[0].vary[0] : "";

    if (bars) {
      raidsim_set_error ("--points: marks a sweep; %s is the output of "
                         "raidsim validate, whose bars already hold the "
                         "published figures", in);
      goto err;
    }
    if (vary[0] != '\0' && strcmp (vary, "qd") != 0) {
      raidsim_set_error ("--points: needs a plot against queue depth; %s "
                         "varies %s", in, vary);
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
    title = auto_title;
  }
  if (title == NULL)
    title = in;

  if (script) {
    if (bars)
      write_bars (stdout, &bs, out, svg, title);
    else
      write_script (stdout, &rs, &pts, out, svg, m, log_y, title);
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
      write_script (fp, &rs, &pts, out, svg, m, log_y, title);
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
  free (rs.r);
  free (pts.p);
  free (bs.b);
  return ret;
}
