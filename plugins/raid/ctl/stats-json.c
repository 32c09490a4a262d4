/* nbdkit-raid-plugin: statistics out, as JSON (json-c) and log lines.
 * See stats-json.h and, for the layout, stats.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "stats-json.h"
#include "model/timing.h"

static const char *const op_keys[MOP_COUNT] = {
  [MOP_READ] = "read", [MOP_WRITE] = "write", [MOP_ZERO] = "zero",
  [MOP_TRIM] = "trim", [MOP_FLUSH] = "flush",
};

static json_object *
latency_json (const struct raid_histogram *h)
{
  json_object *o = json_object_new_object ();

  json_object_object_add (o, "count", json_object_new_uint64 (h->count));
  json_object_object_add (o, "mean",
                          json_object_new_double (raid_hist_mean (h)));
  json_object_object_add (o, "min",
                          json_object_new_uint64 (raid_hist_min (h)));
  json_object_object_add (o, "max",
                          json_object_new_uint64 (raid_hist_max (h)));
  json_object_object_add (o, "p50", json_object_new_uint64
                          (raid_hist_percentile (h, 50)));
  json_object_object_add (o, "p95", json_object_new_uint64
                          (raid_hist_percentile (h, 95)));
  json_object_object_add (o, "p99", json_object_new_uint64
                          (raid_hist_percentile (h, 99)));
  return o;
}

static void
add_stats (json_object *o, struct io_stats *live)
{
  struct stats_snapshot *snap = malloc (sizeof *snap);
  struct stats_counts *s = &snap->c;
  json_object *ops, *pieces, *bytes, *lat;
  int i;

  if (snap == NULL)
    return;
  /* A copy, so that the JSON is built without holding up the I/O path. */
  stats_snapshot (live, snap);
  ops = json_object_new_object ();
  pieces = json_object_new_object ();
  bytes = json_object_new_object ();
  for (i = 0; i < MOP_COUNT; ++i) {
    json_object_object_add (ops, op_keys[i],
                            json_object_new_uint64 (s->ops[i]));
    if (i != MOP_FLUSH) {
      json_object_object_add (pieces, op_keys[i],
                              json_object_new_uint64 (s->pieces[i]));
      json_object_object_add (bytes, op_keys[i],
                              json_object_new_uint64 (s->bytes[i]));
    }
  }
  json_object_object_add (o, "ops", ops);
  json_object_object_add (o, "pieces", pieces);
  json_object_object_add (o, "bytes", bytes);
  json_object_object_add (o, "errors", json_object_new_uint64 (s->errors));
  json_object_object_add (o, "max_inflight",
                          json_object_new_uint64 (snap->max_inflight));
  lat = json_object_new_object ();
  json_object_object_add (lat, "read", latency_json (&s->lat_read));
  json_object_object_add (lat, "write", latency_json (&s->lat_write));
  json_object_object_add (o, "lat_ns", lat);
  free (snap);
}

static json_object *
to_json (const struct stats_source *src)
{
  json_object *root = json_object_new_object ();
  json_object *array = json_object_new_object ();
  json_object *members = json_object_new_array ();
  json_object *timing;
  unsigned i;

  json_object_object_add (root, "level", json_object_new_int
                          (raid_geom_level (src->geom)));
  json_object_object_add (root, "chunk", json_object_new_uint64
                          (raid_geom_chunk (src->geom)));
  json_object_object_add (root, "size", json_object_new_uint64
                          (raid_geom_size (src->geom)));
  json_object_object_add (root, "io", json_object_new_string (src->io));
  add_stats (array, src->array);
  json_object_object_add (root, "array", array);
  if (src->sync_on) {
    json_object *o = json_object_new_object ();

    json_object_object_add (o, "action",
                            json_object_new_string (src->sync.action));
    json_object_object_add (o, "done",
                            json_object_new_uint64 (src->sync.done));
    json_object_object_add (o, "total",
                            json_object_new_uint64 (src->sync.total));
    json_object_object_add (o, "synced",
                            json_object_new_uint64 (src->sync.synced));
    json_object_object_add (o, "rate",
                            json_object_new_double (src->sync.rate));
    json_object_object_add (root, "sync", o);
  }
  {
    const struct scrub_view *sc = &src->scrub;
    json_object *o = json_object_new_object ();

    json_object_object_add (o, "action", json_object_new_string
                            (scrub_action_name (sc->action)));
    json_object_object_add (o, "done", json_object_new_uint64 (sc->done));
    json_object_object_add (o, "total", json_object_new_uint64 (sc->total));
    json_object_object_add (o, "rate", json_object_new_double (sc->rate));
    json_object_object_add (o, "mismatch_cnt",
                            json_object_new_uint64 (sc->mismatch_cnt));
    json_object_object_add (o, "last", sc->last
                            ? json_object_new_string (sc->last) : NULL);
    json_object_object_add (o, "last_complete",
                            json_object_new_boolean (sc->last_complete));
    json_object_object_add (root, "scrub", o);
  }
  for (i = 0; i < src->nmembers; ++i) {
    struct member *m = &src->members[i];
    json_object *o = json_object_new_object ();

    json_object_object_add (o, "index", json_object_new_int (i));
    json_object_object_add (o, "name", json_object_new_string (m->name));
    json_object_object_add (o, "backend",
                            json_object_new_string (m->ops->name));
    json_object_object_add (o, "engine", json_object_new_string
                            (m->engine ? m->engine : "none"));
    json_object_object_add (o, "failed", json_object_new_boolean
                            (atomic_load (&m->failed)));
    add_stats (o, &m->stats);
    json_object_array_add (members, o);
  }
  json_object_object_add (root, "members", members);
  timing = timing_json ();
  if (timing)
    json_object_object_add (root, "timing", timing);
  return root;
}

