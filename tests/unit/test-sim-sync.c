/* raidsim: degraded arrays and the background resync or rebuild
 * (include/raidsim/background.h), checked against figures worked out
 * here by hand from the configuration, never copied from a run:
 *
 *   - a degraded RAID 1 or RAID 10 reads and writes only the copies that
 *     remain (per-member counts and the closed-form time of a fixed
 *     device), and an array with a chunk that has no live copy left is
 *     refused, naming the key and its line;
 *   - a rebuild on an idle array is paced at speed_limit_max, or goes as
 *     fast as the device allows if that is lower, to the request;
 *   - under a saturating workload it falls to speed_limit_min (throttle
 *     min), or, giving way only by draining (md since Linux 4.1), stays
 *     far above it;
 *   - a resync reads the first copy and writes the others, and sends the
 *     host's reads to the first copy until it has passed them; a check
 *     reads every copy;
 *   - a RAID 10 rebuild reads each chunk of the member from the copy
 *     that remains;
 *   - the figures appear in the table, the CSV and the JSON;
 *   - `--set` (raidsim_array_config_set) and a sweep's varied array
 *     are checked as the file is.
 *
 * Each test names the mutant of the code it kills.
 *
 * Run: meson test -C build --suite unit sim-sync
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "raidsim/array.h"
#include "raidsim/sweep.h"

#include "sim-test.h"

#define US RAIDSIM_NS_PER_US
#define MS RAIDSIM_NS_PER_MS
#define KiB (UINT64_C (1) << 10)

/* A fixed device serving one command at a time, and a controller that
 * adds nothing (no overhead, 32 slots per member, no links).
 */
static void
files (const char *latency, const char *capacity)
{
  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = %s\n"
                 "latency = %s\nparallelism = 1\n", capacity, latency);
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
}

static const char *
array (const char *level_and_keys)
{
  return sim_test_file ("a.ini", "[array]\n%s\ndevice = d.ini\n"
                        "controller = c.ini\n", level_and_keys);
}

static const struct raidsim_member_result *
member (const struct sim_test_run *r, unsigned i)
{
  return raidsim_sim_member (r->s, i);
}

/* The host's reads and writes at member i: all its commands less the
 * background stream's.
 */
static uint64_t
fg_ios (const struct sim_test_run *r, unsigned i, enum raidsim_dir d)
{
  return member (r, i)->ios[d] - member (r, i)->bg_ios[d];
}

static raidsim_ns
elapsed (const struct sim_test_run *r)
{
  const struct raidsim_job_result *j = raidsim_sim_job (r->s, 0);

  return j->end - j->start;
}

/* Loading a must fail with a message that has want in it. */
static void
refused (const char *a, const char *want)
{
  struct raidsim_array_config *ac = raidsim_array_config_load (a);

  ck_assert_msg (ac == NULL, "loaded, but should fail with '%s'", want);
  ck_assert_msg (strstr (raidsim_error (), want) != NULL,
                 "'%s' does not contain '%s'", raidsim_error (), want);
}

/* RAID 1 with member 0 failed: every read and write goes to member 1.
 * 400 reads at QD 4 on one device that serves one at a time take
 * 400 x 100 us = 40 ms; the healthy array spreads them over both
 * (least-pending) and takes 20 ms.
 * Mutant killed: the failed mask ignored (skip bits 0 in choose_copy),
 * and writes sent to failed members.
 */
START_TEST (degraded_raid1_uses_the_live_member)
{
  struct sim_test_run r;
  const char *j;

  files ("100us", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\niodepth=4\n"
                     "number_ios=400\n");

  sim_test_run (&r, array ("level = 1\nmembers = 2"), j, 1);
  ck_assert_uint_eq (elapsed (&r), 20 * MS);
  sim_test_done (&r);

  sim_test_run (&r, array ("level = 1\nmembers = 2\nfailed = 0"), j, 1);
  ck_assert_uint_eq (member (&r, 0)->ios[RAIDSIM_READ], 0);
  ck_assert_uint_eq (member (&r, 1)->ios[RAIDSIM_READ], 400);
  ck_assert_uint_eq (elapsed (&r), 40 * MS);
  sim_test_done (&r);

  j = sim_test_file ("j.fio", "[j]\nrw=randwrite\nbs=4k\nnumber_ios=100\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nfailed = 0"), j, 1);
  ck_assert_uint_eq (member (&r, 0)->ios[RAIDSIM_WRITE], 0);
  ck_assert_uint_eq (member (&r, 1)->ios[RAIDSIM_WRITE], 100);
  sim_test_done (&r);
}
END_TEST

