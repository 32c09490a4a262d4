/* raidsim: where the time goes: each request's stages (sim.h), the
 * members' and links' utilisation, and the bottleneck, against figures
 * worked by hand from the configuration:
 *
 *   - a fixed 100 us device serving one at a time, at QD 1: service
 *     100 us, nothing else;
 *   - the same at QD 4: the first four requests wait 0, 100, 200 and
 *     300 us (mean 150 us); every later one arrives as one leaves and
 *     finds three ahead of it, 300 us;
 *   - two servers at QD 4: the first four wait 0, 0, 100, 100 us;
 *   - controller overhead, a port's transfer time and the coalescing
 *     timer each land in their own stage;
 *   - the stages of a request add up to its latency, whatever the path
 *     (links, coalescing, a write-back cache);
 *   - a 1 GB/s uplink behind 4 SATA SSDs caps a sequential read: it is
 *     the bottleneck, near 100%.
 *
 * Run: meson test -C build --suite unit sim-stages
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim-test.h"

#define US RAIDSIM_NS_PER_US

static const char *
single (const char *latency, unsigned parallelism, const char *ctl)
{
  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 64G\n"
                 "latency = %s\nparallelism = %u\n", latency, parallelism);
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n%s", ctl);
  return sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                        "device = d.ini\ncontroller = c.ini\n");
}

static const struct raid_histogram *
stage (const struct sim_test_run *r, enum raidsim_stage st)
{
  return &raidsim_sim_job (r->s, 0)->stage[st];
}

static double
stage_mean (const struct sim_test_run *r, enum raidsim_stage st)
{
  return raid_hist_mean (stage (r, st));
}

/* Kills: service measured from arrival at the device (t_reaped - t_dev),
 * which would put the queue into the service; a stage left out of the
 * count.
 */
START_TEST (qd1_is_all_service)
{
  struct sim_test_run r;
  const char *a, *j;
  unsigned st;

  a = single ("100us", 1, "");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=1\n"
                     "number_ios=1000\n");
  sim_test_run (&r, a, j, 1);
  for (st = 0; st < RAIDSIM_NSTAGES; ++st)
    ck_assert_uint_eq (stage (&r, st)->count, 1000);
  ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_SERVICE),
                       100 * US);
  ck_assert_uint_eq (raid_hist_percentile
                     (stage (&r, RAIDSIM_STAGE_DEVICE_SERVICE), 99), 100 * US);
  for (st = 0; st < RAIDSIM_NSTAGES; ++st)
    if (st != RAIDSIM_STAGE_DEVICE_SERVICE)
      ck_assert_uint_eq (raid_hist_max (stage (&r, st)), 0);
  sim_test_done (&r);
}
END_TEST

/* QD 4 on one server.  Four I/Os only: waits 0, 100, 200, 300 us, mean
 * 150 us, p50 100 us (the 2nd of 4, to the histogram's 0.4%: the top
 * of its bucket), p99 300 us (the maximum, exact).  400 I/Os: the first
 * four as before, the other 396 wait 300 us each:
 * (600 + 396 x 300) / 400 = 298.5 us.  Service is 100 us throughout.
 * Kills: service taken to start at arrival (queue 0, service 250 us).
 */
START_TEST (qd4_device_queue)
{
  struct sim_test_run r;
  const char *a, *j;

  a = single ("100us", 1, "");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=4\n"
                     "number_ios=4\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_QUEUE), 150 * US);
  ck_assert_uint_eq (raid_hist_percentile
                     (stage (&r, RAIDSIM_STAGE_DEVICE_QUEUE), 50),
                     raid_hist_bucket_high (raid_hist_index (100 * US)));
  ck_assert_uint_eq (raid_hist_percentile
                     (stage (&r, RAIDSIM_STAGE_DEVICE_QUEUE), 99), 300 * US);
  ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_SERVICE),
                       100 * US);
  sim_test_done (&r);

  j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=4\n"
                     "number_ios=400\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_QUEUE),
                       298.5 * US);
  ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_SERVICE),
                       100 * US);
  /* The one device is the bottleneck, busy all the time. */
  {
    char name[32];

    ck_assert_double_eq_tol (raidsim_sim_bottleneck (r.s, name, sizeof name),
                             100, 1e-9);
    ck_assert_str_eq (name, "member0");
  }
  sim_test_done (&r);
}
END_TEST

