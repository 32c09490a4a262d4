/* raidsim: flushes (fio's fsync, fdatasync, end_fsync) through the
 * simulator, against figures worked out here from the parameters:
 *
 *   - a fixed device serves writes in L and flushes in F, one at a
 *     time: fsync=1 at QD1 makes each write cost L + F, so N writes take
 *     N L + (N - 1) F (no flush after the last: the job has stopped);
 *   - the thread issues nothing while its flush is in flight;
 *   - fsync and fdatasync together flush when either count is reached;
 *   - RAID 0 and RAID 1 send a flush to every member that is not
 *     failed, however few of them the writes touched;
 *   - end_fsync adds one flush at the end, not in the job's figures;
 *   - a controller's write-back cache holds a flush until the writes it
 *     acknowledged are on their member;
 *   - by hand: flash with no buffer completes a flush at its overhead,
 *     with one after the buffered page's program (a partial page too);
 *     an hdd with its write cache off at its overhead, after the
 *     commands queued before it, and with it on after the destage;
 *   - the report's flush line and JSON sync object, and neither for a
 *     job without flushes.
 *
 * Run: meson test -C build --suite unit sim-flush
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "raidsim/device.h"
#include "raidsim/param.h"
#include "raidsim/report.h"
#include "sim-test.h"

#define US RAIDSIM_NS_PER_US
#define MS RAIDSIM_NS_PER_MS

static const char *
fixed_dev (unsigned parallelism)
{
  return sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 64G\n"
                        "latency = 100us\nflush_latency = 40us\n"
                        "parallelism = %u\n", parallelism);
}

static const char *
array (const char *level, unsigned members, const char *extra)
{
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n%s", extra);
  return sim_test_file ("a.ini", "[array]\nlevel = %s\nmembers = %u\n"
                        "%sdevice = d.ini\ncontroller = c.ini\n",
                        level, members,
                        level[0] == '0' ? "chunk = 64K\n" : "");
}

static raidsim_ns
elapsed (const struct sim_test_run *r)
{
  const struct raidsim_job_result *j = raidsim_sim_job (r->s, 0);
  return j->end - j->start;
}

/* fsync=1 at QD1: write [0, L], flush [L, L + F], write ... so N writes
 * take N L + (N - 1) F and every flush takes F.  Mutants killed: the
 * fixed model serving a flush as a write (L instead of F); no flush
 * issued (elapsed N L); a flush after the last write too (count N).
 */
START_TEST (fixed_fsync1_qd1)
{
  const raidsim_ns L = 100 * US, F = 40 * US;
  const unsigned N = 50;
  struct sim_test_run r;
  const struct raidsim_job_result *j;
  const char *a, *job;

  fixed_dev (1);
  a = array ("single", 1, "");
  job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                       "number_ios=%u\nfsync=1\n", N);
  sim_test_run (&r, a, job, 1);
  j = raidsim_sim_job (r.s, 0);
  ck_assert_uint_eq (j->dir[RAIDSIM_WRITE].ios, N);
  ck_assert_uint_eq (j->flush.ios, N - 1);
  ck_assert_uint_eq (elapsed (&r), N * L + (N - 1) * F);
  ck_assert_rel (raidsim_result_iops (j, RAIDSIM_WRITE),
                 N * 1e9 / (N * L + (N - 1) * F));
  ck_assert_uint_eq (raid_hist_min (&j->flush.lat), F);
  ck_assert_uint_eq (raid_hist_max (&j->flush.lat), F);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->flushes, N - 1);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->ios[RAIDSIM_WRITE], N);
  sim_test_done (&r);
}
END_TEST

/* QD4 on a device of parallelism 4, fsync=4: four writes [0, L], the
 * flush [L, L + F] (issued when the first completes, the thread then
 * waits), four writes [L + F, 2L + F], a flush, four writes, and the
 * job stops at 12 writes: 3L + 2F.  Mutant killed: the thread going on
 * issuing while its flush is in flight (writes 5-7 start at L, beside
 * the flush, and the run takes 3L + F).
 */
