/* raidsim: unit tests for md's v1.2 superblock (raidsim/core/mdsb.c),
 * with no I/O.
 *
 * Every field is checked at the place the kernel's own header
 * (<linux/raid/md_p.h>, struct mdp_superblock_1) puts it; the checksum
 * against a superblock that real mdadm 4.2 called correct and against
 * sums worked by hand; decoding against every kind of damage; and
 * mdadm's creation choices (data offset, bitmap space, bad block log,
 * max_dev, layouts) against values worked from its rules.
 * tests/integration/test-mdadm.sh has real mdadm read whole arrays.
 *
 * Run: meson test -C build mdsb
 */

#include <endian.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <linux/raid/md_p.h>

#include "raidsim/mdsb.h"

#define MIB_SECTORS 2048

/* The superblock of member 2 of a four-member RAID 10 (near=2, 64K
 * chunks) over 64M members, every field fixed.  Written to a file at 4K,
 * mdadm 4.2 --examine printed "Checksum : e45e7fe7 - correct" and
 * "Unused Space : before=1968 sectors, after=4096 sectors" for it.
 */
#define FIXED_CSUM 0xe45e7fe7
static const uint16_t fixed_roles[4] = { 0, 1, 2, 3 };

static void
fixed_array (struct mdsb_array *a, struct mdsb_device *d)
{
  unsigned i;

  memset (a, 0, sizeof *a);
  memset (d, 0, sizeof *d);
  for (i = 0; i < 16; ++i) {
    a->uuid[i] = 0x10 + i;
    d->uuid[i] = 0xa0 + i;
  }
  a->name = "fixed";
  a->level = 10;
  a->layout = MDSB_RAID10_LAYOUT (2, 1);
  a->chunksize = 128;
  a->raid_disks = 4;
  a->size = 126976 - 2048;
  a->data_offset = 2048;
  a->ctime = 1700000000;
  a->events = 0;
  a->resync_offset = 0;
  a->ndevs = 4;
  a->dev_roles = fixed_roles;
  d->dev_number = 2;
  d->data_size = 131072 - 2048;
}

static void
fixed_sb (struct mdsb *sb)
{
  struct mdsb_array a;
  struct mdsb_device d;

  fixed_array (&a, &d);
  ck_assert_int_eq (mdsb_build (sb, &a, &d), 0);
}

/* A superblock with a different value in every field, so that a field
 * written to another's place shows.
 */
static void
every_field_sb (struct mdsb *sb)
{
  unsigned i;

  memset (sb, 0, sizeof *sb);
  sb->magic = MDSB_MAGIC;
  sb->major_version = 1;
  sb->feature_map = 0x1001;
  for (i = 0; i < 16; ++i) {
    sb->set_uuid[i] = 0x30 + i;
    sb->device_uuid[i] = 0x50 + i;
  }
  memcpy (sb->set_name, "host:array-name", 15);
  sb->ctime = UINT64_C (0x0102030405);
  sb->level = 10;
  sb->layout = 0x10203;
  sb->size = UINT64_C (0x1122334455);
  sb->chunksize = 0x400;
  sb->raid_disks = 7;
  sb->bitmap_offset = 0x11;
  sb->new_level = 5;
  sb->reshape_position = UINT64_C (0x2233445566);
  sb->delta_disks = 0xfffffffe;
  sb->new_layout = 0x33;
  sb->new_chunk = 0x44;
  sb->new_offset = 0x55;
  sb->data_offset = 0x66;
  sb->data_size = UINT64_C (0x778899aabb);
  sb->super_offset = 8;
  sb->recovery_offset = UINT64_C (0x99aabbcc);
  sb->dev_number = 3;
  sb->cnt_corrected_read = 0x77;
  sb->devflags = 0x03;
  sb->bblog_shift = 0x04;
  sb->bblog_size = 0x0506;
  sb->bblog_offset = 0x0708090a;
  sb->utime = UINT64_C (0x0605040302);
  sb->events = UINT64_C (0x0123456789abcdef);
  sb->resync_offset = UINT64_C (0xfedcba9876543210);
  sb->max_dev = 9;
  for (i = 0; i < 9; ++i)
    sb->dev_roles[i] = i == 4 ? MDSB_ROLE_FAULTY : 0x100 + i;
  for (; i < MDSB_MAX_DEV_LIMIT; ++i)
    sb->dev_roles[i] = MDSB_ROLE_SPARE;
}

