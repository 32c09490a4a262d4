/* raidsim tests: brute-force reference layout.  See refmap.h. */

#include <stdio.h>
#include <stdlib.h>

#include "refmap.h"

static void
alloc_table (struct refmap *r)
{
  r->member = calloc (r->nchunks * r->copies + 1, sizeof *r->member);
  r->mchunk = calloc (r->nchunks * r->copies + 1, sizeof *r->mchunk);
  if (!r->member || !r->mchunk) {
    perror ("refmap");
    exit (EXIT_FAILURE);
  }
}

int
refmap_init (struct refmap *r, int level, uint64_t chunk, unsigned copies,
             uint64_t data_offset, unsigned n, const uint64_t *size)
{
  uint64_t rows[64], maxrows = 0, minrows = UINT64_MAX, minbytes = UINT64_MAX;
  unsigned i;

  *r = (struct refmap) { .level = level, .chunk = chunk, .nmembers = n,
                         .data_offset = data_offset };
  if (n < 1 || n > 64)
    return -1;
  for (i = 0; i < n; ++i) {
    if (size[i] < data_offset + chunk)
      return -1;
    rows[i] = (size[i] - data_offset) / chunk;
    if (rows[i] > maxrows) maxrows = rows[i];
    if (rows[i] < minrows) minrows = rows[i];
    if (size[i] - data_offset < minbytes) minbytes = size[i] - data_offset;
  }

  switch (level) {
  case 0: {
    /* Walk member rows top to bottom; in each row, every member that
     * still has a chunk there takes the next array chunk, left to right.
     */
    uint64_t row, c = 0;

    r->copies = 1;
    for (i = 0; i < n; ++i)
      r->nchunks += rows[i];
    alloc_table (r);
    for (row = 0; row < maxrows; ++row)
      for (i = 0; i < n; ++i)
        if (rows[i] > row) {
          r->member[c] = i;
          r->mchunk[c] = row;
          c++;
        }
    r->size = r->nchunks * chunk;
    return 0;
  }
  case 1:
    r->copies = n;
    r->size = minbytes;
    return 0;
  case 10: {
    /* Deal the array chunks, each repeated `copies` times, into the
     * slots of a grid of minrows rows by n members, row by row.
     */
    uint64_t slot, nslots;

    if (copies < 2 || copies > n)
      return -1;
    r->copies = copies;
    r->nchunks = minrows * n / copies;
    nslots = r->nchunks * copies;
    alloc_table (r);
    for (slot = 0; slot < nslots; ++slot) {
      r->member[slot] = slot % n;
      r->mchunk[slot] = slot / n;
    }
    r->size = r->nchunks * chunk;
    return 0;
  }
  default:
    return -1;
  }
}

void
refmap_free (struct refmap *r)
{
  free (r->member);
  free (r->mchunk);
  r->member = NULL;
  r->mchunk = NULL;
}

void
refmap_locate (const struct refmap *r, uint64_t off, unsigned k,
               unsigned *member, uint64_t *member_off)
{
  if (r->level == 1) {
    *member = k;
    *member_off = r->data_offset + off;
  }
  else {
    uint64_t c = off / r->chunk;
    uint64_t i = c * r->copies + k;

    *member = r->member[i];
    *member_off = r->data_offset + r->mchunk[i] * r->chunk + off % r->chunk;
  }
}
