/* nbdkit-raid-plugin: request planning.  A request's plan is the pieces
 * the geometry cuts it into (raid_geom_map, piece by piece), each with
 * its copies; plan_choose picks the copy every piece of a read takes (the core's
 * raid_read_choose); an ioset then groups the pieces that are contiguous
 * on one member into runs (raid_geom_runs), one member I/O each.
 *
 * No I/O and no nbdkit calls: the functions here report failure through
 * errno, so that tests/unit/test-copy-choice.c can drive them beside the
 * simulator's RAID layer and check that both choose the same copies.
 */
#ifndef RAID_PLAN_H
#define RAID_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "raidsim/geometry.h"
#include "raidsim/readpolicy.h"
#include "member/member.h"

/* One piece, copied out of the geometry with only as many copies as it
 * has.
 */
struct piece {
  uint64_t offset;              /* array offset */
  uint64_t length;
  unsigned ncopies;
  struct raid_copy *copy;
  uint32_t tried, bad;          /* copy bitmasks, for reads */
  uint32_t held_back;           /* copies a read passes over only
                                 * because a resync has not reached
                                 * them (request.c) */
  int chosen;
  bool again;                   /* read chosen again, on its own */
  bool to_read;                 /* read in this round (plan_choose) */
};

#define PLAN_INLINE 16

/* Small requests fit the inline arrays. */
struct plan {
  struct piece *piece;
  size_t npieces, cap;
  struct raid_copy *copies;
  size_t ncopies, copies_cap;
  struct piece piece_inline[PLAN_INLINE];
  struct raid_copy copies_inline[PLAN_INLINE * 2];
};

/* Cut [offset, offset+count) into pieces.  Returns 0, or -1 with errno
 * EIO (out of the array) or ENOMEM.
 */
extern int plan_build (struct plan *pl, const struct raid_geom *g,
                       uint64_t offset, uint64_t count);
extern void plan_free (struct plan *pl);

/* Choose a copy for every piece of a read that needs one: those not read
 * yet, and those whose chosen copy failed.  A copy is a candidate if
 * this request has not tried it and its member is not in failed (a
 * bitmask of members).  Every piece is chosen before any member I/O is
 * issued, so a piece with no copy left fails the request with nothing
 * in flight.  Returns 0, or the index + 1 of the first piece with no
 * candidate left.
 */
extern size_t plan_choose (struct plan *pl, enum raid_read_policy policy,
                           struct raid_read_state *reads, uint32_t failed);

/* A request's member I/Os: the segments (a piece on the copy it uses),
 * the runs raid_geom_runs groups them into, and one member_io per run,
 * whose iovec, for a run of several pieces, points into the client's
 * buffer.  Small requests fit the inline arrays.
 */
#define IOSET_INLINE 16

struct ioset {
  size_t nseg, nrun;
  struct raid_seg *seg;
  size_t *seg_piece;            /* the plan's piece of each segment */
  size_t *next;
  struct raid_run *run;
  struct member_io *io;
  struct iovec *iov;
  void *heap;
  struct member_io io_inline[IOSET_INLINE];
  struct raid_seg seg_inline[IOSET_INLINE];
  struct raid_run run_inline[IOSET_INLINE];
  struct iovec iov_inline[IOSET_INLINE];
  size_t seg_piece_inline[IOSET_INLINE], next_inline[IOSET_INLINE];
};

/* Room for cap segments, and so for cap runs.  Returns 0, or -1 with
 * errno ENOMEM.
 */
extern int ioset_init (struct ioset *set, size_t cap);
extern void ioset_free (struct ioset *set);
/* Segment: piece number piece (p) on copy c. */
extern void ioset_add (struct ioset *set, size_t piece,
                       const struct piece *p, const struct raid_copy *c);
/* The segments of the pieces plan_choose marked to_read, each on its
 * chosen copy.  Returns how many were added.
 */
extern size_t ioset_add_reads (struct ioset *set, struct plan *pl);
/* Group the segments into runs of at most max_segs and fill one
 * member_io per run, on members[run.member].  buf is the client's
 * buffer, which starts at array offset req_offset, or NULL for zero and
 * trim.
 */
extern void ioset_runs (struct ioset *set, struct member *members,
                        enum member_op op, uint32_t flags,
                        char *buf, uint64_t req_offset, unsigned max_segs,
                        struct member_batch *batch);

#endif
