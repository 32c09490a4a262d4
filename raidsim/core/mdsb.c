/* raidsim: md's version 1.2 superblock.  Pure functions, no I/O.
 *
 * Linux md keeps an array's identity and state in a superblock on every
 * member.  raidsim writes md's own format so that its member images are
 * real md members: mdadm --examine reads them, and a kernel with the md
 * module assembles them.  The facts below are from Linux's
 * include/uapi/linux/raid/md_p.h (the format) and from mdadm 4.2's
 * super1.c and Create.c (what mdadm writes when it creates an array),
 * the mdadm that Debian 12 ships.
 *
 * The format
 *
 *   Version 1.2 puts the superblock 4 KiB (8 sectors) from the start of
 *   each member.  Every number is little-endian; sizes and offsets are in
 *   512-byte sectors.  A 256-byte header is followed by a table of 16-bit
 *   roles, one per device slot, max_dev of them:
 *
 *     offset  field           what it holds
 *       0     magic           0xa92b4efc
 *       4     major_version   1
 *       8     feature_map     optional parts in use (MDSB_FEATURE_*)
 *      12     pad0            0
 *      16     set_uuid[16]    the array's UUID, the same on every member
 *      32     set_name[32]    the array's name, NUL-padded
 *      64     ctime           creation time: seconds in the low 40 bits
 *      72     level           0, 1, 10 (-1 linear, 4, 5, 6 ...)
 *      76     layout          RAID 10: near | far << 8; RAID 0: see below
 *      80     size            sectors of each member the array uses
 *      88     chunksize       sectors
 *      92     raid_disks      members in a complete array
 *      96     bitmap_offset   sectors from the superblock (or ppl)
 *     100     new_level .. new_offset     reshape; 0 when not reshaping
 *     128     data_offset     sector where array data starts on the member
 *     136     data_size       sectors from there that may hold data
 *     144     super_offset    sector of this superblock: 8 for 1.2
 *     152     recovery_offset
 *     160     dev_number      this member's slot in dev_roles[]
 *     164     cnt_corrected_read
 *     168     device_uuid[16] this member's own UUID
 *     184     devflags        write-mostly, failfast
 *     185     bblog_shift, 186 bblog_size, 188 bblog_offset (bad blocks)
 *     192     utime           last update, as ctime
 *     200     events          bumped at every superblock update
 *     208     resync_offset   sectors known in sync; all ones when clean
 *     216     sb_csum         the checksum below
 *     220     max_dev         entries of dev_roles[]
 *     224     pad3[32]        0
 *     256     dev_roles[]     role of slot i: 0.. active, 0xffff spare or
 *                             unused, 0xfffe faulty
 *
 *   The checksum sums the 32-bit words of the first 256 + 2 * max_dev
 *   bytes (a last 16-bit word alone), with sb_csum taken as 0, in a 64-bit
 *   sum whose carry is then added back into the low 32 bits once.
 *   Neither the kernel nor mdadm reads a superblock whose magic,
 *   major_version or super_offset is wrong; the kernel also refuses a
 *   wrong checksum, unknown feature bits and non-zero padding.
 *
 * What mdadm 4.2 writes on --create, and so what we write
 *
 *   - data_offset: chosen from the first member's size and the chunk
 *     (mdsb_default_data_offset): room for 12K of metadata, the bitmap
 *     space below and a reshape headroom of about 0.1% of the member
 *     (at most 128M, halved while the member is smaller than 1024 times
 *     it, but not below twice the chunk), rounded up to 1M.  Small members
 *     get 1M (2048 sectors); a 64M member with 512K chunks gets 2M, since
 *     the headroom stays at two chunks; a 1T member gets 129M (264192
 *     sectors), which is what mdadm --examine shows on large disks.  The
 *     same data_offset is used on every member.
 *   - data_size: each member's own sectors from data_offset to its end.
 *   - size: 0 on RAID 0, whose members each use their own data_size
 *     rounded down to the chunk; on RAID 1 the smallest member's space
 *     rounded down to 64K; on RAID 10 rounded down to the chunk.
 *   - max_dev: the role table rounded up so that the superblock fills
 *     whole sectors: 128 for up to 128 members.  Slots past the members
 *     hold 0xffff; a missing member's slot too.
 *   - dev_number: the member's position on the command line; its role
 *     is the same number (no spares).
 *   - events 0; ctime = utime = now, in whole seconds.
 *   - resync_offset: all ones (clean) for RAID 0, 0 for RAID 1 and 10
 *     (the kernel resyncs them when it first starts them) unless
 *     --assume-clean.
 *   - A bad block log of 8 sectors right after the space mdadm keeps for
 *     a bitmap (mdsb_bitmap_space), which is 4K for arrays up to 8G.
 *   - RAID 10 layout: near copies in the low byte, far copies (1) in the
 *     next: 0x102 for two near copies.
 *   - RAID 0 layout: mdadm 4.2 sets MDSB_FEATURE_RAID0_LAYOUT only when
 *     the members differ in size (then the array has several zones, and
 *     the layout matters), and by default writes layout 1, "original".
 *     raidsim's geometry is md's "alternate" layout (2, the zone-relative
 *     one; raidsim/core/geometry.c), so raidsim writes 2, which is what
 *     mdadm --create --layout=alternate writes.  mdadm compares the
 *     members' sizes in its own mixed units (bytes less sectors, over the
 *     chunk in sectors), so it also sets the feature for members that
 *     differ by less than a chunk; raidsim sets it exactly when the
 *     geometry has more than one zone, which is when md needs it.
 *
 * An internal write-intent bitmap (mdadm's default on RAID 1 and 10
 * whose members use more than 100G, or --bitmap=internal) sets
 * MDSB_FEATURE_BITMAP_OFFSET and bitmap_offset 8, and moves the bad
 * block log to just after the bitmap; its format is mdbitmap.c's.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/mdsb.h"
#include "raidsim/geometry.h"
#include "geometry-error.h"

/* Byte offsets of the fields in the encoded superblock (md_p.h's struct
 * mdp_superblock_1).  tests/unit/test-mdsb.c checks each against the
 * kernel's own header.
 */
