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
 *     re-add resyncs only those (recovery.h);
 *   - the bitmap's events follow the superblocks' and are written
 *     before them (md_bitmap_update_sb);
 *   - after an unclean shutdown, the resync (sync.c) walks only the
 *     chunks whose bit was set, from the superblocks' resync_offset on.
 *     A bitmap whose events are behind the superblocks' is stale and
 *     makes the resync cover every chunk.
 *
 * Arrays without a bitmap: every function here does nothing.
 */
#ifndef RAID_BITMAP_H
#define RAID_BITMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "raidsim/mdbitmap.h"

struct raid_array;

struct raid_bitmap {
  bool on;                      /* the superblocks say there is one */
  uint64_t offset;              /* member byte offset of the header */
  uint64_t bytes;               /* header and bits, rounded to 4K */
  uint64_t nbits;
  uint64_t chunk;               /* array bytes per bit */
  bool stale;                   /* events behind the superblocks' */
  uint64_t nneeded;             /* chunks the resync must walk */

  pthread_mutex_t io;           /* one bitmap write at a time */
  pthread_mutex_t lock;         /* everything below */
  struct mdbm hdr;              /* what the next write says */
  uint8_t *mem;                 /* header + bits as they are to be */
  uint8_t *disk;                /* bits as last written everywhere */
  uint8_t *needed;              /* bits: the resync must sync it */
  uint16_t *pending;            /* writes in flight, per chunk */
  uint8_t *idle;                /* md's counter: 2 after a write ends,
                                 * one less per sweep, cleared at 0 */
  uint64_t writes;              /* bitmap writes (for the statistics) */
  uint64_t sweeps;              /* the daemon's sweeps done */

  pthread_cond_t cond;
  bool stop, thread_started;
  pthread_t thread;
};

/* At config time, after assemble found md superblocks (a->meta.on):
 * read the bitmap that their feature map names from every live member,
 * check it (format, UUID, size) and merge the bits.  Returns 0, or -1
 * after one nbdkit_error naming the member.
 */
extern int bitmap_assemble (struct raid_array *a);

/* From sync_start, once the array may be written: the chunks the
 * resync must walk (none if the array is clean), and the daemon that
 * clears bits.  Returns 0 or -1 after nbdkit_error.
 */
extern int bitmap_start (struct raid_array *a);
/* From sync_stop: stop the daemon. */
extern void bitmap_stop (struct raid_array *a);

/* Around every write, zero and trim on an array with copies, after
 * sync_write_start: bitmap_start_write returns once the bits of every
 * chunk [offset, offset + count) touches are on disk.  Returns 0, or -1
 * (no live member's bitmap could be written: the request must fail).
 */
extern int bitmap_start_write (struct raid_array *a, uint64_t offset,
                               uint64_t count);
extern void bitmap_end_write (struct raid_array *a, uint64_t offset,
                              uint64_t count);

/* From metadata_update_locked, before the superblocks are written with
 * event count events: write it to the bitmaps first, as md does.
 */
extern void bitmap_update_events (struct raid_array *a, uint64_t events);

/* The resync's walk: the first array offset at or after pos in a chunk
 * it must sync, with *len cut to the end of that run of chunks; size if
 * none is left.  Without a bitmap: pos, and *len as it is.
 */
extern uint64_t bitmap_next_needed (struct raid_array *a, uint64_t pos,
                                    uint64_t size, uint64_t *len);

/* A re-add (recovery.h, md's super_1_validate when the array has a
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

/* A re-add's walk (recovery.c), on the bits as they are now (a write
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

#endif /* RAID_BITMAP_H */
