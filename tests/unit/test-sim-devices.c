/* raidsim: the hdd and flash device models and the controller's
 * write-back cache, against closed forms worked out here from their
 * parameters (never copied from the simulator's output):
 *
 *   - hdd: random 4 KiB reads at QD 1 over the whole disk run at
 *     1 / (average seek + half a revolution + transfer), within a few
 *     percent; rotation follows the clock (a sector just missed costs a
 *     whole turn); NCQ's shortest-positioning-time-first order raises
 *     QD 32 well above QD 1, and with NCQ off it does not; a burst of
 *     writes that fits the write cache is acknowledged at the
 *     firmware's pace, and a long random-write stream at the pace the
 *     mechanism destages: 1 / (average seek + write settle + half a
 *     revolution + transfer) when there is room for one write, better
 *     when destaging can choose its order; by hand, destaging takes
 *     the cached write that comes round first, and write_commands
 *     bounds the writes cached; with pre_read a miss also
 *     caches what passed under the head while it waited for its sector;
 *     a seek_table gives seeks by linear interpolation up to its last
 *     point and Lee's form beyond it that keeps seek_avg and seek_full
 *     (worked here by Simpson's rule), and bad tables are refused; a
 *     read miss pays read_miss_overhead before its seek, a hit does not;
 *   - flash: one read takes overhead + read_time + the channel and
 *     interface transfers; reads scale with queue depth as the
 *     channels x dies allow, up to saturation; a used drive writes
 *     slower than a fresh one, by its write amplification exactly;
 *     random writes cost random_write_amplification where sequential
 *     ones cost one program, and Intel's X25-M G2 and G1 profiles give the
 *     data sheet's random and sequential write figures;
 *     max_programs bounds how many dies program at once; write data
 *     crosses at write_rate when that is below interface_rate; garbage
 *     collection in bursts (gc_interval) costs one drive what spread
 *     collection does, but two drives in RAID 0 at QD 1 wait for each
 *     other's pauses, which add up;
 *   - the controller's write-back cache acknowledges writes at once
 *     (or after their copy, at cache_copy_rate) until it is full, and
 *     then at the member's pace; by watermark it flushes only what is
 *     above the mark.
 *
 * Some tests drive a model by hand, with no engine, the way a
 * wall-clock driver would.
 *
 * Run: meson test -C build --suite unit sim-devices
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/device.h"
#include "raidsim/param.h"
#include "sim-test.h"

#define US RAIDSIM_NS_PER_US
#define MS RAIDSIM_NS_PER_MS

static double
iops (const struct sim_test_run *r, unsigned job, enum raidsim_dir d)
{
  return raidsim_result_iops (raidsim_sim_job (r->s, job), d);
}

/* A device's parameters from its table, with overrides, as a [device]
 * section would give them.
 */
static void *
model_params (const struct raidsim_device_ops *ops, const char *const *kv)
{
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

/* A single drive behind a controller that adds nothing. */
static const char *
single_array (const char *device_text)
{
  sim_test_file ("d.ini", "[device]\n%s", device_text);
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                 "max_outstanding = 256\n");
  return sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                        "device = d.ini\ncontroller = c.ini\n");
}

/* ---- hdd ---- */

/* 7200 rpm; no cache (so no read-ahead hits), no overhead: the service
 * time of a random read is seek + rotational wait + transfer alone.
 */
#define HDD_BASE \
  "model = hdd\ncapacity = 1000000000000\nrpm = 7200\n" \
  "seek_single = 0.8ms\nseek_avg = 8.5ms\nseek_full = 17ms\n" \
  "rate_outer = 125MB/s\nrate_inner = 65MB/s\nheads = 4\n"

START_TEST (hdd_random_qd1_closed_form)
{
  struct sim_test_run r;
  const char *a = single_array (HDD_BASE "overhead = 0\ncache_size = 0\n");
  const char *j = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\n"
                                 "iodepth=1\nnumber_ios=6000\n");
  const double T = 60.0 / 7200;          /* s per revolution */
  /* The mean media rate over the surface (linear in radius, bytes
   * uniform): close enough for a 33 us term.
   */
  const double xfer = 4096 / ((125e6 + 65e6) / 2);
  const double expect = 1 / (8.5e-3 + T / 2 + xfer);
  double got;

  sim_test_run (&r, a, j, 1);
  got = iops (&r, 0, RAIDSIM_READ);
  /* Random byte addresses put more seeks on the longer outer tracks
   * than random cylinders do (the data sheet's average), so the model
   * comes out a little faster; 3% covers that and the sampling.
   */
  ck_assert_msg (fabs (got / expect - 1) < 0.03,
                 "random 4K QD1: %.2f IOPS, closed form %.2f", got, expect);
  sim_test_done (&r);
}
END_TEST

START_TEST (hdd_ncq_reorders)
{
  struct sim_test_run r;
  const char *j1 = sim_test_file ("j1.fio", "[j]\nrw=randread\nbs=4k\n"
                                  "iodepth=1\nnumber_ios=1500\n");
  const char *j32 = sim_test_file ("j32.fio", "[j]\nrw=randread\nbs=4k\n"
                                   "iodepth=32\nnumber_ios=3000\n");
  const char *a;
  double qd1, qd32, fifo32;

  a = single_array (HDD_BASE "overhead = 0\ncache_size = 0\nncq = true\n");
  sim_test_run (&r, a, j1, 1);
  qd1 = iops (&r, 0, RAIDSIM_READ);
  sim_test_done (&r);
  sim_test_run (&r, a, j32, 1);
  qd32 = iops (&r, 0, RAIDSIM_READ);
  sim_test_done (&r);
  a = single_array (HDD_BASE "overhead = 0\ncache_size = 0\nncq = false\n");
  sim_test_run (&r, a, j32, 1);
  fifo32 = iops (&r, 0, RAIDSIM_READ);
  sim_test_done (&r);

  /* Shortest positioning time first out of 32 cuts both the seek and
   * the rotational wait: well above QD 1.  Without NCQ the drive takes
   * commands in order, and a deep queue buys nothing.
   */
  ck_assert_msg (qd32 > 1.8 * qd1, "NCQ: QD32 %.1f IOPS vs QD1 %.1f", qd32,
                 qd1);
  ck_assert_msg (fabs (fifo32 / qd1 - 1) < 0.05,
                 "no NCQ: QD32 %.1f IOPS vs QD1 %.1f", fifo32, qd1);
}
END_TEST

/* Rotation follows the clock: the drive is driven by hand.  At t = 0
 * byte 0 is under the head (angle 0, cylinder 0).  A read of it that is
 * ready after the overhead O has just missed it and waits for the rest
 * of the turn: done = T + transfer.  The next block, ready O after that,
 * has just been missed too: another T - O + transfer.
 */
START_TEST (hdd_rotation_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const kv[] = {
    "rpm", "6000", "overhead", "100us", "cache_size", "0",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s", NULL
  };
  void *params = model_params (ops, kv), *dev;
  struct raidsim_io io[2];
  const raidsim_ns T = 10 * MS;          /* 6000 rpm */
  const raidsim_ns X = 40960;            /* 4096 bytes at 100 MB/s */
  raidsim_ns t;

  ck_assert_int_eq (ops->version, RAIDSIM_DEVICE_OPS_VERSION);
  dev = ops->create (params, UINT64_C (100000000000));
  ck_assert_msg (dev != NULL, "%s", raidsim_error ());
  memset (io, 0, sizeof io);
  io[0].dir = io[1].dir = RAIDSIM_READ;
  io[0].len = io[1].len = 4096;
  io[1].offset = 4096;

  /* A reordering model cannot say at submission when it will finish. */
  ck_assert_uint_eq (ops->submit (dev, &io[0], 0), RAIDSIM_NEVER);
  /* Drive it as a wall-clock driver would: until next (), reap. */
  while ((t = ops->next (dev)) != RAIDSIM_NEVER) {
    struct raidsim_io *done = ops->reap (dev, t);

    if (done) {
      ck_assert_ptr_eq (done, &io[0]);
      break;
    }
  }
  /* Within a nanosecond: the model rounds completions up. */
  ck_assert_msg (t >= T + X && t <= T + X + 1, "first read at %lu",
                 (unsigned long) t);
  ck_assert_uint_eq (ops->submit (dev, &io[1], t), RAIDSIM_NEVER);
  {
    raidsim_ns t0 = t, want = t0 + T + X;

    while ((t = ops->next (dev)) != RAIDSIM_NEVER &&
           ops->reap (dev, t) != &io[1])
      ;
    ck_assert_msg (t + 2 >= want && t <= want + 2, "second read at %lu, "
                   "want %lu", (unsigned long) t, (unsigned long) want);
  }
  ops->destroy (dev);
  free (params);
}
END_TEST

