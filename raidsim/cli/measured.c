/* raidsim run --measured FILE (see measured.h). */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "raidsim/error.h"
#include "raidsim/fiojob.h"
#include "raidsim/histogram.h"
#include "raidsim/report.h"
#include "measured.h"

static const char *const dir_names[RAIDSIM_NDIRS] = { "read", "write" };

/* obj.key as a number, or -1 if it is not there. */
static double
num (json_object *obj, const char *key)
{
  json_object *v;

  if (obj == NULL || !json_object_object_get_ex (obj, key, &v))
    return -1;
  return json_object_get_double (v);
}

static json_object *
member (json_object *obj, const char *key)
{
  json_object *v;

  if (obj == NULL || !json_object_object_get_ex (obj, key, &v))
    return NULL;
  return v;
}

/* One figure: measured, predicted, and their ratio.  A figure missing
 * on one side (< 0) prints as "-".
 */
static void
row (FILE *fp, const char *job, const char *dir, const char *what,
     double measured, double predicted)
{
  fprintf (fp, "%-24s %-6s %-10s", job, dir, what);
  if (measured < 0)
    fprintf (fp, " %14s", "-");
  else
    fprintf (fp, " %14.1f", measured);
  fprintf (fp, " %14.1f", predicted);
  if (measured < 0 || predicted <= 0)
    fprintf (fp, " %8s\n", "-");
  else
    fprintf (fp, " %8.3f\n", measured / predicted);
}

static void
header (FILE *fp, const char *path)
{
  fprintf (fp, "\nmeasured (%s) against predicted:\n", path);
  fprintf (fp, "%-24s %-6s %-10s %14s %14s %8s\n", "job", "dir", "figure",
           "measured", "predicted", "ratio");
}

/* The run's job named name, or NULL. */
static const struct raidsim_job_result *
find_job (const struct raidsim_sim *s, const char *name)
{
  unsigned i;

  for (i = 0; i < raidsim_sim_njobs (s); ++i) {
    const struct raidsim_job_result *r = raidsim_sim_job (s, i);
    if (strcmp (r->job->name, name) == 0)
      return r;
  }
  return NULL;
}

/* fio's JSON: { "jobs": [ { "jobname": ..., "read": { "iops", "bw_bytes",
 * "total_ios", "clat_ns": { "mean", "percentile": { "50.000000", ... } } },
 * "write": ... } ] }.  Entries of one job (numjobs > 1 without
 * group_reporting) are added up: IOPS and bandwidth summed, the mean
 * weighted by I/Os; their percentiles cannot be combined, and print as
 * "-" then.
 */
static int
compare_fio (FILE *fp, const char *path, json_object *jobs,
             const struct raidsim_sim *s)
{
  size_t n = json_object_array_length (jobs), i, j;

  header (fp, path);
  for (i = 0; i < n; ++i) {
    json_object *ji = json_object_array_get_idx (jobs, i);
    const char *name = json_object_get_string (member (ji, "jobname"));
    const struct raidsim_job_result *r;
    bool seen = false;
    unsigned d;

    if (name == NULL) {
      raidsim_set_error ("%s: jobs[%zu] has no jobname", path, i);
      return -1;
    }
    for (j = 0; j < i; ++j)
      if (strcmp (name, json_object_get_string
                  (member (json_object_array_get_idx (jobs, j),
                           "jobname"))) == 0)
        seen = true;
    if (seen)
      continue;                 /* added up with its first entry */
    r = find_job (s, name);
    if (r == NULL) {
      raidsim_set_error ("%s: job %s is not in the run's workload", path,
                         name);
      return -1;
    }
    for (d = 0; d < RAIDSIM_NDIRS; ++d) {
      double iops = 0, bw = 0, ios = 0, lat = 0, p50 = -1, p99 = -1;
      unsigned entries = 0;

      for (j = i; j < n; ++j) {
        json_object *jj = json_object_array_get_idx (jobs, j);
        json_object *dd = member (jj, dir_names[d]);
        json_object *clat = member (dd, "clat_ns");
        json_object *pct = member (clat, "percentile");
        double k = num (dd, "total_ios");

        if (strcmp (name, json_object_get_string (member (jj, "jobname"))))
          continue;
        entries++;
        if (k <= 0)
          continue;
        iops += num (dd, "iops");
        bw += num (dd, "bw_bytes");
        ios += k;
        lat += k * num (clat, "mean");
        p50 = num (pct, "50.000000");
        p99 = num (pct, "99.000000");
      }
      if (entries > 1)
        p50 = p99 = -1;
      if (ios == 0 && r->dir[d].ios == 0)
        continue;
      row (fp, name, dir_names[d], "IOPS", ios ? iops : -1,
           raidsim_result_iops (r, d));
      row (fp, name, dir_names[d], "MB/s", ios ? bw / 1e6 : -1,
           raidsim_result_bw (r, d) / 1e6);
      row (fp, name, dir_names[d], "mean us", ios ? lat / ios / 1e3 : -1,
           raid_hist_mean (&r->dir[d].lat) / 1e3);
      row (fp, name, dir_names[d], "p50 us", p50 < 0 ? -1 : p50 / 1e3,
           raid_hist_percentile (&r->dir[d].lat, 50) / 1e3);
      row (fp, name, dir_names[d], "p99 us", p99 < 0 ? -1 : p99 / 1e3,
           raid_hist_percentile (&r->dir[d].lat, 99) / 1e3);
    }
  }
  return 0;
}

