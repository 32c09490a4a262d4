/* raidsim: Linux md's internal write-intent bitmap (bitmap_super_t in
 * Linux's drivers/md/md-bitmap.h, and how mdadm 4.2 lays one out for a
 * version 1.2 superblock), beside the superblock of mdsb.h.
 *
 * Pure functions, no I/O.  The bitmap sits bitmap_offset sectors after
 * the superblock (mdadm: 8, that is 4K after it, 8K from the member's
 * start): a 256-byte header, then one bit per bitmap chunk of the array,
 * little-endian bit order (bit k is bit k % 8 of byte k / 8).  Every
 * number is in host order here; mdbm_encode / mdbm_decode convert.
 * Errors: -1, and mdsb_error () gives the message, naming the field.
 */
#ifndef RAIDSIM_MDBITMAP_H
#define RAIDSIM_MDBITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MDBM_MAGIC            UINT32_C (0x6d746962)     /* "bitm" */
#define MDBM_MAJOR_HOSTENDIAN 3
#define MDBM_MAJOR_HI         4         /* little-endian bits: mdadm's */
#define MDBM_MAJOR_CLUSTERED  5
#define MDBM_HEADER_SIZE      256
/* state bits */
#define MDBM_STATE_ACTIVE     0x1
#define MDBM_STATE_STALE      0x2       /* mdadm -X: "Out of date" */
/* mdadm's defaults: daemon_sleep 5 s, and 64M chunks at least when the
 * chunk is not given.
 */
#define MDBM_DEFAULT_DAEMON_SLEEP 5
#define MDBM_DEFAULT_CHUNK        (UINT32_C (64) << 20)
#define MDBM_MIN_CHUNK            4096
/* mdadm puts the bitmap 4K after a version 1.2 superblock. */
#define MDBM_OFFSET_SECTORS       8
/* Create.c: a bitmap by default when each member uses more than this
 * many KiB (100G) on RAID 1 and above.
 */
#define MDBM_DEFAULT_MIN_KIB      (UINT64_C (100) * 1024 * 1024)

struct mdbm {
  uint32_t magic;
  uint32_t version;
  uint8_t uuid[16];             /* the array's (set_uuid), as stored */
  uint64_t events;
  uint64_t events_cleared;
  uint64_t sync_size;           /* sectors the bits cover */
  uint32_t state;
  uint32_t chunksize;           /* bytes of array per bit */
  uint32_t daemon_sleep;        /* seconds */
  uint32_t write_behind;
  uint32_t sectors_reserved;
  uint32_t nodes;
  char cluster_name[64];
};

/* Encode h into buf[0 .. MDBM_HEADER_SIZE), padding zeroed. */
extern void mdbm_encode (const struct mdbm *h, uint8_t *buf);

/* Unpack buf[0 .. MDBM_HEADER_SIZE) without checking (for examine). */
extern void mdbm_unpack (const uint8_t *buf, struct mdbm *h);

/* Unpack and check what md would refuse or raidsim cannot keep: magic,
 * version (3 or 4: little-endian hosts write both alike), a chunksize
 * that is not a power of two of at least 512, sync_size 0, a clustered
 * bitmap (nodes > 0).  Returns 0 or -1.
 */
extern int mdbm_decode (const uint8_t *buf, size_t len, struct mdbm *h);

/* Bits (chunks) that cover sync_size sectors in chunksize-byte chunks
 * (mdadm's bitmap_bits: rounded up).
 */
extern uint64_t mdbm_bits (uint64_t sync_size, uint32_t chunksize);

/* Bytes the bitmap takes on disk, header and bits, rounded up to
 * boundary (mdadm's calc_bitmap_size; 4096 for the space it reserves).
 */
extern uint64_t mdbm_bytes (const struct mdbm *h, unsigned boundary);

/* The array size the bitmap covers, in sectors, as mdadm --create gives
 * it: size (each member's used sectors) on RAID 1; on RAID 10 the
 * array's capacity, computed in KiB as mdadm does (size / 2 *
 * raid_disks / copies * 2).
 */
extern uint64_t mdbm_sync_size (int level, uint64_t size, uint32_t raid_disks,
                                unsigned copies);

/* mdadm --create's bitmap chunk (add_internal_bitmap1): room_sectors is
 * the space kept for the bitmap after the superblock (mdsb_bitmap_space
 * of the members' used size), limited to 128K when no chunk is asked
 * for; the smallest power of two from 4K whose bits fit is the minimum,
 * and the default is that or 64M, whichever is larger.  requested is 0
 * for the default.  Returns 0 and sets *chunk, or -1 ("bitmap-chunk:
 * ...") if there is no room or the requested chunk is too small or not
 * a power of two.
 */
extern int mdbm_choose_chunk (uint64_t sync_size, uint64_t room_sectors,
                              uint64_t requested, uint32_t *chunk);

/* Whether mdadm 4.2 --create adds an internal bitmap when --bitmap is
 * not given: RAID 1 and above whose members each use more than 100G
 * (size in sectors).
 */
extern bool mdbm_default_on (int level, uint64_t size);

/* Set bits among the first nbits of bits[] (mdadm -X's "dirty"). */
extern uint64_t mdbm_count (const uint8_t *bits, uint64_t nbits);

static inline bool
mdbm_test (const uint8_t *bits, uint64_t k)
{
  return bits[k / 8] & (1u << (k % 8));
}

static inline void
mdbm_set (uint8_t *bits, uint64_t k)
{
  bits[k / 8] |= 1u << (k % 8);
}

static inline void
mdbm_clear (uint8_t *bits, uint64_t k)
{
  bits[k / 8] &= ~(1u << (k % 8));
}

/* mdadm -X's "Chunksize" value: "64 MB", "4 KB", "512 B" (whole units
 * of 1024, rounded down).  buf needs 24 bytes.
 */
extern void mdbm_format_chunk (uint32_t bytes, char *buf);

#endif /* RAIDSIM_MDBITMAP_H */
