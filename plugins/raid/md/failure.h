/* nbdkit-raid-plugin: md_error, the one place an I/O path fails a
 * member (failure.c): md_fail's rule (state.h), then the superblocks
 * record it before the caller goes on, as md completes no write that
 * left a member out until md_update_sb has written them, so that a
 * member that missed an acknowledged write is never trusted after a
 * crash.  The request path, the sync actions and the control socket
 * call it; the superblock and bitmap code, below it, use md_fail and
 * return what failed.
 */
#ifndef RAID_MD_FAILURE_H
#define RAID_MD_FAILURE_H

#include <stdbool.h>

struct raid_array;

/* Fail member i after error err on op (md_fail), and record it in the
 * superblocks of the members that remain (superblock_record).  Returns
 * true if member i has failed and that is recorded (always, on an
 * array without metadata), false if it is kept (the last copy) or if
 * the superblocks could not be written: a request then fails.
 */
extern bool md_error (struct raid_array *a, unsigned i, const char *op,
                      int err);

#endif /* RAID_MD_FAILURE_H */
