/* nbdkit-raid-plugin: the member I/O of md's sync actions (a rebuild,
 * a resync, a check or repair, a replacement), timed by the models
 * under model=.
 *
 * rebuild.c, replace.c, resync.c and scrub.c read and write members as
 * md's sync thread does.  On real drives that I/O takes the drives'
 * time and client requests queue behind it; under model= it goes to the
 * members' models too (model/timing.h, timing_begin_background) and the
 * walk waits for them, so that a rebuild of a modelled hard disk takes
 * a hard disk's time and slows the client's requests as it would.
 * Without model= syncio_run is member_run_batch.
 */
#ifndef RAID_SYNC_SYNCIO_H
#define RAID_SYNC_SYNCIO_H

#include <stddef.h>

#include "md/state.h"
#include "member/member.h"

/* Run ios (member_run_batch) and hold the caller until the models
 * have completed the reads and writes among them on the array's
 * members (not on a replacement being built, which the models do not
 * have; flushes are not timed).
 */
extern void syncio_run (struct raid_array *a, struct member_io *ios,
                        size_t n);

#endif /* RAID_SYNC_SYNCIO_H */
