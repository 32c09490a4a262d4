/* nbdkit-raid-plugin: md's recovery, the rebuild of members that are in
 * the array but not in sync.  See rebuild.h for what it does; here, how.
 *
 * Positions.  While serving, a member's recovery position is an array
 * offset (a->rebuilt[r]): the walk goes through the array in order, and
 * every layout raidsim serves with copies (RAID 1, RAID 10 near) puts a
 * member's pieces in the same order on the member as in the array, so
 * "rebuilt below array offset P" is "rebuilt below the member offset of
 * its first piece at or after P".  That member offset, in sectors from
 * data_offset, is md's recovery_offset in the superblock
 * (md_recovery_offset, raidsim/core/mdrules.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/mdrules.h"
#include "rebuild.h"
#include "recwindow.h"
#include "syncio.h"
#include "throttle.h"
#include "walk.h"
#include "io/plan.h"
#include "io/rangelock.h"
#include "md/bitmap.h"
#include "md/failure.h"
#include "md/spares.h"
#include "md/state.h"
#include "md/superblock.h"

/* -D raid.recovery=1 logs every recovery region (nbdkit -v). */
NBDKIT_DLL_PUBLIC int raid_debug_recovery = 0;

static bool started;            /* rebuild_start has been */
static pthread_t thread;

/* Sleep up to ns, or until stop (or a wake, with wake_too).  Returns
 * true for those.
 */
static bool
nap (struct raid_array *a, uint64_t ns, bool wake_too)
{
  struct timespec ts;
  bool stop;

  stats_deadline (&ts, ns);
  pthread_mutex_lock (&a->recovery.lock);
  if (!a->recovery.stop && !(wake_too && a->recovery.wake))
    pthread_cond_timedwait (&a->recovery.cond, &a->recovery.lock, &ts);
  stop = a->recovery.stop || (wake_too && a->recovery.wake);
  pthread_mutex_unlock (&a->recovery.lock);
  return stop;
}

/* The throttle's wait (throttle.h): a failed member or a new spare
 * ends it too, so that the walk starts again with them at once.
 */
static bool
throttle_sleep (void *opaque, uint64_t ns)
{
  return nap (opaque, ns, true);
}

/* Rebuild the copies of piece p on the members in targets from one that
 * is in sync.  Returns the targets that failed, or -1 (all ones) if no
 * copy could be read.
 */
static uint32_t
rebuild_piece (struct raid_array *a, const struct piece *p, uint32_t targets,
               char *buf)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  uint32_t bad = 0;
  unsigned k, n = 0, src;

  for (src = 0; src < p->ncopies; ++src) {
    unsigned mi = p->copy[src].member;

    if ((targets & MD_BIT (mi)) || atomic_load (&a->members[mi].failed) ||
        !md_readable (a, mi, p->offset, p->length))
      continue;
    ios[0] = (struct member_io) {
      .op = MOP_READ, .pieces = 1, .buf = buf,
      .offset = p->copy[src].offset, .length = p->length,
      .member = &a->members[mi],
    };
    syncio_run (a, ios, 1);
    if (ios[0].err == 0)
      break;
    nbdkit_error ("recovery: member %u (%s) at offset %" PRIu64 ": %s; "
                  "reading another copy", mi, a->members[mi].name,
                  ios[0].offset, strerror (ios[0].err));
  }
  if (src == p->ncopies) {
    nbdkit_error ("recovery: array offset %" PRIu64 ": no copy in sync "
                  "could be read", p->offset);
    return UINT32_MAX;
  }
  for (k = 0; k < p->ncopies; ++k)
    if (targets & MD_BIT (p->copy[k].member))
      ios[n++] = (struct member_io) {
        .op = MOP_WRITE, .pieces = 1, .buf = buf,
        .offset = p->copy[k].offset, .length = p->length,
        .member = &a->members[p->copy[k].member],
      };
  syncio_run (a, ios, n);
  for (k = 0; k < n; ++k)
    if (ios[k].err) {
      unsigned mi = ios[k].member->index;
      bad |= MD_BIT (mi);
      md_error (a, mi, "recovery write", ios[k].err);
    }
  return bad;
}