enum {
  OFF_MAGIC = 0,
  OFF_MAJOR_VERSION = 4,
  OFF_FEATURE_MAP = 8,
  OFF_PAD0 = 12,
  OFF_SET_UUID = 16,
  OFF_SET_NAME = 32,
  OFF_CTIME = 64,
  OFF_LEVEL = 72,
  OFF_LAYOUT = 76,
  OFF_SIZE = 80,
  OFF_CHUNKSIZE = 88,
  OFF_RAID_DISKS = 92,
  OFF_BITMAP_OFFSET = 96,
  OFF_NEW_LEVEL = 100,
  OFF_RESHAPE_POSITION = 104,
  OFF_DELTA_DISKS = 112,
  OFF_NEW_LAYOUT = 116,
  OFF_NEW_CHUNK = 120,
  OFF_NEW_OFFSET = 124,
  OFF_DATA_OFFSET = 128,
  OFF_DATA_SIZE = 136,
  OFF_SUPER_OFFSET = 144,
  OFF_RECOVERY_OFFSET = 152,
  OFF_DEV_NUMBER = 160,
  OFF_CNT_CORRECTED_READ = 164,
  OFF_DEVICE_UUID = 168,
  OFF_DEVFLAGS = 184,
  OFF_BBLOG_SHIFT = 185,
  OFF_BBLOG_SIZE = 186,
  OFF_BBLOG_OFFSET = 188,
  OFF_UTIME = 192,
  OFF_EVENTS = 200,
  OFF_RESYNC_OFFSET = 208,
  OFF_SB_CSUM = 216,
  OFF_MAX_DEV = 220,
  OFF_PAD3 = 224,
  OFF_DEV_ROLES = 256,
};

#define SECTORS_PER_MIB 2048
#define CTIME_SEC_MASK ((UINT64_C (1) << 40) - 1)
/* The kernel refuses a data_size smaller than this. */
#define MIN_DATA_SIZE 10

/* Errors go to the core's one per-thread message (geometry-error.h). */
#define set_error raid_set_error

const char *
mdsb_error (void)
{
  return raid_geom_error ();
}

static void
put16 (uint8_t *p, uint16_t v)
{
  p[0] = v;
  p[1] = v >> 8;
}