/* When the first read, 4 KiB at offset 0 at time 0, of member m of an
 * array run with seed completes.
 */
static raidsim_ns
first_read (const struct raidsim_device_ops *ops, void *params, unsigned m,
            uint64_t seed)
{
  void *dev = ops->create (params, UINT64_C (100000000000));
  struct raidsim_io io;
  raidsim_ns t;

  ck_assert_ptr_nonnull (dev);
  ck_assert_ptr_nonnull (ops->place);
  ops->place (dev, m, seed);
  memset (&io, 0, sizeof io);
  io.dir = RAIDSIM_READ;
  io.len = 4096;
  ops->submit (dev, &io, 0);
  while ((t = ops->next (dev)) != RAIDSIM_NEVER && ops->reap (dev, t) != &io)
    ;
  ops->destroy (dev);
  return t;
}

/* The members of an array do not share a spindle phase: member m > 0
 * leads member 0 by a fraction p of a turn drawn from the seed, so the
 * same first read, which member 0 serves after a whole turn less the
 * overhead (see above) whatever the seed, member m serves p of a turn
 * sooner: at (1 - p) T + X.  Over 400 seeds the phases are uniform over
 * the turn: their mean is 1/2 within 4 standard errors (1/sqrt(12 x
 * 400) = 0.0144 each), a quarter fall in each quarter turn within 4
 * standard errors (sqrt(400 x 3/16) = 8.7), and no two seeds share one.
 * The same seed always gives the same phase.
 */
START_TEST (hdd_members_unsynchronised)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const kv[] = {
    "rpm", "6000", "overhead", "100us", "cache_size", "0",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s", NULL
  };
  void *params = model_params (ops, kv);
  const double T = 10 * MS, X = 40960;
  enum { N = 400 };
  double p[N], mean = 0;
  unsigned quarter[4] = { 0 }, i, j;
  uint64_t seed;

  for (seed = 1; seed <= 4; ++seed) {
    raidsim_ns t = first_read (ops, params, 0, seed);

    ck_assert_msg (fabs (t - (T + X)) <= 1, "member 0, seed %lu, at %lu",
                   (unsigned long) seed, (unsigned long) t);
  }
  for (i = 0; i < N; ++i) {
    raidsim_ns t = first_read (ops, params, 1 + i % 3, i + 1);

    ck_assert_uint_eq (t, first_read (ops, params, 1 + i % 3, i + 1));
    /* A phase within the overhead of a whole turn (p > 0.99) misses
     * the sector once more: (2 - p) T + X.
     */
    p[i] = 1 - (t - X) / T;
    if (p[i] < 0)
      p[i] += 1;
    ck_assert_msg (p[i] >= 0 && p[i] < 1, "seed %u: phase %f", i + 1, p[i]);
    mean += p[i] / N;
    quarter[(unsigned) (p[i] * 4)]++;
  }
  ck_assert_msg (fabs (mean - 0.5) < 4 * 0.0144, "mean phase %f", mean);
  for (i = 0; i < 4; ++i)
    ck_assert_msg (fabs (quarter[i] - N / 4.0) < 4 * 8.7,
                   "quarter %u holds %u phases", i, quarter[i]);
  for (i = 0; i < N; ++i)
    for (j = i + 1; j < N; ++j)
      ck_assert_msg (p[i] != p[j], "seeds %u and %u share phase %f",
                     i + 1, j + 1, p[i]);
  free (params);
}
END_TEST

/* Pre-read, by hand.  At 6000 rpm and 100 MB/s a track holds 1,000,000
 * bytes.  A read of byte 500,000, ready at O = 100 us (the head over
 * byte 10,000), waits half a turn; with pre_read the sectors that pass
 * meanwhile, bytes 10,000 to 500,000, stay in its segment, so a read of
 * byte 200,000 right after is a hit (done O later) and one of byte
 * 4,096, which passed before the head was there, is not.  Without
 * pre_read the read of byte 200,000 waits for its sector to come round.
 */
static raidsim_ns
hdd_read_by_hand_len (const struct raidsim_device_ops *ops, void *dev,
                      struct raidsim_io *io, uint64_t off, uint64_t len,
                      raidsim_ns at)
{
  raidsim_ns t;

  memset (io, 0, sizeof *io);
  io->dir = RAIDSIM_READ;
  io->len = len;
  io->offset = off;
  ck_assert_uint_eq (ops->submit (dev, io, at), RAIDSIM_NEVER);
  while ((t = ops->next (dev)) != RAIDSIM_NEVER && ops->reap (dev, t) != io)
    ;
  return t;
}

static raidsim_ns
hdd_read_by_hand (const struct raidsim_device_ops *ops, void *dev,
                  struct raidsim_io *io, uint64_t off, raidsim_ns at)
{
  return hdd_read_by_hand_len (ops, dev, io, off, 4096, at);
}

START_TEST (hdd_pre_read_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const on[] = {
    "rpm", "6000", "overhead", "100us", "pre_read", "true",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s", NULL
  };
  static const char *const off[] = {
    "rpm", "6000", "overhead", "100us", "pre_read", "false",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s", NULL
  };
  const raidsim_ns T = 10 * MS, O = 100 * US, X = 40960;
  struct raidsim_io io[3];
  raidsim_ns t0, t1, t2;
  void *params, *dev;

  params = model_params (ops, on);
  dev = ops->create (params, UINT64_C (100000000000));
  ck_assert_msg (dev != NULL, "%s", raidsim_error ());
  t0 = hdd_read_by_hand (ops, dev, &io[0], 500000, 0);
  ck_assert_msg (t0 + 1 >= T / 2 + X && t0 <= T / 2 + X + 1,
                 "first read at %lu", (unsigned long) t0);
  t1 = hdd_read_by_hand (ops, dev, &io[1], 200000, t0);
  ck_assert_msg (t1 <= t0 + O + 1, "pre-read byte 200000: a hit at %lu, "
                 "want %lu", (unsigned long) t1, (unsigned long) (t0 + O));
  t2 = hdd_read_by_hand (ops, dev, &io[2], 4096, t1);
  ck_assert_msg (t2 > t1 + T / 4, "byte 4096 passed before the head came: "
                 "a miss, at %lu", (unsigned long) t2);
  ops->destroy (dev);
  free (params);

  params = model_params (ops, off);
  dev = ops->create (params, UINT64_C (100000000000));
  ck_assert_ptr_nonnull (dev);
  t0 = hdd_read_by_hand (ops, dev, &io[0], 500000, 0);
  t1 = hdd_read_by_hand (ops, dev, &io[1], 200000, t0);
  ck_assert_msg (t1 > t0 + T / 2, "no pre-read: byte 200000 a miss, at %lu",
                 (unsigned long) t1);
  ops->destroy (dev);
  free (params);
}
END_TEST

/* A segment being read ahead into is a ring of segment_size bytes, by
 * hand.  At 6000 rpm and 100 MB/s a track holds 1,000,000 bytes and the
 * head passes one byte each 10 ns.  A read of byte 0 waits a whole turn
 * and ends at T + X; read-ahead then fills its 1 MiB segment to byte
 * 4,096 + 1,048,576 and stops, 10.49 ms later.  A read of the last block
 * below 1 MiB, 15 ms after, is a hit (done O after it is submitted) and
 * lets read-ahead go on to one segment past it, byte 2,097,152: at most
 * a turn to find the sector, then 10.44 ms.  25 ms after that the
 * segment holds bytes 1,048,576 to 2,097,152 only: byte 1,500,000 is a
 * hit, and byte 4,096, overwritten since, is a miss, which costs at
 * least its transfer after the overhead (O + X).  Each of the last two
 * reads is tried on a drive of its own, since each changes the cache.
 */
