/* raidsim: unit tests for md's rules (raidsim/core/mdrules.c), fed
 * geometries and superblock sets made by hand, with no I/O.
 *
 * Each case is worked from md's rule as the header states it (raid10.c
 * enough (), super_1_validate, mdadm --assemble's freshest member), not
 * from the code: for example a member one event behind that the
 * freshest role table still lists is used, two behind is stale.
 *
 * Run: meson test -C build mdrules
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "raidsim/mdrules.h"

#define K (UINT64_C (1) << 10)
#define M (UINT64_C (1) << 20)

static struct raid_geom *
geom (enum raid_level level, unsigned copies, unsigned n, uint64_t chunk,
      uint64_t doff, uint64_t member_size)
{
  uint64_t sizes[RAID_MAX_MEMBERS];
  struct raid_geom_params p = {
    .level = level, .chunk = chunk, .copies = copies, .data_offset = doff,
    .nmembers = n, .member_size = sizes,
  };
  struct raid_geom *g;
  unsigned i;

  for (i = 0; i < n; ++i)
    sizes[i] = member_size;
  g = raid_geom_new (&p);
  ck_assert_msg (g != NULL, "%s", raid_geom_error ());
  return g;
}

/* ---- enough --------------------------------------------------------- */

START_TEST (test_enough_raid1)
{
  struct raid_geom *g = geom (RAID_LEVEL_1, 0, 3, 4 * K, 0, M);

  ck_assert (md_enough (g, 0));
  ck_assert (md_enough (g, 0x3));               /* one of three left */
  ck_assert (!md_enough (g, 0x7));
  ck_assert_int_eq (md_first_lost (g, 0x7, NULL), 0);
  ck_assert_uint_eq (md_most_copies (g, 0x1), 2);
  raid_geom_free (g);
}
END_TEST

/* RAID 10 near 2 over 3 members: chunk c on members 2c mod 3 and
 * 2c + 1 mod 3, so chunk 0 is on 0 and 1, chunk 1 on 2 and 0, chunk 2
 * on 1 and 2.  With 0 and 2 out, chunk 1 has no copy left, chunk 0
 * does: only a scan past the first chunk finds it (the mutant that
 * looks at chunk 0 alone, as a RAID 1 may, calls the array whole).
 */
START_TEST (test_enough_raid10_odd)
{
  struct raid_geom *g = geom (RAID_LEVEL_10, 2, 3, 64 * K, 0, M);
  struct raid_piece p;

  ck_assert (md_enough (g, 0x1));
  ck_assert (md_enough (g, 0x2));
  ck_assert_int_eq (md_first_lost (g, 0x5, &p), 1);
  ck_assert_uint_eq (p.offset, 64 * K);
  ck_assert_uint_eq (p.ncopies, 2);
  ck_assert_uint_eq (p.copy[0].member, 2);
  ck_assert_uint_eq (p.copy[1].member, 0);
  ck_assert (!md_enough (g, 0x5));
  ck_assert_int_eq (md_first_lost (g, 0x3, NULL), 0);
  ck_assert_uint_eq (md_most_copies (g, 0x1), 2);       /* chunk 2 */
  ck_assert_uint_eq (md_most_copies (g, 0x3), 1);
  raid_geom_free (g);
}
END_TEST

START_TEST (test_enough_raid10_pairs)
{
  struct raid_geom *g = geom (RAID_LEVEL_10, 2, 4, 64 * K, 0, M);

  ck_assert (md_enough (g, 0x5));               /* one of each pair */
  ck_assert (md_enough (g, 0xa));
  ck_assert_int_eq (md_first_lost (g, 0xc, NULL), 1);    /* 2 and 3 */
  raid_geom_free (g);
}
END_TEST

START_TEST (test_enough_raid0)
{
  struct raid_geom *g = geom (RAID_LEVEL_0, 0, 2, 64 * K, 0, M);

  ck_assert (md_enough (g, 0));
  ck_assert_int_eq (md_first_lost (g, 0x2, NULL), 1);
  ck_assert_uint_eq (md_most_copies (g, 0), 1);
  raid_geom_free (g);
}
END_TEST

/* ---- trust ----------------------------------------------------------- */

/* A superblock of a 3-member RAID 1: role = dev_number = r, every role
 * in the table, events e.
 */
static void
sb_of (struct mdsb *sb, unsigned r, uint64_t e)
{
  unsigned i;

  memset (sb, 0, sizeof *sb);
  memset (sb->set_uuid, 0x5a, 16);
  sb->level = 1;
  sb->raid_disks = 3;
  sb->size = 2048;
  sb->data_offset = 2048;
  sb->dev_number = r;
  sb->max_dev = 128;
  for (i = 0; i < MDSB_MAX_DEV_LIMIT; ++i)
    sb->dev_roles[i] = i < 3 ? i : MDSB_ROLE_SPARE;
  sb->events = e;
}

