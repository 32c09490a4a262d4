/* raidsim: a run's figures over several seeds (run --seeds), each as
 * the mean with its 95% interval (stats.h), in a table, CSV or JSON.
 *
 * Every run of the set has the same jobs, members and links, so its
 * figures come out as the same list in the same order (raidsim_figs_of);
 * the report takes figure i of every seed and combines them.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "raidsim/csv.h"
#include "raidsim/error.h"
#include "raidsim/report.h"
#include "raidsim/stats.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const char *const dir_names[] = { "read", "write" };

static int
add (struct raidsim_figs *fs, const char *who, int dir, const char *name,
     double v)
{
  struct raidsim_fig *f;

  if (fs->n % 64 == 0) {
    f = realloc (fs->f, (fs->n + 64) * sizeof *f);
    if (f == NULL) {
      raidsim_set_error ("figures: out of memory");
      return -1;
    }
    fs->f = f;
  }
  f = &fs->f[fs->n++];
  snprintf (f->who, sizeof f->who, "%s", who);
  f->dir = dir;
  snprintf (f->name, sizeof f->name, "%s", name);
  f->v = v;
  return 0;
}

/* Whether job r reports direction d whatever the seed: from its rw, or
 * both for a replayed trace.
 */
static bool
uses (const struct raidsim_job *j, int d)
{
  if (j->trace)
    return true;
  if (d == RAIDSIM_READ)
    return j->rw != RAIDSIM_RW_WRITE && j->rw != RAIDSIM_RW_RANDWRITE;
  return j->rw != RAIDSIM_RW_READ && j->rw != RAIDSIM_RW_RANDREAD;
}

int
raidsim_figs_of (const struct raidsim_sim *s, struct raidsim_figs *fs)
{
  unsigned i, d, k;
  int r = 0;

  memset (fs, 0, sizeof *fs);
  for (i = 0; i < raidsim_sim_njobs (s); ++i) {
    const struct raidsim_job_result *jr = raidsim_sim_job (s, i);
    const char *who = jr->job->name;

    if (jr->job->hidden)
      continue;
    for (d = 0; d < RAIDSIM_NDIRS; ++d) {
      const struct raid_histogram *h = &jr->dir[d].lat;

      if (!uses (jr->job, d))
        continue;
      r |= add (fs, who, d, "iops", raidsim_result_iops (jr, d));
      r |= add (fs, who, d, "bw_bytes", raidsim_result_bw (jr, d));
      r |= add (fs, who, d, "lat_mean_ns", raid_hist_mean (h));
      r |= add (fs, who, d, "lat_p50_ns", raid_hist_percentile (h, 50));
      r |= add (fs, who, d, "lat_p95_ns", raid_hist_percentile (h, 95));
      r |= add (fs, who, d, "lat_p99_ns", raid_hist_percentile (h, 99));
    }
    for (k = 0; k < RAIDSIM_NSTAGES; ++k) {
      char name[40];

      snprintf (name, sizeof name, "%s_mean_ns", raidsim_stage_names[k]);
      r |= add (fs, who, -1, name, raid_hist_mean (&jr->stage[k]));
    }
  }
  for (i = 0; i < raidsim_sim_nmembers (s); ++i) {
    char who[32];

    snprintf (who, sizeof who, "member%u", i);
    r |= add (fs, who, -1, "util", raidsim_sim_member_util (s, i));
  }
  for (i = 0; i < raidsim_sim_nlinks (s); ++i)
    if (raidsim_sim_link (s, i))
      r |= add (fs, raidsim_sim_link (s, i)->name, -1, "util",
                raidsim_sim_link_util (s, i));
  r |= add (fs, "bottleneck", -1, "util",
            raidsim_sim_bottleneck (s, fs->bottleneck,
                                    sizeof fs->bottleneck));
  if (r) {
    raidsim_figs_free (fs);
    return -1;
  }
  return 0;
}

void
raidsim_figs_free (struct raidsim_figs *fs)
{
  free (fs->f);
  fs->f = NULL;
  fs->n = 0;
}

/* Figure i over the seeds. */
static struct raidsim_interval
over_seeds (const struct raidsim_figs *figs, unsigned nseeds, unsigned i,
            double *v)
{
  unsigned k;

  for (k = 0; k < nseeds; ++k)
    v[k] = figs[k].f[i].v;
  return raidsim_interval95 (v, nseeds);
}

/* The bottleneck named by most seeds (the first seed's among equals),
 * and by how many.
 */
static const char *
bottleneck (const struct raidsim_figs *figs, unsigned nseeds, unsigned *count)
{
  unsigned a, b, best = 0, besti = 0;

  for (a = 0; a < nseeds; ++a) {
    unsigned c = 0;

    for (b = 0; b < nseeds; ++b)
      c += strcmp (figs[a].bottleneck, figs[b].bottleneck) == 0;
    if (c > best) {
      best = c;
      besti = a;
    }
  }
  *count = best;
  return figs[besti].bottleneck;
}

static void
seeds_text (char *buf, size_t len, const struct raidsim_seed_list *seeds)
{
  size_t n = 0;
  unsigned k;
  bool run = true;

  for (k = 1; k < seeds->n; ++k)
    run &= seeds->seed[k] == seeds->seed[k - 1] + 1;
  if (run && seeds->n > 1) {
    snprintf (buf, len, "%" PRIu64 " to %" PRIu64, seeds->seed[0],
              seeds->seed[seeds->n - 1]);
    return;
  }
  buf[0] = '\0';
  for (k = 0; k < seeds->n && n < len; ++k)
    n += snprintf (buf + n, len - n, "%s%" PRIu64, k ? "," : "",
                   seeds->seed[k]);
}

