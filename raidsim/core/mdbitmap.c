/* raidsim: md's internal write-intent bitmap.  Pure functions, no I/O.
 *
 * Facts from Linux's drivers/md/md-bitmap.{h,c} (the format, and what
 * the kernel refuses when it loads one) and mdadm 4.2's super1.c,
 * bitmap.c and Create.c (where and how mdadm lays one out).
 *
 * The header, bitmap_super_t, 256 bytes, little-endian:
 *
 *     offset  field             what it holds
 *       0     magic             0x6d746962 ("bitm")
 *       4     version           4 (BITMAP_MAJOR_HI: bits little-endian)
 *       8     uuid[16]          the array's set_uuid
 *      24     events            the md superblock's events when the
 *                               bitmap was last written (written first)
 *      32     events_cleared    events when bits were last cleared
 *      40     sync_size         sectors of the array the bits cover
 *      48     state             bit 1: stale ("Out of date")
 *      52     chunksize         bytes of array per bit, a power of two
 *      56     daemon_sleep      seconds between sweeps that clear bits
 *      60     write_behind      0
 *      64     sectors_reserved  0 as mdadm writes it
 *      68     nodes             0 (not clustered)
 *      72     cluster_name[64]
 *     136     pad               zero
 *
 *   The bits follow at byte 256: bit k covers array bytes [k * chunksize,
 *   (k + 1) * chunksize), and a set bit means a write may have been in
 *   flight there, so its copies may differ.
 *
 * Where mdadm --create puts it on a version 1.2 member
 *
 *   bitmap_offset = 8 sectors after the superblock (so at byte 8192 of
 *   the member), MD_FEATURE_BITMAP_OFFSET in feature_map.  The room is
 *   the space mdadm keeps after the superblock (choose_bm_space of the
 *   members' used size: 4K up to 8G, 64K to 200G, then 128K), and the
 *   bad block log moves to just after the bitmap's own size rounded up
 *   to 4K.  data_offset is what it is without a bitmap.  The bits of the
 *   first 4K are written all ones (mdadm's write_bitmap1), so md resyncs
 *   a new array unless --assume-clean, which also marks it clean: md then
 *   loads the bits but does not resync, and clears them lazily.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "raidsim/mdbitmap.h"
#include "geometry-error.h"

enum {
  OFF_MAGIC = 0,
  OFF_VERSION = 4,
  OFF_UUID = 8,
  OFF_EVENTS = 24,
  OFF_EVENTS_CLEARED = 32,
  OFF_SYNC_SIZE = 40,
  OFF_STATE = 48,
  OFF_CHUNKSIZE = 52,
  OFF_DAEMON_SLEEP = 56,
  OFF_WRITE_BEHIND = 60,
  OFF_SECTORS_RESERVED = 64,
  OFF_NODES = 68,
  OFF_CLUSTER_NAME = 72,
};

static void
put32 (uint8_t *p, uint32_t v)
{
  p[0] = v;
  p[1] = v >> 8;
  p[2] = v >> 16;
  p[3] = v >> 24;
}

static void
put64 (uint8_t *p, uint64_t v)
{
  put32 (p, v);
  put32 (p + 4, v >> 32);
}

static uint32_t
get32 (const uint8_t *p)
{
  return p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
    (uint32_t) p[3] << 24;
}

static uint64_t
get64 (const uint8_t *p)
{
  return get32 (p) | (uint64_t) get32 (p + 4) << 32;
}

void
mdbm_encode (const struct mdbm *h, uint8_t *buf)
{
  memset (buf, 0, MDBM_HEADER_SIZE);
  put32 (buf + OFF_MAGIC, h->magic);
  put32 (buf + OFF_VERSION, h->version);
  memcpy (buf + OFF_UUID, h->uuid, 16);
  put64 (buf + OFF_EVENTS, h->events);
  put64 (buf + OFF_EVENTS_CLEARED, h->events_cleared);
  put64 (buf + OFF_SYNC_SIZE, h->sync_size);
  put32 (buf + OFF_STATE, h->state);
  put32 (buf + OFF_CHUNKSIZE, h->chunksize);
  put32 (buf + OFF_DAEMON_SLEEP, h->daemon_sleep);
  put32 (buf + OFF_WRITE_BEHIND, h->write_behind);
  put32 (buf + OFF_SECTORS_RESERVED, h->sectors_reserved);
  put32 (buf + OFF_NODES, h->nodes);
  memcpy (buf + OFF_CLUSTER_NAME, h->cluster_name, 64);
}

void
mdbm_unpack (const uint8_t *buf, struct mdbm *h)
{
  memset (h, 0, sizeof *h);
  h->magic = get32 (buf + OFF_MAGIC);
  h->version = get32 (buf + OFF_VERSION);
  memcpy (h->uuid, buf + OFF_UUID, 16);
  h->events = get64 (buf + OFF_EVENTS);
  h->events_cleared = get64 (buf + OFF_EVENTS_CLEARED);
  h->sync_size = get64 (buf + OFF_SYNC_SIZE);
  h->state = get32 (buf + OFF_STATE);
  h->chunksize = get32 (buf + OFF_CHUNKSIZE);
  h->daemon_sleep = get32 (buf + OFF_DAEMON_SLEEP);
  h->write_behind = get32 (buf + OFF_WRITE_BEHIND);
  h->sectors_reserved = get32 (buf + OFF_SECTORS_RESERVED);
  h->nodes = get32 (buf + OFF_NODES);
  memcpy (h->cluster_name, buf + OFF_CLUSTER_NAME, 64);
}

int
mdbm_decode (const uint8_t *buf, size_t len, struct mdbm *h)
{
  if (len < MDBM_HEADER_SIZE) {
    raid_set_error ("bitmap: %zu bytes, less than its %d-byte header",
                    len, MDBM_HEADER_SIZE);
    return -1;
  }
  mdbm_unpack (buf, h);
  if (h->magic != MDBM_MAGIC) {
    raid_set_error ("bitmap magic: %08" PRIx32 ", not %08" PRIx32
                    " (no bitmap where the superblock says)",
                    h->magic, MDBM_MAGIC);
    return -1;
  }
  if (h->version == MDBM_MAJOR_CLUSTERED || h->nodes != 0) {
    raid_set_error ("bitmap version: a clustered bitmap (version %" PRIu32
                    ", %" PRIu32 " nodes), which raidsim does not keep",
                    h->version, h->nodes);
    return -1;
  }
  if (h->version != MDBM_MAJOR_HI && h->version != MDBM_MAJOR_HOSTENDIAN) {
    raid_set_error ("bitmap version: %" PRIu32 ", not %d", h->version,
                    MDBM_MAJOR_HI);
    return -1;
  }
  if (h->chunksize < 512 || (h->chunksize & (h->chunksize - 1))) {
    raid_set_error ("bitmap chunksize: %" PRIu32 " bytes, not a power of "
                    "two of at least 512", h->chunksize);
    return -1;
  }
  if (h->daemon_sleep < 1) {
    raid_set_error ("bitmap daemon_sleep: 0 s, not at least 1");
    return -1;
  }
  if (h->sync_size == 0) {
    raid_set_error ("bitmap sync_size: 0 sectors");
    return -1;
  }
  return 0;
}

uint64_t
mdbm_bits (uint64_t sync_size, uint32_t chunksize)
{
  if (chunksize == 0)
    return 0;
  return (sync_size * 512 + chunksize - 1) / chunksize;
}

uint64_t
mdbm_bytes (const struct mdbm *h, unsigned boundary)
{
  uint64_t b = (mdbm_bits (h->sync_size, h->chunksize) + 7) / 8
    + MDBM_HEADER_SIZE;

  return (b + boundary - 1) / boundary * boundary;
}

uint64_t
mdbm_sync_size (int level, uint64_t size, uint32_t raid_disks,
                unsigned copies)
{
  if (level == 10 && copies > 0)
    return size / 2 * raid_disks / copies * 2;
  return size;
}

int
mdbm_choose_chunk (uint64_t sync_size, uint64_t room_sectors,
                   uint64_t requested, uint32_t *chunk)
{
  uint64_t max_bits, bits, min_chunk = MDBM_MIN_CHUNK, c;

  if (requested == 0 && room_sectors > 256)
    room_sectors = 256;         /* at most 128K of bitmap by default */
  if (room_sectors <= 1) {
    raid_set_error ("bitmap: no room for a bitmap on members this small");
    return -1;
  }
  max_bits = (room_sectors * 512 - MDBM_HEADER_SIZE) * 8;
  bits = sync_size * 512 / min_chunk + 1;
  while (bits > max_bits) {
    min_chunk *= 2;
    bits = (bits + 1) / 2;
  }
  if (requested == 0)
    c = min_chunk < MDBM_DEFAULT_CHUNK ? MDBM_DEFAULT_CHUNK : min_chunk;
  else {
    if (requested & (requested - 1)) {
      raid_set_error ("bitmap-chunk: %" PRIu64 " bytes is not a power of "
                      "two", requested);
      return -1;
    }
    if (requested < min_chunk) {
      raid_set_error ("bitmap-chunk: %" PRIu64 " bytes is too small: the "
                      "bits of this array in %" PRIu64 "-byte chunks would "
                      "not fit in the %" PRIu64 " sectors mdadm keeps for "
                      "them; at least %" PRIu64, requested, requested,
                      room_sectors, min_chunk);
      return -1;
    }
    c = requested;
  }
  if (c > UINT32_MAX / 2 + 1) {
    raid_set_error ("bitmap-chunk: %" PRIu64 " bytes is too large", c);
    return -1;
  }
  *chunk = c;
  return 0;
}

bool
mdbm_default_on (int level, uint64_t size)
{
  return level >= 1 && size / 2 > MDBM_DEFAULT_MIN_KIB;
}

uint64_t
mdbm_count (const uint8_t *bits, uint64_t nbits)
{
  uint64_t k, n = 0;

  for (k = 0; k + 8 <= nbits; k += 8)
    n += __builtin_popcount (bits[k / 8]);
  for (; k < nbits; ++k)
    n += mdbm_test (bits, k);
  return n;
}

void
mdbm_format_chunk (uint32_t bytes, char *buf)
{
  static const char *const suffix[] = { "B", "KB", "MB", "GB" };
  unsigned i = 0;

  while (bytes >> 10) {
    bytes >>= 10;
    i++;
  }
  snprintf (buf, 24, "%" PRIu32 " %s", bytes, suffix[i]);
}
