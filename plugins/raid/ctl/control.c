/* nbdkit-raid-plugin: the control socket.  See control.h for who may
 * use it and what it answers, include/raidsim/controlverbs.h for the
 * verbs; here, how.
 *
 * One listener thread accepts one connection at a time, reads one line
 * (with a receive timeout, so that a client that never finishes its
 * line cannot hold the socket), answers it and closes.  Requests are so
 * rare and short that one at a time is simplest, and it makes every
 * verb run alone: no two fails or removes race each other.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/controlverbs.h"
#include "control.h"
#include "md/bitmap.h"
#include "md/spares.h"
#include "md/state.h"
#include "md/superblock.h"
#include "sync/replace.h"
#include "sync/scrub.h"

#define CONTROL_TIMEOUT_S 5     /* to send the request line */

static struct {
  struct raid_array *a;
  char *path;
  int fd;                       /* listening, or -1 */
  int wake[2];                  /* control_stop -> the thread */
  pthread_t thread;
  bool started;
} ctl = { .fd = -1, .wake = { -1, -1 } };

/* ---------------------------------------------------------------- */
/* The replies */

static char *
reply_of (json_object *o)
{
  char *s = strdup (json_object_to_json_string_ext
                    (o, JSON_C_TO_STRING_PLAIN |
                     JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put (o);
  return s;
}

static char *
error_reply (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

static char *
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
static const char *
member_state (const struct raid_array *a, unsigned r)
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
static const char *
short_name (const char *name)
{
  const char *s = strrchr (name, '/');

  if (strstr (name, "://"))
    return name;
  return s && s[1] ? s + 1 : name;
}

/* The sync action that runs: the resync's (sync.c), or a scrub's. */
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

/* The array's detail, as JSON; message, if not NULL, is added. */
static char *
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
    const char *st = member_state (a, r);
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
                            (short_name (m->name)));
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
                              (short_name (rv.name)));
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
                            (short_name (n)));
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

/* ---------------------------------------------------------------- */
/* The verbs */

/* Target i of a verb: role i's member, or, for i >= nmembers, the
 * faulty member that a spare replaced in spare slot i - nmembers (NULL
 * if there is none).
 */
static const char *
target_name (struct raid_array *a, unsigned i)
{
  unsigned role;

  if (i < a->nmembers)
    return a->members[i].name;
  return spares_replaced (a, i - a->nmembers, &role);
}

/* MEMBER: a role number, or a member as given on the command line (or
 * its last component, if that names one member only).  Returns the
 * role, or -1.  With replaced_too (remove), a faulty member that a
 * spare replaced may be named too, by its name only (its role is the
 * spare's now): the return is then nmembers + its spare slot.
 */
static int
find_member (struct raid_array *a, const char *arg, bool replaced_too)
{
  unsigned i, n = a->nmembers + (replaced_too ? RAID_MAX_SPARES : 0);
  int found = -1, nfound = 0;
  const char *name;
  char *end;
  unsigned long v;

  if (arg[0] >= '0' && arg[0] <= '9') {
    errno = 0;
    v = strtoul (arg, &end, 10);
    if (errno == 0 && *end == '\0')
      return v < a->nmembers ? (int) v : -1;
  }
  for (i = 0; i < n; ++i)
    if ((name = target_name (a, i)) != NULL && strcmp (name, arg) == 0)
      return i;
  for (i = 0; i < n; ++i)
    if ((name = target_name (a, i)) != NULL &&
        strcmp (short_name (name), short_name (arg)) == 0) {
      found = i;
      nfound++;
    }
  return nfound == 1 ? found : -1;
}

