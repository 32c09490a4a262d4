/* raidsim: whole simulations checked against closed forms.
 *
 * Every expected figure is worked out here from the configuration (a
 * fixed-latency device's service time, a link's rate, a coalescing
 * timer), never copied from the simulator's output:
 *
 *   - fixed devices: IOPS = min (threads x QD, parallelism, slots) /
 *     latency, exactly;
 *   - RAID 0 full-stripe sequential reads scale N times with N members,
 *     until a shared uplink caps them at its rate;
 *   - RAID 1 reads spread as the read policy says; writes take as long
 *     as the slowest copy;
 *   - completion coalescing at QD 1 adds exactly its timer;
 *   - ramp_time, runtime and number_ios bound what is counted;
 *   - the same seed gives byte-identical JSON.
 *
 * Run: meson test -C build --suite unit sim-run
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sim-test.h"

#define US RAIDSIM_NS_PER_US

static const char *
ctl_file (const char *name, const char *extra)
{
  return sim_test_file (name, "[controller]\nmodel = generic\n%s", extra);
}

static const char *
dev_file (const char *name, const char *latency, unsigned parallelism,
          const char *extra)
{
  return sim_test_file (name, "[device]\nmodel = fixed\ncapacity = 64G\n"
                        "latency = %s\nparallelism = %u\n%s", latency,
                        parallelism, extra);
}

/* IOPS of a job, and its counted time in ns. */
static double
iops (const struct sim_test_run *r, unsigned job, enum raidsim_dir d)
{
  return raidsim_result_iops (raidsim_sim_job (r->s, job), d);
}

static raidsim_ns
elapsed (const struct sim_test_run *r, unsigned job)
{
  const struct raidsim_job_result *j = raidsim_sim_job (r->s, job);
  return j->end - j->start;
}

/* One drive, 100 us, 4 at once: for QD 1..8 and 1 or 2 threads, the run
 * of N I/Os takes ceil (N / min (T*QD, 4)) rounds of 100 us.
 */
START_TEST (fixed_iops_closed_form)
{
  const unsigned P = 4, N = 840;      /* N: a multiple of 1..8 */
  const raidsim_ns L = 100 * US;
  unsigned qd, t;

  dev_file ("d.ini", "100us", P, "");
  ctl_file ("c.ini", "");
  for (t = 1; t <= 2; ++t)
    for (qd = 1; qd <= 8; ++qd) {
      struct sim_test_run r;
      const char *a = sim_test_file ("a.ini", "[array]\nlevel = single\n"
                                     "members = 1\ndevice = d.ini\n"
                                     "controller = c.ini\n");
      const char *j = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\n"
                                     "iodepth=%u\nnumjobs=%u\n"
                                     "number_ios=%u\nsize=1g\n",
                                     qd, t, N / t);
      unsigned busy = t * qd < P ? t * qd : P;

      sim_test_run (&r, a, j, 1);
      ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].ios, N);
      ck_assert_uint_eq (elapsed (&r, 0), (N / busy) * L);
      ck_assert_rel (iops (&r, 0, RAIDSIM_READ), busy * 1e9 / L);
      /* Little's law at the device, in exact integers: the area under
       * the queue is the sum of the latencies (no overhead here).
       */
      ck_assert (raidsim_sim_member (r.s, 0)->queue_area ==
                 raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].lat.sum);
      /* Below saturation every I/O takes L, so the queue is T x QD. */
      if (t * qd <= P)
        ck_assert_rel ((double) raidsim_sim_member (r.s, 0)->queue_area
                       / elapsed (&r, 0), (double) t * qd);
      sim_test_done (&r);
    }
}
END_TEST

/* The controller's slots and overhead: with max_outstanding M < P the
 * device never sees more than M; with overhead O every I/O takes O + L.
 */
START_TEST (controller_slots_and_overhead)
{
  struct sim_test_run r;
  const char *a, *j;

  dev_file ("d.ini", "100us", 8, "");
  ctl_file ("c.ini", "max_outstanding = 3\n");
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  j = sim_test_file ("j.fio", "[j]\nrw=randwrite\niodepth=8\n"
                     "number_ios=300\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (elapsed (&r, 0), 100 * 100 * US);
  ck_assert_rel (iops (&r, 0, RAIDSIM_WRITE), 3 / 100e-6);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->max_queue, 3);
  sim_test_done (&r);

  ctl_file ("c.ini", "overhead = 7us\n");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=4\n"
                     "number_ios=400\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (elapsed (&r, 0), 100 * 107 * US);
  ck_assert_uint_eq (raid_hist_min (&raidsim_sim_job (r.s, 0)->dir[0].lat),
                     107 * US);
  ck_assert_uint_eq (raid_hist_max (&raidsim_sim_job (r.s, 0)->dir[0].lat),
                     107 * US);
  sim_test_done (&r);
}
END_TEST

