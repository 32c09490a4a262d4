/* nbdkit-raid-plugin: scrub, as md's "check" and "repair" sync actions
 * (echo check > /sys/block/mdX/md/sync_action), in scrub.c.
 *
 * A background thread walks the array from start to end in
 * MD_SYNC_REGION steps.  Each region's array range is held
 * (io/rangelock.h) so that no client write changes it half-way, every
 * live copy of each piece is read and compared with the first live copy
 * that read:
 *
 *   - check counts mismatches and changes nothing;
 *   - repair also writes the first copy over every copy that differs,
 *     as md's repair does (raid1.c process_checks and raid10.c
 *     sync_request_write take the first copy read as the good one).
 *
 * mismatch_cnt is counted as md counts it: md compares its resync
 * blocks (RESYNC_BLOCK_SIZE, 64 KiB, and on RAID 10 never across a
 * chunk boundary) and, for every copy of a block that differs from the
 * first, adds the block's size in 512-byte sectors.  So one flipped
 * byte in one copy counts 128 when the block is a whole 64 KiB (the
 * chunk is 64K or more), and chunk / 512 on a RAID 10 with smaller
 * chunks.  Like md, each check or repair starts mismatch_cnt from 0,
 * and repair counts what it fixed.
 *
 * The walk is throttled as the resync is, by sync-speed-min= and
 * sync-speed-max= (md's speed_limit_min/max), and there is one sync
 * action at a time, as in md: a check is refused while the resync runs
 * (the array's status.action, md/state.h, is not "idle").  "idle"
 * stops it where it is.
 */
#ifndef RAID_SYNC_SCRUB_H
#define RAID_SYNC_SCRUB_H

#include <stdbool.h>
#include <stdint.h>

/* md's resync block: RESYNC_BLOCK_SIZE in drivers/md/raid1-10.c. */
#define SCRUB_BLOCK (UINT64_C (64) << 10)

struct raid_array;

enum scrub_action { SCRUB_IDLE, SCRUB_CHECK, SCRUB_REPAIR };

/* What the detail and the statistics show of it. */
struct scrub_view {
  enum scrub_action action;     /* running now */
  uint64_t done, total;         /* array bytes */
  double rate;                  /* KiB/s, recent */
  /* md's mismatch_cnt: sectors, of the running or the last check or
   * repair.
   */
  uint64_t mismatch_cnt;
  /* The last one that ended: "check", "repair" or NULL; and whether it
   * ran to the end or was stopped.
   */
  const char *last;
  bool last_complete;
};
extern void scrub_view (struct raid_array *a, struct scrub_view *v);

extern const char *scrub_action_name (enum scrub_action a);

/* Start a check or a repair.  Returns 0, or -1 with *why set to one
 * line saying why not (already running, the resync runs, the array is
 * served read-only, it has no copies).
 */
extern int scrub_start (struct raid_array *a, enum scrub_action act,
                        const char **why);
/* md's "idle": stop the running check or repair, and wait for its
 * thread.  Returns true if one was running.
 */
extern bool scrub_stop (struct raid_array *a);

#endif /* RAID_SYNC_SCRUB_H */
