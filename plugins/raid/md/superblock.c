/* nbdkit-raid-plugin: md superblocks on the members, read at config time
 * and written while the array runs, through the members' backends.  See
 * superblock.h for when they are written, and include/raidsim/mdsb.h for
 * the format.
 *
 * An update, as md's md_update_sb does it: one more event; a role table
 * in which every member in the array has its role, or 0xfffe (faulty)
 * if it has failed since start, and every other slot 0xffff (a missing
 * member, or one left out as stale at start: md's kicked devices); this
 * moment as the update time; every live member's superblock written
 * with FUA, all at once, and waited for.  The rest of each member's
 * superblock is what it held.  Updates take turns under meta.lock.
 *
 * A superblock write that fails fails its member, as a failed data
 * write does, and the update goes round again without it, so that the
 * members that remain all say it has failed.  A member that holds the
 * last live copy of some chunk is never failed (md_fail, state.h); if its
 * superblock cannot be written, the update fails, and so does every
 * request that waits for it, until an update succeeds.
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
#include "bitmap.h"
#include "superblock.h"

/* md's magic numbers are at the start of every version's superblock,
 * followed by major_version: 0 for 0.90, 1 for the 1.x versions.
 */
static uint32_t
get32 (const uint8_t *p)
{
  return p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
    (uint32_t) p[3] << 24;
}

static bool
has_magic (const uint8_t *p, uint32_t major)
{
  return get32 (p) == MDSB_MAGIC && get32 (p + 4) == major;
}

/* The region of m that holds [offset, offset+length), grown to the
 * member's minimum block size (an NBD server may refuse less).
 */
static void
region (const struct member *m, uint64_t offset, uint64_t length,
        uint64_t *start, uint64_t *len)
{
  uint64_t mb = m->min_block > 1 ? m->min_block : 1;

  *start = offset & ~(mb - 1);
  *len = ((offset + length + mb - 1) & ~(mb - 1)) - *start;
}

/* Read length bytes at offset before start. */
static int
read_early (struct member *m, uint8_t *buf, uint64_t offset,
            uint64_t length)
{
  uint64_t start, len;
  uint8_t *b;
  int r;

  region (m, offset, length, &start, &len);
  if (start == offset && len == length)
    return member_read_early (m, buf, length, offset);
  b = malloc (len);
  if (b == NULL)
    return -1;
  r = member_read_early (m, b, len, start);
  if (r == 0)
    memcpy (buf, b + (offset - start), length);
  free (b);
  return r;
}

int
superblock_read (struct member *m, struct member_md *md)
{
  uint8_t buf[MDSB_SIZE];
  uint64_t size = m->size, off;

  memset (md, 0, sizeof *md);
  md->kind = MD_NONE;

  /* 1.2: 4K from the start. */
  if (size >= MDSB_OFFSET + MDSB_SIZE) {
    if (read_early (m, buf, MDSB_OFFSET, MDSB_SIZE) == -1)
      goto err;
    if (has_magic (buf, 1)) {
      md->kind = MD_V1_2;
      md->version = "1.2";
      if (mdsb_decode (buf, sizeof buf, &md->sb) == -1 ||
          mdsb_check_member (&md->sb, size / MDSB_SECTOR) == -1)
        snprintf (md->why, sizeof md->why, "%s", mdsb_error ());
      else
        md->valid = true;
      return 0;
    }
  }
  /* 1.1: at the start. */
  if (size >= MDSB_SIZE) {
    if (read_early (m, buf, 0, MDSB_SIZE) == -1)
      goto err;
    if (has_magic (buf, 1)) {
      md->kind = MD_OTHER;
      md->version = "1.1";
      return 0;
    }
  }
  /* 1.0: 8K to 12K from the end, on a 4K boundary (md's
   * (sectors - 16) & ~7).
   */
  if (size >= 3 * MDSB_SIZE) {
    off = ((size / MDSB_SECTOR - 16) & ~(uint64_t) 7) * MDSB_SECTOR;
    if (read_early (m, buf, off, MDSB_SIZE) == -1)
      goto err;
    if (has_magic (buf, 1)) {
      md->kind = MD_OTHER;
      md->version = "1.0";
      return 0;
    }
  }
  /* 0.90: 64K before the end rounded down to 64K. */
  if (size >= 2 * 65536) {
    off = (size & ~(uint64_t) 65535) - 65536;
    if (read_early (m, buf, off, MDSB_SIZE) == -1)
      goto err;
    if (has_magic (buf, 0)) {
      md->kind = MD_OTHER;
      md->version = "0.90";
      return 0;
    }
  }
  return 0;

 err:
  nbdkit_error ("member: %s: reading its md metadata: %m", m->name);
  return -1;
}