/* RAID 0, full-stripe sequential reads at QD q: each request becomes one
 * 64 KiB command per member, all served in parallel, so a request takes
 * L and the bandwidth is q x N x 64 KiB / L, N times one member's.
 */
static double
raid0_seq_bw (unsigned n, const char *uplink, raidsim_ns *elapsed_out,
              unsigned requests)
{
  struct sim_test_run r;
  const char *a, *j;
  double bw;

  dev_file ("d.ini", "10us", 8, "");
  ctl_file ("c.ini", uplink);
  a = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = %u\n"
                     "chunk = 64K\ndevice = d.ini\ncontroller = c.ini\n", n);
  j = sim_test_file ("j.fio", "[seq]\nrw=read\nbs=%uk\niodepth=8\n"
                     "number_ios=%u\n", 64 * n, requests);
  sim_test_run (&r, a, j, 1);
  *elapsed_out = elapsed (&r, 0);
  bw = raidsim_result_bw (raidsim_sim_job (r.s, 0), RAIDSIM_READ);
  sim_test_done (&r);
  return bw;
}

START_TEST (raid0_scales_until_link_caps)
{
  const raidsim_ns L = 10 * US;
  const unsigned K = 400;               /* requests, a multiple of QD 8 */
  const double chunk = 65536;
  raidsim_ns t;
  unsigned n;

  for (n = 2; n <= 8; n *= 2) {
    double bw = raid0_seq_bw (n, "", &t, K);

    ck_assert_uint_eq (t, (K / 8) * L);
    ck_assert_rel (bw, 8 * n * chunk * 1e9 / L);
  }

  /* A 1 GB/s uplink shared by 4 members: each 64 KiB crossing takes
   * exactly 65536 ns.  The first 32 commands finish on the devices at L
   * and queue on the uplink; every later command is back from its
   * device long before the uplink drains, so the uplink is busy from L
   * to the end: elapsed = L + 4 K x 65536 ns.
   */
  {
    double bw = raid0_seq_bw (4, "uplink_bandwidth = 1GB/s\n", &t, K);
    raidsim_ns expect = L + (raidsim_ns) 4 * K * 65536;

    ck_assert_uint_eq (t, expect);
    ck_assert_rel (bw, 4 * K * chunk * 1e9 / expect);
    /* Capped: far below the 4 x 8 x 64 KiB / 10 us the members could do. */
    ck_assert (bw < 1e9);
  }
}
END_TEST

/* RAID 1 of two 100 us drives that serve one request at a time, QD 2:
 * with `first` every read queues on member 0 (1 / L); round-robin and
 * least-pending keep both busy (2 / L).
 */
START_TEST (raid1_read_policies)
{
  static const struct {
    const char *policy;
    unsigned m0, m1;            /* reads per member, of 1000 */
    unsigned parallel;          /* members working at once */
  } cases[] = {
    { "first", 1000, 0, 1 },
    { "round-robin", 500, 500, 2 },
    { "least-pending", 500, 500, 2 },
  };
  const raidsim_ns L = 100 * US;
  unsigned i;

  dev_file ("d.ini", "100us", 1, "");
  ctl_file ("c.ini", "");
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    struct sim_test_run r;
    const char *a = sim_test_file ("a.ini", "[array]\nlevel = 1\n"
                                   "members = 2\nread-policy = %s\n"
                                   "device = d.ini\ncontroller = c.ini\n",
                                   cases[i].policy);
    const char *j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=2\n"
                                   "number_ios=1000\nsize=1g\n");

    sim_test_run (&r, a, j, 1);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_READ],
                       cases[i].m0);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 1)->ios[RAIDSIM_READ],
                       cases[i].m1);
    ck_assert_uint_eq (elapsed (&r, 0), 1000 / cases[i].parallel * L);
    sim_test_done (&r);
  }

  /* sequential: a stream stays on one member. */
  {
    struct sim_test_run r;
    const char *a = sim_test_file ("a.ini", "[array]\nlevel = 1\n"
                                   "members = 2\nread-policy = sequential\n"
                                   "device = d.ini\ncontroller = c.ini\n");
    const char *j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=64k\n"
                                   "number_ios=200\n");

    sim_test_run (&r, a, j, 1);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_READ], 200);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 1)->ios[RAIDSIM_READ], 0);
    sim_test_done (&r);
  }
}
END_TEST

