/* nbdkit-raid-plugin: md's recovery (the rebuild of a member that is in
 * the array but not in sync) and hot spares (recovery.c).
 *
 * Which members are rebuilt, as Linux md and mdadm do it:
 *
 *   - a stale member of this array, given on the command line (its
 *     events are behind, or the freshest superblock lists it faulty or
 *     out), or added while serving (recovery_add) into its own role
 *     when that role is failed or empty: re-added, as mdadm --re-add.
 *     With a write-intent bitmap that still marks every write it
 *     missed (its events are not older than the bitmap's
 *     events_cleared, bitmap.h), only the chunks whose bits are set are
 *     rebuilt, as md's Bitmap_sync recovery; its superblock then says
 *     so (MDSB_FEATURE_RECOVERY_BITMAP beside the recovery offset), and
 *     a restart goes on the same way.  Otherwise it is a full recovery
 *     from array offset 0 (given at start), or it becomes a spare with
 *     a superblock of its own (added while serving), as md's hot-add of
 *     a member too old for the bitmap;
 *   - a blank member (no signature that libblkid knows, no md metadata)
 *     given where a member of the array is missing: a new member, as
 *     mdadm --add of a blank disk to a degraded array; it gets a
 *     superblock of its own (a new dev_number and device UUID) in the
 *     missing member's role.  A member holding a file system, a
 *     partition table or any other signature is refused unless force=
 *     is given, so that a typo never overwrites data; a member of
 *     another md array is always refused;
 *   - a member whose superblock records a recovery in progress
 *     (MDSB_FEATURE_RECOVERY_OFFSET): the recovery goes on from its
 *     recovery_offset, as md's super_1_validate takes it, and nothing
 *     above it is ever read;
 *   - a replacement (recovery_replace, mdadm --replace): a spare
 *     rebuilt from a live member in sync, which keeps serving, and put
 *     in that member's role once in sync;
 *   - a hot spare (spare=, or recovery_add): a member whose superblock
 *     gives it the spare role (0xffff), written if it was blank.  When a
 *     member fails (an I/O error, a timeout) or is missing, a spare
 *     takes over its role and is rebuilt, as md's
 *     remove_and_add_spares.
 *
 * The rebuild (md_do_sync's recovery): a background thread walks the
 * array in RECOVERY_REGION regions, up to RECOVERY_INFLIGHT of them
 * in flight, copied by a pool of threads (recwindow.h), each holding its
 * region's array range (rangelock.h) so that no client write races
 * it; a position passes a region only once every region below it is
 * copied too.  Each region: it reads every piece
 * from a copy that is in sync and writes it to the copies on the members
 * being rebuilt.  Client writes go to a member being rebuilt as to any
 * other; reads are served from it only below its recovery position,
 * as md's read_balance skips a member that is not In_sync beyond its
 * recovery_offset.  Such a member does not count as a live copy: the
 * last in-sync copy of a chunk is never failed.  Its superblock
 * records the position (recovery_offset, in member sectors, with the
 * feature bit) every 1/16 of the array, so that a restart goes on from
 * there; when the walk ends, the bit is cleared and the member is in
 * sync, with one more event in every superblock.
 *
 * One sync action at a time, as md: a resync (sync.c) finishes before a
 * recovery starts.  The walk is throttled as the resync is, by
 * sync-speed-min= and sync-speed-max= (md's speed_limit_min/max): at
 * most max, and at most min while clients are doing I/O.  Progress is
 * in the log and in the statistics (sync.action "recover").
 */
#ifndef RAID_RECOVERY_H
#define RAID_RECOVERY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "raidsim/geometry.h"
#include "raidsim/mdsb.h"
#include "raidsim/readpolicy.h"
#include "member/member.h"

#define RECOVERY_REGION (UINT64_C (1) << 20)
/* Regions in flight at once (the window, recwindow.h; at most
 * RECWINDOW_MAX), and the threads that copy them: the walk's own and
 * RECOVERY_COPIERS - 1 of a pool started for each pass.  On tmpfs a
 * member I/O runs in the thread that asks for it, so one thread alone
 * leaves the other core idle, while the reads of one region overlap
 * the writes of another; writes into one file take its inode lock in
 * turn, so more copiers than cores only spin on it (2 beat 3 and 4 on
 * this 2-core machine, docs/performance.md).  A window wider than the
 * copiers keeps a copier that finishes from waiting for the walk to
 * pop.  The throttle is looked at every RECOVERY_INFLIGHT regions.
 */