/* Two servers at QD 4, four I/Os: the first two start at 0, the other
 * two at 100 us: queue (0 + 0 + 100 + 100) / 4 = 50 us, service 100 us.
 * Here only the model knows when service starts: the estimate from the
 * previous completion would give the fourth 0 us of service.  Kills:
 * fixed not setting io->started.
 */
START_TEST (parallel_device_says_when_it_starts)
{
  struct sim_test_run r;
  const char *a, *j;

  a = single ("100us", 2, "");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=4\n"
                     "number_ios=4\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_QUEUE), 50 * US);
  ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_SERVICE),
                       100 * US);
  ck_assert_uint_eq (raid_hist_min
                     (stage (&r, RAIDSIM_STAGE_DEVICE_SERVICE)), 100 * US);
  sim_test_done (&r);
}
END_TEST

/* QD 1, overhead 7 us, a 100 MB/s port (4 KiB in 40.96 us exactly),
 * coalescing of 2 with a 50 us timer (at QD 1 every completion waits
 * the whole timer).  Reads cross the port after the device, writes
 * before; either way each stage gets its own.  Kills: coalescing
 * counted from the device's reap (it would swallow the read's link
 * time), a write's link time taken after the device (0).
 */
/* A hard disk has one mechanism.  At QD 4 of random 4K reads (no cache,
 * so no read-ahead hits) it is never idle, so by Little's law the mean
 * latency is 4 mean services, and the mean device queue 3 of them,
 * whatever order NCQ serves them in (to a few per cent: the run's first
 * and last commands).  The hdd model leaves io->started alone: for one
 * mechanism the driver's estimate (service starts at the previous
 * completion, or at arrival) is exact, and setting it at dispatch would
 * count the command overhead as queue.  Kills: the driver's estimate
 * taken as the arrival (queue 0, the wait counted as service).
 */
START_TEST (hdd_says_when_the_mechanism_starts)
{
  struct sim_test_run r;
  const char *a, *j;
  double q, sv;

  sim_test_file ("d.ini", "[device]\nmodel = hdd\ncapacity = 1000000000000\n"
                 "rpm = 7200\nseek_single = 0.8ms\nseek_avg = 8.5ms\n"
                 "seek_full = 17ms\nrate_outer = 125MB/s\n"
                 "rate_inner = 65MB/s\nheads = 4\noverhead = 0\n"
                 "cache_size = 0\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\niodepth=4\n"
                     "number_ios=2000\n");
  sim_test_run (&r, a, j, 1);
  q = stage_mean (&r, RAIDSIM_STAGE_DEVICE_QUEUE);
  sv = stage_mean (&r, RAIDSIM_STAGE_DEVICE_SERVICE);
  ck_assert_msg (sv > 2000 * US, "service %.0f us: no seek in it", sv / US);
  ck_assert_msg (q > 2.9 * sv && q < 3.1 * sv,
                 "device queue %.0f us, service %.0f us: want 3x", q / US,
                 sv / US);
  sim_test_done (&r);
}
END_TEST

/* A flash drive whose two controller cores each hold a command for
 * 100 us (overhead) and whose dies read in 1 us: at QD 4 both cores are
 * always busy, so X = 2 / 101 us and by Little's law the latency is
 * 4 / X = 202 us: 101 us of service (core, then die) and 101 us waiting
 * for a core.  Kills: flash not setting io->started (the driver's
 * estimate from the previous completion gives about 50 us of service
 * and 150 us of queue).
 */
START_TEST (flash_says_when_a_core_takes_it)
{
  struct sim_test_run r;
  const char *a, *j;
  double q, sv;

  sim_test_file ("d.ini", "[device]\nmodel = flash\ncapacity = 64G\n"
                 "channels = 2\ndies = 8\npage_size = 4K\n"
                 "read_time = 1us\nchannel_rate = 0\ninterface_rate = 0\n"
                 "overhead = 100us\ncores = 2\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\niodepth=4\n"
                     "number_ios=4000\n");
  sim_test_run (&r, a, j, 1);
  q = stage_mean (&r, RAIDSIM_STAGE_DEVICE_QUEUE);
  sv = stage_mean (&r, RAIDSIM_STAGE_DEVICE_SERVICE);
  ck_assert_msg (sv > 96 * US && sv < 106 * US,
                 "service %.1f us, want 101", sv / US);
  ck_assert_msg (q > 96 * US && q < 106 * US,
                 "device queue %.1f us, want 101", q / US);
  sim_test_done (&r);
}
END_TEST