/* The copy choice of an array file that names none is its
 * controller's (mirror_reads), and one the file names wins; a
 * controller's policy without a source is printed as an assumption on
 * its own line.
 */
START_TEST (raid1_reads_as_the_controller)
{
  static const struct {
    const char *ctl, *array;    /* mirror_reads; the array's read-policy */
    unsigned m0, m1;
  } cases[] = {
    { "first", NULL, 1000, 0 },
    { "round-robin", NULL, 500, 500 },
    { "all", NULL, 1000, 1000 },
    { "first", "round-robin", 500, 500 },
    { "all", "first", 1000, 0 },
  };
  unsigned i;

  dev_file ("d.ini", "100us", 1, "");
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    struct sim_test_run r;
    char policy[64] = "";
    const char *a, *j;
    char *out = NULL;
    size_t len = 0;
    FILE *fp;

    ctl_file ("c.ini", cases[i].ctl[0] == 'r' ? "mirror_reads = round-robin\n"
              "mirror_reads_assumed = in turn, as a test says\n"
              : cases[i].ctl[0] == 'f' ? "mirror_reads = first\n"
              "mirror_reads_assumed = the first, as a test says\n"
              : "mirror_reads = all\n"
              "mirror_reads_source = a test\n");
    if (cases[i].array)
      snprintf (policy, sizeof policy, "read-policy = %s\n", cases[i].array);
    a = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n%s"
                       "device = d.ini\ncontroller = c.ini\n", policy);
    j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=2\n"
                       "number_ios=1000\nsize=1g\n");
    sim_test_run (&r, a, j, 1);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_READ],
                       cases[i].m0);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 1)->ios[RAIDSIM_READ],
                       cases[i].m1);

    fp = open_memstream (&out, &len);
    ck_assert_ptr_nonnull (fp);
    ck_assert_int_eq (raidsim_report (fp, r.s, RAIDSIM_FORMAT_TABLE), 0);
    fclose (fp);
    if (cases[i].array == NULL && cases[i].ctl[0] == 'f')
      ck_assert_msg (strstr (out, "c.ini: assumed mirror reads first: the "
                             "first, as a test says\n") != NULL, "%s", out);
    else if (cases[i].array == NULL && cases[i].ctl[0] == 'r')
      ck_assert_msg (strstr (out, "c.ini: assumed mirror reads round-robin: "
                             "in turn, as a test says\n") != NULL, "%s", out);
    else
      ck_assert_msg (strstr (out, "assumed mirror reads") == NULL, "%s", out);
    free (out);
    sim_test_done (&r);
  }
}
END_TEST

/* RAID 1 of a fast and a slow writer: a write completes with its
 * slower copy (300 us); reads from the fast member take 100 us.
 */
START_TEST (raid1_writes_cost_the_slowest_copy)
{
  struct sim_test_run r;
  const char *a, *j;
  const struct raid_histogram *h;

  dev_file ("fast.ini", "100us", 1, "");
  dev_file ("slow.ini", "100us", 1, "write_latency = 300us\n");
  ctl_file ("c.ini", "");
  a = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n"
                     "read-policy = first\n"
                     "device = fast.ini, slow.ini\ncontroller = c.ini\n");
  j = sim_test_file ("w.fio", "[w]\nrw=randwrite\nnumber_ios=100\n"
                     "size=1g\n");
  sim_test_run (&r, a, j, 1);
  h = &raidsim_sim_job (r.s, 0)->dir[RAIDSIM_WRITE].lat;
  ck_assert_uint_eq (raid_hist_min (h), 300 * US);
  ck_assert_uint_eq (raid_hist_max (h), 300 * US);
  ck_assert_uint_eq (elapsed (&r, 0), 100 * 300 * US);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_WRITE], 100);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 1)->ios[RAIDSIM_WRITE], 100);
  sim_test_done (&r);

  j = sim_test_file ("r.fio", "[r]\nrw=randread\nnumber_ios=100\nsize=1g\n");
  sim_test_run (&r, a, j, 1);
  h = &raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].lat;
  ck_assert_uint_eq (raid_hist_max (h), 100 * US);
  sim_test_done (&r);
}
END_TEST

