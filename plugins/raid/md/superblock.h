/* nbdkit-raid-plugin: md metadata on the members, read and written
 * through the members' own backends (superblock.c).  The superblock's
 * format is the core's (include/raidsim/mdsb.h); what the plugin makes
 * of it at start is assemble.c's.
 *
 * The superblocks are written, as md writes them, with the event count
 * one more each time and the role table as the array is then (a member
 * that failed is faulty, one that is missing or was left out at start
 * is not in it), at three moments:
 *
 *   - at the first connection that may write (superblock_start): not
 *     under nbdkit -r, nor when a member is read-only, since then
 *     nothing is written at all;
 *   - when a member fails (superblock_record, from md_error), before the
 *     request that failed it, or any write that left it out, completes;
 *   - at a clean shutdown (superblock_stop).
 *
 * A member that missed writes is then behind the others in events at
 * the next start, and assemble.c leaves it out.  The superblocks of
 * members new to the array (a blank member, a spare) are made here
 * too, each with a dev_number slot of its own, and, as md's
 * super_1_validate, which members start out of sync.  Writes that fail fail
 * their member (md_fail), never calling up.
 */
#ifndef RAID_MD_SUPERBLOCK_H
#define RAID_MD_SUPERBLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/mdsb.h"
#include "state.h"
#include "member/member.h"

/* What a member holds, read at config time. */
struct member_md {
  enum { MD_NONE, MD_V1_2, MD_OTHER } kind;
  const char *version;          /* "1.2", "1.1", "1.0", "0.90", or NULL */
  bool valid;                   /* MD_V1_2: sb decoded and checked */
  char why[256];                /* MD_V1_2 and not valid: what is wrong */
  struct mdsb sb;
};

/* Look for md metadata on m, before start: a version 1.2 superblock 4K
 * from the start (decoded and checked against the member's size), and
 * the magic numbers of the versions raidsim does not serve (1.1 at the
 * start, 1.0 near the end, 0.90 64K from the end).  Returns 0, or -1
 * after nbdkit_error if the member cannot be read.
 */
extern int superblock_read (struct member *m, struct member_md *md);

/* The first connection that may write: write every live member's
 * superblock.  Does nothing after it has once succeeded, or for an
 * array without metadata, or if nothing may be written.  Returns 0, or
 * -1 after nbdkit_error if a live member that holds the last copy of
 * some chunk could not be written.
 */
extern int superblock_start (struct raid_array *a);

/* Make sure that the superblocks of every live member say that the
 * failed members in the bitmask members are out of the array, writing
 * them if they do not yet.  A member whose superblock cannot be
 * written fails in turn (never the last copy: md_fail).
 * Returns 0, or -1 after nbdkit_error if that could not be done, and
 * the caller's request must then fail.  Costs one atomic load when the
 * failures are recorded already.
 */
extern int superblock_record (struct raid_array *a, uint32_t members);

/* One update (see superblock.c), with meta.lock held: the superblocks
 * of every live member written with meta.resync_offset, and the event
 * count one more (or one less, if meta.rollback is set).  Returns 0, or
 * -1 after nbdkit_error, as superblock_start.
 */
extern int superblock_update_locked (struct raid_array *a, const char *why);

/* A clean shutdown: write every live member's superblock once more, if
 * superblock_start did.
 */
extern void superblock_stop (struct raid_array *a);

/* ---- members new to the array ---- */

/* The array's superblock to build new members' from: a live member's. */
extern const struct mdsb *superblock_ref (const struct raid_array *a);

/* A superblock for a member new to the array, from the array's ref:
 * its own dev_number (a slot no member uses) and device UUID, data_size
 * from its size.  role is its role, or MDSB_ROLE_SPARE.  Returns 0, or
 * -1 after nbdkit_error, errno EFBIG (too small) or ENOSPC (no slot).
 */
extern int superblock_new (struct raid_array *a, const struct mdsb *ref,
                           const struct member *m, unsigned role,
                           struct mdsb *sb);

/* Mark dev_number slots in use: every slot of sb's role table that is
 * not 0xffff, and sb's own (assembly).  superblock_use_slot: slot d,
 * which a member re-added with its own superblock takes back.
 */
extern void superblock_slots_from (struct raid_array *a, const struct mdsb *sb);
extern void superblock_use_slot (struct raid_array *a, unsigned d);

/* Write a spare's superblock sb to m, with meta.lock held: the array's
 * event count and role table as they are now, the spare role in its own
 * slot.  Returns 0, or -1 with errno set after nbdkit_error.
 */
extern int superblock_write_spare_locked (struct raid_array *a,
                                          struct member *m,
                                          const struct mdsb *sb);

/* ---- members out of sync at assembly (md's super_1_validate) ---- */

/* Role r is to be rebuilt: a stale member re-added, a blank one (new,
 * its superblock in a->meta.sb[r] built by superblock_new), or one whose
 * superblock records a recovery in progress.  Once the array's geometry
 * is made and a->meta filled: the member is not failed from now on, and
 * nothing above its recovery position is read (sync/rebuild.h).
 */
enum superblock_rebuild {
  SB_REBUILD_READD, SB_REBUILD_NEW, SB_REBUILD_RESUME,
};
extern void superblock_validate (struct raid_array *a, unsigned r,
                                 enum superblock_rebuild kind);

/* After bitmap_assemble: whether each member re-added at assembly (or
 * resuming a recovery that its superblock says was from the bitmap) is
 * rebuilt from the bitmap or in full, as md's super_1_validate decides
 * (bitmap_readd_ok); logged.
 */
extern void superblock_validate_bitmap (struct raid_array *a);

#endif /* RAID_MD_SUPERBLOCK_H */
