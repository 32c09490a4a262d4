/* nbdkit-raid-plugin: md's recovery and hot spares.  See recovery.h for
 * what they do; here, how.
 *
 * Positions.  While serving, a member's recovery position is an array
 * offset (rec.pos[r]): the walk goes through the array in order, and
 * every layout raidsim serves with copies (RAID 1, RAID 10 near) puts a
 * member's pieces in the same order on the member as in the array, so
 * "rebuilt below array offset P" is "rebuilt below the member offset of
 * its first piece at or after P".  That member offset, in sectors from
 * data_offset, is md's recovery_offset in the superblock (member_pos);
 * at a restart it is turned back into the largest array offset whose
 * pieces on the member all lie below it (array_pos).
 *
 * A spare taking over.  A member's struct stays in its role's place in
 * a->members[], since the geometry, the read state and every bitmask
 * name members by role; what moves is its backend (ops, priv, name,
 * size ...): the failed member's goes to the spare's slot, the spare's
 * to the role.  That happens only with every client request held out
 * (rec.quiesce for writing) and under meta.lock, so that no member I/O
 * is in flight on either and no superblock update runs meanwhile.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/mdrules.h"
#include "state.h"
#include "metadata.h"
#include "params.h"
#include "recovery.h"
#include "io/plan.h"
#include "io/request.h"
#include "member/probe.h"
#include "sync/recwindow.h"
#include "sync/syncio.h"
#include "sync/throttle.h"

/* -D raid.recovery=1 logs every recovery region (nbdkit -v). */
NBDKIT_DLL_PUBLIC int raid_debug_recovery = 0;

#define BIT(r) (UINT32_C (1) << (r))

