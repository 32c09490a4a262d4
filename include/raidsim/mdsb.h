/* raidsim: Linux md's version 1.2 superblock (struct mdp_superblock_1 in
 * Linux's include/uapi/linux/raid/md_p.h), so that raidsim's member
 * images are real md members that mdadm and the kernel recognise.
 * See raidsim/core/mdsb.c for the format and for the choices mdadm makes
 * when it creates an array, which these functions reproduce.
 *
 * Pure functions, no I/O: the caller reads and writes the MDSB_SIZE bytes
 * at MDSB_OFFSET of each member.  Every number in struct mdsb is in host
 * order and in md's own units: sizes and offsets in 512-byte sectors, as
 * on disk; mdsb_encode and mdsb_decode do the little-endian conversion.
 *
 * Errors: a function that fails returns -1 and mdsb_error () gives, for
 * the calling thread, a message that starts with the name of the field
 * or parameter that is wrong (as md_p.h spells it).
 */
#ifndef RAIDSIM_MDSB_H
#define RAIDSIM_MDSB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MDSB_MAGIC          UINT32_C (0xa92b4efc)
#define MDSB_SECTOR         512
/* Version 1.2 puts the superblock 4K from the start of the member. */
#define MDSB_OFFSET         4096
#define MDSB_SUPER_OFFSET   (MDSB_OFFSET / MDSB_SECTOR)    /* 8 sectors */
/* What mdadm reads and what we encode: the 256-byte header and the role
 * table, which can grow to fill 4K.
 */
#define MDSB_SIZE           4096
#define MDSB_HEADER_SIZE    256
#define MDSB_MAX_DEV_LIMIT  ((MDSB_SIZE - MDSB_HEADER_SIZE) / 2)  /* 1920 */

/* dev_roles[] values other than an active role 0 .. MDSB_ROLE_MAX. */
#define MDSB_ROLE_SPARE     0xffff      /* also: slot unused */
#define MDSB_ROLE_FAULTY    0xfffe
#define MDSB_ROLE_JOURNAL   0xfffd
#define MDSB_ROLE_MAX       0xff00

/* resync_offset when every copy is known to be in sync (md's MaxSector). */
#define MDSB_RESYNC_DONE    UINT64_MAX

/* feature_map bits. */
#define MDSB_FEATURE_BITMAP_OFFSET      0x0001
#define MDSB_FEATURE_RECOVERY_OFFSET    0x0002
#define MDSB_FEATURE_RESHAPE_ACTIVE     0x0004
#define MDSB_FEATURE_BAD_BLOCKS         0x0008
#define MDSB_FEATURE_REPLACEMENT        0x0010
#define MDSB_FEATURE_RESHAPE_BACKWARDS  0x0020
#define MDSB_FEATURE_NEW_OFFSET         0x0040
#define MDSB_FEATURE_RECOVERY_BITMAP    0x0080
#define MDSB_FEATURE_CLUSTERED          0x0100
#define MDSB_FEATURE_JOURNAL            0x0200
#define MDSB_FEATURE_PPL                0x0400
#define MDSB_FEATURE_MULTIPLE_PPLS      0x0800
#define MDSB_FEATURE_RAID0_LAYOUT       0x1000
#define MDSB_FEATURE_ALL                0x1fff

/* devflags bits. */
#define MDSB_DEVFLAG_WRITEMOSTLY        0x01
#define MDSB_DEVFLAG_FAILFAST           0x02

/* md's level numbers (only 0, 1 and 10 are served by raidsim). */
#define MDSB_LEVEL_LINEAR     (-1)
#define MDSB_LEVEL_MULTIPATH  (-4)
#define MDSB_LEVEL_FAULTY     (-5)

/* RAID 0 layouts.  Only arrays with more than one zone need one, and
 * then md wants MDSB_FEATURE_RAID0_LAYOUT set; raidsim's geometry is the
 * alternate layout.
 */
#define MDSB_RAID0_LAYOUT_ORIGINAL   1
#define MDSB_RAID0_LAYOUT_ALTERNATE  2

/* RAID 10 layout: near copies in bits 0-7, far copies in bits 8-15, bit
 * 16 set for "offset" instead of "far".  raidsim serves near copies only:
 * far = 1.
 */