/* Each field where the kernel's struct mdp_superblock_1 has it. */
START_TEST (test_fields_at_kernel_offsets)
{
  struct mdsb sb;
  uint8_t buf[MDSB_SIZE];
  struct mdp_superblock_1 k;
  const __le16 *roles = (const __le16 *) (buf + sizeof k);
  unsigned i;

  ck_assert_uint_eq (sizeof k, MDSB_HEADER_SIZE);
  every_field_sb (&sb);
  mdsb_encode (&sb, buf);
  memcpy (&k, buf, sizeof k);

  ck_assert_uint_eq (le32toh (k.magic), MD_SB_MAGIC);
  ck_assert_uint_eq (le32toh (k.major_version), 1);
  ck_assert_uint_eq (le32toh (k.feature_map), 0x1001);
  ck_assert_uint_eq (le32toh (k.pad0), 0);
  ck_assert_mem_eq (k.set_uuid, sb.set_uuid, 16);
  ck_assert_mem_eq (k.set_name, "host:array-name\0\0\0\0\0\0\0\0\0\0\0"
                    "\0\0\0\0\0\0", 32);
  ck_assert_uint_eq (le64toh (k.ctime), UINT64_C (0x0102030405));
  ck_assert_uint_eq (le32toh (k.level), 10);
  ck_assert_uint_eq (le32toh (k.layout), 0x10203);
  ck_assert_uint_eq (le64toh (k.size), UINT64_C (0x1122334455));
  ck_assert_uint_eq (le32toh (k.chunksize), 0x400);
  ck_assert_uint_eq (le32toh (k.raid_disks), 7);
  ck_assert_uint_eq (le32toh (k.bitmap_offset), 0x11);
  ck_assert_uint_eq (le32toh (k.new_level), 5);
  ck_assert_uint_eq (le64toh (k.reshape_position), UINT64_C (0x2233445566));
  ck_assert_uint_eq (le32toh (k.delta_disks), 0xfffffffe);
  ck_assert_uint_eq (le32toh (k.new_layout), 0x33);
  ck_assert_uint_eq (le32toh (k.new_chunk), 0x44);
  ck_assert_uint_eq (le32toh (k.new_offset), 0x55);
  ck_assert_uint_eq (le64toh (k.data_offset), 0x66);
  ck_assert_uint_eq (le64toh (k.data_size), UINT64_C (0x778899aabb));
  ck_assert_uint_eq (le64toh (k.super_offset), 8);
  ck_assert_uint_eq (le64toh (k.recovery_offset), UINT64_C (0x99aabbcc));
  ck_assert_uint_eq (le32toh (k.dev_number), 3);
  ck_assert_uint_eq (le32toh (k.cnt_corrected_read), 0x77);
  ck_assert_mem_eq (k.device_uuid, sb.device_uuid, 16);
  ck_assert_uint_eq (k.devflags, 0x03);
  ck_assert_uint_eq (k.bblog_shift, 0x04);
  ck_assert_uint_eq (le16toh (k.bblog_size), 0x0506);
  ck_assert_uint_eq (le32toh (k.bblog_offset), 0x0708090a);
  ck_assert_uint_eq (le64toh (k.utime), UINT64_C (0x0605040302));
  ck_assert_uint_eq (le64toh (k.events), UINT64_C (0x0123456789abcdef));
  ck_assert_uint_eq (le64toh (k.resync_offset),
                     UINT64_C (0xfedcba9876543210));
  ck_assert_uint_eq (le32toh (k.max_dev), 9);
  for (i = 0; i < sizeof k.pad3; ++i)
    ck_assert_uint_eq (k.pad3[i], 0);
  for (i = 0; i < 9; ++i)
    ck_assert_uint_eq (le16toh (roles[i]), i == 4 ? 0xfffe : 0x100 + i);
  /* Past max_dev the table reads as unused, as mdadm writes it. */
  for (; i < MDSB_MAX_DEV_LIMIT; ++i)
    ck_assert_uint_eq (le16toh (roles[i]), 0xffff);
}
END_TEST