static char *
do_fail (struct raid_array *a, int r)
{
  struct member *m = &a->members[r];
  char msg[512];

  if (strcmp (member_state (a, r), "removed") == 0)
    return error_reply ("fail: member %d (%s) is not in the array", r,
                        m->name);
  if (atomic_load (&m->failed)) {
    snprintf (msg, sizeof msg, "member %d (%s) is faulty already", r,
              m->name);
    return detail_reply (a, msg);
  }
  /* The rule an I/O error follows (md_fail, md/state.h): never the member that
   * holds the last live copy of some chunk; md's raid1_error and
   * raid10_error refuse it too, and mdadm --fail then says "Device or
   * resource busy".
   */
  if (!md_fail (a, r, "fail (control socket)", ECANCELED))
    return error_reply ("fail: member %d (%s) holds the last in-sync copy "
                        "of some of the array, so it is not failed "
                        "(md: Device or resource busy)", r, m->name);
  if (superblock_record (a, MD_BIT (r)) == -1)
    return error_reply ("fail: member %d (%s) has failed, but the "
                        "superblocks could not record it", r, m->name);
  snprintf (msg, sizeof msg, "set member %d (%s) faulty in the array", r,
            m->name);
  return detail_reply (a, msg);
}

static char *do_remove_held (struct raid_array *a, int r);

/* No spare takes the role while it is emptied, and no request is in
 * flight (md_suspend, md/state.h).
 */
static char *
do_remove (struct raid_array *a, int r)
{
  char *reply;

  md_suspend (a);
  reply = do_remove_held (a, r);
  md_resume (a);
  return reply;
}

static char *
do_remove_held (struct raid_array *a, int r)
{
  struct member *m = &a->members[r];
  char msg[512], id[32], *old_id;
  int rc = 0;

  if (m->ops == &missing_ops)
    return error_reply ("remove: role %d is empty already", r);
  if (!atomic_load (&m->failed))
    return error_reply ("remove: member %d (%s) is active in the array: "
                        "fail it first (mdadm --remove refuses it too: "
                        "Device or resource busy)", r, m->name);
  snprintf (id, sizeof id, "missing:%d", r);
  old_id = m->identity;
  if ((m->identity = strdup (id)) == NULL) {
    m->identity = old_id;
    return error_reply ("remove: out of memory");
  }
  snprintf (msg, sizeof msg, "hot removed member %d (%s) from the array",
            r, m->name);
  member_drain (m);
  /* The role is empty from now on, as a member that was missing at
   * start: no superblock names it (0xffff in the role table, as md
   * leaves the slot of a device it removed), and the next update says
   * so, one event on.
   */
  pthread_mutex_lock (&a->meta.lock);
  a->meta.in_array[r] = false;
  if (a->meta.on && a->meta.started)
    rc = superblock_update_locked (a, "a member removed");
  pthread_mutex_unlock (&a->meta.lock);
  m->ops->close (m);
  m->ops = &missing_ops;
  m->engine = "none";
  m->name = "missing";
  free (old_id);
  free (m->backing);
  m->backing = NULL;
  nbdkit_error ("%s", msg);
  if (rc == -1)
    return error_reply ("remove: member %d is removed, but the superblocks "
                        "could not record it", r);
  return detail_reply (a, msg);
}

/* mdadm --remove of a faulty member that a spare replaced, in spare
 * slot j: it holds no role, so no request reaches it any more.
 */
static char *
do_remove_replaced (struct raid_array *a, unsigned j)
{
  char msg[512];
  unsigned role;
  const char *name = spares_replaced (a, j, &role);

  snprintf (msg, sizeof msg, "hot removed %s (faulty, replaced in role "
            "%u) from the array", name, role);
  if (spares_remove_replaced (a, j) == -1) {
    nbdkit_error ("%s", msg);
    return error_reply ("remove: %.400s is removed, but the superblocks "
                        "could not record it", name);
  }
  nbdkit_error ("%s", msg);
  return detail_reply (a, msg);
}

/* mdadm --add; with --replace, a failed or missing role taken now
 * (spares_add, md/spares.h), or, with old, mdadm --replace OLD --with
 * MEMBER (replace_start, sync/replace.h); the log has its reason in
 * full, the answer says it in short.
 */
