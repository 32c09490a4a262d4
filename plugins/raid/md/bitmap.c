/* nbdkit-raid-plugin: md's internal write-intent bitmap.  See bitmap.h
 * for what it does; here, how.
 *
 * Two images of the bitmap are kept: mem, the header and bits as they
 * are to be, and disk, the bits as last written to every live member.
 * A write needs its chunks' bits set in both.  One writer at a time
 * (the io mutex) writes mem to the members, whole (header and bits,
 * rounded to 4K: small; 4K up to 8G), with FUA, and then copies it to
 * disk.  The daemon clears bits in mem only for chunks with no write in
 * flight; a write that comes in after that finds its bit clear in mem,
 * sets it, and waits for a write of the bitmap that begins after it did
 * so, which the io mutex orders.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/mdbitmap.h"
#include "raidsim/mdrules.h"
#include "bitmap.h"
#include "state.h"

/* -D raid.bitmap=1 logs every bitmap write (nbdkit -v). */
NBDKIT_DLL_PUBLIC int raid_debug_bitmap = 0;

/* The array's bitmap (there is one array). */
struct raid_bitmap {
  bool on;                      /* the superblocks say there is one */
  uint64_t offset;              /* member byte offset of the header */
  uint64_t bytes;               /* header and bits, rounded to 4K */
  uint64_t nbits;
  uint64_t chunk;               /* array bytes per bit */
  bool stale;                   /* events behind the superblocks' */
  uint64_t nneeded;             /* chunks the resync must walk */

  pthread_mutex_t io;           /* one bitmap write at a time */
  pthread_mutex_t lock;         /* everything below */
  struct mdbm hdr;              /* what the next write says */
  uint8_t *mem;                 /* header + bits as they are to be */
  uint8_t *disk;                /* bits as last written everywhere */
  uint8_t *needed;              /* bits: the resync must sync it */
  uint16_t *pending;            /* writes in flight, per chunk */
  uint8_t *idle;                /* md's counter: 2 after a write ends,
                                 * one less per sweep, cleared at 0 */
  uint64_t writes;              /* bitmap writes (for the statistics) */
  uint64_t sweeps;              /* the daemon's sweeps done */
};

static struct raid_bitmap bitmap;

static uint8_t *
bits_of (uint8_t *image)
{
  return image + MDBM_HEADER_SIZE;
}

static bool
live (const struct raid_array *a, unsigned r)
{
  return a->meta.in_array[r] && !atomic_load (&a->members[r].failed);
}

/* md's mddev->degraded: a member is missing or failed, or is being
 * rebuilt (it counts as degraded until its recovery ends).  The bits of
 * chunks written meanwhile are what a re-add resyncs (md/spares.h).
 */
static bool
degraded (const struct raid_array *a)
{
  unsigned r;

  if (md_unsynced (a))
    return true;
  for (r = 0; r < a->nmembers; ++r)
    if (!live (a, r))
      return true;
  return false;
}

/* Read len bytes at offset, in whole blocks of the member. */
static int
read_region (struct member *m, uint8_t *buf, uint64_t offset, uint64_t len)
{
  uint64_t mb = m->min_block > 1 ? m->min_block : 1;
  uint64_t start = offset / mb * mb;
  uint64_t end = (offset + len + mb - 1) / mb * mb;
  uint8_t *b;
  int r;

  if (start == offset && end == offset + len)
    return member_read_early (m, buf, len, offset);
  b = malloc (end - start);
  if (b == NULL)
    return -1;
  r = member_read_early (m, b, end - start, start);
  if (r == 0)
    memcpy (buf, b + (offset - start), len);
  free (b);
  return r;
}

/* Read and check member m's bitmap header (format, UUID, size, and
 * against the members read before it, nread of them) into *h, and the
 * bytes its header and bits take.  Returns 0, or -1 after nbdkit_error.
 */
