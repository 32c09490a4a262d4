/* nbdkit-raid-plugin: the array's state, md's struct mddev (state.c).
 * The bottom of md/: what more than one part of the plugin reads about
 * the array, with no I/O: its members and geometry, their superblocks
 * as read and to be written, which members have failed and how far each
 * is in sync, the lock that holds requests out, and the sync action
 * running.  Each part keeps what only it reads in its own file (the
 * bitmap's images, the spare slots, the threads): there is one array.
 *
 * The one rule for failing a member is here too (md_fail, md's md_error
 * without the superblock update, which is md/failure.c's md_error): the
 * superblock and bitmap code below md_error use it when their own
 * writes fail, and it only marks the rebuild as needed and wakes its
 * thread, as md_error sets MD_RECOVERY_NEEDED and calls
 * md_wakeup_thread.
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
#include "member/member.h"
#include "member/stats.h"

struct range_lock;

/* The array's md metadata, when its members carry md v1.2 superblocks
 * (assemble.c reads them, superblock.c writes them).  members[] is then
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
   * then safe mode's and the resync's (0 while dirty; the resync
   * position, or MaxSector, while clean).
   */
  uint64_t resync_offset;
  uint64_t events;              /* the freshest member's, then one more
                                 * for every update */
  pthread_mutex_t lock;         /* one update at a time */
  /* The next update takes the event count one back, not one more: a
   * clean mark right after a dirty one (md's can_decrease_events).
   */
  bool rollback;
  /* The last update was only a dirty mark (safemode.c sets it, every
   * update clears it): the next clean mark may roll back.
   */
  bool can_decrease;
  /* The failed members (a bitmask) that the superblocks of every live
   * member say are out of the array: a write that skipped a failed
   * member is not acknowledged before its failure is recorded
   * (superblock_record).
   */
  _Atomic uint32_t recorded;
  bool started;                 /* the update at the first connection
                                 * is done */
  /* md's dev_number slots in use (superblocks of members and spares, and
   * the freshest role table), so that a new member gets one of its own.
   */
  uint8_t slot_used[MDSB_MAX_DEV_LIMIT / 8];
};

/* What the parts below the nbdkit glue take from the parameters, filled
 * in by raid.c: none of them reads params.
 */
struct raid_conf {
  bool force;                   /* force=: write over a signature */
  enum file_io_mode io_mode;    /* io=, timeout= and max-inflight= of the */
  unsigned timeout_ms;          /* spares, as of the members */
  unsigned max_inflight;
  uint64_t speed_min, speed_max; /* sync-speed-min= and -max=, KiB/s */
};

/* The sync action that runs, for the detail and the statistics: the
 * resync's, a rebuild's or a replacement's (a check or repair keeps its
 * own, sync/scrub.h).  Under meta.lock.
 */
struct raid_sync_status {
  const char *action;           /* "idle", "resync", "recover" */
  uint64_t done, total;         /* bytes */
  uint64_t synced;              /* bytes actually copied: less than done
                                 * with a write-intent bitmap */
  double rate;                  /* KiB/s, recent */
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
  /* Held by every write while it is in flight, on arrays with copies,
   * and by the sync actions' regions (io/rangelock.h).
   */
  struct range_lock *write_ranges;
  /* The array's minimum block size: the largest of its members' (all
   * powers of two, so every member's divides it).  1 for files.
   */
  uint32_t align;
  /* nbdkit -r, learnt at the first connection (raid_preconnect): the
   * plugin writes nothing, read repair included.
   */
  atomic_bool no_writes;
  /* The first connection has started the array (raid_preconnect): the
   * control socket's verbs that change it wait for that (ctl/verbs.c).
   */
  atomic_bool running;
  struct raid_conf conf;
  struct raid_meta meta;