void
recovery_init (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  pthread_rwlockattr_t attr;
  unsigned r;

  /* Writer first: a takeover must not wait for a pause in the load. */
  pthread_rwlockattr_init (&attr);
  pthread_rwlockattr_setkind_np (&attr,
                                 PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init (&rec->quiesce, &attr);
  pthread_rwlockattr_destroy (&attr);
  pthread_mutex_init (&rec->lock, NULL);
  pthread_cond_init (&rec->cond, NULL);
  for (r = 0; r < RAID_MAX_MEMBERS; ++r)
    atomic_store (&rec->pos[r], UINT64_MAX);
  atomic_store (&rec->unsynced, 0);
  atomic_store (&rec->repl_role, -1);
}

/* ---- positions ------------------------------------------------------ */

/* The member offset (bytes from data_offset) below which role r holds
 * nothing of the array at or above array offset p: md's recovery_offset
 * (raidsim/core/mdrules.c).
 */
static uint64_t
member_pos (const struct raid_array *a, unsigned r, uint64_t p)
{
  return md_recovery_offset (a->geom, r, p);
}

uint64_t
recovery_rebuilt_below (struct raid_array *a, uint32_t set)
{
  uint64_t below = UINT64_MAX;
  unsigned r;

  for (r = 0; r < a->nmembers; ++r)
    if (set & BIT (r)) {
      uint64_t m = member_pos (a, r, atomic_load (&a->rec.pos[r]));

      if (m < below)
        below = m;
    }
  return below;
}

/* The largest array offset, a multiple of RECOVERY_REGION, below which
 * every piece on role r lies below member offset m (bytes from
 * data_offset): where a recovery recorded as m goes on.
 */
static uint64_t
array_pos (const struct raid_array *a, unsigned r, uint64_t m)
{
  return md_recovery_resume (a->geom, r, m, RECOVERY_REGION);
}

/* ---- superblocks of new members ------------------------------------ */

static bool
slot_used (const struct raid_recovery *rec, unsigned d)
{
  return rec->slot_used[d / 8] & (1u << (d % 8));
}

static void
use_slot (struct raid_recovery *rec, unsigned d)
{
  if (d < MDSB_MAX_DEV_LIMIT)
    rec->slot_used[d / 8] |= 1u << (d % 8);
}

void
recovery_slots_from (struct raid_array *a, const struct mdsb *sb)
{
  unsigned d;

  for (d = 0; d < sb->max_dev && d < MDSB_MAX_DEV_LIMIT; ++d)
    if (sb->dev_roles[d] != MDSB_ROLE_SPARE)
      use_slot (&a->rec, d);
  use_slot (&a->rec, sb->dev_number);
}

int
recovery_new_sb (struct raid_array *a, const struct mdsb *ref,
                 const struct member *m, unsigned role, struct mdsb *sb)
{
  struct raid_recovery *rec = &a->rec;
  uint64_t need = ref->data_offset * MDSB_SECTOR +
    mdsb_used_sectors (ref) * MDSB_SECTOR;
  unsigned d;

  if (m->size < need) {
    nbdkit_error ("member: %s: %" PRIu64 " bytes is too small to take a "
                  "place in this array: each member needs %" PRIu64,
                  m->name, m->size, need);
    errno = EFBIG;
    return -1;
  }
  for (d = 0; d < MDSB_MAX_DEV_LIMIT && slot_used (rec, d); ++d)
    ;
  if (d == MDSB_MAX_DEV_LIMIT) {
    nbdkit_error ("member: %s: no free slot in the array's role table",
                  m->name);
    errno = ENOSPC;
    return -1;
  }
  use_slot (rec, d);
  *sb = *ref;
  sb->dev_number = d;
  if (d >= sb->max_dev)
    sb->max_dev = d + 1;
  if (sb->max_dev > a->meta.max_dev)
    a->meta.max_dev = sb->max_dev;
  if (getrandom (sb->device_uuid, sizeof sb->device_uuid, 0) !=
      (ssize_t) sizeof sb->device_uuid) {
    /* Not a secret: a clock is unique enough for a device UUID. */
    uint64_t t = stats_now_ns () ^ (uint64_t) d << 48;
    memcpy (sb->device_uuid, &t, sizeof t);
    memcpy (sb->device_uuid + 8, &need, sizeof need);
  }
  sb->data_size = m->size / MDSB_SECTOR - sb->data_offset;
  sb->devflags = 0;
  sb->cnt_corrected_read = 0;
  sb->feature_map &= ~MDSB_FEATURE_RECOVERY_OFFSET;
  sb->recovery_offset = 0;
  if (role != MDSB_ROLE_SPARE) {
    sb->feature_map |= MDSB_FEATURE_RECOVERY_OFFSET;
    sb->dev_roles[d] = role;
  }
  else
    sb->dev_roles[d] = MDSB_ROLE_SPARE;
  if (mdsb_check_member (sb, m->size / MDSB_SECTOR) == -1) {
    nbdkit_error ("member: %s: %s", m->name, mdsb_error ());
    errno = EINVAL;
    return -1;
  }
  return 0;
}

/* ---- assembly ------------------------------------------------------- */

void
recovery_assembled (struct raid_array *a, unsigned r,
                    enum recovery_kind kind)
{
  struct raid_recovery *rec = &a->rec;
  struct mdsb *sb = &a->meta.sb[r];
  struct member *m = &a->members[r];
  uint64_t pos = 0;

  if (kind == RECOVERY_RESUME)
    pos = array_pos (a, r, sb->recovery_offset * MDSB_SECTOR);
  sb->feature_map |= MDSB_FEATURE_RECOVERY_OFFSET;
  sb->recovery_offset = member_pos (a, r, pos) / MDSB_SECTOR;
  atomic_store (&rec->pos[r], pos);
  atomic_fetch_or (&rec->unsynced, BIT (r));
  a->meta.in_array[r] = true;
  atomic_store (&m->failed, false);
  atomic_fetch_and (&a->meta.recorded, ~BIT (r));
  switch (kind) {
  case RECOVERY_READD:
    /* In full or from the bitmap: recovery_assembled_bitmap says. */
    rec->readd_at_start |= BIT (r);
    break;
  case RECOVERY_NEW:
    nbdkit_error ("member %u (%s) is blank: it takes role %u as a new "
                  "member (md's --add), with a superblock of its own, and "
                  "is rebuilt from the live copies", r, m->name, r);
    break;
  case RECOVERY_RESUME:
    nbdkit_error ("member %u (%s) was being rebuilt: its recovery goes on "
                  "from array offset %" PRIu64 " (recovery_offset %"
                  PRIu64 " sectors); nothing above it is read", r, m->name,
                  pos, sb->recovery_offset);
    break;
  }
}

void
recovery_assembled_bitmap (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  unsigned r;

  for (r = 0; r < a->nmembers; ++r) {
    struct mdsb *sb = &a->meta.sb[r];
    const char *name = a->members[r].name, *why;
    bool ok;

    if (rec->readd_at_start & BIT (r)) {
      ok = bitmap_readd_ok (a, sb->events, &why);
      if (ok)
        nbdkit_error ("member %u (%s) is re-added (md's --re-add): events "
                      "%" PRIu64 ", not older than the write-intent "
                      "bitmap's events_cleared %" PRIu64 ": only the chunks "
                      "whose bits are set are rebuilt from the live copies, "
                      "and it is read only where rebuilt", r, name,
                      sb->events, bitmap_events_cleared (a));
      else
        nbdkit_error ("member %u (%s) is re-added (md's --re-add): %s "
                      "(events %" PRIu64 ", events_cleared %" PRIu64 "): "
                      "it is rebuilt in full from the live copies, and "
                      "read only where rebuilt", r, name, why, sb->events,
                      bitmap_events_cleared (a));
    }
    else if ((recovery_unsynced (rec) & BIT (r)) &&
             (sb->feature_map & MDSB_FEATURE_RECOVERY_BITMAP)) {
      /* md's super_1_validate: a recovery offset with the bitmap flag
       * goes on from the bitmap.  Its events are the array's.
       */
      ok = bitmap_readd_ok (a, sb->events, &why);
      if (!ok)
        nbdkit_error ("member %u (%s): its recovery was from the "
                      "write-intent bitmap, but %s: it goes on in full",
                      r, name, why);
    }
    else
      continue;
    if (ok) {
      sb->feature_map |= MDSB_FEATURE_RECOVERY_BITMAP;
      atomic_fetch_or (&rec->from_bitmap, BIT (r));
    }
    else
      sb->feature_map &= ~MDSB_FEATURE_RECOVERY_BITMAP;
  }
  rec->readd_at_start = 0;
}

/* ---- spares ---------------------------------------------------------- */

/* The array's superblock to build new members' from: a live member's. */
static const struct mdsb *
ref_sb (const struct raid_array *a)
{
  unsigned r;

  for (r = 0; r < a->nmembers; ++r)
    if (a->meta.in_array[r] && !atomic_load (&a->members[r].failed))
      return &a->meta.sb[r];
  return &a->meta.sb[0];
}

static bool
same_member (const struct raid_array *a, const struct member *m,
             const char **other)
{
  const struct raid_recovery *rec = &a->rec;
  unsigned i;

  for (i = 0; i < a->nmembers; ++i)
    if (a->members[i].identity &&
        strcmp (a->members[i].identity, m->identity) == 0) {
      *other = a->members[i].name;
      return true;
    }
  for (i = 0; i < RAID_MAX_SPARES; ++i)
    if (rec->state[i] != SPARE_FREE && &rec->spare[i] != m &&
        rec->spare[i].identity &&
        strcmp (rec->spare[i].identity, m->identity) == 0) {
      *other = rec->spare[i].name;
      return true;
    }
  return false;
}

/* Close a member opened into a spare slot that never became a spare. */
static void
spare_discard (struct member *m)
{
  int e = errno;

  m->ops->close (m);
  stats_destroy (&m->stats);
  free (m->identity);
  free (m->backing);
  memset (m, 0, sizeof *m);     /* its name stays in rec->names */
  errno = e;
}

/* Give m a copy of name, kept in rec->names until recovery_close. */
static int
keep_name (struct raid_recovery *rec, struct member *m, const char *name)
{
  char **names;

  pthread_mutex_lock (&rec->lock);
  names = realloc (rec->names, (rec->nnames + 1) * sizeof *names);
  if (names != NULL) {
    rec->names = names;
    m->name = strdup (name);
    if (m->name != NULL)
      rec->names[rec->nnames++] = m->name;
  }
  pthread_mutex_unlock (&rec->lock);
  if (names == NULL || m->name == NULL) {
    nbdkit_error ("spare: %s: %m", name);
    return -1;
  }
  return 0;
}

/* Open name into spare slot j and check it (spare_ready then makes it a
 * spare); *mdout, if not NULL, gets what it holds.  errno is set on
 * failure.
 */
static int
spare_open (struct raid_array *a, unsigned j, const char *name,
            bool started, struct member_md *mdout)
{
  struct raid_recovery *rec = &a->rec;
  struct member *m = &rec->spare[j];
  struct member_md md;
  const char *other;

  /* A slot used before (a member removed after a spare replaced it)
   * still owns its statistics' shards: nothing reads a free slot's
   * statistics, so they go before member_open makes new ones.
   */
  stats_destroy (&m->stats);
  memset (m, 0, sizeof *m);
  m->index = a->nmembers + j;
  if (keep_name (rec, m, name) == -1)
    return -1;
  m->load = &rec->spare_load[j];
  memset (m->load, 0, sizeof *m->load);
  m->io_mode = params.io_mode;
  m->timeout_ms = params.timeout_ms;
  m->max_inflight = params.max_inflight;
  if (m->name[0] == '\0' || strcasecmp (m->name, "missing") == 0) {
    nbdkit_error ("spare: '%s' is not a file, device or NBD URI", name);
    errno = EINVAL;
    goto clear;
  }
  if (member_open (m) == -1) {
    if (errno == 0)
      errno = EIO;
    goto clear;
  }
  if (same_member (a, m, &other)) {
    nbdkit_error ("spare: %s is %s, already in the array", name, other);
    errno = EEXIST;
    goto close;
  }
  if (m->read_only) {
    nbdkit_error ("spare: %s can only be read", name);
    errno = EROFS;
    goto close;
  }
  if (m->min_block > 4096 || (a->align > 1 && m->min_block > a->align)) {
    nbdkit_error ("spare: %s wants blocks of %" PRIu32 " bytes, more than "
                  "the array's %" PRIu32, name, m->min_block, a->align);
    errno = EINVAL;
    goto close;
  }
  if (metadata_read (m, &md) == -1) {
    errno = EIO;
    goto close;
  }
  if (md.kind == MD_OTHER ||
      (md.kind == MD_V1_2 &&
       (!md.valid || memcmp (md.sb.set_uuid, ref_sb (a)->set_uuid, 16)))) {
    nbdkit_error ("spare: %s holds md metadata (version %s) of another "
                  "array; refusing to write over it", name,
                  md.version ? md.version : "?");
    errno = EMEDIUMTYPE;
    goto close;
  }
  if (md.kind == MD_NONE &&
      member_check_blank (m, "spare", false, params.force) == -1) {
    if (errno != EMEDIUMTYPE)
      errno = EIO;
    goto close;
  }
  if (started && m->ops->start (m) == -1) {
    nbdkit_error ("spare: %s: starting it failed", name);
    errno = EIO;
    goto close;
  }
  if (mdout)
    *mdout = md;
  return 0;

 close:
  spare_discard (m);
  return -1;
 clear:
  stats_destroy (&m->stats);   /* if member_open made them */
  memset (m, 0, sizeof *m);     /* its name stays in rec->names */
  return -1;
}

/* Give the spare opened in slot j its superblock (meta.lock held while
 * serving): a member of this array (a spare from before, or a stale
 * member) is a spare again, with a slot of its own, since there is no
 * bitmap and it is rebuilt in full whatever it holds.
 */
static int
spare_ready (struct raid_array *a, unsigned j)
{
  struct raid_recovery *rec = &a->rec;

  if (recovery_new_sb (a, ref_sb (a), &rec->spare[j], MDSB_ROLE_SPARE,
                       &rec->spare_sb[j]) == -1) {
    nbdkit_error ("spare: %s cannot be a spare", rec->spare[j].name);
    return -1;
  }
  rec->spare_sb_written[j] = false;
  pthread_mutex_lock (&rec->lock);
  rec->state[j] = SPARE_READY;
  pthread_mutex_unlock (&rec->lock);
  return 0;
}

int
recovery_config (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  unsigned j;

  rec->on = a->meta.on && raid_geom_copies (a->geom) > 1;
  if (params.nspares > 0 && !rec->on) {
    nbdkit_error ("spare: spares need an array with md metadata and "
                  "copies (RAID 1 or 10)");
    return -1;
  }
  for (j = 0; j < params.nspares; ++j)
    if (spare_open (a, j, params.spare[j], false, NULL) == -1 ||
        spare_ready (a, j) == -1)
      return -1;
  return 0;
}

int
recovery_after_fork (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  unsigned j;

  for (j = 0; j < RAID_MAX_SPARES; ++j)
    if (rec->state[j] == SPARE_READY &&
        rec->spare[j].ops->start (&rec->spare[j]) == -1)
      return -1;
  return 0;
}

void
recovery_preconnect (struct raid_array *a, bool readonly)
{
  struct raid_recovery *rec = &a->rec;
  unsigned j;

  if (!readonly)
    return;
  for (j = 0; j < RAID_MAX_SPARES; ++j)
    if (rec->state[j] == SPARE_READY) {
      atomic_store (&rec->spare[j].no_writes, true);
      if (rec->spare[j].ops->drop_write)
        rec->spare[j].ops->drop_write (&rec->spare[j]);
    }
}

/* Write spare j's superblock, with meta.lock held: the array's event
 * count and role table as they are now, the spare role in its slot.
 */
static int
spare_write_sb_locked (struct raid_array *a, unsigned j)
{
  struct raid_recovery *rec = &a->rec;
  struct mdsb sb = rec->spare_sb[j];
  uint32_t failed = failed_members (a);
  struct member_io io;
  uint8_t *buf;
  unsigned r, d;

  if (posix_memalign ((void **) &buf, 4096, MDSB_SIZE) != 0)
    return -1;
  for (d = 0; d < MDSB_MAX_DEV_LIMIT; ++d)
    sb.dev_roles[d] = MDSB_ROLE_SPARE;
  for (r = 0; r < a->nmembers; ++r)
    if (a->meta.in_array[r])
      sb.dev_roles[a->meta.sb[r].dev_number] =
        failed & BIT (r) ? MDSB_ROLE_FAULTY : r;
  sb.max_dev = a->meta.max_dev > sb.max_dev ? a->meta.max_dev : sb.max_dev;
  sb.events = a->meta.events;
  sb.utime = time (NULL);
  sb.resync_offset = a->meta.resync_offset;
  mdsb_encode (&sb, buf);
  io = (struct member_io) {
    .op = MOP_WRITE, .flags = MIO_FUA, .buf = buf, .offset = MDSB_OFFSET,
    .length = MDSB_SIZE, .member = &rec->spare[j],
  };
  member_run_batch (&io, 1);
  free (buf);
  if (io.err) {
    errno = io.err;
    nbdkit_error ("spare: %s: writing its superblock: %m",
                  rec->spare[j].name);
    return -1;
  }
  rec->spare_sb_written[j] = true;
  return 0;
}

static bool
any_ready_locked (const struct raid_recovery *rec)
{
  unsigned j;

  for (j = 0; j < RAID_MAX_SPARES; ++j)
    if (rec->state[j] == SPARE_READY)
      return true;
  return false;
}

/* Roles without a live member (failed, missing) that a ready spare may
 * take; returns how many were taken.  Every client request is held out
 * meanwhile.
 */
static unsigned
take_spares (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  unsigned r, j, n = 0;
  bool any = false;

  pthread_mutex_lock (&rec->lock);
  for (j = 0; j < RAID_MAX_SPARES; ++j)
    any |= rec->state[j] == SPARE_READY;
  pthread_mutex_unlock (&rec->lock);
  if (!any || failed_members (a) == 0)
    return 0;

  pthread_rwlock_wrlock (&rec->quiesce);
  pthread_mutex_lock (&a->meta.lock);
  pthread_mutex_lock (&rec->lock);
  for (r = 0; r < a->nmembers; ++r) {
    struct member *m = &a->members[r];
    char *old;

    if (!atomic_load (&m->failed))
      continue;
    for (j = 0; j < RAID_MAX_SPARES && rec->state[j] != SPARE_READY; ++j)
      ;
    if (j == RAID_MAX_SPARES)
      break;
    old = m->name;
    /* A member that was in the array stays listed as faulty until it
     * is removed, as in md; a missing role's placeholder, or a member
     * left out at assembly, was never in it.
     */
    rec->state[j] = a->meta.in_array[r] && m->ops != &missing_ops
      ? SPARE_FAULTY : SPARE_OLD;
    rec->replaced_role[j] = r;
    member_swap_backend (m, &rec->spare[j]);
    atomic_store (&rec->spare[j].failed, true);
    a->meta.sb[r] = rec->spare_sb[j];
    a->meta.sb[r].dev_roles[a->meta.sb[r].dev_number] = r;
    a->meta.sb[r].feature_map |= MDSB_FEATURE_RECOVERY_OFFSET;
    a->meta.sb[r].recovery_offset = 0;
    a->meta.in_array[r] = true;
    atomic_store (&rec->pos[r], 0);
    atomic_fetch_or (&rec->unsynced, BIT (r));
    atomic_store (&m->failed, false);
    atomic_fetch_and (&a->meta.recorded, ~BIT (r));
    nbdkit_error ("spare %s takes over role %u from %s (member %u); it is "
                  "rebuilt from the live copies", m->name, r, old, r);
    n++;
  }
  pthread_mutex_unlock (&rec->lock);
  if (n > 0 && metadata_update_locked (a, "a spare takes over") == -1)
    nbdkit_error ("spare: the superblocks could not record the takeover");
  pthread_mutex_unlock (&a->meta.lock);
  pthread_rwlock_unlock (&rec->quiesce);
  return n;
}

/* ---- the walk -------------------------------------------------------- */

/* Sleep up to ns, or until stop (or a wake, with wake_too).  Returns
 * true for those.
 */
static bool
nap (struct raid_recovery *rec, uint64_t ns, bool wake_too)
{
  struct timespec ts;
  bool stop;

  clock_gettime (CLOCK_REALTIME, &ts);
  ns += ts.tv_nsec;
  ts.tv_sec += ns / 1000000000;
  ts.tv_nsec = ns % 1000000000;
  pthread_mutex_lock (&rec->lock);
  if (!rec->stop && !(wake_too && rec->wake))
    pthread_cond_timedwait (&rec->cond, &rec->lock, &ts);
  stop = rec->stop || (wake_too && rec->wake);
  pthread_mutex_unlock (&rec->lock);
  return stop;
}

/* The throttle's wait (throttle.h): a failed member or a new spare
 * ends it too, so that the walk starts again with them at once.
 */
static bool
throttle_sleep (void *opaque, uint64_t ns)
{
  return nap (opaque, ns, true);
}

/* Rebuild the copies of piece p on the members in targets from one that
 * is in sync.  Returns the targets that failed, or -1 (all ones) if no
 * copy could be read.
 */
static uint32_t
rebuild_piece (struct raid_array *a, const struct piece *p, uint32_t targets,
               char *buf)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  uint32_t bad = 0;
  unsigned k, n = 0, src;

  for (src = 0; src < p->ncopies; ++src) {
    unsigned mi = p->copy[src].member;

    if ((targets & BIT (mi)) || atomic_load (&a->members[mi].failed) ||
        !recovery_readable (&a->rec, mi, p->offset, p->length))
      continue;
    ios[0] = (struct member_io) {
      .op = MOP_READ, .pieces = 1, .buf = buf,
      .offset = p->copy[src].offset, .length = p->length,
      .member = &a->members[mi],
    };
    syncio_run (a, ios, 1);
    if (ios[0].err == 0)
      break;
    nbdkit_error ("recovery: member %u (%s) at offset %" PRIu64 ": %s; "
                  "reading another copy", mi, a->members[mi].name,
                  ios[0].offset, strerror (ios[0].err));
  }
  if (src == p->ncopies) {
    nbdkit_error ("recovery: array offset %" PRIu64 ": no copy in sync "
                  "could be read", p->offset);
    return UINT32_MAX;
  }
  for (k = 0; k < p->ncopies; ++k)
    if (targets & BIT (p->copy[k].member))
      ios[n++] = (struct member_io) {
        .op = MOP_WRITE, .pieces = 1, .buf = buf,
        .offset = p->copy[k].offset, .length = p->length,
        .member = &a->members[p->copy[k].member],
      };
  syncio_run (a, ios, n);
  for (k = 0; k < n; ++k)
    if (ios[k].err) {
      unsigned mi = ios[k].member->index;
      bad |= BIT (mi);
      if (request_mark_failed (a, mi, "recovery write", ios[k].err))
        metadata_record (a, BIT (mi));
    }
  return bad;
}