#ifndef RECOVERY_INFLIGHT
#define RECOVERY_INFLIGHT 4
#endif
#ifndef RECOVERY_COPIERS
#define RECOVERY_COPIERS 2
#endif
#define RAID_MAX_SPARES 8

struct raid_array;
struct plan;

enum spare_state {
  SPARE_FREE,                   /* slot unused */
  SPARE_READY,                  /* a spare, waiting for a role */
  SPARE_OLD,                    /* holds what a spare replaced in a
                                 * missing role, or a member left out
                                 * at assembly: closed at unload */
  SPARE_FAULTY,                 /* holds a faulty member that a spare
                                 * (or a replacement, or a re-added
                                 * member) replaced: md lists it as
                                 * faulty until mdadm --remove
                                 * (recovery_replaced), closed then or
                                 * at unload */
  SPARE_REPLACING,              /* being rebuilt as a live member's
                                 * replacement (recovery_replace) */
};

struct raid_recovery {
  /* md metadata and copies: members can be rebuilt.  Set at config time
   * and never changed.
   */
  bool on;
  /* Every client request holds this for reading; a spare taking over a
   * role holds it for writing, so that no member I/O is in flight while
   * the member's backend changes under its role.
   */
  pthread_rwlock_t quiesce;
  /* Array bytes below which the member of each role is in sync;
   * UINT64_MAX when it is in sync.  Read without a lock by the read
   * path.
   */
  _Atomic uint64_t pos[RAID_MAX_MEMBERS];
  _Atomic uint32_t unsynced;    /* roles whose pos is not UINT64_MAX */
  /* Roles among them re-added from the write-intent bitmap (md's
   * Bitmap_sync): only chunks whose bit is set are rebuilt.
   */
  _Atomic uint32_t from_bitmap;
  uint32_t readd_at_start;      /* config time: stale members re-added */

  /* Under lock: */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool wake, stop, thread_started;
  pthread_t thread;
  struct member spare[RAID_MAX_SPARES];
  struct raid_member_load spare_load[RAID_MAX_SPARES];
  struct mdsb spare_sb[RAID_MAX_SPARES];
  enum spare_state state[RAID_MAX_SPARES];
  unsigned replaced_role[RAID_MAX_SPARES];  /* SPARE_FAULTY: its role */
  bool spare_sb_written[RAID_MAX_SPARES];
  /* md's dev_number slots in use (superblocks of members and spares, and
   * the freshest role table), so that a new member gets one of its own.
   */
  uint8_t slot_used[MDSB_MAX_DEV_LIMIT / 8];
  bool started;
  /* Every name a spare slot was opened with (strdup'd by spare_open),
   * freed only by recovery_close.  A takeover swaps names between a
   * role and a slot, and another thread (the statistics, the log) may
   * be reading a role's name meanwhile, so none is freed while the
   * plugin runs; one per add, bounded by what the user adds.
   */
  char **names;
  size_t nnames;

  /* mdadm --replace (recovery_replace): the member of role repl_role
   * (-1: none) is copied to spare slot repl_slot while it serves.  Only
   * the replacement's thread changes repl_role; client writes read it
   * under the quiesce lock.
   */
  _Atomic int repl_role;
  unsigned repl_slot;
  _Atomic uint64_t repl_pos;    /* array bytes copied */
  atomic_bool repl_stop;        /* give up (a write to it failed, unload) */
  bool repl_thread_started;
  pthread_t repl_thread;
};

/* ---- at config time (raid.c, assemble.c) --------------------------- */

/* Before assembly: set up the locks. */
extern void recovery_init (struct raid_array *a);

/* Assembly (assemble.c) found that role r is to be rebuilt: a stale
 * member re-added, a blank one (new, its superblock in a->meta.sb[r]
 * built by recovery_new_sb), or one whose superblock records a recovery in
 * progress.  Call after the array's geometry is made and a->meta is
 * filled.  The member is not failed from now on; nothing above its
 * recovery position is read.
 */
