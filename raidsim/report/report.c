/* raidsim: writing a run's figures (see report.h).  JSON goes through
 * json-c so that names from config files are always escaped properly;
 * every double is printed with a fixed "%.6f", as fio does, so the text
 * does not depend on json-c's choice of precision.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "raidsim/csv.h"
#include "raidsim/error.h"
#include "raidsim/report.h"
#include "raidsim/trace.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* fio's default percentile list (its percentile_list option). */
static const double percentiles[] = {
  1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
};
#define NPERCENTILES (sizeof percentiles / sizeof percentiles[0])

static const char *const dir_names[] = { "read", "write" };

/* Whether a job's flushes are reported: it asks for them as it runs
 * (fsync, fdatasync), or some were counted.  Jobs without them keep
 * their output as it was.
 */
static bool
shows_flush (const struct raidsim_job_result *r)
{
  return r->job->fsync || r->job->fdatasync || r->flush.ios > 0;
}

/* Whether a job trims (rw=trim, randtrim, trimwrite), for its trim
 * figures; other jobs keep their output as it was.
 */
static bool
shows_trim (const struct raidsim_job_result *r)
{
  return r->job->trim != RAIDSIM_TRIM_NONE || r->trim.ios > 0;
}

/* Whether any member had a flush (or, trims, a trim), for the
 * members' figures.
 */
static bool
any_member_had (const struct raidsim_sim *s, bool trims)
{
  unsigned i;

  for (i = 0; i < raidsim_sim_nmembers (s); ++i) {
    const struct raidsim_member_result *m = raidsim_sim_member (s, i);

    if (trims ? m->trims : m->flushes)
      return true;
  }
  return false;
}
#define any_member_flush(s) any_member_had ((s), false)
#define any_member_trim(s) any_member_had ((s), true)

static raidsim_ns
elapsed (const struct raidsim_job_result *r)
{
  return r->end - r->start;
}

double
raidsim_result_iops (const struct raidsim_job_result *r, enum raidsim_dir dir)
{
  raidsim_ns t = elapsed (r);

  return t ? (double) r->dir[dir].ios * 1e9 / t : 0;
}

double
raidsim_result_bw (const struct raidsim_job_result *r, enum raidsim_dir dir)
{
  raidsim_ns t = elapsed (r);

  return t ? (double) r->dir[dir].bytes * 1e9 / t : 0;
}

enum raidsim_dir
raidsim_job_dir (const struct raidsim_job *j)
{
  return j->rw == RAIDSIM_RW_WRITE || j->rw == RAIDSIM_RW_RANDWRITE
    ? RAIDSIM_WRITE : RAIDSIM_READ;
}

unsigned
raidsim_result_surface (const struct raidsim_sim *s, double *min,
                        double *max, double *avg)
{
  const struct raidsim_jobfile *jf = raidsim_sim_jobfile (s);
  unsigned i, n = 0;
  double sum = 0;

  *min = *max = *avg = 0;
  if (jf->summary != RAIDSIM_SUMMARY_SURFACE)
    return 0;
  for (i = 0; i < raidsim_sim_njobs (s); ++i) {
    const struct raidsim_job_result *r = raidsim_sim_job (s, i);
    double bw;

    if (r->job->hidden)
      continue;
    bw = raidsim_result_bw (r, raidsim_job_dir (r->job));
    if (n == 0 || bw < *min)
      *min = bw;
    if (n == 0 || bw > *max)
      *max = bw;
    sum += bw;
    n++;
  }
  *avg = n ? sum / n : 0;
  return n;
}

/* Whether a job's figures for dir are worth printing. */
static bool
has_dir (const struct raidsim_job_result *r, enum raidsim_dir dir)
{
  int rw = r->job->rw;

  if (r->dir[dir].ios)
    return true;
  if (dir == RAIDSIM_READ)
    return rw != RAIDSIM_RW_WRITE && rw != RAIDSIM_RW_RANDWRITE;
  /* rw=trim and randtrim have trims, not writes. */
  return rw != RAIDSIM_RW_READ && rw != RAIDSIM_RW_RANDREAD &&
    r->job->trim != RAIDSIM_TRIM_ONLY;
}

/* The members in mask, as "1" or "0,2". */
static void
member_list (uint32_t mask, char *buf, size_t len)
{
  size_t n = 0;
  unsigned i;

  buf[0] = '\0';
  for (i = 0; i < 32 && n < len; ++i)
    if (mask & (UINT32_C (1) << i))
      n += snprintf (buf + n, len - n, "%s%u", n ? "," : "", i);
}

/* "rebuild of member 1", "resync", "check". */
static void
sync_name (const struct raidsim_bg_result *r, char *buf, size_t len)
{
  if (r->action == RAIDSIM_SYNC_REBUILD)
    snprintf (buf, len, "rebuild of member %d", r->member);
  else
    snprintf (buf, len, "%s", raidsim_sync_action_name (r->action));
}