static struct md_trust_set t;

static void
judge (const struct mdsb *a, const struct mdsb *b, const struct mdsb *c)
{
  const struct mdsb *set[3] = { a, b, c };

  md_trust (set, 3, &t);
}

START_TEST (test_trust_whole)
{
  struct mdsb s[3];

  sb_of (&s[0], 2, 7);
  sb_of (&s[1], 0, 7);
  sb_of (&s[2], 1, 7);
  judge (&s[0], &s[1], &s[2]);
  ck_assert_uint_eq (t.ref, 0);
  ck_assert_uint_eq (t.fresh, 0);       /* a tie: the first given */
  ck_assert_uint_eq (t.nlive, 3);
  ck_assert_int_eq (t.m[0].trust, MD_TRUSTED);
  ck_assert_int_eq (t.m[1].trust, MD_TRUSTED);
  ck_assert_int_eq (t.m[2].trust, MD_TRUSTED);
  ck_assert_int_eq (t.holder[0], 1);
  ck_assert_int_eq (t.holder[1], 2);
  ck_assert_int_eq (t.holder[2], 0);
  ck_assert_int_eq (md_trust_refused (&t), -1);
}
END_TEST

/* One event behind and still listed: md uses it (an update cut short).
 * Two behind: stale.  The mutant that calls any member behind stale
 * fails the first; the one that lets two behind pass fails the second.
 */
START_TEST (test_trust_events)
{
  struct mdsb s[3];

  sb_of (&s[0], 0, 10);
  sb_of (&s[1], 1, 11);
  sb_of (&s[2], 2, 9);
  judge (&s[0], &s[1], &s[2]);
  ck_assert_uint_eq (t.fresh, 1);
  ck_assert_int_eq (t.m[0].trust, MD_TRUSTED_BEHIND);
  ck_assert_int_eq (t.m[1].trust, MD_TRUSTED);
  ck_assert_int_eq (t.m[2].trust, MD_STALE_EVENTS);
  ck_assert (md_trust_stale (t.m[2].trust));
  ck_assert (!md_trust_stale (t.m[0].trust));
  ck_assert_uint_eq (t.nlive, 2);
  ck_assert_int_eq (t.holder[2], 2);    /* stale, but it holds its role */
}
END_TEST

/* The freshest lists member 2 faulty: behind by one, it is stale all
 * the same; with as many events (the faulty mark came in the same
 * update), stale too.
 */
START_TEST (test_trust_listed)
{
  struct mdsb s[3];

  sb_of (&s[0], 0, 12);
  sb_of (&s[1], 1, 12);
  sb_of (&s[2], 2, 11);
  s[0].dev_roles[2] = MDSB_ROLE_FAULTY;
  judge (&s[0], &s[1], &s[2]);
  ck_assert_int_eq (t.m[2].trust, MD_STALE_LISTED);
  ck_assert_uint_eq (t.m[2].listed, MDSB_ROLE_FAULTY);
  ck_assert_int_eq (t.m[1].trust, MD_TRUSTED);

  s[2].events = 12;
  judge (&s[0], &s[1], &s[2]);
  ck_assert_int_eq (t.m[2].trust, MD_STALE_ROLE);

  /* Out of the table (dev_number past max_dev): out of the array. */
  sb_of (&s[2], 2, 12);
  s[2].dev_number = 200;
  s[2].dev_roles[200] = 2;
  s[2].max_dev = 256;
  judge (&s[0], &s[1], &s[2]);
  ck_assert_int_eq (t.m[2].trust, MD_STALE_ROLE);
  ck_assert_uint_eq (t.m[2].listed, MDSB_ROLE_SPARE);
}
END_TEST

