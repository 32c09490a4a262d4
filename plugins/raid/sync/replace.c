/* nbdkit-raid-plugin: mdadm --replace, a member rebuilt from a live
 * member in sync that keeps serving.  See replace.h for what it does;
 * here, how.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/mdrules.h"
#include "replace.h"
#include "syncio.h"
#include "throttle.h"
#include "walk.h"
#include "io/rangelock.h"
#include "md/spares.h"
#include "md/state.h"
#include "md/superblock.h"

/* The replacement running, if any (there is one array): its thread, and
 * its spare slot (a->repl has the rest).
 */
static bool thread_started;
static pthread_t thread;
static unsigned slot;

/* The replacement's throttle wait (throttle.h): ends early when it is
 * to stop.
 */
static bool
replace_sleep (void *opaque, uint64_t ns)
{
  struct raid_array *a = opaque;
  struct timespec ts;
  bool stop;

  stats_deadline (&ts, ns);
  pthread_mutex_lock (&a->recovery.lock);
  if (!atomic_load (&a->repl.stop))
    pthread_cond_timedwait (&a->recovery.cond, &a->recovery.lock, &ts);
  stop = atomic_load (&a->repl.stop);
  pthread_mutex_unlock (&a->recovery.lock);
  return stop;
}

/* The replacement's walk (walk.h), one region at a time. */
struct replace_walk {
  struct raid_array *a;
  unsigned r;
  struct member *old, *rm;
  const char *why;              /* set: given up */
  struct throttle t;
};

/* Role r's member, in sync and serving, is copied to the replacement in
 * one region of the array, holding its range against client writes
 * (which reach both while it runs) and the quiesce lock for reading (so
 * that no spare takeover moves a backend under it).  On every layout
 * served with copies the pieces of role r in an array range are one run
 * of the member (md_recovery_offset), so each region is one read and
 * one write.
 */
static void
replace_region (struct walk *w, struct rec_region *reg, char *buf)
{
  struct replace_walk *rw = w->opaque;
  struct raid_array *a = rw->a;
  uint64_t doff = raid_geom_data_offset (a->geom), pos = reg->offset;
  uint64_t len = reg->len, m0, m1;
  struct range_hold hold;
  struct member_io io;

  reg->ok = false;
  reg->copied = 0;
  if (atomic_load (&a->repl.stop)) {
    rw->why = "a write to it failed, or the server stops";
    return;
  }
  if (atomic_load (&rw->old->failed)) {
    rw->why = "the member it was to replace failed";
    return;
  }
  md_request_enter (a);
  range_acquire (a->write_ranges, &hold, pos, len);
  m0 = md_recovery_offset (a->geom, rw->r, pos);
  m1 = md_recovery_offset (a->geom, rw->r, pos + len);
  if (m1 > m0) {
    io = (struct member_io) {
      .op = MOP_READ, .pieces = 1, .buf = buf, .offset = doff + m0,
      .length = m1 - m0, .member = rw->old,
    };
    syncio_run (a, &io, 1);
    if (io.err)
      rw->why = "reading the member it replaces failed";
    else {
      io = (struct member_io) {
        .op = MOP_WRITE, .pieces = 1, .buf = buf, .offset = doff + m0,
        .length = m1 - m0, .member = rw->rm,
      };
      syncio_run (a, &io, 1);
      if (io.err)
        rw->why = "writing to it failed";
    }
  }
  range_release (a->write_ranges, &hold);
  md_request_leave (a);
  reg->ok = rw->why == NULL;
  reg->copied = len;
}

static bool
replace_passed (struct walk *w, const struct rec_region *reg)
{
  struct replace_walk *rw = w->opaque;
  struct raid_array *a = rw->a;
  uint64_t pos = reg->offset + reg->len;

  if (!reg->ok)
    return false;
  atomic_store (&a->repl.pos, pos);
  pthread_mutex_lock (&a->meta.lock);
  a->status.done = a->status.synced = pos;
  a->status.rate = throttle_rate_now (&rw->t, pos);
  pthread_mutex_unlock (&a->meta.lock);
  throttle_pace (&rw->t, pos, replace_sleep, a);
  return true;
}

static const struct walk_ops replace_ops = {
  .region = replace_region, .passed = replace_passed,
};

