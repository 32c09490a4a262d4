/* raidsim: opening an md member (a regular file or a block device) and
 * reading or writing its version 1.2 superblock, for raidsim create and
 * raidsim examine.  The superblock itself is raidsim/core/mdsb.c.
 *
 * Every function that fails prints one line to stderr, "CMD: PATH: what
 * failed: why", and returns -1.
 */
#ifndef RAIDSIM_MD_MEMBER_H
#define RAIDSIM_MD_MEMBER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "raidsim/mdsb.h"

struct md_member {
  const char *path;
  int fd;
  uint64_t size;                /* bytes */
  bool is_block;
  dev_t dev;                    /* st_dev and st_ino of a file, st_rdev */
  ino_t ino;                    /* of a block device: same one twice? */
};

/* Open path read-only, or read-write; a block device read-write is
 * opened with O_EXCL, so that one in use (mounted, or part of a running
 * array) is refused, as mdadm does.
 */
extern int md_member_open (struct md_member *m, const char *cmd,
                           const char *path, bool writable);
extern void md_member_close (struct md_member *m);

/* True if a and b are the same file or device. */
extern bool md_member_same (const struct md_member *a,
                            const struct md_member *b);

/* Read or write the MDSB_SIZE bytes at MDSB_OFFSET.  Writing also
 * fsyncs.
 */
extern int md_member_read_sb (const struct md_member *m, const char *cmd,
                              uint8_t *buf);
extern int md_member_write_sb (const struct md_member *m, const char *cmd,
                               const uint8_t *buf);

#endif /* RAIDSIM_MD_MEMBER_H */