/* One region's work: rebuild [offset, offset + len) on the members of
 * set that have not reached it, holding its range.  Returns false if
 * some piece had no copy in sync that could be read.
 */
struct lane {
  struct raid_array *a;
  uint64_t offset, len;
  uint32_t set;
  uint32_t bm;                  /* of set: re-added from the bitmap */
  uint64_t copied;              /* array bytes rebuilt */
  char *buf;
  bool ok;
};

static uint32_t live_set (struct raid_array *a, uint32_t set);

static void
rebuild_region (struct lane *l)
{
  struct raid_array *a = l->a;
  struct range_hold hold;
  struct plan pl;
  size_t i;

  l->ok = true;
  l->copied = 0;
  range_acquire (&a->write_ranges, &hold, l->offset, l->len);
  if (plan_build (&pl, a->geom, l->offset, l->len) == -1) {
    nbdkit_error ("recovery: array offset %" PRIu64 ": %m", l->offset);
    l->ok = false;
  }
  else {
    for (i = 0; i < pl.npieces && l->ok; ++i) {
      const struct piece *p = &pl.piece[i];
      uint32_t targets = 0, set = live_set (a, l->set);
      unsigned k;

      for (k = 0; k < p->ncopies; ++k) {
        unsigned mi = p->copy[k].member;
        if ((set & BIT (mi)) &&
            atomic_load (&a->rec.pos[mi]) < p->offset + p->length)
          targets |= BIT (mi);
      }
      /* A member re-added from the bitmap missed no write to a chunk
       * whose bit is clear (the range is held: no write is in flight
       * here, and bits stay set while a member is out of sync).
       */
      if ((targets & l->bm) && !bitmap_dirty (a, p->offset, p->length))
        targets &= ~l->bm;
      if (targets == 0)
        continue;
      if (rebuild_piece (a, p, targets, l->buf) == UINT32_MAX)
        l->ok = false;
      else
        l->copied += p->length;
    }
    plan_free (&pl);
  }
  range_release (&a->write_ranges, &hold);
  if (raid_debug_recovery)
    nbdkit_debug ("raid: recovery: array offset %" PRIu64 " length %"
                  PRIu64, l->offset, l->len);
}