/* RAID 10, 4 members, 2 copies, 64 KiB chunks: chunk c is on members
 * 2c and 2c+1 (mod 4), so even chunks on (0, 1), odd ones on (2, 3).
 * 400 sequential 64 KiB reads alternate: 200 even, 200 odd.  With
 * member 1 failed, the even ones have one candidate, member 0, and
 * round-robin does not advance; the odd ones alternate between members
 * 2 and 3, 100 each.
 * Mutant killed: the failed mask ignored; and the mask taken as copy
 * bits (skip = failed), which would leave member 3 unread.
 */
START_TEST (degraded_raid10_reads_the_copies_that_remain)
{
  struct sim_test_run r;
  const char *j;

  files ("100us", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=64k\nnumber_ios=400\n");
  sim_test_run (&r, array ("level = 10\nmembers = 4\ncopies = 2\n"
                           "chunk = 64K\nread_policy = round-robin\n"
                           "failed = 1"), j, 1);
  ck_assert_uint_eq (member (&r, 0)->ios[RAIDSIM_READ], 200);
  ck_assert_uint_eq (member (&r, 1)->ios[RAIDSIM_READ], 0);
  ck_assert_uint_eq (member (&r, 2)->ios[RAIDSIM_READ], 100);
  ck_assert_uint_eq (member (&r, 3)->ios[RAIDSIM_READ], 100);
  sim_test_done (&r);

  /* Writes go to the live copy of each chunk: 200 to member 0, 200
   * each to members 2 and 3.
   */
  j = sim_test_file ("j.fio", "[j]\nrw=write\nbs=64k\nnumber_ios=400\n");
  sim_test_run (&r, array ("level = 10\nmembers = 4\ncopies = 2\n"
                           "chunk = 64K\nfailed = 1"), j, 1);
  ck_assert_uint_eq (member (&r, 0)->ios[RAIDSIM_WRITE], 200);
  ck_assert_uint_eq (member (&r, 1)->ios[RAIDSIM_WRITE], 0);
  ck_assert_uint_eq (member (&r, 2)->ios[RAIDSIM_WRITE], 200);
  ck_assert_uint_eq (member (&r, 3)->ios[RAIDSIM_WRITE], 200);
  sim_test_done (&r);
}
END_TEST

/* Arrays that would lose a chunk are refused, with the key and its
 * line: a.ini's keys start on line 2, so the third line of the text
 * passed to array () is line 4.
 * Mutant killed: the live-copy check skipped (check_copies returning 0).
 */
START_TEST (degraded_refused_without_a_live_copy)
{
  struct raidsim_array_config *ac;

  files ("100us", "64G");
  /* RAID 1: both copies of everything. */
  refused (array ("level = 1\nmembers = 2\nfailed = 0,1"),
           "a.ini:4: failed: array chunk 0 would have no live copy "
           "(it is on members 0 and 1)");
  /* RAID 0: one copy of each chunk; chunk 1 is on member 1. */
  refused (array ("level = 0\nmembers = 2\nfailed = 1"),
           "a.ini:4: failed: array chunk 1 would have no live copy "
           "(it is on member 1)");
  /* RAID 10 over 4: members 0 and 2 are in different pairs, 2 and 3
   * hold both copies of chunk 1.
   */
  ac = raidsim_array_config_load (array ("level = 10\nmembers = 4\n"
                                         "failed = 0,2"));
  ck_assert_msg (ac != NULL, "%s", raidsim_error ());
  ck_assert_uint_eq (ac->failed_mask, 0x5);
  raidsim_array_config_free (ac);
  refused (array ("level = 10\nmembers = 4\nfailed = 2,3"),
           "a.ini:4: failed: array chunk 1 would have no live copy "
           "(it is on members 2 and 3)");
  /* A rebuild needs a source: chunk 0's other copy is on member 0. */
  refused (array ("level = 10\nmembers = 4\nfailed = 0\nrebuild = 1"),
           "a.ini:5: rebuild: array chunk 0 has no live copy to rebuild "
           "member 1 from");
  refused (array ("level = 1\nmembers = 2\nfailed = 1\nresync = yes"),
           "a.ini:5: resync: no chunk has two live copies");
  refused (array ("level = single\nmembers = 1\nfailed = 0"),
           "a.ini:4: failed: a single drive");
  refused (array ("level = 1\nmembers = 2\nfailed = 2"),
           "a.ini:4: failed: member 2: the array's members are 0 to 1");
  refused (array ("level = 1\nmembers = 2\nspeed_limit_min = 3MB/s\n"
                  "speed_limit_max = 2MB/s"),
           "a.ini:4: speed_limit_min: 3MB/s is above speed_limit_max");
}
END_TEST

/* A rebuild of member 1 of a RAID 1 on an otherwise idle array, for
 * sync_runtime = 1 s.  speed_limit_max = 100000 KiB/s = 102 400 000
 * bytes/s, so a 64 KiB request every 65536 / 102400000 s = 640 us: at
 * k x 640 us for k = 0 .. 1562 (1562 x 640 us = 999.68 ms; the next
 * would be past 1 s).  1563 requests, each a read of member 0 and then
 * a write of member 1, 102 432 768 bytes in 1 s.  The workload's one
 * 4 KiB read is under md's 32 KiB, so the array is never busy.
 * Mutant killed: the throttle stuck at speed_limit_min (16 requests),
 * and the pacing dropped (as fast as the devices go).
 */
START_TEST (rebuild_idle_runs_at_speed_limit_max)
{
  struct sim_test_run r;
  const struct raidsim_bg_result *b;
  const char *j;

  files ("100us", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=4k\nnumber_ios=1\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nrebuild = 1\n"
                           "speed_limit_max = 100000KiB/s\n"
                           "sync_runtime = 1s"), j, 1);
  b = raidsim_sim_sync (r.s);
  ck_assert_ptr_nonnull (b);
  ck_assert_int_eq (b->action, RAIDSIM_SYNC_REBUILD);
  ck_assert_int_eq (b->member, 1);
  ck_assert_uint_eq (b->units, 1563);
  ck_assert_uint_eq (b->done, 1563 * 64 * KiB);
  ck_assert_uint_eq (b->end - b->start, 1000 * MS);
  ck_assert_rel (raidsim_bg_rate (b), 102432768.0);
  ck_assert_uint_eq (b->busy, 0);
  ck_assert_uint_eq (b->total, UINT64_C (64) << 30);
  ck_assert (!b->complete);
  ck_assert_uint_eq (member (&r, 0)->bg_ios[RAIDSIM_READ], 1563);
  ck_assert_uint_eq (member (&r, 0)->bg_ios[RAIDSIM_WRITE], 0);
  ck_assert_uint_eq (member (&r, 1)->bg_ios[RAIDSIM_READ], 0);
  ck_assert_uint_eq (member (&r, 1)->bg_ios[RAIDSIM_WRITE], 1563);
  /* The rest of the member at that rate. */
  ck_assert_uint_eq (raidsim_bg_eta (b),
                     (raidsim_ns) ((double) ((UINT64_C (64) << 30)
                                             - 1563 * 64 * KiB)
                                   * 1e9 / 102432768.0));
  sim_test_done (&r);
}
END_TEST

