/* raidsim: trims (rw=trim and kin) and FUA writes (sync=1, writefua)
 * through the simulator, against figures worked out here:
 *
 *   - md's discard rules per level (raidsim_array_discard, array.c):
 *     raid0 one range per member per zone, raid1 every mirror in 64 MiB
 *     barrier units, raid10 per-member ranges for two stripes or more
 *     and chunk pieces to every copy below that;
 *   - a used flash drive's write amplification after a share of it is
 *     trimmed (Agarwal and Marrow's W = (1 + r) / (2 r)), by hand;
 *   - a whole run: randtrim on RAID 0 reaches every member as trims,
 *     reported as fio's trim direction, with no data on the links;
 *   - sync=1 at QD1 on a fixed device: each write costs L + F (the
 *     member's post-flush), and a controller's write-back cache does
 *     not acknowledge it.
 *
 * Run: meson test -C build --suite unit sim-trim
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/array.h"
#include "raidsim/device.h"
#include "raidsim/param.h"
#include "sim-test.h"

#define US RAIDSIM_NS_PER_US
#define KiB UINT64_C (1024)
#define MiB (KiB * 1024)

/* ---- md's discard rules ---- */

struct cmds {
  unsigned n;
  struct raidsim_member_cmd c[64];
};

static int
collect (const struct raidsim_member_cmd *mc, void *opaque)
{
  struct cmds *l = opaque;

  ck_assert_uint_lt (l->n, 64);
  l->c[l->n++] = *mc;
  return 0;
}

static struct raidsim_array *
array_of (int level, uint64_t chunk, unsigned n, const uint64_t *sizes)
{
  struct raidsim_array_params p = {
    .level = level, .chunk = chunk, .nmembers = n, .member_size = sizes,
  };
  struct raidsim_array *a = raidsim_array_new (&p);

  ck_assert_msg (a != NULL, "%s", raidsim_error ());
  return a;
}

static void
expect (const struct cmds *l, unsigned i, unsigned member, uint64_t off,
        uint64_t len)
{
  ck_assert_uint_eq (l->c[i].member, member);
  ck_assert_uint_eq (l->c[i].offset, off);
  ck_assert_uint_eq (l->c[i].len, len);
}

/* RAID 0 of 3 members, 4K chunks: 0+40K is array chunks 0..9, member m
 * holding chunks m, m+3, ...: member 0 four (0, 3, 6, 9), members 1 and
 * 2 three, each at member offsets from 0, so one discard each of 16K,
 * 12K and 12K.  With a smaller third member the array's second zone
 * starts where it ends, and a discard across the zone boundary is two
 * discards on the members in both.  Mutants killed: a discard sent
 * chunk by chunk as a write (10 commands); no split at the zone end
 * (members 0 and 1 get one command each).
 */
START_TEST (raid0_one_range_per_member_per_zone)
{
  const uint64_t eq[3] = { 1 * MiB, 1 * MiB, 1 * MiB };
  const uint64_t uneq[3] = { 1 * MiB, 1 * MiB, 16 * KiB };
  struct raidsim_array *a = array_of (0, 4 * KiB, 3, eq);
  struct cmds l = { 0 };

  ck_assert_int_eq (raidsim_array_discard (a, 0, 40 * KiB, collect, &l), 0);
  ck_assert_uint_eq (l.n, 3);
  expect (&l, 0, 0, 0, 16 * KiB);
  expect (&l, 1, 1, 0, 12 * KiB);
  expect (&l, 2, 2, 0, 12 * KiB);
  raidsim_array_free (a);

  /* Zone 0: 3 x 16K = 48K of array; zone 1 the rest, on members 0, 1
   * from member offset 16K.  36K+24K: zone 0's chunks 9..11 (members
   * 0, 1, 2 at 12K), zone 1's chunks 0..2 (members 0, 1, 0 at 16K..).
   */
  a = array_of (0, 4 * KiB, 3, uneq);
  memset (&l, 0, sizeof l);
  ck_assert_int_eq (raidsim_array_discard (a, 36 * KiB, 24 * KiB, collect,
                                           &l), 0);
  ck_assert_uint_eq (l.n, 5);
  expect (&l, 0, 0, 12 * KiB, 4 * KiB);
  expect (&l, 1, 1, 12 * KiB, 4 * KiB);
  expect (&l, 2, 2, 12 * KiB, 4 * KiB);
  expect (&l, 3, 0, 16 * KiB, 8 * KiB);
  expect (&l, 4, 1, 16 * KiB, 4 * KiB);
  raidsim_array_free (a);
}
END_TEST

/* RAID 1 of 2: 100 MiB from 0 is 64 MiB then 36 MiB to each mirror.
 * Mutant killed: no barrier-unit split (one command per mirror).
 */
