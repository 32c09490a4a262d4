/* raidsim: unit tests of the simulator's building blocks that know
 * nothing of storage: the event engine (order by time, then by when an
 * event was scheduled; moving and cancelling), the seeded random
 * generators (same seed, same numbers; a permutation visits every block
 * once) and the latency histogram (exact below 256 ns, within 1/256
 * above, exact min/max/mean).
 *
 * Run: meson test -C build --suite unit sim-core
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "raidsim/engine.h"
#include "raidsim/histogram.h"
#include "raidsim/rng.h"

/* ---- engine ---- */

struct tev {
  struct raidsim_event ev;
  int id;
};

static int fired[4096];
static raidsim_ns fired_at[4096];
static unsigned nfired;

static void
record (struct raidsim_engine *e, struct raidsim_event *ev)
{
  struct tev *t = container_of (ev, struct tev, ev);

  fired[nfired] = t->id;
  fired_at[nfired++] = raidsim_engine_now (e);
}

START_TEST (engine_orders_by_time_then_sequence)
{
  struct raidsim_engine *e = raidsim_engine_new (16);
  struct tev t[6];
  /* Times with ties; among equal times, scheduling order must win. */
  static const raidsim_ns when[6] = { 50, 10, 50, 10, 0, 50 };
  static const int expect[6] = { 4, 1, 3, 0, 2, 5 };
  unsigned i;

  nfired = 0;
  for (i = 0; i < 6; ++i) {
    raidsim_event_init (&t[i].ev, record);
    t[i].id = i;
    ck_assert_int_eq (raidsim_engine_schedule (e, &t[i].ev, when[i]), 0);
  }
  raidsim_engine_run (e);
  ck_assert_uint_eq (nfired, 6);
  for (i = 0; i < 6; ++i)
    ck_assert_int_eq (fired[i], expect[i]);
  ck_assert_uint_eq (raidsim_engine_now (e), 50);
  ck_assert_uint_eq (raidsim_engine_fired (e), 6);
  raidsim_engine_free (e);
}
END_TEST

START_TEST (engine_move_and_cancel)
{
  struct raidsim_engine *e = raidsim_engine_new (4);
  struct tev a, b, c;

  nfired = 0;
  raidsim_event_init (&a.ev, record); a.id = 0;
  raidsim_event_init (&b.ev, record); b.id = 1;
  raidsim_event_init (&c.ev, record); c.id = 2;
  raidsim_engine_schedule (e, &a.ev, 100);
  raidsim_engine_schedule (e, &b.ev, 200);
  raidsim_engine_schedule (e, &c.ev, 300);
  /* Moving a scheduled event leaves one entry, at the new time. */
  raidsim_engine_schedule (e, &c.ev, 50);
  ck_assert_uint_eq (raidsim_engine_pending (e), 3);
  raidsim_engine_cancel (e, &b.ev);
  ck_assert (!raidsim_event_scheduled (&b.ev));
  raidsim_engine_run (e);
  ck_assert_uint_eq (nfired, 2);
  ck_assert_int_eq (fired[0], 2);
  ck_assert_uint_eq (fired_at[0], 50);
  ck_assert_int_eq (fired[1], 0);
  /* Not into the past, and not beyond capacity. */
  ck_assert_int_eq (raidsim_engine_schedule (e, &a.ev, 99), -1);
  raidsim_engine_free (e);
}
END_TEST

/* Many events at random times, moved and cancelled at random, fire in
 * exactly the order a sort by (time, last scheduling) gives.
 */
START_TEST (engine_random_against_sort)
{
  enum { N = 2000 };
  struct raidsim_engine *e = raidsim_engine_new (N);
  static struct tev t[N];
  static uint64_t key_time[N], key_seq[N];
  static bool live[N];
  static int order[N];
  struct raidsim_rng r;
  uint64_t seq = 0;
  unsigned i, n = 0, k;

  raidsim_rng_seed (&r, 42);
  nfired = 0;
  for (i = 0; i < N; ++i) {
    raidsim_event_init (&t[i].ev, record);
    t[i].id = i;
    key_time[i] = raidsim_rng_below (&r, 500);
    key_seq[i] = seq++;
    live[i] = true;
    raidsim_engine_schedule (e, &t[i].ev, key_time[i]);
  }
  for (k = 0; k < N; ++k) {
    i = raidsim_rng_below (&r, N);
    if (raidsim_rng_below (&r, 4) == 0) {
      raidsim_engine_cancel (e, &t[i].ev);
      live[i] = false;
    }
    else {
      key_time[i] = raidsim_rng_below (&r, 500);
      key_seq[i] = seq++;
      live[i] = true;
      raidsim_engine_schedule (e, &t[i].ev, key_time[i]);
    }
  }
  for (i = 0; i < N; ++i)
    if (live[i])
      order[n++] = i;
  /* Insertion sort by (time, seq): the reference, slow but obvious. */
  for (i = 1; i < n; ++i) {
    int x = order[i];
    unsigned j = i;
    while (j > 0 && (key_time[order[j - 1]] > key_time[x] ||
                     (key_time[order[j - 1]] == key_time[x] &&
                      key_seq[order[j - 1]] > key_seq[x]))) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = x;
  }
  raidsim_engine_run (e);
  ck_assert_uint_eq (nfired, n);
  for (i = 0; i < n; ++i)
    ck_assert_int_eq (fired[i], order[i]);
  raidsim_engine_free (e);
}
END_TEST

