/* raidsim: unit tests for md's internal write-intent bitmap
 * (raidsim/core/mdbitmap.c), with no I/O.
 *
 * The header's fields at the offsets md-bitmap.h's comments give them;
 * what the kernel refuses; mdadm 4.2's choices (bit count, space, chunk,
 * the 100G default, RAID 10's sync size) against values worked by hand
 * from its rules (super1.c add_internal_bitmap1, Create.c); and where
 * mdsb_build puts the bitmap and the bad block log.
 * tests/integration/test-mdadm-bitmap.sh has real mdadm -X read them.
 *
 * Run: meson test -C build mdbitmap
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "raidsim/mdbitmap.h"
#include "raidsim/mdsb.h"

static void
sample (struct mdbm *h)
{
  unsigned i;

  memset (h, 0, sizeof *h);
  h->magic = MDBM_MAGIC;
  h->version = MDBM_MAJOR_HI;
  for (i = 0; i < 16; ++i)
    h->uuid[i] = 0x40 + i;
  h->events = 0x0102030405060708;
  h->events_cleared = 0x1112131415161718;
  h->sync_size = 0x2122232425262728;
  h->state = 0x31323334;
  h->chunksize = 0x41424344;
  h->daemon_sleep = 0x51525354;
  h->write_behind = 0x61626364;
  h->sectors_reserved = 0x71727374;
  h->nodes = 0x81828384;
  strcpy (h->cluster_name, "name");
}

static uint64_t
le (const uint8_t *p, unsigned n)
{
  uint64_t v = 0;

  while (n--)
    v = v << 8 | p[n];
  return v;
}

/* Offsets from the comments of bitmap_super_t in md-bitmap.h. */
START_TEST (test_fields_at_offsets)
{
  struct mdbm h, back;
  uint8_t buf[MDBM_HEADER_SIZE];

  sample (&h);
  memset (buf, 0xee, sizeof buf);
  mdbm_encode (&h, buf);
  ck_assert_uint_eq (le (buf + 0, 4), 0x6d746962);
  ck_assert (memcmp (buf, "bitm", 4) == 0);
  ck_assert_uint_eq (le (buf + 4, 4), 4);
  ck_assert_uint_eq (buf[8], 0x40);
  ck_assert_uint_eq (buf[23], 0x4f);
  ck_assert_uint_eq (le (buf + 24, 8), 0x0102030405060708);
  ck_assert_uint_eq (le (buf + 32, 8), 0x1112131415161718);
  ck_assert_uint_eq (le (buf + 40, 8), 0x2122232425262728);
  ck_assert_uint_eq (le (buf + 48, 4), 0x31323334);
  ck_assert_uint_eq (le (buf + 52, 4), 0x41424344);
  ck_assert_uint_eq (le (buf + 56, 4), 0x51525354);
  ck_assert_uint_eq (le (buf + 60, 4), 0x61626364);
  ck_assert_uint_eq (le (buf + 64, 4), 0x71727374);
  ck_assert_uint_eq (le (buf + 68, 4), 0x81828384);
  ck_assert (memcmp (buf + 72, "name\0", 5) == 0);
  for (unsigned i = 136; i < MDBM_HEADER_SIZE; ++i)
    ck_assert_uint_eq (buf[i], 0);
  mdbm_unpack (buf, &back);
  ck_assert (memcmp (&h, &back, sizeof h) == 0);
}
END_TEST

static const char *
decode_error (void (*spoil) (struct mdbm *))
{
  struct mdbm h, out;
  uint8_t buf[MDBM_HEADER_SIZE];

  sample (&h);
  h.nodes = 0;
  h.chunksize = 65536;
  h.daemon_sleep = 5;
  h.sync_size = 2048;
  if (spoil)
    spoil (&h);
  mdbm_encode (&h, buf);
  if (mdbm_decode (buf, sizeof buf, &out) == 0)
    return NULL;
  return mdsb_error ();
}

static void bad_magic (struct mdbm *h) { h->magic = 0x6d746963; }
static void bad_version (struct mdbm *h) { h->version = 6; }
static void clustered (struct mdbm *h) { h->version = 5; }
static void nodes (struct mdbm *h) { h->nodes = 2; }
static void small_chunk (struct mdbm *h) { h->chunksize = 256; }
static void odd_chunk (struct mdbm *h) { h->chunksize = 65536 + 512; }
static void no_sleep (struct mdbm *h) { h->daemon_sleep = 0; }
static void no_size (struct mdbm *h) { h->sync_size = 0; }
static void old_version (struct mdbm *h) { h->version = 3; }