/* The same with a device of 1 ms and no speed limit: the device sets the
 * pace.  At 0 the stream releases 32 requests (md's depth).  Member 0
 * serves the workload's read first, over [0, 1 ms), then request k's
 * read over [k+1, k+2) ms; member 1 writes it over [k+2, k+3) ms.
 * Request 0 is done at 3 ms and frees a place for request 32, and so on:
 * request k >= 32 is released at (k - 32 + 3) ms, which is before 1 s
 * for k <= 1028.  1029 requests; the last is done at 1031 ms.
 * Mutant killed: a depth other than 32 (md's RESYNC_DEPTH), and a rate
 * limit applied when speed_limit_max is 0.
 */
START_TEST (rebuild_goes_at_the_device_limit_if_lower)
{
  struct sim_test_run r;
  const struct raidsim_bg_result *b;
  const char *j;

  files ("1ms", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=4k\nnumber_ios=1\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nrebuild = 1\n"
                           "speed_limit_max = 0\nsync_runtime = 1s"), j, 1);
  b = raidsim_sim_sync (r.s);
  ck_assert_uint_eq (b->units, 1029);
  ck_assert_uint_eq (b->end, 1031 * MS);
  ck_assert_rel (raidsim_bg_rate (b), 1029 * 65536 / 1.031);
  sim_test_done (&r);
}
END_TEST

/* The rebuild under a workload that keeps member 0 busy (4 KiB random
 * reads at QD 8 for 1 s; member 1 is not readable yet).  The idle test
 * finds far more than 32 KiB of other I/O at member 0 within the first
 * few requests, and from then on the stream is paced at
 * speed_limit_min = 10000 KiB/s = 10 240 000 bytes/s (one request per
 * 6.4 ms).  The few requests released at speed_limit_max before that
 * add a few times 64 KiB over the second: the mean is within 5% above
 * the minimum.
 * Mutant killed: the throttle stuck at speed_limit_max; and an idle
 * test that never sees the workload.
 */
