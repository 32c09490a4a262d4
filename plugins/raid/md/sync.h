/* nbdkit-raid-plugin: md's safe mode (clean and dirty) and resync, for
 * arrays with md metadata and copies (sync.c).
 *
 * Clean and dirty, as md's safe mode:
 *
 *   - before the first write after an idle time, the superblocks say
 *     the array is dirty (resync_offset 0, what md writes while the
 *     array is not in sync), and that write waits until they are on
 *     disk, as md_write_start makes it wait;
 *   - once no write has been in flight for SYNC_SAFE_MODE_MS (md's
 *     safe_mode_delay, 200 ms), and at a clean shutdown, they say it is
 *     clean again: resync_offset MaxSector (all ones), or, while a
 *     resync is not finished, the position it has reached.  Like md's,
 *     a clean mark right after a dirty one takes the event count back
 *     down, so that idle cycles do not run the counter up.
 *
 * Resync: an array that starts with resync_offset below MaxSector was
 * not shut down cleanly (or was created without --assume-clean), and
 * its copies may differ wherever a write was in flight.  A background
 * thread walks the array from resync_offset in SYNC_REGION steps: each
 * region's array range is held (rangelock.h), so that no client write
 * races it, its first live copy is read and written to the other live
 * copies.  Until the walk has passed a piece, reads of it take its first
 * live copy (request.c), so that every read gives the same answer
 * whichever copy the read policy would have chosen.  The position is
 * written to the superblocks every SYNC_CHECKPOINT of the array, when
 * the array is clean then (as md: a dirty array says 0), so that a
 * restart after a crash goes on from there.
 *
 * The walk is throttled as md's is, by sync-speed-min= and
 * sync-speed-max= (KiB/s): at most max; while clients are doing I/O,
 * at most min (throttle.h).
 */
#ifndef RAID_SYNC_H
#define RAID_SYNC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define SYNC_SAFE_MODE_MS 200
#define SYNC_REGION (UINT64_C (1) << 20)
#define SYNC_SPEED_MIN_DEFAULT 1000     /* KiB/s, md's speed_limit_min */
#define SYNC_SPEED_MAX_DEFAULT 200000   /* KiB/s, md's speed_limit_max */

struct raid_array;

struct raid_sync {
  bool on;                      /* md metadata, copies, writable */
  /* Under the array's meta.lock: */
  bool dirty;                   /* the superblocks say dirty */
  bool can_decrease;            /* the last update was only a dirty mark */
  unsigned writers;             /* writes in flight */
  uint64_t last_write_ns;       /* when the last one ended */
  pthread_cond_t cond;          /* writers, stop, resync progress */
  bool stop;
  bool thread_started;
  pthread_t thread;
  /* Array bytes below which the copies are in sync; UINT64_MAX when all
   * are.  Read without a lock by the read path.
   */
  _Atomic uint64_t in_sync;
  /* For the statistics, under meta.lock. */
  const char *action;           /* "idle", "resync" */
  uint64_t done, total;         /* bytes */
  uint64_t synced;              /* bytes actually resynced: less than
                                 * done with a write-intent bitmap */
  double rate;                  /* KiB/s, recent */
  uint64_t speed_min, speed_max; /* KiB/s */
};

/* At the first connection that may write, after metadata_start: set up
 * safe mode and, if the superblocks say so, start the resync.  Returns
 * 0, or -1 after nbdkit_error.
 */
extern int sync_start (struct raid_array *a);
/* Before metadata_stop: stop the thread (the resync position is kept in
 * meta.resync_offset for the last superblock update).
 */
extern void sync_stop (struct raid_array *a);

/* Around every write, zero and trim: sync_write_start makes sure the
 * superblocks say dirty, waiting for that if needed.  Returns 0, or -1
 * (the superblocks could not be written: the request must fail).
 */
extern int sync_write_start (struct raid_array *a);
extern void sync_write_end (struct raid_array *a);

/* The array bytes at and above which a read must take the first live
 * copy; UINT64_MAX if every copy is in sync.
 */
static inline uint64_t
sync_in_sync (struct raid_sync *s)
{
  return atomic_load_explicit (&s->in_sync, memory_order_acquire);
}

#endif /* RAID_SYNC_H */