/* Nothing is written under nbdkit -r, nor to an array with a read-only
 * member (which nbdkit serves read-only: raid_can_write).
 */
static bool
writable (const struct raid_array *a)
{
  unsigned i;

  if (atomic_load (&a->no_writes))
    return false;
  for (i = 0; i < a->nmembers; ++i)
    if (a->members[i].read_only)
      return false;
  return true;
}


/* The role table every superblock says now: each member in the array
 * in its role, or faulty if it is in failed; every other slot empty.
 */
static void
fill_roles (const struct raid_array *a, uint32_t failed, uint16_t *roles)
{
  unsigned i, r;

  for (i = 0; i < MDSB_MAX_DEV_LIMIT; ++i)
    roles[i] = MDSB_ROLE_SPARE;
  for (r = 0; r < a->nmembers; ++r)
    if (a->meta.in_array[r])
      roles[a->meta.sb[r].dev_number] =
        failed & MD_BIT (r) ? MDSB_ROLE_FAULTY : r;
}

int
superblock_update_locked (struct raid_array *a, const char *why)
{
  struct raid_meta *meta = &a->meta;
  bool back = meta->rollback;

  meta->rollback = false;
  meta->can_decrease = false;   /* safemode.c sets it after a dirty mark */

  for (;;) {
    /* md_bitmap_update_sb: the bitmap's events first (bitmap.c). */
    bitmap_update_events (a, back ? meta->events - 1 : meta->events + 1);
    struct member_io ios[RAID_MAX_MEMBERS], w[RAID_MAX_MEMBERS];
    uint8_t *bufs[RAID_MAX_MEMBERS];
    unsigned role[RAID_MAX_MEMBERS];
    uint16_t roles[MDSB_MAX_DEV_LIMIT];
    uint32_t failed = md_failed (a);
    uint64_t events = back ? meta->events - 1 : meta->events + 1;
    uint64_t now = time (NULL);
    unsigned r, n = 0, nbad = 0;
    size_t i, nw = 0, map[RAID_MAX_MEMBERS];
    bool kept = false;

    fill_roles (a, failed, roles);

    for (r = 0; r < a->nmembers; ++r) {
      struct member *m = &a->members[r];
      struct mdsb sb;
      uint64_t start, len;

      if (!meta->in_array[r] || (failed & (UINT32_C (1) << r)))
        continue;
      region (m, MDSB_OFFSET, MDSB_SIZE, &start, &len);
      bufs[n] = malloc (len);
      if (bufs[n] == NULL) {
        nbdkit_error ("superblock update: %m");
        for (i = 0; i < n; ++i)
          free (bufs[i]);
        return -1;
      }
      role[n] = r;
      ios[n] = (struct member_io) {
        .op = MOP_READ, .buf = bufs[n], .offset = start, .length = len,
        .member = m,
      };
      /* A member that wants larger blocks than the superblock's 4K
       * gets the blocks around it read and written back whole; they
       * hold nothing but metadata (the data starts at data_offset).
       * A member whose read fails is not written, and fails below.
       */
      if (start != MDSB_OFFSET || len != MDSB_SIZE) {
        member_run_batch (&ios[n], 1);
        if (ios[n].err) {
          n++;
          continue;
        }
      }
      sb = meta->sb[r];
      sb.events = events;
      sb.utime = now;
      sb.max_dev = meta->max_dev;
      sb.resync_offset = meta->resync_offset;
      memcpy (sb.dev_roles, roles, sizeof roles);
      mdsb_encode (&sb, bufs[n] + (MDSB_OFFSET - start));
      ios[n].op = MOP_WRITE;
      ios[n].flags = MIO_FUA;
      map[nw] = n;
      w[nw++] = ios[n];
      n++;
    }
    member_run_batch (w, nw);
    for (i = 0; i < nw; ++i)
      ios[map[i]].err = w[i].err;
    meta->events = events;
    back = false;               /* a second round goes forward */

    for (i = 0; i < n; ++i) {
      free (bufs[i]);
      if (ios[i].err == 0)
        continue;
      nbad++;
      if (!md_fail (a, role[i], "superblock write", ios[i].err))
        kept = true;
    }
    if (kept) {
      nbdkit_error ("superblock update (%s): a member that holds the last "
                    "live copy of some of the array could not be written",
                    why);
      return -1;
    }
    if (nbad == 0) {
      atomic_store (&meta->recorded, failed);
      nbdkit_debug ("raid: superblocks updated (%s): events %" PRIu64
                    ", %u of %u members written", why, events, n,
                    a->nmembers);
      return 0;
    }
  }
}

