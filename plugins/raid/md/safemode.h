/* nbdkit-raid-plugin: md's safe mode, clean and dirty (safemode.c), for
 * arrays with md metadata and copies, and the bitmap daemon's sweeps:
 * the two timers md's own thread keeps.
 *
 *   - before the first write after an idle time, the superblocks say
 *     the array is dirty (resync_offset 0, what md writes while the
 *     array is not in sync), and that write waits until they are on
 *     disk, as md_write_start makes it wait;
 *   - once no write has been in flight for SAFEMODE_DELAY_MS (md's
 *     safe_mode_delay, 200 ms), and at a clean shutdown, they say it is
 *     clean again: resync_offset MaxSector (all ones), or, while a
 *     resync is not finished, the position it has reached.  Like md's,
 *     a clean mark right after a dirty one takes the event count back
 *     down, so that idle cycles do not run the counter up;
 *   - every daemon_sleep seconds, the write-intent bitmap's idle bits
 *     are cleared (md/bitmap.h), and the members that fail writing it
 *     recorded.
 *
 * The clean marks are made by the array's sync thread, which runs the
 * resync first if there is one (sync/resync.c calls safemode_wait_locked
 * while it waits, and safemode_loop once it is done).
 */
#ifndef RAID_MD_SAFEMODE_H
#define RAID_MD_SAFEMODE_H

#include <stdbool.h>
#include <stdint.h>

#define SAFEMODE_DELAY_MS 200

struct raid_array;

/* At the first connection that may write, after superblock_start:
 * safe mode, the resync position from the superblocks (a->in_sync,
 * a->status), and the bitmap and its daemon.  Returns 1 if safe mode
 * runs (the caller starts the sync thread), 0 if it does not (no md
 * metadata, a RAID 0, or nothing may be written), or -1 after
 * nbdkit_error.
 */
extern int safemode_start (struct raid_array *a);

/* The sync thread's: wait, with meta.lock held, until stop or ns have
 * passed, marking the array clean whenever it is idle long enough;
 * returns true to stop.  safemode_loop: that until stop.
 */
extern bool safemode_wait_locked (struct raid_array *a, uint64_t ns);
extern void safemode_loop (struct raid_array *a);
/* With meta.lock held: a clean mark now if one is due (the resync's
 * steps); whether the superblocks say dirty.
 */
extern void safemode_idle_locked (struct raid_array *a);
extern bool safemode_dirty_locked (struct raid_array *a);
/* With meta.lock held: whether the sync thread is to stop. */
extern bool safemode_stopping_locked (struct raid_array *a);

/* Stop: safemode_stop tells the sync thread to (the caller joins it);
 * safemode_shutdown, once it has ended, stops the bitmap daemon and
 * marks the array clean, as after an idle time, for superblock_stop's
 * last update.
 */
extern void safemode_stop (struct raid_array *a);
extern void safemode_shutdown (struct raid_array *a);

/* Around every write, zero and trim: safemode_write_start makes sure
 * the superblocks say dirty, waiting for that if needed.  Returns 0, or
 * -1 (the superblocks could not be written: the request must fail).
 */
extern int safemode_write_start (struct raid_array *a);
extern void safemode_write_end (struct raid_array *a);

/* What a clean superblock says now: MaxSector when the copies are in
 * sync, the resync position (in sectors) while they are not.
 */
extern uint64_t safemode_clean_offset (struct raid_array *a);

#endif /* RAID_MD_SAFEMODE_H */