START_TEST (hdd_readahead_segment_is_a_ring)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const kv[] = {
    "rpm", "6000", "overhead", "100us", "segment_size", "1M",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s", NULL
  };
  static const uint64_t last[2] = { 1500000, 4096 };
  const raidsim_ns T = 10 * MS, O = 100 * US, X = 40960;
  void *params = model_params (ops, kv);
  unsigned k;

  for (k = 0; k < 2; ++k) {
    void *dev = ops->create (params, UINT64_C (100000000000));
    struct raidsim_io io[3];
    raidsim_ns t0, t1, t2, s;

    ck_assert_msg (dev != NULL, "%s", raidsim_error ());
    t0 = hdd_read_by_hand (ops, dev, &io[0], 0, 0);
    ck_assert_msg (t0 + 1 >= T + X && t0 <= T + X + 1, "first read at %lu",
                   (unsigned long) t0);
    s = t0 + 15 * MS;
    t1 = hdd_read_by_hand (ops, dev, &io[1], 1048576 - 4096, s);
    ck_assert_msg (t1 + 1 >= s + O && t1 <= s + O + 1,
                   "read-ahead block: a hit at %lu, want %lu",
                   (unsigned long) t1, (unsigned long) (s + O));
    s = t1 + 25 * MS;
    t2 = hdd_read_by_hand (ops, dev, &io[2], last[k], s);
    if (k == 0)
      ck_assert_msg (t2 + 1 >= s + O && t2 <= s + O + 1,
                     "byte 1500000: a hit at %lu, want %lu",
                     (unsigned long) t2, (unsigned long) (s + O));
    else
      ck_assert_msg (t2 + 1 >= s + O + X, "byte 4096 left the 1 MiB ring: "
                     "a miss, at %lu, not before %lu", (unsigned long) t2,
                     (unsigned long) (s + O + X));
    ops->destroy (dev);
  }
  free (params);
}
END_TEST

/* Prefetch follows the host's contiguous reads, even those another
 * segment answers, by hand (6000 rpm, 100 MB/s: a track of 1,000,000
 * bytes, all of these in cylinder 0).  A read of byte 1,000,000 leaves
 * a segment holding bytes 1,004,096 to 2,052,672 once read-ahead has
 * stopped.  A read of byte 0 starts a stream in a second segment; 30 ms
 * later a read of bytes 4,096 to 1,004,096 is a hit there and moves its
 * read-ahead limit to 2,052,672.  The next read, bytes 1,004,096 to
 * 2,052,672, contiguous, is a hit in the first segment, far ahead of
 * the head: prefetch moves on to the blocks beyond it, so 30 ms later
 * (a turn at most to find the sector, then 41 us) the block at
 * 2,052,672 is a hit, done O after it is submitted.  Had read-ahead
 * stayed behind, it would have stopped at its limit, 2,052,672, and
 * that block would be a miss.
 */
START_TEST (hdd_prefetch_follows_the_host)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const kv[] = {
    "rpm", "6000", "overhead", "100us", "segment_size", "1M",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s", NULL
  };
  const raidsim_ns O = 100 * US;
  void *params = model_params (ops, kv), *dev;
  struct raidsim_io io[5];
  raidsim_ns t, s;

  dev = ops->create (params, UINT64_C (100000000000));
  ck_assert_msg (dev != NULL, "%s", raidsim_error ());
  t = hdd_read_by_hand (ops, dev, &io[0], 1000000, 0);
  t = hdd_read_by_hand (ops, dev, &io[1], 0, t + 40 * MS);
  s = t + 30 * MS;
  t = hdd_read_by_hand_len (ops, dev, &io[2], 4096, 1000000, s);
  ck_assert_msg (t <= s + O + 1, "stream: a hit at %lu, want %lu",
                 (unsigned long) t, (unsigned long) (s + O));
  s = t;
  t = hdd_read_by_hand_len (ops, dev, &io[3], 1004096, 1048576, s);
  ck_assert_msg (t <= s + O + 1, "older segment: a hit at %lu, want %lu",
                 (unsigned long) t, (unsigned long) (s + O));
  s = t + 30 * MS;
  t = hdd_read_by_hand (ops, dev, &io[4], 2052672, s);
  ck_assert_msg (t + 1 >= s + O && t <= s + O + 1,
                 "beyond the older segment: prefetched, a hit at %lu, "
                 "want %lu", (unsigned long) t, (unsigned long) (s + O));
  ops->destroy (dev);
  free (params);
}
END_TEST

/* With the cache, read-ahead keeps up with a sequential stream: 128 KiB
 * reads at QD1 run at the media rate, not one block per revolution.
 */
START_TEST (hdd_readahead_streams)
{
  struct sim_test_run r;
  const char *a = single_array ("model = hdd\ncapacity = 100000000000\n"
                                "rate_outer = 100MB/s\n"
                                "rate_inner = 100MB/s\n");
  const char *j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=128k\n"
                                 "iodepth=1\nsize=256m\n");
  double bw;

  sim_test_run (&r, a, j, 1);
  bw = raidsim_result_bw (raidsim_sim_job (r.s, 0), RAIDSIM_READ);
  ck_assert_msg (bw > 0.97e8 && bw < 1.0001e8, "sequential: %.0f B/s", bw);
  sim_test_done (&r);
}
END_TEST

/* The write cache holds write_cache_size bytes.  A burst of writes that fits is acknowledged at
 * the pace of the firmware alone (overhead per command, QD 1), whatever
 * the mechanism does meanwhile.
 */
START_TEST (hdd_write_burst_fits_cache)
{
  struct sim_test_run r;
  const char *a = single_array (HDD_BASE "overhead = 100us\n"
                                "cache_size = 16M\nsegment_size = 1M\n"
                                "write_cache_size = 2M\n");
  /* 256 x 4 KiB = 1 MiB, half the room. */
  const char *j = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\n"
                                 "iodepth=1\nnumber_ios=256\n");
  const double expect = 1 / 100e-6;
  double got;

  sim_test_run (&r, a, j, 1);
  got = iops (&r, 0, RAIDSIM_WRITE);
  ck_assert_msg (fabs (got / expect - 1) < 0.01,
                 "burst of 256 4K writes: %.1f IOPS, closed form %.1f", got,
                 expect);
  sim_test_done (&r);
}
END_TEST

/* Once the write cache is full, a write is acknowledged only when a
 * destage makes room, so a long stream of random writes over the whole
 * surface runs at the mechanism's pace.  With room for one write there
 * is no choice of order: each destage is a random write, and the rate is
 * 1 / (average seek + write settle + half a revolution + transfer).
 * With room for a few hundred writes the drive destages shortest
 * positioning first and does better, but not by more than the
 * rotational wait and most of the seek it saves.  With the same bytes
 * in two write segments it holds two writes, and does between the two.
 */
START_TEST (hdd_write_stream_destage_bound)
{
  struct sim_test_run r;
  const char *j = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\n"
                                 "iodepth=1\nnumber_ios=6000\n");
  const double T = 60.0 / 7200;
  const double xfer = 4096 / ((125e6 + 65e6) / 2);
  const double expect = 1 / (8.5e-3 + 1e-3 + T / 2 + xfer);
  const char *a;
  double one, few, many;

  a = single_array (HDD_BASE "overhead = 50us\nwrite_settle = 1ms\n"
                    "cache_size = 16M\nsegment_size = 1M\n"
                    "write_cache_size = 4K\n");
  sim_test_run (&r, a, j, 1);
  one = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  /* As for reads: random byte addresses seek a little shorter than the
   * data sheet's random cylinders; 3% covers that and the sampling.
   */
  ck_assert_msg (fabs (one / expect - 1) < 0.03,
                 "random 4K writes, room for one: %.2f IOPS, closed form "
                 "%.2f", one, expect);

  a = single_array (HDD_BASE "overhead = 50us\nwrite_settle = 1ms\n"
                    "cache_size = 16M\nsegment_size = 1M\n"
                    "write_cache_size = 2M\n");
  sim_test_run (&r, a, j, 1);
  many = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  ck_assert_msg (many > 1.2 * expect && many < 1 / (0.8e-3 + 1e-3 + xfer),
                 "random 4K writes, 2M of room: %.2f IOPS vs %.2f", many,
                 expect);

  a = single_array (HDD_BASE "overhead = 50us\nwrite_settle = 1ms\n"
                    "cache_size = 16M\nsegment_size = 1M\n"
                    "write_cache_size = 2M\nwrite_segments = 2\n");
  /* sim_test_file keeps eight paths: write the job again. */
  j = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\n"
                     "iodepth=1\nnumber_ios=6000\n");
  sim_test_run (&r, a, j, 1);
  few = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  ck_assert_msg (few > 0.97 * one && few < many,
                 "random 4K writes, two segments: %.2f IOPS, between %.2f "
                 "and %.2f", few, one, many);
}
END_TEST

/* Destaging by hand.  At 6000 rpm and 100 MB/s a track holds 1,000,000
 * bytes and a turn takes T = 10 ms; with four heads, bytes 0 to
 * 3,999,999 are one cylinder, so no write here seeks, and byte o passes
 * under the head at frac (o / 1,000,000) of a turn.  Three 4 KiB writes
 * are submitted at 0, in this order: C at byte 800,000 (angle 0.8), B
 * at 500,000 (0.5), A at 1,100,000 (the second track, angle 0.1).  They
 * are cached and acknowledged at O = 100 us, the head then at angle
 * 0.01.  write_commands = 3: three entries fill the room, so destaging
 * starts at once although destage_delay is 1 s.  Shortest positioning
 * first writes A (starts 0.1 T = 1 ms, ends 40.96 us later), then B
 * (5 ms to 5.04096 ms): in arrival order C would come first, in byte
 * order B.  One entry of three is less than half the room, so C waits
 * for the idle timer: it starts at 5.04096 ms + 1 s, the head at angle
 * 0.504096, and goes at angle 0.8, 2.95904 ms later: it ends at
 * 1 s + 8.04096 ms.
 *
 * With write_commands = 2 the third write (A, submitted last) finds no
 * entry: it is acknowledged only when the first destage ends.  B and C
 * fill the room, so that starts at once: B first (5.04096 ms).
 */
