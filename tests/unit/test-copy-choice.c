/* raidsim tests: the plugin and the simulator choose the same copies.
 *
 * The same request sequence, with the same completion order, goes
 * through the plugin's planning code (plugins/raid/io/plan.c: plan_build,
 * plan_choose, ioset_add_reads, ioset_runs, the very functions
 * io/read.c and io/write.c call) and through the simulator's RAID layer
 * (raidsim_array_split with merged pieces, as a controller that merges
 * like Linux's block layer).  For every level and read policy, every
 * request must become the same member I/Os (member, offset, length) in
 * the same order on both sides.  Writes are mixed in, since they load
 * members too; completions come in a seeded random order that both
 * sides see alike.
 *
 * This is what makes the simulator predict the plugin's member I/O: a
 * policy that acts differently in one program only fails here.  The
 * policies' own behaviour is checked against hand-worked cases in
 * test-readpolicy.c.
 *
 * Run: meson test -C build --suite unit copy-choice
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "raidsim/array.h"
#include "raidsim/geometry.h"
#include "raidsim/readpolicy.h"
#include "raidsim/rng.h"
#include "io/plan.h"

#define MAX_OUT 4096

struct mio {
  unsigned member;
  uint64_t offset, length;
};

/* One side's I/Os of one request. */
struct issued {
  struct mio io[1024];
  size_t n;
};

static int
sim_record (const struct raidsim_member_cmd *cmd, void *opaque)
{
  struct issued *is = opaque;

  ck_assert_uint_lt (is->n, 1024);
  is->io[is->n++] = (struct mio) { cmd->member, cmd->offset, cmd->len };
  return 0;
}

/* The plugin's side: what io/read.c and io/write.c do for a read or a
 * write, up to member_submit_all, which issues the member I/Os in run
 * order (member.c counts each in the read state as it starts it).
 */
static void
plugin_request (const struct raid_geom *g, struct raid_read_state *reads,
                enum raid_read_policy policy, bool write,
                uint64_t offset, uint64_t len, struct issued *is)
{
  static struct member members[RAID_MAX_MEMBERS];
  struct member_batch batch;
  struct plan pl;
  struct ioset set;
  size_t i, r;

  ck_assert_int_eq (plan_build (&pl, g, offset, len), 0);
  ck_assert_int_eq (ioset_init (&set, write ? pl.ncopies : pl.npieces), 0);
  if (write) {
    for (i = 0; i < pl.npieces; ++i) {
      unsigned k;
      for (k = 0; k < pl.piece[i].ncopies; ++k)
        ioset_add (&set, i, &pl.piece[i], &pl.piece[i].copy[k]);
    }
  }
  else {
    ck_assert_uint_eq (plan_choose (&pl, policy, reads, 0), 0);
    ck_assert_uint_eq (ioset_add_reads (&set, &pl), pl.npieces);
  }
  ioset_runs (&set, members, write ? MOP_WRITE : MOP_READ, 0, NULL,
              offset, RAID_RUN_MAX_SEGS, &batch);
  is->n = 0;
  for (r = 0; r < set.nrun; ++r) {
    const struct member_io *io = &set.io[r];
    unsigned m = io->member - members;
    raid_load_issue (&reads->member[m], true, io->offset, io->length);
    is->io[is->n++] = (struct mio) { m, io->offset, io->length };
  }
  ioset_free (&set);
  plan_free (&pl);
}

struct array_case {
  int level;
  unsigned nmembers, copies;
  uint64_t chunk;
};

static const struct array_case cases[] = {
  { RAID_LEVEL_1, 2, 0, 64 << 10 },
  { RAID_LEVEL_1, 3, 0, 64 << 10 },
  { RAID_LEVEL_10, 3, 2, 16 << 10 },
  { RAID_LEVEL_10, 4, 2, 64 << 10 },
  { RAID_LEVEL_10, 5, 3, 4 << 10 },
  { RAID_LEVEL_0, 3, 0, 16 << 10 },
};
#define NCASES (sizeof cases / sizeof cases[0])

/* Run 4000 requests through both sides; return the number of requests
 * whose member I/Os differed (and print the first).
 */