int
superblock_start (struct raid_array *a)
{
  int r = 0;

  if (!a->meta.on || !writable (a))
    return 0;
  pthread_mutex_lock (&a->meta.lock);
  if (!a->meta.started) {
    r = superblock_update_locked (a, "start");
    if (r == 0)
      a->meta.started = true;
  }
  pthread_mutex_unlock (&a->meta.lock);
  return r;
}

int
superblock_record (struct raid_array *a, uint32_t members)
{
  int r = 0;

  if (!a->meta.on || (members & ~atomic_load (&a->meta.recorded)) == 0 ||
      !writable (a))
    return 0;
  pthread_mutex_lock (&a->meta.lock);
  if ((members & ~atomic_load (&a->meta.recorded)) != 0)
    r = superblock_update_locked (a, "a member failed");
  pthread_mutex_unlock (&a->meta.lock);
  return r;
}

void
superblock_stop (struct raid_array *a)
{
  if (!a->meta.on || !writable (a))
    return;
  pthread_mutex_lock (&a->meta.lock);
  if (a->meta.started)
    superblock_update_locked (a, "clean shutdown");
  pthread_mutex_unlock (&a->meta.lock);
}

/* ---- superblocks of new members -------------------------------------- */

static bool
slot_used (const struct raid_meta *meta, unsigned d)
{
  return meta->slot_used[d / 8] & (1u << (d % 8));
}

void
superblock_use_slot (struct raid_array *a, unsigned d)
{
  if (d < MDSB_MAX_DEV_LIMIT)
    a->meta.slot_used[d / 8] |= 1u << (d % 8);
  if (d < MDSB_MAX_DEV_LIMIT && d >= a->meta.max_dev)
    a->meta.max_dev = d + 1;
}

void
superblock_slots_from (struct raid_array *a, const struct mdsb *sb)
{
  unsigned d;

  for (d = 0; d < sb->max_dev && d < MDSB_MAX_DEV_LIMIT; ++d)
    if (sb->dev_roles[d] != MDSB_ROLE_SPARE)
      a->meta.slot_used[d / 8] |= 1u << (d % 8);
  if (sb->dev_number < MDSB_MAX_DEV_LIMIT)
    a->meta.slot_used[sb->dev_number / 8] |= 1u << (sb->dev_number % 8);
}

const struct mdsb *
superblock_ref (const struct raid_array *a)
{
  unsigned r;

  for (r = 0; r < a->nmembers; ++r)
    if (a->meta.in_array[r] && !atomic_load (&a->members[r].failed))
      return &a->meta.sb[r];
  return &a->meta.sb[0];
}

