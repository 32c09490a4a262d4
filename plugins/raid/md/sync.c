/* nbdkit-raid-plugin: md's safe mode and resync.  See sync.h for what
 * they do; here, how.
 *
 * One background thread per array does both: it waits for writes to
 * go idle and marks the array clean, and, when the array started out of
 * sync, walks it region by region.  The dirty mark is made by the first
 * write after idle, in its own thread, under meta.lock, so that every
 * write that follows it in that idle period finds dirty set and passes
 * on after one lock and unlock.
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

#include "metadata.h"
#include "params.h"
#include "sync.h"
#include "io/plan.h"
#include "io/request.h"
#include "sync/syncio.h"
#include "sync/throttle.h"

/* -D raid.sync=1 logs every resync region (nbdkit -v). */
NBDKIT_DLL_PUBLIC int raid_debug_sync = 0;

/* What a clean superblock says: MaxSector when the copies are in sync,
 * the resync position (in sectors) while they are not.
 */
static uint64_t
clean_offset (struct raid_sync *s)
{
  uint64_t pos = sync_in_sync (s);

  return pos == UINT64_MAX ? MDSB_RESYNC_DONE : pos / MDSB_SECTOR;
}

static void
deadline_in (struct timespec *ts, uint64_t ns)
{
  clock_gettime (CLOCK_REALTIME, ts);
  ns += ts->tv_nsec;
  ts->tv_sec += ns / 1000000000;
  ts->tv_nsec = ns % 1000000000;
}

int
sync_write_start (struct raid_array *a)
{
  struct raid_sync *s = &a->sync;
  int r = 0;

  if (!s->on)
    return 0;
  pthread_mutex_lock (&a->meta.lock);
  s->writers++;
  if (!s->dirty) {
    uint32_t rec = atomic_load (&a->meta.recorded);

    a->meta.resync_offset = 0;
    r = metadata_update_locked (a, "dirty");
    if (r == 0) {
      s->dirty = true;
      s->can_decrease = atomic_load (&a->meta.recorded) == rec;
    }
    else {
      a->meta.resync_offset = clean_offset (s);
      s->writers--;
    }
  }
  pthread_mutex_unlock (&a->meta.lock);
  return r;
}

void
sync_write_end (struct raid_array *a)
{
  struct raid_sync *s = &a->sync;

  if (!s->on)
    return;
  pthread_mutex_lock (&a->meta.lock);
  s->last_write_ns = stats_now_ns ();
  if (--s->writers == 0)
    pthread_cond_broadcast (&s->cond);
  pthread_mutex_unlock (&a->meta.lock);
}

/* With meta.lock held: mark the array clean if it is dirty and no write
 * has been in flight for SYNC_SAFE_MODE_MS; otherwise return how long
 * to wait before looking again (0: nothing to do).
 */
static uint64_t
safe_mode_locked (struct raid_array *a, const char *why)
{
  struct raid_sync *s = &a->sync;
  uint64_t now, idle_at;

  if (!s->dirty || s->writers > 0)
    return 0;
  now = stats_now_ns ();
  idle_at = s->last_write_ns + (uint64_t) SYNC_SAFE_MODE_MS * 1000000;
  if (why == NULL && now < idle_at)
    return idle_at - now;
  a->meta.resync_offset = clean_offset (s);
  a->meta.rollback = s->can_decrease && a->meta.events > 1;
  if (metadata_update_locked (a, why ? why : "clean") == 0)
    s->dirty = false;
  else
    a->meta.resync_offset = 0;
  return 0;
}