static void
hdd_write_by_hand (struct raidsim_io *io, uint64_t off)
{
  memset (io, 0, sizeof *io);
  io->dir = RAIDSIM_WRITE;
  io->len = 4096;
  io->offset = off;
}

START_TEST (hdd_destage_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const kv3[] = {
    "rpm", "6000", "overhead", "100us", "rate_outer", "100MB/s",
    "rate_inner", "100MB/s", "write_commands", "3", "destage_delay", "1s",
    NULL
  };
  static const char *const kv2[] = {
    "rpm", "6000", "overhead", "100us", "rate_outer", "100MB/s",
    "rate_inner", "100MB/s", "write_commands", "2", "destage_delay", "1s",
    NULL
  };
  const raidsim_ns X = 40960, O = 100 * US, S = RAIDSIM_NS_PER_S;
  const raidsim_ns want[] = { 1 * MS + X, 5 * MS + X, S + 8 * MS + X };
  const uint64_t off[3] = { 800000, 500000, 1100000 };
  struct raidsim_io io[3];
  raidsim_ns t, idle[16], acked[3];
  unsigned i, n;
  void *params, *dev;

  params = model_params (ops, kv3);
  dev = ops->create (params, UINT64_C (100000000000));
  ck_assert_msg (dev != NULL, "%s", raidsim_error ());
  for (i = 0; i < 3; ++i) {
    hdd_write_by_hand (&io[i], off[i]);
    ck_assert_uint_eq (ops->submit (dev, &io[i], 0), RAIDSIM_NEVER);
  }
  /* Every moment next () names at which no write is acknowledged is the
   * mechanism's: a destage ending or the idle timer.
   */
  n = 0;
  while ((t = ops->next (dev)) != RAIDSIM_NEVER) {
    struct raidsim_io *done = ops->reap (dev, t);

    if (done)
      ck_assert_msg (t == O, "write at byte %lu acknowledged at %lu",
                     (unsigned long) done->offset, (unsigned long) t);
    else {
      ck_assert_uint_lt (n, 16);
      idle[n++] = t;
    }
  }
  /* A ends, B ends, the timer fires at B's end + 1 s, C ends. */
  ck_assert_uint_eq (n, 4);
  ck_assert_msg (idle[0] + 2 >= want[0] && idle[0] <= want[0] + 2,
                 "first destage (A) ends at %lu", (unsigned long) idle[0]);
  ck_assert_msg (idle[1] + 2 >= want[1] && idle[1] <= want[1] + 2,
                 "second destage (B) ends at %lu", (unsigned long) idle[1]);
  ck_assert_msg (idle[2] + 2 >= want[1] + S && idle[2] <= want[1] + S + 2,
                 "idle timer at %lu", (unsigned long) idle[2]);
  ck_assert_msg (idle[3] + 3 >= want[2] && idle[3] <= want[2] + 3,
                 "last destage (C) ends at %lu", (unsigned long) idle[3]);
  ops->destroy (dev);
  free (params);

  params = model_params (ops, kv2);
  dev = ops->create (params, UINT64_C (100000000000));
  ck_assert_msg (dev != NULL, "%s", raidsim_error ());
  for (i = 0; i < 3; ++i) {
    hdd_write_by_hand (&io[i], off[i]);
    ck_assert_uint_eq (ops->submit (dev, &io[i], 0), RAIDSIM_NEVER);
  }
  memset (acked, 0, sizeof acked);
  while ((t = ops->next (dev)) != RAIDSIM_NEVER && t < S) {
    struct raidsim_io *done = ops->reap (dev, t);

    if (done)
      acked[done - io] = t;
  }
  ck_assert_uint_eq (acked[0], O);
  ck_assert_uint_eq (acked[1], O);
  ck_assert_msg (acked[2] + 2 >= want[1] && acked[2] <= want[1] + 2,
                 "third write acknowledged at %lu", (unsigned long) acked[2]);
  ops->destroy (dev);
  free (params);
}
END_TEST

/* ---- flash ---- */

/* One read, by hand: the controller's overhead, the die's read time,
 * the page across the channel, the bytes across the interface.
 */
START_TEST (flash_read_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("flash");
  static const char *const kv[] = {
    "overhead", "3us", "read_time", "50us", "page_size", "4K",
    "channel_rate", "400MB/s", "interface_rate", "500MB/s", NULL
  };
  void *params = model_params (ops, kv), *dev;
  struct raidsim_io io;
  /* 4096 B at 400 MB/s is 10240 ns, at 500 MB/s 8192 ns. */
  const raidsim_ns want = 3 * US + 50 * US + 10240 + 8192;

  dev = ops->create (params, UINT64_C (1) << 30);
  ck_assert_ptr_nonnull (dev);
  memset (&io, 0, sizeof io);
  io.dir = RAIDSIM_READ;
  io.len = 4096;
  ck_assert_uint_eq (ops->submit (dev, &io, 0), want);
  ck_assert_uint_eq (ops->next (dev), want);
  ck_assert_ptr_null (ops->reap (dev, want - 1));
  ck_assert_ptr_eq (ops->reap (dev, want), &io);
  ck_assert_uint_eq (ops->next (dev), RAIDSIM_NEVER);
  ops->destroy (dev);
  free (params);
}
END_TEST

/* Eight dies (2 channels x 4), reads of one page taking R with nothing
 * else in the way.  Sequential pages go to the dies in turn, so QD q
 * keeps min (q, 8) dies busy: IOPS = min (q, 8) / R exactly.  Random
 * pages collide on dies: IOPS rises with q, stays at or below
 * min (q, 8) / R, at or above what exponential service would give
 * (the product form: N / R x q / (q + N - 1)), and comes within 10% of
 * 8 / R by QD 64.
 */
#define FLASH_FAST \
  "model = flash\ncapacity = 64G\nchannels = 2\ndies = 4\npage_size = 4K\n" \
  "read_time = 50us\nchannel_rate = 0\ninterface_rate = 0\noverhead = 0\n"

START_TEST (flash_parallelism)
{
  const double R = 50e-6, N = 8;
  const char *a = single_array (FLASH_FAST);
  unsigned q;
  double prev = 0;

  for (q = 1; q <= 64; q *= 2) {
    struct sim_test_run r;
    const char *j = sim_test_file ("j.fio", "[seq]\nrw=read\nbs=4k\n"
                                   "iodepth=%u\nnumber_ios=4000\n"
                                   "[rnd]\nstonewall\nrw=randread\nbs=4k\n"
                                   "iodepth=%u\nnumber_ios=8000\n", q, q);
    double busy = q < N ? q : N, seq, rnd;

    sim_test_run (&r, a, j, 1);
    seq = iops (&r, 0, RAIDSIM_READ);
    rnd = iops (&r, 1, RAIDSIM_READ);
    ck_assert_msg (fabs (seq / (busy / R) - 1) < 1e-3,
                   "sequential QD%u: %.1f IOPS, want %.1f", q, seq, busy / R);
    ck_assert_msg (rnd <= busy / R * 1.001, "random QD%u: %.1f IOPS above "
                   "%.1f", q, rnd, busy / R);
    ck_assert_msg (rnd >= N / R * q / (q + N - 1) * 0.98,
                   "random QD%u: %.1f IOPS below the product form %.1f", q,
                   rnd, N / R * q / (q + N - 1));
    ck_assert_msg (rnd > prev, "random QD%u: %.1f IOPS, not above QD%u",
                   q, rnd, q / 2);
    prev = rnd;
    if (q == 64)
      ck_assert_msg (rnd > 0.9 * N / R, "random QD64: %.1f IOPS", rnd);
    sim_test_done (&r);
  }
}
END_TEST

/* Writes with no DRAM buffer, one page each, at a queue deep enough to
 * keep all eight dies programming: fresh, IOPS = 8 / P; used, each page
 * costs W x P + (W - 1) x R, so IOPS = 8 / (W P + (W - 1) R).
 */
