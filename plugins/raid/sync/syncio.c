/* nbdkit-raid-plugin: the member I/O of md's sync actions, timed by the
 * models under model=.  See syncio.h.
 */

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/geometry.h"
#include "syncio.h"
#include "model/timing.h"

void
syncio_run (struct raid_array *a, struct member_io *ios, size_t n)
{
  struct timing_member_cmd cmds[RAID_MAX_MEMBERS * 16];  /* scrub.c's most */
  uint64_t doff = raid_geom_data_offset (a->geom);
  struct timing_req tr = { .timed = false };
  size_t i, k = 0;

  if (timing_enabled ()) {
    for (i = 0; i < n && k < sizeof cmds / sizeof cmds[0]; ++i) {
      const struct member_io *io = &ios[i];

      /* A member's place in the array is its role (swap_backend moves
       * backends, not indexes); a spare slot's index is past them.
       */
      if (io->member->index >= a->nmembers || io->offset < doff ||
          (io->op != MOP_READ && io->op != MOP_WRITE &&
           io->op != MOP_ZERO))
        continue;
      cmds[k++] = (struct timing_member_cmd) {
        .member = io->member->index, .write = io->op != MOP_READ,
        .offset = io->offset - doff, .len = io->length,
      };
    }
    timing_begin_background (&tr, cmds, k);
  }
  member_run_batch (ios, n);
  timing_end (&tr);
}
