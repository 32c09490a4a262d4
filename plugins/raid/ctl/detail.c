/* nbdkit-raid-plugin: the control socket's replies (see detail.h): the
 * array's detail, as mdadm --detail and /proc/mdstat show it, and the
 * error reply.
 */

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "detail.h"
#include "md/bitmap.h"
#include "md/spares.h"
#include "md/state.h"
#include "sync/replace.h"
#include "sync/scrub.h"

static char *
reply_of (json_object *o)
{
  char *s = strdup (json_object_to_json_string_ext
                    (o, JSON_C_TO_STRING_PLAIN |
                     JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put (o);
  return s;
}

char *
error_reply (const char *fmt, ...)
{
  json_object *o = json_object_new_object ();
  va_list ap;
  char *msg;

  va_start (ap, fmt);
  if (vasprintf (&msg, fmt, ap) == -1)
    msg = NULL;
  va_end (ap);
  json_object_object_add (o, "error", json_object_new_string
                          (msg ? msg : "out of memory"));
  free (msg);
  return reply_of (o);
}

/* A member's state, in md's words (mdadm --detail). */
const char *
detail_member_state (const struct raid_array *a, unsigned r)
{
  const struct member *m = &a->members[r];

  if (m->ops == &missing_ops)
    return "removed";
  if (a->meta.on && !a->meta.in_array[r])
    return "removed";           /* left out as stale at assembly */
  if (atomic_load (&m->failed))
    return "faulty";
  if (md_unsynced (a) & MD_BIT (r))
    return "spare rebuilding";  /* mdadm --detail's words (rebuild.h) */
  return "active sync";
}

/* What md's /proc/mdstat would call the member: its file's last
 * component; an NBD URI as it is.
 */
const char *
detail_short_name (const char *name)
{
  const char *s = strrchr (name, '/');

  if (strstr (name, "://"))
    return name;
  return s && s[1] ? s + 1 : name;
}

/* The sync action that runs: the resync's, a rebuild's or a
 * replacement's (the array's status), or a check's or repair's.
 */
struct sync_view {
  const char *action;
  uint64_t done, total;
  double rate;
  uint64_t mismatch_cnt;
  const char *last;
  bool last_complete;
};

static void
sync_view (struct raid_array *a, struct sync_view *v)
{
  struct scrub_view sc;

  *v = (struct sync_view) { .action = "idle" };
  if (a->resync_on) {
    pthread_mutex_lock (&a->meta.lock);
    if (strcmp (a->status.action, "idle") != 0) {
      v->action = a->status.action;
      v->done = a->status.done;
      v->total = a->status.total;
      v->rate = a->status.rate;
    }
    pthread_mutex_unlock (&a->meta.lock);
  }
  scrub_view (a, &sc);
  if (sc.action != SCRUB_IDLE) {
    v->action = scrub_action_name (sc.action);
    v->done = sc.done;
    v->total = sc.total;
    v->rate = sc.rate;
  }
  v->mismatch_cnt = sc.mismatch_cnt;
  v->last = sc.last;
  v->last_complete = sc.last_complete;
}

static const char *
array_name (const struct raid_array *a, char *buf, size_t len)
{
  unsigned r;

  if (a->meta.on)
    for (r = 0; r < a->nmembers; ++r)
      if (a->meta.in_array[r]) {
        snprintf (buf, len, "%.32s", a->meta.sb[r].set_name);
        if (buf[0])
          return buf;
      }
  return "md0";
}

/* The /proc/mdstat form of the array, from the JSON detail d, so that
 * the two cannot disagree:
 *
 *   data : active raid1 b.img[1] a.img[0](F)
 *         32505856 blocks super 1.2 [2/1] [U_]
 *         [====>................]  check = 23.1% (7340/31744) ...
 *
 * A faulty member that a spare replaced comes after the members of the
 * roles, with the role it had: "c.img[1] a.img[0] b.img[1](F)".
 */
static char *
mdstat_of (json_object *d)
{
  json_object *members = json_object_object_get (d, "members"), *sync;
  json_object *replaced = json_object_object_get (d, "replaced");
  size_t n = json_object_array_length (members), i;
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream (&buf, &len);
  unsigned raid_disks = 0, working = 0;
  char bar[21];

  if (fp == NULL)
    return NULL;
  fprintf (fp, "%s : active %s", json_object_get_string
           (json_object_object_get (d, "array")), json_object_get_string
           (json_object_object_get (d, "level")));
  for (i = n; i-- > 0;) {
    json_object *m = json_object_array_get_idx (members, i);
    const char *state = json_object_get_string
      (json_object_object_get (m, "state"));
    json_object *repl = json_object_object_get (m, "replacement");

    raid_disks++;
    if (repl)
      fprintf (fp, " %s[%d](R)", json_object_get_string
               (json_object_object_get (repl, "device")),
               json_object_get_int (json_object_object_get (m, "role")));
    if (strcmp (state, "removed") == 0)
      continue;
    fprintf (fp, " %s[%d]%s", json_object_get_string
             (json_object_object_get (m, "device")),
             json_object_get_int (json_object_object_get (m, "role")),
             strcmp (state, "faulty") == 0 ? "(F)" : "");
  }
  /* The faulty members that spares replaced, with the roles they had:
   * md shows them "(F)" until mdadm --remove.
   */
  for (i = 0; replaced && i < json_object_array_length (replaced); ++i) {
    json_object *m = json_object_array_get_idx (replaced, i);

    fprintf (fp, " %s[%d](F)", json_object_get_string
             (json_object_object_get (m, "device")),
             json_object_get_int (json_object_object_get (m, "former_role")));
  }
  fprintf (fp, "\n      %" PRIu64 " blocks",
           json_object_get_uint64 (json_object_object_get (d, "size")) / 1024);
  if (json_object_get_boolean (json_object_object_get (d, "md_metadata")))
    fprintf (fp, " super 1.2");
  if (strcmp (json_object_get_string (json_object_object_get (d, "level")),
              "raid10") == 0)
    fprintf (fp, " %" PRIu64 "K chunks %d near-copies",
             json_object_get_uint64 (json_object_object_get (d, "chunk"))
             / 1024, json_object_get_int
             (json_object_object_get (d, "copies")));
  fprintf (fp, " [%u/", raid_disks);
  for (i = 0; i < n; ++i)
    if (strcmp (json_object_get_string (json_object_object_get
                (json_object_array_get_idx (members, i), "state")),
                "active sync") == 0)
      working++;
  fprintf (fp, "%u] [", working);
  for (i = 0; i < n; ++i)
    fputc (strcmp (json_object_get_string (json_object_object_get
           (json_object_array_get_idx (members, i), "state")),
           "active sync") == 0 ? 'U' : '_', fp);
  fprintf (fp, "]");
  sync = json_object_object_get (d, "sync");
  if (strcmp (json_object_get_string (json_object_object_get
                                      (sync, "action")), "idle") != 0) {
    uint64_t done = json_object_get_uint64
      (json_object_object_get (sync, "done"));
    uint64_t total = json_object_get_uint64
      (json_object_object_get (sync, "total"));
    double rate = json_object_get_double
      (json_object_object_get (sync, "rate"));
    unsigned permille = total ? done * 1000 / total : 0, filled, k;
    const char *action;

    /* md's bar: 20 places, '=' done and '>' at the head. */
    filled = permille * 20 / 1000;
    for (k = 0; k < 20; ++k)
      bar[k] = k < filled ? '=' : k == filled ? '>' : '.';
    bar[20] = '\0';
    /* sync_action says "recover"; /proc/mdstat says "recovery". */
    action = json_object_get_string (json_object_object_get (sync,
                                                             "action"));
    fprintf (fp, "\n      [%s]  %s = %u.%u%% (%" PRIu64 "/%" PRIu64 ") "
             "finish=%.1fmin speed=%.0fK/sec", bar,
             strcmp (action, "recover") == 0 ? "recovery" : action,
             permille / 10, permille % 10, done / 1024, total / 1024,
             rate > 0 ? (double) (total - done) / 1024 / rate / 60 : 0.0,
             rate);
  }
  fprintf (fp, "\n      mismatch_cnt %" PRIu64,
           json_object_get_uint64 (json_object_object_get
                                   (sync, "mismatch_cnt")));
  fclose (fp);
  return buf;
}

char *
detail_reply (struct raid_array *a, const char *message)
{
  json_object *d = json_object_new_object ();
  json_object *members = json_object_new_array (), *sync;
  json_object *replaced = json_object_new_array ();
  struct sync_view v;
  struct replace_view rv;
  char name[40], lvl[16], *mdstat;
  unsigned r, j, working = 0, failed = 0;

  replace_view (a, &rv);

  snprintf (lvl, sizeof lvl, "raid%d", (int) raid_geom_level (a->geom));
  json_object_object_add (d, "array", json_object_new_string
                          (array_name (a, name, sizeof name)));
  json_object_object_add (d, "level", json_object_new_string (lvl));
  json_object_object_add (d, "raid_disks",
                          json_object_new_int (a->nmembers));
  json_object_object_add (d, "chunk", json_object_new_uint64
                          (raid_geom_chunk (a->geom)));
  json_object_object_add (d, "copies", json_object_new_int
                          (raid_geom_copies (a->geom)));
  json_object_object_add (d, "size", json_object_new_uint64
                          (raid_geom_size (a->geom)));
  json_object_object_add (d, "md_metadata",
                          json_object_new_boolean (a->meta.on));
  json_object_object_add (d, "running", json_object_new_boolean
                          (atomic_load (&a->running)));
  for (r = 0; r < a->nmembers; ++r) {
    struct member *m = &a->members[r];
    json_object *o = json_object_new_object ();
    const char *st = detail_member_state (a, r);
    uint64_t errors, reads, writes, ops[MOP_COUNT];

    stats_totals (&m->stats, ops, &errors);
    reads = ops[MOP_READ];
    writes = ops[MOP_WRITE];
    if (strcmp (st, "active sync") == 0)
      working++;
    else if (strcmp (st, "faulty") == 0)
      failed++;
    json_object_object_add (o, "role", json_object_new_int (r));
    json_object_object_add (o, "name", json_object_new_string (m->name));
    json_object_object_add (o, "device", json_object_new_string
                            (detail_short_name (m->name)));
    json_object_object_add (o, "state", json_object_new_string (st));
    json_object_object_add (o, "errors", json_object_new_uint64 (errors));
    json_object_object_add (o, "reads", json_object_new_uint64 (reads));
    json_object_object_add (o, "writes", json_object_new_uint64 (writes));
    /* mdadm --replace in progress: md's want_replacement on the old
     * member, and its replacement beside it ("spare rebuilding" in
     * mdadm --detail, (R) in /proc/mdstat).
     */
    if (rv.on && rv.role == r) {
      json_object *ro = json_object_new_object ();

      json_object_object_add (o, "want_replacement",
                              json_object_new_boolean (true));
      json_object_object_add (ro, "name", json_object_new_string (rv.name));
      json_object_object_add (ro, "device", json_object_new_string
                              (detail_short_name (rv.name)));
      json_object_object_add (ro, "state", json_object_new_string
                              ("spare rebuilding"));
      json_object_object_add (ro, "done", json_object_new_uint64 (rv.done));
      json_object_object_add (ro, "total",
                              json_object_new_uint64 (rv.total));
      json_object_object_add (o, "replacement", ro);
    }
    json_object_array_add (members, o);
  }
  /* The faulty members that spares replaced, out of any role until
   * they are removed: mdadm --detail lists them below the roles, as
   * faulty with RaidDevice "-".
   */
  for (j = 0; j < RAID_MAX_SPARES; ++j) {
    const char *n = spares_replaced (a, j, &r);
    json_object *o;

    if (n == NULL)
      continue;
    o = json_object_new_object ();
    json_object_object_add (o, "former_role", json_object_new_int (r));
    json_object_object_add (o, "name", json_object_new_string (n));
    json_object_object_add (o, "device", json_object_new_string
                            (detail_short_name (n)));
    json_object_object_add (o, "state", json_object_new_string ("faulty"));
    json_object_array_add (replaced, o);
    failed++;
  }
  json_object_object_add (d, "working_disks", json_object_new_int (working));
  /* mdadm --detail's Failed Devices. */
  json_object_object_add (d, "failed_disks", json_object_new_int (failed));
  json_object_object_add (d, "state", json_object_new_string
                          (working == a->nmembers ? "clean" : "degraded"));
  json_object_object_add (d, "members", members);
  json_object_object_add (d, "replaced", replaced);
  sync_view (a, &v);
  sync = json_object_new_object ();
  json_object_object_add (sync, "action", json_object_new_string (v.action));
  json_object_object_add (sync, "done", json_object_new_uint64 (v.done));
  json_object_object_add (sync, "total", json_object_new_uint64 (v.total));
  json_object_object_add (sync, "rate", json_object_new_double (v.rate));
  json_object_object_add (sync, "mismatch_cnt",
                          json_object_new_uint64 (v.mismatch_cnt));
  json_object_object_add (sync, "last_check", v.last
                          ? json_object_new_string (v.last) : NULL);
  json_object_object_add (sync, "last_check_complete",
                          json_object_new_boolean (v.last_complete));
  json_object_object_add (d, "sync", sync);
  {
    struct bitmap_view bv;
    json_object *bo = NULL;

    bitmap_view (a, &bv);
    if (bv.on) {
      bo = json_object_new_object ();
      json_object_object_add (bo, "chunk", json_object_new_uint64 (bv.chunk));
      json_object_object_add (bo, "chunks",
                              json_object_new_uint64 (bv.chunks));
      json_object_object_add (bo, "dirty", json_object_new_uint64 (bv.dirty));
      json_object_object_add (bo, "events",
                              json_object_new_uint64 (bv.events));
      json_object_object_add (bo, "events_cleared",
                              json_object_new_uint64 (bv.events_cleared));
      json_object_object_add (bo, "sweeps",
                              json_object_new_uint64 (bv.sweeps));
    }
    /* mdadm --detail: "Intent Bitmap : Internal"; null without one. */
    json_object_object_add (d, "bitmap", bo);
  }
  mdstat = mdstat_of (d);
  json_object_object_add (d, "mdstat", json_object_new_string
                          (mdstat ? mdstat : ""));
  free (mdstat);
  if (message)
    json_object_object_add (d, "message", json_object_new_string (message));
  return reply_of (d);
}