/* ---- JSON ---- */

static json_object *
jdouble (double v)
{
  char buf[64];

  snprintf (buf, sizeof buf, "%.6f", v);
  return json_object_new_double_s (v, buf);
}

static json_object *
juint (uint64_t v)
{
  return json_object_new_uint64 (v);
}

static json_object *
lat_object (const struct raid_histogram *h, bool with_percentiles)
{
  json_object *o = json_object_new_object ();

  json_object_object_add (o, "min", juint (raid_hist_min (h)));
  json_object_object_add (o, "max", juint (raid_hist_max (h)));
  json_object_object_add (o, "mean", jdouble (raid_hist_mean (h)));
  json_object_object_add (o, "stddev", jdouble (raid_hist_stddev (h)));
  json_object_object_add (o, "N", juint (h->count));
  if (with_percentiles && h->count) {
    json_object *p = json_object_new_object ();
    unsigned i;

    for (i = 0; i < NPERCENTILES; ++i) {
      char key[32];

      snprintf (key, sizeof key, "%f", percentiles[i]);
      json_object_object_add (p, key, juint (raid_hist_percentile
                                             (h, percentiles[i])));
    }
    json_object_object_add (o, "percentile", p);
  }
  return o;
}

static json_object *
dir_object (const struct raidsim_job_result *r, enum raidsim_dir dir)
{
  const struct raidsim_dir_result *d = &r->dir[dir];
  json_object *o = json_object_new_object ();
  struct raid_histogram zero;
  double bw = raidsim_result_bw (r, dir);

  raid_hist_init (&zero);
  json_object_object_add (o, "io_bytes", juint (d->bytes));
  json_object_object_add (o, "io_kbytes", juint (d->bytes / 1024));
  json_object_object_add (o, "bw_bytes", juint ((uint64_t) bw));
  json_object_object_add (o, "bw", juint ((uint64_t) (bw / 1024)));
  json_object_object_add (o, "iops", jdouble (raidsim_result_iops (r, dir)));
  json_object_object_add (o, "runtime", juint (elapsed (r) / RAIDSIM_NS_PER_MS));
  json_object_object_add (o, "runtime_ns", juint (elapsed (r)));
  json_object_object_add (o, "total_ios", juint (d->ios));
  /* No submission latency is modelled: a request is at the RAID layer
   * the moment the thread issues it, so lat equals clat.
   */
  json_object_object_add (o, "slat_ns", lat_object (&zero, false));
  json_object_object_add (o, "clat_ns", lat_object (&d->lat, true));
  json_object_object_add (o, "lat_ns", lat_object (&d->lat, false));
  return o;
}

/* Where the time goes (sim.h): each stage's mean, p50 and p99, ns. */
static json_object *
stages_object (const struct raidsim_job_result *r)
{
  json_object *o = json_object_new_object ();
  unsigned i;

  for (i = 0; i < RAIDSIM_NSTAGES; ++i) {
    const struct raid_histogram *h = &r->stage[i];
    json_object *st = json_object_new_object ();

    json_object_object_add (st, "mean", jdouble (raid_hist_mean (h)));
    json_object_object_add (st, "p50", juint (raid_hist_percentile (h, 50)));
    json_object_object_add (st, "p99", juint (raid_hist_percentile (h, 99)));
    json_object_object_add (st, "N", juint (h->count));
    json_object_object_add (o, raidsim_stage_names[i], st);
  }
  return o;
}

static json_object *
job_object (const struct raidsim_job_result *r)
{
  const struct raidsim_job *j = r->job;
  json_object *o = json_object_new_object ();
  json_object *opts = json_object_new_object ();
  unsigned i;

  json_object_object_add (o, "jobname", json_object_new_string (j->name));
  json_object_object_add (o, "groupid", json_object_new_int (0));
  json_object_object_add (o, "error", json_object_new_int (0));
  /* As in fio: the options the job file set, as strings, as they were
   * written where it matters (offset=25% stays a percentage, so that
   * raidsim calibrate reads the region as fio's output gives it).
   */
  for (i = 0; i < RAIDSIM_FIO_NOPTS; ++i) {
    char buf[256];

    if (j->opt_line[i] == 0)
      continue;
    raidsim_job_format_opt (j, i, buf, sizeof buf);
    json_object_object_add (opts, raidsim_fio_params[i].name,
                            json_object_new_string (buf));
  }
  json_object_object_add (o, "job options", opts);
  json_object_object_add (o, "read", dir_object (r, RAIDSIM_READ));
  json_object_object_add (o, "write", dir_object (r, RAIDSIM_WRITE));
  json_object_object_add (o, "job_runtime",
                          juint (elapsed (r) / RAIDSIM_NS_PER_MS));
  json_object_object_add (o, "stages", stages_object (r));
  /* fio's "sync" object: its flushes' count and latency. */
  if (shows_flush (r)) {
    json_object *sy = json_object_new_object ();

    json_object_object_add (sy, "total_ios", juint (r->flush.ios));
    json_object_object_add (sy, "lat_ns", lat_object (&r->flush.lat, true));
    json_object_object_add (o, "sync", sy);
  }
  /* raidsim's own: the job stopped early (raidsim_sim_set_precision). */
  if (r->stopped_at_precision > 0) {
    json_object *es = json_object_new_object ();

    json_object_object_add (es, "precision",
                            jdouble (r->stopped_at_precision));
    json_object_object_add (es, "simulated_ms",
                            juint (elapsed (r) / RAIDSIM_NS_PER_MS));
    json_object_object_add (o, "raidsim stopped early", es);
  }
  /* fio's "trim" object: count, bytes, bandwidth, latency. */
  if (shows_trim (r)) {
    json_object *tr = json_object_new_object ();
    raidsim_ns t = elapsed (r);

    json_object_object_add (tr, "total_ios", juint (r->trim.ios));
    json_object_object_add (tr, "io_bytes", juint (r->trim.bytes));
    json_object_object_add (tr, "iops", jdouble (t ? r->trim.ios * 1e9 / t
                                                 : 0));
    json_object_object_add (tr, "bw_bytes", jdouble (t ? r->trim.bytes * 1e9 / t
                                                     : 0));
    json_object_object_add (tr, "lat_ns", lat_object (&r->trim.lat, true));
    json_object_object_add (o, "trim", tr);
  }
  return o;
}