/* Coalescing until 2 completions or 50 us: at QD 1 each I/O waits the
 * whole timer (L + T); at QD 2 two complete together and none waits.
 */
START_TEST (coalescing_adds_its_timer_at_qd1)
{
  const raidsim_ns L = 100 * US, T = 50 * US;
  struct sim_test_run r;
  const char *a, *j;
  const struct raid_histogram *h;

  dev_file ("d.ini", "100us", 2, "");
  ctl_file ("c.ini", "coalesce_count = 2\ncoalesce_timer = 50us\n");
  a = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = 2\n"
                     "device = d.ini\ncontroller = c.ini\n");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=1\n"
                     "number_ios=500\nsize=1g\n");
  sim_test_run (&r, a, j, 1);
  h = &raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].lat;
  ck_assert_uint_eq (raid_hist_min (h), L + T);
  ck_assert_uint_eq (raid_hist_max (h), L + T);
  ck_assert_rel (iops (&r, 0, RAIDSIM_READ), 1e9 / (L + T));
  sim_test_done (&r);

  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\niodepth=2\n"
                     "number_ios=500\nsize=1g\n");
  sim_test_run (&r, a, j, 1);
  h = &raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].lat;
  ck_assert_uint_eq (raid_hist_max (h), L);
  ck_assert_rel (iops (&r, 0, RAIDSIM_READ), 2e9 / L);
  sim_test_done (&r);
}
END_TEST

/* ramp_time: at QD 1 and 100 us, I/Os are issued every 100 us; those
 * from 1 ms on are counted, number_ios of them.  runtime: I/Os issued
 * in the first 1 ms after the ramp are counted, no more.
 */
START_TEST (ramp_runtime_number_ios)
{
  struct sim_test_run r;
  const char *a, *j;
  const struct raidsim_job_result *res;

  dev_file ("d.ini", "100us", 1, "");
  ctl_file ("c.ini", "");
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nramp_time=1ms\n"
                     "number_ios=50\nsize=1g\n");
  sim_test_run (&r, a, j, 1);
  res = raidsim_sim_job (r.s, 0);
  ck_assert_uint_eq (res->start, 1000 * US);
  ck_assert_uint_eq (res->dir[RAIDSIM_READ].ios, 50);
  ck_assert_uint_eq (elapsed (&r, 0), 50 * 100 * US);
  /* 10 I/Os ran during the ramp; the member counts only the window. */
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_READ], 50);
  sim_test_done (&r);

  j = sim_test_file ("j.fio", "[j]\nrw=randread\nruntime=1ms\nsize=1g\n");
  sim_test_run (&r, a, j, 1);
  res = raidsim_sim_job (r.s, 0);
  ck_assert_uint_eq (res->dir[RAIDSIM_READ].ios, 10);
  ck_assert_uint_eq (elapsed (&r, 0), 1000 * US);
  sim_test_done (&r);

  /* size: a 64 KiB region of 4 KiB blocks is one pass of 16 I/Os. */
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nsize=64k\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].ios, 16);
  sim_test_done (&r);

  /* size counts the ramp's I/Os too: fio 3.33 (--ioengine=psync
   * --size=32m --bs=64k --rw=write --rate=8m --ramp_time=1s) reports
   * 24 MiB, the 8 MiB of the ramp's second being part of size.  Here
   * the 10 I/Os of the 1 ms ramp leave 6 of the 16 to be counted.
   */
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nsize=64k\n"
                     "ramp_time=1ms\n");
  sim_test_run (&r, a, j, 1);
  ck_assert_msg (raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].ios == 6,
                 "size=64k after a 1 ms ramp: %" PRIu64 " I/Os counted, "
                 "fio counts 6", raidsim_sim_job (r.s, 0)->dir[RAIDSIM_READ].ios);
  sim_test_done (&r);
}
END_TEST

/* One drive of 2 MiB, the size of the file the fio runs below used. */
static const char *
fio_2m_file (void)
{
  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 2M\n");
  ctl_file ("c.ini", "");
  return sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                        "device = d.ini\ncontroller = c.ini\n");
}