START_TEST (test_decode_refuses)
{
  const char *e;

  ck_assert_ptr_null (decode_error (NULL));
  ck_assert_ptr_null (decode_error (old_version));
  e = decode_error (bad_magic);
  ck_assert_ptr_nonnull (e);
  ck_assert_msg (strncmp (e, "bitmap magic:", 13) == 0, "%s", e);
  e = decode_error (bad_version);
  ck_assert_msg (e && strncmp (e, "bitmap version:", 15) == 0, "%s", e);
  e = decode_error (clustered);
  ck_assert_msg (e && strstr (e, "clustered"), "%s", e);
  e = decode_error (nodes);
  ck_assert_msg (e && strstr (e, "clustered"), "%s", e);
  e = decode_error (small_chunk);
  ck_assert_msg (e && strncmp (e, "bitmap chunksize:", 17) == 0, "%s", e);
  e = decode_error (odd_chunk);
  ck_assert_msg (e && strncmp (e, "bitmap chunksize:", 17) == 0, "%s", e);
  e = decode_error (no_sleep);
  ck_assert_msg (e && strncmp (e, "bitmap daemon_sleep:", 20) == 0, "%s", e);
  e = decode_error (no_size);
  ck_assert_msg (e && strncmp (e, "bitmap sync_size:", 17) == 0, "%s", e);
}
END_TEST

START_TEST (test_bits_and_bytes)
{
  struct mdbm h = { .sync_size = 2048, .chunksize = 65536 };

  /* 1M in 64K chunks: 16 bits; one sector more: 17. */
  ck_assert_uint_eq (mdbm_bits (2048, 65536), 16);
  ck_assert_uint_eq (mdbm_bits (2049, 65536), 17);
  ck_assert_uint_eq (mdbm_bits (1, 1 << 26), 1);
  /* 2 bytes of bits after the 256-byte header. */
  ck_assert_uint_eq (mdbm_bytes (&h, 512), 512);
  ck_assert_uint_eq (mdbm_bytes (&h, 4096), 4096);
  /* 1G in 4K chunks: 262144 bits, 32768 bytes + 256 -> 9 pages. */
  h.sync_size = 2097152;
  h.chunksize = 4096;
  ck_assert_uint_eq (mdbm_bytes (&h, 4096), 9 * 4096);
  ck_assert_uint_eq (mdbm_bytes (&h, 512), 32768 + 512);
}
END_TEST

START_TEST (test_choose_chunk)
{
  uint32_t c = 0;

  /* 1G in 4K of room: (4096 - 256) * 8 = 30720 bits fit; 4K chunks
   * need 262145, halved to 16385 at 64K: the minimum is 64K, the
   * default 64M.
   */
  ck_assert_int_eq (mdbm_choose_chunk (2097152, 8, 0, &c), 0);
  ck_assert_uint_eq (c, 64u << 20);
  ck_assert_int_eq (mdbm_choose_chunk (2097152, 8, 65536, &c), 0);
  ck_assert_uint_eq (c, 65536);
  ck_assert_int_eq (mdbm_choose_chunk (2097152, 8, 32768, &c), -1);
  ck_assert_msg (strncmp (mdsb_error (), "bitmap-chunk:", 13) == 0, "%s",
                 mdsb_error ());
  ck_assert_int_eq (mdbm_choose_chunk (2097152, 8, 100000, &c), -1);
  ck_assert_int_eq (mdbm_choose_chunk (2097152, 0, 0, &c), -1);
  /* 64T with the 128K limit: (131072 - 256) * 8 = 1046528 bits; 2^34 + 1
   * at 4K halves to 2^19 + 1 at 128M, which is then the default.
   */
  ck_assert_int_eq (mdbm_choose_chunk (UINT64_C (1) << 37, 256, 0, &c), 0);
  ck_assert_uint_eq (c, 128u << 20);
  /* The same with 256K of room, but no chunk asked: still limited. */
  ck_assert_int_eq (mdbm_choose_chunk (UINT64_C (1) << 37, 512, 0, &c), 0);
  ck_assert_uint_eq (c, 128u << 20);
  /* Asked for: the whole room counts, so 64M fits in 256K. */
  ck_assert_int_eq (mdbm_choose_chunk (UINT64_C (1) << 37, 512,
                                       64u << 20, &c), 0);
  ck_assert_uint_eq (c, 64u << 20);
}
END_TEST