/* One region's work: rebuild [offset, offset + len) on the members of
 * set that have not reached it, holding its range.  Returns false if
 * some piece had no copy in sync that could be read.
 */
struct lane {
  struct raid_array *a;
  uint64_t offset, len;
  uint32_t set;
  uint32_t bm;                  /* of set: re-added from the bitmap */
  uint64_t copied;              /* array bytes rebuilt */
  char *buf;
  bool ok;
};

static uint32_t live_set (struct raid_array *a, uint32_t set);

static void
rebuild_region (struct lane *l)
{
  struct raid_array *a = l->a;
  struct range_hold hold;
  struct plan pl;
  size_t i;

  l->ok = true;
  l->copied = 0;
  range_acquire (a->write_ranges, &hold, l->offset, l->len);
  if (plan_build (&pl, a->geom, l->offset, l->len) == -1) {
    nbdkit_error ("recovery: array offset %" PRIu64 ": %m", l->offset);
    l->ok = false;
  }
  else {
    for (i = 0; i < pl.npieces && l->ok; ++i) {
      const struct piece *p = &pl.piece[i];
      uint32_t targets = 0, set = live_set (a, l->set);
      unsigned k;

      for (k = 0; k < p->ncopies; ++k) {
        unsigned mi = p->copy[k].member;
        if ((set & MD_BIT (mi)) &&
            atomic_load (&a->rebuilt[mi]) < p->offset + p->length)
          targets |= MD_BIT (mi);
      }
      /* A member re-added from the bitmap missed no write to a chunk
       * whose bit is clear (the range is held: no write is in flight
       * here, and bits stay set while a member is out of sync).
       */
      if ((targets & l->bm) && !bitmap_dirty (a, p->offset, p->length))
        targets &= ~l->bm;
      if (targets == 0)
        continue;
      if (rebuild_piece (a, p, targets, l->buf) == UINT32_MAX)
        l->ok = false;
      else
        l->copied += p->length;
    }
    plan_free (&pl);
  }
  range_release (a->write_ranges, &hold);
  if (raid_debug_recovery)
    nbdkit_debug ("raid: recovery: array offset %" PRIu64 " length %"
                  PRIu64, l->offset, l->len);
}

_Static_assert (RECOVERY_INFLIGHT <= RECWINDOW_MAX,
                "the window holds RECOVERY_INFLIGHT regions");
_Static_assert (RECOVERY_COPIERS >= 1 && RECOVERY_COPIERS <= WALK_MAX_COPIERS,
                "the walk's thread copies, and a pool as large at most");

/* Record each member's position in its superblock (meta.lock held). */
static void
record_positions_locked (struct raid_array *a, uint32_t set)
{
  unsigned r;

  for (r = 0; r < a->nmembers; ++r)
    if (set & MD_BIT (r)) {
      uint64_t p = atomic_load (&a->rebuilt[r]);
      a->meta.sb[r].feature_map |= MDSB_FEATURE_RECOVERY_OFFSET;
      a->meta.sb[r].recovery_offset =
        md_recovery_offset (a->geom, r, p) / MDSB_SECTOR;
      /* md's super_1_sync: a recovery from the bitmap says so. */
      if (atomic_load (&a->from_bitmap) & MD_BIT (r))
        a->meta.sb[r].feature_map |= MDSB_FEATURE_RECOVERY_BITMAP;
    }
}

static void
flush_members (struct raid_array *a, uint32_t set)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  unsigned r, n = 0;

  for (r = 0; r < a->nmembers; ++r)
    if ((set & MD_BIT (r)) && !atomic_load (&a->members[r].failed))
      ios[n++] = (struct member_io) { .op = MOP_FLUSH,
                                      .member = &a->members[r] };
  member_run_batch (ios, n);
}

/* Members in the set that are still there to rebuild. */
static uint32_t
live_set (struct raid_array *a, uint32_t set)
{
  return set & ~md_failed (a) & md_unsynced (a);
}

static void
names (struct raid_array *a, uint32_t set, char *buf, size_t len)
{
  unsigned r;
  size_t o = 0;

  buf[0] = '\0';
  for (r = 0; r < a->nmembers && o < len; ++r)
    if (set & MD_BIT (r))
      o += snprintf (buf + o, len - o, "%s%u (%s)", o ? ", " : "", r,
                     a->members[r].name);
}