START_TEST (rebuild_busy_falls_to_speed_limit_min)
{
  struct sim_test_run r;
  const struct raidsim_bg_result *b;
  const char *j;
  double rate;

  files ("100us", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\niodepth=8\n"
                     "runtime=1s\ntime_based\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nrebuild = 1\n"
                           "speed_limit_min = 10000KiB/s\n"
                           "speed_limit_max = 200000KiB/s"), j, 1);
  b = raidsim_sim_sync (r.s);
  rate = raidsim_bg_rate (b);
  ck_assert_msg (rate >= 10240000 && rate <= 10240000 * 1.05,
                 "rebuild at %.0f bytes/s under load", rate);
  ck_assert_msg (b->busy > (b->end - b->start) * 99 / 100,
                 "busy %" PRIu64 " of %" PRIu64 " ns", b->busy,
                 b->end - b->start);
  ck_assert_uint_eq (member (&r, 1)->bg_ios[RAIDSIM_WRITE], b->units);
  sim_test_done (&r);
}
END_TEST

/* The same workload with sync_throttle = drain (md since Linux 4.1):
 * when it finds the array busy, the stream only waits for its requests
 * in flight, then releases the next 128 KiB window (two requests,
 * 320 us apart at speed_limit_max).  A request's read waits behind the
 * workload's 8 reads at member 0 (8 x 100 us) and takes 100 us, its
 * write 100 us more: a window takes about 320 + 1000 us, about 99 MB/s,
 * far above speed_limit_min and well below speed_limit_max.  The
 * workload pays for it: it gets less than with throttle min.
 * Mutant killed: drain behaving as min; and drain never waiting (the
 * stream at speed_limit_max).
 */
START_TEST (rebuild_busy_drain_gives_way_by_draining)
{
  struct sim_test_run r;
  const struct raidsim_bg_result *b;
  const char *j;
  double rate, iops_min, iops_drain;

  files ("100us", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\niodepth=8\n"
                     "runtime=1s\ntime_based\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nrebuild = 1\n"
                           "speed_limit_min = 10000KiB/s\n"
                           "speed_limit_max = 200000KiB/s"), j, 1);
  iops_min = raidsim_result_iops (raidsim_sim_job (r.s, 0), RAIDSIM_READ);
  sim_test_done (&r);

  sim_test_run (&r, array ("level = 1\nmembers = 2\nrebuild = 1\n"
                           "speed_limit_min = 10000KiB/s\n"
                           "speed_limit_max = 200000KiB/s\n"
                           "sync_throttle = drain"), j, 1);
  b = raidsim_sim_sync (r.s);
  rate = raidsim_bg_rate (b);
  iops_drain = raidsim_result_iops (raidsim_sim_job (r.s, 0), RAIDSIM_READ);
  ck_assert_msg (rate > 50e6 && rate < 0.75 * 204800000,
                 "rebuild at %.0f bytes/s with drain", rate);
  ck_assert_msg (iops_drain < iops_min, "workload %.0f IOPS with drain, "
                 "%.0f with min", iops_drain, iops_min);
  sim_test_done (&r);
}
END_TEST

/* A resync of a RAID 1 (resync = yes) for 100 ms on an idle array at
 * 100000 KiB/s: requests at k x 640 us for k = 0 .. 156 (156 x 640 us
 * = 99.84 ms), each read from member 0 (the first copy) and written to
 * member 1.  A check (resync = check) reads both and writes neither.
 * Mutant killed: a resync that reads every copy, or writes the copy it
 * read.
 */
