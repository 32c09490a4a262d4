/* nbdkit-raid-plugin: what model= could not keep (see limits.h). */

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/histogram.h"
#include "limits.h"

static struct {
  pthread_mutex_t lock;
  uint64_t requests;            /* requests the models timed */
  uint64_t bg_cmds;             /* timing_begin_background's commands */
  uint64_t bg_late;             /* and its batches found late */
  struct raid_histogram late;   /* real I/O end minus model time, late */
  struct raid_histogram error;  /* return minus model time, the others */
} lim = { .lock = PTHREAD_MUTEX_INITIALIZER };

void
limits_init (void)
{
  raid_hist_init (&lim.late);
  raid_hist_init (&lim.error);
}

void
limits_background (uint64_t cmds)
{
  pthread_mutex_lock (&lim.lock);
  lim.bg_cmds += cmds;
  pthread_mutex_unlock (&lim.lock);
}

void
limits_background_late (void)
{
  pthread_mutex_lock (&lim.lock);
  lim.bg_late++;
  pthread_mutex_unlock (&lim.lock);
}

void
limits_request (bool late, uint64_t ns)
{
  pthread_mutex_lock (&lim.lock);
  lim.requests++;
  raid_hist_record (late ? &lim.late : &lim.error, ns);
  pthread_mutex_unlock (&lim.lock);
}

static json_object *
hist_json (const struct raid_histogram *h)
{
  json_object *o = json_object_new_object ();

  json_object_object_add (o, "count", json_object_new_uint64 (h->count));
  json_object_object_add (o, "mean",
                          json_object_new_double (raid_hist_mean (h)));
  json_object_object_add (o, "p50", json_object_new_uint64
                          (raid_hist_percentile (h, 50)));
  json_object_object_add (o, "p99", json_object_new_uint64
                          (raid_hist_percentile (h, 99)));
  json_object_object_add (o, "max",
                          json_object_new_uint64 (raid_hist_max (h)));
  return o;
}

static json_object *
members_json (uint32_t set)
{
  json_object *a = json_object_new_array ();
  unsigned i;

  for (i = 0; i < 32; ++i)
    if (set & (UINT32_C (1) << i))
      json_object_array_add (a, json_object_new_int (i));
  return a;
}

/* "timing": { "model": PATH, "lookahead_ns": N, "spin_ns": N,
 *             "host_ns": N, "requests": N,
 *             "failed": [ I... ], "rebuilding": [ I... ], "resync": B,
 *                      the members' state the models last took
 *             "late":  { count, mean, p50, p99, max },  real I/O ended
 *                      after the model's time, by how much (ns)
 *             "error": { ... },   the others: return minus model time
 *             "background": { "commands": N, "late": N } }  the
 *                      member I/O of rebuilds, resyncs and checks: the
 *                      commands the models timed, and the batches whose
 *                      real I/O ended after the models' time
 */
json_object *
limits_json (const char *path, const struct limits_knobs *k,
             uint32_t failed, uint32_t rebuild, bool resync)
{
  struct raid_histogram *late, *error;
  json_object *o, *bg;
  uint64_t requests, bg_cmds, bg_late;

  late = malloc (sizeof *late);
  error = malloc (sizeof *error);
  if (late == NULL || error == NULL) {
    free (late);
    free (error);
    return NULL;
  }
  pthread_mutex_lock (&lim.lock);
  *late = lim.late;
  *error = lim.error;
  requests = lim.requests;
  bg_cmds = lim.bg_cmds;
  bg_late = lim.bg_late;
  pthread_mutex_unlock (&lim.lock);

  o = json_object_new_object ();
  json_object_object_add (o, "model", json_object_new_string (path));
  json_object_object_add (o, "lookahead_ns",
                          json_object_new_uint64 (k->lookahead_ns));
  json_object_object_add (o, "spin_ns", json_object_new_uint64 (k->spin_ns));
  json_object_object_add (o, "host_ns", json_object_new_uint64 (k->host_ns));
  json_object_object_add (o, "requests", json_object_new_uint64 (requests));
  json_object_object_add (o, "failed", members_json (failed));
  json_object_object_add (o, "rebuilding", members_json (rebuild));
  json_object_object_add (o, "resync", json_object_new_boolean (resync));
  json_object_object_add (o, "late", hist_json (late));
  json_object_object_add (o, "error", hist_json (error));
  bg = json_object_new_object ();
  json_object_object_add (bg, "commands", json_object_new_uint64 (bg_cmds));
  json_object_object_add (bg, "late", json_object_new_uint64 (bg_late));
  json_object_object_add (o, "background", bg);
  free (late);
  free (error);
  return o;
}

void
limits_log_summary (const char *path, bool to_stderr)
{
  char line[512];

  pthread_mutex_lock (&lim.lock);
  snprintf (line, sizeof line,
            "raid: timing: model=%s: %" PRIu64 " requests timed, %" PRIu64
            " late (the real I/O ended after the model's time; by p50 %"
            PRIu64 " p99 %" PRIu64 " max %" PRIu64 " ns), the others "
            "returned after the model's time by p50 %" PRIu64 " p99 %"
            PRIu64 " ns",
            path, lim.requests, lim.late.count,
            raid_hist_percentile (&lim.late, 50),
            raid_hist_percentile (&lim.late, 99), raid_hist_max (&lim.late),
            raid_hist_percentile (&lim.error, 50),
            raid_hist_percentile (&lim.error, 99));
  pthread_mutex_unlock (&lim.lock);
  if (to_stderr)
    fprintf (stderr, "nbdkit: %s\n", line);
  else
    nbdkit_debug ("%s", line);
}