static void
put32 (uint8_t *p, uint32_t v)
{
  put16 (p, v);
  put16 (p + 2, v >> 16);
}

static void
put64 (uint8_t *p, uint64_t v)
{
  put32 (p, v);
  put32 (p + 4, v >> 32);
}

static uint16_t
get16 (const uint8_t *p)
{
  return p[0] | (uint16_t) p[1] << 8;
}

static uint32_t
get32 (const uint8_t *p)
{
  return get16 (p) | (uint32_t) get16 (p + 2) << 16;
}

static uint64_t
get64 (const uint8_t *p)
{
  return get32 (p) | (uint64_t) get32 (p + 4) << 32;
}

static uint64_t
round_up (uint64_t v, uint64_t unit)
{
  return (v + unit - 1) / unit * unit;
}

/* Bytes the checksum covers, and that must be read, for max_dev roles. */
static size_t
sb_bytes (uint32_t max_dev)
{
  return MDSB_HEADER_SIZE + 2 * (size_t) max_dev;
}

int
mdsb_checksum (const uint8_t *buf, size_t len, uint32_t *csum)
{
  uint32_t max_dev;
  size_t n, i;
  uint64_t sum = 0;

  if (len < MDSB_HEADER_SIZE) {
    set_error ("superblock: %zu bytes, less than the %d-byte header",
               len, MDSB_HEADER_SIZE);
    return -1;
  }
  max_dev = get32 (buf + OFF_MAX_DEV);
  if (max_dev > MDSB_MAX_DEV_LIMIT || sb_bytes (max_dev) > len) {
    set_error ("max_dev: %" PRIu32 " roles do not fit in %zu bytes "
               "(at most %d in a 4K superblock)",
               max_dev, len, MDSB_MAX_DEV_LIMIT);
    return -1;
  }
  n = sb_bytes (max_dev);
  for (i = 0; i + 4 <= n; i += 4)
    if (i != OFF_SB_CSUM)
      sum += get32 (buf + i);
  if (i < n)                    /* an odd number of roles */
    sum += get16 (buf + i);
  *csum = (uint32_t) ((sum & UINT32_MAX) + (sum >> 32));
  return 0;
}

uint32_t
mdsb_encode (const struct mdsb *sb, uint8_t *buf)
{
  uint32_t csum;
  unsigned i;

  memset (buf, 0, MDSB_SIZE);
  put32 (buf + OFF_MAGIC, sb->magic);
  put32 (buf + OFF_MAJOR_VERSION, sb->major_version);
  put32 (buf + OFF_FEATURE_MAP, sb->feature_map);
  put32 (buf + OFF_PAD0, sb->pad0);
  memcpy (buf + OFF_SET_UUID, sb->set_uuid, 16);
  memcpy (buf + OFF_SET_NAME, sb->set_name, 32);
  put64 (buf + OFF_CTIME, sb->ctime);
  put32 (buf + OFF_LEVEL, (uint32_t) sb->level);
  put32 (buf + OFF_LAYOUT, sb->layout);
  put64 (buf + OFF_SIZE, sb->size);
  put32 (buf + OFF_CHUNKSIZE, sb->chunksize);
  put32 (buf + OFF_RAID_DISKS, sb->raid_disks);
  put32 (buf + OFF_BITMAP_OFFSET, sb->bitmap_offset);
  put32 (buf + OFF_NEW_LEVEL, sb->new_level);
  put64 (buf + OFF_RESHAPE_POSITION, sb->reshape_position);
  put32 (buf + OFF_DELTA_DISKS, sb->delta_disks);
  put32 (buf + OFF_NEW_LAYOUT, sb->new_layout);
  put32 (buf + OFF_NEW_CHUNK, sb->new_chunk);
  put32 (buf + OFF_NEW_OFFSET, sb->new_offset);
  put64 (buf + OFF_DATA_OFFSET, sb->data_offset);
  put64 (buf + OFF_DATA_SIZE, sb->data_size);
  put64 (buf + OFF_SUPER_OFFSET, sb->super_offset);
  put64 (buf + OFF_RECOVERY_OFFSET, sb->recovery_offset);
  put32 (buf + OFF_DEV_NUMBER, sb->dev_number);
  put32 (buf + OFF_CNT_CORRECTED_READ, sb->cnt_corrected_read);
  memcpy (buf + OFF_DEVICE_UUID, sb->device_uuid, 16);
  buf[OFF_DEVFLAGS] = sb->devflags;
  buf[OFF_BBLOG_SHIFT] = sb->bblog_shift;
  put16 (buf + OFF_BBLOG_SIZE, sb->bblog_size);
  put32 (buf + OFF_BBLOG_OFFSET, sb->bblog_offset);
  put64 (buf + OFF_UTIME, sb->utime);
  put64 (buf + OFF_EVENTS, sb->events);
  put64 (buf + OFF_RESYNC_OFFSET, sb->resync_offset);
  put32 (buf + OFF_MAX_DEV, sb->max_dev);
  memcpy (buf + OFF_PAD3, sb->pad3, 32);
  for (i = 0; i < MDSB_MAX_DEV_LIMIT; ++i)
    put16 (buf + OFF_DEV_ROLES + 2 * i,
           i < sb->max_dev ? sb->dev_roles[i] : MDSB_ROLE_SPARE);

  if (mdsb_checksum (buf, MDSB_SIZE, &csum) == -1)
    abort ();                   /* max_dev > MDSB_MAX_DEV_LIMIT: a bug */
  put32 (buf + OFF_SB_CSUM, csum);
  return csum;
}

