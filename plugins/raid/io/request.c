/* nbdkit-raid-plugin: a request's member I/O, by the rules in the man
 * page's "Degraded mode" and "Overlapping writes": read one copy of
 * every piece and go round again on another copy where one fails, then
 * rewrite the copies that failed (repair); write every live copy, and
 * fail a copy's member when its write fails; flush every member; and
 * report extents.  The planning (which pieces, which copies, which
 * runs) is plan.c's; the I/O itself is member.c's.
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

/* Rewrite the copies of piece p that failed a read, as md does, from
 * the copy that was read, and fail a copy that cannot even be
 * rewritten.  The data is read again while the piece's range is held:
 * the data the client got may already be older than a write that has
 * reached every copy since, and writing it back would undo that write
 * on the rewritten copies only.
 */
static void
repair_piece (struct raid_array *a, const struct piece *p)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  struct member_batch batch;
  struct range_hold hold;
  char *data;
  size_t j, n = 0;
  unsigned k;

  data = malloc (p->length);
  if (data == NULL) {
    nbdkit_error ("pread: array offset %" PRIu64 ": no memory to rewrite "
                  "the copies that failed: %m", p->offset);
    return;
  }
  range_acquire (a->write_ranges, &hold, p->offset, p->length);
  ios[0] = (struct member_io) {
    .op = MOP_READ, .pieces = 1, .buf = data,
    .offset = p->copy[p->chosen].offset, .length = p->length,
    .member = &a->members[p->copy[p->chosen].member], .batch = &batch,
  };
  member_run_batch_in (ios, 1, &batch);
  if (ios[0].err) {
    nbdkit_error ("pread: member %u (%s) at offset %" PRIu64 ": %s; the "
                  "copies that failed are not rewritten",
                  ios[0].member->index, ios[0].member->name, ios[0].offset,
                  strerror (ios[0].err));
    goto out;
  }
  /* A copy whose member has failed meanwhile (one found shorter than
   * at start fails at once) is not rewritten.  Nor is a copy written
   * past its member's end (MIO_NO_GROW): that would grow a truncated
   * file back as a sparse one, whose holes then read as zeros.
   */
  for (k = 0; k < p->ncopies; ++k)
    if ((p->bad & (1u << k)) &&
        !atomic_load (&a->members[p->copy[k].member].failed))
      ios[n++] = (struct member_io) {
        .op = MOP_WRITE, .flags = MIO_NO_GROW, .pieces = 1, .buf = data,
        .offset = p->copy[k].offset, .length = p->length,
        .member = &a->members[p->copy[k].member], .batch = &batch,
      };
  if (n > 0)
    member_run_batch_in (ios, n, &batch);
  for (j = 0; j < n; ++j) {
    if (ios[j].err)
      md_error (a, ios[j].member->index, "rewrite after read error",
                   ios[j].err);
    else
      nbdkit_debug ("raid: rewrote member %u offset %" PRIu64
                    " after a read error", ios[j].member->index,
                    ios[j].offset);
  }
 out:
  range_release (a->write_ranges, &hold);
  free (data);
}

static void
repair (struct raid_array *a, const struct plan *pl)
{
  size_t i;

  /* nbdkit -r: nothing is written, so a copy that failed a read stays
   * as it is (raid_preconnect has said so once).
   */
  if (atomic_load (&a->no_writes))
    return;

  for (i = 0; i < pl->npieces; ++i)
    if (pl->piece[i].bad)
      repair_piece (a, &pl->piece[i]);
}

/* Copies on members that are not in sync where a piece lies (a member
 * being rebuilt, above its position) are marked tried, so that no read
 * takes them.
 */
static void
hide_unsynced (struct raid_array *a, struct plan *pl)
{
  size_t i;
  unsigned k;

  if (md_unsynced (a) == 0)
    return;
  for (i = 0; i < pl->npieces; ++i) {
    struct piece *p = &pl->piece[i];

    for (k = 0; k < p->ncopies; ++k)
      if (!md_readable (a, p->copy[k].member, p->offset, p->length))
        p->tried |= UINT32_C (1) << k;
  }
}

