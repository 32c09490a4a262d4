/* nbdkit-raid-plugin: md superblocks on the members, read at config time
 * and written while the array runs, through the members' backends.  See
 * metadata.h for when they are written, and include/raidsim/mdsb.h for
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
 * last live copy of some chunk is never failed (request.c); if its
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

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "metadata.h"
#include "io/request.h"

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
metadata_read (struct member *m, struct member_md *md)
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


int
metadata_update_locked (struct raid_array *a, const char *why)
{
  struct raid_meta *meta = &a->meta;
  bool back = meta->rollback;

  meta->rollback = false;
  a->sync.can_decrease = false; /* sync.c sets it after a dirty mark */

  for (;;) {
    /* md_bitmap_update_sb: the bitmap's events first (bitmap.c). */
    bitmap_update_events (a, back ? meta->events - 1 : meta->events + 1);
    struct member_io ios[RAID_MAX_MEMBERS], w[RAID_MAX_MEMBERS];
    uint8_t *bufs[RAID_MAX_MEMBERS];
    unsigned role[RAID_MAX_MEMBERS];
    uint16_t roles[MDSB_MAX_DEV_LIMIT];
    uint32_t failed = failed_members (a);
    uint64_t events = back ? meta->events - 1 : meta->events + 1;
    uint64_t now = time (NULL);
    unsigned r, n = 0, nbad = 0;
    size_t i, nw = 0, map[RAID_MAX_MEMBERS];
    bool kept = false;

    for (i = 0; i < MDSB_MAX_DEV_LIMIT; ++i)
      roles[i] = MDSB_ROLE_SPARE;
    for (r = 0; r < a->nmembers; ++r)
      if (meta->in_array[r])
        roles[meta->sb[r].dev_number] =
          failed & (UINT32_C (1) << r) ? MDSB_ROLE_FAULTY : r;

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
      if (!request_mark_failed (a, role[i], "superblock write", ios[i].err))
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
metadata_start (struct raid_array *a)
{
  int r = 0;

  if (!a->meta.on || !writable (a))
    return 0;
  pthread_mutex_lock (&a->meta.lock);
  if (!a->meta.started) {
    r = metadata_update_locked (a, "start");
    if (r == 0)
      a->meta.started = true;
  }
  pthread_mutex_unlock (&a->meta.lock);
  return r;
}

int
metadata_record (struct raid_array *a, uint32_t members)
{
  int r = 0;

  if (!a->meta.on || (members & ~atomic_load (&a->meta.recorded)) == 0 ||
      !writable (a))
    return 0;
  pthread_mutex_lock (&a->meta.lock);
  if ((members & ~atomic_load (&a->meta.recorded)) != 0)
    r = metadata_update_locked (a, "a member failed");
  pthread_mutex_unlock (&a->meta.lock);
  return r;
}

void
metadata_stop (struct raid_array *a)
{
  if (!a->meta.on || !writable (a))
    return;
  pthread_mutex_lock (&a->meta.lock);
  if (a->meta.started)
    metadata_update_locked (a, "clean shutdown");
  pthread_mutex_unlock (&a->meta.lock);
}
