/* nbdkit-raid-plugin: md metadata on the members, read and written
 * through the members' own backends (metadata.c).  The superblock's
 * format is the core's (include/raidsim/mdsb.h); what the plugin makes
 * of it at start is assemble.c's.
 *
 * The superblocks are written, as md writes them, with the event count
 * one more each time and the role table as the array is then (a member
 * that failed is faulty, one that is missing or was left out at start
 * is not in it), at three moments:
 *
 *   - at the first connection that may write (metadata_start): not
 *     under nbdkit -r, nor when a member is read-only, since then
 *     nothing is written at all;
 *   - when a member fails (metadata_record, from request.c), before the
 *     request that failed it, or any write that left it out, completes;
 *   - at a clean shutdown (metadata_stop).
 *
 * A member that missed writes is then behind the others in events at
 * the next start, and assemble.c leaves it out.
 */
#ifndef RAID_METADATA_H
#define RAID_METADATA_H

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
extern int metadata_read (struct member *m, struct member_md *md);

/* The first connection that may write: write every live member's
 * superblock.  Does nothing after it has once succeeded, or for an
 * array without metadata, or if nothing may be written.  Returns 0, or
 * -1 after nbdkit_error if a live member that holds the last copy of
 * some chunk could not be written.
 */
extern int metadata_start (struct raid_array *a);

/* Make sure that the superblocks of every live member say that the
 * failed members in the bitmask members are out of the array, writing
 * them if they do not yet.  A member whose superblock cannot be
 * written fails in turn (never the last copy: request_mark_failed).
 * Returns 0, or -1 after nbdkit_error if that could not be done, and
 * the caller's request must then fail.  Costs one atomic load when the
 * failures are recorded already.
 */
extern int metadata_record (struct raid_array *a, uint32_t members);

/* One update (see metadata.c), with meta.lock held: the superblocks
 * of every live member written with meta.resync_offset, and the event
 * count one more (or one less, if meta.rollback is set).  Returns 0, or
 * -1 after nbdkit_error, as metadata_start.
 */
extern int metadata_update_locked (struct raid_array *a, const char *why);

/* A clean shutdown: write every live member's superblock once more, if
 * metadata_start did.
 */
extern void metadata_stop (struct raid_array *a);

#endif /* RAID_METADATA_H */