START_TEST (resync_reads_the_first_copy_and_writes_the_others)
{
  struct sim_test_run r;
  const struct raidsim_bg_result *b;
  const char *j;

  files ("100us", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=4k\nnumber_ios=1\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nresync = yes\n"
                           "speed_limit_max = 100000KiB/s\n"
                           "sync_runtime = 100ms"), j, 1);
  b = raidsim_sim_sync (r.s);
  ck_assert_int_eq (b->action, RAIDSIM_SYNC_RESYNC);
  ck_assert_uint_eq (b->units, 157);
  ck_assert_uint_eq (b->total, UINT64_C (64) << 30);
  ck_assert_uint_eq (member (&r, 0)->bg_ios[RAIDSIM_READ], 157);
  ck_assert_uint_eq (member (&r, 0)->bg_ios[RAIDSIM_WRITE], 0);
  ck_assert_uint_eq (member (&r, 1)->bg_ios[RAIDSIM_READ], 0);
  ck_assert_uint_eq (member (&r, 1)->bg_ios[RAIDSIM_WRITE], 157);
  sim_test_done (&r);

  sim_test_run (&r, array ("level = 1\nmembers = 2\nresync = check\n"
                           "speed_limit_max = 100000KiB/s\n"
                           "sync_runtime = 100ms"), j, 1);
  b = raidsim_sim_sync (r.s);
  ck_assert_int_eq (b->action, RAIDSIM_SYNC_CHECK);
  ck_assert_uint_eq (b->units, 157);
  ck_assert_uint_eq (member (&r, 0)->bg_ios[RAIDSIM_READ], 157);
  ck_assert_uint_eq (member (&r, 1)->bg_ios[RAIDSIM_READ], 157);
  ck_assert_uint_eq (member (&r, 0)->bg_ios[RAIDSIM_WRITE], 0);
  ck_assert_uint_eq (member (&r, 1)->bg_ios[RAIDSIM_WRITE], 0);
  sim_test_done (&r);
}
END_TEST

/* While a resync has not reached a piece, reads of it go to its first
 * copy, as md's read_balance does past next_resync: 400 random reads
 * at QD 4 of the array's second half, with the resync crawling at
 * 1000 KiB/s from the start, all go to member 0; the healthy array
 * splits them.  A rebuilt member is likewise not read above the
 * rebuild's position.
 * Mutant killed: the resync's first-copy rule dropped; a member being
 * rebuilt read before it has been rebuilt.
 */
START_TEST (reads_avoid_what_is_not_in_sync)
{
  struct sim_test_run r;
  const char *j;

  files ("100us", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\niodepth=4\n"
                     "offset=32g\nsize=32g\nnumber_ios=400\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nresync = yes"), j, 1);
  ck_assert_uint_eq (fg_ios (&r, 0, RAIDSIM_READ), 400);
  ck_assert_uint_eq (fg_ios (&r, 1, RAIDSIM_READ), 0);
  sim_test_done (&r);

  sim_test_run (&r, array ("level = 1\nmembers = 2\nrebuild = 1\n"
                           "read_policy = round-robin"), j, 1);
  ck_assert_uint_eq (fg_ios (&r, 0, RAIDSIM_READ), 400);
  ck_assert_uint_eq (fg_ios (&r, 1, RAIDSIM_READ), 0);
  sim_test_done (&r);
}
END_TEST

/* raidsim_array_set_state, which the plugin's timed models call as its
 * real array changes (plugins/raid/model/timing.c): a RAID 1 of two 8 MiB
 * members made healthy, with round-robin reads, alternates 4K reads
 * between its members; told member 1 has failed, it reads and writes
 * member 0 only, as an array made with failed = 1; told member 1 is
 * back and rebuilt below member offset 1 MiB, it reads member 1 again
 * below that and never above; told all is well, it alternates again.
 * Mutants killed: set_state that ignores failed (reads reach member 1
 * while it has failed), or rebuild (reads reach it above 1 MiB).
 */
struct per_member { uint64_t n[2]; };

static int
count_member (const struct raidsim_member_cmd *cmd, void *opaque)
{
  struct per_member *c = opaque;

  c->n[cmd->member]++;
  return 0;
}

/* 100 reads (or writes) of 4K from offset off on, each completed at once. */
static struct per_member
hundred (struct raidsim_array *a, enum raidsim_dir dir, uint64_t off)
{
  struct per_member c = { { 0, 0 } };
  unsigned i;

  for (i = 0; i < 100; ++i) {
    struct per_member one = { { 0, 0 } };
    unsigned m;

    ck_assert_int_eq (raidsim_array_split (a, dir, off + i * 4 * KiB,
                                           4 * KiB, count_member, &one), 0);
    for (m = 0; m < 2; ++m) {
      struct raidsim_member_cmd cmd = { m, off + i * 4 * KiB, 4 * KiB };
      uint64_t k;

      for (k = 0; k < one.n[m]; ++k)
        raidsim_array_cmd_done (a, &cmd);
      c.n[m] += one.n[m];
    }
  }
  return c;
}