/* A size that is not a whole number of blocks, against what fio 3.33
 * does with the same jobs on a 2 MiB file (fio --name=t --ioengine=psync
 * --filename=2m.img --bs=96k --size=1m --rw=RW [--offset=1000k]):
 * rw=write does 11 writes, the last from 960K to 1056K, past size, since
 * fio goes on until it has done size bytes; from offset 1000K only 10,
 * as an 11th would end past the file; rw=randwrite does 10, the whole
 * blocks of its random map.
 */
START_TEST (size_not_whole_blocks_as_fio)
{
  static const struct {
    const char *rw, *offset;
    uint64_t ios;
  } cases[] = {
    { "write", "0", 11 },
    { "read", "0", 11 },
    { "write", "1000k", 10 },
    { "randwrite", "0", 10 },
  };
  struct sim_test_run r;
  const char *a, *j;
  unsigned i;

  a = fio_2m_file ();
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    enum raidsim_dir d = cases[i].rw[strlen (cases[i].rw) - 1] == 'd'
      ? RAIDSIM_READ : RAIDSIM_WRITE;

    j = sim_test_file ("j.fio", "[j]\nrw=%s\nbs=96k\nsize=1m\n"
                       "offset=%s\n", cases[i].rw, cases[i].offset);
    sim_test_run (&r, a, j, 1);
    ck_assert_msg (raidsim_sim_job (r.s, 0)->dir[d].ios == cases[i].ios,
                   "rw=%s offset=%s: %" PRIu64 " I/Os, fio does %" PRIu64,
                   cases[i].rw, cases[i].offset,
                   raidsim_sim_job (r.s, 0)->dir[d].ios, cases[i].ios);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[d], cases[i].ios);
    sim_test_done (&r);
  }
}
END_TEST

/* The same with norandommap, against fio 3.33 on a 2 MiB file (fio
 * --name=t --ioengine=psync --filename=2m.img --bs=96k --norandommap
 * --rw=RW [--size=SIZE] [--offset=OFFSET]): without a map to fill, fio
 * goes on until it has done size bytes, so it does ceil (size / bs)
 * I/Os, each a whole block drawn among the region's whole blocks (its
 * write_iolog shows none past offset + 960K).  From offset 1000K that
 * is still 11, as none of them runs past the file; with no size the
 * region is the rest of the file, 1048K.  randrw counts both ways.
 */
START_TEST (norandommap_size_not_whole_blocks_as_fio)
{
  static const struct {
    const char *rw, *size, *offset;
    uint64_t ios;
  } cases[] = {
    { "randwrite", "1m", "0", 11 },
    { "randread", "1m", "0", 11 },
    { "randrw", "1m", "0", 11 },
    { "randwrite", "1m", "1000k", 11 },
    { "randwrite", NULL, "1000k", 11 },
    { "randwrite", "100k", "0", 2 },
    { "randwrite", "960k", "0", 10 },
  };
  struct sim_test_run r;
  const char *a, *j;
  unsigned i;

  a = fio_2m_file ();
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const struct raidsim_job_result *res;
    const struct raidsim_member_result *m;
    uint64_t ios;

    j = sim_test_file ("j.fio", "[j]\nrw=%s\nbs=96k\nnorandommap\n"
                       "offset=%s\n%s%s\n", cases[i].rw, cases[i].offset,
                       cases[i].size ? "size=" : "",
                       cases[i].size ? cases[i].size : "");
    sim_test_run (&r, a, j, 1);
    res = raidsim_sim_job (r.s, 0);
    ios = res->dir[RAIDSIM_READ].ios + res->dir[RAIDSIM_WRITE].ios;
    ck_assert_msg (ios == cases[i].ios,
                   "rw=%s size=%s offset=%s: %" PRIu64 " I/Os, fio does %"
                   PRIu64, cases[i].rw,
                   cases[i].size ? cases[i].size : "(none)", cases[i].offset,
                   ios, cases[i].ios);
    m = raidsim_sim_member (r.s, 0);
    ck_assert_uint_eq (m->ios[RAIDSIM_READ] + m->ios[RAIDSIM_WRITE],
                       cases[i].ios);
    sim_test_done (&r);
  }
}
END_TEST

static char *
json_of_run (const char *a, const char *j, uint64_t seed)
{
  struct sim_test_run r;
  char *out;

  sim_test_run (&r, a, j, seed);
  out = sim_test_report (r.s, RAIDSIM_FORMAT_JSON);
  sim_test_done (&r);
  return out;
}

