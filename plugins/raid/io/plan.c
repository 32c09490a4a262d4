/* nbdkit-raid-plugin: request planning (see plan.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

static void
plan_init (struct plan *pl)
{
  pl->piece = pl->piece_inline;
  pl->cap = PLAN_INLINE;
  pl->npieces = 0;
  pl->copies = pl->copies_inline;
  pl->copies_cap = PLAN_INLINE * 2;
  pl->ncopies = 0;
}

void
plan_free (struct plan *pl)
{
  if (pl->piece != pl->piece_inline)
    free (pl->piece);
  if (pl->copies != pl->copies_inline)
    free (pl->copies);
}

static int
grow (void **arr, void *inline_arr, size_t *cap, size_t need, size_t elem)
{
  size_t ncap = *cap;
  void *n;

  if (need <= *cap)
    return 0;
  while (ncap < need)
    ncap *= 2;
  if (*arr == inline_arr) {
    n = malloc (ncap * elem);
    if (n)
      memcpy (n, *arr, *cap * elem);
  }
  else
    n = realloc (*arr, ncap * elem);
  if (n == NULL)
    return -1;
  *arr = n;
  *cap = ncap;
  return 0;
}

/* Append piece p.  The inline arrays hold every request of up to
 * PLAN_INLINE pieces, so grow is only called past them.
 */
static int
plan_add (struct plan *pl, const struct raid_piece *p)
{
  struct piece *q;

  if ((pl->npieces + 1 > pl->cap &&
       grow ((void **) &pl->piece, pl->piece_inline, &pl->cap,
             pl->npieces + 1, sizeof *pl->piece) == -1) ||
      (pl->ncopies + p->ncopies > pl->copies_cap &&
       grow ((void **) &pl->copies, pl->copies_inline, &pl->copies_cap,
             pl->ncopies + p->ncopies, sizeof *pl->copies) == -1))
    return -1;
  q = &pl->piece[pl->npieces++];
  *q = (struct piece) {
    .offset = p->offset,
    .length = p->length,
    .ncopies = p->ncopies,
    /* Stored as an index until the copies array stops moving. */
    .copy = (struct raid_copy *) (uintptr_t) pl->ncopies,
    .chosen = -1,
  };
  memcpy (&pl->copies[pl->ncopies], p->copy, p->ncopies * sizeof *p->copy);
  pl->ncopies += p->ncopies;
  return 0;
}

/* The geometry's pieces one by one (raid_geom_map, as raid_geom_foreach
 * walks them, without its callback: this runs for every request).  The
 * first map checks the whole range against the array's size.
 */
int
plan_build (struct plan *pl, const struct raid_geom *g,
            uint64_t offset, uint64_t count)
{
  struct raid_piece p;
  size_t i;

  plan_init (pl);
  while (count > 0) {
    if (raid_geom_map (g, offset, count, &p) == -1) {
      plan_free (pl);
      errno = EIO;
      return -1;
    }
    if (plan_add (pl, &p) == -1) {
      plan_free (pl);
      errno = ENOMEM;
      return -1;
    }
    offset += p.length;
    count -= p.length;
  }
  for (i = 0; i < pl->npieces; ++i)
    pl->piece[i].copy = &pl->copies[(uintptr_t) pl->piece[i].copy];
  return 0;
}

size_t
plan_choose (struct plan *pl, enum raid_read_policy policy,
             struct raid_read_state *reads, uint32_t failed)
{
  size_t i;

  for (i = 0; i < pl->npieces; ++i) {
    struct piece *p = &pl->piece[i];
    uint32_t skip;
    unsigned k;

    if (p->again) {
      p->again = false;
      p->to_read = true;
      continue;
    }
    if (p->chosen >= 0 && !(p->bad & (UINT32_C (1) << p->chosen)))
      continue;                 /* read already */
    skip = p->tried;
    for (k = 0; k < p->ncopies; ++k)
      if (failed & (UINT32_C (1) << p->copy[k].member))
        skip |= UINT32_C (1) << k;
    p->chosen = raid_read_choose (policy, reads, p->copy, p->ncopies, skip);
    if (p->chosen < 0)
      return i + 1;
    p->tried |= UINT32_C (1) << p->chosen;
    p->to_read = true;
  }
  return 0;
}

int
ioset_init (struct ioset *set, size_t cap)
{
  char *p;

  set->nseg = set->nrun = 0;
  set->heap = NULL;
  if (cap <= IOSET_INLINE) {
    set->io = set->io_inline;
    set->seg = set->seg_inline;
    set->run = set->run_inline;
    set->iov = set->iov_inline;
    set->seg_piece = set->seg_piece_inline;
    set->next = set->next_inline;
    return 0;
  }
  /* One allocation; every member has 8-byte alignment at most. */
  p = set->heap = malloc (cap * (sizeof *set->io + sizeof *set->seg +
                                 sizeof *set->run + sizeof *set->iov +
                                 2 * sizeof (size_t)));
  if (p == NULL) {
    errno = ENOMEM;
    return -1;
  }
  set->io = (void *) p;        p += cap * sizeof *set->io;
  set->seg = (void *) p;       p += cap * sizeof *set->seg;
  set->run = (void *) p;       p += cap * sizeof *set->run;
  set->iov = (void *) p;       p += cap * sizeof *set->iov;
  set->seg_piece = (void *) p; p += cap * sizeof (size_t);
  set->next = (void *) p;
  return 0;
}

void
ioset_free (struct ioset *set)
{
  free (set->heap);
}

void
ioset_add (struct ioset *set, size_t piece, const struct piece *p,
           const struct raid_copy *c)
{
  set->seg_piece[set->nseg] = piece;
  set->seg[set->nseg++] = (struct raid_seg) {
    .offset = p->offset, .length = p->length,
    .member = c->member, .member_offset = c->offset,
  };
}

size_t
ioset_add_reads (struct ioset *set, struct plan *pl)
{
  size_t i, n = 0;

  set->nseg = 0;
  for (i = 0; i < pl->npieces; ++i) {
    struct piece *p = &pl->piece[i];
    if (!p->to_read)
      continue;
    p->to_read = false;
    ioset_add (set, i, p, &p->copy[p->chosen]);
    n++;
  }
  return n;
}

void
ioset_runs (struct ioset *set, struct member *members, enum member_op op,
            uint32_t flags, char *buf, uint64_t req_offset,
            unsigned max_segs, struct member_batch *batch)
{
  size_t r, s, v = 0;

  set->nrun = raid_geom_runs (set->seg, set->nseg, max_segs, set->run,
                              set->next);
  for (r = 0; r < set->nrun; ++r) {
    const struct raid_run *run = &set->run[r];
    struct member_io *io = &set->io[r];

    *io = (struct member_io) {
      .op = op,
      .flags = flags,
      .offset = run->offset,
      .length = run->length,
      .pieces = run->nsegs,
      .member = &members[run->member],
      .batch = batch,
    };
    if (buf == NULL)
      continue;
    if (run->nsegs == 1) {
      io->buf = buf + (set->seg[run->first].offset - req_offset);
      continue;
    }
    io->iov = &set->iov[v];
    io->iovcnt = run->nsegs;
    for (s = run->first; s != RAID_SEG_END; s = set->next[s])
      set->iov[v++] = (struct iovec) {
        .iov_base = buf + (set->seg[s].offset - req_offset),
        .iov_len = set->seg[s].length,
      };
  }
}
