/* nbdkit-raid-plugin: md's resync and the array's sync thread.  See
 * resync.h for what they do; here, how.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "resync.h"
#include "syncio.h"
#include "throttle.h"
#include "walk.h"
#include "io/plan.h"
#include "io/rangelock.h"
#include "md/bitmap.h"
#include "md/failure.h"
#include "md/safemode.h"
#include "md/state.h"
#include "md/superblock.h"

/* -D raid.sync=1 logs every resync region (nbdkit -v). */
NBDKIT_DLL_PUBLIC int raid_debug_sync = 0;

static bool thread_started;
static pthread_t thread;

/* Bring the copies of one piece into line: read its first live copy
 * that reads, and write that to its other live copies.  A copy that
 * fails is failed out of the array, as a client write would fail it.
 * Returns 0, or -1 if no copy could be read.
 */
static int
sync_piece (struct raid_array *a, const struct piece *p, char *buf)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  unsigned k, src, n = 0, i;

  for (src = 0; src < p->ncopies; ++src) {
    struct member *m = &a->members[p->copy[src].member];

    if (atomic_load (&m->failed) ||
        !md_readable (a, m->index, p->offset, p->length))
      continue;
    ios[0] = (struct member_io) {
      .op = MOP_READ, .pieces = 1, .buf = buf,
      .offset = p->copy[src].offset, .length = p->length, .member = m,
    };
    syncio_run (a, ios, 1);
    if (ios[0].err == 0)
      break;
    nbdkit_error ("resync: member %u (%s) at offset %" PRIu64 ": %s; "
                  "reading another copy", m->index, m->name,
                  ios[0].offset, strerror (ios[0].err));
  }
  if (src == p->ncopies) {
    nbdkit_error ("resync: array offset %" PRIu64 ": no copy could be "
                  "read; left as it is", p->offset);
    return -1;
  }
  for (k = 0; k < p->ncopies; ++k) {
    struct member *m = &a->members[p->copy[k].member];

    /* A member being rebuilt is left to the rebuild (rebuild.h). */
    if (k == src || atomic_load (&m->failed) ||
        !md_readable (a, m->index, p->offset, p->length))
      continue;
    ios[n++] = (struct member_io) {
      .op = MOP_WRITE, .flags = MIO_NO_GROW, .pieces = 1, .buf = buf,
      .offset = p->copy[k].offset, .length = p->length, .member = m,
    };
  }
  syncio_run (a, ios, n);
  for (i = 0; i < n; ++i)
    if (ios[i].err)
      md_error (a, ios[i].member->index, "resync write", ios[i].err);
  return 0;
}

/* Sync [offset, offset + length) of the array, holding its range. */
static void
sync_region (struct raid_array *a, uint64_t offset, uint64_t length,
             char *buf)
{
  struct range_hold hold;
  struct plan pl;
  size_t i;

  range_acquire (a->write_ranges, &hold, offset, length);
  if (plan_build (&pl, a->geom, offset, length) == -1)
    nbdkit_error ("resync: array offset %" PRIu64 ": %m", offset);
  else {
    for (i = 0; i < pl.npieces; ++i)
      sync_piece (a, &pl.piece[i], buf);
    plan_free (&pl);
  }
  /* Reads of the region may take any copy from now on. */
  atomic_store_explicit (&a->in_sync, offset + length, memory_order_release);
  range_release (a->write_ranges, &hold);
  if (raid_debug_sync)
    nbdkit_debug ("raid: resync: array offset %" PRIu64 " length %" PRIu64,
                  offset, length);
}

/* The throttle's wait (throttle.h), with meta.lock held: true to stop. */
static bool
throttle_sleep (void *opaque, uint64_t ns)
{
  return safemode_wait_locked (opaque, ns);
}

/* Every copy is in sync: say so in the superblocks (unless a write has
 * marked the array dirty meanwhile; safe mode then records it at the
 * next clean mark).
 */
static void
resync_done (struct raid_array *a)
{
  pthread_mutex_lock (&a->meta.lock);
  atomic_store (&a->in_sync, UINT64_MAX);
  a->status.action = "idle";
  a->status.done = raid_geom_size (a->geom);
  if (!safemode_dirty_locked (a)) {
    a->meta.resync_offset = MDSB_RESYNC_DONE;
    superblock_update_locked (a, "resync done");
  }
  pthread_mutex_unlock (&a->meta.lock);
}

/* The resync's walk (walk.h), one region at a time. */
struct resync_walk {
  struct raid_array *a;
  uint64_t size, checkpoint;
  struct throttle t;
  unsigned next_tenth;
  bool stopped;
};

/* With a write-intent bitmap, only the chunks whose bit was set. */
static uint64_t
resync_next (struct walk *w, uint64_t pos, uint64_t *len)
{
  struct resync_walk *rw = w->opaque;

  return bitmap_next_needed (rw->a, pos, rw->size, len);
}