START_TEST (flash_used_writes_slower)
{
  const double P = 200e-6, R = 50e-6, W = 2.5, N = 8;
  const char *j = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\n"
                                 "iodepth=32\nnumber_ios=8000\n");
  struct sim_test_run r;
  double fresh, used;

  sim_test_run (&r, single_array (FLASH_FAST "program_time = 200us\n"
                                  "cache_size = 0\nstate = fresh\n"), j, 1);
  fresh = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  sim_test_run (&r, single_array (FLASH_FAST "program_time = 200us\n"
                                  "cache_size = 0\nstate = used\n"
                                  "write_amplification = 2.5\n"), j, 1);
  used = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);

  ck_assert_msg (used < fresh, "used %.1f IOPS, fresh %.1f", used, fresh);
  ck_assert_msg (fabs (fresh / (N / P) - 1) < 0.01, "fresh: %.1f IOPS, "
                 "want %.1f", fresh, N / P);
  ck_assert_msg (fabs (used / (N / (W * P + (W - 1) * R)) - 1) < 0.01,
                 "used: %.1f IOPS, want %.1f", used,
                 N / (W * P + (W - 1) * R));
}
END_TEST

/* Random and sequential writes with random_write_amplification Wr, no
 * buffer, a queue deep enough to keep all eight dies programming: a
 * write that continues the previous one costs its die P, so sequential
 * 4 KiB writes run at 8 / P; a random one costs Wr P + (Wr - 1) R, so
 * random writes run at 8 / (Wr P + (Wr - 1) R), fresh as the drive is.
 */
START_TEST (flash_random_writes_cost_more)
{
  const double P = 200e-6, R = 50e-6, W = 2.5, N = 8;
  const char *jr = sim_test_file ("jr.fio", "[j]\nrw=randwrite\nbs=4k\n"
                                  "iodepth=32\nnumber_ios=8000\n");
  const char *js = sim_test_file ("js.fio", "[j]\nrw=write\nbs=4k\n"
                                  "iodepth=32\nnumber_ios=8000\n");
  const char *a = single_array (FLASH_FAST "program_time = 200us\n"
                                "cache_size = 0\nstate = fresh\n"
                                "random_write_amplification = 2.5\n");
  struct sim_test_run r;
  double rnd, seq;

  sim_test_run (&r, a, jr, 1);
  rnd = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  sim_test_run (&r, a, js, 1);
  seq = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  ck_assert_msg (fabs (seq / (N / P) - 1) < 0.01, "sequential: %.1f IOPS, "
                 "want %.1f", seq, N / P);
  ck_assert_msg (fabs (rnd / (N / (W * P + (W - 1) * R)) - 1) < 0.01,
                 "random: %.1f IOPS, want %.1f", rnd,
                 N / (W * P + (W - 1) * R));
}
END_TEST

/* Intel's X25-M G2 profiles against the figures Intel gives (their
 * device files cite them): random 4 KiB writes 6,600 IOPS (80 GB) and
 * 8,600 IOPS (160 GB), within 5%: one amplification serves both
 * capacities.  Sequential writes, 70 and 100 MB/s, within 7%: the 80 GB
 * profile's 20 dies at its estimated 1.1 ms program give 74.5 MB/s
 * (its file says so), which this change leaves alone.
 */
START_TEST (flash_x25m_g2_data_sheet)
{
  static const struct {
    const char *array;
    double rand_iops, seq_mbps;
  } drives[] = {
    { SRCDIR "/configs/arrays/single-x25m-g2-80gb-ahci.ini", 6600, 70 },
    { SRCDIR "/configs/arrays/single-x25m-g2-160gb-ahci.ini", 8600, 100 },
  };
  const char *j = sim_test_file ("j.fio", "[global]\nstonewall\n"
                                 "[rand]\nrw=randwrite\nbs=4k\n"
                                 "iodepth=32\nnumber_ios=40000\n"
                                 "[seq]\nrw=write\nbs=128k\n"
                                 "iodepth=1\nnumber_ios=4000\n");

  for (unsigned i = 0; i < 2; ++i) {
    struct sim_test_run r;
    double rnd, seq;

    sim_test_run (&r, drives[i].array, j, 1);
    rnd = iops (&r, 0, RAIDSIM_WRITE);
    seq = raidsim_result_bw (raidsim_sim_job (r.s, 1), RAIDSIM_WRITE) / 1e6;
    sim_test_done (&r);
    ck_assert_msg (fabs (rnd / drives[i].rand_iops - 1) < 0.05,
                   "%s: random 4K writes %.0f IOPS, data sheet %.0f",
                   drives[i].array, rnd, drives[i].rand_iops);
    ck_assert_msg (fabs (seq / drives[i].seq_mbps - 1) < 0.07,
                   "%s: sequential writes %.1f MB/s, data sheet %.0f",
                   drives[i].array, seq, drives[i].seq_mbps);
  }
}
END_TEST

/* Intel's X25-M G1 (50 nm) profile against Intel's figures for it
 * (its device files cite them): random 4 KiB writes "Up to 3.3K IOPS",
 * within 5%, on the fresh profile (the data sheet's figure is of a new
 * drive): its 16 program slots at W x 900 us + (W - 1) x 50 us a page
 * give 16 / 3,300 s per round at W = 5.156.  Sequential 128 KiB writes
 * stay at the manual's 70 MB/s (16 pages per 900 us, 72.8 MB/s, within
 * 7%); the used profile, with the same W and its collection on top,
 * writes random data slower than the fresh one, never faster.
 */
START_TEST (flash_x25m_g1_data_sheet)
{
  const char *j = sim_test_file ("j.fio", "[global]\nstonewall\n"
                                 "[rand]\nrw=randwrite\nbs=4k\n"
                                 "iodepth=32\nnumber_ios=20000\n"
                                 "[seq]\nrw=write\nbs=128k\n"
                                 "iodepth=1\nnumber_ios=2000\n");
  const char *c = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                                 "max_outstanding = 256\n");
  const char *fresh = sim_test_file ("fresh.ini", "[array]\nlevel = single\n"
                                     "members = 1\ncontroller = %s\n"
                                     "device = " SRCDIR "/configs/devices/"
                                     "intel-x25m-g1-80gb-fresh.ini\n", c);
  const char *used = sim_test_file ("used.ini", "[array]\nlevel = single\n"
                                    "members = 1\ncontroller = %s\n"
                                    "device = " SRCDIR "/configs/devices/"
                                    "intel-x25m-g1-80gb.ini\n", c);
  struct sim_test_run r;
  double rnd, seq, rnd_used;

  sim_test_run (&r, fresh, j, 1);
  rnd = iops (&r, 0, RAIDSIM_WRITE);
  seq = raidsim_result_bw (raidsim_sim_job (r.s, 1), RAIDSIM_WRITE) / 1e6;
  sim_test_done (&r);
  sim_test_run (&r, used, j, 1);
  rnd_used = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  ck_assert_msg (fabs (rnd / 3300 - 1) < 0.05,
                 "fresh G1: random 4K writes %.0f IOPS, data sheet 3300", rnd);
  ck_assert_msg (fabs (seq / 70 - 1) < 0.07,
                 "fresh G1: sequential writes %.1f MB/s, data sheet 70", seq);
  ck_assert_msg (rnd_used <= rnd, "used G1: %.0f random IOPS, fresh %.0f",
                 rnd_used, rnd);
}
END_TEST

/* With max_programs = 2 of the eight dies, a deep queue of one-page
 * writes keeps only two programming: IOPS = 2 / P, not 8 / P.
 */
START_TEST (flash_max_programs)
{
  const double P = 200e-6;
  const char *j = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\n"
                                 "iodepth=32\nnumber_ios=8000\n");
  struct sim_test_run r;

  sim_test_run (&r, single_array (FLASH_FAST "program_time = 200us\n"
                                  "cache_size = 0\nmax_programs = 2\n"),
                j, 1);
  ck_assert_msg (fabs (iops (&r, 0, RAIDSIM_WRITE) / (2 / P) - 1) < 0.01,
                 "%.1f IOPS, want %.1f", iops (&r, 0, RAIDSIM_WRITE), 2 / P);
  sim_test_done (&r);
}
END_TEST

/* One write with no buffer, by hand: the controller's overhead, the
 * bytes in at the lower of write_rate and interface_rate, the page
 * across the channel, the program.  A write_rate above interface_rate
 * changes nothing, and reads never pay it.
 */