/* ---------------------------------------------------------------- */
/* Resync */

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
        !recovery_readable (&a->rec, m->index, p->offset, p->length))
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

    /* A member being rebuilt is left to the recovery (recovery.h). */
    if (k == src || atomic_load (&m->failed) ||
        !recovery_readable (&a->rec, m->index, p->offset, p->length))
      continue;
    ios[n++] = (struct member_io) {
      .op = MOP_WRITE, .flags = MIO_NO_GROW, .pieces = 1, .buf = buf,
      .offset = p->copy[k].offset, .length = p->length, .member = m,
    };
  }
  syncio_run (a, ios, n);
  for (i = 0; i < n; ++i)
    if (ios[i].err &&
        request_mark_failed (a, ios[i].member->index, "resync write",
                             ios[i].err))
      metadata_record (a, UINT32_C (1) << ios[i].member->index);
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

  range_acquire (&a->write_ranges, &hold, offset, length);
  if (plan_build (&pl, a->geom, offset, length) == -1)
    nbdkit_error ("resync: array offset %" PRIu64 ": %m", offset);
  else {
    for (i = 0; i < pl.npieces; ++i)
      sync_piece (a, &pl.piece[i], buf);
    plan_free (&pl);
  }
  /* Reads of the region may take any copy from now on. */
  atomic_store_explicit (&a->sync.in_sync, offset + length,
                         memory_order_release);
  range_release (&a->write_ranges, &hold);
  if (raid_debug_sync)
    nbdkit_debug ("raid: resync: array offset %" PRIu64 " length %" PRIu64,
                  offset, length);
}

/* Wait, with meta.lock held, until stop or the deadline, marking the
 * array clean whenever it is idle long enough.
 */
static void
wait_locked (struct raid_array *a, uint64_t ns)
{
  struct raid_sync *s = &a->sync;
  uint64_t until = stats_now_ns () + ns;

  while (!s->stop) {
    uint64_t now = stats_now_ns (), next;
    struct timespec ts;

    if (now >= until)
      return;
    next = safe_mode_locked (a, NULL);
    if (next == 0 || next > until - now)
      next = until - now;
    deadline_in (&ts, next);
    pthread_cond_timedwait (&s->cond, &a->meta.lock, &ts);
  }
}

/* The throttle's wait (throttle.h), with meta.lock held: true to stop. */
static bool
throttle_sleep (void *opaque, uint64_t ns)
{
  struct raid_array *a = opaque;

  wait_locked (a, ns);
  return a->sync.stop;
}

/* Every copy is in sync: say so in the superblocks (unless a write has
 * marked the array dirty meanwhile; safe mode then records it at the
 * next clean mark).
 */
static void
resync_done (struct raid_array *a)
{
  struct raid_sync *s = &a->sync;

  pthread_mutex_lock (&a->meta.lock);
  atomic_store (&s->in_sync, UINT64_MAX);
  s->action = "idle";
  s->done = raid_geom_size (a->geom);
  if (!s->dirty) {
    a->meta.resync_offset = MDSB_RESYNC_DONE;
    metadata_update_locked (a, "resync done");
  }
  pthread_mutex_unlock (&a->meta.lock);
}