/* One recovery pass over every member that needs it now: the walk
 * (walk.h) and what it tells the rebuild.
 */
struct pass {
  struct raid_array *a;
  uint32_t pass_set, bm;        /* at the start: the copiers' */
  uint32_t set;                 /* the walk's: still there to rebuild */
  uint64_t size, pos, checkpoint, copied, popped;
  struct throttle t;
  unsigned next_tenth;
  bool interrupted, stopping, lost;
};

/* Only members re-added from the bitmap: regions without a chunk whose
 * bit is set hold nothing to rebuild and are passed over.  No member
 * left to rebuild: nothing more goes in.
 */
static uint64_t
pass_next (struct walk *w, uint64_t cursor, uint64_t *len)
{
  struct pass *p = w->opaque;

  if (p->set == 0)
    return p->size;
  if (p->bm && p->bm == p->set) {
    uint64_t next = bitmap_next_dirty (p->a, cursor, p->size);

    next = next >= p->size ? p->size
      : next / RECOVERY_REGION * RECOVERY_REGION;
    if (next > cursor)
      cursor = next;
  }
  *len = p->size - cursor < RECOVERY_REGION ? p->size - cursor
    : RECOVERY_REGION;
  return cursor;
}

static void
pass_region (struct walk *w, struct rec_region *r, char *buf)
{
  struct pass *p = w->opaque;
  struct lane l = {
    .a = p->a, .offset = r->offset, .len = r->len, .set = p->pass_set,
    .bm = p->bm, .buf = buf,
  };

  rebuild_region (&l);
  r->copied = l.copied;
  r->ok = l.ok;
}

/* A region is rebuilt (in order): the positions pass it, the checkpoint
 * and the throttle are looked at.  What comes out above a region that
 * had no copy to read (lost) never moves a position; nothing more goes
 * in after it, or once the walk is to stop.
 */
static bool
pass_passed (struct walk *w, const struct rec_region *done)
{
  struct pass *p = w->opaque;
  struct raid_array *a = p->a;
  struct raid_sync_status *s = &a->status;
  unsigned r;
  char who[512];

  p->copied += done->copied;
  p->set = live_set (a, p->set);
  if (p->lost)
    return false;
  if (!done->ok) {
    p->lost = true;
    names (a, p->set, who, sizeof who);
    nbdkit_error ("recovery: stopped at array offset %" PRIu64 ": member "
                  "%s stays out of sync above it", p->pos, who);
    return false;
  }
  p->pos = done->offset + done->len;
  for (r = 0; r < a->nmembers; ++r)
    if ((p->set & MD_BIT (r)) && atomic_load (&a->rebuilt[r]) < p->pos)
      atomic_store_explicit (&a->rebuilt[r], p->pos, memory_order_release);

  /* A checkpoint: what is rebuilt is on disk, then the superblocks say
   * how far.
   */
  if (p->pos - p->checkpoint >= p->size / 16 && p->pos < p->size) {
    flush_members (a, p->set);
    pthread_mutex_lock (&a->meta.lock);
    record_positions_locked (a, live_set (a, p->set));
    superblock_update_locked (a, "recovery checkpoint");
    pthread_mutex_unlock (&a->meta.lock);
    p->checkpoint = p->pos;
  }
  /* md's throttle (throttle.h). */
  pthread_mutex_lock (&a->meta.lock);
  s->done = p->pos;
  s->synced = p->copied;
  s->rate = throttle_rate_now (&p->t, p->copied);
  pthread_mutex_unlock (&a->meta.lock);
  if (p->stopping)
    return false;
  /* The throttle is looked at once per window's worth of regions
   * (RECOVERY_INFLIGHT), and after the last: how far a walk held back
   * goes before its first wait does not depend on how the copies
   * finish (only this thread pushes and pops: the window is its own).
   */
  if (++p->popped % RECOVERY_INFLIGHT == 0 ||
      (w->inflight == 0 && w->cursor >= p->size))
    throttle_pace (&p->t, p->copied, throttle_sleep, a);
  /* A member failed, or a spare came: start again with it, from the
   * lowest position, as md restarts its recovery.
   */
  pthread_mutex_lock (&a->recovery.lock);
  if (a->recovery.stop ||
      (a->recovery.wake && (spares_ready_locked (a) ||
                            (live_set (a, UINT32_MAX) & ~p->set)))) {
    p->interrupted = !a->recovery.stop;
    p->stopping = true;
  }
  else
    a->recovery.wake = false;   /* no spare to take in: nothing to do */
  pthread_mutex_unlock (&a->recovery.lock);
  walk_log_tenths ("recovery", &p->next_tenth, p->pos, p->size);
  return !p->stopping;
}