int
mdsb_unpack (const uint8_t *buf, size_t len, struct mdsb *sb)
{
  unsigned i, nroles;

  if (len < MDSB_HEADER_SIZE) {
    set_error ("superblock: %zu bytes, less than the %d-byte header",
               len, MDSB_HEADER_SIZE);
    return -1;
  }
  memset (sb, 0, sizeof *sb);
  sb->magic = get32 (buf + OFF_MAGIC);
  sb->major_version = get32 (buf + OFF_MAJOR_VERSION);
  sb->feature_map = get32 (buf + OFF_FEATURE_MAP);
  sb->pad0 = get32 (buf + OFF_PAD0);
  memcpy (sb->set_uuid, buf + OFF_SET_UUID, 16);
  memcpy (sb->set_name, buf + OFF_SET_NAME, 32);
  sb->ctime = get64 (buf + OFF_CTIME);
  sb->level = (int32_t) get32 (buf + OFF_LEVEL);
  sb->layout = get32 (buf + OFF_LAYOUT);
  sb->size = get64 (buf + OFF_SIZE);
  sb->chunksize = get32 (buf + OFF_CHUNKSIZE);
  sb->raid_disks = get32 (buf + OFF_RAID_DISKS);
  sb->bitmap_offset = get32 (buf + OFF_BITMAP_OFFSET);
  sb->new_level = get32 (buf + OFF_NEW_LEVEL);
  sb->reshape_position = get64 (buf + OFF_RESHAPE_POSITION);
  sb->delta_disks = get32 (buf + OFF_DELTA_DISKS);
  sb->new_layout = get32 (buf + OFF_NEW_LAYOUT);
  sb->new_chunk = get32 (buf + OFF_NEW_CHUNK);
  sb->new_offset = get32 (buf + OFF_NEW_OFFSET);
  sb->data_offset = get64 (buf + OFF_DATA_OFFSET);
  sb->data_size = get64 (buf + OFF_DATA_SIZE);
  sb->super_offset = get64 (buf + OFF_SUPER_OFFSET);
  sb->recovery_offset = get64 (buf + OFF_RECOVERY_OFFSET);
  sb->dev_number = get32 (buf + OFF_DEV_NUMBER);
  sb->cnt_corrected_read = get32 (buf + OFF_CNT_CORRECTED_READ);
  memcpy (sb->device_uuid, buf + OFF_DEVICE_UUID, 16);
  sb->devflags = buf[OFF_DEVFLAGS];
  sb->bblog_shift = buf[OFF_BBLOG_SHIFT];
  sb->bblog_size = get16 (buf + OFF_BBLOG_SIZE);
  sb->bblog_offset = get32 (buf + OFF_BBLOG_OFFSET);
  sb->utime = get64 (buf + OFF_UTIME);
  sb->events = get64 (buf + OFF_EVENTS);
  sb->resync_offset = get64 (buf + OFF_RESYNC_OFFSET);
  sb->sb_csum = get32 (buf + OFF_SB_CSUM);
  sb->max_dev = get32 (buf + OFF_MAX_DEV);
  memcpy (sb->pad3, buf + OFF_PAD3, 32);

  nroles = (len - MDSB_HEADER_SIZE) / 2;
  if (nroles > MDSB_MAX_DEV_LIMIT)
    nroles = MDSB_MAX_DEV_LIMIT;
  for (i = 0; i < MDSB_MAX_DEV_LIMIT; ++i)
    sb->dev_roles[i] = i < nroles && i < sb->max_dev
      ? get16 (buf + OFF_DEV_ROLES + 2 * i) : MDSB_ROLE_SPARE;
  return 0;
}

