/* nbdkit-raid-plugin: from the opened members to the array's shape
 * (assemble.c), once, while nbdkit reads its parameters: mdadm
 * --assemble, with md's rules of whom to trust (raidsim/core/mdrules.c).
 */
#ifndef RAID_MD_ASSEMBLE_H
#define RAID_MD_ASSEMBLE_H

#include "raidsim/raidkeys.h"

struct raid_array;

/* metadata=: what the members carry. */
enum raid_metadata {
  METADATA_AUTO,                /* md v1.2 if every member has it, none if
                                 * no member has any md metadata */
  METADATA_1_2,                 /* md v1.2 superblocks, required */
  METADATA_NONE,                /* none: data from offset 0, as mdadm
                                 * --build; members with md metadata are
                                 * refused */
};

/* The members are open, in the order given (a->members[0 ..
 * a->nmembers - 1]; "missing" ones too).  Decide from metadata and what
 * the members hold whether the array is assembled from md v1.2
 * superblocks or served without metadata; check everything that must
 * agree, the keys given in s (level=, chunk=, copies=) too; put the
 * members in the places of their md roles and fail those left out; fill
 * a->meta, mark the members to rebuild, and set s's level, chunk and
 * copies to the array's; and make a->geom.  Returns 0, or -1 after one
 * nbdkit_error line naming the parameter at fault (level:, chunk:,
 * copies:, metadata:, member:).  Nothing is written to any member.
 */
extern int assemble (struct raid_array *a, struct raid_settings *s,
                     enum raid_metadata metadata);

#endif /* RAID_MD_ASSEMBLE_H */
