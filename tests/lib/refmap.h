/* raidsim tests: a brute-force reference layout, written independently of
 * raidsim/core/geometry.c so that the two can be checked against each other and
 * so that tests can say what bytes each member file must hold.
 *
 * It builds an explicit table of where every array chunk lives by walking
 * the members row by row, the way one would draw the layout on paper.
 * Slow and memory-hungry on purpose: nothing here is clever.
 */
#ifndef RAIDSIM_TESTS_REFMAP_H
#define RAIDSIM_TESTS_REFMAP_H

#include <stdint.h>

struct refmap {
  int level;                    /* 0, 1 or 10 */
  uint64_t chunk;
  unsigned nmembers;
  unsigned copies;              /* copies of each byte */
  uint64_t data_offset;
  uint64_t size;                /* array bytes */
  uint64_t nchunks;             /* array chunks (RAID 0 and 10) */
  unsigned *member;             /* [nchunks * copies] */
  uint64_t *mchunk;             /* [nchunks * copies]: chunk index on member */
};

/* level is 0, 1 or 10; copies is the RAID 10 copy count (ignored
 * otherwise).  Returns 0, or -1 if the parameters make no array.
 */
extern int refmap_init (struct refmap *r, int level, uint64_t chunk,
                        unsigned copies, uint64_t data_offset,
                        unsigned nmembers, const uint64_t *member_size);
extern void refmap_free (struct refmap *r);

/* Where copy k of array byte off lives. */
extern void refmap_locate (const struct refmap *r, uint64_t off, unsigned k,
                           unsigned *member, uint64_t *member_off);

#endif