/* The background stream: what it is, its limits, how far it got and
 * how long the rest would take at its mean rate.
 */
static json_object *
sync_object (const struct raidsim_sim *s, const struct raidsim_bg_result *r)
{
  const struct raidsim_array_config *ac = raidsim_sim_array (s);
  json_object *o = json_object_new_object ();
  raidsim_ns eta = raidsim_bg_eta (r);

  json_object_object_add (o, "action", json_object_new_string
                          (raidsim_sync_action_name (r->action)));
  if (r->member >= 0)
    json_object_object_add (o, "member", json_object_new_int (r->member));
  json_object_object_add (o, "speed_limit_min", juint (ac->speed_limit_min));
  json_object_object_add (o, "speed_limit_max", juint (ac->speed_limit_max));
  json_object_object_add (o, "throttle", json_object_new_string
                          (raidsim_sync_throttle_enums[ac->sync_throttle].name));
  json_object_object_add (o, "total_bytes", juint (r->total));
  json_object_object_add (o, "done_bytes", juint (r->done));
  json_object_object_add (o, "complete", json_object_new_boolean (r->complete));
  json_object_object_add (o, "start_ns", juint (r->start));
  json_object_object_add (o, "end_ns", juint (r->end));
  json_object_object_add (o, "bw_bytes", jdouble (raidsim_bg_rate (r)));
  if (eta == RAIDSIM_NEVER)
    json_object_object_add (o, "eta_ns", NULL);
  else
    json_object_object_add (o, "eta_ns", juint (eta));
  json_object_object_add (o, "busy_ns", juint (r->busy));
  json_object_object_add (o, "requests", juint (r->units));
  json_object_object_add (o, "read_ios", juint (r->ios[RAIDSIM_READ]));
  json_object_object_add (o, "write_ios", juint (r->ios[RAIDSIM_WRITE]));
  json_object_object_add (o, "read_bytes", juint (r->bytes[RAIDSIM_READ]));
  json_object_object_add (o, "write_bytes", juint (r->bytes[RAIDSIM_WRITE]));
  json_object_object_add (o, "lat_ns", lat_object (&r->lat, true));
  return o;
}