START_TEST (thread_waits_for_its_flush)
{
  const raidsim_ns L = 100 * US, F = 40 * US;
  struct sim_test_run r;
  const char *a, *job;

  fixed_dev (4);
  a = array ("single", 1, "");
  job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                       "iodepth=4\nnumber_ios=12\nfsync=4\n");
  sim_test_run (&r, a, job, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->flush.ios, 2);
  ck_assert_uint_eq (elapsed (&r), 3 * L + 2 * F);
  sim_test_done (&r);
}
END_TEST

/* fsync=3 and fdatasync=2 over 12 writes: a flush after writes 2, 3,
 * 4, 6, 8, 9 and 10 (not 12: the job has stopped), 7 in all.  Mutants
 * killed: fdatasync ignored (3); fsync ignored (5).
 */
START_TEST (fsync_and_fdatasync)
{
  struct sim_test_run r;
  const char *a, *job;

  fixed_dev (1);
  a = array ("single", 1, "");
  job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                       "number_ios=12\nfsync=3\nfdatasync=2\n");
  sim_test_run (&r, a, job, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->flush.ios, 7);
  ck_assert_uint_eq (elapsed (&r), 12 * 100 * US + 7 * 40 * US);
  sim_test_done (&r);
}
END_TEST

/* A flush goes to every member, as md's submit_flushes: RAID 1 (the
 * writes go to both), RAID 0 (4 KiB writes touch one member each, the
 * flushes both), and a RAID 1 with member 1 failed (only member 0).
 * fsync=2 over 10 writes: 4 flushes.  A flush of several members takes
 * F on each, in parallel.  Mutants killed: the flush sent to member 0
 * only; sent to the failed member too; counted among the members'
 * writes.
 */
START_TEST (flush_reaches_every_live_member)
{
  static const struct {
    const char *level, *failed;
    uint64_t want[2];
  } c[] = {
    { "1", "", { 4, 4 } },
    { "0", "", { 4, 4 } },
    { "1", "failed = 1\n", { 4, 0 } },
  };
  unsigned i;

  fixed_dev (1);
  for (i = 0; i < sizeof c / sizeof c[0]; ++i) {
    struct sim_test_run r;
    const char *a, *job;
    uint64_t writes;

    sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
    a = sim_test_file ("a.ini", "[array]\nlevel = %s\nmembers = 2\n"
                       "%sdevice = d.ini\ncontroller = c.ini\n%s",
                       c[i].level, c[i].level[0] == '0' ? "chunk = 64K\n"
                       : "", c[i].failed);
    job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                         "number_ios=10\nfsync=2\n");
    sim_test_run (&r, a, job, 1);
    ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->flush.ios, 4);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->flushes, c[i].want[0]);
    ck_assert_uint_eq (raidsim_sim_member (r.s, 1)->flushes, c[i].want[1]);
    writes = raidsim_sim_member (r.s, 0)->ios[RAIDSIM_WRITE] +
      raidsim_sim_member (r.s, 1)->ios[RAIDSIM_WRITE];
    ck_assert_uint_eq (writes, c[i].level[0] == '1' && !c[i].failed[0]
                       ? 20 : 10);
    ck_assert_uint_eq (elapsed (&r), 10 * 100 * US + 4 * 40 * US);
    sim_test_done (&r);
  }
}
END_TEST

/* end_fsync: one flush once the thread's writes are done, on both
 * members, not in the job's figures; the run ends F later.  Mutants
 * killed: no end flush (members 0 flushes, run ends at N L); the end
 * flush counted in the job.
 */
START_TEST (end_fsync_one_flush)
{
  struct sim_test_run r;
  const char *a, *job;
  raidsim_ns w0, w1;

  fixed_dev (1);
  a = array ("1", 2, "");
  job = sim_test_file ("j.fio", "[j]\nrw=write\nbs=4k\nsize=1g\n"
                       "number_ios=5\nend_fsync=1\nfsync_on_close=1\n");
  sim_test_run (&r, a, job, 1);
  ck_assert_uint_eq (raidsim_sim_job (r.s, 0)->flush.ios, 0);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 0)->flushes, 1);
  ck_assert_uint_eq (raidsim_sim_member (r.s, 1)->flushes, 1);
  raidsim_sim_window (r.s, &w0, &w1);
  ck_assert_uint_eq (w1, 5 * 100 * US + 40 * US);
  sim_test_done (&r);
}
END_TEST