static char *
do_add (struct raid_array *a, const char *member, bool replace, int old)
{
  char msg[512];
  const char *why;
  int rc = old >= 0 ? replace_start (a, member, old)
    : spares_add (a, member, replace);

  if (rc == 2) {
    snprintf (msg, sizeof msg, "%.400s is rebuilt as the replacement of "
              "member %d, which serves until then", member, old);
    return detail_reply (a, msg);
  }

  if (rc == 1) {
    snprintf (msg, sizeof msg, "re-added %.400s into its role; the chunks "
              "whose bits are set in the write-intent bitmap are rebuilt",
              member);
    return detail_reply (a, msg);
  }
  if (rc == 0) {
    snprintf (msg, sizeof msg, "added %.400s as a spare%s", member,
              md_failed (a) ? "; it takes a failed or missing role "
              "and is rebuilt" : "");
    return detail_reply (a, msg);
  }
  switch (errno) {
  case EINVAL: why = "the array has no md metadata or copies, or the "
      "name is not a member"; break;
  case EROFS: why = "the array is not written (nbdkit -r)"; break;
  case ENOSPC: why = "too many spares already"; break;
  case EEXIST: why = "it is in the array already"; break;
  case EBUSY: why = old >= 0 ? "a replacement, a rebuild or a resync "
      "runs" : "no member is failed or missing to replace"; break;
  case EMEDIUMTYPE: why = "it holds a signature or another array's "
      "metadata (force=true writes over a signature)"; break;
  case EFBIG: why = "it is too small"; break;
  default: why = strerror (errno); break;
  }
  return error_reply ("add: %.256s: %s", member, why);
}

static char *
do_scrub (struct raid_array *a, enum scrub_action act)
{
  const char *why;
  char msg[128];

  if (scrub_start (a, act, &why) == -1)
    return error_reply ("%s: %s", scrub_action_name (act), why);
  snprintf (msg, sizeof msg, "%s started", scrub_action_name (act));
  return detail_reply (a, msg);
}

/* Split line into at most max words; returns the count, or -1 if there
 * are more, or a byte that is not printable ASCII.
 */
static int
split (char *line, char **words, int max)
{
  int n = 0;
  char *p;

  for (p = line; *p; ++p)
    if ((unsigned char) *p < 0x20 || (unsigned char) *p > 0x7e)
      if (*p != '\t')
        return -1;
  for (p = strtok (line, " \t"); p; p = strtok (NULL, " \t")) {
    if (n == max)
      return -1;
    words[n++] = p;
  }
  return n;
}

char *
control_handle (struct raid_array *a, const char *line)
{
  char *copy, *w[4], *reply;
  int n, r = -1;
  size_t v;
  const struct control_verb_desc *d;

  if (strlen (line) >= CONTROL_LINE_MAX)
    return error_reply ("request too long (at most %d bytes)",
                        CONTROL_LINE_MAX - 1);
  copy = strdup (line);
  if (copy == NULL)
    return error_reply ("out of memory");
  n = split (copy, w, 4);
  if (n <= 0) {
    free (copy);
    return error_reply ("malformed request: one line of printable words, "
                        "VERB [ARG...], is expected");
  }
  for (v = 0; v < CONTROL_NVERBS; ++v)
    if (strcmp (w[0], control_verbs[v].name) == 0)
      break;
  if (v == CONTROL_NVERBS) {
    char known[256] = "";

    for (v = 0; v < CONTROL_NVERBS; ++v)
      snprintf (known + strlen (known), sizeof known - strlen (known),
                "%s%s", v ? ", " : "", control_verbs[v].name);
    reply = error_reply ("%.64s: unknown verb (%s)", w[0], known);
    free (copy);
    return reply;
  }
  d = &control_verbs[v];
  if ((unsigned) n - 1 < d->min_args || (unsigned) n - 1 > d->max_args) {
    reply = error_reply ("%s: expected %s%s", d->name,
                         d->syntax[0] ? d->syntax : "no argument",
                         d->syntax[0] ? " as arguments" : "");
    free (copy);
    return reply;
  }
  if (v != CV_DETAIL && v != CV_STATUS &&
      !atomic_load (&a->running)) {
    reply = error_reply ("%s: the array is not running yet: it starts "
                         "when the first client connects", d->name);
    free (copy);
    return reply;
  }
  if (v == CV_ADD && n == 4) {
    r = find_member (a, w[3], false);
    if (r == -1) {
      reply = error_reply ("add: --replace %.256s: no such member (a role "
                           "from 0 to %u, or a member as given)", w[3],
                           a->nmembers - 1);
      free (copy);
      return reply;
    }
  }
  if (v == CV_FAIL || v == CV_REMOVE) {
    r = find_member (a, w[1], v == CV_REMOVE);
    if (r == -1) {
      reply = error_reply ("%s: %.256s: no such member (a role from 0 to "
                           "%u, or a member as given)", d->name, w[1],
                           a->nmembers - 1);
      free (copy);
      return reply;
    }
  }
  switch ((enum control_verb) v) {
  case CV_DETAIL: case CV_STATUS:
    reply = detail_reply (a, NULL);
    break;
  case CV_FAIL:
    reply = do_fail (a, r);
    break;
  case CV_REMOVE:
    if ((unsigned) r >= a->nmembers)
      reply = do_remove_replaced (a, r - a->nmembers);
    else
      reply = do_remove (a, r);
    break;
  case CV_ADD:
    if (n >= 3 && strcmp (w[2], "--replace") != 0)
      reply = error_reply ("add: %.64s: the only option is --replace",
                           w[2]);
    else
      reply = do_add (a, w[1], n >= 3, n == 4 ? r : -1);
    break;
  case CV_CHECK:
    reply = do_scrub (a, SCRUB_CHECK);
    break;
  case CV_REPAIR:
    reply = do_scrub (a, SCRUB_REPAIR);
    break;
  case CV_IDLE:
    reply = detail_reply (a, scrub_stop (a) ? "stopped the running check "
                          "or repair" : "no check or repair was running");
    break;
  default:
    reply = error_reply ("internal error");
  }
  free (copy);
  return reply;
}