START_TEST (set_state_follows_the_members)
{
  uint64_t sizes[2] = { 8 << 20, 8 << 20 };
  struct raidsim_array_params p = {
    .level = RAID_LEVEL_1, .chunk = 64 * KiB, .nmembers = 2,
    .member_size = sizes, .policy = RAID_READ_ROUND_ROBIN,
  };
  struct raidsim_array *a = raidsim_array_new (&p);
  struct per_member c;

  ck_assert_ptr_nonnull (a);
  c = hundred (a, RAIDSIM_READ, 0);
  ck_assert_uint_eq (c.n[0], 50);
  ck_assert_uint_eq (c.n[1], 50);

  raidsim_array_set_state (a, 1u << 1, 0, false);
  c = hundred (a, RAIDSIM_READ, 0);
  ck_assert_uint_eq (c.n[0], 100);
  ck_assert_uint_eq (c.n[1], 0);
  c = hundred (a, RAIDSIM_WRITE, 0);
  ck_assert_uint_eq (c.n[0], 100);
  ck_assert_uint_eq (c.n[1], 0);

  raidsim_array_set_state (a, 0, 1u << 1, false);
  raidsim_array_sync_progress (a, 1 << 20);
  c = hundred (a, RAIDSIM_READ, 0);           /* below 1 MiB */
  ck_assert_uint_eq (c.n[0], 50);
  ck_assert_uint_eq (c.n[1], 50);
  c = hundred (a, RAIDSIM_READ, 2 << 20);     /* above */
  ck_assert_uint_eq (c.n[0], 100);
  ck_assert_uint_eq (c.n[1], 0);
  c = hundred (a, RAIDSIM_WRITE, 2 << 20);    /* written all the same */
  ck_assert_uint_eq (c.n[0], 100);
  ck_assert_uint_eq (c.n[1], 100);

  raidsim_array_set_state (a, 0, 0, false);
  c = hundred (a, RAIDSIM_READ, 2 << 20);
  ck_assert_uint_eq (c.n[0], 50);
  ck_assert_uint_eq (c.n[1], 50);
  raidsim_array_free (a);
}
END_TEST

/* Once the rebuild has passed a piece, the member rebuilt serves reads
 * of it.  A RAID 1 of 256 KiB members: the rebuild (no limit) releases
 * its 4 requests at 0; member 0 reads them over 100 .. 500 us, behind
 * the workload's first read, and member 1 writes them over 200 .. 600
 * us, so the first 64 KiB are rebuilt at 300 us and the rest at 600 us.
 * The workload reads the first 4 KiB over and over at QD 1 with
 * round-robin.  Its first read (issued at 0) can only go to member 0;
 * so can its second, issued at 100 us, which waits there behind the
 * rebuild's reads until 600 us.  From the third on, both copies are
 * candidates and round-robin alternates, member 0 first: of the 998
 * reads left, 499 go to member 1, and the rebuild ends at 600 us.
 * Mutant killed: a rebuilt member never readable.
 */
START_TEST (rebuilt_member_serves_reads_once_rebuilt)
{
  struct sim_test_run r;
  const struct raidsim_bg_result *b;
  const char *j;

  files ("100us", "256K");
  j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=4k\nsize=4k\n"
                     "number_ios=1000\ntime_based\nruntime=1s\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nrebuild = 1\n"
                           "speed_limit_max = 0\n"
                           "read_policy = round-robin"), j, 1);
  b = raidsim_sim_sync (r.s);
  ck_assert (b->complete);
  ck_assert_uint_eq (b->units, 4);
  ck_assert_uint_eq (b->end, 600 * US);
  ck_assert_uint_eq (fg_ios (&r, 1, RAIDSIM_READ), 499);
  ck_assert_uint_eq (fg_ios (&r, 0, RAIDSIM_READ), 501);
  sim_test_done (&r);
}
END_TEST

/* RAID 10 over 3 members, 2 copies, 64 KiB chunks, members of 3 chunks:
 * 9 slots, floor (3 x 3 / 2) = 4 array chunks in the first 8:
 *
 *     member:  0  1  2
 *     row 0:   0  0  1
 *     row 1:   1  2  2
 *     row 2:   3  3  -
 *
 * Member 2 holds chunk 1 (its other copy on member 0) and chunk 2 (on
 * member 1): 128 KiB to rebuild, one request read from member 0 and one
 * from member 1, both written to member 2.
 * Mutant killed: the first copy taken as the source even when it is the
 * member being rebuilt (member 2 would read itself).
 */