START_TEST (flash_write_rate_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("flash");
  static const char *const slow[] = {
    "overhead", "3us", "page_size", "4K", "program_time", "100us",
    "channel_rate", "400MB/s", "interface_rate", "500MB/s",
    "cache_size", "0", "write_rate", "200MB/s", NULL
  };
  static const char *const fast[] = {
    "overhead", "3us", "page_size", "4K", "program_time", "100us",
    "channel_rate", "400MB/s", "interface_rate", "500MB/s",
    "cache_size", "0", "write_rate", "1000MB/s", "read_time", "50us", NULL
  };
  /* 4096 B at 200 MB/s is 20480 ns, at 500 MB/s 8192 ns, at 400 MB/s
   * (the channel) 10240 ns.
   */
  const raidsim_ns want_slow = 3 * US + 20480 + 10240 + 100 * US;
  const raidsim_ns want_fast = 3 * US + 8192 + 10240 + 100 * US;
  const raidsim_ns want_read = 3 * US + 50 * US + 10240 + 8192;
  void *params, *dev;
  struct raidsim_io io;

  memset (&io, 0, sizeof io);
  io.dir = RAIDSIM_WRITE;
  io.len = 4096;
  params = model_params (ops, slow);
  dev = ops->create (params, UINT64_C (1) << 30);
  ck_assert_ptr_nonnull (dev);
  ck_assert_uint_eq (ops->submit (dev, &io, 0), want_slow);
  ops->destroy (dev);
  free (params);

  params = model_params (ops, fast);
  dev = ops->create (params, UINT64_C (1) << 30);
  ck_assert_ptr_nonnull (dev);
  ck_assert_uint_eq (ops->submit (dev, &io, 0), want_fast);
  ck_assert_ptr_eq (ops->reap (dev, want_fast), &io);
  io.dir = RAIDSIM_READ;
  ck_assert_uint_eq (ops->submit (dev, &io, want_fast),
                     want_fast + want_read);
  ops->destroy (dev);
  free (params);
}
END_TEST

/* Garbage collection in bursts, by hand: with gc_interval one page,
 * every interval is exactly one page (uniform in [L - L/2, L + L/2] with
 * L = 1), so a used drive with write_amplification 2 moves one page
 * after each page the host writes.  One die, no buffer, nothing but
 * the flash takes time: the first write ends at P; the move then holds
 * the die from P to P + (R + P), so a second write submitted at P ends
 * at 3P + R, and the third, submitted then, at 5P + 2R.  Spread evenly
 * instead, each write costs W P + (W - 1) R = 2P + R.
 */
START_TEST (flash_gc_pause_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("flash");
  static const char *const kv[] = {
    "channels", "1", "dies", "1", "page_size", "4K", "read_time", "50us",
    "program_time", "200us", "channel_rate", "0", "interface_rate", "0",
    "overhead", "0", "cache_size", "0", "state", "used",
    "write_amplification", "2", "gc_interval", "4K", NULL
  };
  const raidsim_ns P = 200 * US, R = 50 * US;
  const raidsim_ns want[3] = { P, 3 * P + R, 5 * P + 2 * R };
  void *params = model_params (ops, kv), *dev;
  struct raidsim_io io;
  raidsim_ns t = 0;
  unsigned i;

  dev = ops->create (params, UINT64_C (1) << 30);
  ck_assert_msg (dev != NULL, "%s", raidsim_error ());
  ops->place (dev, 1, 7);
  memset (&io, 0, sizeof io);
  io.dir = RAIDSIM_WRITE;
  io.len = 4096;
  for (i = 0; i < 3; ++i) {
    io.offset = i * 4096;
    t = ops->submit (dev, &io, t);
    ck_assert_uint_eq (t, want[i]);
    ck_assert_ptr_eq (ops->reap (dev, t), &io);
  }
  ops->destroy (dev);
  free (params);
}
END_TEST

/* The drives for the two tests below: eight dies, four programs at once
 * (M), a buffer of two rounds, nothing else that takes time; W = 1.25,
 * and when in bursts a pause every 4 MiB (1,024 pages) on average.  A
 * long run of writes keeps the four program slots busy, so a page the
 * host writes costs them P, and a page moved R + P:
 *
 *   one drive:  M / (P + (W - 1)(R + P)) = M / (W P + (W - 1) R) pages
 *               a second, whether the moves come spread or in bursts.
 */
#define FLASH_GC \
  FLASH_FAST "program_time = 200us\nmax_programs = 4\ncache_size = 32K\n" \
  "write_amplification = 1.25\n"

/* Over a long run one drive writes at the closed form above with its
 * collection in bursts as well as spread: a pause costs the time it
 * collects for, no more.  A fresh drive never pauses.
 */
START_TEST (flash_gc_bursts_keep_the_mean)
{
  const double P = 200e-6, R = 50e-6, W = 1.25, M = 4, BS = 4;
  const double want = M / (W * P + (W - 1) * R) / BS;
  char *j = strdup (sim_test_file ("j.fio", "[j]\nrw=write\nbs=16k\n"
                                   "iodepth=1\nnumber_ios=20000\n"));
  struct sim_test_run r;
  double spread, bursts, fresh, fresh_gc;

  sim_test_run (&r, single_array (FLASH_GC "state = used\n"), j, 1);
  spread = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  /* About 80 pauses in the run. */
  sim_test_run (&r, single_array (FLASH_GC "state = used\ngc_interval = 4M\n"), j, 1);
  bursts = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  ck_assert_msg (fabs (spread / want - 1) < 0.01, "spread: %.1f IOPS, "
                 "want %.1f", spread, want);
  ck_assert_msg (fabs (bursts / want - 1) < 0.01, "bursts: %.1f IOPS, "
                 "want %.1f", bursts, want);

  sim_test_run (&r, single_array (FLASH_GC "state = fresh\n"), j, 1);
  fresh = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  sim_test_run (&r, single_array (FLASH_GC "state = fresh\n"
                                  "gc_interval = 4M\n"), j, 1);
  fresh_gc = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  ck_assert_msg (fabs (fresh / (M / P / BS) - 1) < 0.01, "fresh: %.1f IOPS, "
                 "want %.1f", fresh, M / P / BS);
  ck_assert_uint_eq (fresh_gc, fresh);
  free (j);
}
END_TEST

/* Two such drives in RAID 0 at QD 1, each request a round for each.
 * Spread, the drives write side by side: twice one drive.  In bursts,
 * while one drive pauses the other soon has nothing to write (its
 * buffer holds two rounds, and the next request waits for the pausing
 * drive), and it cannot start a pause of its own without host data, so
 * the pauses add up: per page of the array each drive writes half a
 * page, P / (2M) of time together, and each owes half a page's moves,
 * (W - 1)(R + P) / (2M), during which the array waits:
 *
 *   1 / (P / (2M) + (W - 1)(R + P) / M)  pages a second,
 *
 * 19% below twice one drive with these figures.  The closed form leaves
 * out what the buffers absorb: while one drive pauses, the other can
 * still program its backlog and take up to two more rounds, so each
 * pause costs up to four rounds (0.8 ms) less.  A pause here is 16 ms
 * on average, so the array may come out up to about 1% faster.
 */
START_TEST (flash_gc_bursts_hold_an_array)
{
  const double P = 200e-6, R = 50e-6, W = 1.25, M = 4, BS = 8;
  const double one = M / (W * P + (W - 1) * R) / BS;
  const double want = 1 / (P / (2 * M) + (W - 1) * (R + P) / M) / BS;
  const char *j = sim_test_file ("j.fio", "[j]\nrw=write\nbs=32k\n"
                                 "iodepth=1\nnumber_ios=40000\n");
  const char *a = sim_test_file ("r0.ini", "[array]\nlevel = 0\n"
                                 "members = 2\nchunk = 16K\ndevice = d.ini\n"
                                 "controller = c.ini\n");
  struct sim_test_run r;
  double spread, bursts;

  single_array (FLASH_GC "state = used\n");
  sim_test_run (&r, a, j, 1);
  spread = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  single_array (FLASH_GC "state = used\ngc_interval = 4M\n");
  sim_test_run (&r, a, j, 1);
  bursts = iops (&r, 0, RAIDSIM_WRITE);
  sim_test_done (&r);
  ck_assert_msg (fabs (spread / (2 * one) - 1) < 0.01, "spread: %.1f IOPS, "
                 "want %.1f", spread, 2 * one);
  ck_assert_msg (fabs (bursts / want - 1) < 0.02, "bursts: %.1f IOPS, "
                 "want %.1f (twice one drive %.1f)", bursts, want, 2 * one);
}
END_TEST

/* A gc_interval below one page is refused, naming the key. */
START_TEST (flash_gc_interval_checked)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("flash");
  static const char *const kv[] = {
    "page_size", "4K", "state", "used", "gc_interval", "2K", NULL
  };
  void *params = model_params (ops, kv);

  ck_assert_int_eq (ops->check (params), -1);
  ck_assert_msg (strncmp (raidsim_error (), "gc_interval:", 12) == 0, "%s",
                 raidsim_error ());
  ck_assert_ptr_null (ops->create (params, UINT64_C (1) << 30));
  free (params);
}
END_TEST

