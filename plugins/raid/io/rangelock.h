/* nbdkit-raid-plugin: the array ranges that writes hold.
 *
 * With two or more copies, two writes that overlap must not both be in
 * flight: each copy applies its member I/Os in whatever order its
 * backend finishes them, so the copies could end with different
 * winners, and later reads would return one or the other depending on
 * which copy the read policy picks.  A write (also a zero, a trim, and
 * the rewrite of a copy after a read error) holds its array range from
 * before its first member I/O until after its last; a second write
 * that overlaps it waits.  Writes that do not overlap never wait for
 * each other, and reads take no range.
 */
#ifndef RAID_RANGELOCK_H
#define RAID_RANGELOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* One held range; it lives on the stack of the request that holds it. */
struct range_hold {
  uint64_t offset, end;         /* array bytes [offset, end) */
  struct range_hold *next;
};

struct range_lock {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  struct range_hold *held;      /* every range held now */
};

extern void range_lock_init (struct range_lock *rl);
extern void range_lock_destroy (struct range_lock *rl);
/* Wait until no held range overlaps [offset, offset + length), then
 * hold it in h.  length > 0.
 */
extern void range_acquire (struct range_lock *rl, struct range_hold *h,
                           uint64_t offset, uint64_t length);
extern void range_release (struct range_lock *rl, struct range_hold *h);

/* Whether [a, a_end) and [b, b_end) share a byte: the one rule the lock
 * applies.  Ranges that only touch do not overlap.
 */
static inline bool
ranges_overlap (uint64_t a, uint64_t a_end, uint64_t b, uint64_t b_end)
{
  return a < b_end && b < a_end;
}

#endif /* RAID_RANGELOCK_H */
