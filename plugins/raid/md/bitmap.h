/* nbdkit-raid-plugin: md's internal write-intent bitmap (bitmap.c), for
 * md v1.2 arrays whose superblocks have one (raidsim create
 * --bitmap=internal, or mdadm's default on members over 100G).  The
 * on-disk format is the core's (include/raidsim/mdbitmap.h).
 *
 * As md's md-bitmap.c:
 *
 *   - before a write to a bitmap chunk whose bit is clear, the bit is
 *     set on every live member's bitmap, and the write waits until that
 *     is on disk (md_bitmap_startwrite and the unplug before the data
 *     is submitted);
 *   - every chunk counts the writes in flight in it;
 *   - the bits of chunks that have been idle for daemon_sleep seconds
 *     (two sweeps of the bitmap daemon, as md's counters go 2, 1, 0)
 *     are cleared lazily, when the array is not degraded (no member
 *     missing, failed or being rebuilt) and the chunk is in sync, and
 *     events_cleared then records the event count; so a member that
 *     left the array finds every chunk written since marked, and a
 *     re-add resyncs only those (md/spares.h, sync/rebuild.h);
 *   - the bitmap's events follow the superblocks' and are written
 *     before them (md_bitmap_update_sb);
 *   - after an unclean shutdown, the resync (sync/resync.c) walks only the
 *     chunks whose bit was set, from the superblocks' resync_offset on.
 *     A bitmap whose events are behind the superblocks' is stale and
 *     makes the resync cover every chunk.
 *
 * Arrays without a bitmap: every function here does nothing.
 *
 * Below md_error (md/failure.h): a member whose bitmap cannot be written
 * is failed (md_fail), and the members so failed are returned to the
 * caller, which records them in the superblocks.  The daemon's thread
 * is md/safemode.c's, as md's thread runs the bitmap daemon's work.
 */
#ifndef RAID_MD_BITMAP_H
#define RAID_MD_BITMAP_H

#include <stdbool.h>
#include <stdint.h>

struct raid_array;

/* At config time, after assemble found md superblocks (a->meta.on):
 * read the bitmap that their feature map names from every live member,
 * check it (format, UUID, size) and merge the bits.  Returns 0, or -1
 * after one nbdkit_error naming the member.
 */
extern int bitmap_assemble (struct raid_array *a);

/* From safemode_start, once the array may be written: the chunks the
 * resync must walk (none if the array is clean).  Returns whether the
 * array has a bitmap, and so a daemon to sweep it.
 */
extern bool bitmap_start (struct raid_array *a);

/* One sweep of md's bitmap daemon: a chunk with no write in flight
 * goes one step nearer clean; at the second step its bit is cleared, if
 * the array is not degraded and the resync has passed the chunk.
 * *failed gets the members failed writing it.  bitmap_daemon_sleep: the
 * seconds between sweeps (the header's daemon_sleep).
 */
extern void bitmap_sweep (struct raid_array *a, uint32_t *failed);
extern unsigned bitmap_daemon_sleep (struct raid_array *a);

/* Around every write, zero and trim on an array with copies, after
 * safemode_write_start: bitmap_start_write returns once the bits of
 * every chunk [offset, offset + count) touches are on disk.  Returns 0,
 * or -1 (no live member's bitmap could be written: the request must
 * fail, and bitmap_end_write has been done).  *failed gets the members
 * failed writing it, to be recorded before the write goes on.
 */
extern int bitmap_start_write (struct raid_array *a, uint64_t offset,
                               uint64_t count, uint32_t *failed);
extern void bitmap_end_write (struct raid_array *a, uint64_t offset,
                              uint64_t count);

/* From superblock_update_locked, before the superblocks are written with
 * event count events: write it to the bitmaps first, as md does.
 */
extern void bitmap_update_events (struct raid_array *a, uint64_t events);

/* The resync's walk: the first array offset at or after pos in a chunk
 * it must sync, with *len cut to the end of that run of chunks; size if
 * none is left.  Without a bitmap: pos, and *len as it is.
 */
extern uint64_t bitmap_next_needed (struct raid_array *a, uint64_t pos,
                                    uint64_t size, uint64_t *len);

/* A re-add (md/spares.h, md's super_1_validate when the array has a
 * bitmap): a member whose superblock says events may be brought back
 * by resyncing only the chunks whose bits are set if every write it
 * missed is still marked, that is if the bitmap is not stale and events
 * is not older than its events_cleared (bits are cleared only while the
 * array is whole, so none of the chunks written since it left has been
 * cleared).  *why says which, in words, for the log.
 */
extern bool bitmap_readd_ok (struct raid_array *a, uint64_t events,
                             const char **why);
/* The bitmap as md's re-add rules see it (raidsim/mdrules.h). */
struct md_bitmap_view;
extern void bitmap_readd_view (struct raid_array *a, struct md_bitmap_view *v);
extern uint64_t bitmap_events_cleared (struct raid_array *a);

/* A re-add's walk (sync/rebuild.c), on the bits as they are now (a write
 * during the walk sets its chunk's bit and reaches the member itself):
 * whether a chunk in [offset, offset + len) has its bit set (true
 * without a bitmap); the first array offset at or after pos in a chunk
 * whose bit is set, size if none; the bytes of [pos, size) in such
 * chunks.
 */
extern bool bitmap_dirty (struct raid_array *a, uint64_t offset,
                          uint64_t len);
extern uint64_t bitmap_next_dirty (struct raid_array *a, uint64_t pos,
                                   uint64_t size);
extern uint64_t bitmap_dirty_bytes (struct raid_array *a, uint64_t pos,
                                    uint64_t size);

/* What the control socket's detail shows of the bitmap (mdadm
 * --detail's "Intent Bitmap", mdadm -X's counts): on is false without
 * one.  sweeps counts the daemon's sweeps, so that a client can tell
 * that bits had the chance to be cleared.
 */
struct bitmap_view {
  bool on;
  uint64_t chunk, chunks, dirty, events, events_cleared, sweeps;
};
extern void bitmap_view (struct raid_array *a, struct bitmap_view *v);

#endif /* RAID_MD_BITMAP_H */