START_TEST (raid1_every_mirror_by_barrier_unit)
{
  const uint64_t s[2] = { 256 * MiB, 256 * MiB };
  struct raidsim_array *a = array_of (1, 64 * KiB, 2, s);
  struct cmds l = { 0 };

  ck_assert_int_eq (raidsim_array_discard (a, 0, 100 * MiB, collect, &l), 0);
  ck_assert_uint_eq (l.n, 4);
  expect (&l, 0, 0, 0, 64 * MiB);
  expect (&l, 1, 1, 0, 64 * MiB);
  expect (&l, 2, 0, 64 * MiB, 36 * MiB);
  expect (&l, 3, 1, 64 * MiB, 36 * MiB);
  raidsim_array_free (a);
}
END_TEST

/* RAID 10 of 4, near 2, 4K chunks: a stripe is 2 chunks (8K).  4K is
 * one chunk, to both copies (members 0 and 1).  0+64K is 8 stripes:
 * each member gets one range, 32K from 0.  Mutants killed: a large
 * discard sent piece by piece (16 commands); a small one grouped as a
 * large one (still 2 here, so the large case is the one that kills).
 */
START_TEST (raid10_stripes_and_pieces)
{
  const uint64_t s[4] = { 1 * MiB, 1 * MiB, 1 * MiB, 1 * MiB };
  struct raidsim_array *a = array_of (10, 4 * KiB, 4, s);
  struct cmds l = { 0 };
  unsigned m;

  ck_assert_int_eq (raidsim_array_discard (a, 0, 4 * KiB, collect, &l), 0);
  ck_assert_uint_eq (l.n, 2);
  expect (&l, 0, 0, 0, 4 * KiB);
  expect (&l, 1, 1, 0, 4 * KiB);
  memset (&l, 0, sizeof l);
  ck_assert_int_eq (raidsim_array_discard (a, 0, 64 * KiB, collect, &l), 0);
  ck_assert_uint_eq (l.n, 4);
  for (m = 0; m < 4; ++m)
    expect (&l, m, m, 0, 32 * KiB);
  raidsim_array_free (a);
}
END_TEST

/* ---- the flash model by hand ---- */

static void *
flash_params (const char *const *kv)
{
  const struct raidsim_device_ops *ops = &raidsim_device_flash;
  void *p = calloc (1, ops->params_size);
  const struct raidsim_param *q;

  raidsim_params_defaults (ops->params, p);
  for (; kv && kv[0]; kv += 2) {
    for (q = ops->params; q->name; ++q)
      if (strcmp (q->name, kv[0]) == 0)
        break;
    ck_assert_msg (q->name != NULL, "no key %s", kv[0]);
    ck_assert_msg (raidsim_param_parse (q, kv[1], (char *) p + q->offset) == 0,
                   "%s", raidsim_error ());
  }
  return p;
}

static raidsim_ns
one (const struct raidsim_device_ops *ops, void *dev, struct raidsim_io *io,
     raidsim_ns now)
{
  raidsim_ns done = ops->submit (dev, io, now);

  ck_assert_ptr_eq (ops->reap (dev, done), io);
  return done;
}

/* A used drive, one die, write_amplification 2, program P = 200 us,
 * read R = 50 us: a page costs 2P + R = 450 us.  Trimming a quarter of
 * it (f = 0.25) takes the spare share from r0 = 1 / (2 x 2 - 1) = 1/3
 * to r = (1/3 + 1/4) / (3/4) = 7/9, and W = (1 + r) / (2 r) = 8/7 =
 * 1.143 (thousandths, rounded): a page then costs (200 x 1143 + 50 x
 * 143) / 1000 = 235.75 us.  Writing the trimmed quarter back brings W
 * to 2 again.  A trim itself costs the controller stage alone.
 * Mutants killed: the trimmed share not changing W (450 us after the
 * trim); a write not making trimmed data valid (235.75 us at the end);
 * a trim served as a write (its time).
 */
START_TEST (flash_trim_gives_gc_room)
{
  static const char *const kv[] = {
    "channels", "1", "dies", "1", "page_size", "4K", "read_time", "50us",
    "program_time", "200us", "channel_rate", "0", "overhead", "10us",
    "cores", "1", "interface_rate", "0", "cache_size", "0",
    "state", "used", "write_amplification", "2", NULL,
  };
  const struct raidsim_device_ops *ops = &raidsim_device_flash;
  void *p = flash_params (kv);
  void *dev = ops->create (p, 1024 * MiB);
  struct raidsim_io io;
  raidsim_ns t = 0, d;

  ck_assert_ptr_nonnull (dev);
  memset (&io, 0, sizeof io);
  io.dir = RAIDSIM_WRITE;
  io.len = 4 * KiB;
  d = one (ops, dev, &io, t);
  ck_assert_uint_eq (d - t, 10 * US + 450 * US);
  t = d + 1000 * US;
  memset (&io, 0, sizeof io);
  io.dir = RAIDSIM_WRITE;
  io.trim = true;
  io.offset = 512 * MiB;
  io.len = 256 * MiB;
  d = one (ops, dev, &io, t);
  ck_assert_uint_eq (d - t, 10 * US);
  t = d + 1000 * US;
  memset (&io, 0, sizeof io);
  io.dir = RAIDSIM_WRITE;
  io.len = 4 * KiB;
  d = one (ops, dev, &io, t);
  ck_assert_uint_eq (d - t, 10 * US + 235750);
  /* The quarter written back, in one command: valid again. */
  t = d + 1000 * US;
  io.offset = 512 * MiB;
  io.len = 256 * MiB;
  d = one (ops, dev, &io, t);
  t = d + 1000 * US;
  io.offset = 0;
  io.len = 4 * KiB;
  d = one (ops, dev, &io, t);
  ck_assert_uint_eq (d - t, 10 * US + 450 * US);
  ops->destroy (dev);
  free (p);
}
END_TEST