static const struct walk_ops pass_ops = {
  .next = pass_next, .region = pass_region, .passed = pass_passed,
};

/* The walk is over: the members rebuilt to the end are in sync, the
 * others' positions are in their superblocks.
 */
static void
pass_end (struct pass *p, uint64_t t0)
{
  struct raid_array *a = p->a;
  struct raid_sync_status *s = &a->status;
  uint64_t size = p->size, pos = p->pos;
  uint32_t set = live_set (a, p->set);
  unsigned r;
  char who[512];

  if (pos >= size && set) {
    uint64_t ns = stats_now_ns () - t0;

    flush_members (a, set);
    pthread_mutex_lock (&a->meta.lock);
    for (r = 0; r < a->nmembers; ++r)
      if (set & MD_BIT (r)) {
        a->meta.sb[r].feature_map &= ~(MDSB_FEATURE_RECOVERY_OFFSET |
                                       MDSB_FEATURE_RECOVERY_BITMAP);
        a->meta.sb[r].recovery_offset = 0;
        atomic_store (&a->rebuilt[r], UINT64_MAX);
        atomic_fetch_and (&a->from_bitmap, ~MD_BIT (r));
        atomic_fetch_and (&a->unsynced, ~MD_BIT (r));
      }
    s->action = "idle";
    s->done = size;
    s->synced = p->copied;
    superblock_update_locked (a, "recovery done");
    pthread_mutex_unlock (&a->meta.lock);
    names (a, set, who, sizeof who);
    nbdkit_error ("recovery: done: member %s rebuilt, %" PRIu64 " bytes in "
                  "%.3f s (%.0f KiB/s)%s; it is in sync", who, p->copied,
                  ns / 1e9, ns ? (double) p->copied / 1024 * 1e9 / ns : 0.0,
                  p->bm ? " (from the write-intent bitmap: the chunks whose "
                  "bits were set)" : "");
    if (p->bm)
      nbdkit_error ("re-add: done: %" PRIu64 " bytes resynced of %" PRIu64,
                    p->copied, size);
  }
  else {
    pthread_mutex_lock (&a->meta.lock);
    record_positions_locked (a, set);
    s->action = "idle";
    pthread_mutex_unlock (&a->meta.lock);
    if (pos < size && p->interrupted)
      nbdkit_error ("recovery: interrupted at array offset %" PRIu64 " of %"
                    PRIu64 " to take in a spare or a re-added member; it "
                    "starts again", pos, size);
    else if (pos < size)
      nbdkit_error ("recovery: stopped at array offset %" PRIu64 " of %"
                    PRIu64 "; the next start goes on from there", pos, size);
  }
}

