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

#include "raidsim/mdrules.h"
#include "plan.h"
#include "request.h"
#include "md/metadata.h"
#include "md/recovery.h"
#include "md/sync.h"

/* The members that have failed, as a bitmask for plan_choose. */
uint32_t
failed_members (const struct raid_array *a)
{
  uint32_t failed = 0;
  unsigned i;

  for (i = 0; i < a->nmembers; ++i)
    if (atomic_load (&a->members[i].failed))
      failed |= UINT32_C (1) << i;
  return failed;
}

/* Member failure.  Only arrays with redundancy fail a member: a RAID 0
 * has nothing to fall back to, so it returns the error.
 */
bool
is_redundant (const struct raid_array *a)
{
  return raid_geom_copies (a->geom) > 1;
}

/* Whether the array could still serve every byte with the members of
 * the bitmask failed out: md's enough () (raidsim/core/mdrules.c).
 */
bool
request_array_whole (const struct raid_array *a, uint32_t failed)
{
  return md_enough (a->geom, failed);
}

/* Fail member i after error err on op, as md does, unless the member
 * holds the last live copy of some chunk.  Linux md never fails that
 * member: raid1_error() ignores an error on the last in-sync disk and
 * raid10_error() one that would leave enough() false, "let the next
 * level up know", so that only the request fails.  Here too: a kept
 * member stays in the array, the caller fails its request with EIO, and
 * later requests go on as before.  (Since Linux 5.19 md also marks the
 * array MD_BROKEN then and refuses every later write; this plugin does
 * not, so that one transient error costs one request.)
 *
 * The check and the failure are one step under fail_lock, so that two
 * members failing at once cannot both pass it.  Returns true if member
 * i has failed (now or before), false if it is kept.  This only marks
 * it failed: fail_member below also records it in the superblocks.
 */
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

bool
request_mark_failed (struct raid_array *a, unsigned i, const char *op,
                     int err)
{
  uint32_t failed;
  unsigned live = 0, j;

  pthread_mutex_lock (&fail_lock);
  failed = failed_members (a);
  if (failed & (UINT32_C (1) << i)) {
    pthread_mutex_unlock (&fail_lock);
    return true;
  }
  /* A member being rebuilt is no live copy (recovery.h). */
  if (!request_array_whole (a, failed | recovery_unsynced (&a->rec) |
                            (UINT32_C (1) << i))) {
    pthread_mutex_unlock (&fail_lock);
    nbdkit_error ("member %u (%s): %s: %s; it holds the last live copy "
                  "of some of the array, so it is kept and the request "
                  "fails", i, a->members[i].name, op, member_strerror (err));
    return false;
  }
  atomic_store (&a->members[i].failed, true);
  pthread_mutex_unlock (&fail_lock);
  for (j = 0; j < a->nmembers; ++j)
    if (!atomic_load (&a->members[j].failed))
      live++;
  nbdkit_error ("member %u (%s) failed on %s: %s; array is degraded, "
                "%u of %u members remain", i, a->members[i].name, op,
                member_strerror (err), live, a->nmembers);
  recovery_member_failed (a, i);        /* a spare may take over */
  return true;
}

/* Fail member i, and record it in the superblocks of the members that
 * remain before going on (metadata_record), as md does: md_error marks
 * the superblocks to be written, and md completes no write that left
 * the member out until md_update_sb has written them, so that a member
 * that missed an acknowledged write is never trusted after a crash.
 * Here the request that failed the member waits for the update, and so
 * does every write that left a failed member out (write_copies).
 * Returns true if member i has failed and that is recorded (always, on
 * an array without metadata), false if it is kept (the last copy), or
 * if the superblocks could not be written: the request then fails.
 */