/* The controller's write-back cache acknowledges a write at once and
 * writes it to the member (parallelism 2, so a flush could start beside
 * it): the flush waits for that write, L, then takes F.  So each flush
 * takes L + F, and N writes with fsync=1 take (N - 1)(L + F).  Mutant
 * killed: the flush admitted while the cache holds writes (F).
 */
START_TEST (controller_cache_holds_flush)
{
  const raidsim_ns L = 100 * US, F = 40 * US;
  const unsigned N = 20;
  struct sim_test_run r;
  const struct raidsim_job_result *j;
  const char *a, *job;

  fixed_dev (2);
  a = array ("single", 1, "cache_size = 1M\n");
  job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                       "number_ios=%u\nfsync=1\n", N);
  sim_test_run (&r, a, job, 1);
  j = raidsim_sim_job (r.s, 0);
  ck_assert_uint_eq (j->flush.ios, N - 1);
  ck_assert_uint_eq (raid_hist_min (&j->flush.lat), L + F);
  ck_assert_uint_eq (raid_hist_max (&j->flush.lat), L + F);
  ck_assert_uint_eq (elapsed (&r), (N - 1) * (L + F));
  sim_test_done (&r);
}
END_TEST

/* ---- models by hand ---- */

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

static void
submit (const struct raidsim_device_ops *ops, void *dev, struct raidsim_io *io,
        bool flush, enum raidsim_dir dir, uint64_t off, uint64_t len,
        raidsim_ns at)
{
  memset (io, 0, sizeof *io);
  io->flush = flush;
  io->dir = flush ? RAIDSIM_WRITE : dir;
  io->offset = off;
  io->len = len;
  io->started = RAIDSIM_NEVER;
  ops->submit (dev, io, at);
}

/* When io comes back, reaping everything before it. */
static raidsim_ns
done_at (const struct raidsim_device_ops *ops, void *dev,
         const struct raidsim_io *io)
{
  raidsim_ns t;

  while ((t = ops->next (dev)) != RAIDSIM_NEVER) {
    struct raidsim_io *r = ops->reap (dev, t);

    if (r == io)
      return t;
  }
  ck_abort_msg ("the io never completed");
  return 0;
}

/* Flash: one core of overhead O, one die, no transfer costs, program P.
 * Without a buffer a flush at t completes at t + O.  With one, a 4 KiB
 * write (one page) at 0 is acknowledged at O and programmed until
 * O + P; a flush at O completes then, O + P.  A 2 KiB write leaves a
 * partial page, which the flush programs: from 2 O (the flush's
 * overhead) to 2 O + P.  With power_loss_protection the buffer need
 * not be written back: the flush is done at 2 O.  Mutants killed:
 * flush cost ignoring the buffer (2 O); the partial page left in the
 * buffer (2 O); power_loss_protection ignored (O + P); a flush served
 * as a write (a page program without a buffer).
 */
