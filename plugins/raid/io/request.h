/* nbdkit-raid-plugin: the request path below the nbdkit callbacks
 * (raid.c): a client request in, member I/O out (request.c).  Each
 * function returns 0, or -1 with errno set and the error logged.
 */
#ifndef RAID_REQUEST_H
#define RAID_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "md/state.h"

struct nbdkit_extents;

/* Whether the array has copies, and so fails members instead of
 * requests.
 */
extern bool is_redundant (const struct raid_array *a);

/* Whether every chunk keeps a live copy with the members in the
 * bitmask failed out.
 */
extern bool request_array_whole (const struct raid_array *a,
                                 uint32_t failed);

/* Mark member i failed after error err on op, as md does, unless it
 * holds the last live copy of some chunk; log it either way.  Returns
 * true if the member has failed (now or before), false if it is kept.
 * The request path also records the failure in the superblocks; this
 * is for metadata.c, which does that itself.
 */
extern bool request_mark_failed (struct raid_array *a, unsigned i,
                                 const char *op, int err);

/* The members that have failed, bit i for member i. */
extern uint32_t failed_members (const struct raid_array *a);

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

#endif