/* Events that, as they fire, reschedule themselves, move or cancel
 * others and check what is pending: the same script, driven by the same
 * seed, on an engine small enough to keep a flat array and on one large
 * enough to keep a heap.  If the two ever fired in a different order,
 * the random draws would part ways and so would the records.
 */
/* 8: engine.c's FLAT_MAX, the largest engine kept as a flat array. */
enum { SCRIPT_EVENTS = 8, SCRIPT_FIRES = 20000 };

static struct tev script_ev[SCRIPT_EVENTS];
static struct raidsim_rng script_rng;
static unsigned script_fires;

static void
script_fire (struct raidsim_engine *e, struct raidsim_event *ev)
{
  raidsim_ns now = raidsim_engine_now (e);
  unsigned j;

  record (e, ev);
  if (++script_fires >= SCRIPT_FIRES)
    return;
  /* Not pending while it fires, even though its entry is still kept. */
  ck_assert (!raidsim_event_scheduled (ev));
  switch (raidsim_rng_below (&script_rng, 4)) {
  case 0:                       /* do nothing: the entry goes */
    break;
  case 1:                       /* move or add another, maybe at now */
    j = raidsim_rng_below (&script_rng, SCRIPT_EVENTS);
    ck_assert_int_eq (raidsim_engine_schedule (e, &script_ev[j].ev,
                      now + raidsim_rng_below (&script_rng, 3)), 0);
    /* fall through */
  default:                      /* again, ties likely */
    ck_assert_int_eq (raidsim_engine_schedule (e, ev, now +
                      raidsim_rng_below (&script_rng, 4)), 0);
    break;
  }
  if (raidsim_rng_below (&script_rng, 5) == 0) {
    j = raidsim_rng_below (&script_rng, SCRIPT_EVENTS);
    raidsim_engine_cancel (e, &script_ev[j].ev);
    ck_assert (!raidsim_event_scheduled (&script_ev[j].ev));
  }
  /* Keep the run going while fires are left. */
  if (raidsim_engine_pending (e) == 0)
    raidsim_engine_schedule (e, ev, now + 1);
}

static unsigned
script_run (size_t capacity, int *ids, raidsim_ns *at)
{
  struct raidsim_engine *e = raidsim_engine_new (capacity);
  unsigned i;

  nfired = 0;
  script_fires = 0;
  raidsim_rng_seed (&script_rng, 7);
  for (i = 0; i < SCRIPT_EVENTS; ++i) {
    raidsim_event_init (&script_ev[i].ev, script_fire);
    script_ev[i].id = i;
    raidsim_engine_schedule (e, &script_ev[i].ev,
                             raidsim_rng_below (&script_rng, 5));
  }
  /* record () keeps 4096 fires: keep the last 4096, count them all. */
  while (raidsim_engine_step (e))
    if (nfired == 4096)
      nfired = 0;
  /* Those pending when the script stops still fire, once each. */
  ck_assert_uint_ge (script_fires, SCRIPT_FIRES);
  memcpy (ids, fired, sizeof fired);
  memcpy (at, fired_at, sizeof fired_at);
  raidsim_engine_free (e);
  return script_fires;
}

START_TEST (engine_flat_and_heap_agree)
{
  static int ids[2][4096];
  static raidsim_ns at[2][4096];
  unsigned i;

  ck_assert_uint_eq (script_run (SCRIPT_EVENTS, ids[0], at[0]),
                     script_run (1000, ids[1], at[1]));
  for (i = 0; i < 4096; ++i) {
    ck_assert_int_eq (ids[0][i], ids[1][i]);
    ck_assert_uint_eq (at[0][i], at[1][i]);
  }
}
END_TEST