START_TEST (flash_flush_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("flash");
  static const char *const nobuf[] = {
    "channels", "1", "dies", "1", "page_size", "4K", "read_time", "50us",
    "program_time", "1ms", "channel_rate", "0", "overhead", "10us",
    "cores", "1", "interface_rate", "0", "cache_size", "0", NULL,
  };
  static const char *const buf[] = {
    "channels", "1", "dies", "1", "page_size", "4K", "read_time", "50us",
    "program_time", "1ms", "channel_rate", "0", "overhead", "10us",
    "cores", "1", "interface_rate", "0", "cache_size", "64K", NULL,
  };
  static const char *const plp[] = {
    "channels", "1", "dies", "1", "page_size", "4K", "read_time", "50us",
    "program_time", "1ms", "channel_rate", "0", "overhead", "10us",
    "cores", "1", "interface_rate", "0", "cache_size", "64K",
    "power_loss_protection", "true", NULL,
  };
  const raidsim_ns O = 10 * US, P = MS;
  struct raidsim_io w, f;
  void *p, *dev;

  p = model_params (ops, nobuf);
  dev = ops->create (p, UINT64_C (1) << 30);
  ck_assert_ptr_nonnull (dev);
  submit (ops, dev, &f, true, RAIDSIM_WRITE, 0, 0, 5 * US);
  ck_assert_uint_eq (done_at (ops, dev, &f), 5 * US + O);
  ops->destroy (dev);
  free (p);

  p = model_params (ops, buf);
  dev = ops->create (p, UINT64_C (1) << 30);
  submit (ops, dev, &w, false, RAIDSIM_WRITE, 0, 4096, 0);
  ck_assert_uint_eq (done_at (ops, dev, &w), O);
  submit (ops, dev, &f, true, RAIDSIM_WRITE, 0, 0, O);
  ck_assert_uint_eq (done_at (ops, dev, &f), O + P);
  ops->destroy (dev);

  dev = ops->create (p, UINT64_C (1) << 30);
  submit (ops, dev, &w, false, RAIDSIM_WRITE, 0, 2048, 0);
  ck_assert_uint_eq (done_at (ops, dev, &w), O);
  submit (ops, dev, &f, true, RAIDSIM_WRITE, 0, 0, O);
  ck_assert_uint_eq (done_at (ops, dev, &f), 2 * O + P);
  ops->destroy (dev);
  free (p);

  p = model_params (ops, plp);
  dev = ops->create (p, UINT64_C (1) << 30);
  submit (ops, dev, &w, false, RAIDSIM_WRITE, 0, 4096, 0);
  ck_assert_uint_eq (done_at (ops, dev, &w), O);
  submit (ops, dev, &f, true, RAIDSIM_WRITE, 0, 0, O);
  ck_assert_uint_eq (done_at (ops, dev, &f), 2 * O);
  ops->destroy (dev);
  free (p);
}
END_TEST

/* hdd, 6000 rpm (10 ms a turn), overhead V = 100 us.  Write cache off:
 * a flush of an idle drive completes at its overhead exactly; after a
 * read queued before it, no earlier than the read (ATA's FLUSH CACHE
 * is not queued).  Write cache on: a 4 KiB write is acknowledged at V;
 * a flush sent then arrives at 2V and completes once the write is on
 * the platters: at least a sector's transfer later, at most a full
 * seek, the write settle, a turn and the transfer later.  Mutants
 * killed: flush completing past a queued read or with cached writes
 * (done at its arrival); a flush planned as a write on the media.
 */
START_TEST (hdd_flush_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("hdd");
  static const char *const off[] = {
    "rpm", "6000", "overhead", "100us", "rate_outer", "100MB/s",
    "rate_inner", "100MB/s", "write_cache", "false", NULL,
  };
  static const char *const on[] = {
    "rpm", "6000", "overhead", "100us", "rate_outer", "100MB/s",
    "rate_inner", "100MB/s", "write_cache", "true", "seek_full", "17ms",
    "write_settle", "1ms", NULL,
  };
  const raidsim_ns V = 100 * US, TURN = 10 * MS;
  const raidsim_ns XFER = 4096 * RAIDSIM_NS_PER_S / 100000000;
  struct raidsim_io w, f, rd;
  raidsim_ns t, tr;
  void *p, *dev;

  p = model_params (ops, off);
  dev = ops->create (p, UINT64_C (100000000000));
  submit (ops, dev, &f, true, RAIDSIM_WRITE, 0, 0, 0);
  ck_assert_uint_eq (done_at (ops, dev, &f), V);
  ops->destroy (dev);

  dev = ops->create (p, UINT64_C (100000000000));
  submit (ops, dev, &rd, false, RAIDSIM_READ, UINT64_C (50000000000), 4096, 0);
  submit (ops, dev, &f, true, RAIDSIM_WRITE, 0, 0, 0);
  tr = RAIDSIM_NEVER;
  for (;;) {
    struct raidsim_io *r;

    t = ops->next (dev);
    ck_assert (t != RAIDSIM_NEVER);
    r = ops->reap (dev, t);
    if (r == &rd)
      tr = t;
    if (r == &f)
      break;
  }
  ck_assert (tr != RAIDSIM_NEVER);
  ck_assert_uint_ge (t, tr);
  ck_assert_uint_gt (tr, V + XFER);
  ops->destroy (dev);
  free (p);

  p = model_params (ops, on);
  dev = ops->create (p, UINT64_C (100000000000));
  submit (ops, dev, &w, false, RAIDSIM_WRITE, UINT64_C (50000000000), 4096, 0);
  ck_assert_uint_eq (done_at (ops, dev, &w), V);
  submit (ops, dev, &f, true, RAIDSIM_WRITE, 0, 0, V);
  t = done_at (ops, dev, &f);
  ck_assert_uint_ge (t, 2 * V + XFER);
  ck_assert_uint_le (t, 2 * V + 17 * MS + 1 * MS + TURN + XFER + 1);
  ops->destroy (dev);
  free (p);
}
END_TEST