START_TEST (test_trust_refusals)
{
  struct mdsb s[3];
  char w[24];

  sb_of (&s[0], 0, 5);
  sb_of (&s[1], 1, 5);
  sb_of (&s[2], 2, 5);
  s[2].set_uuid[15] ^= 1;
  judge (&s[0], &s[1], &s[2]);
  ck_assert_int_eq (t.m[2].trust, MD_FOREIGN);
  ck_assert_int_eq (md_trust_refused (&t), 2);

  sb_of (&s[2], 2, 5);
  s[1].chunksize = 128;
  judge (&s[0], &s[1], &s[2]);
  ck_assert_int_eq (t.m[1].trust, MD_OTHER_SHAPE);
  ck_assert_str_eq (t.m[1].field, "chunksize");
  ck_assert_uint_eq (t.m[1].value, 128);
  ck_assert_uint_eq (t.m[1].ref_value, 0);
  ck_assert_int_eq (md_trust_refused (&t), 1);

  /* The recovery bits may differ: a member being rebuilt says so. */
  sb_of (&s[1], 1, 5);
  s[1].feature_map = MDSB_FEATURE_RECOVERY_OFFSET;
  judge (&s[0], &s[1], &s[2]);
  ck_assert_int_eq (t.m[1].trust, MD_TRUSTED);

  /* A spare, and two with one role. */
  s[1].dev_roles[1] = MDSB_ROLE_SPARE;
  judge (&s[0], &s[1], &s[2]);
  ck_assert_int_eq (t.m[1].trust, MD_NO_ROLE);
  ck_assert_str_eq (md_role_words (mdsb_role (&s[1]), w, sizeof w),
                    "out of the array");
  sb_of (&s[1], 0, 5);
  judge (&s[0], &s[1], &s[2]);
  ck_assert_int_eq (t.m[1].trust, MD_DUP_ROLE);
  ck_assert_uint_eq (t.m[1].other, 0);
  ck_assert_int_eq (md_trust_refused (&t), 1);
}
END_TEST

/* Absent members take the roles no member holds, in order: the first
 * absent one role 0, the second role 2.
 */
START_TEST (test_trust_absent)
{
  struct mdsb s;

  sb_of (&s, 1, 3);
  judge (NULL, &s, NULL);
  ck_assert_uint_eq (t.ref, 1);
  ck_assert_int_eq (t.m[0].trust, MD_ABSENT);
  ck_assert_uint_eq (t.m[0].role, 0);
  ck_assert_uint_eq (t.m[2].role, 2);
  ck_assert_int_eq (t.holder[0], 0);
  ck_assert_int_eq (t.holder[1], 1);
  ck_assert_int_eq (t.holder[2], 2);
  ck_assert_uint_eq (t.nlive, 1);

  judge (NULL, NULL, NULL);
  ck_assert_uint_eq (t.ref, 3);
}
END_TEST

START_TEST (test_unkept_features)
{
  struct mdsb s;

  sb_of (&s, 0, 1);
  s.feature_map = MDSB_FEATURE_BITMAP_OFFSET | MDSB_FEATURE_RECOVERY_OFFSET
    | MDSB_FEATURE_RECOVERY_BITMAP | MDSB_FEATURE_RAID0_LAYOUT;
  ck_assert_ptr_null (md_unkept_feature (&s));
  s.feature_map |= MDSB_FEATURE_JOURNAL;
  ck_assert_str_eq (md_unkept_feature (&s), "a journal");
}
END_TEST

/* ---- re-add ------------------------------------------------------ */

/* events == events_cleared may come back: the bits were last cleared at
 * that event, with the member still in; the mutant < into <= refuses it.
 */
START_TEST (test_readd_ok)
{
  struct md_bitmap_view b = { .on = true, .events_cleared = 40 };
  const char *why;

  ck_assert (md_readd_ok (&b, 40, &why));
  ck_assert (md_readd_ok (&b, 45, &why));
  ck_assert (!md_readd_ok (&b, 39, &why));
  ck_assert_str_eq (why, "its events are older than the bitmap's "
                    "events_cleared");
  b.stale = true;
  ck_assert (!md_readd_ok (&b, 45, &why));
  ck_assert_str_eq (why, "the bitmap is stale");
  b.on = false;
  ck_assert (!md_readd_ok (&b, 45, &why));
}
END_TEST

START_TEST (test_readd_verdicts)
{
  struct mdsb roles[3], sb;
  bool in_array[3] = { true, true, false };
  struct md_array_view a = {
    .n = 3, .failed = 0x4, .events = 50, .sb = roles, .in_array = in_array,
    .bitmap = { .on = true, .events_cleared = 30 },
  };
  unsigned role, other = 99;
  const char *why;

  sb_of (&roles[0], 0, 50);
  sb_of (&roles[1], 1, 50);
  sb_of (&roles[2], 2, 40);
  sb_of (&sb, 2, 40);
  ck_assert_int_eq (md_readd (&a, &sb, &role, &why, &other), MD_READD);
  ck_assert_uint_eq (role, 2);

  sb_of (&sb, 1, 40);           /* role 1 is live */
  ck_assert_int_eq (md_readd (&a, &sb, &role, &why, &other),
                    MD_READD_ROLE_LIVE);
  sb_of (&sb, 2, 51);
  ck_assert_int_eq (md_readd (&a, &sb, &role, &why, &other), MD_READD_AHEAD);
  sb_of (&sb, 2, 29);
  ck_assert_int_eq (md_readd (&a, &sb, &role, &why, &other),
                    MD_READD_NO_BITMAP);
  sb_of (&sb, 2, 40);
  sb.dev_roles[2] = MDSB_ROLE_SPARE;
  ck_assert_int_eq (md_readd (&a, &sb, &role, &why, &other),
                    MD_READD_WAS_SPARE);
  /* Its dev_number is member 1's now (a spare took a slot). */
  sb_of (&sb, 2, 40);
  sb.dev_number = 1;
  sb.dev_roles[1] = 2;
  ck_assert_int_eq (md_readd (&a, &sb, &role, &why, &other),
                    MD_READD_DEV_TAKEN);
  ck_assert_uint_eq (other, 1);
}
END_TEST

