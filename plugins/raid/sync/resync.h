/* nbdkit-raid-plugin: md's resync (resync.c), and the array's sync
 * thread, which runs it and then safe mode's clean marks
 * (md/safemode.h), for arrays with md metadata and copies.
 *
 * An array that starts with resync_offset below MaxSector was not shut
 * down cleanly (or was created without --assume-clean), and its copies
 * may differ wherever a write was in flight.  The thread walks the
 * array from resync_offset in MD_SYNC_REGION steps: each region's array
 * range is held (io/rangelock.h), so that no client write races it, its
 * first live copy is read and written to the other live copies.  Until
 * the walk has passed a piece, reads of it take its first live copy
 * (io/read.c), so that every read gives the same answer whichever copy
 * the read policy would have chosen.  The position is written to the
 * superblocks every 1/16 of the array, when the array is clean then (as
 * md: a dirty array says 0), so that a restart after a crash goes on
 * from there.  With a write-intent bitmap, only the chunks whose bits
 * were set are walked.
 *
 * The walk is throttled as md's is, by sync-speed-min= and
 * sync-speed-max= (KiB/s): at most max; while clients are doing I/O,
 * at most min (throttle.h).
 */
#ifndef RAID_SYNC_RESYNC_H
#define RAID_SYNC_RESYNC_H

struct raid_array;

/* At the first connection that may write, after superblock_start:
 * safe mode (safemode_start) and the sync thread, which resyncs first
 * if the superblocks say so.  Returns 0, or -1 after nbdkit_error.
 */
extern int resync_start (struct raid_array *a);
/* Before superblock_stop: stop the thread (the resync position is kept
 * in meta.resync_offset for the last superblock update).
 */
extern void resync_stop (struct raid_array *a);

#endif /* RAID_SYNC_RESYNC_H */