int
superblock_new (struct raid_array *a, const struct mdsb *ref,
                const struct member *m, unsigned role, struct mdsb *sb)
{
  struct raid_meta *meta = &a->meta;
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
  for (d = 0; d < MDSB_MAX_DEV_LIMIT && slot_used (meta, d); ++d)
    ;
  if (d == MDSB_MAX_DEV_LIMIT) {
    nbdkit_error ("member: %s: no free slot in the array's role table",
                  m->name);
    errno = ENOSPC;
    return -1;
  }
  meta->slot_used[d / 8] |= 1u << (d % 8);
  *sb = *ref;
  sb->dev_number = d;
  if (d >= sb->max_dev)
    sb->max_dev = d + 1;
  if (sb->max_dev > meta->max_dev)
    meta->max_dev = sb->max_dev;
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

int
superblock_write_spare_locked (struct raid_array *a, struct member *m,
                               const struct mdsb *spare_sb)
{
  struct mdsb sb = *spare_sb;
  struct member_io io;
  uint8_t *buf;

  if (posix_memalign ((void **) &buf, 4096, MDSB_SIZE) != 0)
    return -1;
  fill_roles (a, md_failed (a), sb.dev_roles);
  sb.max_dev = a->meta.max_dev > sb.max_dev ? a->meta.max_dev : sb.max_dev;
  sb.events = a->meta.events;
  sb.utime = time (NULL);
  sb.resync_offset = a->meta.resync_offset;
  mdsb_encode (&sb, buf);
  io = (struct member_io) {
    .op = MOP_WRITE, .flags = MIO_FUA, .buf = buf, .offset = MDSB_OFFSET,
    .length = MDSB_SIZE, .member = m,
  };
  member_run_batch (&io, 1);
  free (buf);
  if (io.err) {
    errno = io.err;
    nbdkit_error ("spare: %s: writing its superblock: %m", m->name);
    return -1;
  }
  return 0;
}

/* ---- md's super_1_validate: members out of sync at assembly ----------- */

/* Roles re-added at assembly: in full or from the bitmap, which is read
 * after them (superblock_validate_bitmap).
 */
static uint32_t readd_at_start;

void
superblock_validate (struct raid_array *a, unsigned r,
                     enum superblock_rebuild kind)
{
  struct mdsb *sb = &a->meta.sb[r];
  struct member *m = &a->members[r];
  uint64_t pos = 0;

  if (kind == SB_REBUILD_RESUME)
    pos = md_recovery_resume (a->geom, r, sb->recovery_offset * MDSB_SECTOR,
                              MD_SYNC_REGION);
  sb->feature_map |= MDSB_FEATURE_RECOVERY_OFFSET;
  sb->recovery_offset = md_recovery_offset (a->geom, r, pos) / MDSB_SECTOR;
  atomic_store (&a->rebuilt[r], pos);
  atomic_fetch_or (&a->unsynced, MD_BIT (r));
  a->meta.in_array[r] = true;
  atomic_store (&m->failed, false);
  atomic_fetch_and (&a->meta.recorded, ~MD_BIT (r));
  switch (kind) {
  case SB_REBUILD_READD:
    /* In full or from the bitmap: superblock_validate_bitmap says. */
    readd_at_start |= MD_BIT (r);
    break;
  case SB_REBUILD_NEW:
    nbdkit_error ("member %u (%s) is blank: it takes role %u as a new "
                  "member (md's --add), with a superblock of its own, and "
                  "is rebuilt from the live copies", r, m->name, r);
    break;
  case SB_REBUILD_RESUME:
    nbdkit_error ("member %u (%s) was being rebuilt: its recovery goes on "
                  "from array offset %" PRIu64 " (recovery_offset %"
                  PRIu64 " sectors); nothing above it is read", r, m->name,
                  pos, sb->recovery_offset);
    break;
  }
}

void
superblock_validate_bitmap (struct raid_array *a)
{
  unsigned r;

  for (r = 0; r < a->nmembers; ++r) {
    struct mdsb *sb = &a->meta.sb[r];
    const char *name = a->members[r].name, *why;
    bool ok;

    if (readd_at_start & MD_BIT (r)) {
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
    else if ((md_unsynced (a) & MD_BIT (r)) &&
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
      atomic_fetch_or (&a->from_bitmap, MD_BIT (r));
    }
    else
      sb->feature_map &= ~MDSB_FEATURE_RECOVERY_BITMAP;
  }
  readd_at_start = 0;
}