static void
resync (struct raid_array *a)
{
  struct raid_sync *s = &a->sync;
  uint64_t size = raid_geom_size (a->geom);
  uint64_t pos = sync_in_sync (s), start = pos;
  uint64_t checkpoint = pos, t0 = stats_now_ns ();
  struct throttle t;
  unsigned next_tenth;
  char *buf;

  buf = malloc (SYNC_REGION);
  if (buf == NULL) {
    nbdkit_error ("resync: %m");
    return;
  }
  nbdkit_error ("resync: the array was not shut down cleanly; resyncing "
                "its copies from array offset %" PRIu64 " of %" PRIu64
                " (sync-speed-min=%" PRIu64 " sync-speed-max=%" PRIu64
                " KiB/s)", pos, size, s->speed_min, s->speed_max);
  next_tenth = pos * 10 / size + 1;
  throttle_start (&t, &a->stats, s->speed_min, s->speed_max, s->synced);
  while (pos < size) {
    uint64_t len = size - pos < SYNC_REGION ? size - pos : SYNC_REGION;

    /* With a write-intent bitmap, only the chunks whose bit was set. */
    pos = bitmap_next_needed (a, pos, size, &len);
    if (pos >= size)
      break;
    sync_region (a, pos, len, buf);
    pos += len;

    pthread_mutex_lock (&a->meta.lock);
    s->done = pos;
    s->synced += len;
    /* md's throttle (throttle.h), on the bytes resynced, not walked:
     * a bitmap skips clean chunks.
     */
    s->rate = throttle_rate_now (&t, s->synced);
    safe_mode_locked (a, NULL);
    throttle_pace (&t, s->synced, throttle_sleep, a);
    /* A checkpoint: on a clean array, the superblocks say how far. */
    if (pos - checkpoint >= size / 16 && pos < size && !s->dirty) {
      a->meta.resync_offset = clean_offset (s);
      metadata_update_locked (a, "resync checkpoint");
      checkpoint = pos;
    }
    if (s->stop) {
      pthread_mutex_unlock (&a->meta.lock);
      nbdkit_error ("resync: stopped at array offset %" PRIu64 " of %"
                    PRIu64 "; the next start goes on from there", pos,
                    size);
      free (buf);
      return;
    }
    pthread_mutex_unlock (&a->meta.lock);
    if (pos * 10 / size >= next_tenth && pos < size) {
      nbdkit_error ("resync: %u%% done (%" PRIu64 " of %" PRIu64 " bytes)",
                    (unsigned) (pos * 100 / size), pos, size);
      next_tenth = pos * 10 / size + 1;
    }
  }
  free (buf);

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

static void *
sync_thread (void *arg)
{
  struct raid_array *a = arg;
  struct raid_sync *s = &a->sync;

  if (sync_in_sync (s) != UINT64_MAX && !is_redundant (a)) {
    /* A one-member RAID 1: md's raid1 has nowhere to write, so its
     * resync ends at once, and the array is then clean.
     */
    nbdkit_error ("resync: one copy, nothing to resync");
    resync_done (a);
  }
  else if (sync_in_sync (s) != UINT64_MAX)
    resync (a);
  pthread_mutex_lock (&a->meta.lock);
  while (!s->stop) {
    uint64_t next = safe_mode_locked (a, NULL);
    struct timespec ts;

    if (next == 0)
      pthread_cond_wait (&s->cond, &a->meta.lock);
    else {
      deadline_in (&ts, next);
      pthread_cond_timedwait (&s->cond, &a->meta.lock, &ts);
    }
  }
  pthread_mutex_unlock (&a->meta.lock);
  return NULL;
}

int
sync_start (struct raid_array *a)
{
  struct raid_sync *s = &a->sync;
  uint64_t size, off;
  int err;

  /* md marks a RAID 1 or 10 dirty while it is written and clean after
   * (md_write_start), even a RAID 1 of one member; raid0 never calls
   * md_write_start, so a RAID 0 stays clean.
   */
  if (s->thread_started || !a->meta.on || !a->meta.started ||
      raid_geom_level (a->geom) == RAID_LEVEL_0)
    return 0;
  s->speed_min = params.sync_speed_min;
  s->speed_max = params.sync_speed_max;
  s->action = "idle";
  pthread_cond_init (&s->cond, NULL);
  size = raid_geom_size (a->geom);
  off = a->meta.resync_offset;
  s->done = s->total = size;
  if (off == MDSB_RESYNC_DONE || off >= size / MDSB_SECTOR)
    atomic_store (&s->in_sync, UINT64_MAX);
  else {
    /* Whole regions, so that the walk's steps stay aligned. */
    uint64_t pos = off * MDSB_SECTOR / SYNC_REGION * SYNC_REGION;
    atomic_store (&s->in_sync, pos);
    s->action = "resync";
    s->done = pos;
  }
  if (bitmap_start (a) == -1)
    return -1;
  s->on = true;
  err = pthread_create (&s->thread, NULL, sync_thread, a);
  if (err) {
    errno = err;
    nbdkit_error ("resync: starting its thread: %m");
    s->on = false;
    return -1;
  }
  s->thread_started = true;
  return 0;
}

void
sync_stop (struct raid_array *a)
{
  struct raid_sync *s = &a->sync;

  if (!s->thread_started)
    return;
  pthread_mutex_lock (&a->meta.lock);
  s->stop = true;
  pthread_cond_broadcast (&s->cond);
  pthread_mutex_unlock (&a->meta.lock);
  pthread_join (s->thread, NULL);
  s->thread_started = false;
  bitmap_stop (a);
  /* A dirty array is marked clean now, as after an idle time (taking
   * the event count back), so that the count at a clean stop does not
   * depend on whether the last write was 200 ms before it; then
   * metadata_stop's update is a clean one too.
   */
  pthread_mutex_lock (&a->meta.lock);
  safe_mode_locked (a, "clean shutdown");
  a->meta.resync_offset = clean_offset (s);
  s->dirty = false;
  pthread_mutex_unlock (&a->meta.lock);
}
