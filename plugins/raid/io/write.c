/* nbdkit-raid-plugin: client writes, zeroes, trims and flushes, by the
 * rules in the man page's "Degraded mode" and "Overlapping writes":
 * write every live copy, and fail a copy's member when its write fails;
 * flush every member.  A replacement running is one more copy of the
 * pieces on the member it replaces (sync/replace.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "plan.h"
#include "rangelock.h"
#include "request.h"
#include "md/bitmap.h"
#include "md/failure.h"
#include "md/safemode.h"
#include "md/state.h"
#include "md/superblock.h"

/* mdadm --replace (md/state.h's repl, sync/replace.h): with the
 * write's range held, a write, zero or trim of the plan pl also goes to
 * the replacement, where the member it replaces holds a copy: one more
 * copy of those pieces, written once the live copies are.  A failure
 * gives the replacement up, and fails neither the member nor the
 * request.
 */
static void
write_replacement (struct raid_array *a, struct plan *pl, enum member_op op,
                   uint32_t flags, const char *buf, uint64_t offset)
{
  struct member_batch batch;
  struct ioset set;
  int r = atomic_load (&a->repl.role);
  size_t i, n = 0;
  unsigned k;

  if (r < 0 || atomic_load (&a->repl.stop))
    return;
  if (ioset_init (&set, pl->npieces) == -1) {
    atomic_store (&a->repl.stop, true);
    return;
  }
  for (i = 0; i < pl->npieces; ++i)
    for (k = 0; k < pl->piece[i].ncopies; ++k)
      if (pl->piece[i].copy[k].member == (unsigned) r) {
        ioset_add (&set, i, &pl->piece[i], &pl->piece[i].copy[k]);
        n++;
      }
  if (n) {
    /* A fast zero the old member took is done the slow way here. */
    ioset_runs (&set, a->members, op, flags & ~MIO_FAST, (char *) buf,
                offset, RAID_RUN_MAX_SEGS, &batch);
    for (i = 0; i < set.nrun; ++i)
      set.io[i].member = a->repl.member;
    member_run_batch_in (set.io, set.nrun, &batch);
    for (i = 0; i < set.nrun; ++i)
      if (set.io[i].err) {
        nbdkit_error ("replace: %s: %s: %s; the replacement is given up",
                      set.io[i].member->name, "write",
                      strerror (set.io[i].err));
        atomic_store (&a->repl.stop, true);
        break;
      }
  }
  ioset_free (&set);
}

/* A flush flushes the replacement too. */
static void
flush_replacement (struct raid_array *a)
{
  struct member_io io;

  if (atomic_load (&a->repl.role) < 0 || atomic_load (&a->repl.stop))
    return;
  io = (struct member_io) { .op = MOP_FLUSH, .member = a->repl.member };
  member_run_batch (&io, 1);
  if (io.err) {
    nbdkit_error ("replace: %s: flush: %s; the replacement is given up",
                  io.member->name, strerror (io.err));
    atomic_store (&a->repl.stop, true);
  }
}

/* Apply a write, zero or trim to every live copy of every piece, all at
 * once.  On a RAID 0 any error is the client's; with copies, a member
 * that fails is marked failed and the array goes on degraded as long as
 * every piece reached one copy.
 */
static int
write_copies (struct raid_array *a, enum member_op op, const char *buf,
              uint64_t count, uint64_t offset, uint32_t mflags,
              size_t *npieces)
{
  struct plan pl;
  struct ioset set;
  struct member_batch batch;
  uint32_t skipped = 0;         /* failed members this write left out */
  size_t i, r, s;
  int err = 0;

  if (plan_build (&pl, a->geom, offset, count) == -1) {
    if (errno == ENOMEM)
      nbdkit_error ("%s: array offset %" PRIu64 ": %m", op_names[op],
                    offset);
    return -1;
  }
  *npieces = pl.npieces;

  /* A member that has refused a fast zero will refuse again: say so
   * before zeroing anything, so that copies never disagree over a zero
   * the client is about to redo the slow way.
   */
  if (mflags & MIO_FAST)
    for (i = 0; i < pl.ncopies; ++i)
      if (atomic_load (&a->members[pl.copies[i].member].no_fast_zero)) {
        plan_free (&pl);
        errno = ENOTSUP;
        return -1;
      }

  if (ioset_init (&set, pl.ncopies) == -1) {
    nbdkit_error ("%s: array offset %" PRIu64 ": %m", op_names[op], offset);
    plan_free (&pl);
    return -1;
  }
  for (i = 0; i < pl.npieces; ++i) {
    struct piece *p = &pl.piece[i];
    unsigned k;
    for (k = 0; k < p->ncopies; ++k)
      if (!atomic_load (&a->members[p->copy[k].member].failed))
        ioset_add (&set, i, p, &p->copy[k]);
      else
        skipped |= UINT32_C (1) << p->copy[k].member;
  }
  ioset_runs (&set, a->members, op, mflags, op == MOP_WRITE ? (char *) buf : NULL,
              offset, RAID_RUN_MAX_SEGS, &batch);
  member_run_batch_in (set.io, set.nrun, &batch);
  /* mdadm --replace: a replacement running gets the write too. */
  write_replacement (a, &pl, op, mflags, op == MOP_WRITE ? buf : NULL,
                     offset);

  /* Count, for every piece, the copies that took it.  A run that failed
   * fails its member (or the request, on a RAID 0) whichever of its
   * pieces failed, so runs need no splitting here.
   */
  for (i = 0; i < pl.npieces; ++i)
    pl.piece[i].tried = 0;
  for (r = 0; r < set.nrun; ++r) {
    struct member_io *io = &set.io[r];
    struct member *m = io->member;
    if (io->err == 0) {
      for (s = set.run[r].first; s != RAID_SEG_END; s = set.next[s])
        pl.piece[set.seg_piece[s]].tried++;
      continue;
    }
    /* A refused fast zero is an answer, not a failed member. */
    if ((mflags & MIO_FAST) && io->err == ENOTSUP) {
      atomic_store (&m->no_fast_zero, true);
      err = ENOTSUP;
      continue;
    }
    if (!md_redundant (a)) {
      nbdkit_error ("%s: member %u (%s) at offset %" PRIu64 ": %s",
                    op_names[op], m->index, m->name, io->offset,
                    strerror (io->err));
      err = io->err;
      continue;
    }
    /* A member that holds the last copy of some chunk is kept, and
     * then this request did not reach every live copy: it fails.
     */
    if (!md_error (a, m->index, op_names[op], io->err))
      err = EIO;
  }
  if (err == 0)
    for (i = 0; i < pl.npieces; ++i)
      if (pl.piece[i].tried == 0) {
        nbdkit_error ("%s: array offset %" PRIu64 ": no live copy left",
                      op_names[op], pl.piece[i].offset);
        err = EIO;
        break;
      }
  /* The members this write left out missed it: it is acknowledged
   * only once the superblocks say so (md/failure.h).
   */
  if (err == 0 && skipped && superblock_record (a, skipped) == -1) {
    nbdkit_error ("%s: array offset %" PRIu64 ": the superblocks could "
                  "not record the failed members this write left out",
                  op_names[op], offset);
    err = EIO;
  }

  ioset_free (&set);
  plan_free (&pl);
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
}