#define MDSB_RAID10_LAYOUT(near, far)  (((uint32_t) (far) << 8) | (near))
#define MDSB_RAID10_NEAR(layout)       ((layout) & 0xff)
#define MDSB_RAID10_FAR(layout)        (((layout) >> 8) & 0xff)
#define MDSB_RAID10_OFFSET(layout)     (((layout) >> 16) & 1)

/* A decoded superblock.  Field names are md_p.h's. */
struct mdsb {
  uint32_t magic;               /* MDSB_MAGIC */
  uint32_t major_version;       /* 1 */
  uint32_t feature_map;
  uint32_t pad0;                /* zero when valid */
  uint8_t set_uuid[16];
  char set_name[32];            /* not NUL-terminated when 32 long */
  uint64_t ctime;               /* low 40 bits seconds, top 24 microseconds */
  int32_t level;
  uint32_t layout;
  uint64_t size;                /* sectors of each member used (level > 0) */
  uint32_t chunksize;           /* sectors */
  uint32_t raid_disks;
  uint32_t bitmap_offset;       /* also ppl.offset (low 16) and size (high) */
  uint32_t new_level;
  uint64_t reshape_position;
  uint32_t delta_disks;
  uint32_t new_layout;
  uint32_t new_chunk;
  uint32_t new_offset;

  uint64_t data_offset;         /* sectors from the member's start */
  uint64_t data_size;           /* sectors from data_offset usable for data */
  uint64_t super_offset;        /* sectors: where this superblock is */
  uint64_t recovery_offset;
  uint32_t dev_number;          /* this member's index in dev_roles[] */
  uint32_t cnt_corrected_read;
  uint8_t device_uuid[16];
  uint8_t devflags;
  uint8_t bblog_shift;
  uint16_t bblog_size;          /* sectors reserved for the bad block log */
  uint32_t bblog_offset;        /* sectors from the superblock, signed */

  uint64_t utime;               /* as ctime */
  uint64_t events;
  uint64_t resync_offset;       /* sectors in sync; MDSB_RESYNC_DONE */
  uint32_t sb_csum;             /* as read; mdsb_encode computes it */
  uint32_t max_dev;             /* entries of dev_roles[] in use */
  uint8_t pad3[32];             /* zero when valid */
  uint16_t dev_roles[MDSB_MAX_DEV_LIMIT];
};

/* An array as mdadm --create would write it.  Sizes in sectors. */
struct mdsb_array {
  uint8_t uuid[16];
  const char *name;             /* at most 32 bytes; mdadm writes 31 */
  int level;                    /* 0, 1 or 10 */
  uint32_t layout;
  uint32_t feature_map;         /* MDSB_FEATURE_RAID0_LAYOUT or 0 */
  uint32_t chunksize;           /* 0 on RAID 1 */
  uint32_t raid_disks;
  uint64_t size;                /* used of each member; 0 on RAID 0 */
  uint64_t data_offset;
  uint64_t ctime;               /* seconds since the epoch; also utime */
  uint64_t events;
  uint64_t resync_offset;
  /* The role table, the same on every member: dev_roles[i] is the role of
   * the member with dev_number i, MDSB_ROLE_SPARE for a missing one.
   */
  unsigned ndevs;
  const uint16_t *dev_roles;
  /* An internal bitmap (mdbitmap.h): its size on disk in sectors (its
   * header and bits rounded up to 4K), 0 for none.  It goes 8 sectors
   * after the superblock, and the bad block log after it.
   */
  uint64_t bitmap_sectors;
};

/* What differs between the members of one array. */
struct mdsb_device {
  uint32_t dev_number;
  uint64_t data_size;           /* sectors from data_offset to the end */
  uint8_t uuid[16];
};

/* Fill *sb as mdadm 4.2's --create writes the superblock of one member:
 * max_dev rounded so that the superblock fills whole sectors, the bad
 * block log after the space mdadm keeps for a bitmap, super_offset 8.
 * Returns 0, or -1 if a parameter cannot be written (name too long, more
 * roles than fit, dev_number outside the table).
 */
extern int mdsb_build (struct mdsb *sb, const struct mdsb_array *a,
                       const struct mdsb_device *d);