START_TEST (same_seed_same_json)
{
  const char *a, *j;
  char *x, *y, *z;

  dev_file ("d.ini", "100us", 4, "");
  ctl_file ("c.ini", "overhead = 3us\ncoalesce_count = 4\n"
            "coalesce_timer = 20us\nuplink_bandwidth = 400MB/s\n");
  a = sim_test_file ("a.ini", "[array]\nlevel = 10\nmembers = 3\n"
                     "chunk = 16K\nread-policy = least-pending\n"
                     "device = d.ini\ncontroller = c.ini\n");
  j = sim_test_file ("j.fio", "[global]\nsize=256m\nnumber_ios=5000\n"
                     "[mix]\nrw=randrw\nrwmixread=60\nbs=8k\niodepth=6\n"
                     "numjobs=2\n[seq]\nrw=read\nbs=48k\niodepth=3\n");
  x = json_of_run (a, j, 12345);
  y = json_of_run (a, j, 12345);
  z = json_of_run (a, j, 12346);
  ck_assert_str_eq (x, y);
  ck_assert_str_ne (x, z);
  free (x);
  free (y);
  free (z);
}
END_TEST

/* The JSON has fio's field names where they apply, and parses. */
START_TEST (json_has_fio_fields)
{
  const char *a, *j;
  char *out;
  json_object *root, *jobs, *job, *read, *o, *disks;

  dev_file ("d.ini", "100us", 1, "");
  ctl_file ("c.ini", "");
  a = sim_test_file ("a.ini", "[array]\nlevel = single\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  j = sim_test_file ("j.fio", "[qd1]\nrw=randread\nnumber_ios=100\n"
                     "size=1g\n");
  out = json_of_run (a, j, 1);
  root = json_tokener_parse (out);
  ck_assert_ptr_nonnull (root);
  ck_assert (json_object_object_get_ex (root, "jobs", &jobs));
  job = json_object_array_get_idx (jobs, 0);
  ck_assert (json_object_object_get_ex (job, "jobname", &o));
  ck_assert_str_eq (json_object_get_string (o), "qd1");
  ck_assert (json_object_object_get_ex (job, "read", &read));
  ck_assert (json_object_object_get_ex (read, "iops", &o));
  ck_assert_rel (json_object_get_double (o), 10000.0);
  ck_assert (json_object_object_get_ex (read, "bw_bytes", &o));
  ck_assert_uint_eq (json_object_get_uint64 (o), 10000 * 4096);
  ck_assert (json_object_object_get_ex (read, "lat_ns", &o));
  ck_assert (json_object_object_get_ex (o, "mean", &o));
  ck_assert_rel (json_object_get_double (o), 100000.0);
  ck_assert (json_object_object_get_ex (read, "clat_ns", &o));
  ck_assert (json_object_object_get_ex (o, "percentile", &o));
  ck_assert (json_object_object_get_ex (o, "99.000000", &o));
  ck_assert_uint_eq (json_object_get_uint64 (o), 100000);
  ck_assert (json_object_object_get_ex (root, "disk_util", &disks));
  o = json_object_array_get_idx (disks, 0);
  ck_assert (json_object_object_get_ex (o, "util", &o));
  ck_assert_rel (json_object_get_double (o), 100.0);
  json_object_put (root);
  free (out);
}
END_TEST

static Suite *
run_suite (void)
{
  Suite *s = suite_create ("sim-run");
  TCase *tc = tcase_create ("closed-forms");

  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, fixed_iops_closed_form);
  tcase_add_test (tc, controller_slots_and_overhead);
  tcase_add_test (tc, raid0_scales_until_link_caps);
  tcase_add_test (tc, raid1_read_policies);
  tcase_add_test (tc, raid1_reads_as_the_controller);
  tcase_add_test (tc, raid1_writes_cost_the_slowest_copy);
  tcase_add_test (tc, coalescing_adds_its_timer_at_qd1);
  tcase_add_test (tc, ramp_runtime_number_ios);
  tcase_add_test (tc, size_not_whole_blocks_as_fio);
  tcase_add_test (tc, norandommap_size_not_whole_blocks_as_fio);
  suite_add_tcase (s, tc);
  tc = tcase_create ("output");
  tcase_add_test (tc, same_seed_same_json);
  tcase_add_test (tc, json_has_fio_fields);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (run_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