/* ---- random numbers ---- */

START_TEST (rng_same_seed_same_sequence)
{
  struct raidsim_rng a, b, c;
  unsigned i, same = 0;

  raidsim_rng_seed (&a, 7);
  raidsim_rng_seed (&b, 7);
  raidsim_rng_seed (&c, 8);
  for (i = 0; i < 1000; ++i) {
    uint64_t x = raidsim_rng_next (&a);
    ck_assert_uint_eq (x, raidsim_rng_next (&b));
    same += x == raidsim_rng_next (&c);
  }
  ck_assert_uint_eq (same, 0);
}
END_TEST

/* xoshiro256** seeded with splitmix64 (seed 0): the first output is a
 * fixed number, so a change of generator cannot pass unnoticed (every
 * recorded seed would silently change meaning).
 */
START_TEST (rng_known_values)
{
  struct raidsim_rng r;
  uint64_t sm = 0;

  /* splitmix64's first output from state 0 is documented widely. */
  ck_assert_uint_eq (raidsim_splitmix64 (&sm), UINT64_C (0xe220a8397b1dcdaf));
  raidsim_rng_seed (&r, 0);
  /* s[1] = second splitmix64 output; result = rotl (s1 * 5, 7) * 9. */
  {
    uint64_t st = 0, s1, x;
    raidsim_splitmix64 (&st);
    s1 = raidsim_splitmix64 (&st);
    x = s1 * 5;
    x = (x << 7) | (x >> 57);
    ck_assert_uint_eq (raidsim_rng_next (&r), x * 9);
  }
}
END_TEST

START_TEST (rng_below_is_in_range_and_uniform)
{
  struct raidsim_rng r;
  unsigned counts[10] = { 0 };
  unsigned i;

  raidsim_rng_seed (&r, 1);
  for (i = 0; i < 100000; ++i) {
    uint64_t v = raidsim_rng_below (&r, 10);
    ck_assert_uint_lt (v, 10);
    counts[v]++;
  }
  /* 10000 expected per value; 5 sigma is 474. */
  for (i = 0; i < 10; ++i)
    ck_assert_msg (abs ((int) counts[i] - 10000) < 500, "count[%u] = %u",
                   i, counts[i]);
}
END_TEST

START_TEST (perm_visits_every_block_once_per_pass)
{
  static const uint64_t sizes[] = { 1, 2, 3, 5, 64, 1000, 4097 };
  unsigned s;

  for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    uint64_t n = sizes[s], i;
    unsigned char *seen = calloc (n, 1);
    struct raidsim_perm p, q;
    unsigned pass;

    raidsim_perm_init (&p, n, 99);
    raidsim_perm_init (&q, n, 99);
    for (pass = 1; pass <= 3; ++pass) {
      for (i = 0; i < n; ++i) {
        uint64_t v = raidsim_perm_next (&p);
        ck_assert_uint_lt (v, n);
        ck_assert_uint_eq (v, raidsim_perm_next (&q));
        ck_assert_uint_eq (seen[v], pass - 1);
        seen[v]++;
      }
    }
    free (seen);
  }
}
END_TEST

/* The order must look random: consecutive blocks should not alternate
 * parity (a RAID 0 with chunk = bs would then alternate members).
 */
START_TEST (perm_is_not_patterned)
{
  struct raidsim_perm p;
  unsigned i, same_parity = 0, ascending = 0;
  uint64_t prev;

  raidsim_perm_init (&p, 1 << 20, 5);
  prev = raidsim_perm_next (&p);
  for (i = 0; i < 100000; ++i) {
    uint64_t v = raidsim_perm_next (&p);
    same_parity += (v & 1) == (prev & 1);
    ascending += v > prev;
    prev = v;
  }
  ck_assert_msg (same_parity > 49000 && same_parity < 51000, "%u", same_parity);
  ck_assert_msg (ascending > 49000 && ascending < 51000, "%u", ascending);
}
END_TEST

/* ---- histogram ---- */

