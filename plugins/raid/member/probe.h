/* nbdkit-raid-plugin: what a member holds (probe.c), before the plugin
 * gives it a superblock of its own (a new member, a spare, a
 * replacement): the core's libblkid probe (raidsim/core/probe.c, as
 * raidsim create's) on a copy of its first and last MiB.
 */
#ifndef RAID_MEMBER_PROBE_H
#define RAID_MEMBER_PROBE_H

#include <stdbool.h>

struct member;

/* Whether member m, which holds no md metadata, may be given a new
 * superblock: libblkid finds no signature on it (and, with need_zeros,
 * its first and last MiB read as zeros: a member given in the member
 * list, where a raw member of an array without metadata would otherwise
 * pass), or force (force=) is given.  Returns 0, or -1 after one
 * nbdkit_error line naming the member and what it holds (what is
 * "member:" or "spare:"), errno EMEDIUMTYPE if it holds something.
 */
extern int member_check_blank (struct member *m, const char *what,
                               bool need_zeros, bool force);

#endif /* RAID_MEMBER_PROBE_H */