/* The checksum of a superblock that real mdadm called correct. */
START_TEST (test_checksum_known_mdadm)
{
  struct mdsb sb;
  uint8_t buf[MDSB_SIZE];
  uint32_t csum;

  fixed_sb (&sb);
  ck_assert_uint_eq (mdsb_encode (&sb, buf), FIXED_CSUM);
  /* Stored little-endian at offset 216. */
  ck_assert_uint_eq (buf[216], 0xe7);
  ck_assert_uint_eq (buf[217], 0x7f);
  ck_assert_uint_eq (buf[218], 0x5e);
  ck_assert_uint_eq (buf[219], 0xe4);
  ck_assert_int_eq (mdsb_checksum (buf, sizeof buf, &csum), 0);
  ck_assert_uint_eq (csum, FIXED_CSUM);
}
END_TEST

/* Sums worked by hand.  Only magic, major_version and max_dev set, and
 * the max_dev roles all 0xffff:
 *   128 roles: 0xa92b4efc + 1 + 0x80 + 64 * 0xffffffff = 0x40a92b4f3d,
 *              folded 0xa92b4f3d + 0x40 = 0xa92b4f7d;
 *   129 roles: the same words (max_dev 0x81), and the odd role added as
 *              a 16-bit word: 0x40a92b4f3e + 0xffff = 0x40a92c4f3d,
 *              folded 0xa92c4f7d.
 */
START_TEST (test_checksum_by_hand)
{
  uint8_t buf[MDSB_SIZE];
  uint32_t csum;
  unsigned max_dev = _i == 0 ? 128 : 129;

  memset (buf, 0, sizeof buf);
  buf[0] = 0xfc; buf[1] = 0x4e; buf[2] = 0x2b; buf[3] = 0xa9;
  buf[4] = 1;
  buf[220] = max_dev;
  memset (buf + 256, 0xff, 2 * max_dev);
  /* Bytes past the 256 + 2 * max_dev are not summed. */
  memset (buf + 256 + 2 * max_dev, 0x5a, 16);
  /* Nor is the checksum field itself. */
  buf[216] = 0x12; buf[219] = 0x34;
  ck_assert_int_eq (mdsb_checksum (buf, sizeof buf, &csum), 0);
  ck_assert_uint_eq (csum, max_dev == 128 ? 0xa92b4f7d : 0xa92c4f7d);
}
END_TEST

START_TEST (test_round_trip)
{
  struct mdsb sb, back;
  uint8_t buf[MDSB_SIZE], buf2[MDSB_SIZE];
  uint32_t csum;

  if (_i == 0)
    fixed_sb (&sb);
  else {
    every_field_sb (&sb);
    sb.feature_map = MDSB_FEATURE_RAID0_LAYOUT;
    sb.new_level = sb.new_layout = sb.new_chunk = sb.new_offset = 0;
  }
  csum = mdsb_encode (&sb, buf);
  ck_assert_msg (mdsb_decode (buf, sizeof buf, &back) == 0, "%s",
                 mdsb_error ());
  ck_assert_uint_eq (back.sb_csum, csum);
  sb.sb_csum = csum;
  ck_assert_mem_eq (&sb, &back, sizeof sb);
  mdsb_encode (&back, buf2);
  ck_assert_mem_eq (buf, buf2, sizeof buf);
}
END_TEST