static void
recover (struct raid_array *a)
{
  struct raid_sync_status *s = &a->status;
  struct pass p = { .a = a, .size = raid_geom_size (a->geom),
                    .pos = UINT64_MAX };
  struct walk w = {
    .ops = &pass_ops, .opaque = &p, .size = p.size,
    .window = RECOVERY_INFLIGHT, .copiers = RECOVERY_COPIERS,
    .bufsize = RECOVERY_REGION,
  };
  uint64_t t0;
  unsigned r;
  char who[512];

  p.set = p.pass_set = live_set (a, UINT32_MAX);
  p.bm = p.set & atomic_load (&a->from_bitmap);
  if (p.set == 0)
    return;
  for (r = 0; r < a->nmembers; ++r)
    if ((p.set & MD_BIT (r)) && atomic_load (&a->rebuilt[r]) < p.pos)
      p.pos = atomic_load (&a->rebuilt[r]);
  p.pos = p.pos / RECOVERY_REGION * RECOVERY_REGION;
  p.checkpoint = p.pos;
  if (walk_start (&w) == -1) {
    nbdkit_error ("recovery: %m");
    return;
  }
  names (a, p.set, who, sizeof who);
  nbdkit_error ("recovery: rebuilding member %s from array offset %" PRIu64
                " of %" PRIu64 " (sync-speed-min=%" PRIu64 " sync-speed-max=%"
                PRIu64 " KiB/s)", who, p.pos, p.size, a->conf.speed_min,
                a->conf.speed_max);
  if (p.bm) {
    struct bitmap_view bv;

    bitmap_view (a, &bv);
    names (a, p.bm, who, sizeof who);
    nbdkit_error ("re-add: member %s: %" PRIu64 " bytes to resync of %"
                  PRIu64 " (the %" PRIu64 "-byte chunks whose bits are set "
                  "in the write-intent bitmap, from array offset %" PRIu64
                  ")", who, bitmap_dirty_bytes (a, p.pos, p.size), p.size,
                  bv.chunk, p.pos);
  }
  pthread_mutex_lock (&a->meta.lock);
  s->action = "recover";
  s->done = p.pos;
  s->total = p.size;
  s->synced = 0;
  s->rate = 0;
  pthread_mutex_unlock (&a->meta.lock);
  t0 = stats_now_ns ();
  /* Paced by the bytes copied: a re-add from the bitmap passes over
   * clean chunks, which cost nothing.
   */
  throttle_start (&p.t, &a->stats, a->conf.speed_min, a->conf.speed_max,
                  p.copied);
  p.next_tenth = walk_first_tenth (p.pos, p.size);
  walk_run (&w, p.pos);
  walk_end (&w);
  /* Everything that went in is out: only regions passed over lie
   * between pos and the cursor.
   */
  if (!p.lost && p.set && w.cursor > p.pos)
    p.pos = w.cursor;
  pass_end (&p, t0);
}

static void *
rebuild_thread (void *arg)
{
  struct raid_array *a = arg;

  for (;;) {
    /* One sync action at a time: the resync first. */
    while (md_in_sync (a) != UINT64_MAX)
      if (nap (a, 50 * UINT64_C (1000000), false))
        return NULL;
    spares_take (a);
    recover (a);
    pthread_mutex_lock (&a->recovery.lock);
    while (!a->recovery.wake && !a->recovery.stop)
      pthread_cond_wait (&a->recovery.cond, &a->recovery.lock);
    a->recovery.wake = false;
    if (a->recovery.stop) {
      pthread_mutex_unlock (&a->recovery.lock);
      return NULL;
    }
    pthread_mutex_unlock (&a->recovery.lock);
  }
}

int
rebuild_start (struct raid_array *a)
{
  int err;

  if (!a->can_rebuild || started)
    return 0;
  if (atomic_load (&a->no_writes) || !a->meta.started || !a->resync_on) {
    if (md_unsynced (a))
      nbdkit_error ("recovery: nothing is written, so no member is "
                    "rebuilt; the members out of sync are not read");
    started = true;
    return 0;
  }
  pthread_mutex_lock (&a->meta.lock);
  if (spares_write_sbs_locked (a) == -1) {
    pthread_mutex_unlock (&a->meta.lock);
    return -1;
  }
  pthread_mutex_unlock (&a->meta.lock);
  err = pthread_create (&thread, NULL, rebuild_thread, a);
  if (err) {
    errno = err;
    nbdkit_error ("recovery: starting its thread: %m");
    return -1;
  }
  a->recovery.running = true;
  started = true;
  return 0;
}

void
rebuild_stop (struct raid_array *a)
{
  if (!a->recovery.running)
    return;
  pthread_mutex_lock (&a->recovery.lock);
  a->recovery.stop = true;
  pthread_cond_broadcast (&a->recovery.cond);
  pthread_mutex_unlock (&a->recovery.lock);
  pthread_join (thread, NULL);
  a->recovery.running = false;
}