static int
check_member (struct raid_array *a, struct member *m, const struct mdsb *sb,
              unsigned nread, struct mdbm *h, uint64_t *bytes)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t size = raid_geom_size (a->geom);
  uint8_t hdrbuf[4096];

  if (m->min_block > 4096) {
    nbdkit_error ("member: %s wants %" PRIu32 "-byte blocks; its "
                  "write-intent bitmap is written in 4K blocks",
                  m->name, m->min_block);
    return -1;
  }
  if (read_region (m, hdrbuf, b->offset, sizeof hdrbuf) == -1) {
    nbdkit_error ("member: %s: reading its write-intent bitmap: %m",
                  m->name);
    return -1;
  }
  if (mdbm_decode (hdrbuf, sizeof hdrbuf, h) == -1) {
    nbdkit_error ("member: %s: its write-intent bitmap cannot be used: "
                  "%s", m->name, mdsb_error ());
    return -1;
  }
  if (memcmp (h->uuid, sb->set_uuid, 16) != 0) {
    nbdkit_error ("member: %s: its write-intent bitmap belongs to "
                  "another array (its UUID is not the superblock's)",
                  m->name);
    return -1;
  }
  *bytes = mdbm_bytes (h, 4096);
  if (mdbm_bits (h->sync_size, h->chunksize) * h->chunksize < size ||
      b->offset + *bytes > sb->data_offset * MDSB_SECTOR) {
    nbdkit_error ("member: %s: its write-intent bitmap covers %" PRIu64
                  " sectors in %" PRIu32 "-byte chunks, which does not "
                  "fit the array (%" PRIu64 " bytes) or the space before "
                  "its data", m->name, h->sync_size, h->chunksize, size);
    return -1;
  }
  if (nread && (h->chunksize != b->hdr.chunksize ||
                h->sync_size != b->hdr.sync_size)) {
    nbdkit_error ("member: %s: its write-intent bitmap's chunk or size "
                  "differs from the other members'", m->name);
    return -1;
  }
  return 0;
}

int
bitmap_assemble (struct raid_array *a)
{
  struct raid_bitmap *b = &bitmap;
  const struct mdsb *sb = NULL;
  uint64_t best = 0, k;
  uint8_t *img = NULL, *and = NULL;
  unsigned r, nread = 0, with = 0, without = 0;
  int ret = -1;

  if (!a->meta.on)
    return 0;
  for (r = 0; r < a->nmembers; ++r)
    if (a->meta.in_array[r]) {
      if (a->meta.sb[r].feature_map & MDSB_FEATURE_BITMAP_OFFSET) {
        with++;
        sb = &a->meta.sb[r];
      }
      else
        without++;
    }
  if (with == 0)
    return 0;
  if (without) {
    nbdkit_error ("member: the array's members disagree on whether it has "
                  "a write-intent bitmap (%u do, %u do not)", with, without);
    return -1;
  }
  if (sb->level < 1) {
    nbdkit_error ("member: a RAID 0 with a write-intent bitmap; md refuses "
                  "that too");
    return -1;
  }
  b->offset = ((int64_t) sb->super_offset + (int32_t) sb->bitmap_offset)
    * MDSB_SECTOR;
  if ((int32_t) sb->bitmap_offset <= 0 ||
      b->offset + 4096 > sb->data_offset * MDSB_SECTOR) {
    nbdkit_error ("member: bitmap_offset: %" PRId32 " sectors from the "
                  "superblock is not between it and the data",
                  (int32_t) sb->bitmap_offset);
    return -1;
  }

  for (r = 0; r < a->nmembers; ++r) {
    struct member *m = &a->members[r];
    struct mdbm h;
    uint64_t bytes;

    /* A member being rebuilt holds no bitmap yet: it gets the array's
     * at the next update (sync/rebuild.h).
     */
    if (!live (a, r) || (md_unsynced (a) & MD_BIT (r)))
      continue;
    if (check_member (a, m, sb, nread, &h, &bytes) == -1)
      goto out;
    if (nread == 0) {
      b->hdr = h;
      b->bytes = bytes;
      b->chunk = h.chunksize;
      b->nbits = mdbm_bits (h.sync_size, h.chunksize);
      img = malloc (bytes);
      and = malloc (bytes);
      b->mem = calloc (1, bytes);
      b->disk = calloc (1, bytes);
      b->needed = calloc (1, (b->nbits + 7) / 8);
      b->pending = calloc (b->nbits, sizeof *b->pending);
      b->idle = calloc (b->nbits, 1);
      if (!img || !and || !b->mem || !b->disk || !b->needed ||
          !b->pending || !b->idle) {
        nbdkit_error ("bitmap: %m");
        goto out;
      }
    }
    if (read_region (m, img, b->offset, bytes) == -1) {
      nbdkit_error ("member: %s: reading its write-intent bitmap: %m",
                    m->name);
      goto out;
    }
    /* disk: set only where every member has the bit. */
    if (nread == 0)
      memcpy (and, img, bytes);
    else
      for (k = 0; k < b->nbits; ++k)
        if (!mdbm_test (bits_of (img), k))
          mdbm_clear (bits_of (and), k);
    /* mem: the freshest header (and its padding), every member's bits. */
    if (nread == 0 || h.events > best) {
      for (k = 0; nread && k < b->nbits; ++k)
        if (mdbm_test (bits_of (b->mem), k))
          mdbm_set (bits_of (img), k);
      memcpy (b->mem, img, bytes);
      b->hdr = h;
      best = h.events;
    }
    else
      for (k = 0; k < b->nbits; ++k)
        if (mdbm_test (bits_of (img), k))
          mdbm_set (bits_of (b->mem), k);
    nread++;
  }
  if (nread == 0)
    return 0;                   /* cannot happen: assemble needs a member */
  memcpy (b->disk, and, b->bytes);
  for (k = 0; k < b->nbits; ++k)
    if (mdbm_test (bits_of (b->mem), k))
      b->idle[k] = 2;
  /* md_bitmap_read_sb: a bitmap older than the superblocks may have
   * missed bits; it is stale, and a resync then covers everything.
   */
  b->stale = b->hdr.events < a->meta.events ||
    (b->hdr.state & MDBM_STATE_STALE);
  pthread_mutex_init (&b->io, NULL);
  pthread_mutex_init (&b->lock, NULL);
  b->on = true;
  nbdkit_debug ("raid: write-intent bitmap: %" PRIu64 " chunks of %" PRIu64
                " bytes, %" PRIu64 " set, events %" PRIu64 "%s",
                b->nbits, b->chunk, mdbm_count (bits_of (b->mem), b->nbits),
                b->hdr.events, b->stale ? " (stale)" : "");
  ret = 0;
 out:
  free (img);
  free (and);
  return ret;
}