/* Every byte the checksum covers, changed, is refused; bytes past the
 * role table are not covered (md ignores them too).
 */
START_TEST (test_corrupt_byte_refused)
{
  struct mdsb sb, back;
  uint8_t buf[MDSB_SIZE];
  size_t i, covered;

  fixed_sb (&sb);
  mdsb_encode (&sb, buf);
  covered = MDSB_HEADER_SIZE + 2 * sb.max_dev;
  ck_assert_uint_eq (covered, 512);
  for (i = 0; i < covered; ++i) {
    buf[i] ^= 0x01;
    ck_assert_msg (mdsb_decode (buf, sizeof buf, &back) == -1,
                   "byte %zu changed and still accepted", i);
    buf[i] ^= 0x01;
  }
  for (; i < sizeof buf; i += 97) {
    buf[i] ^= 0x01;
    ck_assert_int_eq (mdsb_decode (buf, sizeof buf, &back), 0);
    buf[i] ^= 0x01;
  }
}
END_TEST

/* A checksum stored in the wrong byte order is refused. */
START_TEST (test_checksum_byte_order)
{
  struct mdsb sb, back;
  uint8_t buf[MDSB_SIZE], t;

  fixed_sb (&sb);
  mdsb_encode (&sb, buf);
  t = buf[216]; buf[216] = buf[219]; buf[219] = t;
  t = buf[217]; buf[217] = buf[218]; buf[218] = t;
  ck_assert_int_eq (mdsb_decode (buf, sizeof buf, &back), -1);
  ck_assert_msg (strncmp (mdsb_error (), "sb_csum:", 8) == 0, "%s",
                 mdsb_error ());
}
END_TEST

/* Each refusal names its field, with a valid checksum so that only the
 * one check fails.
 */
static void spoil_magic (struct mdsb *sb) { sb->magic = 0xa92b4efd; }
static void spoil_major (struct mdsb *sb) { sb->major_version = 0; }
static void spoil_feature (struct mdsb *sb) { sb->feature_map = 0x2000; }
static void spoil_pad0 (struct mdsb *sb) { sb->pad0 = 1; }
static void spoil_pad3 (struct mdsb *sb) { sb->pad3[31] = 1; }
static void spoil_data_size (struct mdsb *sb) { sb->data_size = 9; }

static const struct {
  const char *field;
  void (*spoil) (struct mdsb *sb);
} spoilers[] = {
  { "magic:", spoil_magic },
  { "major_version:", spoil_major },
  { "feature_map:", spoil_feature },
  { "pad0:", spoil_pad0 },
  { "pad3:", spoil_pad3 },
  { "data_size:", spoil_data_size },
};

START_TEST (test_refusal_names_field)
{
  struct mdsb sb, back;
  uint8_t buf[MDSB_SIZE];

  fixed_sb (&sb);
  spoilers[_i].spoil (&sb);
  mdsb_encode (&sb, buf);
  ck_assert_int_eq (mdsb_decode (buf, sizeof buf, &back), -1);
  ck_assert_msg (strncmp (mdsb_error (), spoilers[_i].field,
                          strlen (spoilers[_i].field)) == 0,
                 "expected '%s', got '%s'", spoilers[_i].field,
                 mdsb_error ());
}
END_TEST