/* md_bitmap_startwrite, and the members that failed writing the bitmap
 * recorded before the write goes on.  Returns 0 or -1.
 */
static int
start_write (struct raid_array *a, uint64_t offset, uint64_t count)
{
  uint32_t failed;
  int r = bitmap_start_write (a, offset, count, &failed);

  if (failed && superblock_record (a, failed) == -1 && r == 0) {
    bitmap_end_write (a, offset, count);
    r = -1;
  }
  return r;
}

/* Writes, zeroes and trims: on arrays with copies, the request holds
 * its array range until its last member I/O is done (rangelock.h).
 */
static int
do_write (struct raid_array *a, enum member_op op, const char *buf,
          uint64_t count, uint64_t offset, uint32_t mflags,
          size_t *npieces)
{
  struct range_hold hold;
  bool held = md_redundant (a) && count > 0;
  int r;

  /* md's md_write_start: the superblocks say dirty before any copy is
   * written (md/safemode.c).
   */
  if (safemode_write_start (a) == -1) {
    nbdkit_error ("%s: array offset %" PRIu64 ": the superblocks could "
                  "not be marked dirty", op_names[op], offset);
    errno = EIO;
    return -1;
  }
  /* md_bitmap_startwrite: the chunks' bits are on disk first, and the
   * members that failed writing them are recorded.
   */
  if (held && start_write (a, offset, count) == -1) {
    safemode_write_end (a);
    nbdkit_error ("%s: array offset %" PRIu64 ": the write-intent bitmap "
                  "could not be written", op_names[op], offset);
    errno = EIO;
    return -1;
  }
  if (held)
    range_acquire (a->write_ranges, &hold, offset, count);
  r = write_copies (a, op, buf, count, offset, mflags, npieces);
  if (held) {
    range_release (a->write_ranges, &hold);
    bitmap_end_write (a, offset, count);
  }
  safemode_write_end (a);
  return r;
}

static int
do_flush (struct raid_array *a)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  struct member_batch batch;
  unsigned i, n = 0;
  int err = 0;

  for (i = 0; i < a->nmembers; ++i)
    if (!atomic_load (&a->members[i].failed))
      ios[n++] = (struct member_io) {
        .op = MOP_FLUSH, .member = &a->members[i], .batch = &batch,
      };
  member_run_batch_in (ios, n, &batch);
  flush_replacement (a);
  for (i = 0; i < n; ++i) {
    if (ios[i].err == 0)
      continue;
    if (!md_redundant (a)) {
      nbdkit_error ("flush: member %u (%s): %s", ios[i].member->index,
                    ios[i].member->name, strerror (ios[i].err));
      err = ios[i].err;
    }
    else if (!md_error (a, ios[i].member->index, "flush", ios[i].err))
      err = EIO;
  }
  if (err == 0 && !md_whole (a, md_failed (a))) {
    nbdkit_error ("flush: too many members failed");
    err = EIO;
  }
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
}

/* Each request holds the array's quiesce lock for reading (md/state.h). */
int
request_write (struct raid_array *a, enum member_op op, const char *buf,
               uint64_t count, uint64_t offset, uint32_t mflags,
               size_t *npieces)
{
  int r;

  md_request_enter (a);
  r = do_write (a, op, buf, count, offset, mflags, npieces);
  md_request_leave (a);
  return r;
}

int
request_flush (struct raid_array *a)
{
  int r;

  md_request_enter (a);
  r = do_flush (a);
  md_request_leave (a);
  return r;
}
