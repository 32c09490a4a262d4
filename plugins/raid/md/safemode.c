/* nbdkit-raid-plugin: md's safe mode and the bitmap daemon.  See
 * safemode.h for what they do; here, how.
 *
 * The dirty mark is made by the first write after idle, in its own
 * thread, under meta.lock, so that every write that follows it in that
 * idle period finds dirty set and passes on after one lock and unlock.
 * The clean mark is the sync thread's (sync/resync.c), which waits here.
 * The bitmap daemon has a thread of its own.
 */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "bitmap.h"
#include "safemode.h"
#include "state.h"
#include "superblock.h"

/* Safe mode's state (there is one array).  Under the array's
 * meta.lock: all but the daemon's.
 */
static struct {
  bool on;
  bool dirty;                   /* the superblocks say dirty */
  unsigned writers;             /* writes in flight */
  uint64_t last_write_ns;       /* when the last one ended */
  pthread_cond_t cond;          /* writers, stop */
  bool stop;

  /* The bitmap daemon. */
  pthread_mutex_t dlock;
  pthread_cond_t dcond;
  bool dstop, dstarted;
  pthread_t dthread;
} sm = { .dlock = PTHREAD_MUTEX_INITIALIZER };

uint64_t
safemode_clean_offset (struct raid_array *a)
{
  uint64_t pos = md_in_sync (a);

  return pos == UINT64_MAX ? MDSB_RESYNC_DONE : pos / MDSB_SECTOR;
}

int
safemode_write_start (struct raid_array *a)
{
  int r = 0;

  if (!sm.on)
    return 0;
  pthread_mutex_lock (&a->meta.lock);
  sm.writers++;
  if (!sm.dirty) {
    uint32_t rec = atomic_load (&a->meta.recorded);

    a->meta.resync_offset = 0;
    r = superblock_update_locked (a, "dirty");
    if (r == 0) {
      sm.dirty = true;
      a->meta.can_decrease = atomic_load (&a->meta.recorded) == rec;
    }
    else {
      a->meta.resync_offset = safemode_clean_offset (a);
      sm.writers--;
    }
  }
  pthread_mutex_unlock (&a->meta.lock);
  return r;
}

void
safemode_write_end (struct raid_array *a)
{
  if (!sm.on)
    return;
  pthread_mutex_lock (&a->meta.lock);
  sm.last_write_ns = stats_now_ns ();
  if (--sm.writers == 0)
    pthread_cond_broadcast (&sm.cond);
  pthread_mutex_unlock (&a->meta.lock);
}

/* With meta.lock held: mark the array clean if it is dirty and no write
 * has been in flight for SAFEMODE_DELAY_MS (or at once, with why);
 * otherwise return how long to wait before looking again (0: nothing to
 * do).
 */
static uint64_t
clean_locked (struct raid_array *a, const char *why)
{
  uint64_t now, idle_at;

  if (!sm.dirty || sm.writers > 0)
    return 0;
  now = stats_now_ns ();
  idle_at = sm.last_write_ns + (uint64_t) SAFEMODE_DELAY_MS * 1000000;
  if (why == NULL && now < idle_at)
    return idle_at - now;
  a->meta.resync_offset = safemode_clean_offset (a);
  a->meta.rollback = a->meta.can_decrease && a->meta.events > 1;
  if (superblock_update_locked (a, why ? why : "clean") == 0)
    sm.dirty = false;
  else
    a->meta.resync_offset = 0;
  return 0;
}

void
safemode_idle_locked (struct raid_array *a)
{
  clean_locked (a, NULL);
}

bool
safemode_dirty_locked (struct raid_array *a)
{
  return sm.dirty;
}

bool
safemode_stopping_locked (struct raid_array *a)
{
  return sm.stop;
}

bool
safemode_wait_locked (struct raid_array *a, uint64_t ns)
{
  uint64_t until = stats_now_ns () + ns;

  while (!sm.stop) {
    uint64_t now = stats_now_ns (), next;
    struct timespec ts;

    if (now >= until)
      break;
    next = clean_locked (a, NULL);
    if (next == 0 || next > until - now)
      next = until - now;
    stats_deadline (&ts, next);
    pthread_cond_timedwait (&sm.cond, &a->meta.lock, &ts);
  }
  return sm.stop;
}