enum recovery_kind { RECOVERY_READD, RECOVERY_NEW, RECOVERY_RESUME };
extern void recovery_assembled (struct raid_array *a, unsigned r,
                                enum recovery_kind kind);

/* After bitmap_assemble: whether each member re-added at assembly (or
 * resuming a recovery that its superblock says was from the bitmap) is
 * rebuilt from the bitmap or in full, as md's super_1_validate decides
 * (bitmap.h, bitmap_readd_ok); logged.
 */
extern void recovery_assembled_bitmap (struct raid_array *a);

/* A superblock for a member new to the array, from the array's ref:
 * its own dev_number (a slot no member uses) and device UUID, data_size
 * from its size.  role is its role, or MDSB_ROLE_SPARE.  Returns 0, or
 * -1 after nbdkit_error (too small, no slot).
 */
extern int recovery_new_sb (struct raid_array *a, const struct mdsb *ref,
                            const struct member *m, unsigned role,
                            struct mdsb *sb);

/* Mark dev_number slots in use: every slot of the freshest role table
 * that is not 0xffff, and each present member's own (assemble.c).
 */
extern void recovery_slots_from (struct raid_array *a, const struct mdsb *sb);

/* After assembly: open the spares given with spare= and check them.
 * Returns 0, or -1 after nbdkit_error ("spare: ...").
 */
extern int recovery_config (struct raid_array *a);

/* ---- while serving ---------------------------------------------------- */

/* raid_after_fork: start the spares' backends. */
extern int recovery_after_fork (struct raid_array *a);
/* raid_preconnect, before metadata_start: nbdkit -r holds the spares
 * read-only too.
 */
extern void recovery_preconnect (struct raid_array *a, bool readonly);
/* raid_preconnect, after sync_start: write the spares' superblocks and
 * start the recovery thread (if anything may be written).  Returns 0,
 * or -1 after nbdkit_error.
 */
extern int recovery_start (struct raid_array *a);
/* raid_unload, before sync_stop: stop the thread, leaving each member's
 * recovery position in a->meta for the last superblock update.
 */
extern void recovery_stop (struct raid_array *a);
/* raid_unload, after the members: close the spares. */
extern void recovery_close (struct raid_array *a);

/* model= (timing.h): the member offset (bytes past data_offset) below
 * which every role in set, each being rebuilt, holds good data.
 */
extern uint64_t recovery_rebuilt_below (struct raid_array *a, uint32_t set);

/* request.c: member i has just failed; a spare may take over. */
extern void recovery_member_failed (struct raid_array *a, unsigned i);

/* request.c: copies on members that are not in sync where a piece lies
 * are marked tried, so that no read takes them.
 */
extern void recovery_hide (struct raid_array *a, struct plan *pl);

/* Add a member while the array is served, from any thread: the live
 * control's "add" (mdadm --add).  member is a file, device or NBD URI.
 * It must be blank (no signature; force= lets any but an md member of
 * another array through), or hold a superblock of this array.  A member
 * whose superblock gives it a role that is failed or empty now, and
 * whose events the write-intent bitmap still covers (bitmap_readd_ok),
 * is re-added into that role with its own superblock, and only the
 * chunks whose bits are set are rebuilt (mdadm --re-add).  Any other
 * becomes a spare with a superblock of its own, and at once takes over
 * a role that is failed or missing, if there is one, and is rebuilt in
 * full.
 * replace_now: it must take over a failed or missing role now; if no
 * role is failed or missing it is not added (EBUSY).
 *
 * Returns 0 once the member is a spare (the takeover and the rebuild go
 * on in the background), 1 once it is re-added into its role (the
 * rebuild goes on in the background), or -1 with errno set after one
 * nbdkit_error
 * line: EINVAL (an array without md metadata or copies, or a bad name),
 * EROFS (nbdkit -r, or not started yet: no client has connected),
 * ENOSPC (RAID_MAX_SPARES spares already), EEXIST (the member is
 * already in the array or a spare), EBUSY (replace_now and nothing to
 * replace), EMEDIUMTYPE (a signature, or a member of another array),
 * EFBIG (too small), or the errno of opening or writing it.
 */