/* Write mem to every live member, with the io mutex held.  Members
 * that fail are failed (their bitmap would be wrong); *failed gets
 * them.  Returns 0, or -1 if no member took it.
 */
static int
flush_io_locked (struct raid_array *a, uint32_t *failed)
{
  struct raid_bitmap *b = &bitmap;
  struct member_io ios[RAID_MAX_MEMBERS];
  struct member_batch batch;
  unsigned r, n = 0, ok = 0, i;
  uint8_t *snap;

  *failed = 0;
  snap = malloc (b->bytes);
  if (snap == NULL) {
    nbdkit_error ("bitmap write: %m");
    return -1;
  }
  pthread_mutex_lock (&b->lock);
  mdbm_encode (&b->hdr, b->mem);
  memcpy (snap, b->mem, b->bytes);
  pthread_mutex_unlock (&b->lock);

  for (r = 0; r < a->nmembers; ++r)
    if (live (a, r))
      ios[n++] = (struct member_io) {
        .op = MOP_WRITE, .flags = MIO_FUA, .pieces = 1, .buf = snap,
        .offset = b->offset, .length = b->bytes, .member = &a->members[r],
        .batch = &batch,
      };
  if (n)
    member_run_batch_in (ios, n, &batch);
  for (i = 0; i < n; ++i) {
    if (ios[i].err == 0) {
      ok++;
      continue;
    }
    if (md_fail (a, ios[i].member->index, "bitmap write", ios[i].err))
      *failed |= UINT32_C (1) << ios[i].member->index;
  }
  if (ok == 0 || ok + __builtin_popcount (*failed) < n) {
    free (snap);
    nbdkit_error ("bitmap write: no live member, or one that holds the last "
                  "copy of some of the array, could not be written");
    return -1;
  }
  pthread_mutex_lock (&b->lock);
  memcpy (b->disk, snap, b->bytes);
  b->writes++;
  pthread_mutex_unlock (&b->lock);
  free (snap);
  if (raid_debug_bitmap)
    nbdkit_debug ("raid: bitmap written: events %" PRIu64 ", %u members",
                  b->hdr.events, ok);
  return 0;
}