START_TEST (test_short_and_max_dev)
{
  struct mdsb sb, back;
  uint8_t buf[MDSB_SIZE];

  fixed_sb (&sb);
  mdsb_encode (&sb, buf);
  ck_assert_int_eq (mdsb_decode (buf, 255, &back), -1);
  ck_assert_msg (strncmp (mdsb_error (), "superblock:", 11) == 0, "%s",
                 mdsb_error ());
  /* 128 roles need 512 bytes. */
  ck_assert_int_eq (mdsb_decode (buf, 511, &back), -1);
  ck_assert_msg (strncmp (mdsb_error (), "max_dev:", 8) == 0, "%s",
                 mdsb_error ());
  ck_assert_int_eq (mdsb_decode (buf, 512, &back), 0);
  /* More roles than a 4K superblock holds. */
  buf[220] = 0x81; buf[221] = 0x07;        /* 1921 */
  ck_assert_int_eq (mdsb_decode (buf, sizeof buf, &back), -1);
  ck_assert_msg (strncmp (mdsb_error (), "max_dev:", 8) == 0, "%s",
                 mdsb_error ());
}
END_TEST

/* mdadm 4.2's data_offset, worked from its rule (mdsb.c). */
START_TEST (test_default_data_offset)
{
  static const struct {
    uint64_t member, chunk, want;
  } t[] = {
    /* small members: 1M, whatever the chunk */
    { 64 * MIB_SECTORS, 8, 2048 },
    { 64 * MIB_SECTORS, 128, 2048 },
    { 64 * MIB_SECTORS, 0, 2048 },       /* RAID 1 */
    { 4 * MIB_SECTORS, 1024, 4096 },
    /* 512K chunks keep a headroom of two chunks: 24+8+2048 -> 2M */
    { 64 * MIB_SECTORS, 1024, 4096 },
    /* 16G: headroom 16M, bitmap 64K: 24+128+32768 -> 17M */
    { UINT64_C (16) << 21, 1024, 34816 },
    /* 1T: headroom 128M, bitmap 128K: 24+256+262144 -> 129M */
    { UINT64_C (1) << 31, 1024, 264192 },
    { UINT64_C (1) << 31, 0, 264192 },
  };
  size_t i;

  for (i = 0; i < sizeof t / sizeof t[0]; ++i)
    ck_assert_msg (mdsb_default_data_offset (t[i].member, t[i].chunk)
                   == t[i].want,
                   "member %" PRIu64 " chunk %" PRIu64 ": got %" PRIu64
                   ", want %" PRIu64, t[i].member, t[i].chunk,
                   mdsb_default_data_offset (t[i].member, t[i].chunk),
                   t[i].want);
}
END_TEST

START_TEST (test_bitmap_space)
{
  ck_assert_uint_eq (mdsb_bitmap_space (0), 0);
  ck_assert_uint_eq (mdsb_bitmap_space (127), 0);
  ck_assert_uint_eq (mdsb_bitmap_space (128), 8);
  ck_assert_uint_eq (mdsb_bitmap_space ((UINT64_C (8) << 21) + 8), 8);
  ck_assert_uint_eq (mdsb_bitmap_space ((UINT64_C (8) << 21) + 9), 128);
  ck_assert_uint_eq (mdsb_bitmap_space ((UINT64_C (200) << 21) + 127), 128);
  ck_assert_uint_eq (mdsb_bitmap_space ((UINT64_C (200) << 21) + 128), 256);
}
END_TEST