static void
resync_region (struct walk *w, struct rec_region *r, char *buf)
{
  struct resync_walk *rw = w->opaque;

  sync_region (rw->a, r->offset, r->len, buf);
  r->copied = r->len;
  r->ok = true;
}

static bool
resync_passed (struct walk *w, const struct rec_region *r)
{
  struct resync_walk *rw = w->opaque;
  struct raid_array *a = rw->a;
  struct raid_sync_status *s = &a->status;
  uint64_t pos = r->offset + r->len, size = rw->size;

  pthread_mutex_lock (&a->meta.lock);
  s->done = pos;
  s->synced += r->len;
  /* md's throttle (throttle.h), on the bytes resynced, not walked: a
   * bitmap skips clean chunks.
   */
  s->rate = throttle_rate_now (&rw->t, s->synced);
  safemode_idle_locked (a);
  throttle_pace (&rw->t, s->synced, throttle_sleep, a);
  /* A checkpoint: on a clean array, the superblocks say how far. */
  if (pos - rw->checkpoint >= size / 16 && pos < size &&
      !safemode_dirty_locked (a)) {
    a->meta.resync_offset = safemode_clean_offset (a);
    superblock_update_locked (a, "resync checkpoint");
    rw->checkpoint = pos;
  }
  if (safemode_stopping_locked (a)) {
    pthread_mutex_unlock (&a->meta.lock);
    nbdkit_error ("resync: stopped at array offset %" PRIu64 " of %"
                  PRIu64 "; the next start goes on from there", pos, size);
    rw->stopped = true;
    return false;
  }
  pthread_mutex_unlock (&a->meta.lock);
  walk_log_tenths ("resync", &rw->next_tenth, pos, size);
  return true;
}

static const struct walk_ops resync_ops = {
  .next = resync_next, .region = resync_region, .passed = resync_passed,
};

static void
resync (struct raid_array *a)
{
  struct raid_sync_status *s = &a->status;
  uint64_t size = raid_geom_size (a->geom);
  uint64_t pos = md_in_sync (a), start = pos, t0 = stats_now_ns ();
  struct resync_walk rw = { .a = a, .size = size, .checkpoint = pos };
  struct walk w = {
    .ops = &resync_ops, .opaque = &rw, .size = size, .window = 1,
    .copiers = 1, .bufsize = MD_SYNC_REGION,
  };

  if (walk_start (&w) == -1) {
    nbdkit_error ("resync: %m");
    return;
  }
  nbdkit_error ("resync: the array was not shut down cleanly; resyncing "
                "its copies from array offset %" PRIu64 " of %" PRIu64
                " (sync-speed-min=%" PRIu64 " sync-speed-max=%" PRIu64
                " KiB/s)", pos, size, a->conf.speed_min, a->conf.speed_max);
  rw.next_tenth = walk_first_tenth (pos, size);
  throttle_start (&rw.t, &a->stats, a->conf.speed_min, a->conf.speed_max,
                  s->synced);
  walk_run (&w, pos);
  walk_end (&w);
  if (rw.stopped)
    return;

  resync_done (a);
  {
    uint64_t ns = stats_now_ns () - t0;
    nbdkit_error ("resync: done: %" PRIu64 " bytes resynced of the "
                  "array's %" PRIu64 " (%" PRIu64 " from offset %" PRIu64
                  ") in %.3f s (%.0f KiB/s); every copy is in sync",
                  s->synced, size, size - start, start, ns / 1e9,
                  ns ? (double) s->synced / 1024 * 1e9 / ns : 0.0);
  }
}

/* The array's sync thread: the resync, if the copies may differ, then
 * safe mode's clean marks until the server stops.
 */
static void *
sync_thread (void *arg)
{
  struct raid_array *a = arg;

  if (md_in_sync (a) != UINT64_MAX && !md_redundant (a)) {
    /* A one-member RAID 1: md's raid1 has nowhere to write, so its
     * resync ends at once, and the array is then clean.
     */
    nbdkit_error ("resync: one copy, nothing to resync");
    resync_done (a);
  }
  else if (md_in_sync (a) != UINT64_MAX)
    resync (a);
  safemode_loop (a);
  return NULL;
}

int
resync_start (struct raid_array *a)
{
  int r, err;

  if (thread_started)
    return 0;
  r = safemode_start (a);
  if (r <= 0)
    return r;
  err = pthread_create (&thread, NULL, sync_thread, a);
  if (err) {
    errno = err;
    nbdkit_error ("resync: starting its thread: %m");
    return -1;
  }
  thread_started = true;
  return 0;
}

void
resync_stop (struct raid_array *a)
{
  if (!thread_started)
    return;
  safemode_stop (a);
  pthread_join (thread, NULL);
  thread_started = false;
  safemode_shutdown (a);
}