static bool
all_zero (const uint8_t *p, size_t n)
{
  size_t i;

  for (i = 0; i < n; ++i)
    if (p[i])
      return false;
  return true;
}

int
mdsb_decode (const uint8_t *buf, size_t len, struct mdsb *sb)
{
  uint32_t csum;

  if (mdsb_unpack (buf, len, sb) == -1)
    return -1;
  if (sb->magic != MDSB_MAGIC) {
    set_error ("magic: %08" PRIx32 ", not md's %08" PRIx32
               " (no md superblock)", sb->magic, MDSB_MAGIC);
    return -1;
  }
  if (sb->major_version != 1) {
    set_error ("major_version: %" PRIu32 ", not 1", sb->major_version);
    return -1;
  }
  if (mdsb_checksum (buf, len, &csum) == -1)
    return -1;
  if (csum != sb->sb_csum) {
    set_error ("sb_csum: %" PRIx32 " on disk, %" PRIx32 " computed "
               "(the superblock is damaged)", sb->sb_csum, csum);
    return -1;
  }
  if (sb->feature_map & ~MDSB_FEATURE_ALL) {
    set_error ("feature_map: unknown feature bits %#" PRIx32,
               sb->feature_map & ~(uint32_t) MDSB_FEATURE_ALL);
    return -1;
  }
  if (sb->pad0 != 0 || !all_zero (sb->pad3, sizeof sb->pad3)) {
    set_error ("%s: not zero (written by a newer md?)",
               sb->pad0 ? "pad0" : "pad3");
    return -1;
  }
  if (sb->data_size < MIN_DATA_SIZE) {
    set_error ("data_size: %" PRIu64 " sectors is too small", sb->data_size);
    return -1;
  }
  return 0;
}

int
mdsb_check_member (const struct mdsb *sb, uint64_t member_sectors)
{
  uint64_t sb_sectors = round_up (sb_bytes (sb->max_dev), MDSB_SECTOR)
    / MDSB_SECTOR;

  if (sb->super_offset != MDSB_SUPER_OFFSET) {
    set_error ("super_offset: %" PRIu64 " sectors, not %d "
               "(not a version 1.2 superblock)",
               sb->super_offset, MDSB_SUPER_OFFSET);
    return -1;
  }
  if (sb->data_offset < sb->super_offset + sb_sectors) {
    set_error ("data_offset: %" PRIu64 " sectors, inside the superblock "
               "(which ends at sector %" PRIu64 ")",
               sb->data_offset, sb->super_offset + sb_sectors);
    return -1;
  }
  if (sb->data_offset > member_sectors ||
      sb->data_size > member_sectors - sb->data_offset) {
    set_error ("data_size: %" PRIu64 " sectors from sector %" PRIu64
               " run past the member's end (%" PRIu64 " sectors)",
               sb->data_size, sb->data_offset, member_sectors);
    return -1;
  }
  if (sb->level > 0 && sb->size > sb->data_size) {
    set_error ("size: %" PRIu64 " sectors used, more than data_size (%"
               PRIu64 ")", sb->size, sb->data_size);
    return -1;
  }
  return 0;
}

uint64_t
mdsb_bitmap_space (uint64_t size)
{
  /* Nothing for tiny arrays, 128K from 200G, 64K from 8G, else 4K. */
  if (size < 128)
    return 0;
  if (size - 128 >= UINT64_C (200) << 21)
    return 256;
  if (size - 8 > UINT64_C (8) << 21)
    return 128;
  return 8;
}

