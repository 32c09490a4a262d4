/* nbdkit-raid-plugin: md's recovery, the rebuild of members that are in
 * the array but not in sync (rebuild.c).
 *
 * Which members are rebuilt, as Linux md and mdadm do it:
 *
 *   - a stale member of this array, given on the command line (its
 *     events are behind, or the freshest superblock lists it faulty or
 *     out), re-added at assembly (md/assemble.c).  With a write-intent
 *     bitmap that still marks every write it missed (md_readd_ok,
 *     raidsim/core/mdrules.c), only the chunks whose bits are set are
 *     rebuilt, as md's Bitmap_sync recovery; its superblock then says
 *     so (MDSB_FEATURE_RECOVERY_BITMAP beside the recovery offset), and
 *     a restart goes on the same way.  Otherwise it is a full recovery
 *     from array offset 0;
 *   - a member re-added while serving (md/spares.h), from the bitmap;
 *   - a blank member given where a member of the array is missing: a
 *     new member, as mdadm --add of a blank disk to a degraded array,
 *     with a superblock of its own in the missing member's role;
 *   - a member whose superblock records a recovery in progress
 *     (MDSB_FEATURE_RECOVERY_OFFSET): the recovery goes on from its
 *     recovery_offset, as md's super_1_validate takes it, and nothing
 *     above it is ever read;
 *   - a hot spare that takes over a failed or missing role
 *     (md/spares.h), in full.
 *
 * The rebuild (md_do_sync's recovery): a background thread walks the
 * array in MD_SYNC_REGION regions, up to RECOVERY_INFLIGHT of them in
 * flight, copied by a pool of threads (recwindow.h), each holding its
 * region's array range (io/rangelock.h) so that no client write races
 * it; a position passes a region only once every region below it is
 * copied too.  Each region: it reads every piece from a copy that is in
 * sync and writes it to the copies on the members being rebuilt.
 * Client writes go to a member being rebuilt as to any other; reads are
 * served from it only below its recovery position (md_readable), as
 * md's read_balance skips a member that is not In_sync beyond its
 * recovery_offset.  Such a member does not count as a live copy: the
 * last in-sync copy of a chunk is never failed.  Its superblock records
 * the position (recovery_offset, in member sectors, with the feature
 * bit) every 1/16 of the array, so that a restart goes on from there;
 * when the walk ends, the bit is cleared and the member is in sync,
 * with one more event in every superblock.  A member that fails, or a
 * spare that comes, starts the walk again from the lowest position.
 *
 * One sync action at a time, as md: a resync (resync.c) finishes before
 * a recovery starts.  The walk is throttled as the resync is, by
 * sync-speed-min= and sync-speed-max= (md's speed_limit_min/max): at
 * most max, and at most min while clients are doing I/O.  Progress is
 * in the log and in the statistics (sync.action "recover").
 */
#ifndef RAID_SYNC_REBUILD_H
#define RAID_SYNC_REBUILD_H

/* Regions in flight at once (the window, recwindow.h; at most
 * RECWINDOW_MAX), and the threads that copy them: the walk's own and
 * RECOVERY_COPIERS - 1 of a pool started for each pass.  On tmpfs a
 * member I/O runs in the thread that asks for it, so one thread alone
 * leaves the other core idle, while the reads of one region overlap
 * the writes of another; writes into one file take its inode lock in
 * turn, so more copiers than cores only spin on it (2 beat 3 and 4 on
 * this 2-core machine, docs/performance.md).  A window wider than the
 * copiers keeps a copier that finishes from waiting for the walk to
 * pop.  The throttle is looked at every RECOVERY_INFLIGHT regions.
 */
#define RECOVERY_REGION MD_SYNC_REGION
#ifndef RECOVERY_INFLIGHT
#define RECOVERY_INFLIGHT 4
#endif
#ifndef RECOVERY_COPIERS
#define RECOVERY_COPIERS 2
#endif

struct raid_array;

/* raid_preconnect, after resync_start: write the spares' superblocks
 * and start the rebuild's thread (if anything may be written).  Returns
 * 0, or -1 after nbdkit_error.
 */
extern int rebuild_start (struct raid_array *a);
/* raid_unload, after replace_stop and before resync_stop: stop the
 * thread, leaving each member's recovery position in a->meta for the
 * last superblock update.
 */
extern void rebuild_stop (struct raid_array *a);

#endif /* RAID_SYNC_REBUILD_H */
