/* nbdkit-raid-plugin: the request path below the nbdkit callbacks
 * (raid.c): a client request in, member I/O out.  read.c reads,
 * write.c writes, zeroes, trims and flushes, extents.c answers block
 * status; the planning is plan.c's.  Each holds the array's quiesce
 * lock for reading while it runs (md/state.h).  Each function returns
 * 0, or -1 with errno set and the error logged.
 */
#ifndef RAID_IO_REQUEST_H
#define RAID_IO_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "member/member.h"

struct raid_array;
struct nbdkit_extents;

/* *npieces is set to the pieces the geometry cut the request into. */
extern int request_read (struct raid_array *a, char *buf, uint64_t count,
                         uint64_t offset, size_t *npieces);
/* op is MOP_WRITE (buf), MOP_ZERO or MOP_TRIM (buf NULL); mflags are
 * MIO_* flags.
 */
extern int request_write (struct raid_array *a, enum member_op op,
                          const char *buf, uint64_t count, uint64_t offset,
                          uint32_t mflags, size_t *npieces);
extern int request_flush (struct raid_array *a);
extern int request_extents (struct raid_array *a, uint32_t count,
                            uint64_t offset, struct nbdkit_extents *extents);

#endif /* RAID_IO_REQUEST_H */