START_TEST (rebuild_raid10_reads_each_chunk_from_its_live_copy)
{
  struct sim_test_run r;
  const struct raidsim_bg_result *b;
  const char *j;

  files ("100us", "192K");
  j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=4k\nnumber_ios=1\n");
  sim_test_run (&r, array ("level = 10\nmembers = 3\ncopies = 2\n"
                           "chunk = 64K\nrebuild = 2\nspeed_limit_max = 0"),
                j, 1);
  b = raidsim_sim_sync (r.s);
  ck_assert (b->complete);
  ck_assert_uint_eq (b->total, 128 * KiB);
  ck_assert_uint_eq (b->done, 128 * KiB);
  ck_assert_uint_eq (b->units, 2);
  ck_assert_uint_eq (member (&r, 0)->bg_ios[RAIDSIM_READ], 1);
  ck_assert_uint_eq (member (&r, 1)->bg_ios[RAIDSIM_READ], 1);
  ck_assert_uint_eq (member (&r, 2)->bg_ios[RAIDSIM_READ], 0);
  ck_assert_uint_eq (member (&r, 2)->bg_ios[RAIDSIM_WRITE], 2);
  ck_assert_uint_eq (raidsim_bg_eta (b), 0);
  sim_test_done (&r);
}
END_TEST

/* The stream's figures in the three outputs; none of it for an array
 * without the new keys.  The run is the idle one above, over 10 ms:
 * requests at k x 640 us for k = 0 .. 15, 16 x 64 KiB = 1 048 576
 * bytes in 10 ms.
 * Mutant killed: the CSV's sync row or the JSON's sync object missing.
 */
START_TEST (reports_show_the_stream)
{
  struct sim_test_run r;
  json_object *root, *sync, *v;
  char *text;
  const char *j;

  files ("100us", "64G");
  j = sim_test_file ("j.fio", "[j]\nrw=read\nbs=4k\nnumber_ios=1\n");
  sim_test_run (&r, array ("level = 1\nmembers = 2\nrebuild = 1\n"
                           "speed_limit_max = 100000KiB/s\n"
                           "sync_runtime = 10ms"), j, 1);

  text = sim_test_report (r.s, RAIDSIM_FORMAT_TABLE);
  ck_assert_msg (strstr (text, "\nrebuild of member 1: 1.05 MB in 10.000 ms, "
                         "104.86 MB/s mean") != NULL, "%s", text);
  ck_assert_msg (strstr (text, "sync-reads sync-writes") != NULL, "%s", text);
  free (text);

  text = sim_test_report (r.s, RAIDSIM_FORMAT_CSV);
  ck_assert_msg (strstr (text, "lat_max_ns,total_bytes,eta_ns\n") != NULL,
                 "%s", text);
  ck_assert_msg (strstr (text, "\na,rebuild-member1,sync,16,1048576,10000000,"
                         "1600.000000,104857600.000000,") != NULL,
                 "%s", text);
  free (text);

  text = sim_test_report (r.s, RAIDSIM_FORMAT_JSON);
  root = json_tokener_parse (text);
  ck_assert_ptr_nonnull (root);
  ck_assert (json_object_object_get_ex (root, "sync", &sync));
  ck_assert (json_object_object_get_ex (sync, "action", &v));
  ck_assert_str_eq (json_object_get_string (v), "rebuild");
  ck_assert (json_object_object_get_ex (sync, "member", &v));
  ck_assert_int_eq (json_object_get_int (v), 1);
  ck_assert (json_object_object_get_ex (sync, "done_bytes", &v));
  ck_assert_uint_eq (json_object_get_uint64 (v), 1048576);
  ck_assert (json_object_object_get_ex (sync, "total_bytes", &v));
  ck_assert_uint_eq (json_object_get_uint64 (v), UINT64_C (64) << 30);
  ck_assert (json_object_object_get_ex (sync, "bw_bytes", &v));
  ck_assert_double_eq_tol (json_object_get_double (v), 104857600.0, 1e-3);
  json_object_put (root);
  free (text);
  sim_test_done (&r);

  /* No trace of any of it otherwise. */
  sim_test_run (&r, array ("level = 1\nmembers = 2"), j, 1);
  ck_assert_ptr_null (raidsim_sim_sync (r.s));
  text = sim_test_report (r.s, RAIDSIM_FORMAT_JSON);
  ck_assert (strstr (text, "sync") == NULL);
  free (text);
  text = sim_test_report (r.s, RAIDSIM_FORMAT_CSV);
  ck_assert (strstr (text, "total_bytes") == NULL);
  free (text);
  sim_test_done (&r);
}
END_TEST