START_TEST (controller_link_coalescing)
{
  static const char *const rw[] = { "randread", "randwrite" };
  struct sim_test_run r;
  const char *a, *j;
  unsigned i;

  a = single ("100us", 1, "overhead = 7us\nport_bandwidth = 100MB/s\n"
              "coalesce_count = 2\ncoalesce_timer = 50us\n");
  for (i = 0; i < 2; ++i) {
    j = sim_test_file ("j.fio", "[j]\nrw=%s\nbs=4k\niodepth=1\n"
                       "number_ios=200\n", rw[i]);
    sim_test_run (&r, a, j, 1);
    ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_CONTROLLER), 7 * US);
    ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_LINK), 40960);
    ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_COALESCE), 50 * US);
    ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_QUEUE), 0);
    ck_assert_double_eq (stage_mean (&r, RAIDSIM_STAGE_DEVICE_SERVICE),
                         100 * US);
    sim_test_done (&r);
  }
}
END_TEST

/* Each request's stages are those of the command it waited for last,
 * so they add up to its latency, and the sums over a job to the sum of
 * its latencies: exact integers, whatever the path.  Cases: RAID 0
 * with shared links, coalescing and requests split over members, a
 * mixed workload; and a write-back cache, whose acknowledged writes
 * spend their time in the controller.  Kills: a request's stages taken
 * from its first command instead of its last; an acknowledged write's
 * time dropped.
 */
START_TEST (stages_add_up_to_latency)
{
  static const char *const ctl[] = {
    "port_bandwidth = 300MB/s\nuplink_bandwidth = 500MB/s\n"
    "coalesce_count = 4\ncoalesce_timer = 20us\noverhead = 3us\n",
    "cache_size = 256K\ncache_copy_rate = 2GB/s\n",
  };
  unsigned i, d, st;

  for (i = 0; i < 2; ++i) {
    struct sim_test_run r;
    const char *a, *j;
    const struct raidsim_job_result *res;
    unsigned __int128 lat = 0, sum = 0;
    uint64_t n = 0;

    sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 64G\n"
                   "latency = 80us\nwrite_latency = 30us\nparallelism = 2\n");
    sim_test_file ("c.ini", "[controller]\nmodel = generic\n%s", ctl[i]);
    a = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = 3\n"
                       "chunk = 16K\ndevice = d.ini\ncontroller = c.ini\n");
    j = sim_test_file ("j.fio", "[j]\nrw=randrw\nbs=24k\niodepth=6\n"
                       "number_ios=3000\n");
    sim_test_run (&r, a, j, 7);
    res = raidsim_sim_job (r.s, 0);
    for (d = 0; d < RAIDSIM_NDIRS; ++d) {
      lat += res->dir[d].lat.sum;
      n += res->dir[d].lat.count;
    }
    for (st = 0; st < RAIDSIM_NSTAGES; ++st) {
      ck_assert_uint_eq (res->stage[st].count, n);
      sum += res->stage[st].sum;
    }
    ck_assert_uint_eq (n, 3000);
    ck_assert (sum == lat);
    ck_assert (res->stage[RAIDSIM_STAGE_CONTROLLER].sum > 0);
    sim_test_done (&r);
  }
}
END_TEST

/* Eight of the shipped SATA SSDs on the AHCI-like controller (each
 * behind its own SATA 3 Gb/s port, all behind one DMI 2.0 uplink)
 * reading sequentially at depth: the ports could carry 8 x 294 MB/s of
 * framed 512 KiB reads, the uplink only about 1,676 MB/s (docs/links.md's
 * closed forms), so the uplink caps the array and is busy all the time.
 * Kills: the bottleneck looking at members only; a full-duplex link's
 * two directions added.
 */