/* ---------------------------------------------------------------- */
/* The socket */

static void
send_all (int fd, const char *s, size_t n)
{
  while (n > 0) {
    ssize_t w = send (fd, s, n, MSG_NOSIGNAL);
    if (w <= 0) {
      if (w == -1 && errno == EINTR)
        continue;
      return;
    }
    s += w;
    n -= w;
  }
}

/* Read one line, at most CONTROL_LINE_MAX bytes with its newline (or
 * up to the end, if the client sends none).  Returns the reply.
 */
static char *
serve_request (int fd)
{
  char line[CONTROL_LINE_MAX + 1];
  size_t len = 0;

  for (;;) {
    ssize_t n = recv (fd, line + len, sizeof line - 1 - len, 0);
    char *nl;

    if (n == -1 && errno == EINTR)
      continue;
    if (n == -1)
      return error_reply ("reading the request: %s",
                          errno == EAGAIN ? "timed out" : strerror (errno));
    line[len + n] = '\0';
    nl = memchr (line + len, '\n', n);
    len += n;
    if (nl) {
      *nl = '\0';
      if (nl > line && nl[-1] == '\r')
        nl[-1] = '\0';
      if (strlen (line) != (size_t) (nl - line))
        return error_reply ("malformed request: a NUL byte");
      break;
    }
    if (len == sizeof line - 1)
      return error_reply ("request too long (at most %d bytes)",
                          CONTROL_LINE_MAX - 1);
    if (n == 0) {
      if (strlen (line) != len)
        return error_reply ("malformed request: a NUL byte");
      break;
    }
  }
  return control_handle (ctl.a, line);
}

static void
serve (int fd)
{
  struct ucred cred;
  socklen_t clen = sizeof cred;
  struct timeval tv = { .tv_sec = CONTROL_TIMEOUT_S };
  char *reply;

  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1)
    reply = error_reply ("permission denied: the peer's credentials are "
                         "unknown (%s)", strerror (errno));
  else if (cred.uid != geteuid () && cred.uid != 0) {
    nbdkit_error ("control: refused a request from uid %u (pid %d): only "
                  "uid %u (the server's) and root may use it",
                  (unsigned) cred.uid, (int) cred.pid,
                  (unsigned) geteuid ());
    reply = error_reply ("permission denied: uid %u is neither the "
                         "server's (%u) nor root", (unsigned) cred.uid,
                         (unsigned) geteuid ());
  }
  else
    reply = serve_request (fd);
  if (reply) {
    send_all (fd, reply, strlen (reply));
    send_all (fd, "\n", 1);
  }
  free (reply);
}