static bool
fail_member (struct raid_array *a, unsigned i, const char *op, int err)
{
  if (!request_mark_failed (a, i, op, err))
    return false;
  return metadata_record (a, UINT32_C (1) << i) == 0;
}

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
  range_acquire (&a->write_ranges, &hold, p->offset, p->length);
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
      fail_member (a, ios[j].member->index, "rewrite after read error",
                   ios[j].err);
    else
      nbdkit_debug ("raid: rewrote member %u offset %" PRIu64
                    " after a read error", ios[j].member->index,
                    ios[j].offset);
  }
 out:
  range_release (&a->write_ranges, &hold);
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
  uint64_t in_sync = sync_in_sync (&a->sync);
  size_t i;
  unsigned k;

  if (!a->sync.on || in_sync == UINT64_MAX)
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

  recovery_hide (a, &pl);       /* members not rebuilt there yet */
  hold_back (a, &pl);
  for (;;) {
    i = plan_choose (&pl, a->policy, &a->reads, failed_members (a));
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
      if (!is_redundant (a)) {
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
        fail_member (a, m->index, "pread", io->err);
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
  recovery_replace_write (a, &pl, op, mflags,
                          op == MOP_WRITE ? buf : NULL, offset);

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
    if (!is_redundant (a)) {
      nbdkit_error ("%s: member %u (%s) at offset %" PRIu64 ": %s",
                    op_names[op], m->index, m->name, io->offset,
                    strerror (io->err));
      err = io->err;
      continue;
    }
    /* A member that holds the last copy of some chunk is kept, and
     * then this request did not reach every live copy: it fails.
     */
    if (!fail_member (a, m->index, op_names[op], io->err))
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
   * only once the superblocks say so (see fail_member).
   */
  if (err == 0 && skipped && metadata_record (a, skipped) == -1) {
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

/* Writes, zeroes and trims: on arrays with copies, the request holds
 * its array range until its last member I/O is done (rangelock.h).
 */
static int
do_write (struct raid_array *a, enum member_op op, const char *buf,
          uint64_t count, uint64_t offset, uint32_t mflags,
          size_t *npieces)
{
  struct range_hold hold;
  bool held = is_redundant (a) && count > 0;
  int r;

  /* md's md_write_start: the superblocks say dirty before any copy is
   * written (sync.c).
   */
  if (sync_write_start (a) == -1) {
    nbdkit_error ("%s: array offset %" PRIu64 ": the superblocks could "
                  "not be marked dirty", op_names[op], offset);
    errno = EIO;
    return -1;
  }
  /* md_bitmap_startwrite: the chunks' bits are on disk first. */
  if (held && bitmap_start_write (a, offset, count) == -1) {
    sync_write_end (a);
    nbdkit_error ("%s: array offset %" PRIu64 ": the write-intent bitmap "
                  "could not be written", op_names[op], offset);
    errno = EIO;
    return -1;
  }
  if (held)
    range_acquire (&a->write_ranges, &hold, offset, count);
  r = write_copies (a, op, buf, count, offset, mflags, npieces);
  if (held) {
    range_release (&a->write_ranges, &hold);
    bitmap_end_write (a, offset, count);
  }
  sync_write_end (a);
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
  recovery_replace_flush (a);
  for (i = 0; i < n; ++i) {
    if (ios[i].err == 0)
      continue;
    if (!is_redundant (a)) {
      nbdkit_error ("flush: member %u (%s): %s", ios[i].member->index,
                    ios[i].member->name, strerror (ios[i].err));
      err = ios[i].err;
    }
    else if (!fail_member (a, ios[i].member->index, "flush", ios[i].err))
      err = EIO;
  }
  if (err == 0 && !request_array_whole (a, failed_members (a))) {
    nbdkit_error ("flush: too many members failed");
    err = EIO;
  }
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
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
          !recovery_readable (&a->rec, c->member, p->offset, p->length))
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


/* The entry points: each request holds the array's quiesce lock for
 * reading (recovery.h), so that a spare never takes over a role while a
 * request has member I/O in flight.
 */
int
request_read (struct raid_array *a, char *buf, uint64_t count,
              uint64_t offset, size_t *npieces)
{
  int r;

  recovery_enter (&a->rec);
  r = do_read (a, buf, count, offset, npieces);
  recovery_leave (&a->rec);
  return r;
}

int
request_write (struct raid_array *a, enum member_op op, const char *buf,
               uint64_t count, uint64_t offset, uint32_t mflags,
               size_t *npieces)
{
  int r;

  recovery_enter (&a->rec);
  r = do_write (a, op, buf, count, offset, mflags, npieces);
  recovery_leave (&a->rec);
  return r;
}

int
request_flush (struct raid_array *a)
{
  int r;

  recovery_enter (&a->rec);
  r = do_flush (a);
  recovery_leave (&a->rec);
  return r;
}

int
request_extents (struct raid_array *a, uint32_t count, uint64_t offset,
                 struct nbdkit_extents *extents)
{
  int r;

  recovery_enter (&a->rec);
  r = do_extents (a, count, offset, extents);
  recovery_leave (&a->rec);
  return r;
}