/* A DRAM buffer absorbs a burst: a write that finds room completes as
 * soon as its data is in, well before any program could end.
 */
START_TEST (flash_buffer_absorbs_writes)
{
  const char *j = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\n"
                                 "iodepth=1\nnumber_ios=100\n");
  struct sim_test_run r;

  sim_test_run (&r, single_array (FLASH_FAST "program_time = 200us\n"
                                  "cache_size = 1M\n"), j, 1);
  /* 100 writes of 4 KiB fit in 1 MiB: none waits for a program. */
  ck_assert_uint_eq (raid_hist_max (&raidsim_sim_job (r.s, 0)
                                       ->dir[RAIDSIM_WRITE].lat), 0);
  sim_test_done (&r);
}
END_TEST

/* ---- the controller's write-back cache ---- */

/* A drive that takes 1 ms per write, one at a time, behind a 1 MiB
 * cache flushed at once: the first 256 writes of 4 KiB are acknowledged
 * at time 0, and every later one when a flush frees its room, one per
 * millisecond; N writes at QD 1 end at (N - 256) ms.  Without the cache
 * the drive's 1000 IOPS is all there is.
 */
START_TEST (controller_write_back_cache)
{
  const unsigned N = 2000, C = 256;
  const char *j = sim_test_file ("j.fio", "[j]\nrw=write\nbs=4k\n"
                                 "iodepth=1\nnumber_ios=%u\n", N);
  struct sim_test_run r;
  const char *a;

  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 64G\n"
                 "latency = 1ms\nparallelism = 1\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                 "cache_size = 1M\ncache_flush = immediate\n");
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->end, (N - C) * MS);
  ck_assert_rel (iops (&r, 0, RAIDSIM_WRITE), N / ((N - C) * 1e-3));
  /* Every write reached the drive, after the host was done. */
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_WRITE], N);
  sim_test_done (&r);

  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_rel (iops (&r, 0, RAIDSIM_WRITE), 1000.0);
  sim_test_done (&r);

  /* RAID 1: each write is two commands, one per member, so the cache
   * holds 128 writes, and a waiting write needs room for both of its
   * commands (this once looped forever when more than one command
   * waited).  Both members flush one per millisecond: write k > 128 is
   * acknowledged at (k - 128) ms.
   */
  a = sim_test_file ("a1.ini", "[array]\nlevel = 1\nmembers = 2\n"
                     "device = d.ini\ncontroller = c.ini\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                 "cache_size = 1M\ncache_flush = immediate\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->end, (N - C / 2) * MS);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 1)->ios[RAIDSIM_WRITE], N);
  sim_test_done (&r);
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");

  /* Flushing by watermark: 200 writes fit, and only what is above half
   * of the cache, 200 - 128 of them, ever reaches the drive.
   */
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                 "cache_size = 1M\ncache_flush = watermark\n"
                 "cache_high = 50\n");
  j = sim_test_file ("j.fio", "[j]\nrw=write\nbs=4k\nnumber_ios=200\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_WRITE].ios, 200);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_WRITE],
                     200 - C / 2);
  sim_test_done (&r);

  /* A copy into the cache at 4,096,000 B/s takes 1 ms per 4 KiB write,
   * one at a time: 200 writes that all fit end at 200 ms, not at 0.
   */
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                 "cache_size = 1M\ncache_copy_rate = 4096KB/s\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->end, 200 * MS);
  sim_test_done (&r);
}
END_TEST

/* ---- hdd: short seeks from a table, a read miss's overhead ---- */

/* The seek curve a table gives, worked here by numerical integration
 * (Simpson's rule), independently of the model's closed forms: seek
 * (u) for u = cylinders - 1 is linear through (0, single) and the
 * table's points, and beyond the last point (uD, tD) it is tD + a sqrt
 * (u - uD) + b (u - uD), with a and b such that a full stroke (u = N)
 * takes full and the mean over the density 2 (N - u) / N^2 is avg.
 */
struct seek_curve {
  unsigned n;
  double u[4], t[4];
  double N, a, b;
};

static double
seek_curve_at (const struct seek_curve *c, double u)
{
  unsigned i;

  if (u >= c->u[c->n - 1]) {
    double v = u - c->u[c->n - 1];

    return c->t[c->n - 1] + c->a * sqrt (v) + c->b * v;
  }
  for (i = 1; c->u[i] < u; ++i)
    ;
  return c->t[i - 1] + (c->t[i] - c->t[i - 1]) * (u - c->u[i - 1]) /
    (c->u[i] - c->u[i - 1]);
}

/* Simpson's rule for the integral of 2 (N - u) / N^2 f (u) over [lo, hi]
 * in m (even) steps, with f (u) = w0 + wa sqrt (u - uD) + wb (u - uD) on
 * the tail, or the table's line on [lo, hi] when table is set.
 */
static double
simpson (const struct seek_curve *c, double lo, double hi, int which)
{
  const unsigned m = 200000;
  double h = (hi - lo) / m, sum = 0;
  unsigned k;

  for (k = 0; k <= m; ++k) {
    double u = lo + k * h, v = u - c->u[c->n - 1], f;

    switch (which) {
    case 0: f = seek_curve_at (c, u); break;    /* the table's lines */
    case 1: f = 1; break;
    case 2: f = sqrt (v < 0 ? 0 : v); break;
    default: f = v; break;
    }
    f *= 2 * (c->N - u) / (c->N * c->N);
    sum += f * (k == 0 || k == m ? 1 : k % 2 ? 4 : 2);
  }
  return sum * h / 3;
}

static void
seek_curve_fit (struct seek_curve *c, double avg, double full)
{
  double uD = c->u[c->n - 1], tD = c->t[c->n - 1], L = c->N - uD;
  double tab = simpson (c, 0, uD, 0);
  double m1 = simpson (c, uD, c->N, 1), ma = simpson (c, uD, c->N, 2);
  double mb = simpson (c, uD, c->N, 3);
  /* tD + a sqrt L + b L = full;  tab + tD m1 + a ma + b mb = avg. */
  double r1 = full - tD, r2 = avg - tab - tD * m1;
  double det = sqrt (L) * mb - L * ma;

  c->a = (r1 * mb - L * r2) / det;
  c->b = (sqrt (L) * r2 - ma * r1) / det;
}

/* One cylinder per track (heads = 1), one track 1,000,000 bytes (100
 * MB/s at 6000 rpm, T = 10 ms) and 100,000 cylinders; no cache, so
 * every read is served by the mechanism.  The first read, of byte 0 at
 * time 0, leaves the head on cylinder 0 at t1 = T + X (see
 * hdd_rotation_by_hand).  A read of cylinder c at angle th (byte c x
 * 10^6 + th x 10^6), submitted then, seeks once the overhead O is
 * spent and arrives at A = t1 + O + seek (c); its sector comes round
 * th - frac (A / T) of a turn later, or a turn after that if it has
 * just passed.  Each distance is probed twice, on fresh drives: with th
 * e = 0.2% of a turn (20 us) after the arrival the curve gives, the
 * read completes at A + e T + X, which it cannot if the seek is more
 * than 20 us longer; with th e before it, a turn later, which it cannot
 * if the seek is more than 20 us shorter.  So each probe pins the seek
 * within 20 us of the curve worked out here.
 */
static void
seek_probe (const struct raidsim_device_ops *ops, void *params,
            const struct seek_curve *c, uint64_t cyl, double e)
{
  const double T = 10 * MS, X = 40960, O = 100 * US;
  void *dev = ops->create (params, UINT64_C (100000000000));
  struct raidsim_io io[2];
  raidsim_ns t1, t2;
  double arrive, th, want;

  ck_assert_msg (dev != NULL, "%s", raidsim_error ());
  t1 = hdd_read_by_hand (ops, dev, &io[0], 0, 0);
  ck_assert_msg (fabs (t1 - (T + X)) <= 1, "first read at %lu",
                 (unsigned long) t1);
  arrive = t1 + O + seek_curve_at (c, cyl - 1.0);
  th = arrive / T - floor (arrive / T) + e;
  want = arrive + e * T + X + (e < 0 ? T : 0);
  t2 = hdd_read_by_hand (ops, dev, &io[1],
                    cyl * UINT64_C (1000000) + (uint64_t) (th * 1e6), t1);
  /* The byte offset rounds th down by under a byte (10 ns); the
   * numerical fit is good to well under a microsecond.
   */
  ck_assert_msg (fabs (t2 - want) < 1 * US, "seek of %lu cylinders, sector "
                 "%+.1f%% of a turn from the arrival: read done at %.0f ns, "
                 "the curve gives %.0f", (unsigned long) cyl, e * 100,
                 (double) t2, want);
  ops->destroy (dev);
}