/* The copy pool of one recovery pass: RECOVERY_COPIERS - 1 threads,
 * started once per pass, and the walk's own thread, which copies too
 * while it waits for the window's head.  Regions go in in ascending
 * order (recwindow.h); each copier takes the lowest one not taken.  No
 * barrier between regions and no thread started per region: a copier
 * that finishes one takes the next at once, so that the reads of one
 * region overlap the writes of another.
 */
_Static_assert (RECOVERY_INFLIGHT <= RECWINDOW_MAX,
                "the window holds RECOVERY_INFLIGHT regions");
_Static_assert (RECOVERY_COPIERS >= 1, "the walk's thread copies");

struct copy_pool {
  struct raid_array *a;
  uint32_t set, bm;
  pthread_mutex_t lock;
  pthread_cond_t work;          /* a region to take, or quit */
  pthread_cond_t done;          /* a region done */
  struct rec_window w;
  bool quit;
  unsigned nthreads;
  pthread_t thread[RECOVERY_COPIERS];
  char *buf[RECOVERY_COPIERS]; /* buf[0] is the walk's own */
};

/* Copy region r (taken, under no lock) with buf; then mark it done. */
static void
pool_copy (struct copy_pool *p, struct rec_region *r, char *buf)
{
  struct lane l = {
    .a = p->a, .offset = r->offset, .len = r->len, .set = p->set,
    .bm = p->bm, .buf = buf,
  };

  rebuild_region (&l);
  pthread_mutex_lock (&p->lock);
  r->copied = l.copied;
  r->ok = l.ok;
  r->done = true;
  pthread_cond_broadcast (&p->done);
  pthread_mutex_unlock (&p->lock);
}

struct copier {
  struct copy_pool *p;
  char *buf;
};

static void *
copier_thread (void *arg)
{
  struct copy_pool *p = ((struct copier *) arg)->p;
  char *buf = ((struct copier *) arg)->buf;
  struct rec_region *r;

  free (arg);
  pthread_mutex_lock (&p->lock);
  for (;;) {
    while (!p->quit && (r = recwindow_take (&p->w)) == NULL)
      pthread_cond_wait (&p->work, &p->lock);
    if (p->quit)
      break;
    pthread_mutex_unlock (&p->lock);
    pool_copy (p, r, buf);
    pthread_mutex_lock (&p->lock);
  }
  pthread_mutex_unlock (&p->lock);
  return NULL;
}

/* Returns -1 (logged) if not even the walk's own buffer could be had;
 * copier threads that cannot start are done without.
 */
static int
pool_start (struct copy_pool *p, struct raid_array *a, uint32_t set,
            uint32_t bm)
{
  unsigned i;

  memset (p, 0, sizeof *p);
  p->a = a;
  p->set = set;
  p->bm = bm;
  recwindow_init (&p->w);
  p->buf[0] = malloc (RECOVERY_REGION);
  if (p->buf[0] == NULL) {
    nbdkit_error ("recovery: %m");
    return -1;
  }
  pthread_mutex_init (&p->lock, NULL);
  pthread_cond_init (&p->work, NULL);
  pthread_cond_init (&p->done, NULL);
  for (i = 1; i < RECOVERY_COPIERS; ++i) {
    struct copier *c = malloc (sizeof *c);
    char *buf = malloc (RECOVERY_REGION);

    if (c == NULL || buf == NULL) {
      free (c);
      free (buf);
      break;
    }
    *c = (struct copier) { .p = p, .buf = buf };
    if (pthread_create (&p->thread[p->nthreads], NULL, copier_thread, c)) {
      free (c);
      free (buf);
      break;
    }
    p->buf[++p->nthreads] = buf;
  }
  return 0;
}

/* The window is empty: stop the threads. */
static void
pool_stop (struct copy_pool *p)
{
  unsigned i;

  pthread_mutex_lock (&p->lock);
  p->quit = true;
  pthread_cond_broadcast (&p->work);
  pthread_mutex_unlock (&p->lock);
  for (i = 0; i < p->nthreads; ++i)
    pthread_join (p->thread[i], NULL);
  for (i = 0; i <= p->nthreads; ++i)
    free (p->buf[i]);
  pthread_cond_destroy (&p->done);
  pthread_cond_destroy (&p->work);
  pthread_mutex_destroy (&p->lock);
}

/* Wait for the window's head (the walk's thread copies any region not
 * yet taken meanwhile) and pop it into *out.
 */
static void
pool_pop (struct copy_pool *p, struct rec_region *out)
{
  struct rec_region *r;

  pthread_mutex_lock (&p->lock);
  while (!recwindow_pop (&p->w, out)) {
    if ((r = recwindow_take (&p->w)) != NULL) {
      pthread_mutex_unlock (&p->lock);
      pool_copy (p, r, p->buf[0]);
      pthread_mutex_lock (&p->lock);
    }
    else
      pthread_cond_wait (&p->done, &p->lock);
  }
  pthread_mutex_unlock (&p->lock);
}

static void
pool_push (struct copy_pool *p, uint64_t offset, uint64_t len)
{
  pthread_mutex_lock (&p->lock);
  recwindow_push (&p->w, offset, len);
  pthread_cond_signal (&p->work);
  pthread_mutex_unlock (&p->lock);
}

/* Record each member's position in its superblock (meta.lock held). */
static void
record_positions_locked (struct raid_array *a, uint32_t set)
{
  unsigned r;

  for (r = 0; r < a->nmembers; ++r)
    if (set & BIT (r)) {
      uint64_t p = atomic_load (&a->rec.pos[r]);
      a->meta.sb[r].feature_map |= MDSB_FEATURE_RECOVERY_OFFSET;
      a->meta.sb[r].recovery_offset = member_pos (a, r, p) / MDSB_SECTOR;
      /* md's super_1_sync: a recovery from the bitmap says so. */
      if (atomic_load (&a->rec.from_bitmap) & BIT (r))
        a->meta.sb[r].feature_map |= MDSB_FEATURE_RECOVERY_BITMAP;
    }
}

static void
flush_members (struct raid_array *a, uint32_t set)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  unsigned r, n = 0;

  for (r = 0; r < a->nmembers; ++r)
    if ((set & BIT (r)) && !atomic_load (&a->members[r].failed))
      ios[n++] = (struct member_io) { .op = MOP_FLUSH,
                                      .member = &a->members[r] };
  member_run_batch (ios, n);
}

/* Members in the set that are still there to rebuild. */
static uint32_t
live_set (struct raid_array *a, uint32_t set)
{
  return set & ~failed_members (a) & recovery_unsynced (&a->rec);
}