/* The plugin's stats=: { "array": { "ops": { "read", "write" },
 * "lat_ns": { "read": { "count", "mean", "p50", "p99" }, ... } },
 * "timing": { "requests", "late": { "count" } } }, against every job of
 * the run together (the plugin does not know jobs).  Its latencies are
 * taken in the plugin, so they leave out the host's path to the client.
 */
static int
compare_plugin (FILE *fp, const char *path, json_object *array,
                json_object *timing, const struct raidsim_sim *s)
{
  json_object *lat = member (array, "lat_ns");
  unsigned d, i;

  header (fp, path);
  for (d = 0; d < RAIDSIM_NDIRS; ++d) {
    struct raid_histogram *h = malloc (sizeof *h);
    json_object *l = member (lat, dir_names[d]);
    uint64_t ios = 0;

    if (h == NULL) {
      raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
      return -1;
    }
    raid_hist_init (h);
    for (i = 0; i < raidsim_sim_njobs (s); ++i) {
      const struct raidsim_job_result *r = raidsim_sim_job (s, i);
      raid_hist_merge (h, &r->dir[d].lat);
      ios += r->dir[d].ios;
    }
    if (ios > 0 || num (l, "count") > 0) {
      row (fp, "(all jobs)", dir_names[d], "requests", num (l, "count"),
           (double) ios);
      row (fp, "(all jobs)", dir_names[d], "mean us",
           num (l, "count") > 0 ? num (l, "mean") / 1e3 : -1,
           raid_hist_mean (h) / 1e3);
      row (fp, "(all jobs)", dir_names[d], "p50 us",
           num (l, "count") > 0 ? num (l, "p50") / 1e3 : -1,
           raid_hist_percentile (h, 50) / 1e3);
      row (fp, "(all jobs)", dir_names[d], "p99 us",
           num (l, "count") > 0 ? num (l, "p99") / 1e3 : -1,
           raid_hist_percentile (h, 99) / 1e3);
    }
    free (h);
  }
  fprintf (fp, "(the plugin's latencies leave out the host's path to the "
           "client)\n");
  if (timing)
    fprintf (fp, "model=%s: %.0f requests timed, %.0f late (the real I/O "
             "ended after the model's time)\n",
             json_object_get_string (member (timing, "model")),
             num (timing, "requests"), num (member (timing, "late"), "count"));
  return 0;
}

int
measured_compare (FILE *fp, const char *path, const struct raidsim_sim *s)
{
  json_object *root, *jobs, *array;
  FILE *in;
  char *text = NULL;
  size_t len = 0;
  const char *brace;
  int r;

  /* fio may print lines ("fio: ...") before its JSON: skip to the
   * first brace.
   */
  in = fopen (path, "r");
  if (in == NULL) {
    raidsim_set_error ("%s: %s", path, strerror (errno));
    return -1;
  }
  if (getdelim (&text, &len, '\0', in) == -1 && ferror (in)) {
    raidsim_set_error ("%s: %s", path, strerror (errno));
    fclose (in);
    free (text);
    return -1;
  }
  fclose (in);
  brace = text ? strchr (text, '{') : NULL;
  root = brace ? json_tokener_parse (brace) : NULL;
  free (text);
  if (root == NULL) {
    raidsim_set_error ("%s: not JSON (fio's --output-format=json or the "
                       "raid plugin's stats= file)", path);
    return -1;
  }
  jobs = member (root, "jobs");
  array = member (root, "array");
  if (jobs && json_object_is_type (jobs, json_type_array))
    r = compare_fio (fp, path, jobs, s);
  else if (array && member (array, "lat_ns"))
    r = compare_plugin (fp, path, array, member (root, "timing"), s);
  else {
    raidsim_set_error ("%s: neither fio's JSON (no \"jobs\") nor the raid "
                       "plugin's statistics (no \"array\")", path);
    r = -1;
  }
  json_object_put (root);
  return r;
}
