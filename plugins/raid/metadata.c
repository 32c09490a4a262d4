/* nbdkit-raid-plugin: md superblocks on the members, read at config
 * time through the members' backends.  See metadata.h, and
 * include/raidsim/mdsb.h for the format.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "metadata.h"

/* md's magic numbers are at the start of every version's superblock,
 * followed by major_version: 0 for 0.90, 1 for the 1.x versions.
 */
static uint32_t
get32 (const uint8_t *p)
{
  return p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
    (uint32_t) p[3] << 24;
}

static bool
has_magic (const uint8_t *p, uint32_t major)
{
  return get32 (p) == MDSB_MAGIC && get32 (p + 4) == major;
}

/* The region of m that holds [offset, offset+length), grown to the
 * member's minimum block size (an NBD server may refuse less).
 */
static void
region (const struct member *m, uint64_t offset, uint64_t length,
        uint64_t *start, uint64_t *len)
{
  uint64_t mb = m->min_block > 1 ? m->min_block : 1;

  *start = offset & ~(mb - 1);
  *len = ((offset + length + mb - 1) & ~(mb - 1)) - *start;
}

/* Read length bytes at offset before start. */
static int
read_early (struct member *m, uint8_t *buf, uint64_t offset,
            uint64_t length)
{
  uint64_t start, len;
  uint8_t *b;
  int r;

  region (m, offset, length, &start, &len);
  if (start == offset && len == length)
    return member_read_early (m, buf, length, offset);
  b = malloc (len);
  if (b == NULL)
    return -1;
  r = member_read_early (m, b, len, start);
  if (r == 0)
    memcpy (buf, b + (offset - start), length);
  free (b);
  return r;
}

int
metadata_read (struct member *m, struct member_md *md)
{
  uint8_t buf[MDSB_SIZE];
  uint64_t size = m->size, off;

  memset (md, 0, sizeof *md);
  md->kind = MD_NONE;

  /* 1.2: 4K from the start. */
  if (size >= MDSB_OFFSET + MDSB_SIZE) {
    if (read_early (m, buf, MDSB_OFFSET, MDSB_SIZE) == -1)
      goto err;
    if (has_magic (buf, 1)) {
      md->kind = MD_V1_2;
      md->version = "1.2";
      if (mdsb_decode (buf, sizeof buf, &md->sb) == -1 ||
          mdsb_check_member (&md->sb, size / MDSB_SECTOR) == -1)
        snprintf (md->why, sizeof md->why, "%s", mdsb_error ());
      else
        md->valid = true;
      return 0;
    }
  }
  /* 1.1: at the start. */
  if (size >= MDSB_SIZE) {
    if (read_early (m, buf, 0, MDSB_SIZE) == -1)
      goto err;
    if (has_magic (buf, 1)) {
      md->kind = MD_OTHER;
      md->version = "1.1";
      return 0;
    }
  }
  /* 1.0: 8K to 12K from the end, on a 4K boundary (md's
   * (sectors - 16) & ~7).
   */
  if (size >= 3 * MDSB_SIZE) {
    off = ((size / MDSB_SECTOR - 16) & ~(uint64_t) 7) * MDSB_SECTOR;
    if (read_early (m, buf, off, MDSB_SIZE) == -1)
      goto err;
    if (has_magic (buf, 1)) {
      md->kind = MD_OTHER;
      md->version = "1.0";
      return 0;
    }
  }
  /* 0.90: 64K before the end rounded down to 64K. */
  if (size >= 2 * 65536) {
    off = (size & ~(uint64_t) 65535) - 65536;
    if (read_early (m, buf, off, MDSB_SIZE) == -1)
      goto err;
    if (has_magic (buf, 0)) {
      md->kind = MD_OTHER;
      md->version = "0.90";
      return 0;
    }
  }
  return 0;

 err:
  nbdkit_error ("member: %s: reading its md metadata: %m", m->name);
  return -1;
}
