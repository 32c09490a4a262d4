/* raidsim: what a member holds, by libblkid (raidsim/core/probe.c), for
 * both programs that write md metadata to a member: raidsim create,
 * and the plugin when it gives a new member or a spare a superblock.
 * Each refuses a member that holds a file system, a partition table or
 * another array unless told to write over it (--force, force=).
 */
#ifndef RAIDSIM_PROBE_H
#define RAIDSIM_PROBE_H

#include <stddef.h>

/* What raid_probe_signature returns when it cannot tell. */
#define RAID_PROBE_CANNOT (-1)  /* libblkid cannot probe fd */
#define RAID_PROBE_FAILED (-2)  /* its probe failed */

/* Probe the file or device open at fd for superblocks (with bad
 * checksums too) and partition tables, as blkid and wipefs do.  Returns
 * 0 and sets sig (len bytes) to "" if it holds none, else to its type
 * ("ext4", "gpt", "linux_raid_member"), "a signature" if libblkid
 * names none, or "more than one signature"; or RAID_PROBE_CANNOT or
 * RAID_PROBE_FAILED (the caller says so, naming the member).
 */
extern int raid_probe_signature (int fd, char *sig, size_t len);

#endif /* RAIDSIM_PROBE_H */