static void
chunk_range (const struct raid_bitmap *b, uint64_t offset, uint64_t count,
             uint64_t *first, uint64_t *last)
{
  *first = offset / b->chunk;
  *last = (offset + count - 1) / b->chunk;
  if (*last >= b->nbits)
    *last = b->nbits - 1;
}

int
bitmap_start_write (struct raid_array *a, uint64_t offset, uint64_t count,
                    uint32_t *failed)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t first, last, k;
  bool need = false;
  int r = 0;

  *failed = 0;
  if (!b->on || count == 0)
    return 0;
  chunk_range (b, offset, count, &first, &last);
  pthread_mutex_lock (&b->lock);
  for (k = first; k <= last; ++k) {
    b->pending[k]++;
    if (!mdbm_test (bits_of (b->mem), k)) {
      mdbm_set (bits_of (b->mem), k);
      need = true;
    }
    else if (!mdbm_test (bits_of (b->disk), k))
      need = true;
  }
  pthread_mutex_unlock (&b->lock);
  if (!need)
    return 0;

  /* md_bitmap_unplug: the bits reach the disk before the data. */
  pthread_mutex_lock (&b->io);
  pthread_mutex_lock (&b->lock);
  need = false;
  for (k = first; k <= last && !need; ++k)
    need = !mdbm_test (bits_of (b->disk), k);
  pthread_mutex_unlock (&b->lock);
  if (need)
    r = flush_io_locked (a, failed);
  pthread_mutex_unlock (&b->io);
  if (r == -1)
    bitmap_end_write (a, offset, count);
  return r;
}

void
bitmap_end_write (struct raid_array *a, uint64_t offset, uint64_t count)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t first, last, k;

  if (!b->on || count == 0)
    return;
  chunk_range (b, offset, count, &first, &last);
  pthread_mutex_lock (&b->lock);
  for (k = first; k <= last; ++k) {
    b->pending[k]--;
    b->idle[k] = 2;
  }
  pthread_mutex_unlock (&b->lock);
}

void
bitmap_update_events (struct raid_array *a, uint64_t events)
{
  struct raid_bitmap *b = &bitmap;
  uint32_t failed;

  if (!b->on)
    return;
  pthread_mutex_lock (&b->io);
  pthread_mutex_lock (&b->lock);
  b->hdr.events = events;
  /* md_bitmap_update_sb: "rocking back" below events_cleared. */
  if (events < b->hdr.events_cleared)
    b->hdr.events_cleared = events;
  pthread_mutex_unlock (&b->lock);
  /* A member that fails here is failed; the superblock update that
   * follows (our caller) records it.
   */
  flush_io_locked (a, &failed);
  pthread_mutex_unlock (&b->io);
}

void
bitmap_sweep (struct raid_array *a, uint32_t *failed)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t in_sync = md_in_sync (a), k, cleared = 0;
  bool deg = degraded (a);

  *failed = 0;
  pthread_mutex_lock (&b->lock);
  for (k = 0; k < b->nbits; ++k) {
    if (!mdbm_test (bits_of (b->mem), k) || b->pending[k])
      continue;
    if (b->idle[k] > 1)
      b->idle[k]--;
    else if (!deg && (in_sync == UINT64_MAX ||
                      (k + 1) * b->chunk <= in_sync)) {
      mdbm_clear (bits_of (b->mem), k);
      b->idle[k] = 0;
      cleared++;
    }
  }
  if (cleared)
    b->hdr.events_cleared = b->hdr.events;
  b->sweeps++;
  pthread_mutex_unlock (&b->lock);
  if (cleared) {
    pthread_mutex_lock (&b->io);
    flush_io_locked (a, failed);
    pthread_mutex_unlock (&b->io);
    if (raid_debug_bitmap)
      nbdkit_debug ("raid: bitmap: %" PRIu64 " bits cleared", cleared);
  }
}

unsigned
bitmap_daemon_sleep (struct raid_array *a)
{
  return bitmap.hdr.daemon_sleep;
}