static void
names (struct raid_array *a, uint32_t set, char *buf, size_t len)
{
  unsigned r;
  size_t o = 0;

  buf[0] = '\0';
  for (r = 0; r < a->nmembers && o < len; ++r)
    if (set & BIT (r))
      o += snprintf (buf + o, len - o, "%s%u (%s)", o ? ", " : "", r,
                     a->members[r].name);
}

/* One recovery pass over every member that needs it now. */
static void
recover (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  struct raid_sync *s = &a->sync;
  uint64_t size = raid_geom_size (a->geom), pos = UINT64_MAX;
  uint64_t t0, checkpoint, cursor, copied = 0, popped = 0;
  struct throttle t;
  struct copy_pool pool;
  uint32_t set = live_set (a, UINT32_MAX);
  uint32_t bm = set & atomic_load (&rec->from_bitmap);
  unsigned r, next_tenth;
  bool interrupted = false, stopping = false, lost = false;
  char who[512];

  if (set == 0)
    return;
  for (r = 0; r < a->nmembers; ++r)
    if ((set & BIT (r)) && atomic_load (&rec->pos[r]) < pos)
      pos = atomic_load (&rec->pos[r]);
  pos = pos / RECOVERY_REGION * RECOVERY_REGION;
  checkpoint = pos;
  if (pool_start (&pool, a, set, bm) == -1)
    return;
  names (a, set, who, sizeof who);
  nbdkit_error ("recovery: rebuilding member %s from array offset %" PRIu64
                " of %" PRIu64 " (sync-speed-min=%lu sync-speed-max=%lu "
                "KiB/s)", who, pos, size, params.sync_speed_min,
                params.sync_speed_max);
  if (bm) {
    char bmwho[512];

    names (a, bm, bmwho, sizeof bmwho);
    nbdkit_error ("re-add: member %s: %" PRIu64 " bytes to resync of %"
                  PRIu64 " (the %" PRIu64 "-byte chunks whose bits are set "
                  "in the write-intent bitmap, from array offset %" PRIu64
                  ")", bmwho, bitmap_dirty_bytes (a, pos, size), size,
                  a->bitmap.chunk, pos);
  }
  pthread_mutex_lock (&a->meta.lock);
  s->action = "recover";
  s->done = pos;
  s->total = size;
  s->synced = 0;
  s->rate = 0;
  pthread_mutex_unlock (&a->meta.lock);
  t0 = stats_now_ns ();
  /* Paced by the bytes copied: a re-add from the bitmap passes over
   * clean chunks, which cost nothing.
   */
  throttle_start (&t, &a->stats, params.sync_speed_min,
                  params.sync_speed_max, copied);
  next_tenth = pos * 10 / size + 1;

  /* Regions go into the pool's window in ascending order, up to
   * RECOVERY_INFLIGHT at once, and come back out of it in that order
   * (recwindow.h): after each, the positions pass it, the checkpoint
   * and the throttle are looked at, as after each region before.  What
   * comes out above a region that had no copy to read (lost) never
   * moves a position; nothing more goes in after it, or once the walk
   * is to stop; the regions in flight are waited for in all cases.
   */
  cursor = pos;
  for (;;) {
    struct rec_region done;

    while (!lost && !stopping && pool.w.count < RECOVERY_INFLIGHT &&
           cursor < size && set) {
      uint64_t len;

      /* Only members re-added from the bitmap: regions without a chunk
       * whose bit is set hold nothing to rebuild and are passed over.
       */
      if (bm && bm == set) {
        uint64_t next = bitmap_next_dirty (a, cursor, size);

        next = next >= size ? size
          : next / RECOVERY_REGION * RECOVERY_REGION;
        if (next > cursor)
          cursor = next;
        if (cursor >= size)
          break;
      }
      len = size - cursor < RECOVERY_REGION ? size - cursor : RECOVERY_REGION;
      pool_push (&pool, cursor, len);
      cursor += len;
    }
    if (pool.w.count == 0) {
      /* Everything that went in is out: only regions passed over lie
       * between pos and cursor.
       */
      if (!lost && set && cursor > pos)
        pos = cursor;
      break;
    }
    pool_pop (&pool, &done);
    copied += done.copied;
    set = live_set (a, set);
    if (lost)
      continue;
    if (!done.ok) {
      lost = true;
      names (a, set, who, sizeof who);
      nbdkit_error ("recovery: stopped at array offset %" PRIu64 ": member "
                    "%s stays out of sync above it", pos, who);
      continue;
    }
    pos = done.offset + done.len;
    for (r = 0; r < a->nmembers; ++r)
      if ((set & BIT (r)) && atomic_load (&rec->pos[r]) < pos)
        atomic_store_explicit (&rec->pos[r], pos, memory_order_release);

    /* A checkpoint: what is rebuilt is on disk, then the superblocks
     * say how far.
     */
    if (pos - checkpoint >= size / 16 && pos < size) {
      flush_members (a, set);
      pthread_mutex_lock (&a->meta.lock);
      record_positions_locked (a, live_set (a, set));
      metadata_update_locked (a, "recovery checkpoint");
      pthread_mutex_unlock (&a->meta.lock);
      checkpoint = pos;
    }
    /* md's throttle (throttle.h). */
    pthread_mutex_lock (&a->meta.lock);
    s->done = pos;
    s->synced = copied;
    s->rate = throttle_rate_now (&t, copied);
    pthread_mutex_unlock (&a->meta.lock);
    if (stopping)
      continue;
    /* The throttle is looked at once per window's worth of regions
     * (RECOVERY_INFLIGHT), and after the last: how far a walk held back
     * goes before its first wait does not depend on how the copies
     * finish (only this thread pushes and pops: count is its own).
     */
    if (++popped % RECOVERY_INFLIGHT == 0 ||
        (pool.w.count == 0 && cursor >= size))
      throttle_pace (&t, copied, throttle_sleep, rec);
    /* A member failed, or a spare came: start again with it, from the
     * lowest position, as md restarts its recovery.
     */
    pthread_mutex_lock (&rec->lock);
    if (rec->stop || (rec->wake && (any_ready_locked (rec) ||
                                    (live_set (a, UINT32_MAX) & ~set)))) {
      interrupted = !rec->stop;
      stopping = true;
    }
    else
      rec->wake = false;        /* no spare to take in: nothing to do */
    pthread_mutex_unlock (&rec->lock);
    if (pos * 10 / size >= next_tenth && pos < size) {
      nbdkit_error ("recovery: %u%% done (%" PRIu64 " of %" PRIu64
                    " bytes)", (unsigned) (pos * 100 / size), pos, size);
      next_tenth = pos * 10 / size + 1;
    }
  }
  pool_stop (&pool);

  set = live_set (a, set);
  if (pos >= size && set) {
    uint64_t ns = stats_now_ns () - t0;

    flush_members (a, set);
    pthread_mutex_lock (&a->meta.lock);
    for (r = 0; r < a->nmembers; ++r)
      if (set & BIT (r)) {
        a->meta.sb[r].feature_map &= ~(MDSB_FEATURE_RECOVERY_OFFSET |
                                       MDSB_FEATURE_RECOVERY_BITMAP);
        a->meta.sb[r].recovery_offset = 0;
        atomic_store (&rec->pos[r], UINT64_MAX);
        atomic_fetch_and (&rec->from_bitmap, ~BIT (r));
        atomic_fetch_and (&rec->unsynced, ~BIT (r));
      }
    s->action = "idle";
    s->done = size;
    s->synced = copied;
    metadata_update_locked (a, "recovery done");
    pthread_mutex_unlock (&a->meta.lock);
    names (a, set, who, sizeof who);
    nbdkit_error ("recovery: done: member %s rebuilt, %" PRIu64 " bytes in "
                  "%.3f s (%.0f KiB/s)%s; it is in sync", who, copied,
                  ns / 1e9, ns ? (double) copied / 1024 * 1e9 / ns : 0.0,
                  bm ? " (from the write-intent bitmap: the chunks whose "
                  "bits were set)" : "");
    if (bm)
      nbdkit_error ("re-add: done: %" PRIu64 " bytes resynced of %" PRIu64,
                    copied, size);
  }
  else {
    pthread_mutex_lock (&a->meta.lock);
    record_positions_locked (a, set);
    s->action = "idle";
    pthread_mutex_unlock (&a->meta.lock);
    if (pos < size && interrupted)
      nbdkit_error ("recovery: interrupted at array offset %" PRIu64 " of %"
                    PRIu64 " to take in a spare or a re-added member; it "
                    "starts again", pos, size);
    else if (pos < size)
      nbdkit_error ("recovery: stopped at array offset %" PRIu64 " of %"
                    PRIu64 "; the next start goes on from there", pos, size);
  }
}

