/* nbdkit-raid-plugin: a client read, by the rules in the man page's
 * "Degraded mode": read one copy of every piece and go round again on
 * another copy where one fails, then rewrite the copies that failed
 * (repair).  The planning (which pieces, which copies, which runs) is
 * plan.c's; the I/O itself is member.c's.
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
#include "md/failure.h"
#include "md/state.h"

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