START_TEST (hdd_seek_table_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const kv[] = {
    "rpm", "6000", "overhead", "100us", "cache_size", "0", "heads", "1",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s",
    "seek_single", "1ms", "seek_avg", "8ms", "seek_full", "15ms",
    "seek_table", "11:2ms, 101:3ms", NULL
  };
  void *params = model_params (ops, kv);
  struct seek_curve c = {
    .n = 3, .u = { 0, 10, 100 }, .t = { 1 * MS, 2 * MS, 3 * MS },
    .N = 100000,
  };

  seek_curve_fit (&c, 8 * MS, 15 * MS);
  ck_assert_msg (c.a > 0, "tail a = %f", c.a);
  /* Inside the table: 6 cylinders is u = 5, halfway from 1 to 2 ms. */
  ck_assert_msg (fabs (seek_curve_at (&c, 5) - 1.5 * MS) < 1e-9,
                 "by hand");
  {
    /* Inside the table, then beyond it: the tail that keeps seek_avg
     * and seek_full.
     */
    static const uint64_t cyl[] = { 6, 51, 2000, 50001 };
    unsigned i;

    for (i = 0; i < 4; ++i) {
      seek_probe (ops, params, &c, cyl[i], 0.002);
      seek_probe (ops, params, &c, cyl[i], -0.002);
    }
  }
  free (params);
  /* A table over a fifth of the stroke: its own share of the mean (1.8
   * of the 8 ms) is what leaves the tail its slope.
   */
  {
    static const char *const kv2[] = {
      "rpm", "6000", "overhead", "100us", "cache_size", "0", "heads", "1",
      "rate_outer", "100MB/s", "rate_inner", "100MB/s",
      "seek_single", "1ms", "seek_avg", "8ms", "seek_full", "15ms",
      "seek_table", "11:2ms 101:3ms 20001:7ms", NULL
    };
    struct seek_curve c2 = {
      .n = 4, .u = { 0, 10, 100, 20000 },
      .t = { 1 * MS, 2 * MS, 3 * MS, 7 * MS }, .N = 100000,
    };
    static const uint64_t cyl[] = { 10001, 60001, 99000 };
    unsigned i;

    params = model_params (ops, kv2);
    seek_curve_fit (&c2, 8 * MS, 15 * MS);
    ck_assert_msg (c2.a > 0, "tail a = %f", c2.a);
    for (i = 0; i < 3; ++i) {
      seek_probe (ops, params, &c2, cyl[i], 0.002);
      seek_probe (ops, params, &c2, cyl[i], -0.002);
    }
    free (params);
  }
}
END_TEST

/* Tables the model refuses, each with an error that names seek_table. */
START_TEST (hdd_seek_table_checked)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const bad[] = {
    "11:2ms 5:3ms",             /* distances must rise */
    "11:2ms 101:1.5ms",         /* times must not fall */
    "1:2ms",                    /* 1 cylinder is seek_single */
    "11-2ms",                   /* no colon */
    "11:2",                     /* no unit */
    "11:30ms",                  /* longer than seek_full */
    NULL
  };
  unsigned i;

  for (i = 0; bad[i]; ++i) {
    const char *kv[] = { "seek_table", bad[i], NULL };
    void *params = model_params (ops, kv);

    ck_assert_msg (ops->check (params) == -1, "\"%s\" accepted", bad[i]);
    ck_assert_msg (strncmp (raidsim_error (), "seek_table: ", 12) == 0,
                   "\"%s\": %s", bad[i], raidsim_error ());
    free (params);
  }
  /* A table that leaves no rising tail is refused once the drive's
   * cylinders are known (at create): 15 ms at 1,000 cylinders leaves
   * the rest of the stroke too little to keep the defaults' 8.5 ms mean
   * with a curve that rises to their 18 ms full stroke.
   */
  {
    const char *kv[] = { "seek_table", "1000:15ms", NULL };
    void *params = model_params (ops, kv);

    ck_assert_int_eq (ops->check (params), 0);
    ck_assert_ptr_null (ops->create (params, UINT64_C (1000000000000)));
    ck_assert_msg (strncmp (raidsim_error (), "seek_table: ", 12) == 0,
                   "%s", raidsim_error ());
    free (params);
  }
}
END_TEST

/* A read the cache cannot answer spends read_miss_overhead M in the
 * firmware, after the overhead O, before its seek starts; a hit does
 * not.  At 6000 rpm (T = 10 ms) and 100 MB/s, byte 30,000 is at 0.03
 * of a turn.  Read at time 0 with O = 100 us: without M the head, on
 * cylinder 0 already, waits until 0.3 ms; with M = 300 us it is ready
 * at 0.4 ms, just past the sector, and waits for it to come round:
 * done at T + 0.3 ms + X.  Read again at once, the block is in the
 * segment (read ahead after the first): done O later, M not paid.
 */
START_TEST (hdd_read_miss_overhead_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const kv[] = {
    "rpm", "6000", "overhead", "100us", "read_miss_overhead", "300us",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s", NULL
  };
  static const char *const kv0[] = {
    "rpm", "6000", "overhead", "100us",
    "rate_outer", "100MB/s", "rate_inner", "100MB/s", NULL
  };
  const raidsim_ns T = 10 * MS, X = 40960, O = 100 * US;
  void *params = model_params (ops, kv), *params0 = model_params (ops, kv0);
  void *dev;
  struct raidsim_io io[2];
  raidsim_ns t, t2;

  dev = ops->create (params0, UINT64_C (100000000000));
  t = hdd_read_by_hand (ops, dev, &io[0], 30000, 0);
  ck_assert_msg (t >= 300 * US + X && t <= 300 * US + X + 1,
                 "no miss overhead: done at %lu", (unsigned long) t);
  ops->destroy (dev);

  dev = ops->create (params, UINT64_C (100000000000));
  t = hdd_read_by_hand (ops, dev, &io[0], 30000, 0);
  ck_assert_msg (t >= T + 300 * US + X && t <= T + 300 * US + X + 1,
                 "miss overhead 300us: done at %lu", (unsigned long) t);
  t2 = hdd_read_by_hand (ops, dev, &io[1], 30000, t);
  ck_assert_msg (t2 == t + O, "hit: done %lu after, want the overhead "
                 "alone", (unsigned long) (t2 - t));
  ops->destroy (dev);
  free (params);
  free (params0);
}
END_TEST

static Suite *
devices_suite (void)
{
  Suite *s = suite_create ("sim-devices");
  TCase *tc = tcase_create ("hdd");

  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, hdd_random_qd1_closed_form);
  tcase_add_test (tc, hdd_ncq_reorders);
  tcase_add_test (tc, hdd_rotation_by_hand);
  tcase_add_test (tc, hdd_members_unsynchronised);
  tcase_add_test (tc, hdd_pre_read_by_hand);
  tcase_add_test (tc, hdd_readahead_streams);
  tcase_add_test (tc, hdd_readahead_segment_is_a_ring);
  tcase_add_test (tc, hdd_prefetch_follows_the_host);
  tcase_add_test (tc, hdd_write_burst_fits_cache);
  tcase_add_test (tc, hdd_write_stream_destage_bound);
  tcase_add_test (tc, hdd_destage_by_hand);
  tcase_add_test (tc, hdd_seek_table_by_hand);
  tcase_add_test (tc, hdd_seek_table_checked);
  tcase_add_test (tc, hdd_read_miss_overhead_by_hand);
  suite_add_tcase (s, tc);
  tc = tcase_create ("flash");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, flash_read_by_hand);
  tcase_add_test (tc, flash_parallelism);
  tcase_add_test (tc, flash_used_writes_slower);
  tcase_add_test (tc, flash_buffer_absorbs_writes);
  tcase_add_test (tc, flash_max_programs);
  tcase_add_test (tc, flash_random_writes_cost_more);
  tcase_add_test (tc, flash_x25m_g2_data_sheet);
  tcase_add_test (tc, flash_x25m_g1_data_sheet);
  tcase_add_test (tc, flash_write_rate_by_hand);
  tcase_add_test (tc, flash_gc_pause_by_hand);
  tcase_add_test (tc, flash_gc_bursts_keep_the_mean);
  tcase_add_test (tc, flash_gc_bursts_hold_an_array);
  tcase_add_test (tc, flash_gc_interval_checked);
  suite_add_tcase (s, tc);
  tc = tcase_create ("controller");
  tcase_add_test (tc, controller_write_back_cache);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (devices_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