/* raidsim run --set KEY=VALUE: the file's checks, and nothing changed
 * when it is refused.
 * Mutant killed: --set that skips the checks (failed = 0,1 accepted).
 */
START_TEST (set_checks_like_the_file)
{
  struct raidsim_array_config *ac;

  files ("100us", "64G");
  ac = raidsim_array_config_load (array ("level = 1\nmembers = 2"));
  ck_assert_ptr_nonnull (ac);
  ck_assert_int_eq (raidsim_array_config_set (ac, "rebuild=1"), 0);
  ck_assert_uint_eq (ac->rebuild_mask, 0x2);
  ck_assert_int_eq (raidsim_array_config_set (ac, "rebuild=none"), 0);
  ck_assert_int_eq (raidsim_array_config_set (ac, "failed=0,1"), -1);
  ck_assert_str_eq (raidsim_error (), "failed: array chunk 0 would have no "
                    "live copy (it is on members 0 and 1); the array cannot "
                    "run with these members failed");
  ck_assert_str_eq (ac->failed, "none");
  ck_assert_uint_eq (ac->failed_mask, 0);
  ck_assert_int_eq (raidsim_array_config_set (ac, "level=10"), 0);
  ck_assert_int_eq (raidsim_array_config_set (ac, "chunk=3K"), -1);
  ck_assert_uint_eq (ac->chunk, 128 * KiB);
  ck_assert_int_eq (raidsim_array_config_set (ac, "members=3"), -1);
  ck_assert_int_eq (raidsim_array_config_set (ac, "device=x.ini"), -1);
  ck_assert_int_eq (raidsim_array_config_set (ac, "nosuch=1"), -1);
  ck_assert_int_eq (raidsim_array_config_set (ac, "rebuild"), -1);
  raidsim_array_config_free (ac);
}
END_TEST

/* A sweep judges each varied array as a file is judged: the degraded
 * RAID 1 below is fine as RAID 1, but as RAID 0 its chunk 1 is lost.
 * Mutant killed: apply_vary without the failed-member check (the sweep
 * then runs the RAID 0 until the RAID layer aborts on a read of the
 * failed member).
 */
START_TEST (sweep_checks_the_varied_array)
{
  struct raidsim_sweep sw = { .narrays = 1, .seed = 1, .workers = 1 };
  struct raidsim_sweep_result res = { 0 };
  const char *paths[1];

  files ("100us", "64G");
  paths[0] = array ("level = 1\nmembers = 2\nfailed = 1");
  sw.arrays = paths;
  sw.workload = sim_test_file ("j.fio", "[j]\nrw=randread\nbs=4k\n"
                               "number_ios=10\n");
  ck_assert_int_eq (raidsim_sweep_parse_vary (&sw, "level=1,0"), 0);
  ck_assert_int_eq (raidsim_sweep_run (&sw, &res), -1);
  ck_assert_msg (strstr (raidsim_error (), "with level=0: failed: array "
                         "chunk 1 would have no live copy") != NULL,
                 "%s", raidsim_error ());
  raidsim_sweep_result_free (&res);
}
END_TEST

static Suite *
sync_suite (void)
{
  Suite *s = suite_create ("sim-sync");
  TCase *tc = tcase_create ("degraded");

  tcase_add_test (tc, degraded_raid1_uses_the_live_member);
  tcase_add_test (tc, degraded_raid10_reads_the_copies_that_remain);
  tcase_add_test (tc, degraded_refused_without_a_live_copy);
  suite_add_tcase (s, tc);
  tc = tcase_create ("stream");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, rebuild_idle_runs_at_speed_limit_max);
  tcase_add_test (tc, rebuild_goes_at_the_device_limit_if_lower);
  tcase_add_test (tc, rebuild_busy_falls_to_speed_limit_min);
  tcase_add_test (tc, rebuild_busy_drain_gives_way_by_draining);
  tcase_add_test (tc, resync_reads_the_first_copy_and_writes_the_others);
  tcase_add_test (tc, reads_avoid_what_is_not_in_sync);
  tcase_add_test (tc, set_state_follows_the_members);
  tcase_add_test (tc, rebuilt_member_serves_reads_once_rebuilt);
  tcase_add_test (tc, rebuild_raid10_reads_each_chunk_from_its_live_copy);
  suite_add_tcase (s, tc);
  tc = tcase_create ("output");
  tcase_add_test (tc, reports_show_the_stream);
  tcase_add_test (tc, set_checks_like_the_file);
  tcase_add_test (tc, sweep_checks_the_varied_array);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (sync_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