static void *
listener (void *arg)
{
  for (;;) {
    struct pollfd p[2] = {
      { .fd = ctl.fd, .events = POLLIN },
      { .fd = ctl.wake[0], .events = POLLIN },
    };
    int fd;

    if (poll (p, 2, -1) == -1) {
      if (errno == EINTR)
        continue;
      nbdkit_error ("control: poll: %m");
      return NULL;
    }
    if (p[1].revents)
      return NULL;
    if (!(p[0].revents & POLLIN))
      continue;
    fd = accept4 (ctl.fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd == -1)
      continue;
    serve (fd);
    close (fd);
  }
}

/* Whether a server answers on the socket at path. */
static bool
socket_live (const struct sockaddr_un *sa)
{
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool live;

  if (fd == -1)
    return true;                /* cannot tell: do not replace it */
  live = connect (fd, (const struct sockaddr *) sa, sizeof *sa) == 0 ||
    errno != ECONNREFUSED;
  close (fd);
  return live;
}

int
control_open (const char *path, struct raid_array *a)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  struct stat st;
  mode_t old;
  int fd, r;

  if (strlen (path) >= sizeof sa.sun_path) {
    nbdkit_error ("control: %s: too long for a Unix socket (at most %zu "
                  "bytes)", path, sizeof sa.sun_path - 1);
    return -1;
  }
  strcpy (sa.sun_path, path);
  /* A socket left by a server that is gone is replaced; anything else
   * is not touched.
   */
  if (lstat (path, &st) == 0) {
    if (!S_ISSOCK (st.st_mode)) {
      nbdkit_error ("control: %s exists and is not a socket: not "
                    "replaced", path);
      return -1;
    }
    if (st.st_uid != geteuid ()) {
      nbdkit_error ("control: %s is a socket of another user (uid %u): "
                    "not replaced", path, (unsigned) st.st_uid);
      return -1;
    }
    if (socket_live (&sa)) {
      nbdkit_error ("control: %s: another server answers on it", path);
      return -1;
    }
    if (unlink (path) == -1) {
      nbdkit_error ("control: removing the stale socket %s: %m", path);
      return -1;
    }
  }
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd == -1) {
    nbdkit_error ("control: socket: %m");
    return -1;
  }
  /* Mode 0600 from the moment it exists: bind under a umask that
   * leaves nothing else, and no connection is possible before listen.
   */
  old = umask (0177);
  r = bind (fd, (struct sockaddr *) &sa, sizeof sa);
  umask (old);
  if (r == -1) {
    nbdkit_error ("control: bind %s: %m", path);
    close (fd);
    return -1;
  }
  if (chmod (path, 0600) == -1 || listen (fd, 8) == -1) {
    nbdkit_error ("control: %s: %m", path);
    close (fd);
    unlink (path);
    return -1;
  }
  ctl.path = strdup (path);
  ctl.fd = fd;
  ctl.a = a;
  return 0;
}

int
control_start (void)
{
  int err;

  if (ctl.fd == -1 || ctl.started)
    return 0;
  if (pipe2 (ctl.wake, O_CLOEXEC) == -1) {
    nbdkit_error ("control: pipe: %m");
    return -1;
  }
  err = pthread_create (&ctl.thread, NULL, listener, NULL);
  if (err) {
    errno = err;
    nbdkit_error ("control: starting its thread: %m");
    return -1;
  }
  ctl.started = true;
  return 0;
}

void
control_stop (void)
{
  if (ctl.started) {
    if (write (ctl.wake[1], "x", 1) != 1)
      nbdkit_error ("control: stopping its thread: %m");
    pthread_join (ctl.thread, NULL);
    ctl.started = false;
  }
  if (ctl.wake[0] >= 0) {
    close (ctl.wake[0]);
    close (ctl.wake[1]);
    ctl.wake[0] = ctl.wake[1] = -1;
  }
  if (ctl.fd >= 0) {
    close (ctl.fd);
    ctl.fd = -1;
    if (ctl.path)
      unlink (ctl.path);
  }
  free (ctl.path);
  ctl.path = NULL;
}
