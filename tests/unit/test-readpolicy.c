/* raidsim tests: the copy choice (raidsim/core/readpolicy.c) against
 * cases worked by hand, one per rule of readpolicy.h's numbered policy.
 * test-copy-choice.c shows that the plugin and the simulator call it
 * alike; this shows that what they call does what the man page says.
 *
 * Run: meson test -C build --suite unit readpolicy
 */

#include <stdint.h>
#include <string.h>

#include <check.h>

#include "raidsim/geometry.h"
#include "raidsim/readpolicy.h"

/* Three copies of one piece at member offset 4096 on members 0, 1, 2. */
static const struct raid_copy three[3] = {
  { 0, 4096 }, { 1, 4096 }, { 2, 4096 },
};

static struct raid_read_state st;

static void
setup (void)
{
  raid_read_state_init (&st);
}

START_TEST (first_takes_first_candidate)
{
  ck_assert_int_eq (raid_read_choose (RAID_READ_FIRST, &st, three, 3, 0), 0);
  /* Copy 0 skipped (failed, or tried already): copy 1. */
  ck_assert_int_eq (raid_read_choose (RAID_READ_FIRST, &st, three, 3, 1), 1);
  ck_assert_int_eq (raid_read_choose (RAID_READ_FIRST, &st, three, 3, 3), 2);
}
END_TEST

START_TEST (none_left)
{
  unsigned p;

  for (p = 0; p < RAID_READ_POLICY_COUNT; ++p)
    ck_assert_int_eq (raid_read_choose (p, &st, three, 3, 7), -1);
}
END_TEST

START_TEST (round_robin_in_turn)
{
  int got[6], k;

  for (k = 0; k < 6; ++k)
    got[k] = raid_read_choose (RAID_READ_ROUND_ROBIN, &st, three, 3, 0);
  ck_assert_int_eq (got[0], 0);
  ck_assert_int_eq (got[1], 1);
  ck_assert_int_eq (got[2], 2);
  ck_assert_int_eq (got[3], 0);
  ck_assert_int_eq (got[5], 2);
  /* With copy 1 skipped the candidates are copies 0 and 2; the counter
   * is at 6, so 6 mod 2 = 0 takes copy 0, then 7 mod 2 takes copy 2.
   */
  ck_assert_int_eq (raid_read_choose (RAID_READ_ROUND_ROBIN, &st, three, 3,
                                      2), 0);
  ck_assert_int_eq (raid_read_choose (RAID_READ_ROUND_ROBIN, &st, three, 3,
                                      2), 2);
}
END_TEST

START_TEST (single_candidate_takes_no_turn)
{
  /* Only copy 2 left: chosen, and the counter does not move, so the
   * next full choice still starts at copy 0.
   */
  ck_assert_int_eq (raid_read_choose (RAID_READ_ROUND_ROBIN, &st, three, 3,
                                      3), 2);
  ck_assert_int_eq (raid_read_choose (RAID_READ_ROUND_ROBIN, &st, three, 3,
                                      0), 0);
}
END_TEST

START_TEST (least_pending_fewest_then_earliest)
{
  /* Pending: member 0 three I/Os, members 1 and 2 one each: copies 1 and
   * 2 tie at 1, and the tie goes to the earlier, copy 1.
   */
  raid_load_issue (&st.member[0], true, 0, 512);
  raid_load_issue (&st.member[0], true, 0, 512);
  raid_load_issue (&st.member[0], false, 0, 512);
  raid_load_issue (&st.member[1], true, 0, 512);
  raid_load_issue (&st.member[2], true, 0, 512);
  ck_assert_int_eq (raid_read_choose (RAID_READ_LEAST_PENDING, &st, three, 3,
                                      0), 1);
  /* Member 2's I/O completes, leaving it at 0: copy 2. */
  raid_load_done (&st.member[2]);
  ck_assert_int_eq (raid_read_choose (RAID_READ_LEAST_PENDING, &st, three, 3,
                                      0), 2);
  /* Copy 2 skipped: copy 1 (1 pending) beats copy 0 (3). */
  ck_assert_int_eq (raid_read_choose (RAID_READ_LEAST_PENDING, &st, three, 3,
                                      4), 1);
}
END_TEST

START_TEST (sequential_nearest_head)
{
  /* Heads after these I/Os: member 0 at 1000 (3096 from 4096), member 1
   * at 5000 (904 away), member 2 at 0 (4096 away): copy 1.
   */
  raid_load_issue (&st.member[0], true, 0, 1000);
  raid_load_issue (&st.member[1], true, 4096, 904);
  ck_assert_int_eq (raid_read_choose (RAID_READ_SEQUENTIAL, &st, three, 3,
                                      0), 1);
  /* A stream: member 2's last I/O ends exactly at 4096. */
  raid_load_issue (&st.member[2], true, 0, 4096);
  ck_assert_int_eq (raid_read_choose (RAID_READ_SEQUENTIAL, &st, three, 3,
                                      0), 2);
  /* A flush, trim or zero leaves the head where it was. */
  raid_load_issue (&st.member[2], false, 1 << 20, 4096);
  ck_assert_int_eq (raid_read_choose (RAID_READ_SEQUENTIAL, &st, three, 3,
                                      0), 2);
  /* Completion does not move the head either. */
  raid_load_done (&st.member[2]);
  ck_assert_int_eq (raid_read_choose (RAID_READ_SEQUENTIAL, &st, three, 3,
                                      0), 2);
}
END_TEST

START_TEST (names_parse_back)
{
  enum raid_read_policy p;
  unsigned i;

  ck_assert_str_eq (raid_read_policy_name (RAID_READ_ROUND_ROBIN),
                    "round-robin");
  ck_assert_str_eq (raid_read_policy_name (RAID_READ_LEAST_PENDING),
                    "least-pending");
  ck_assert_str_eq (raid_read_policy_name (RAID_READ_SEQUENTIAL),
                    "sequential");
  ck_assert_str_eq (raid_read_policy_name (RAID_READ_FIRST), "first");
  for (i = 0; i < RAID_READ_POLICY_COUNT; ++i) {
    ck_assert_int_eq (raid_parse_read_policy (raid_read_policy_name (i), &p),
                      0);
    ck_assert_uint_eq (p, i);
  }
  ck_assert_int_eq (raid_parse_read_policy ("fastest", &p), -1);
  ck_assert_str_eq (raid_geom_error (),
                    "read-policy: 'fastest' is not one of round-robin, "
                    "least-pending, sequential, first");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("readpolicy");
  TCase *tc = tcase_create ("choose");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture (tc, setup, NULL);
  tcase_add_test (tc, first_takes_first_candidate);
  tcase_add_test (tc, none_left);
  tcase_add_test (tc, round_robin_in_turn);
  tcase_add_test (tc, single_candidate_takes_no_turn);
  tcase_add_test (tc, least_pending_fewest_then_earliest);
  tcase_add_test (tc, sequential_nearest_head);
  tcase_add_test (tc, names_parse_back);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