static void *
replace_thread (void *arg)
{
  struct raid_array *a = arg;
  struct raid_sync_status *s = &a->status;
  unsigned r = atomic_load (&a->repl.role), j = slot;
  struct member *old = &a->members[r], *rm = a->repl.member;
  uint64_t size = raid_geom_size (a->geom);
  uint64_t t0 = stats_now_ns (), ns;
  struct replace_walk rw = { .a = a, .r = r, .old = old, .rm = rm };
  struct walk w = {
    .ops = &replace_ops, .opaque = &rw, .size = size, .window = 1,
    .copiers = 1, .bufsize = MD_SYNC_REGION,
  };
  const char *why = NULL;
  char *oldname;
  bool walking;

  walking = walk_start (&w) == 0;
  if (!walking)
    why = "out of memory";
  pthread_mutex_lock (&a->meta.lock);
  s->action = "recover";
  s->done = 0;
  s->total = size;
  s->synced = 0;
  pthread_mutex_unlock (&a->meta.lock);
  /* md throttles a replacement as any recovery. */
  throttle_start (&rw.t, &a->stats, a->conf.speed_min, a->conf.speed_max, 0);
  if (walking) {
    walk_run (&w, 0);
    walk_end (&w);
    why = rw.why;
  }
  if (why == NULL) {
    struct member_io f = { .op = MOP_FLUSH, .member = rm };

    member_run_batch (&f, 1);
    if (f.err)
      why = "flushing it failed";
  }

  pthread_rwlock_wrlock (&a->quiesce);
  pthread_mutex_lock (&a->meta.lock);
  pthread_mutex_lock (&a->recovery.lock);
  if (why == NULL && !atomic_load (&old->failed)) {
    oldname = old->name;
    spares_replacement_done_locked (a, j, r);
    atomic_store (&a->repl.role, -1);
    pthread_mutex_unlock (&a->recovery.lock);
    if (superblock_update_locked (a, "a replacement done") == -1)
      nbdkit_error ("replace: the superblocks could not record it");
    ns = stats_now_ns () - t0;
    nbdkit_error ("replace: done: %s takes role %u, %" PRIu64 " bytes "
                  "copied in %.3f s; %s is faulty, out of the array "
                  "(remove it), as md marks the member it replaced",
                  old->name, r, size, ns / 1e9, oldname);
  }
  else {
    if (why == NULL)
      why = "the member it was to replace failed";
    spares_replacement_undo_locked (a, j);
    atomic_store (&a->repl.role, -1);
    a->recovery.wake = true;
    pthread_cond_broadcast (&a->recovery.cond);
    pthread_mutex_unlock (&a->recovery.lock);
    nbdkit_error ("replace: the replacement of member %u by %s is given "
                  "up (%s); it stays a spare", r, rm->name, why);
  }
  s->action = "idle";
  pthread_mutex_unlock (&a->meta.lock);
  pthread_rwlock_unlock (&a->quiesce);
  return NULL;
}

void
replace_stop (struct raid_array *a)
{
  if (!thread_started)
    return;
  pthread_mutex_lock (&a->recovery.lock);
  atomic_store (&a->repl.stop, true);
  pthread_cond_broadcast (&a->recovery.cond);
  pthread_mutex_unlock (&a->recovery.lock);
  pthread_join (thread, NULL);
  thread_started = false;
}

int
replace_start (struct raid_array *a, const char *member, unsigned r)
{
  struct member *m = &a->members[r], *rm;
  unsigned j;
  int err;

  if (!a->can_rebuild || !a->recovery.running)
    return spares_add (a, member, true);        /* the refusals */
  if (atomic_load (&m->failed) || !a->meta.in_array[r]) {
    nbdkit_error ("replace: member %u (%s) is not in the array: %s takes "
                  "a failed or missing role as add --replace did", r,
                  m->name, member);
    return spares_add (a, member, true);
  }
  spares_lock_adds ();
  if (atomic_load (&a->repl.role) >= 0 || md_unsynced (a) ||
      md_in_sync (a) != UINT64_MAX) {
    nbdkit_error ("replace: %s: a replacement, a rebuild or a resync runs; "
                  "wait until it is done", member);
    errno = EBUSY;
    goto err;
  }
  if (thread_started) {
    pthread_join (thread, NULL);
    thread_started = false;
  }
  rm = spares_open_replacement (a, member, &j);
  if (rm == NULL)
    goto err;

  /* From here on every client write reaches it too (io/write.c). */
  pthread_rwlock_wrlock (&a->quiesce);
  slot = j;
  a->repl.member = rm;
  atomic_store (&a->repl.pos, 0);
  atomic_store (&a->repl.stop, false);
  atomic_store (&a->repl.role, (int) r);
  pthread_rwlock_unlock (&a->quiesce);
  nbdkit_error ("replace: %s is rebuilt as the replacement of member %u "
                "(%s), which serves until it is in sync (md's --replace)",
                member, r, m->name);
  err = pthread_create (&thread, NULL, replace_thread, a);
  if (err) {
    nbdkit_error ("replace: starting its thread: %s", strerror (err));
    pthread_rwlock_wrlock (&a->quiesce);
    atomic_store (&a->repl.role, -1);
    pthread_mutex_lock (&a->recovery.lock);
    spares_replacement_undo_locked (a, j);
    pthread_mutex_unlock (&a->recovery.lock);
    pthread_rwlock_unlock (&a->quiesce);
    errno = err;
    goto err;
  }
  thread_started = true;
  spares_unlock_adds ();
  return 2;
 err:
  spares_unlock_adds ();
  return -1;
}

void
replace_view (struct raid_array *a, struct replace_view *v)
{
  int r = atomic_load (&a->repl.role);

  *v = (struct replace_view) { .on = r >= 0 };
  if (r < 0)
    return;
  v->role = r;
  v->name = a->repl.member->name;
  v->done = atomic_load (&a->repl.pos);
  v->total = raid_geom_size (a->geom);
}