/* ---- the report ---- */

static char *
report_of (const struct sim_test_run *r, enum raidsim_format fmt)
{
  char *out = NULL;
  size_t len = 0;
  FILE *fp = open_memstream (&out, &len);

  ck_assert_int_eq (raidsim_report (fp, r->s, fmt), 0);
  fclose (fp);
  return out;
}

/* fio's sync figures: a flush line in the table and a "sync" object in
 * the JSON, with the count; members' flushes.  Neither for a job
 * without flushes, whose output stays as it was.  Mutants killed: the
 * line or the object left out; shown for every job.
 */
START_TEST (report_flush_figures)
{
  struct sim_test_run r;
  const char *a, *job;
  json_object *root, *jobs, *o, *sy, *disks;
  char *out;

  fixed_dev (1);
  a = array ("1", 2, "");
  job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                       "number_ios=10\nfsync=2\n");
  sim_test_run (&r, a, job, 1);
  out = report_of (&r, RAIDSIM_FORMAT_TABLE);
  ck_assert_msg (strstr (out, "\n  flush 4 flushes\n        latency us: "
                         "min 40.000, mean 40.000, p50 40.000") != NULL,
                 "%s", out);
  ck_assert (strstr (out, " flushes  device\n") != NULL);
  free (out);
  out = report_of (&r, RAIDSIM_FORMAT_JSON);
  root = json_tokener_parse (out);
  ck_assert_ptr_nonnull (root);
  ck_assert (json_object_object_get_ex (root, "jobs", &jobs));
  ck_assert (json_object_object_get_ex (json_object_array_get_idx (jobs, 0),
                                        "sync", &sy));
  ck_assert (json_object_object_get_ex (sy, "total_ios", &o));
  ck_assert_int_eq (json_object_get_int64 (o), 4);
  ck_assert (json_object_object_get_ex (root, "disk_util", &disks));
  ck_assert (json_object_object_get_ex (json_object_array_get_idx (disks, 1),
                                        "flushes", &o));
  ck_assert_int_eq (json_object_get_int64 (o), 4);
  json_object_put (root);
  free (out);
  sim_test_done (&r);

  job = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nsize=1g\n"
                       "number_ios=10\n");
  sim_test_run (&r, a, job, 1);
  out = report_of (&r, RAIDSIM_FORMAT_TABLE);
  ck_assert (strstr (out, "flush") == NULL);
  free (out);
  out = report_of (&r, RAIDSIM_FORMAT_JSON);
  ck_assert (strstr (out, "\"sync\"") == NULL);
  ck_assert (strstr (out, "flushes") == NULL);
  free (out);
  sim_test_done (&r);
}
END_TEST

static Suite *
flush_suite (void)
{
  Suite *s = suite_create ("sim-flush");
  TCase *tc = tcase_create ("flush");

  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, fixed_fsync1_qd1);
  tcase_add_test (tc, thread_waits_for_its_flush);
  tcase_add_test (tc, fsync_and_fdatasync);
  tcase_add_test (tc, flush_reaches_every_live_member);
  tcase_add_test (tc, end_fsync_one_flush);
  tcase_add_test (tc, controller_cache_holds_flush);
  tcase_add_test (tc, flash_flush_by_hand);
  tcase_add_test (tc, hdd_flush_by_hand);
  tcase_add_test (tc, report_flush_figures);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (flush_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