/* Chunks of 4 bytes (for arithmetic by hand), bits 1, 2 and 5 set, the
 * array 22 bytes long (the last chunk cut at 22).
 */
START_TEST (test_readd_ranges)
{
  const uint8_t bits[1] = { 0x26 };

  ck_assert_uint_eq (md_readd_next (bits, 6, 4, 0, 22), 4);
  ck_assert_uint_eq (md_readd_next (bits, 6, 4, 5, 22), 5);
  ck_assert_uint_eq (md_readd_next (bits, 6, 4, 12, 22), 20);
  ck_assert_uint_eq (md_readd_next (bits, 6, 4, 12, 20), 20);  /* none */
  ck_assert_uint_eq (md_readd_bytes (bits, 6, 4, 0, 22), 4 + 4 + 2);
  ck_assert_uint_eq (md_readd_bytes (bits, 6, 4, 6, 22), 2 + 4 + 2);
  ck_assert (md_readd_needs (bits, 6, 4, 3, 2));  /* 3..4: chunk 1 */
  ck_assert (!md_readd_needs (bits, 6, 4, 0, 4));
  ck_assert (!md_readd_needs (bits, 6, 4, 12, 8));
  ck_assert (!md_readd_needs (bits, 6, 4, 4, 0));
}
END_TEST

/* ---- recovery offsets ------------------------------------------------ */

/* RAID 10 near 2 over 4 members, 64K chunks, 1M of data offset: member 2
 * holds chunks 1, 3, 5 ... at member offsets 0, 64K, 128K ... past the
 * data offset.
 */
START_TEST (test_recovery_offsets)
{
  struct raid_geom *g = geom (RAID_LEVEL_10, 2, 4, 64 * K, M, 3 * M);

  ck_assert_uint_eq (md_recovery_offset (g, 2, 0), 0);
  ck_assert_uint_eq (md_recovery_offset (g, 2, 64 * K + 1), 1);
  ck_assert_uint_eq (md_recovery_offset (g, 2, 128 * K), 64 * K);
  ck_assert_uint_eq (md_recovery_offset (g, 0, 64 * K), 64 * K);
  ck_assert_uint_eq (md_recovery_offset (g, 2, raid_geom_size (g)),
                     raid_geom_member_used (g, 2));
  /* Recorded 64K: every piece below array offset 192K (chunk 3 starts
   * at member offset 64K) is below it; at 256K chunk 5's 128K is not.
   */
  ck_assert_uint_eq (md_recovery_resume (g, 2, 64 * K, 64 * K), 192 * K);
  ck_assert_uint_eq (md_recovery_resume (g, 2, 64 * K, 128 * K), 128 * K);
  ck_assert_uint_eq (md_recovery_resume (g, 2, 0, 64 * K), 64 * K);
  ck_assert_uint_eq (md_recovery_resume (g, 2, raid_geom_member_used (g, 2),
                                         M), raid_geom_size (g));
  raid_geom_free (g);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("mdrules");
  TCase *tc = tcase_create ("mdrules");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, test_enough_raid1);
  tcase_add_test (tc, test_enough_raid10_odd);
  tcase_add_test (tc, test_enough_raid10_pairs);
  tcase_add_test (tc, test_enough_raid0);
  tcase_add_test (tc, test_trust_whole);
  tcase_add_test (tc, test_trust_events);
  tcase_add_test (tc, test_trust_listed);
  tcase_add_test (tc, test_trust_refusals);
  tcase_add_test (tc, test_trust_absent);
  tcase_add_test (tc, test_unkept_features);
  tcase_add_test (tc, test_readd_ok);
  tcase_add_test (tc, test_readd_verdicts);
  tcase_add_test (tc, test_readd_ranges);
  tcase_add_test (tc, test_recovery_offsets);
  suite_add_tcase (s, tc);

  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