START_TEST (uplink_is_the_bottleneck)
{
  struct sim_test_run r;
  const char *j, *eight;
  char name[32], *table, *json;
  double u;
  unsigned i;

  j = sim_test_file ("j.fio", "[seq]\nrw=read\nbs=512k\niodepth=32\n"
                     "number_ios=8000\n");
  eight = sim_test_file ("eight.ini", "[array]\nlevel = 0\nmembers = 8\n"
                         "chunk = 128K\ndevice = " SRCDIR
                         "/configs/devices/sata-ssd-premium.ini\n"
                         "controller = " SRCDIR
                         "/configs/controllers/ahci-like.ini\n");
  sim_test_run (&r, eight, j, 1);
  u = raidsim_sim_bottleneck (r.s, name, sizeof name);
  ck_assert_str_eq (name, "uplink");
  ck_assert (u > 99 && u <= 100);
  for (i = 0; i < raidsim_sim_nmembers (r.s); ++i)
    ck_assert (raidsim_sim_member_util (r.s, i) < u);
  /* The uplink's index is after the ports. */
  ck_assert_double_eq (raidsim_sim_link_util (r.s, raidsim_sim_nmembers (r.s)),
                       u);
  table = sim_test_report (r.s, RAIDSIM_FORMAT_TABLE);
  ck_assert_ptr_nonnull (strstr (table, "\nbottleneck: uplink 10"));
  ck_assert_ptr_nonnull (strstr (table, "    device-service "));
  json = sim_test_report (r.s, RAIDSIM_FORMAT_JSON);
  ck_assert_ptr_nonnull (strstr (json, "\"bottleneck\": {"));
  ck_assert_ptr_nonnull (strstr (json, "\"device-queue\": {"));
  free (table);
  free (json);
  sim_test_done (&r);

  /* The shipped array of four, reads and writes together: each
   * half-duplex SATA port carries both in one timeline, 292 MB/s of
   * 512 KiB reads and writes taking turns, so each port is busy all the
   * time and is the bottleneck; the full-duplex uplink carries the same
   * 4 x 292 MB/s split over its two directions, about 584 MB/s each of
   * its 1,676 (reads) and 1,671 (writes), so it is 35% busy, not 70%.
   */
  j = sim_test_file ("j.fio", "[seq]\nrw=rw\nbs=512k\niodepth=16\n"
                     "number_ios=4000\n");
  sim_test_run (&r, SRCDIR "/configs/arrays/raid0-4x-sata-ssd.ini", j, 1);
  u = raidsim_sim_bottleneck (r.s, name, sizeof name);
  ck_assert_str_eq (name, "port0");
  ck_assert (u > 99 && u <= 100);
  u = raidsim_sim_link_util (r.s, raidsim_sim_nmembers (r.s));
  ck_assert_msg (u > 31 && u < 38, "uplink %.1f%% busy, want about 35%%", u);
  sim_test_done (&r);
}
END_TEST

/* raid_hist_add fills the same buckets, count, sum, min and max as
 * raid_hist_record.  Kills: an octave off by one in its inline index.
 */
START_TEST (hist_add_matches_record)
{
  static struct raid_histogram a, b;
  uint64_t v = 1;
  unsigned i;

  raid_hist_init (&a);
  raid_hist_init (&b);
  for (i = 0; i < 5000; ++i) {
    raid_hist_add (&a, v >> (i % 64));
    raid_hist_record (&b, v >> (i % 64));
    v = v * 6364136223846793005u + 1442695040888963407u;
  }
  ck_assert (memcmp (a.bucket, b.bucket, sizeof a.bucket) == 0);
  ck_assert_uint_eq (a.count, b.count);
  ck_assert (a.sum == b.sum);
  ck_assert_uint_eq (a.min, b.min);
  ck_assert_uint_eq (a.max, b.max);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("sim-stages");
  TCase *tc = tcase_create ("stages");
  SRunner *sr;
  int failed;

  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, qd1_is_all_service);
  tcase_add_test (tc, qd4_device_queue);
  tcase_add_test (tc, flash_says_when_a_core_takes_it);
  tcase_add_test (tc, hdd_says_when_the_mechanism_starts);
  tcase_add_test (tc, parallel_device_says_when_it_starts);
  tcase_add_test (tc, controller_link_coalescing);
  tcase_add_test (tc, stages_add_up_to_latency);
  tcase_add_test (tc, uplink_is_the_bottleneck);
  tcase_add_test (tc, hist_add_matches_record);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