bool
bitmap_start (struct raid_array *a)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t k, from = 0;

  if (!b->on)
    return false;
  /* md_bitmap_init_from_disk: on a dirty array, the bits from the
   * resync position on are needed; all of them if the bitmap is stale.
   */
  b->nneeded = 0;
  if (a->meta.resync_offset != MDSB_RESYNC_DONE) {
    from = a->meta.resync_offset * MDSB_SECTOR;
    for (k = 0; k < b->nbits; ++k)
      if ((b->stale || mdbm_test (bits_of (b->mem), k)) &&
          (k + 1) * b->chunk > from) {
        mdbm_set (b->needed, k);
        b->nneeded++;
      }
    nbdkit_error ("bitmap: %" PRIu64 " of %" PRIu64 " chunks of %" PRIu64
                  " bytes to resync%s", b->nneeded, b->nbits, b->chunk,
                  b->stale ? " (the bitmap is stale: all of them)" : "");
  }
  b->hdr.state &= ~(uint32_t) MDBM_STATE_STALE;
  return true;
}

uint64_t
bitmap_next_needed (struct raid_array *a, uint64_t pos, uint64_t size,
                    uint64_t *len)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t k, end, run_end;

  if (!b->on)
    return pos;
  for (k = pos / b->chunk; k < b->nbits && !mdbm_test (b->needed, k); ++k)
    ;
  if (k >= b->nbits || k * b->chunk >= size)
    return size;
  if (k * b->chunk > pos)
    pos = k * b->chunk;
  for (end = k; end < b->nbits && mdbm_test (b->needed, end); ++end)
    ;
  run_end = end * b->chunk < size ? end * b->chunk : size;
  if (*len > run_end - pos)
    *len = run_end - pos;
  return pos;
}

void
bitmap_readd_view (struct raid_array *a, struct md_bitmap_view *v)
{
  struct raid_bitmap *b = &bitmap;

  *v = (struct md_bitmap_view) { .on = b->on };
  if (b->on) {
    pthread_mutex_lock (&b->lock);
    v->stale = b->stale || (b->hdr.state & MDBM_STATE_STALE);
    v->events_cleared = b->hdr.events_cleared;
    pthread_mutex_unlock (&b->lock);
  }
}

bool
bitmap_readd_ok (struct raid_array *a, uint64_t events, const char **why)
{
  struct md_bitmap_view v;

  bitmap_readd_view (a, &v);
  return md_readd_ok (&v, events, why);         /* raidsim/core/mdrules.c */
}

uint64_t
bitmap_events_cleared (struct raid_array *a)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t e;

  if (!b->on)
    return 0;
  pthread_mutex_lock (&b->lock);
  e = b->hdr.events_cleared;
  pthread_mutex_unlock (&b->lock);
  return e;
}

/* What a re-add from the bitmap rebuilds, on the bits as they are now
 * (raidsim/core/mdrules.c).
 */
bool
bitmap_dirty (struct raid_array *a, uint64_t offset, uint64_t len)
{
  struct raid_bitmap *b = &bitmap;
  bool dirty;

  if (!b->on)
    return true;
  pthread_mutex_lock (&b->lock);
  dirty = md_readd_needs (bits_of (b->mem), b->nbits, b->chunk, offset, len);
  pthread_mutex_unlock (&b->lock);
  return dirty;
}

uint64_t
bitmap_next_dirty (struct raid_array *a, uint64_t pos, uint64_t size)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t next;

  if (!b->on)
    return pos;
  pthread_mutex_lock (&b->lock);
  next = md_readd_next (bits_of (b->mem), b->nbits, b->chunk, pos, size);
  pthread_mutex_unlock (&b->lock);
  return next;
}

uint64_t
bitmap_dirty_bytes (struct raid_array *a, uint64_t pos, uint64_t size)
{
  struct raid_bitmap *b = &bitmap;
  uint64_t n;

  if (!b->on)
    return pos < size ? size - pos : 0;
  pthread_mutex_lock (&b->lock);
  n = md_readd_bytes (bits_of (b->mem), b->nbits, b->chunk, pos, size);
  pthread_mutex_unlock (&b->lock);
  return n;
}

void
bitmap_view (struct raid_array *a, struct bitmap_view *v)
{
  struct raid_bitmap *b = &bitmap;

  *v = (struct bitmap_view) { .on = b->on };
  if (!b->on)
    return;
  pthread_mutex_lock (&b->lock);
  v->chunk = b->chunk;
  v->chunks = b->nbits;
  v->dirty = mdbm_count (bits_of (b->mem), b->nbits);
  v->events = b->hdr.events;
  v->events_cleared = b->hdr.events_cleared;
  v->sweeps = b->sweeps;
  pthread_mutex_unlock (&b->lock);
}