void
safemode_loop (struct raid_array *a)
{
  pthread_mutex_lock (&a->meta.lock);
  while (!sm.stop) {
    uint64_t next = clean_locked (a, NULL);
    struct timespec ts;

    if (next == 0)
      pthread_cond_wait (&sm.cond, &a->meta.lock);
    else {
      stats_deadline (&ts, next);
      pthread_cond_timedwait (&sm.cond, &a->meta.lock, &ts);
    }
  }
  pthread_mutex_unlock (&a->meta.lock);
}

/* md's bitmap daemon: a sweep every daemon_sleep seconds, and the
 * members it failed recorded, as md's thread runs daemon_work.
 */
static void *
daemon_thread (void *arg)
{
  struct raid_array *a = arg;
  uint64_t sleep_s = bitmap_daemon_sleep (a);

  pthread_mutex_lock (&sm.dlock);
  while (!sm.dstop) {
    struct timespec ts;
    uint32_t failed;

    clock_gettime (CLOCK_REALTIME, &ts);
    ts.tv_sec += sleep_s;
    pthread_cond_timedwait (&sm.dcond, &sm.dlock, &ts);
    if (sm.dstop)
      break;
    pthread_mutex_unlock (&sm.dlock);
    bitmap_sweep (a, &failed);
    if (failed)
      superblock_record (a, failed);
    pthread_mutex_lock (&sm.dlock);
  }
  pthread_mutex_unlock (&sm.dlock);
  return NULL;
}

int
safemode_start (struct raid_array *a)
{
  uint64_t size, off;
  int err;

  /* md marks a RAID 1 or 10 dirty while it is written and clean after
   * (md_write_start), even a RAID 1 of one member; raid0 never calls
   * md_write_start, so a RAID 0 stays clean.
   */
  if (sm.on || !a->meta.on || !a->meta.started ||
      raid_geom_level (a->geom) == RAID_LEVEL_0)
    return 0;
  pthread_cond_init (&sm.cond, NULL);
  size = raid_geom_size (a->geom);
  off = a->meta.resync_offset;
  a->status.action = "idle";
  a->status.done = a->status.total = size;
  if (off == MDSB_RESYNC_DONE || off >= size / MDSB_SECTOR)
    atomic_store (&a->in_sync, UINT64_MAX);
  else {
    /* Whole regions, so that the resync's steps stay aligned. */
    uint64_t pos = off * MDSB_SECTOR / MD_SYNC_REGION * MD_SYNC_REGION;
    atomic_store (&a->in_sync, pos);
    a->status.action = "resync";
    a->status.done = pos;
  }
  if (bitmap_start (a)) {
    pthread_cond_init (&sm.dcond, NULL);
    err = pthread_create (&sm.dthread, NULL, daemon_thread, a);
    if (err) {
      errno = err;
      nbdkit_error ("bitmap: starting its daemon: %m");
      return -1;
    }
    sm.dstarted = true;
  }
  sm.on = true;
  a->resync_on = true;
  return 1;
}

void
safemode_stop (struct raid_array *a)
{
  pthread_mutex_lock (&a->meta.lock);
  sm.stop = true;
  pthread_cond_broadcast (&sm.cond);
  pthread_mutex_unlock (&a->meta.lock);
}

void
safemode_shutdown (struct raid_array *a)
{
  if (sm.dstarted) {
    pthread_mutex_lock (&sm.dlock);
    sm.dstop = true;
    pthread_cond_broadcast (&sm.dcond);
    pthread_mutex_unlock (&sm.dlock);
    pthread_join (sm.dthread, NULL);
    sm.dstarted = false;
  }
  /* A dirty array is marked clean now, as after an idle time (taking
   * the event count back), so that the count at a clean stop does not
   * depend on whether the last write was 200 ms before it; then
   * superblock_stop's update is a clean one too.
   */
  pthread_mutex_lock (&a->meta.lock);
  clean_locked (a, "clean shutdown");
  a->meta.resync_offset = safemode_clean_offset (a);
  sm.dirty = false;
  pthread_mutex_unlock (&a->meta.lock);
}