static void *
recovery_thread (void *arg)
{
  struct raid_array *a = arg;
  struct raid_recovery *rec = &a->rec;

  for (;;) {
    /* One sync action at a time: the resync first. */
    while (sync_in_sync (&a->sync) != UINT64_MAX)
      if (nap (rec, 50 * UINT64_C (1000000), false))
        return NULL;
    take_spares (a);
    recover (a);
    pthread_mutex_lock (&rec->lock);
    while (!rec->wake && !rec->stop)
      pthread_cond_wait (&rec->cond, &rec->lock);
    rec->wake = false;
    if (rec->stop) {
      pthread_mutex_unlock (&rec->lock);
      return NULL;
    }
    pthread_mutex_unlock (&rec->lock);
  }
}

int
recovery_start (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  unsigned j;
  int err;

  if (!rec->on || rec->started)
    return 0;
  if (atomic_load (&a->no_writes) || !a->meta.started || !a->sync.on) {
    if (recovery_unsynced (rec))
      nbdkit_error ("recovery: nothing is written, so no member is "
                    "rebuilt; the members out of sync are not read");
    rec->started = true;
    return 0;
  }
  pthread_mutex_lock (&a->meta.lock);
  for (j = 0; j < RAID_MAX_SPARES; ++j)
    if (rec->state[j] == SPARE_READY && !rec->spare_sb_written[j] &&
        spare_write_sb_locked (a, j) == -1) {
      pthread_mutex_unlock (&a->meta.lock);
      return -1;
    }
  pthread_mutex_unlock (&a->meta.lock);
  err = pthread_create (&rec->thread, NULL, recovery_thread, a);
  if (err) {
    errno = err;
    nbdkit_error ("recovery: starting its thread: %m");
    return -1;
  }
  rec->thread_started = true;
  rec->started = true;
  return 0;
}

static void replace_stop (struct raid_array *a);

void
recovery_stop (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;

  replace_stop (a);
  if (!rec->thread_started)
    return;
  pthread_mutex_lock (&rec->lock);
  rec->stop = true;
  pthread_cond_broadcast (&rec->cond);
  pthread_mutex_unlock (&rec->lock);
  pthread_join (rec->thread, NULL);
  rec->thread_started = false;
}

void
recovery_close (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  unsigned j;

  for (j = 0; j < RAID_MAX_SPARES; ++j) {
    struct member *m = &rec->spare[j];

    /* A free slot may still own the shards of a member removed from
     * it (spare_open frees them when the slot is used again).
     */
    stats_destroy (&m->stats);
    if (rec->state[j] == SPARE_FREE)
      continue;
    if (m->ops)
      m->ops->close (m);
    free (m->identity);
    free (m->backing);
    rec->state[j] = SPARE_FREE;
  }
  /* The names last: a slot's and a role's may be among them. */
  for (size_t i = 0; i < rec->nnames; ++i)
    free (rec->names[i]);
  free (rec->names);
  rec->names = NULL;
  rec->nnames = 0;
}

const char *
recovery_replaced (struct raid_array *a, unsigned j, unsigned *role)
{
  struct raid_recovery *rec = &a->rec;
  const char *name = NULL;

  pthread_mutex_lock (&rec->lock);
  if (rec->state[j] == SPARE_FAULTY) {
    name = rec->spare[j].name;
    *role = rec->replaced_role[j];
  }
  pthread_mutex_unlock (&rec->lock);
  return name;
}

int
recovery_remove_replaced (struct raid_array *a, unsigned j)
{
  struct raid_recovery *rec = &a->rec;
  struct member *m = &rec->spare[j];
  int rc = 0;

  /* Nothing addresses it since the takeover (which held every request
   * out); drained all the same before it is closed.
   */
  member_drain (m);
  m->ops->close (m);
  m->ops = NULL;
  free (m->identity);
  m->identity = NULL;
  free (m->backing);
  m->backing = NULL;
  /* Its name stays: recovery_close frees it (rec->names). */
  pthread_mutex_lock (&a->meta.lock);
  pthread_mutex_lock (&rec->lock);
  rec->state[j] = SPARE_FREE;
  pthread_mutex_unlock (&rec->lock);
  if (a->meta.started)
    rc = metadata_update_locked (a, "a member removed");
  pthread_mutex_unlock (&a->meta.lock);
  return rc;
}

void
recovery_hold (struct raid_array *a)
{
  if (a->rec.on)
    pthread_rwlock_wrlock (&a->rec.quiesce);
}

void
recovery_release (struct raid_array *a)
{
  if (a->rec.on)
    pthread_rwlock_unlock (&a->rec.quiesce);
}

static void
wake_thread (struct raid_recovery *rec)
{
  pthread_mutex_lock (&rec->lock);
  rec->wake = true;
  pthread_cond_broadcast (&rec->cond);
  pthread_mutex_unlock (&rec->lock);
}

void
recovery_member_failed (struct raid_array *a, unsigned i)
{
  struct raid_recovery *rec = &a->rec;

  if (!rec->on)
    return;
  /* Whatever takes its role next (a spare) is rebuilt in full. */
  atomic_fetch_and (&rec->from_bitmap, ~BIT (i));
  wake_thread (rec);
}

/* mdadm --re-add while serving: the member opened into spare slot j
 * holds a superblock of this array whose role r is failed or empty now,
 * and the bitmap still marks every write it missed: it takes role r
 * back, with its own superblock (dev_number, device UUID), and only the
 * chunks whose bits are set are rebuilt.  Every client request is held
 * out meanwhile, as for a spare taking over.  md is what it holds.
 * Returns 1 if it did, 0 if the member is to be a spare instead
 * (logged).
 */
static int
try_readd (struct raid_array *a, unsigned j, const struct member_md *mdp)
{
  struct raid_recovery *rec = &a->rec;
  struct member *sp = &rec->spare[j], *m;
  const struct member_md md = *mdp;
  const char *why, *old;
  struct md_array_view view = {
    .n = a->nmembers, .failed = failed_members (a),
    .events = a->meta.events, .sb = a->meta.sb, .in_array = a->meta.in_array,
  };
  unsigned r, i;
  int ret = 0;

  if (md.kind != MD_V1_2 || !md.valid)
    return 0;                   /* blank: a spare */
  /* md's rules for a re-add (raidsim/core/mdrules.c). */
  bitmap_readd_view (a, &view.bitmap);
  switch (md_readd (&view, &md.sb, &r, &why, &i)) {
  case MD_READD:
    break;
  case MD_READD_WAS_SPARE:
    return 0;                   /* a spare of this array before */
  case MD_READD_ROLE_LIVE:
    nbdkit_error ("add: %s held role %u, which a live member holds now: "
                  "it is added as a spare", sp->name, r);
    return 0;
  case MD_READD_AHEAD:
    nbdkit_error ("add: %s: events %" PRIu64 " are ahead of the array's %"
                  PRIu64 ": it is added as a spare and rebuilt in full",
                  sp->name, md.sb.events, a->meta.events);
    return 0;
  case MD_READD_NO_BITMAP:
    nbdkit_error ("add: %s held role %u, but %s (events %" PRIu64
                  ", events_cleared %" PRIu64 "): it is added as a spare "
                  "and rebuilt in full (md's hot-add)", sp->name, r, why,
                  md.sb.events, view.bitmap.events_cleared);
    return 0;
  case MD_READD_DEV_TAKEN:
    nbdkit_error ("add: %s: its device number %" PRIu32 " is member "
                  "%u's now: it is added as a spare", sp->name,
                  md.sb.dev_number, i);
    return 0;
  }

  pthread_rwlock_wrlock (&rec->quiesce);
  pthread_mutex_lock (&a->meta.lock);
  pthread_mutex_lock (&rec->lock);
  m = &a->members[r];
  /* A spare may have taken the role meanwhile. */
  if (atomic_load (&m->failed) && rec->state[j] == SPARE_FREE) {
    old = m->name;
    /* As take_spares: a member that was in the array (failed, not
     * removed) stays listed as faulty until removed.
     */
    rec->state[j] = a->meta.in_array[r] && m->ops != &missing_ops
      ? SPARE_FAULTY : SPARE_OLD;
    rec->replaced_role[j] = r;
    member_swap_backend (m, sp);
    atomic_store (&sp->failed, true);
    use_slot (rec, md.sb.dev_number);
    if (md.sb.dev_number >= a->meta.max_dev)
      a->meta.max_dev = md.sb.dev_number + 1;
    a->meta.sb[r] = md.sb;
    a->meta.sb[r].feature_map |= MDSB_FEATURE_RECOVERY_OFFSET |
      MDSB_FEATURE_RECOVERY_BITMAP;
    a->meta.sb[r].recovery_offset = 0;
    a->meta.in_array[r] = true;
    atomic_store (&rec->pos[r], 0);
    atomic_fetch_or (&rec->from_bitmap, BIT (r));
    atomic_fetch_or (&rec->unsynced, BIT (r));
    atomic_store (&m->failed, false);
    atomic_fetch_and (&a->meta.recorded, ~BIT (r));
    nbdkit_error ("add: %s is re-added as member %u (md's --re-add; it "
                  "replaces %s): events %" PRIu64 ", not older than the "
                  "write-intent bitmap's events_cleared %" PRIu64 ": only "
                  "the chunks whose bits are set are rebuilt", m->name, r,
                  old, md.sb.events, bitmap_events_cleared (a));
    ret = 1;
  }
  pthread_mutex_unlock (&rec->lock);
  if (ret == 1 && metadata_update_locked (a, "a member re-added") == -1)
    nbdkit_error ("add: the superblocks could not record the re-add");
  pthread_mutex_unlock (&a->meta.lock);
  pthread_rwlock_unlock (&rec->quiesce);
  return ret;
}