/* What mdsb_build derives: mdadm's choices. */
START_TEST (test_build)
{
  struct mdsb_array a;
  struct mdsb_device d;
  struct mdsb sb;
  uint16_t roles[129];
  unsigned i;

  fixed_array (&a, &d);
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), 0);
  ck_assert_uint_eq (sb.magic, MDSB_MAGIC);
  ck_assert_uint_eq (sb.major_version, 1);
  ck_assert_uint_eq (sb.super_offset, 8);
  ck_assert_uint_eq (sb.max_dev, 128);
  ck_assert_uint_eq (sb.utime, sb.ctime);
  ck_assert_uint_eq (sb.bblog_size, 8);
  ck_assert_uint_eq (sb.bblog_offset, 16);     /* 8 + 4K of bitmap space */
  ck_assert_uint_eq (sb.dev_roles[2], 2);
  ck_assert_uint_eq (sb.dev_roles[4], MDSB_ROLE_SPARE);
  ck_assert_uint_eq (mdsb_role (&sb), 2);
  ck_assert_str_eq (sb.set_name, "fixed");

  /* RAID 0 keeps no size, so no bitmap space: the log follows at 8. */
  a.level = 0;
  a.size = 0;
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), 0);
  ck_assert_uint_eq (sb.bblog_offset, 8);
  /* 8G and more: 64K of bitmap space. */
  a.size = UINT64_C (9) << 21;
  a.data_offset = 34816;
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), 0);
  ck_assert_uint_eq (sb.bblog_offset, 136);
  /* A data_offset too near for that: the log sits just before the data. */
  a.data_offset = 40;
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), 0);
  ck_assert_uint_eq (sb.bblog_offset, 24);
  a.data_offset = 23;
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), 0);
  ck_assert_uint_eq (sb.bblog_size, 0);
  ck_assert_uint_eq (sb.bblog_offset, 0);

  /* 129 slots: the table grows to fill the next sector (384 roles). */
  for (i = 0; i < 129; ++i)
    roles[i] = i;
  a.ndevs = 129;
  a.dev_roles = roles;
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), 0);
  ck_assert_uint_eq (sb.max_dev, 384);

  /* Refusals. */
  a.name = "a-name-of-thirty-three-characters";
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), -1);
  ck_assert_msg (strncmp (mdsb_error (), "set_name:", 9) == 0, "%s",
                 mdsb_error ());
  a.name = "ok";
  d.dev_number = 129;
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), -1);
  ck_assert_msg (strncmp (mdsb_error (), "dev_number:", 11) == 0, "%s",
                 mdsb_error ());
}
END_TEST

START_TEST (test_layouts)
{
  /* mdadm's default RAID 10 layout, "n2", is 0x102. */
  ck_assert_uint_eq (MDSB_RAID10_LAYOUT (2, 1), 0x102);
  ck_assert_uint_eq (MDSB_RAID10_LAYOUT (3, 1), 0x103);
  ck_assert_uint_eq (MDSB_RAID10_NEAR (0x102), 2);
  ck_assert_uint_eq (MDSB_RAID10_FAR (0x102), 1);
  ck_assert_uint_eq (MDSB_RAID10_FAR (0x201), 2);
  ck_assert_uint_eq (MDSB_RAID10_OFFSET (0x10201), 1);
  ck_assert_uint_eq (MDSB_RAID0_LAYOUT_ALTERNATE, 2);
  ck_assert_uint_eq (MDSB_FEATURE_RAID0_LAYOUT, MD_FEATURE_RAID0_LAYOUT);
  ck_assert_uint_eq (MDSB_FEATURE_ALL, MD_FEATURE_ALL);
  ck_assert_uint_eq (MDSB_ROLE_SPARE, MD_DISK_ROLE_SPARE);
  ck_assert_uint_eq (MDSB_ROLE_FAULTY, MD_DISK_ROLE_FAULTY);
  ck_assert_uint_eq (MDSB_MAGIC, MD_SB_MAGIC);
}
END_TEST

START_TEST (test_unused_space)
{
  struct mdsb sb;
  uint64_t before, after;

  /* What mdadm printed for the fixed superblock on a 64M member. */
  fixed_sb (&sb);
  mdsb_unused_space (&sb, 131072, 0, &before, &after);
  ck_assert_uint_eq (before, 1968);
  ck_assert_uint_eq (after, 4096);
  /* RAID 0 uses all of data_size. */
  sb.level = 0;
  mdsb_unused_space (&sb, 131072, 0, &before, &after);
  ck_assert_uint_eq (before, 1968);
  ck_assert_uint_eq (after, 0);
  /* Nothing either side reads as after=1, as in mdadm. */
  sb.data_offset = 80;
  sb.data_size = 131072 - 80;
  mdsb_unused_space (&sb, 131072, 0, &before, &after);
  ck_assert_uint_eq (before, 0);
  ck_assert_uint_eq (after, 1);
}
END_TEST