static unsigned
compare (const struct array_case *c, enum raid_read_policy policy,
         uint64_t seed)
{
  uint64_t sizes[RAID_MAX_MEMBERS];
  struct raid_geom_params gp = {
    .level = c->level, .chunk = c->chunk, .copies = c->copies,
    .nmembers = c->nmembers, .member_size = sizes,
  };
  struct raidsim_array_params sp = {
    .level = c->level, .chunk = c->chunk, .copies = c->copies,
    .nmembers = c->nmembers, .member_size = sizes, .policy = policy,
    .merge = true,
  };
  static struct mio out[MAX_OUT];
  static struct raid_read_state reads;
  struct issued plug, sim;
  struct raid_geom *g;
  struct raidsim_array *a;
  struct raidsim_rng rng;
  size_t nout = 0, i;
  unsigned step, bad = 0;
  uint64_t size;

  for (i = 0; i < c->nmembers; ++i)
    sizes[i] = (8 << 20) + i * c->chunk;   /* unequal: zones on RAID 0 */
  g = raid_geom_new (&gp);
  ck_assert_ptr_nonnull (g);
  a = raidsim_array_new (&sp);
  ck_assert_ptr_nonnull (a);
  size = raid_geom_size (g);
  ck_assert_uint_eq (size, raidsim_array_size (a));
  raid_read_state_init (&reads);
  raidsim_rng_seed (&rng, seed);

  for (step = 0; step < 4000; ++step) {
    /* Complete some I/Os in flight, in an order both sides share. */
    while (nout > 0 && (nout > 256 || raidsim_rng_below (&rng, 3) == 0)) {
      size_t k = raidsim_rng_below (&rng, nout);
      struct raidsim_member_cmd cmd = {
        out[k].member, out[k].offset, out[k].length,
      };
      raid_load_done (&reads.member[out[k].member]);
      raidsim_array_cmd_done (a, &cmd);
      out[k] = out[--nout];
    }

    /* A request: mostly reads, 4K to 4 chunks, sometimes sequential. */
    {
      bool write = raidsim_rng_below (&rng, 4) == 0;
      uint64_t len = 4096 * (1 + raidsim_rng_below (&rng, c->chunk / 1024));
      uint64_t offset;

      if (len > size)
        len = size;
      offset = 4096 * raidsim_rng_below (&rng, (size - len) / 4096 + 1);
      plugin_request (g, &reads, policy, write, offset, len, &plug);
      sim.n = 0;
      ck_assert_int_eq (raidsim_array_split (a, write ? RAIDSIM_WRITE
                                             : RAIDSIM_READ,
                                             offset, len, sim_record, &sim),
                        0);
      if (plug.n != sim.n ||
          memcmp (plug.io, sim.io, plug.n * sizeof plug.io[0]) != 0) {
        if (bad++ == 0) {
          fprintf (stderr, "level %d, %u members, policy %s: request %u "
                   "(%s %" PRIu64 "+%" PRIu64 ") differs:\n",
                   c->level, c->nmembers, raid_read_policy_name (policy),
                   step, write ? "write" : "read", offset, len);
          for (i = 0; i < plug.n || i < sim.n; ++i)
            fprintf (stderr, "  plugin %u:%" PRIu64 "+%" PRIu64
                     "  simulator %u:%" PRIu64 "+%" PRIu64 "\n",
                     i < plug.n ? plug.io[i].member : 0,
                     i < plug.n ? plug.io[i].offset : 0,
                     i < plug.n ? plug.io[i].length : 0,
                     i < sim.n ? sim.io[i].member : 0,
                     i < sim.n ? sim.io[i].offset : 0,
                     i < sim.n ? sim.io[i].length : 0);
        }
      }
      /* Both sides now have plug.n I/Os in flight (the simulator's are
       * the same, or the comparison above already failed).
       */
      for (i = 0; i < plug.n && nout < MAX_OUT; ++i)
        out[nout++] = plug.io[i];
    }
  }
  raidsim_array_free (a);
  raid_geom_free (g);
  return bad;
}

START_TEST (same_copies)
{
  const struct array_case *c = &cases[_i / RAID_READ_POLICY_COUNT];
  enum raid_read_policy policy = _i % RAID_READ_POLICY_COUNT;
  unsigned bad = compare (c, policy, 1000 + _i);

  ck_assert_msg (bad == 0, "level %d, %u members, policy %s: %u of 4000 "
                 "requests became different member I/O", c->level,
                 c->nmembers, raid_read_policy_name (policy), bad);
}
END_TEST

/* The comparison is not vacuous: on arrays with copies every policy but
 * first reads more than one copy over the run, and least-pending and
 * round-robin spread reads (so a policy acting as another would show).
 */
START_TEST (policies_differ)
{
  const struct array_case *c = &cases[3];       /* RAID 10, 4 members */
  uint64_t sizes[4] = { 8 << 20, 8 << 20, 8 << 20, 8 << 20 };
  struct raid_geom_params gp = {
    .level = c->level, .chunk = c->chunk, .copies = c->copies,
    .nmembers = 4, .member_size = sizes,
  };
  struct raid_geom *g = raid_geom_new (&gp);
  struct issued first, other;
  unsigned p, differ[RAID_READ_POLICY_COUNT] = { 0 };
  uint64_t off;

  for (p = 0; p < RAID_READ_POLICY_COUNT; ++p) {
    static struct raid_read_state r0, r1;
    raid_read_state_init (&r0);
    raid_read_state_init (&r1);
    /* Member 0 busy: least-pending avoids it, first does not. */
    raid_load_issue (&r0.member[0], true, 0, 4096);
    raid_load_issue (&r1.member[0], true, 0, 4096);
    for (off = 0; off < (4 << 20); off += 64 << 10) {
      plugin_request (g, &r0, RAID_READ_FIRST, false, off, 4096, &first);
      plugin_request (g, &r1, p, false, off, 4096, &other);
      differ[p] += first.io[0].member != other.io[0].member;
    }
  }
  raid_geom_free (g);
  ck_assert_uint_eq (differ[RAID_READ_FIRST], 0);
  ck_assert_uint_gt (differ[RAID_READ_ROUND_ROBIN], 0);
  ck_assert_uint_gt (differ[RAID_READ_LEAST_PENDING], 0);
  ck_assert_uint_gt (differ[RAID_READ_SEQUENTIAL], 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("copy-choice");
  TCase *tc = tcase_create ("plugin-vs-simulator");
  SRunner *sr;
  int failed;

  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, same_copies, 0, NCASES * RAID_READ_POLICY_COUNT);
  tcase_add_test (tc, policies_differ);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