void
recovery_hide (struct raid_array *a, struct plan *pl)
{
  struct raid_recovery *rec = &a->rec;
  size_t i;
  unsigned k;

  if (recovery_unsynced (rec) == 0)
    return;
  for (i = 0; i < pl->npieces; ++i) {
    struct piece *p = &pl->piece[i];

    for (k = 0; k < p->ncopies; ++k)
      if (!recovery_readable (rec, p->copy[k].member, p->offset,
                              p->length))
        p->tried |= UINT32_C (1) << k;
  }
}

/* One add or replace at a time. */
static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;

int
recovery_add (struct raid_array *a, const char *member, bool replace_now)
{
  struct raid_recovery *rec = &a->rec;
  struct member_md md;
  unsigned j;
  int r = -1;

  if (!rec->on) {
    nbdkit_error ("add: %s: the array has no md metadata or no copies; "
                  "nothing can be rebuilt", member);
    errno = EINVAL;
    return -1;
  }
  if (!rec->thread_started) {
    nbdkit_error ("add: %s: the array is not written (nbdkit -r, or no "
                  "client has connected yet)", member);
    errno = EROFS;
    return -1;
  }
  if (replace_now && failed_members (a) == 0) {
    nbdkit_error ("add: %s: no member is failed or missing to replace",
                  member);
    errno = EBUSY;
    return -1;
  }
  /* One add at a time; the slow part (opening, probing) holds no lock
   * that requests or the walk need.
   */
  pthread_mutex_lock (&add_lock);
  pthread_mutex_lock (&rec->lock);
  for (j = 0; j < RAID_MAX_SPARES && rec->state[j] != SPARE_FREE; ++j)
    ;
  pthread_mutex_unlock (&rec->lock);
  if (j == RAID_MAX_SPARES) {
    nbdkit_error ("add: %s: there are %d spares or replaced members "
                  "already", member, RAID_MAX_SPARES);
    errno = ENOSPC;
    goto out;
  }
  r = spare_open (a, j, member, true, &md);
  if (r == 0 && try_readd (a, j, &md) == 1) {
    wake_thread (rec);
    r = 1;
    goto out;
  }
  if (r == 0) {
    pthread_mutex_lock (&a->meta.lock);
    r = spare_ready (a, j);
    if (r == 0)
      r = spare_write_sb_locked (a, j);
    if (r == -1) {
      pthread_mutex_lock (&rec->lock);
      rec->state[j] = SPARE_FREE;
      pthread_mutex_unlock (&rec->lock);
      spare_discard (&rec->spare[j]);
    }
    pthread_mutex_unlock (&a->meta.lock);
  }
  if (r == 0) {
    nbdkit_error ("add: %s is a spare of the array", member);
    wake_thread (rec);
  }
 out:
  pthread_mutex_unlock (&add_lock);
  return r;
}

/* ---- replacement (mdadm --replace) ------------------------------------ */

/* The replacement's throttle wait (throttle.h): ends early when it is
 * to stop.
 */
static bool
replace_sleep (void *opaque, uint64_t ns)
{
  struct raid_recovery *rec = opaque;
  struct timespec ts;
  bool stop;

  clock_gettime (CLOCK_REALTIME, &ts);
  ns += ts.tv_nsec;
  ts.tv_sec += ns / 1000000000;
  ts.tv_nsec = ns % 1000000000;
  pthread_mutex_lock (&rec->lock);
  if (!atomic_load (&rec->repl_stop))
    pthread_cond_timedwait (&rec->cond, &rec->lock, &ts);
  stop = atomic_load (&rec->repl_stop);
  pthread_mutex_unlock (&rec->lock);
  return stop;
}

/* The replacement's walk: role r's member, in sync and serving, is
 * copied to the replacement in RECOVERY_REGION steps of the array, each
 * holding its range against client writes (which reach both while it
 * runs) and the quiesce lock for reading (so that no spare takeover
 * moves a backend under it).  On every layout served with copies the
 * pieces of role r in an array range are one run of the member
 * (member_pos), so each step is one read and one write.
 */
static void *
replace_thread (void *arg)
{
  struct raid_array *a = arg;
  struct raid_recovery *rec = &a->rec;
  struct raid_sync *s = &a->sync;
  unsigned r = atomic_load (&rec->repl_role), j = rec->repl_slot;
  struct member *old = &a->members[r], *rm = &rec->spare[j];
  uint64_t size = raid_geom_size (a->geom);
  uint64_t doff = raid_geom_data_offset (a->geom), pos = 0;
  uint64_t t0 = stats_now_ns (), ns;
  const char *why = NULL;
  struct throttle t;
  char *oldname;
  void *buf = NULL;

  if (posix_memalign (&buf, 4096, RECOVERY_REGION) != 0)
    why = "out of memory";
  pthread_mutex_lock (&a->meta.lock);
  s->action = "recover";
  s->done = 0;
  s->total = size;
  s->synced = 0;
  pthread_mutex_unlock (&a->meta.lock);
  /* md throttles a replacement as any recovery. */
  throttle_start (&t, &a->stats, params.sync_speed_min,
                  params.sync_speed_max, 0);
  while (why == NULL && pos < size) {
    uint64_t len = size - pos < RECOVERY_REGION ? size - pos
      : RECOVERY_REGION, m0, m1;
    struct range_hold hold;
    struct member_io io;

    if (atomic_load (&rec->repl_stop)) {
      why = "a write to it failed, or the server stops";
      break;
    }
    if (atomic_load (&old->failed)) {
      why = "the member it was to replace failed";
      break;
    }
    recovery_enter (rec);
    range_acquire (&a->write_ranges, &hold, pos, len);
    m0 = member_pos (a, r, pos);
    m1 = member_pos (a, r, pos + len);
    if (m1 > m0) {
      io = (struct member_io) {
        .op = MOP_READ, .pieces = 1, .buf = buf, .offset = doff + m0,
        .length = m1 - m0, .member = old,
      };
      syncio_run (a, &io, 1);
      if (io.err)
        why = "reading the member it replaces failed";
      else {
        io = (struct member_io) {
          .op = MOP_WRITE, .pieces = 1, .buf = buf, .offset = doff + m0,
          .length = m1 - m0, .member = rm,
        };
        syncio_run (a, &io, 1);
        if (io.err)
          why = "writing to it failed";
      }
    }
    range_release (&a->write_ranges, &hold);
    recovery_leave (rec);
    if (why)
      break;
    pos += len;
    atomic_store (&rec->repl_pos, pos);
    pthread_mutex_lock (&a->meta.lock);
    s->done = s->synced = pos;
    s->rate = throttle_rate_now (&t, pos);
    pthread_mutex_unlock (&a->meta.lock);
    throttle_pace (&t, pos, replace_sleep, rec);
  }
  free (buf);
  if (why == NULL) {
    struct member_io f = { .op = MOP_FLUSH, .member = rm };

    member_run_batch (&f, 1);
    if (f.err)
      why = "flushing it failed";
  }

  pthread_rwlock_wrlock (&rec->quiesce);
  pthread_mutex_lock (&a->meta.lock);
  pthread_mutex_lock (&rec->lock);
  if (why == NULL && !atomic_load (&old->failed)) {
    oldname = old->name;
    member_swap_backend (old, rm);
    /* md marks the member it replaced faulty; it is listed so until
     * removed.
     */
    rec->state[j] = SPARE_FAULTY;
    rec->replaced_role[j] = r;
    atomic_store (&rm->failed, true);
    a->meta.sb[r] = rec->spare_sb[j];
    a->meta.sb[r].dev_roles[a->meta.sb[r].dev_number] = r;
    a->meta.sb[r].feature_map &= ~MDSB_FEATURE_RECOVERY_OFFSET;
    a->meta.sb[r].recovery_offset = 0;
    a->meta.in_array[r] = true;
    atomic_store (&rec->repl_role, -1);
    pthread_mutex_unlock (&rec->lock);
    if (metadata_update_locked (a, "a replacement done") == -1)
      nbdkit_error ("replace: the superblocks could not record it");
    ns = stats_now_ns () - t0;
    nbdkit_error ("replace: done: %s takes role %u, %" PRIu64 " bytes "
                  "copied in %.3f s; %s is faulty, out of the array "
                  "(remove it), as md marks the member it replaced",
                  old->name, r, size, ns / 1e9, oldname);
  }
  else {
    if (why == NULL)
      why = "the member it was to replace failed";
    rec->state[j] = SPARE_READY;
    atomic_store (&rec->repl_role, -1);
    rec->wake = true;
    pthread_cond_broadcast (&rec->cond);
    pthread_mutex_unlock (&rec->lock);
    nbdkit_error ("replace: the replacement of member %u by %s is given "
                  "up (%s); it stays a spare", r, rm->name, why);
  }
  s->action = "idle";
  pthread_mutex_unlock (&a->meta.lock);
  pthread_rwlock_unlock (&rec->quiesce);
  return NULL;
}