/* Encode sb into buf[0 .. MDSB_SIZE), little-endian, with the checksum
 * computed over it (sb->sb_csum is ignored).  Roles past max_dev are
 * written as MDSB_ROLE_SPARE, as mdadm does.  Returns the checksum.
 * sb->max_dev must be at most MDSB_MAX_DEV_LIMIT.
 */
extern uint32_t mdsb_encode (const struct mdsb *sb, uint8_t *buf);

/* Decode and check the superblock in buf[0 .. len), len being what was
 * read (MDSB_SIZE normally).  Refuses, naming the field: a bad magic, a
 * major_version other than 1, max_dev too large for len, a wrong
 * checksum, feature bits md does not know, non-zero padding, and a
 * data_size too small to be real (the kernel's checks).  Returns 0 or -1.
 */
extern int mdsb_decode (const uint8_t *buf, size_t len, struct mdsb *sb);

/* Only unpack the fields, checking nothing but that len holds the header
 * and that max_dev roles fit in it (fewer are unpacked if not; the rest
 * read as MDSB_ROLE_SPARE).  For tools that show a damaged superblock,
 * as mdadm --examine does.  Returns 0, or -1 if len < MDSB_HEADER_SIZE.
 */
extern int mdsb_unpack (const uint8_t *buf, size_t len, struct mdsb *sb);

/* md's checksum of the encoded superblock in buf (len bytes, at least the
 * header): the 32-bit little-endian words of the first 256 + 2 * max_dev
 * bytes summed in 64 bits with the sb_csum field counted as zero, a
 * trailing 16-bit word added alone, and the carry folded back in once.
 * Returns 0 and sets *csum, or -1 if max_dev does not fit in len.
 */
extern int mdsb_checksum (const uint8_t *buf, size_t len, uint32_t *csum);

/* Checks that need the member's size: the superblock is where version
 * 1.2 puts it, the data starts after it, and data_size (and, on levels
 * above 0, size) fits on the member.  member_sectors is the member's
 * size in sectors.  Returns 0 or -1.
 */
extern int mdsb_check_member (const struct mdsb *sb, uint64_t member_sectors);

/* mdadm 4.2's default data_offset, in sectors, for an array whose first
 * member has member_sectors and whose chunk is chunk_sectors (0 on RAID 1).
 */
extern uint64_t mdsb_default_data_offset (uint64_t member_sectors,
                                          uint32_t chunk_sectors);

/* Sectors mdadm keeps for a bitmap after the superblock, for an array
 * whose members use size sectors (choose_bm_space in mdadm).
 */
extern uint64_t mdsb_bitmap_space (uint64_t size);

/* Sectors of each member that hold array data, counted from data_offset:
 * data_size on RAID 0 (each member its own), size on other levels.
 */
extern uint64_t mdsb_used_sectors (const struct mdsb *sb);

/* Space around the data that mdadm --examine calls "Unused Space",
 * in sectors: before is between the end of the metadata (superblock,
 * bad block log, bitmap_sectors of bitmap) and data_offset; after is
 * between the end of the used data and the end of the member.  As mdadm
 * does, returns after = 1 when both would be 0.
 */
extern void mdsb_unused_space (const struct mdsb *sb, uint64_t member_sectors,
                               uint64_t bitmap_sectors,
                               uint64_t *before, uint64_t *after);

/* The role of this member: dev_roles[dev_number], or MDSB_ROLE_SPARE if
 * dev_number is outside the table.
 */
extern unsigned mdsb_role (const struct mdsb *sb);

/* md's name of a level ("raid0", "raid10", "linear"), or NULL. */
extern const char *mdsb_level_name (int level);

/* Parse a UUID: 32 hex digits, optionally separated by ':', '-', '.' or
 * ' ' (mdadm's and the usual spellings).  Returns 0 or -1.
 */
extern int mdsb_parse_uuid (const char *s, uint8_t uuid[16]);

/* Format a UUID as mdadm prints it: xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx.
 * buf needs 36 bytes.
 */
extern void mdsb_format_uuid (const uint8_t uuid[16], char *buf);

extern const char *mdsb_error (void);

#endif /* RAIDSIM_MDSB_H */
