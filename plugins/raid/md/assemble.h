/* nbdkit-raid-plugin: from the opened members to the array's shape
 * (assemble.c), once, while nbdkit reads its parameters.
 */
#ifndef RAID_ASSEMBLE_H
#define RAID_ASSEMBLE_H

#include "state.h"

/* The members are open, in the order given (a->members[0 ..
 * a->nmembers - 1]; "missing" ones too).  Decide from metadata= and what
 * the members hold whether the array is assembled from md v1.2
 * superblocks or served without metadata; check everything that must
 * agree; put the members in the places of their md roles and fail
 * those left out; fill a->meta and set params.raid's level, chunk and
 * copies to the array's; and make a->geom.  Returns 0, or -1 after one
 * nbdkit_error line naming the parameter at fault (level:, chunk:,
 * copies:, metadata:, member:).  Nothing is written to any member.
 */
extern int assemble (struct raid_array *a);

#endif /* RAID_ASSEMBLE_H */