static void
replace_stop (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;

  if (!rec->repl_thread_started)
    return;
  pthread_mutex_lock (&rec->lock);
  atomic_store (&rec->repl_stop, true);
  pthread_cond_broadcast (&rec->cond);
  pthread_mutex_unlock (&rec->lock);
  pthread_join (rec->repl_thread, NULL);
  rec->repl_thread_started = false;
}

int
recovery_replace (struct raid_array *a, const char *member, unsigned r)
{
  struct raid_recovery *rec = &a->rec;
  struct member *m = &a->members[r];
  unsigned j;
  int err;

  if (!rec->on || !rec->thread_started)
    return recovery_add (a, member, true);      /* the refusals */
  if (atomic_load (&m->failed) || !a->meta.in_array[r]) {
    nbdkit_error ("replace: member %u (%s) is not in the array: %s takes "
                  "a failed or missing role as add --replace did", r,
                  m->name, member);
    return recovery_add (a, member, true);
  }
  pthread_mutex_lock (&add_lock);
  if (atomic_load (&rec->repl_role) >= 0 || recovery_unsynced (rec) ||
      sync_in_sync (&a->sync) != UINT64_MAX) {
    nbdkit_error ("replace: %s: a replacement, a rebuild or a resync runs; "
                  "wait until it is done", member);
    errno = EBUSY;
    goto err;
  }
  if (rec->repl_thread_started) {
    pthread_join (rec->repl_thread, NULL);
    rec->repl_thread_started = false;
  }
  pthread_mutex_lock (&rec->lock);
  for (j = 0; j < RAID_MAX_SPARES && rec->state[j] != SPARE_FREE; ++j)
    ;
  pthread_mutex_unlock (&rec->lock);
  if (j == RAID_MAX_SPARES) {
    nbdkit_error ("replace: %s: there are %d spares or replaced members "
                  "already", member, RAID_MAX_SPARES);
    errno = ENOSPC;
    goto err;
  }
  if (spare_open (a, j, member, true, NULL) == -1)
    goto err;
  /* Its own superblock, as a spare's, until it takes the role: a
   * restart in the middle finds a spare (md's would say replacement).
   * Nothing takes it meanwhile: it is never SPARE_READY.
   */
  pthread_mutex_lock (&a->meta.lock);
  if (spare_ready (a, j) == -1 || spare_write_sb_locked (a, j) == -1) {
    pthread_mutex_lock (&rec->lock);
    rec->state[j] = SPARE_FREE;
    pthread_mutex_unlock (&rec->lock);
    pthread_mutex_unlock (&a->meta.lock);
    spare_discard (&rec->spare[j]);
    goto err;
  }
  pthread_mutex_lock (&rec->lock);
  rec->state[j] = SPARE_REPLACING;
  pthread_mutex_unlock (&rec->lock);
  pthread_mutex_unlock (&a->meta.lock);

  /* From here on every client write reaches it too. */
  pthread_rwlock_wrlock (&rec->quiesce);
  rec->repl_slot = j;
  atomic_store (&rec->repl_pos, 0);
  atomic_store (&rec->repl_stop, false);
  atomic_store (&rec->repl_role, (int) r);
  pthread_rwlock_unlock (&rec->quiesce);
  nbdkit_error ("replace: %s is rebuilt as the replacement of member %u "
                "(%s), which serves until it is in sync (md's --replace)",
                member, r, m->name);
  err = pthread_create (&rec->repl_thread, NULL, replace_thread, a);
  if (err) {
    nbdkit_error ("replace: starting its thread: %s", strerror (err));
    pthread_rwlock_wrlock (&rec->quiesce);
    atomic_store (&rec->repl_role, -1);
    pthread_mutex_lock (&rec->lock);
    rec->state[j] = SPARE_READY;
    pthread_mutex_unlock (&rec->lock);
    pthread_rwlock_unlock (&rec->quiesce);
    errno = err;
    goto err;
  }
  rec->repl_thread_started = true;
  pthread_mutex_unlock (&add_lock);
  return 2;
 err:
  pthread_mutex_unlock (&add_lock);
  return -1;
}

void
recovery_replace_write (struct raid_array *a, struct plan *pl,
                        enum member_op op, uint32_t flags, const char *buf,
                        uint64_t offset)
{
  struct raid_recovery *rec = &a->rec;
  struct member_batch batch;
  struct ioset set;
  int r = atomic_load (&rec->repl_role);
  size_t i, n = 0;
  unsigned k;

  if (r < 0 || atomic_load (&rec->repl_stop))
    return;
  if (ioset_init (&set, pl->npieces) == -1) {
    atomic_store (&rec->repl_stop, true);
    return;
  }
  for (i = 0; i < pl->npieces; ++i)
    for (k = 0; k < pl->piece[i].ncopies; ++k)
      if (pl->piece[i].copy[k].member == (unsigned) r) {
        ioset_add (&set, i, &pl->piece[i], &pl->piece[i].copy[k]);
        n++;
      }
  if (n) {
    /* A fast zero the old member took is done the slow way here. */
    ioset_runs (&set, a->members, op, flags & ~MIO_FAST, (char *) buf,
                offset, RAID_RUN_MAX_SEGS, &batch);
    for (i = 0; i < set.nrun; ++i)
      set.io[i].member = &rec->spare[rec->repl_slot];
    member_run_batch_in (set.io, set.nrun, &batch);
    for (i = 0; i < set.nrun; ++i)
      if (set.io[i].err) {
        nbdkit_error ("replace: %s: %s: %s; the replacement is given up",
                      set.io[i].member->name, "write",
                      strerror (set.io[i].err));
        atomic_store (&rec->repl_stop, true);
        break;
      }
  }
  ioset_free (&set);
}

void
recovery_replace_flush (struct raid_array *a)
{
  struct raid_recovery *rec = &a->rec;
  struct member_io io;

  if (atomic_load (&rec->repl_role) < 0 || atomic_load (&rec->repl_stop))
    return;
  io = (struct member_io) { .op = MOP_FLUSH,
                            .member = &rec->spare[rec->repl_slot] };
  member_run_batch (&io, 1);
  if (io.err) {
    nbdkit_error ("replace: %s: flush: %s; the replacement is given up",
                  io.member->name, strerror (io.err));
    atomic_store (&rec->repl_stop, true);
  }
}

void
recovery_replace_view (struct raid_array *a, struct replace_view *v)
{
  struct raid_recovery *rec = &a->rec;
  int r = atomic_load (&rec->repl_role);

  *v = (struct replace_view) { .on = r >= 0 };
  if (r < 0)
    return;
  v->role = r;
  v->name = rec->spare[rec->repl_slot].name;
  v->done = atomic_load (&rec->repl_pos);
  v->total = raid_geom_size (a->geom);
}
