/* nbdkit-raid-plugin: a client's block status (extents). */

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "request.h"
#include "md/state.h"

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