/* ---- whole runs ---- */

static const char *
fixed_dev (void)
{
  return sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 64G\n"
                        "latency = 100us\nflush_latency = 40us\n"
                        "parallelism = 1\n");
}

static const char *
array (const char *level, unsigned members, const char *ctl)
{
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n%s", ctl);
  return sim_test_file ("a.ini", "[array]\nlevel = %s\nmembers = %u\n"
                        "%sdevice = d.ini\ncontroller = c.ini\n",
                        level, members,
                        level[0] == '0' ? "chunk = 64K\n" : "");
}

/* randtrim of 64K on a RAID 0 of 4 with 64K chunks: every trim is one
 * member command, a trim served as a flush (40 us) by the fixed model,
 * QD1: N trims take N x 40 us; the job reports N trims and no writes,
 * the members N trims and no writes.  Mutants killed: trims sent as
 * writes (100 us each, write-ios counted); the trim figures not kept.
 */
START_TEST (randtrim_run)
{
  const unsigned N = 40;
  struct sim_test_run r;
  const struct raidsim_job_result *j;
  const char *a, *job;
  uint64_t trims = 0, writes = 0;
  unsigned m;

  fixed_dev ();
  a = array ("0", 4, "");
  job = sim_test_file ("j.fio", "[j]\nrw=randtrim\nbs=64k\nsize=1g\n"
                       "number_ios=%u\n", N);
  sim_test_run (&r, a, job, 1);
  j = raidsim_sim_job (r.s, 0);
  ck_assert_uint_eq (j->trim.ios, N);
  ck_assert_uint_eq (j->trim.bytes, N * 64 * KiB);
  ck_assert_uint_eq (j->dir[RAIDSIM_WRITE].ios, 0);
  ck_assert_uint_eq (raid_hist_max (&j->trim.lat), 40 * US);
  for (m = 0; m < 4; ++m) {
    trims += raidsim_sim_member (r.s, m)->trims;
    writes += raidsim_sim_member (r.s, m)->ios[RAIDSIM_WRITE];
  }
  ck_assert_uint_eq (trims, N);
  ck_assert_uint_eq (writes, 0);
  ck_assert_uint_eq (j->end - j->start, N * 40 * US);
  sim_test_done (&r);
}
END_TEST

/* sync=1 at QD1 on a single fixed device: write L = 100 us, then the
 * member's flush F = 40 us: each write takes L + F, and the member sees
 * N writes and N flushes.  Behind a controller with a write-back cache
 * the same: the cache does not take a FUA write.  Without sync the
 * cache acknowledges at once.  Mutants killed: no post-flush (L); the
 * cache taking FUA writes (latency of the cache's acknowledgement).
 */
START_TEST (fua_writes_post_flush)
{
  const unsigned N = 20;
  const char *ctl[2] = { "", "cache_size = 1M\n" };
  struct sim_test_run r;
  const struct raidsim_job_result *j;
  const char *a, *job;
  unsigned k;

  for (k = 0; k < 2; ++k) {
    fixed_dev ();
    a = array ("single", 1, ctl[k]);
    job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                         "number_ios=%u\nsync=1\n", N);
    sim_test_run (&r, a, job, 1);
    j = raidsim_sim_job (r.s, 0);
    ck_assert_uint_eq (j->dir[RAIDSIM_WRITE].ios, N);
    ck_assert_uint_eq (raid_hist_min (&j->dir[RAIDSIM_WRITE].lat),
                       140 * US);
    ck_assert_uint_eq (raid_hist_max (&j->dir[RAIDSIM_WRITE].lat),
                       140 * US);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->flushes, N);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_WRITE], N);
    sim_test_done (&r);
  }
  /* The cache acknowledges ordinary writes long before L. */
  fixed_dev ();
  a = array ("single", 1, ctl[1]);
  job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                       "number_ios=%u\n", N);
  sim_test_run (&r, a, job, 1);
  j = raidsim_sim_job (r.s, 0);
  ck_assert_uint_lt (raid_hist_max (&j->dir[RAIDSIM_WRITE].lat), 100 * US);
  sim_test_done (&r);
}
END_TEST

static Suite *
trim_suite (void)
{
  Suite *s = suite_create ("sim-trim");
  TCase *tc = tcase_create ("trim");

  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, raid0_one_range_per_member_per_zone);
  tcase_add_test (tc, raid1_every_mirror_by_barrier_unit);
  tcase_add_test (tc, raid10_stripes_and_pieces);
  tcase_add_test (tc, flash_trim_gives_gc_room);
  tcase_add_test (tc, randtrim_run);
  tcase_add_test (tc, fua_writes_post_flush);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (trim_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
