/* nbdkit-raid-plugin: the array being served.  One instance, made by
 * raid_config_complete (raid.c) and read-only after it but for the
 * atomics and locks inside, is shared by every connection and request.
 */
#ifndef RAID_MD_STATE_H
#define RAID_MD_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "raidsim/geometry.h"
#include "raidsim/mdsb.h"
#include "raidsim/readpolicy.h"
#include "bitmap.h"
#include "recovery.h"
#include "sync.h"
#include "io/rangelock.h"
#include "member/member.h"
#include "member/stats.h"
#include "sync/scrub.h"

/* The array's md metadata, when its members carry md v1.2 superblocks
 * (assemble.c reads them, metadata.c writes them).  members[] is then
 * in the order of the md roles: members[r] holds role r.
 */
struct raid_meta {
  bool on;                      /* false: a superblock-less array */
  /* Each member's superblock as read at start, by role.  Only members
   * in the array are written: neither missing nor left out as stale at
   * assembly (they may fail later, and are then written no more).
   */
  struct mdsb sb[RAID_MAX_MEMBERS];
  bool in_array[RAID_MAX_MEMBERS];
  uint32_t max_dev;             /* the freshest member's role table */
  /* What the superblocks are to say: the freshest member's as read, and
   * then sync.c's (0 while dirty; the resync position, or MaxSector,
   * while clean).
   */
  uint64_t resync_offset;
  uint64_t events;              /* the freshest member's, then one more
                                 * for every update */
  pthread_mutex_t lock;         /* one update at a time */
  /* The next update takes the event count one back, not one more: a
   * clean mark right after a dirty one (md's can_decrease_events).
   */
  bool rollback;
  /* The failed members (a bitmask) that the superblocks of every live
   * member say are out of the array: a write that skipped a failed
   * member is not acknowledged before its failure is recorded
   * (metadata_record).
   */
  _Atomic uint32_t recorded;
  bool started;                 /* the update at the first connection
                                 * is done */
};

struct raid_array {
  struct member members[RAID_MAX_MEMBERS];
  unsigned nmembers;
  struct raid_geom *geom;
  enum raid_read_policy policy;
  /* The copy choice's state: each member's load, which member.c keeps
   * up to date through member.load, and round-robin's counter.
   */
  struct raid_read_state reads;
  struct io_stats stats;        /* client requests */
  /* Held by every write while it is in flight, on arrays with copies. */
  struct range_lock write_ranges;
  /* The array's minimum block size: the largest of its members' (all
   * powers of two, so every member's divides it).  1 for files.
   */
  uint32_t align;
  /* nbdkit -r, learnt at the first connection (raid_preconnect): the
   * plugin writes nothing, read repair included.
   */
  atomic_bool no_writes;
  struct raid_meta meta;
  struct raid_sync sync;        /* safe mode and resync (sync.h) */
  struct raid_recovery rec;     /* rebuilds and spares (recovery.h) */
  struct raid_scrub scrub;      /* check and repair (scrub.h) */
  /* The first connection has started the array (raid_preconnect): the
   * control socket's verbs that change it wait for that (control.c).
   */
  atomic_bool running;
  struct raid_bitmap bitmap;    /* md's write-intent bitmap (bitmap.h) */
};

#endif