START_TEST (hist_buckets_are_contiguous_and_tight)
{
  unsigned i;

  ck_assert_uint_eq (raid_hist_bucket_low (0), 0);
  for (i = 0; i + 1 < RAID_HIST_BUCKETS; ++i) {
    uint64_t lo = raid_hist_bucket_low (i), hi = raid_hist_bucket_high (i);
    ck_assert_uint_le (lo, hi);
    ck_assert_uint_eq (raid_hist_bucket_low (i + 1), hi + 1);
    ck_assert_uint_eq (raid_hist_index (lo), i);
    ck_assert_uint_eq (raid_hist_index (hi), i);
    /* Width at most 1/256 of the bucket's values. */
    ck_assert_uint_le ((hi - lo) * RAID_HIST_SUB, lo);
  }
  ck_assert_uint_eq (raid_hist_bucket_high (RAID_HIST_BUCKETS - 1),
                     UINT64_MAX);
  for (i = 0; i < 256; ++i)
    ck_assert_uint_eq (raid_hist_index (i), i);
}
END_TEST

START_TEST (hist_identical_values_are_exact)
{
  static struct raid_histogram h;
  unsigned i;

  raid_hist_init (&h);
  for (i = 0; i < 1000; ++i)
    raid_hist_record (&h, 118654);
  ck_assert_uint_eq (raid_hist_min (&h), 118654);
  ck_assert_uint_eq (raid_hist_max (&h), 118654);
  ck_assert_double_eq (raid_hist_mean (&h), 118654);
  ck_assert_double_eq_tol (raid_hist_stddev (&h), 0, 1e-9);
  ck_assert_uint_eq (raid_hist_percentile (&h, 50), 118654);
  ck_assert_uint_eq (raid_hist_percentile (&h, 99.99), 118654);
}
END_TEST

/* Values 1..100000 ns once each: the p-th percentile is p * 1000 within
 * the histogram's resolution, and mean and standard deviation are the
 * closed forms of a discrete uniform distribution.
 */
START_TEST (hist_uniform_percentiles)
{
  static struct raid_histogram h, a, b;
  const uint64_t n = 100000;
  static const double ps[] = { 1, 10, 50, 90, 95, 99, 99.9 };
  uint64_t v;
  unsigned i;

  raid_hist_init (&h);
  raid_hist_init (&a);
  raid_hist_init (&b);
  for (v = 1; v <= n; ++v) {
    raid_hist_record (&h, v);
    raid_hist_record (v % 2 ? &a : &b, v);
  }
  ck_assert_uint_eq (raid_hist_min (&h), 1);
  ck_assert_uint_eq (raid_hist_max (&h), n);
  ck_assert_double_eq (raid_hist_mean (&h), (n + 1) / 2.0);
  ck_assert_double_eq_tol (raid_hist_stddev (&h),
                           sqrt ((double) n * (n + 1) / 12.0), 1e-6);
  for (i = 0; i < sizeof ps / sizeof ps[0]; ++i) {
    double exact = ps[i] / 100 * n;
    uint64_t got = raid_hist_percentile (&h, ps[i]);
    ck_assert_msg (got >= exact && got <= exact * (1 + 1.0 / 256) + 1,
                   "p%g: %lu, exact %g", ps[i], (unsigned long) got, exact);
  }
  /* Merging two halves gives the same histogram. */
  raid_hist_merge (&a, &b);
  ck_assert_uint_eq (a.count, h.count);
  ck_assert_int_eq (memcmp (a.bucket, h.bucket, sizeof h.bucket), 0);
  ck_assert_double_eq (raid_hist_mean (&a), raid_hist_mean (&h));
  ck_assert_double_eq_tol (raid_hist_stddev (&a), raid_hist_stddev (&h),
                           1e-6);
}
END_TEST

static Suite *
core_suite (void)
{
  Suite *s = suite_create ("sim-core");
  TCase *tc = tcase_create ("engine");

  tcase_add_test (tc, engine_orders_by_time_then_sequence);
  tcase_add_test (tc, engine_move_and_cancel);
  tcase_add_test (tc, engine_random_against_sort);
  tcase_add_test (tc, engine_flat_and_heap_agree);
  suite_add_tcase (s, tc);
  tc = tcase_create ("rng");
  tcase_add_test (tc, rng_same_seed_same_sequence);
  tcase_add_test (tc, rng_known_values);
  tcase_add_test (tc, rng_below_is_in_range_and_uniform);
  tcase_add_test (tc, perm_visits_every_block_once_per_pass);
  tcase_add_test (tc, perm_is_not_patterned);
  suite_add_tcase (s, tc);
  tc = tcase_create ("histogram");
  tcase_add_test (tc, hist_buckets_are_contiguous_and_tight);
  tcase_add_test (tc, hist_identical_values_are_exact);
  tcase_add_test (tc, hist_uniform_percentiles);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (core_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
