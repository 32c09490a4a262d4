/* nbdkit-raid-plugin: the recovery's window of regions in flight
 * (recwindow.c), pure and tested without I/O (tests/unit/test-recwindow.c).
 *
 * The rebuild (recovery.c) hands regions of the array, in ascending
 * order, to a pool of copy threads that work on up to
 * RECOVERY_INFLIGHT of them at once and finish them in any order.  A
 * member's recovery position may only pass a region once it and every
 * region below it are copied, as md's recovery_offset only advances
 * over completed sync requests (md_do_sync waits for recovery_active
 * to drain before it records curr_resync_completed): the window gives
 * back regions from its head only, in the order they went in, each
 * once it is done.  A region done above an unfinished one waits.
 */
#ifndef RAID_RECWINDOW_H
#define RAID_RECWINDOW_H

#include <stdbool.h>
#include <stdint.h>

#define RECWINDOW_MAX 16

struct rec_region {
  uint64_t offset, len;         /* array bytes */
  uint64_t copied;              /* array bytes rebuilt (set when done) */
  bool taken;                   /* a copy thread has it */
  bool done;
  bool ok;                      /* every piece had a copy to read */
};

struct rec_window {
  struct rec_region r[RECWINDOW_MAX];
  unsigned head, count;         /* a ring: r[head], ... count of them */
};

extern void recwindow_init (struct rec_window *w);

/* Add [offset, offset + len) at the tail; the caller keeps count below
 * RECWINDOW_MAX.  Returns the region (stable until popped).
 */
extern struct rec_region *recwindow_push (struct rec_window *w,
                                          uint64_t offset, uint64_t len);

/* The lowest region no thread has taken yet, now taken; NULL if none. */
extern struct rec_region *recwindow_take (struct rec_window *w);

/* The head, if it is done: copied to *out and removed, true.  False
 * (nothing removed) if the window is empty or its head is not done,
 * whatever the regions above it are.
 */
extern bool recwindow_pop (struct rec_window *w, struct rec_region *out);

#endif /* RAID_RECWINDOW_H */