static int
report_json (FILE *fp, const struct raidsim_sim *s)
{
  const struct raidsim_bg_result *sync = raidsim_sim_sync (s);
  const struct raidsim_array_config *ac = raidsim_sim_array (s);
  json_object *root = json_object_new_object ();
  json_object *arr = json_object_new_object ();
  json_object *jobs = json_object_new_array ();
  json_object *disks = json_object_new_array ();
  json_object *links = json_object_new_array ();
  raidsim_ns w0, w1;
  unsigned i;
  char buf[64];
  bool flushes = any_member_flush (s);

  raidsim_sim_window (s, &w0, &w1);
  json_object_object_add (root, "raidsim version",
                          json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (root, "seed", juint (raidsim_sim_seed (s)));

  json_object_object_add (arr, "name", json_object_new_string (ac->name));
  json_object_object_add (arr, "file", json_object_new_string (ac->path));
  raidsim_param_format (&raidsim_array_keys[0], &ac->level, buf, sizeof buf);
  json_object_object_add (arr, "level", json_object_new_string (buf));
  json_object_object_add (arr, "members", juint (ac->members));
  json_object_object_add (arr, "chunk", juint (ac->chunk));
  json_object_object_add (arr, "read_policy", json_object_new_string
                          (raidsim_read_policy_name
                           (raidsim_array_config_read_policy (ac))));
  json_object_object_add (arr, "size", juint (raidsim_sim_array_size (s)));
  json_object_object_add (arr, "controller",
                          json_object_new_string (ac->ctl->path));
  if (ac->failed_mask) {
    json_object *f = json_object_new_array ();

    for (i = 0; i < ac->members; ++i)
      if (ac->failed_mask & (UINT32_C (1) << i))
        json_object_array_add (f, json_object_new_int (i));
    json_object_object_add (arr, "failed", f);
  }
  json_object_object_add (root, "array", arr);
  if (raidsim_sim_jobfile (s)->assumed)
    json_object_object_add (root, "assumed", json_object_new_string
                            (raidsim_sim_jobfile (s)->assumed));
  if (raidsim_array_config_read_assumed (ac))
    json_object_object_add (root, "mirror_reads_assumed",
                            json_object_new_string
                            (raidsim_array_config_read_assumed (ac)));

  for (i = 0; i < raidsim_sim_njobs (s); ++i)
    if (!raidsim_sim_job (s, i)->job->hidden)
      json_object_array_add (jobs, job_object (raidsim_sim_job (s, i)));
  json_object_object_add (root, "jobs", jobs);

  /* fio's disk_util names where they fit; util is a percentage there. */
  for (i = 0; i < raidsim_sim_nmembers (s); ++i) {
    const struct raidsim_member_result *m = raidsim_sim_member (s, i);
    json_object *d = json_object_new_object ();
    double span = w1 > w0 ? (double) (w1 - w0) : 0;

    snprintf (buf, sizeof buf, "member%u", i);
    json_object_object_add (d, "name", json_object_new_string (buf));
    json_object_object_add (d, "device",
                            json_object_new_string (ac->devices[i]->path));
    json_object_object_add (d, "read_ios", juint (m->ios[RAIDSIM_READ]));
    json_object_object_add (d, "write_ios", juint (m->ios[RAIDSIM_WRITE]));
    json_object_object_add (d, "read_bytes", juint (m->bytes[RAIDSIM_READ]));
    json_object_object_add (d, "write_bytes", juint (m->bytes[RAIDSIM_WRITE]));
    if (sync) {
      json_object_object_add (d, "sync_read_ios",
                              juint (m->bg_ios[RAIDSIM_READ]));
      json_object_object_add (d, "sync_write_ios",
                              juint (m->bg_ios[RAIDSIM_WRITE]));
      json_object_object_add (d, "sync_read_bytes",
                              juint (m->bg_bytes[RAIDSIM_READ]));
      json_object_object_add (d, "sync_write_bytes",
                              juint (m->bg_bytes[RAIDSIM_WRITE]));
    }
    if (flushes)
      json_object_object_add (d, "flushes", juint (m->flushes));
    if (any_member_trim (s))
      json_object_object_add (d, "trims", juint (m->trims));
    json_object_object_add (d, "util",
                            jdouble (span ? 100.0 * m->busy / span : 0));
    json_object_object_add (d, "avg_queue",
                            jdouble (span ? (double) m->queue_area / span : 0));
    json_object_object_add (d, "max_queue", juint (m->max_queue));
    json_object_array_add (disks, d);
  }
  json_object_object_add (root, "disk_util", disks);

  for (i = 0; i < raidsim_sim_nlinks (s); ++i) {
    const struct raidsim_link *l = raidsim_sim_link (s, i);
    json_object *o;
    double span = w1 > w0 ? (double) (w1 - w0) : 0;
    double ru, wu;

    if (l == NULL)
      continue;
    o = json_object_new_object ();
    ru = span ? 100.0 * l->busy[RAIDSIM_READ] / span : 0;
    wu = span ? 100.0 * l->busy[RAIDSIM_WRITE] / span : 0;
    json_object_object_add (o, "name", json_object_new_string (l->name));
    json_object_object_add (o, "bandwidth", juint (l->rate));
    json_object_object_add (o, "full_duplex",
                            json_object_new_boolean (l->full_duplex));
    json_object_object_add (o, "read_bytes", juint (l->bytes[RAIDSIM_READ]));
    json_object_object_add (o, "write_bytes", juint (l->bytes[RAIDSIM_WRITE]));
    /* A full-duplex link is as busy as its busier direction; a
     * half-duplex one carries both in the same time.
     */
    json_object_object_add (o, "util", jdouble (l->full_duplex
                                                ? (ru > wu ? ru : wu)
                                                : ru + wu));
    json_object_array_add (links, o);
  }
  json_object_object_add (root, "links", links);

  {
    double lo, hi, avg;
    unsigned n = raidsim_result_surface (s, &lo, &hi, &avg);

    if (n) {
      json_object *o = json_object_new_object ();

      json_object_object_add (o, "points", juint (n));
      json_object_object_add (o, "min_bw_bytes", jdouble (lo));
      json_object_object_add (o, "max_bw_bytes", jdouble (hi));
      json_object_object_add (o, "avg_bw_bytes", jdouble (avg));
      json_object_object_add (root, "surface", o);
    }
  }
  if (sync)
    json_object_object_add (root, "sync", sync_object (s, sync));
  json_object_object_add (root, "window_start_ns", juint (w0));
  json_object_object_add (root, "window_end_ns", juint (w1));
  json_object_object_add (root, "events", juint (raidsim_sim_events (s)));
  {
    json_object *o = json_object_new_object ();
    double u = raidsim_sim_bottleneck (s, buf, sizeof buf);

    json_object_object_add (o, "name", json_object_new_string (buf));
    json_object_object_add (o, "util", jdouble (u));
    json_object_object_add (root, "bottleneck", o);
  }

  fprintf (fp, "%s\n",
           json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY |
                                           JSON_C_TO_STRING_SPACED |
                                           JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put (root);
  return 0;
}

/* ---- CSV ---- */

/* The latency columns of a CSV row, from min to max. */
static void
csv_lat (FILE *fp, const struct raid_histogram *h)
{
  fprintf (fp, "%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
           PRIu64, raid_hist_min (h), raid_hist_mean (h),
           raid_hist_percentile (h, 50), raid_hist_percentile (h, 95),
           raid_hist_percentile (h, 99), raid_hist_max (h));
}

/* With a background stream, one more row: its sync requests as the
 * I/Os, its progress as the bytes, and two more columns, the bytes it
 * had to do in all and the time the rest would take at its mean rate.
 */
static void
csv_sync (FILE *fp, const struct raidsim_sim *s,
          const struct raidsim_bg_result *r)
{
  raidsim_ns t = r->end - r->start, eta = raidsim_bg_eta (r);
  char job[64];

  if (r->action == RAIDSIM_SYNC_REBUILD)
    snprintf (job, sizeof job, "rebuild-member%d", r->member);
  else
    snprintf (job, sizeof job, "%s", raidsim_sync_action_name (r->action));
  raidsim_csv_field (fp, raidsim_sim_array (s)->name);
  fprintf (fp, ",%s,sync,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,",
           job, r->units, r->done, t, t ? r->units * 1e9 / t : 0,
           raidsim_bg_rate (r));
  csv_lat (fp, &r->lat);
  fprintf (fp, ",%" PRIu64 ",", r->total);
  if (eta != RAIDSIM_NEVER)
    fprintf (fp, "%" PRIu64, eta);
  fprintf (fp, "\n");
}

static int
report_csv (FILE *fp, const struct raidsim_sim *s)
{
  const struct raidsim_bg_result *sync = raidsim_sim_sync (s);
  unsigned i, d;

  fprintf (fp, "array,job,direction,ios,bytes,runtime_ns,iops,bw_bytes,"
           "lat_min_ns,lat_mean_ns,lat_p50_ns,lat_p95_ns,lat_p99_ns,"
           "lat_max_ns%s\n", sync ? ",total_bytes,eta_ns" : "");
  for (i = 0; i < raidsim_sim_njobs (s); ++i) {
    const struct raidsim_job_result *r = raidsim_sim_job (s, i);

    if (r->job->hidden)
      continue;
    for (d = 0; d < RAIDSIM_NDIRS; ++d) {
      const struct raid_histogram *h = &r->dir[d].lat;

      if (!has_dir (r, d))
        continue;
      raidsim_csv_field (fp, raidsim_sim_array (s)->name);
      fputc (',', fp);
      raidsim_csv_field (fp, r->job->name);
      fprintf (fp, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,",
               dir_names[d], r->dir[d].ios, r->dir[d].bytes, elapsed (r),
               raidsim_result_iops (r, d), raidsim_result_bw (r, d));
      csv_lat (fp, h);
      fprintf (fp, "%s\n", sync ? ",," : "");
    }
  }
  if (sync)
    csv_sync (fp, s, sync);
  return 0;
}

/* ---- table ---- */

/* A time for people: "850 ms", "12.5 s", "3.4 h". */
static void
human_time (raidsim_ns t, char *buf, size_t len)
{
  double sec = t / 1e9;

  if (t == RAIDSIM_NEVER)
    snprintf (buf, len, "forever");
  else if (sec < 1)
    snprintf (buf, len, "%.1f ms", sec * 1e3);
  else if (sec < 600)
    snprintf (buf, len, "%.1f s", sec);
  else if (sec < 36000)
    snprintf (buf, len, "%.1f min", sec / 60);
  else
    snprintf (buf, len, "%.1f h", sec / 3600);
}

static void
table_sync (FILE *fp, const struct raidsim_array_config *ac,
            const struct raidsim_bg_result *r)
{
  const struct raid_histogram *h = &r->lat;
  raidsim_ns t = r->end - r->start;
  char name[64], lo[32], hi[32], total[32], rest[32];

  sync_name (r, name, sizeof name);
  raidsim_param_format_value (RAIDSIM_PT_SIZE, r->total, total, sizeof total);
  human_time (raidsim_bg_eta (r), rest, sizeof rest);
  snprintf (lo, sizeof lo, "%.2f MB/s", ac->speed_limit_min / 1e6);
  if (ac->speed_limit_max)
    snprintf (hi, sizeof hi, "%.2f MB/s", ac->speed_limit_max / 1e6);
  else
    snprintf (hi, sizeof hi, "unlimited");
  fprintf (fp, "\n%s: %.2f MB in %.3f ms, %.2f MB/s mean (limits %s to "
           "%s, throttle %s; array busy %.1f%% of the time)\n",
           name, r->done / 1e6, t / 1e6, raidsim_bg_rate (r) / 1e6, lo, hi,
           raidsim_sync_throttle_enums[ac->sync_throttle].name,
           t ? 100.0 * r->busy / t : 0);
  if (r->complete)
    fprintf (fp, "  complete: all %s bytes done\n", total);
  else
    fprintf (fp, "  %.4f%% of %s bytes done; the rest would take %s at "
             "that rate\n", r->total ? 100.0 * r->done / r->total : 0,
             total, rest);
  fprintf (fp, "  %" PRIu64 " sync requests (%" PRIu64 " reads, %" PRIu64
           " writes), latency us: min %.3f, mean %.3f, p50 %.3f, p99 %.3f, "
           "max %.3f\n", r->units, r->ios[RAIDSIM_READ],
           r->ios[RAIDSIM_WRITE], raid_hist_min (h) / 1e3,
           raid_hist_mean (h) / 1e3, raid_hist_percentile (h, 50) / 1e3,
           raid_hist_percentile (h, 99) / 1e3, raid_hist_max (h) / 1e3);
}

/* Where a job's time goes (sim.h), one line per stage. */
static void
table_stages (FILE *fp, const struct raidsim_job_result *r)
{
  unsigned i;

  fprintf (fp, "  %-22s %10s %10s %10s\n", "stage us (last command)",
           "mean", "p50", "p99");
  for (i = 0; i < RAIDSIM_NSTAGES; ++i) {
    const struct raid_histogram *h = &r->stage[i];

    fprintf (fp, "    %-20s %10.3f %10.3f %10.3f\n", raidsim_stage_names[i],
             raid_hist_mean (h) / 1e3,
             raid_hist_percentile (h, 50) / 1e3,
             raid_hist_percentile (h, 99) / 1e3);
  }
}

static int
report_table (FILE *fp, const struct raidsim_sim *s)
{
  const struct raidsim_array_config *ac = raidsim_sim_array (s);
  const struct raidsim_bg_result *sync = raidsim_sim_sync (s);
  raidsim_ns w0, w1;
  char level[32], size[32], chunk[32];
  unsigned i, d;
  bool scan;

  raidsim_sim_window (s, &w0, &w1);
  raidsim_param_format (&raidsim_array_keys[0], &ac->level,
                        level, sizeof level);
  raidsim_param_format_value (RAIDSIM_PT_SIZE, raidsim_sim_array_size (s),
                              size, sizeof size);
  raidsim_param_format_value (RAIDSIM_PT_SIZE, ac->chunk, chunk, sizeof chunk);
  fprintf (fp, "array %s: level %s, %" PRIu64 " members", ac->name, level,
           ac->members);
  if (ac->level == RAID_LEVEL_0 || ac->level == RAID_LEVEL_10)
    fprintf (fp, ", chunk %s", chunk);
  if (ac->level == RAID_LEVEL_1 || ac->level == RAID_LEVEL_10)
    fprintf (fp, ", read-policy %s",
             raidsim_read_policy_name (raidsim_array_config_read_policy (ac)));
  fprintf (fp, ", %s bytes, controller %s (seed %" PRIu64 ")\n",
           size, ac->ctl->model, raidsim_sim_seed (s));
  /* What a preset assumed where its tool's sources are silent, and
   * the controller where its documents are.
   */
  if (raidsim_sim_jobfile (s)->assumed)
    fprintf (fp, "%s: assumed %s\n", raidsim_sim_jobfile (s)->path,
             raidsim_sim_jobfile (s)->assumed);
  if (raidsim_array_config_read_assumed (ac))
    fprintf (fp, "%s: assumed mirror reads %s: %s\n", ac->ctl->path,
             raidsim_read_policy_name (raidsim_array_config_read_policy (ac)),
             raidsim_array_config_read_assumed (ac));
  if (ac->failed_mask) {
    char list[128];

    member_list (ac->failed_mask, list, sizeof list);
    fprintf (fp, "degraded: member%s %s failed\n",
             ac->failed_mask & (ac->failed_mask - 1) ? "s" : "", list);
  }
  if (sync)
    table_sync (fp, ac, sync);

  /* A surface scan is read as one figure, HD Tune's: min, max and
   * average, then the rate at each point, start of the array first;
   * the jobs one by one would be a hundred blocks of the same.
   */
  scan = raidsim_sim_jobfile (s)->summary == RAIDSIM_SUMMARY_SURFACE;
  if (scan) {
    double lo, hi, avg;
    unsigned n = raidsim_result_surface (s, &lo, &hi, &avg), k = 0;

    if (n) {
      fprintf (fp, "\n%s: %u points, transfer rate MB/s: min %.1f, max "
               "%.1f, average %.1f\n", raidsim_sim_jobfile (s)->path, n,
               lo / 1e6, hi / 1e6, avg / 1e6);
      for (i = 0; i < raidsim_sim_njobs (s); ++i) {
        const struct raidsim_job_result *r = raidsim_sim_job (s, i);

        if (r->job->hidden)
          continue;
        fprintf (fp, "%s%7.1f", k % 10 ? "" : (k ? "\n  " : "  "),
                 raidsim_result_bw (r, raidsim_job_dir (r->job)) / 1e6);
        k++;
      }
      fprintf (fp, "\n");
    }
  }

  for (i = 0; !scan && i < raidsim_sim_njobs (s); ++i) {
    const struct raidsim_job_result *r = raidsim_sim_job (s, i);
    const struct raidsim_job *j = r->job;
    char bs[RAIDSIM_STR_MAX];

    if (j->hidden)
      continue;
    /* Bytes for one size, as always; fio's syntax for several. */
    if (raidsim_job_bs_fixed (j))
      snprintf (bs, sizeof bs, "%" PRIu64, j->bs);
    else
      raidsim_job_bs_text (j, bs, sizeof bs);
    if (j->trace)
      fprintf (fp, "\njob %s: replay of %s (%s, %s), iodepth %" PRIu64
               ", numjobs %" PRIu64 "; %.3f ms counted\n", j->name,
               j->trace->name, raidsim_trace_format_name (j->trace->format),
               raidsim_job_timed (j) ? "timed" : "as fast as it can",
               j->iodepth, j->numjobs, elapsed (r) / 1e6);
    else
      fprintf (fp, "\njob %s: %s, bs %s, iodepth %" PRIu64
               ", numjobs %" PRIu64 "; %.3f ms counted\n",
               j->name, raidsim_job_rw_name (j), bs, j->iodepth, j->numjobs,
               elapsed (r) / 1e6);
    for (d = 0; d < RAIDSIM_NDIRS; ++d) {
      const struct raid_histogram *h = &r->dir[d].lat;
      double bw = raidsim_result_bw (r, d);

      if (!has_dir (r, d))
        continue;
      fprintf (fp, "  %-5s IOPS %.1f, %.2f MB/s (%.2f MiB/s), %" PRIu64
               " I/Os\n", dir_names[d], raidsim_result_iops (r, d),
               bw / 1e6, bw / 1048576, r->dir[d].ios);
      fprintf (fp, "        latency us: min %.3f, mean %.3f, p50 %.3f, "
               "p95 %.3f, p99 %.3f, max %.3f\n",
               raid_hist_min (h) / 1e3, raid_hist_mean (h) / 1e3,
               raid_hist_percentile (h, 50) / 1e3,
               raid_hist_percentile (h, 95) / 1e3,
               raid_hist_percentile (h, 99) / 1e3,
               raid_hist_max (h) / 1e3);
    }
    if (r->stopped_at_precision > 0) {
      fprintf (fp, "  stopped early: the 95%% intervals of IOPS, MB/s and "
               "mean latency within %g%% of their means after %.3f s of "
               "simulated time", r->stopped_at_precision * 100,
               elapsed (r) / 1e9);
      if (j->time_based && j->runtime)
        fprintf (fp, " of runtime %.3f s", j->runtime / 1e9);
      fprintf (fp, " (raidsim run --precision 0 runs it all)\n");
    }
    /* fio's trim lines. */
    if (shows_trim (r)) {
      const struct raid_histogram *h = &r->trim.lat;
      raidsim_ns t = elapsed (r);

      fprintf (fp, "  trim  IOPS %.1f, %.2f MB/s, %" PRIu64 " trims\n",
               t ? r->trim.ios * 1e9 / t : 0,
               t ? r->trim.bytes * 1e3 / t : 0, r->trim.ios);
      if (r->trim.ios)
        fprintf (fp, "        latency us: min %.3f, mean %.3f, p50 %.3f, "
                 "p95 %.3f, p99 %.3f, max %.3f\n",
                 raid_hist_min (h) / 1e3, raid_hist_mean (h) / 1e3,
                 raid_hist_percentile (h, 50) / 1e3,
                 raid_hist_percentile (h, 95) / 1e3,
                 raid_hist_percentile (h, 99) / 1e3,
                 raid_hist_max (h) / 1e3);
    }
    /* fio's "sync (usec)" lines: how many flushes, and their latency. */
    if (shows_flush (r)) {
      const struct raid_histogram *h = &r->flush.lat;

      fprintf (fp, "  flush %" PRIu64 " flushes\n", r->flush.ios);
      if (r->flush.ios)
        fprintf (fp, "        latency us: min %.3f, mean %.3f, p50 %.3f, "
                 "p95 %.3f, p99 %.3f, max %.3f\n",
                 raid_hist_min (h) / 1e3, raid_hist_mean (h) / 1e3,
                 raid_hist_percentile (h, 50) / 1e3,
                 raid_hist_percentile (h, 95) / 1e3,
                 raid_hist_percentile (h, 99) / 1e3,
                 raid_hist_max (h) / 1e3);
    }
    table_stages (fp, r);
  }

  fprintf (fp, "\n%-7s %10s %10s %7s %9s %9s", "member", "read-ios",
           "write-ios", "util%", "avg-queue", "max-queue");
  if (sync)
    fprintf (fp, " %10s %11s", "sync-reads", "sync-writes");
  if (any_member_flush (s))
    fprintf (fp, " %10s", "flushes");
  if (any_member_trim (s))
    fprintf (fp, " %10s", "trims");
  fprintf (fp, "  %s\n", "device");
  for (i = 0; i < raidsim_sim_nmembers (s); ++i) {
    const struct raidsim_member_result *m = raidsim_sim_member (s, i);
    double span = w1 > w0 ? (double) (w1 - w0) : 0;

    fprintf (fp, "%-7u %10" PRIu64 " %10" PRIu64 " %7.2f %9.2f %9u",
             i, m->ios[RAIDSIM_READ], m->ios[RAIDSIM_WRITE],
             span ? 100.0 * m->busy / span : 0,
             span ? (double) m->queue_area / span : 0, m->max_queue);
    if (sync)
      fprintf (fp, " %10" PRIu64 " %11" PRIu64, m->bg_ios[RAIDSIM_READ],
               m->bg_ios[RAIDSIM_WRITE]);
    if (any_member_flush (s))
      fprintf (fp, " %10" PRIu64, m->flushes);
    if (any_member_trim (s))
      fprintf (fp, " %10" PRIu64, m->trims);
    fprintf (fp, "  %s%s\n", ac->devices[i]->path,
             ac->failed_mask & (UINT32_C (1) << i) ? " (failed)"
             : ac->rebuild_mask & (UINT32_C (1) << i) ? " (rebuilt)" : "");
  }
  for (i = 0; i < raidsim_sim_nlinks (s); ++i) {
    const struct raidsim_link *l = raidsim_sim_link (s, i);
    double span = w1 > w0 ? (double) (w1 - w0) : 0;

    if (l == NULL)
      continue;
    fprintf (fp, "link %s: %.2f MB/s read, %.2f MB/s write, of %.2f MB/s\n",
             l->name, span ? l->bytes[RAIDSIM_READ] * 1e3 / span : 0,
             span ? l->bytes[RAIDSIM_WRITE] * 1e3 / span : 0, l->rate / 1e6);
  }
  {
    bool any = false;
    char name[32];
    double u;

    for (i = 0; i < raidsim_sim_nlinks (s); ++i)
      if (raidsim_sim_link (s, i)) {
        fprintf (fp, "%s%s %.2f", any ? ", " : "link util%: ",
                 raidsim_sim_link (s, i)->name, raidsim_sim_link_util (s, i));
        any = true;
      }
    if (any)
      fprintf (fp, "\n");
    u = raidsim_sim_bottleneck (s, name, sizeof name);
    fprintf (fp, "bottleneck: %s %.0f%%\n", name, u);
  }
  return 0;
}

int
raidsim_report (FILE *fp, const struct raidsim_sim *s,
                enum raidsim_format format)
{
  int r;

  switch (format) {
  case RAIDSIM_FORMAT_JSON: r = report_json (fp, s); break;
  case RAIDSIM_FORMAT_CSV: r = report_csv (fp, s); break;
  default: r = report_table (fp, s); break;
  }
  if (r == 0 && ferror (fp)) {
    raidsim_set_error ("report: write error");
    return -1;
  }
  return r;
}

int
raidsim_parse_format (const char *s, enum raidsim_format *format)
{
  static const char *const names[] = {
    [RAIDSIM_FORMAT_TABLE] = "table",
    [RAIDSIM_FORMAT_CSV] = "csv",
    [RAIDSIM_FORMAT_JSON] = "json",
  };
  size_t i;

  for (i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (strcmp (s, names[i]) == 0) {
      *format = i;
      return 0;
    }
  raidsim_set_error ("'%s' is not table, csv or json", s);
  return -1;
}

int
raidsim_parse_seed (const char *s, uint64_t *seed)
{
  char *end;
  unsigned long long v;

  errno = 0;
  if (*s < '0' || *s > '9')
    goto bad;
  v = strtoull (s, &end, 0);
  if (errno != 0 || *end != '\0')
    goto bad;
  *seed = v;
  return 0;

 bad:
  raidsim_set_error ("'%s' is not a whole number", s);
  return -1;
}