START_TEST (test_check_member)
{
  struct mdsb sb;

  fixed_sb (&sb);
  ck_assert_int_eq (mdsb_check_member (&sb, 131072), 0);
  ck_assert_int_eq (mdsb_check_member (&sb, 131071), -1);
  ck_assert_msg (strncmp (mdsb_error (), "data_size:", 10) == 0, "%s",
                 mdsb_error ());
  sb.data_offset = 8;            /* the superblock is sector 8 */
  ck_assert_int_eq (mdsb_check_member (&sb, 131072), -1);
  ck_assert_msg (strncmp (mdsb_error (), "data_offset:", 12) == 0, "%s",
                 mdsb_error ());
  fixed_sb (&sb);
  sb.super_offset = 0;
  ck_assert_int_eq (mdsb_check_member (&sb, 131072), -1);
  ck_assert_msg (strncmp (mdsb_error (), "super_offset:", 13) == 0, "%s",
                 mdsb_error ());
  fixed_sb (&sb);
  sb.size = sb.data_size + 1;
  ck_assert_int_eq (mdsb_check_member (&sb, 131072), -1);
  ck_assert_msg (strncmp (mdsb_error (), "size:", 5) == 0, "%s",
                 mdsb_error ());
  ck_assert_uint_eq (mdsb_used_sectors (&sb), sb.size);
  sb.level = 0;
  ck_assert_uint_eq (mdsb_used_sectors (&sb), sb.data_size);
}
END_TEST

START_TEST (test_uuid)
{
  uint8_t u[16];
  char s[36];
  unsigned i;

  ck_assert_int_eq (mdsb_parse_uuid ("00112233:44556677:8899aabb:ccddeeff",
                                     u), 0);
  for (i = 0; i < 16; ++i)
    ck_assert_uint_eq (u[i], 0x11 * i);
  mdsb_format_uuid (u, s);
  ck_assert_str_eq (s, "00112233:44556677:8899aabb:ccddeeff");
  ck_assert_int_eq (mdsb_parse_uuid ("00112233-4455-6677-8899-AABBCCDDEEFF",
                                     u), 0);
  ck_assert_uint_eq (u[15], 0xff);
  ck_assert_int_eq (mdsb_parse_uuid ("0011223344556677", u), -1);
  ck_assert_int_eq (mdsb_parse_uuid ("00112233:44556677:8899aabb:ccddeeff0",
                                     u), -1);
  ck_assert_int_eq (mdsb_parse_uuid ("00112233:44556677:8899aabb:ccddeefg",
                                     u), -1);
  ck_assert_msg (strncmp (mdsb_error (), "uuid:", 5) == 0, "%s",
                 mdsb_error ());
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("mdsb");
  TCase *tc = tcase_create ("mdsb");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, test_fields_at_kernel_offsets);
  tcase_add_test (tc, test_checksum_known_mdadm);
  tcase_add_loop_test (tc, test_checksum_by_hand, 0, 2);
  tcase_add_loop_test (tc, test_round_trip, 0, 2);
  tcase_add_test (tc, test_corrupt_byte_refused);
  tcase_add_test (tc, test_checksum_byte_order);
  tcase_add_loop_test (tc, test_refusal_names_field, 0,
                       sizeof spoilers / sizeof spoilers[0]);
  tcase_add_test (tc, test_short_and_max_dev);
  tcase_add_test (tc, test_default_data_offset);
  tcase_add_test (tc, test_bitmap_space);
  tcase_add_test (tc, test_build);
  tcase_add_test (tc, test_layouts);
  tcase_add_test (tc, test_unused_space);
  tcase_add_test (tc, test_check_member);
  tcase_add_test (tc, test_uuid);
  suite_add_tcase (s, tc);

  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