/* While a resync has not reached a piece, its copies may differ: hold
 * every copy but its first live one back from the read policy, so that
 * every read of it gives the same answer whichever copy the policy
 * would have chosen, as md's read_balance does beyond its resync
 * position (and the resync then writes that copy to the others).  If
 * that copy fails the read, the others are tried after all: a copy
 * that may be out of date is better than an error, and the repair then
 * rewrites the first copy with what was read.
 */
static void
hold_back (struct raid_array *a, struct plan *pl)
{
  uint64_t in_sync = md_in_sync (a);
  size_t i;
  unsigned k;

  if (!a->resync_on || in_sync == UINT64_MAX)
    return;
  for (i = 0; i < pl->npieces; ++i) {
    struct piece *p = &pl->piece[i];
    bool first = true;

    if (p->offset + p->length <= in_sync)
      continue;
    for (k = 0; k < p->ncopies; ++k) {
      if (first && !atomic_load (&a->members[p->copy[k].member].failed) &&
          !(p->tried & (UINT32_C (1) << k))) {
        first = false;
        continue;
      }
      p->held_back |= UINT32_C (1) << k;
    }
    p->tried |= p->held_back;
  }
}

/* Read every piece from one copy, all pieces at once, the pieces that
 * are contiguous on a member as one run.  A run that fails is read again
 * piece by piece from the same copy, since which of its pieces failed is
 * not known; a piece that fails on its own goes round again on another
 * copy.  Copies that returned an error are then rewritten from the good
 * data (repair).
 */
static int
do_read (struct raid_array *a, char *buf, uint64_t count,
         uint64_t offset, size_t *npieces)
{
  struct plan pl;
  struct ioset set;
  struct member_batch batch;
  unsigned max_segs = RAID_RUN_MAX_SEGS;
  size_t i, r, s;
  bool retry;
  int err = 0;

  if (plan_build (&pl, a->geom, offset, count) == -1) {
    if (errno == ENOMEM)
      nbdkit_error ("pread: array offset %" PRIu64 ": %m", offset);
    return -1;
  }
  *npieces = pl.npieces;
  if (ioset_init (&set, pl.npieces) == -1) {
    nbdkit_error ("pread: array offset %" PRIu64 ": %m", offset);
    plan_free (&pl);
    return -1;
  }

  hide_unsynced (a, &pl);       /* members not rebuilt there yet */
  hold_back (a, &pl);
  for (;;) {
    i = plan_choose (&pl, a->policy, &a->reads, md_failed (a));
    if (i) {
      nbdkit_error ("pread: array offset %" PRIu64 ": no copy could "
                    "be read", pl.piece[i - 1].offset);
      err = EIO;
      goto out;
    }
    if (ioset_add_reads (&set, &pl) == 0)
      break;

    ioset_runs (&set, a->members, MOP_READ, 0, buf, offset, max_segs,
                &batch);
    member_run_batch_in (set.io, set.nrun, &batch);
    max_segs = 1;               /* rounds after the first are retries */

    retry = false;
    for (r = 0; r < set.nrun; ++r) {
      struct member_io *io = &set.io[r];
      struct member *m = io->member;
      struct piece *p;

      if (io->err == 0)
        continue;
      retry = true;
      if (set.run[r].nsegs > 1) {
        for (s = set.run[r].first; s != RAID_SEG_END; s = set.next[s])
          pl.piece[set.seg_piece[s]].again = true;
        continue;
      }
      p = &pl.piece[set.seg_piece[set.run[r].first]];
      if (!md_redundant (a)) {
        nbdkit_error ("pread: member %u (%s) at offset %" PRIu64 ": %s",
                      m->index, m->name, io->offset,
                      member_strerror (io->err));
        err = io->err == MEMBER_ESHRUNK ? EIO : io->err;
        continue;
      }
      if (!atomic_load (&m->failed))
        nbdkit_error ("pread: member %u (%s) at offset %" PRIu64 ": %s; "
                      "reading another copy", m->index, m->name,
                      io->offset, member_strerror (io->err));
      /* A member shorter than at start has lost data, and rewriting
       * it would grow it back with holes: it fails at once.
       */
      if (io->err == MEMBER_ESHRUNK)
        md_error (a, m->index, "pread", io->err);
      p->bad |= 1u << p->chosen;
      p->tried &= ~p->held_back;
      p->held_back = 0;
    }
    if (err)
      goto out;
    /* Every run was read: nothing is left to choose (plan_choose would
     * find every piece read and add nothing), so no second round.
     */
    if (!retry)
      break;
  }

  repair (a, &pl);

 out:
  ioset_free (&set);
  plan_free (&pl);
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
}

