/* nbdkit-raid-plugin: md metadata on the members, read through the
 * members' own backends (metadata.c).  The superblock's format is the
 * core's (include/raidsim/mdsb.h); what the plugin makes of it at start
 * is assemble.c's.
 */
#ifndef RAID_METADATA_H
#define RAID_METADATA_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/mdsb.h"
#include "array.h"
#include "member.h"

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

#endif /* RAID_METADATA_H */