static json_object *
jdouble (double v)
{
  char buf[64];

  snprintf (buf, sizeof buf, "%.6f", v);
  return json_object_new_double_s (v, buf);
}

int
raidsim_report_seeds (FILE *fp, const struct raidsim_sim *s,
                      const struct raidsim_seed_list *seeds,
                      const struct raidsim_figs *figs,
                      enum raidsim_format format)
{
  const struct raidsim_array_config *ac = raidsim_sim_array (s);
  unsigned n = seeds->n, i, k, named;
  double *v = calloc (n, sizeof *v);
  const char *bn = bottleneck (figs, n, &named);
  char list[RAIDSIM_SEEDS_MAX * 21 + 1];

  if (v == NULL) {
    raidsim_set_error ("report: out of memory");
    return -1;
  }
  for (k = 1; k < n; ++k)
    if (figs[k].n != figs[0].n) {
      free (v);
      raidsim_set_error ("report: seed %" PRIu64 " gave other figures",
                         seeds->seed[k]);
      return -1;
    }
  seeds_text (list, sizeof list, seeds);

  if (format == RAIDSIM_FORMAT_CSV) {
    fprintf (fp, "array,what,direction,figure,seeds,mean,sd,ci95,lo,hi\n");
    for (i = 0; i < figs[0].n; ++i) {
      const struct raidsim_fig *f = &figs[0].f[i];
      struct raidsim_interval iv = over_seeds (figs, n, i, v);

      raidsim_csv_field (fp, ac->name);
      fputc (',', fp);
      raidsim_csv_field (fp, f->who);
      fprintf (fp, ",%s,%s,%u,%.6f,%.6f,%.6f,%.6f,%.6f\n",
               f->dir >= 0 ? dir_names[f->dir] : "", f->name, n, iv.mean,
               iv.sd, iv.half, iv.mean - iv.half, iv.mean + iv.half);
    }
  }
  else if (format == RAIDSIM_FORMAT_JSON) {
    json_object *root = json_object_new_object ();
    json_object *sl = json_object_new_array ();
    json_object *arr = json_object_new_array ();
    json_object *b = json_object_new_object ();

    json_object_object_add (root, "raidsim version",
                            json_object_new_string (PACKAGE_VERSION));
    for (k = 0; k < n; ++k)
      json_object_array_add (sl, json_object_new_uint64 (seeds->seed[k]));
    json_object_object_add (root, "seeds", sl);
    if (n > 1)
      json_object_object_add (root, "t", jdouble (raidsim_t_quantile
                                                  (0.975, n - 1)));
    json_object_object_add (root, "array", json_object_new_string (ac->name));
    for (i = 0; i < figs[0].n; ++i) {
      const struct raidsim_fig *f = &figs[0].f[i];
      struct raidsim_interval iv = over_seeds (figs, n, i, v);
      json_object *o = json_object_new_object ();
      json_object *vals = json_object_new_array ();

      json_object_object_add (o, "what", json_object_new_string (f->who));
      if (f->dir >= 0)
        json_object_object_add (o, "direction",
                                json_object_new_string (dir_names[f->dir]));
      json_object_object_add (o, "figure", json_object_new_string (f->name));
      json_object_object_add (o, "mean", jdouble (iv.mean));
      json_object_object_add (o, "sd", jdouble (iv.sd));
      json_object_object_add (o, "ci95", jdouble (iv.half));
      json_object_object_add (o, "lo", jdouble (iv.mean - iv.half));
      json_object_object_add (o, "hi", jdouble (iv.mean + iv.half));
      for (k = 0; k < n; ++k)
        json_object_array_add (vals, jdouble (v[k]));
      json_object_object_add (o, "values", vals);
      json_object_array_add (arr, o);
    }
    json_object_object_add (root, "figures", arr);
    json_object_object_add (b, "name", json_object_new_string (bn));
    json_object_object_add (b, "seeds", json_object_new_uint64 (named));
    json_object_object_add (root, "bottleneck", b);
    fprintf (fp, "%s\n",
             json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY |
                                             JSON_C_TO_STRING_SPACED |
                                             JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put (root);
  }
  else {
    const char *last = NULL;

    fprintf (fp, "array %s: mean over %u seed%s (%s)", ac->name, n,
             n == 1 ? "" : "s", list);
    if (n > 1)
      fprintf (fp, ", +- the 95%% interval: t(0.975, %u) = %.3f x sd / "
               "sqrt(%u)\n", n - 1, raidsim_t_quantile (0.975, n - 1), n);
    else
      fprintf (fp, ": one seed, no interval\n");
    for (i = 0; i < figs[0].n; ++i) {
      const struct raidsim_fig *f = &figs[0].f[i];
      struct raidsim_interval iv = over_seeds (figs, n, i, v);

      if (last == NULL || strcmp (last, f->who) != 0)
        fprintf (fp, "\n%s:\n", f->who);
      last = f->who;
      fprintf (fp, "  %-6s %-26s %16.3f +- %-14.3f [%.3f, %.3f]\n",
               f->dir >= 0 ? dir_names[f->dir] : "", f->name, iv.mean,
               iv.half, iv.mean - iv.half, iv.mean + iv.half);
    }
    fprintf (fp, "\nbottleneck: %s in %u of %u seeds\n", bn, named, n);
  }
  free (v);
  if (ferror (fp)) {
    raidsim_set_error ("report: write error");
    return -1;
  }
  return 0;
}