uint64_t
mdsb_default_data_offset (uint64_t member_sectors, uint32_t chunk_sectors)
{
  /* The reshape headroom: 128M, halved while the member is smaller than
   * 1024 times it (so about 0.1% of the member), but never below twice
   * the chunk when there is one.
   */
  uint64_t headroom = UINT64_C (128) * SECTORS_PER_MIB;

  while ((headroom << 10) > member_sectors &&
         (chunk_sectors == 0 || headroom / 2 >= 2 * (uint64_t) chunk_sectors))
    headroom >>= 1;
  /* 12K for the superblock (24 sectors), the bitmap space mdadm keeps for
   * a member this size, the headroom; rounded up to 1M.
   */
  return round_up (24 + mdsb_bitmap_space (member_sectors) + headroom,
                   SECTORS_PER_MIB);
}

int
mdsb_build (struct mdsb *sb, const struct mdsb_array *a,
            const struct mdsb_device *d)
{
  size_t namelen = a->name ? strlen (a->name) : 0;
  uint64_t bm_space;
  unsigned i;

  if (namelen > sizeof sb->set_name) {
    set_error ("set_name: '%s' is longer than %zu bytes",
               a->name, sizeof sb->set_name);
    return -1;
  }
  if (a->ndevs == 0 || a->ndevs > MDSB_MAX_DEV_LIMIT) {
    set_error ("max_dev: %u device slots, not 1 to %d",
               a->ndevs, MDSB_MAX_DEV_LIMIT);
    return -1;
  }
  if (d->dev_number >= a->ndevs) {
    set_error ("dev_number: %" PRIu32 " is outside the %u slots",
               d->dev_number, a->ndevs);
    return -1;
  }

  memset (sb, 0, sizeof *sb);
  sb->magic = MDSB_MAGIC;
  sb->major_version = 1;
  sb->feature_map = a->feature_map;
  memcpy (sb->set_uuid, a->uuid, 16);
  if (namelen)
    memcpy (sb->set_name, a->name, namelen);
  sb->ctime = a->ctime & CTIME_SEC_MASK;
  sb->level = a->level;
  sb->layout = a->layout;
  sb->size = a->size;
  sb->chunksize = a->chunksize;
  sb->raid_disks = a->raid_disks;

  sb->data_offset = a->data_offset;
  sb->data_size = d->data_size;
  sb->super_offset = MDSB_SUPER_OFFSET;
  sb->dev_number = d->dev_number;
  memcpy (sb->device_uuid, d->uuid, 16);

  /* The bad block log: 8 sectors after the bitmap space mdadm keeps at
   * 8 sectors past the superblock, or, if data_offset leaves no room for
   * that, the 8 sectors just before the data.
   */
  bm_space = mdsb_bitmap_space (a->size);
  if (a->bitmap_sectors) {
    /* mdadm: the log goes after the bitmap's own size, not the room. */
    bm_space = a->bitmap_sectors;
    sb->feature_map |= MDSB_FEATURE_BITMAP_OFFSET;
    sb->bitmap_offset = 8;
  }
  if (a->data_offset >= MDSB_SUPER_OFFSET + 8 + bm_space + 8) {
    sb->bblog_size = 8;
    sb->bblog_offset = 8 + bm_space;
  }
  else if (a->data_offset >= MDSB_SUPER_OFFSET + 16) {
    sb->bblog_size = 8;
    sb->bblog_offset = a->data_offset - 8 - MDSB_SUPER_OFFSET;
  }

  sb->utime = sb->ctime;
  sb->events = a->events;
  sb->resync_offset = a->resync_offset;
  /* As many roles as fill the superblock's last sector. */
  sb->max_dev = (round_up (sb_bytes (a->ndevs), MDSB_SECTOR)
                 - MDSB_HEADER_SIZE) / 2;
  for (i = 0; i < MDSB_MAX_DEV_LIMIT; ++i)
    sb->dev_roles[i] = i < a->ndevs ? a->dev_roles[i] : MDSB_ROLE_SPARE;
  return 0;
}

uint64_t
mdsb_used_sectors (const struct mdsb *sb)
{
  return sb->level <= 0 ? sb->data_size : sb->size;
}