int
stats_json_write (const char *path, const struct stats_source *src)
{
  json_object *root = to_json (src);
  const char *text = json_object_to_json_string_ext
    (root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
  size_t len = strlen (text);
  char *tmp;
  int fd, r = -1;

  if (asprintf (&tmp, "%s.tmp", path) == -1) {
    json_object_put (root);
    return -1;
  }
  fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd == -1)
    nbdkit_error ("stats: %s: %m", tmp);
  else if (write (fd, text, len) != (ssize_t) len || write (fd, "\n", 1) != 1)
    nbdkit_error ("stats: %s: write: %m", tmp);
  else if (close (fd) == -1) {
    fd = -1;
    nbdkit_error ("stats: %s: close: %m", tmp);
  }
  else {
    fd = -1;
    if (rename (tmp, path) == -1)
      nbdkit_error ("stats: rename %s: %m", path);
    else
      r = 0;
  }
  if (fd >= 0)
    close (fd);
  free (tmp);
  json_object_put (root);
  return r;
}

/* One summary line: to stderr if to_stderr, else as a debug message
 * (which nbdkit shows with -v only).
 */
static void
summary_line (const char *what, struct io_stats *live, bool to_stderr)
{
  struct stats_snapshot *snap = malloc (sizeof *snap);
  struct stats_counts *s = &snap->c;
  char errs[48] = "";
  char line[1024];

  if (snap == NULL)
    return;
  stats_snapshot (live, snap);
  /* Errors are named only when there were some, so that a clean run's
   * log holds no line a script would mistake for one.
   */
  if (s->errors)
    snprintf (errs, sizeof errs, ", %" PRIu64 " errors", s->errors);
  snprintf (line, sizeof line,
           "raid: stats: %s: %" PRIu64 " reads (%" PRIu64
           " pieces, %" PRIu64 " bytes, p50 %" PRIu64 " p99 %" PRIu64
           " ns), %" PRIu64 " writes (%" PRIu64 " pieces, %" PRIu64
           " bytes, p50 %" PRIu64 " p99 %" PRIu64
           " ns), %" PRIu64 " zero, %" PRIu64 " trim, %" PRIu64
           " flush%s, max in flight %u",
           what, s->ops[MOP_READ], s->pieces[MOP_READ], s->bytes[MOP_READ],
           raid_hist_percentile (&s->lat_read, 50),
           raid_hist_percentile (&s->lat_read, 99),
           s->ops[MOP_WRITE], s->pieces[MOP_WRITE], s->bytes[MOP_WRITE],
           raid_hist_percentile (&s->lat_write, 50),
           raid_hist_percentile (&s->lat_write, 99),
           s->ops[MOP_ZERO], s->ops[MOP_TRIM], s->ops[MOP_FLUSH],
           errs, snap->max_inflight);
  free (snap);
  if (to_stderr)
    fprintf (stderr, "nbdkit: %s\n", line);
  else
    nbdkit_debug ("%s", line);
}

void
stats_log_summary (const struct stats_source *src, bool to_stderr)
{
  unsigned i;
  char what[64];

  summary_line ("array", src->array, to_stderr);
  for (i = 0; i < src->nmembers; ++i) {
    snprintf (what, sizeof what, "member %u%s", i,
              atomic_load (&src->members[i].failed) ? " (failed)" : "");
    summary_line (what, &src->members[i].stats, to_stderr);
  }
}

/* SIGUSR1: the handler only writes a byte to a pipe (all it may safely
 * do); a thread reads it and writes the file.
 */
static int sig_pipe[2] = { -1, -1 };
static pthread_t sig_thread;
static char *sig_path;
static stats_source_fn sig_source;

static void
on_sigusr1 (int sig)
{
  int saved = errno;
  char c = 'u';

  if (write (sig_pipe[1], &c, 1) == -1) {
    /* Nothing to do: a dump is already pending. */
  }
  errno = saved;
}

static void *
sig_loop (void *arg)
{
  char c;

  while (read (sig_pipe[0], &c, 1) == 1 && c == 'u') {
    struct stats_source src;
    sig_source (&src);
    if (stats_json_write (sig_path, &src) == 0)
      nbdkit_debug ("raid: stats written to %s", sig_path);
  }
  return NULL;
}

int
stats_json_start (const char *path, stats_source_fn source)
{
  struct sigaction sa = { .sa_handler = on_sigusr1, .sa_flags = SA_RESTART };
  int err;

  sig_source = source;
  sig_path = strdup (path);
  if (sig_path == NULL || pipe2 (sig_pipe, O_CLOEXEC | O_NONBLOCK) == -1) {
    nbdkit_error ("stats: %m");
    return -1;
  }
  /* The reader blocks; only the writer must never block. */
  fcntl (sig_pipe[0], F_SETFL, 0);
  err = pthread_create (&sig_thread, NULL, sig_loop, NULL);
  if (err) {
    errno = err;
    nbdkit_error ("stats: pthread_create: %m");
    return -1;
  }
  sigemptyset (&sa.sa_mask);
  if (sigaction (SIGUSR1, &sa, NULL) == -1) {
    nbdkit_error ("stats: sigaction: %m");
    return -1;
  }
  return 0;
}

void
stats_json_stop (void)
{
  char c = 'q';

  if (sig_pipe[1] == -1)
    return;
  signal (SIGUSR1, SIG_IGN);
  if (write (sig_pipe[1], &c, 1) == 1)
    pthread_join (sig_thread, NULL);
  close (sig_pipe[0]);
  close (sig_pipe[1]);
  sig_pipe[0] = sig_pipe[1] = -1;
  free (sig_path);
  sig_path = NULL;
}