extern int recovery_add (struct raid_array *a, const char *member,
                         bool replace_now);

/* The faulty members that spares replaced: md keeps each in the array
 * as a faulty device, out of any role, until mdadm --remove ("(F)" in
 * /proc/mdstat, "faulty" with RaidDevice "-" in mdadm --detail).  For
 * spare slot j: its name as given, and in *role the role it had; NULL
 * if slot j holds none.  From the control socket's thread, which alone
 * removes them.
 */
extern const char *recovery_replaced (struct raid_array *a, unsigned j,
                                      unsigned *role);
/* mdadm --remove of such a member (the control socket's remove): it is
 * closed, its slot freed, and the superblocks updated (one event on, as
 * md's hot remove).  Returns 0, or -1 if the update failed (the member
 * is removed all the same).
 */
extern int recovery_remove_replaced (struct raid_array *a, unsigned j);

/* mdadm --replace OLD --with NEW (the live control's "add NEW --replace
 * OLD"): member, opened and checked as recovery_add's, becomes a spare
 * with a superblock of its own and is rebuilt as the replacement of
 * role r's member, which must be live and in sync, while that member
 * keeps serving: reads go to it, client writes go to it and to the
 * replacement.  When the copy is done (and flushed), the replacement
 * takes role r, and the old member is out of the array: faulty, listed
 * (recovery_replaced) until removed, as md marks it faulty once its
 * replacement is in sync.  If the old member fails, or a write to the
 * replacement fails, or the server stops first, the replacement is
 * given up and stays a spare.  One replacement at a time, and not while
 * a resync or rebuild runs.  If role r is failed or missing, this is
 * recovery_add (member, true), and returns what it does.  Returns 2
 * once the copy has started, or -1 with errno as recovery_add's, EBUSY
 * for a replacement, a rebuild or a resync running.
 */
extern int recovery_replace (struct raid_array *a, const char *member,
                             unsigned r);

/* request.c, with the write's range held: a write, zero or trim of the
 * plan pl also goes to the replacement, where the member it replaces
 * holds a copy; and a flush flushes it.  A failure gives the
 * replacement up.  Nothing when no replacement runs.
 */
extern void recovery_replace_write (struct raid_array *a, struct plan *pl,
                                    enum member_op op, uint32_t flags,
                                    const char *buf, uint64_t offset);
extern void recovery_replace_flush (struct raid_array *a);

/* For the control socket's detail: the replacement running, if any. */
struct replace_view {
  bool on;
  unsigned role;
  const char *name;
  uint64_t done, total;
};
extern void recovery_replace_view (struct raid_array *a,
                                   struct replace_view *v);

/* Hold every client request and every spare takeover out (the quiesce
 * lock for writing), for a change to a role's member from outside this
 * file (the control socket's remove); then release.  Nothing when the
 * array cannot rebuild.
 */
extern void recovery_hold (struct raid_array *a);
extern void recovery_release (struct raid_array *a);

/* Roles whose members are not in sync, as a bitmask. */
static inline uint32_t
recovery_unsynced (const struct raid_recovery *rec)
{
  return atomic_load_explicit (&rec->unsynced, memory_order_acquire);
}

/* Whether role r's member holds [offset, offset + length) of the array
 * in sync (array offsets).
 */
static inline bool
recovery_readable (const struct raid_recovery *rec, unsigned r,
                   uint64_t offset, uint64_t length)
{
  if (!(recovery_unsynced (rec) & (UINT32_C (1) << r)))
    return true;
  return offset + length <=
    atomic_load_explicit (&rec->pos[r], memory_order_acquire);
}

/* Around every client request (request.c). */
static inline void
recovery_enter (struct raid_recovery *rec)
{
  if (rec->on)
    pthread_rwlock_rdlock (&rec->quiesce);
}

static inline void
recovery_leave (struct raid_recovery *rec)
{
  if (rec->on)
    pthread_rwlock_unlock (&rec->quiesce);
}

#endif /* RAID_RECOVERY_H */