void
mdsb_unused_space (const struct mdsb *sb, uint64_t member_sectors,
                   uint64_t bitmap_sectors,
                   uint64_t *before, uint64_t *after)
{
  uint64_t used = mdsb_used_sectors (sb);
  int64_t bitmap_offset = 0, ppl_offset = 0, ppl_size = 0;
  bool bblog = sb->bblog_offset != 0 && sb->bblog_size != 0;
  uint64_t bblog_start = sb->super_offset + (int32_t) sb->bblog_offset;

  if (sb->feature_map & MDSB_FEATURE_BITMAP_OFFSET)
    bitmap_offset = (int32_t) sb->bitmap_offset;
  else if (sb->feature_map &
           (MDSB_FEATURE_PPL | MDSB_FEATURE_MULTIPLE_PPLS)) {
    ppl_offset = (int16_t) (sb->bitmap_offset & 0xffff);
    ppl_size = sb->bitmap_offset >> 16;
  }

  if (sb->data_offset < sb->super_offset) {
    /* Version 1.0: the metadata sits after the data. */
    uint64_t end = sb->super_offset;

    if (bblog && bblog_start < end)
      end = bblog_start;
    if (sb->super_offset + bitmap_offset + ppl_offset < end)
      end = sb->super_offset + bitmap_offset + ppl_offset;
    *before = sb->data_offset;
    *after = sb->data_offset + used < end ? end - used - sb->data_offset : 0;
  }
  else {
    /* The kernel counts 36K of metadata past the superblock at least.
     * The bitmap's and the PPL's ends are compared as mdadm compares
     * them, as offsets from the superblock.
     */
    uint64_t earliest = sb->super_offset + 72;

    if (bitmap_offset > 0) {
      if ((uint64_t) bitmap_offset + bitmap_sectors > earliest)
        earliest = bitmap_offset + bitmap_sectors;
    }
    else if (ppl_offset > 0) {
      if ((uint64_t) (ppl_offset + ppl_size) > earliest)
        earliest = ppl_offset + ppl_size;
    }
    if (bblog && bblog_start + sb->bblog_size > earliest)
      earliest = bblog_start + sb->bblog_size;
    *before = earliest < sb->data_offset ? sb->data_offset - earliest : 0;
    *after = member_sectors - used - sb->data_offset;
  }
  if (*before == 0 && *after == 0)
    *after = 1;
}

unsigned
mdsb_role (const struct mdsb *sb)
{
  if (sb->dev_number >= sb->max_dev || sb->dev_number >= MDSB_MAX_DEV_LIMIT)
    return MDSB_ROLE_SPARE;
  return sb->dev_roles[sb->dev_number];
}

const char *
mdsb_level_name (int level)
{
  switch (level) {
  case MDSB_LEVEL_LINEAR: return "linear";
  case 0: return "raid0";
  case 1: return "raid1";
  case 4: return "raid4";
  case 5: return "raid5";
  case 6: return "raid6";
  case 10: return "raid10";
  case MDSB_LEVEL_MULTIPATH: return "multipath";
  case MDSB_LEVEL_FAULTY: return "faulty";
  default: return NULL;
  }
}

static int
hexval (char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int
mdsb_parse_uuid (const char *s, uint8_t uuid[16])
{
  unsigned n = 0;
  const char *p;

  for (p = s; *p; ++p) {
    int v = hexval (*p);

    if (v == -1) {
      if (*p == ':' || *p == '-' || *p == '.' || *p == ' ')
        continue;
      goto bad;
    }
    if (n == 32)
      goto bad;
    if (n % 2 == 0)
      uuid[n / 2] = v << 4;
    else
      uuid[n / 2] |= v;
    n++;
  }
  if (n == 32)
    return 0;
 bad:
  set_error ("uuid: '%s' is not 32 hex digits (xxxxxxxx:xxxxxxxx:"
             "xxxxxxxx:xxxxxxxx)", s);
  return -1;
}

void
mdsb_format_uuid (const uint8_t uuid[16], char *buf)
{
  unsigned i;
  char *p = buf;

  for (i = 0; i < 16; ++i) {
    if (i > 0 && i % 4 == 0)
      *p++ = ':';
    p += sprintf (p, "%02x", uuid[i]);
  }
}