START_TEST (test_defaults)
{
  /* Create.c: s->size (KiB per member) > 100*1024*1024, level >= 1. */
  ck_assert (!mdbm_default_on (1, UINT64_C (209715200)));
  ck_assert (mdbm_default_on (1, UINT64_C (209715202)));
  ck_assert (mdbm_default_on (10, UINT64_C (409715200)));
  ck_assert (!mdbm_default_on (0, UINT64_C (409715200)));
  /* RAID 10 covers the capacity, in whole KiB as mdadm computes it. */
  ck_assert_uint_eq (mdbm_sync_size (10, 131072, 3, 2), 196608);
  ck_assert_uint_eq (mdbm_sync_size (10, 130, 3, 2), 194);
  ck_assert_uint_eq (mdbm_sync_size (1, 131072, 3, 0), 131072);
}
END_TEST

START_TEST (test_count_and_format)
{
  uint8_t b[3] = { 0xff, 0x81, 0x00 };
  char s[24];

  ck_assert_uint_eq (mdbm_count (b, 8), 8);
  ck_assert_uint_eq (mdbm_count (b, 9), 9);
  ck_assert_uint_eq (mdbm_count (b, 15), 9);
  ck_assert_uint_eq (mdbm_count (b, 16), 10);
  ck_assert (mdbm_test (b, 15));
  mdbm_clear (b, 15);
  ck_assert (!mdbm_test (b, 15));
  mdbm_set (b, 17);
  ck_assert_uint_eq (b[2], 0x02);
  mdbm_format_chunk (64u << 20, s);
  ck_assert_str_eq (s, "64 MB");
  mdbm_format_chunk (4096, s);
  ck_assert_str_eq (s, "4 KB");
  mdbm_format_chunk (512, s);
  ck_assert_str_eq (s, "512 B");
  mdbm_format_chunk (2u << 30, s);
  ck_assert_str_eq (s, "2 GB");
}
END_TEST

/* super1.c: with a bitmap, bitmap_offset 8 and the bad block log after
 * the bitmap's own 4K-rounded size; without, after choose_bm_space.
 */
START_TEST (test_build_places_bitmap)
{
  static const uint16_t roles[2] = { 0, 1 };
  struct mdsb_array a = {
    .name = "b", .level = 1, .raid_disks = 2,
    .size = UINT64_C (20) << 21,        /* 20G: 64K of room kept */
    .data_offset = 43008, .ndevs = 2, .dev_roles = roles,
  };
  struct mdsb_device d = { .dev_number = 1,
                           .data_size = (UINT64_C (20) << 21) + 2048 };
  struct mdsb sb;

  ck_assert_int_eq (mdsb_build (&sb, &a, &d), 0);
  ck_assert_uint_eq (sb.feature_map & MDSB_FEATURE_BITMAP_OFFSET, 0);
  ck_assert_uint_eq (sb.bblog_offset, 8 + 128);
  a.bitmap_sectors = 8;
  ck_assert_int_eq (mdsb_build (&sb, &a, &d), 0);
  ck_assert_uint_eq (sb.feature_map & MDSB_FEATURE_BITMAP_OFFSET,
                     MDSB_FEATURE_BITMAP_OFFSET);
  ck_assert_uint_eq (sb.bitmap_offset, 8);
  ck_assert_uint_eq (sb.bblog_offset, 16);
  ck_assert_uint_eq (sb.bblog_size, 8);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("mdbitmap");
  TCase *tc = tcase_create ("mdbitmap");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, test_fields_at_offsets);
  tcase_add_test (tc, test_decode_refuses);
  tcase_add_test (tc, test_bits_and_bytes);
  tcase_add_test (tc, test_choose_chunk);
  tcase_add_test (tc, test_defaults);
  tcase_add_test (tc, test_count_and_format);
  tcase_add_test (tc, test_build_places_bitmap);
  suite_add_tcase (s, tc);

  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