  /* md metadata and copies: members can be rebuilt (spares, re-adds,
   * replacements).  Set at config time and never changed.
   */
  bool can_rebuild;
  /* Every client request holds this for reading (md_request_enter); a
   * spare taking over a role, or a member removed, holds it for writing
   * (md_suspend), so that no member I/O is in flight while the member's
   * backend changes under its role.
   */
  pthread_rwlock_t quiesce;
  /* Array bytes below which the member of each role is in sync (md's
   * recovery_offset, as an array offset); UINT64_MAX when it is in sync.
   * Read without a lock by the read path.
   */
  _Atomic uint64_t rebuilt[RAID_MAX_MEMBERS];
  _Atomic uint32_t unsynced;    /* roles whose rebuilt is not UINT64_MAX */
  /* Roles among them re-added from the write-intent bitmap (md's
   * Bitmap_sync): only chunks whose bit is set are rebuilt.
   */
  _Atomic uint32_t from_bitmap;
  /* Safe mode and the resync run (md metadata, copies, writable). */
  bool resync_on;
  /* Array bytes below which the copies are in sync (the resync's
   * position); UINT64_MAX when all are.  Read without a lock by the
   * read path.
   */
  _Atomic uint64_t in_sync;
  /* md's MD_RECOVERY_NEEDED and its thread's wait queue: md_fail and a
   * new spare set wake; the rebuild's thread (sync/rebuild.c) waits for
   * it, and for stop.  The lock also guards the spare slots
   * (md/spares.c).  running: the thread runs, so members may be added.
   */
  struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool wake, stop;
    bool running;
  } recovery;
  struct raid_sync_status status;
  /* mdadm --replace running (sync/replace.c): the member of role role
   * (-1: none) is copied to member, which every client write reaches
   * too (io/write.c), until stop.  Only the replacement's thread
   * changes role; client writes read it under the quiesce lock.
   */
  struct {
    _Atomic int role;
    struct member *member;
    _Atomic uint64_t pos;       /* array bytes copied */
    atomic_bool stop;           /* give up (a write to it failed, unload) */
  } repl;
};

#define MD_BIT(r) (UINT32_C (1) << (r))

/* The sync actions (sync/) walk the array in regions of this many
 * bytes, and record positions in whole regions.
 */
#define MD_SYNC_REGION (UINT64_C (1) << 20)

/* Before assembly: the locks, every member in sync. */
extern void md_state_init (struct raid_array *a);

/* The members that have failed, bit r for role r. */
extern uint32_t md_failed (const struct raid_array *a);

/* Whether the array has copies, and so fails members instead of
 * requests.
 */
extern bool md_redundant (const struct raid_array *a);

/* Whether every chunk keeps a live copy with the members in the bitmask
 * failed out: md's enough () (raidsim/core/mdrules.c).
 */
extern bool md_whole (const struct raid_array *a, uint32_t failed);

/* Mark member i failed after error err on op, as md does, unless it
 * holds the last live copy of some chunk; log it either way, and wake
 * the rebuild (a spare may take over).  Returns true if the member has
 * failed (now or before), false if it is kept.  Records nothing in the
 * superblocks: md_error (md/failure.h) does both, and is what the I/O
 * paths call.
 */
extern bool md_fail (struct raid_array *a, unsigned i, const char *op,
                     int err);

/* md_wakeup_thread: the rebuild's thread looks for work (a spare to
 * take in, a member to rebuild).
 */
extern void md_wake_recovery (struct raid_array *a);

/* The member offset (bytes past data_offset) below which every role in
 * set, each being rebuilt, holds good data: for model= (timing.h).
 */
extern uint64_t md_rebuilt_below (struct raid_array *a, uint32_t set);

/* Hold every client request out, and every spare takeover (the quiesce
 * lock for writing), for a change to a role's member (mddev_suspend);
 * then let them in again.  Nothing when the array cannot rebuild.
 */
extern void md_suspend (struct raid_array *a);
extern void md_resume (struct raid_array *a);

/* Roles whose members are not in sync, as a bitmask. */
static inline uint32_t
md_unsynced (const struct raid_array *a)
{
  return atomic_load_explicit (&a->unsynced, memory_order_acquire);
}

/* Whether role r's member holds [offset, offset + length) of the array
 * in sync (array offsets): md's read_balance skips a member that is not
 * In_sync beyond its recovery_offset.
 */
static inline bool
md_readable (const struct raid_array *a, unsigned r, uint64_t offset,
             uint64_t length)
{
  if (!(md_unsynced (a) & MD_BIT (r)))
    return true;
  return offset + length <=
    atomic_load_explicit (&a->rebuilt[r], memory_order_acquire);
}

/* The array bytes at and above which a read must take the first live
 * copy; UINT64_MAX if every copy is in sync.
 */
static inline uint64_t
md_in_sync (const struct raid_array *a)
{
  return atomic_load_explicit (&a->in_sync, memory_order_acquire);
}

/* Around every client request (io/). */
static inline void
md_request_enter (struct raid_array *a)
{
  if (a->can_rebuild)
    pthread_rwlock_rdlock (&a->quiesce);
}

static inline void
md_request_leave (struct raid_array *a)
{
  if (a->can_rebuild)
    pthread_rwlock_unlock (&a->quiesce);
}

#endif /* RAID_MD_STATE_H */