/* Each request holds the array's quiesce lock for reading (md/state.h),
 * so that a spare never takes over a role while a request has member
 * I/O in flight.
 */
int
request_read (struct raid_array *a, char *buf, uint64_t count,
              uint64_t offset, size_t *npieces)
{
  int r;

  md_request_enter (a);
  r = do_read (a, buf, count, offset, npieces);
  md_request_leave (a);
  return r;
}

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

/* Extents.  A byte is a hole in the array only where every copy of it
 * that can answer is a hole on its member; anything else is data.  A
 * failed member is not asked, and a member that cannot answer (its
 * connection is lost, it is shorter than at start) is passed over;
 * where no copy answers, block status fails with EIO, as a read there
 * would, rather than call data that no copy can vouch for a hole of
 * zeros: a client such as nbdcopy would skip reading it and write
 * zeros.
 */
struct extents_ctx {
  struct raid_array *a;
  struct nbdkit_extents *extents;
  unsigned pieces;
};

static int
extents_piece (const struct raid_piece *p, void *opaque)
{
  struct extents_ctx *e = opaque;
  struct raid_array *a = e->a;
  uint64_t pos = 0;

  while (pos < p->length) {
    bool all_hole = true, answered = false;
    uint64_t hole_end = p->length, data_end = p->length, next;
    uint32_t type;
    unsigned k;
    int err = EIO;

    for (k = 0; k < p->ncopies; ++k) {
      const struct raid_copy *c = &p->copy[k];
      struct member *m = &a->members[c->member];
      uint64_t end;
      int hole;

      /* A failed member's allocation says nothing about the data, nor
       * does that of one not rebuilt there yet.  member_hole looks at
       * failed again, under the member's slot lock, and holds the
       * member open against the control socket's remove (which does
       * not hold requests out of an array that cannot rebuild).
       */
      if (atomic_load (&m->failed) ||
          !md_readable (a, c->member, p->offset, p->length))
        continue;
      hole = member_hole (m, c->offset + pos, c->offset + p->length, &end);
      if (hole == -1) {
        err = errno;
        nbdkit_debug ("raid: extents: member %u (%s) at offset %" PRIu64
                      ": %s", m->index, m->name, c->offset + pos,
                      member_strerror (err));
        continue;
      }
      answered = true;
      end -= c->offset;
      if (hole) {
        if (end < hole_end)
          hole_end = end;
      }
      else {
        all_hole = false;
        if (end < data_end)
          data_end = end;
      }
    }
    if (!answered) {
      nbdkit_error ("extents: array offset %" PRIu64 ": no live copy can "
                    "answer (%s)", p->offset + pos, member_strerror (err));
      errno = EIO;
      return -1;
    }
    /* While any copy holds data, the array does; the data may go on past
     * data_end on another copy, in which case the next round adds more
     * data, which nbdkit merges.
     */
    next = all_hole ? hole_end : data_end;
    type = all_hole ? NBDKIT_EXTENT_HOLE | NBDKIT_EXTENT_ZERO : 0;
    if (next <= pos)
      next = p->length;
    if (nbdkit_add_extent (e->extents, p->offset + pos, next - pos,
                           type) == -1)
      return -1;
    pos = next;
  }
  /* The client may get fewer extents than it asked for: stop after a
   * bounded amount of work so that one request on a huge array with
   * small chunks cannot stall the server.
   */
  if (++e->pieces >= 1024)
    return 1;
  return 0;
}

static int
do_extents (struct raid_array *a, uint32_t count, uint64_t offset,
            struct nbdkit_extents *extents)
{
  struct extents_ctx e = { .a = a, .extents = extents };
  int r;

  r = raid_geom_foreach (a->geom, offset, count, extents_piece, &e);
  return r == -1 ? -1 : 0;
}


int
request_extents (struct raid_array *a, uint32_t count, uint64_t offset,
                 struct nbdkit_extents *extents)
{
  int r;

  md_request_enter (a);
  r = do_extents (a, count, offset, extents);
  md_request_leave (a);
  return r;
}
