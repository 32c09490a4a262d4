/* raidsim: the models driven by hand, without the event engine.
 *
 * This is the proof that the clock lives outside the models: each test
 * here keeps its own `now`, calls submit / next / reap as a wall-clock
 * driver in the nbdkit plugin would, and checks the answers against
 * closed forms.  Also the RAID layer's split and read policies, the
 * links' transfer times and the workload generator's fio semantics,
 * each on its own.
 *
 * Run: meson test -C build --suite unit sim-models
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "raidsim/array.h"
#include "raidsim/controller.h"
#include "raidsim/device.h"
#include "raidsim/error.h"
#include "raidsim/link.h"
#include "raidsim/param.h"
#include "raidsim/workload.h"

#define US RAIDSIM_NS_PER_US

/* A model's parameters from its own table, with some keys overridden,
 * as a [device] section would give them.
 */
static void *
model_params (const struct raidsim_param *table, size_t size,
              const char *const *kv)
{
  void *p = calloc (1, size);
  const struct raidsim_param *q;

  raidsim_params_defaults (table, p);
  for (; kv && kv[0]; kv += 2) {
    for (q = table; q->name; ++q)
      if (strcmp (q->name, kv[0]) == 0)
        break;
    ck_assert_msg (q->name != NULL, "no key %s", kv[0]);
    ck_assert_msg (raidsim_param_parse (q, kv[1], (char *) p + q->offset) == 0,
                   "%s", raidsim_error ());
  }
  return p;
}

/* ---- the fixed device, driven with a hand-held clock ---- */

START_TEST (fixed_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("fixed");
  static const char *const kv[] = { "latency", "100us", "parallelism", "2",
                                    NULL };
  void *params, *dev;
  struct raidsim_io io[5];
  raidsim_ns now = 0;
  unsigned i;
  /* Two servers, 100 us each, five requests at t = 0: pairs finish at
   * 100, 200, and the fifth at 300 us.
   */
  static const raidsim_ns expect[5] = { 100 * US, 100 * US, 200 * US,
                                        200 * US, 300 * US };

  ck_assert_ptr_nonnull (ops);
  ck_assert_int_eq (ops->version, RAIDSIM_DEVICE_OPS_VERSION);
  params = model_params (ops->params, ops->params_size, kv);
  dev = ops->create (params, UINT64_C (1) << 40);
  ck_assert_ptr_nonnull (dev);
  ck_assert_uint_eq (ops->next (dev), RAIDSIM_NEVER);
  ck_assert_ptr_null (ops->reap (dev, 0));

  memset (io, 0, sizeof io);
  for (i = 0; i < 5; ++i) {
    io[i].dir = RAIDSIM_READ;
    io[i].len = 4096;
    /* A FIFO model knows the completion time at submission. */
    ck_assert_uint_eq (ops->submit (dev, &io[i], now), expect[i]);
  }

  /* Drive it the way a wall-clock driver would: sleep until next (),
   * then reap everything due.
   */
  i = 0;
  while ((now = ops->next (dev)) != RAIDSIM_NEVER) {
    struct raidsim_io *done;

    ck_assert_ptr_null (ops->reap (dev, now - 1));
    while ((done = ops->reap (dev, now)) != NULL) {
      ck_assert_ptr_eq (done, &io[i]);
      ck_assert_uint_eq (now, expect[i]);
      i++;
    }
  }
  ck_assert_uint_eq (i, 5);

  /* An idle device starts a late request at once; a reap later than
   * next () still hands it back.
   */
  ck_assert_uint_eq (ops->submit (dev, &io[0], 1000 * US), 1100 * US);
  ck_assert_ptr_eq (ops->reap (dev, 5000 * US), &io[0]);
  ops->destroy (dev);
  free (params);
}
END_TEST

/* IOPS = min (QD, P) / latency, from a hand-driven closed loop. */
START_TEST (fixed_closed_loop_by_hand)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("fixed");
  static const char *const kv[] = { "latency", "50us", "parallelism", "4",
                                    NULL };
  void *params = model_params (ops->params, ops->params_size, kv);
  unsigned qd;

  for (qd = 1; qd <= 8; ++qd) {
    void *dev = ops->create (params, UINT64_C (1) << 40);
    struct raidsim_io io[8];
    const unsigned total = 840;     /* a multiple of 1..8 */
    unsigned issued = 0, completed = 0, i;
    raidsim_ns now = 0, expect;

    memset (io, 0, sizeof io);
    for (i = 0; i < qd; ++i, ++issued)
      ops->submit (dev, &io[i], now);
    while (completed < total) {
      struct raidsim_io *done;

      now = ops->next (dev);
      while ((done = ops->reap (dev, now)) != NULL) {
        completed++;
        if (issued < total) {
          ops->submit (dev, done, now);
          issued++;
        }
      }
    }
    expect = (raidsim_ns) total / (qd < 4 ? qd : 4) * 50 * US;
    ck_assert_msg (now == expect, "QD %u: %lu ns, expected %lu", qd,
                   (unsigned long) now, (unsigned long) expect);
    ops->destroy (dev);
  }
  free (params);
}
END_TEST

START_TEST (fixed_write_latency)
{
  const struct raidsim_device_ops *ops = raidsim_device_find ("fixed");
  static const char *const kv[] = { "latency", "100us", "write_latency",
                                    "300us", NULL };
  void *params = model_params (ops->params, ops->params_size, kv);
  void *dev = ops->create (params, UINT64_C (1) << 40);
  struct raidsim_io w = { .dir = RAIDSIM_WRITE }, r = { .dir = RAIDSIM_READ };

  ck_assert_uint_eq (ops->submit (dev, &w, 0), 300 * US);
  /* One server: the read waits for the write. */
  ck_assert_uint_eq (ops->submit (dev, &r, 0), 400 * US);
  ops->destroy (dev);
  free (params);
}
END_TEST

START_TEST (unknown_model)
{
  ck_assert_ptr_null (raidsim_device_find ("hdd-from-the-future"));
  ck_assert_str_eq (raidsim_error (),
                    "model: 'hdd-from-the-future' is not a device model");
}
END_TEST

/* ---- the generic controller, by hand ---- */

struct ctl_harness {
  const struct raidsim_controller_ops *ops;
  void *params, *c;
};

static void
ctl_new (struct ctl_harness *h, const char *const *kv, unsigned nmembers)
{
  h->ops = raidsim_controller_find ("generic");
  ck_assert_ptr_nonnull (h->ops);
  h->params = model_params (h->ops->params, h->ops->params_size, kv);
  h->c = h->ops->create (h->params, nmembers);
  ck_assert_ptr_nonnull (h->c);
}

static void
ctl_free (struct ctl_harness *h)
{
  h->ops->destroy (h->c);
  free (h->params);
}

static struct raidsim_io *
ctl_reap_one (struct ctl_harness *h, raidsim_ns now,
              enum raidsim_ctl_out expect)
{
  enum raidsim_ctl_out what;
  struct raidsim_io *io = h->ops->reap (h->c, now, &what);

  ck_assert_ptr_nonnull (io);
  ck_assert_int_eq (what, expect);
  return io;
}

START_TEST (ctl_overhead_and_slots)
{
  static const char *const kv[] = { "overhead", "3us", "max_outstanding",
                                    "2", NULL };
  struct ctl_harness h;
  struct raidsim_io io[3];
  unsigned i;

  ctl_new (&h, kv, 1);
  memset (io, 0, sizeof io);
  for (i = 0; i < 3; ++i)
    h.ops->submit (h.c, &io[i], 0);
  /* Nothing before the overhead has passed. */
  ck_assert_uint_eq (h.ops->next (h.c), 3 * US);
  ck_assert_ptr_eq (ctl_reap_one (&h, 3 * US, RAIDSIM_CTL_ISSUE), &io[0]);
  ck_assert_ptr_eq (ctl_reap_one (&h, 3 * US, RAIDSIM_CTL_ISSUE), &io[1]);
  /* The third waits for a slot. */
  {
    enum raidsim_ctl_out what;
    ck_assert_ptr_null (h.ops->reap (h.c, 3 * US, &what));
  }
  ck_assert_uint_eq (h.ops->next (h.c), RAIDSIM_NEVER);
  h.ops->member_done (h.c, &io[0], 10 * US);
  ck_assert_uint_eq (h.ops->next (h.c), 10 * US);
  ck_assert_ptr_eq (ctl_reap_one (&h, 10 * US, RAIDSIM_CTL_ISSUE), &io[2]);
  ck_assert_ptr_eq (ctl_reap_one (&h, 10 * US, RAIDSIM_CTL_COMPLETE), &io[0]);
  ctl_free (&h);
}
END_TEST

START_TEST (ctl_coalescing)
{
  static const char *const kv[] = { "coalesce_count", "2", "coalesce_timer",
                                    "100us", NULL };
  struct ctl_harness h;
  struct raidsim_io io[4];
  enum raidsim_ctl_out what;
  unsigned i;

  ctl_new (&h, kv, 2);
  memset (io, 0, sizeof io);
  for (i = 0; i < 4; ++i) {
    io[i].member = i % 2;
    h.ops->submit (h.c, &io[i], 0);
    ck_assert_ptr_eq (ctl_reap_one (&h, 0, RAIDSIM_CTL_ISSUE), &io[i]);
  }
  /* One completion alone is held for the whole timer... */
  h.ops->member_done (h.c, &io[0], 50 * US);
  ck_assert_ptr_null (h.ops->reap (h.c, 50 * US, &what));
  ck_assert_uint_eq (h.ops->next (h.c), 150 * US);
  ck_assert_ptr_null (h.ops->reap (h.c, 149 * US, &what));
  ck_assert_ptr_eq (ctl_reap_one (&h, 150 * US, RAIDSIM_CTL_COMPLETE), &io[0]);
  ck_assert_uint_eq (h.ops->next (h.c), RAIDSIM_NEVER);
  /* ... two, from either member, go at once. */
  h.ops->member_done (h.c, &io[1], 200 * US);
  ck_assert_uint_eq (h.ops->next (h.c), 300 * US);
  h.ops->member_done (h.c, &io[2], 210 * US);
  ck_assert_uint_eq (h.ops->next (h.c), 210 * US);
  ck_assert_ptr_eq (ctl_reap_one (&h, 210 * US, RAIDSIM_CTL_COMPLETE), &io[1]);
  ck_assert_ptr_eq (ctl_reap_one (&h, 210 * US, RAIDSIM_CTL_COMPLETE), &io[2]);
  ck_assert_uint_eq (h.ops->next (h.c), RAIDSIM_NEVER);
  ctl_free (&h);
}
END_TEST

START_TEST (ctl_coalescing_per_member)
{
  static const char *const kv[] = { "coalesce_count", "2", "coalesce_timer",
                                    "100us", "coalesce_scope", "member",
                                    NULL };
  struct ctl_harness h;
  struct raidsim_io io[4];
  unsigned i;

  ctl_new (&h, kv, 2);
  memset (io, 0, sizeof io);
  for (i = 0; i < 4; ++i) {
    io[i].member = i < 2 ? i : 0;
    h.ops->submit (h.c, &io[i], 0);
    ck_assert_ptr_eq (ctl_reap_one (&h, 0, RAIDSIM_CTL_ISSUE), &io[i]);
  }
  /* One on each member: each waits for its own timer... */
  h.ops->member_done (h.c, &io[0], 50 * US);
  h.ops->member_done (h.c, &io[1], 60 * US);
  ck_assert_uint_eq (h.ops->next (h.c), 150 * US);
  ck_assert_ptr_eq (ctl_reap_one (&h, 150 * US, RAIDSIM_CTL_COMPLETE), &io[0]);
  ck_assert_uint_eq (h.ops->next (h.c), 160 * US);
  ck_assert_ptr_eq (ctl_reap_one (&h, 160 * US, RAIDSIM_CTL_COMPLETE), &io[1]);
  /* ... two on the same member go at once. */
  h.ops->member_done (h.c, &io[2], 200 * US);
  ck_assert_uint_eq (h.ops->next (h.c), 300 * US);
  h.ops->member_done (h.c, &io[3], 210 * US);
  ck_assert_ptr_eq (ctl_reap_one (&h, 210 * US, RAIDSIM_CTL_COMPLETE), &io[2]);
  ck_assert_ptr_eq (ctl_reap_one (&h, 210 * US, RAIDSIM_CTL_COMPLETE), &io[3]);
  ck_assert_uint_eq (h.ops->next (h.c), RAIDSIM_NEVER);
  ctl_free (&h);
}
END_TEST

/* ---- links ---- */

START_TEST (link_transfer_times)
{
  struct raidsim_link port, uplink, half;
  struct raidsim_link *path[2] = { &port, &uplink };

  raidsim_link_init (&port, "port", 300000000, true);   /* 300 MB/s */
  raidsim_link_init (&uplink, "uplink", 1000000000, true); /* 1 GB/s */
  raidsim_link_init (&half, "sata", 300000000, false);

  /* 3000 bytes at 300 MB/s = 10 us; at 1 GB/s = 3 us. */
  ck_assert_uint_eq (raidsim_link_time (&port, RAIDSIM_READ, 3000), 10 * US);
  ck_assert_uint_eq (raidsim_link_time (&uplink, RAIDSIM_READ, 3000), 3 * US);
  /* Rounded up: a link is never faster than its rate. */
  ck_assert_uint_eq (raidsim_link_time (&uplink, RAIDSIM_WRITE, 1), 1);

  /* Along a path, the slowest link decides, and both are occupied. */
  ck_assert_uint_eq (raidsim_links_transfer (path, 2, RAIDSIM_READ, 3000, 0),
                     10 * US);
  ck_assert_uint_eq (uplink.free_at[RAIDSIM_READ], 3 * US);
  /* A second transfer on the same port queues behind the first. */
  ck_assert_uint_eq (raidsim_links_transfer (path, 2, RAIDSIM_READ, 3000, 0),
                     20 * US);
  /* Full duplex: a write does not wait for reads. */
  ck_assert_uint_eq (raidsim_links_transfer (path, 2, RAIDSIM_WRITE, 3000, 0),
                     10 * US);
  /* Half duplex: it does. */
  {
    struct raidsim_link *p1[1] = { &half };
    ck_assert_uint_eq (raidsim_links_transfer (p1, 1, RAIDSIM_READ, 3000, 0),
                       10 * US);
    ck_assert_uint_eq (raidsim_links_transfer (p1, 1, RAIDSIM_WRITE, 3000, 0),
                       20 * US);
  }
}
END_TEST

/* Four members' ports of 300 MB/s behind a shared 1 GB/s uplink: the
 * aggregate is capped by the uplink, exactly.
 */
START_TEST (link_shared_uplink_caps)
{
  struct raidsim_link port[4], uplink;
  raidsim_ns done = 0;
  unsigned i, k;

  raidsim_link_init (&uplink, "uplink", 1000000000, true);
  for (i = 0; i < 4; ++i)
    raidsim_link_init (&port[i], "port", 300000000, true);
  /* 100 transfers of 3000 bytes from each member, all ready at 0. */
  for (k = 0; k < 100; ++k)
    for (i = 0; i < 4; ++i) {
      struct raidsim_link *path[2] = { &port[i], &uplink };
      raidsim_ns t = raidsim_links_transfer (path, 2, RAIDSIM_READ, 3000, 0);
      if (t > done)
        done = t;
    }
  /* 1.2 MB through 1 GB/s = 1200 us, though the ports could do 4 x 300. */
  ck_assert_uint_eq (done, 1200 * US);
}
END_TEST

/* ---- the RAID layer ---- */

struct collected {
  unsigned n;
  struct raidsim_member_cmd cmd[64];
};

static int
collect (const struct raidsim_member_cmd *cmd, void *opaque)
{
  struct collected *c = opaque;

  c->cmd[c->n++] = *cmd;
  return 0;
}

static struct raidsim_array *
array_merged (int level, unsigned n, uint64_t chunk,
              raidsim_read_policy pol, bool merge)
{
  static uint64_t sizes[RAID_MAX_MEMBERS];
  struct raidsim_array_params p = {
    .level = level, .chunk = chunk, .nmembers = n, .member_size = sizes,
    .policy = pol, .merge = merge,
  };
  struct raidsim_array *a;
  unsigned i;

  for (i = 0; i < n; ++i)
    sizes[i] = UINT64_C (1) << 30;
  a = raidsim_array_new (&p);
  ck_assert_msg (a != NULL, "%s", raidsim_error ());
  return a;
}

static struct raidsim_array *
array_of (int level, unsigned n, uint64_t chunk, raidsim_read_policy pol)
{
  return array_merged (level, n, chunk, pol, false);
}

START_TEST (array_raid0_split_matches_geometry)
{
  struct raidsim_array *a = array_of (RAID_LEVEL_0, 3, 64 << 10,
                                      RAID_READ_FIRST);
  struct collected c = { 0 };

  /* 200 KiB from 100 KiB: chunks 1 (rest), 2, 3 (part) of a 3-wide
   * stripe: member 1 at 36K, member 2 at 0, member 0 at 64K.
   */
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_WRITE, 100 << 10,
                                         200 << 10, collect, &c), 0);
  ck_assert_uint_eq (c.n, 4);
  ck_assert_uint_eq (c.cmd[0].member, 1);
  ck_assert_uint_eq (c.cmd[0].offset, 36 << 10);
  ck_assert_uint_eq (c.cmd[0].len, 28 << 10);
  ck_assert_uint_eq (c.cmd[1].member, 2);
  ck_assert_uint_eq (c.cmd[1].offset, 0);
  ck_assert_uint_eq (c.cmd[1].len, 64 << 10);
  ck_assert_uint_eq (c.cmd[2].member, 0);
  ck_assert_uint_eq (c.cmd[2].offset, 64 << 10);
  ck_assert_uint_eq (c.cmd[2].len, 64 << 10);
  ck_assert_uint_eq (c.cmd[3].member, 1);
  ck_assert_uint_eq (c.cmd[3].offset, 64 << 10);
  ck_assert_uint_eq (c.cmd[3].len, 44 << 10);
  ck_assert_uint_le (c.n, raidsim_array_max_cmds (a, 200 << 10));
  raidsim_array_free (a);
}
END_TEST

/* merge: one command per run of pieces contiguous on a member. */
static void
want_cmd (const struct collected *c, unsigned i, unsigned member,
          uint64_t offset, uint64_t len)
{
  ck_assert_uint_eq (c->cmd[i].member, member);
  ck_assert_uint_eq (c->cmd[i].offset, offset);
  ck_assert_uint_eq (c->cmd[i].len, len);
}

START_TEST (array_merge_pieces)
{
  struct raidsim_array *a;
  struct collected c = { 0 };

  /* The request of array_raid0_split_matches_geometry: member 1's two
   * pieces (36K..64K, then row 1 from 64K) are contiguous there, so
   * three commands, in the order of their first pieces.
   */
  a = array_merged (RAID_LEVEL_0, 3, 64 << 10, RAID_READ_FIRST, true);
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_WRITE, 100 << 10,
                                         200 << 10, collect, &c), 0);
  ck_assert_uint_eq (c.n, 3);
  want_cmd (&c, 0, 1, 36 << 10, 72 << 10);
  want_cmd (&c, 1, 2, 0, 64 << 10);
  want_cmd (&c, 2, 0, 64 << 10, 64 << 10);
  raidsim_array_free (a);

  /* 1M over 2 members, chunk 128K: 512K on each, not 4 x 128K. */
  a = array_merged (RAID_LEVEL_0, 2, 128 << 10, RAID_READ_FIRST, true);
  c.n = 0;
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_READ, 1 << 20,
                                         1 << 20, collect, &c), 0);
  ck_assert_uint_eq (c.n, 2);
  want_cmd (&c, 0, 0, 512 << 10, 512 << 10);
  want_cmd (&c, 1, 1, 512 << 10, 512 << 10);
  raidsim_array_free (a);

  /* RAID 10, 4 members, 2 copies, chunk 64K: chunk c's copies are on
   * members 2c mod 4 and 2c+1 mod 4 at row c div 2.  A 1M read with
   * least-pending and nothing in flight takes the first copy of every
   * piece, chosen before any is sent (as the plugin chooses): members
   * 0 and 2, rows 0 to 7, one run each.  Never completed, those two
   * are pending, so the next 1M read goes to members 1 and 3.
   */
  a = array_merged (RAID_LEVEL_10, 4, 64 << 10, RAID_READ_LEAST_PENDING,
                    true);
  c.n = 0;
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_READ, 0, 1 << 20,
                                         collect, &c), 0);
  ck_assert_uint_eq (c.n, 2);
  want_cmd (&c, 0, 0, 0, 512 << 10);
  want_cmd (&c, 1, 2, 0, 512 << 10);
  c.n = 0;
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_READ, 0, 1 << 20,
                                         collect, &c), 0);
  ck_assert_uint_eq (c.n, 2);
  want_cmd (&c, 0, 1, 0, 512 << 10);
  want_cmd (&c, 1, 3, 0, 512 << 10);
  /* A write goes to every copy: one run on each member. */
  c.n = 0;
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_WRITE, 0, 1 << 20,
                                         collect, &c), 0);
  ck_assert_uint_eq (c.n, 4);
  want_cmd (&c, 0, 0, 0, 512 << 10);
  want_cmd (&c, 1, 1, 0, 512 << 10);
  want_cmd (&c, 2, 2, 0, 512 << 10);
  want_cmd (&c, 3, 3, 0, 512 << 10);
  raidsim_array_free (a);
}
END_TEST

START_TEST (array_raid1_writes_every_copy)
{
  struct raidsim_array *a = array_of (RAID_LEVEL_1, 3, 64 << 10,
                                      RAID_READ_FIRST);
  struct collected c = { 0 };
  unsigned i;

  raidsim_array_split (a, RAIDSIM_WRITE, 4096, 8192, collect, &c);
  ck_assert_uint_eq (c.n, 3);
  for (i = 0; i < 3; ++i) {
    ck_assert_uint_eq (c.cmd[i].member, i);
    ck_assert_uint_eq (c.cmd[i].offset, 4096);
    ck_assert_uint_eq (c.cmd[i].len, 8192);
  }
  raidsim_array_free (a);
}
END_TEST

/* The read policies, one read at a time (as at QD 1). */
static void
read_members (raidsim_read_policy pol, unsigned n, bool complete,
              uint64_t stride, unsigned *count)
{
  struct raidsim_array *a = array_of (RAID_LEVEL_1, 2, 64 << 10, pol);
  unsigned i;

  count[0] = count[1] = 0;
  for (i = 0; i < n; ++i) {
    struct collected c = { 0 };

    raidsim_array_split (a, RAIDSIM_READ, i * stride, 4096, collect, &c);
    ck_assert_uint_eq (c.n, 1);
    count[c.cmd[0].member]++;
    if (complete)
      raidsim_array_cmd_done (a, &c.cmd[0]);
  }
  raidsim_array_free (a);
}

START_TEST (array_read_policies)
{
  unsigned count[2];

  read_members (RAID_READ_FIRST, 100, true, 4096, count);
  ck_assert_uint_eq (count[0], 100);
  read_members (RAID_READ_ROUND_ROBIN, 100, true, 4096, count);
  ck_assert_uint_eq (count[0], 50);
  ck_assert_uint_eq (count[1], 50);
  /* Nothing in flight: every tie goes to the first copy. */
  read_members (RAID_READ_LEAST_PENDING, 100, true, 4096, count);
  ck_assert_uint_eq (count[0], 100);
  /* Never completed: the pending counts alternate the choice. */
  read_members (RAID_READ_LEAST_PENDING, 100, false, 4096, count);
  ck_assert_uint_eq (count[0], 50);
  ck_assert_uint_eq (count[1], 50);
  /* A sequential stream stays on the member it started on. */
  read_members (RAID_READ_SEQUENTIAL, 100, true, 4096, count);
  ck_assert_uint_eq (count[0], 100);
}
END_TEST

/* read_policy = all: a read goes to every copy, as a write does.  Near
 * layout, four members, 64 KiB chunks: chunk 1 lives on members 2 and 3
 * at member offset 0, so 4 KiB at array offset 68 KiB is 4 KiB at
 * member offset 4 KiB on both; a 128 KiB read from 0 is chunks 0 and 1,
 * on members 0, 1 and 2, 3.
 */
START_TEST (array_read_all_copies)
{
  struct raidsim_array *a = array_of (RAID_LEVEL_10, 4, 64 << 10,
                                      RAIDSIM_POLICY_ALL);
  struct collected c = { 0 };
  unsigned i;

  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_READ, 68 << 10, 4096,
                                         collect, &c), 0);
  ck_assert_uint_eq (c.n, 2);
  for (i = 0; i < 2; ++i) {
    ck_assert_uint_eq (c.cmd[i].member, 2 + i);
    ck_assert_uint_eq (c.cmd[i].offset, 4096);
    ck_assert_uint_eq (c.cmd[i].len, 4096);
  }
  c.n = 0;
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_READ, 0, 128 << 10,
                                         collect, &c), 0);
  ck_assert_uint_eq (c.n, 4);
  for (i = 0; i < 4; ++i) {
    ck_assert_uint_eq (c.cmd[i].member, i);
    ck_assert_uint_eq (c.cmd[i].offset, 0);
    ck_assert_uint_eq (c.cmd[i].len, 64 << 10);
  }
  ck_assert_uint_le (c.n, raidsim_array_max_cmds (a, 128 << 10));
  raidsim_array_free (a);
}
END_TEST

START_TEST (array_single_and_bounds)
{
  struct raidsim_array *a = array_of (RAIDSIM_LEVEL_SINGLE, 1, 0, 0);
  struct collected c = { 0 };

  ck_assert_uint_eq (raidsim_array_size (a), UINT64_C (1) << 30);
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_READ, 12345, 100,
                                         collect, &c), 0);
  ck_assert_uint_eq (c.n, 1);
  ck_assert_uint_eq (c.cmd[0].offset, 12345);
  ck_assert_int_eq (raidsim_array_split (a, RAIDSIM_READ,
                                         (UINT64_C (1) << 30) - 10, 11,
                                         collect, &c), -1);
  raidsim_array_free (a);
}
END_TEST

/* ---- the workload generator ---- */

static struct raidsim_job
job_with (int rw, uint64_t bs)
{
  struct raidsim_job j;

  memset (&j, 0, sizeof j);
  raidsim_params_defaults (raidsim_fio_params, &j);
  j.rw = rw;
  j.bs = bs;
  return j;
}

START_TEST (workload_sequential_wraps_and_stops)
{
  struct raidsim_job j = job_with (RAIDSIM_RW_READ, 4096);
  struct raidsim_worker w;
  struct raidsim_hostreq r;
  unsigned i;

  /* A region of 10 blocks from 1 MiB: one pass, then stop (size). */
  raidsim_worker_init (&w, &j, 1 << 20, 10, 10, 1, 0, 0);
  for (i = 0; i < 10; ++i) {
    ck_assert (raidsim_worker_next (&w, 0, &r));
    ck_assert_int_eq (r.dir, RAIDSIM_READ);
    ck_assert_uint_eq (r.offset, (1 << 20) + i * 4096);
    ck_assert_uint_eq (r.len, 4096);
    ck_assert (r.measured);
  }
  ck_assert (!raidsim_worker_next (&w, 0, &r));

  /* With ramp_time, I/Os before it are not measured but are part of
   * size, as in fio: 3 in the ramp leave 7, and the stream goes on from
   * where it was.
   */
  j.ramp_time = 1000;
  raidsim_worker_init (&w, &j, 0, 10, 10, 1, 0, 0);
  for (i = 0; i < 3; ++i) {
    ck_assert (raidsim_worker_next (&w, 500, &r));
    ck_assert (!r.measured);
  }
  for (i = 0; i < 7; ++i) {
    ck_assert (raidsim_worker_next (&w, 1000, &r));
    ck_assert (r.measured);
    ck_assert_uint_eq (r.offset, (3 + i) * 4096);
  }
  ck_assert (!raidsim_worker_next (&w, 1000, &r));

  /* time_based: size does not stop it, and the stream wraps at the end
   * of the region.
   */
  j.time_based = true;
  raidsim_worker_init (&w, &j, 0, 10, 10, 1, 0, 0);
  for (i = 0; i < 3; ++i)
    ck_assert (raidsim_worker_next (&w, 500, &r));
  for (i = 0; i < 10; ++i) {
    ck_assert (raidsim_worker_next (&w, 1000, &r));
    ck_assert (r.measured);
    ck_assert_uint_eq (r.offset, ((3 + i) % 10) * 4096);
  }
}
END_TEST

START_TEST (workload_random_visits_each_block_once)
{
  struct raidsim_job j = job_with (RAIDSIM_RW_RANDREAD, 8192);
  struct raidsim_worker w;
  struct raidsim_hostreq r;
  unsigned char seen[1000] = { 0 };
  unsigned i;

  raidsim_worker_init (&w, &j, 8192, 1000, 1000, 3, 0, 0);
  for (i = 0; i < 1000; ++i) {
    uint64_t b;

    ck_assert (raidsim_worker_next (&w, 0, &r));
    ck_assert_uint_eq ((r.offset - 8192) % 8192, 0);
    b = (r.offset - 8192) / 8192;
    ck_assert_uint_lt (b, 1000);
    ck_assert_uint_eq (seen[b], 0);
    seen[b] = 1;
  }
  ck_assert (!raidsim_worker_next (&w, 0, &r));
}
END_TEST

/* norandommap: each offset is drawn afresh, uniformly over the region.
 * n draws over n blocks then leave a block undone with probability
 * (1 - 1/n)^n, so about n (1 - 1/e) distinct blocks: 632.3 for
 * n = 1000, with a standard deviation of about 10 (occupancy:
 * n e^-1 (1 - 2 e^-1) = 97.2 is the variance); the random map does all
 * 1000 (the test above).
 */
START_TEST (workload_norandommap_draws_afresh)
{
  struct raidsim_job j = job_with (RAIDSIM_RW_RANDREAD, 8192);
  struct raidsim_worker w;
  struct raidsim_hostreq r;
  unsigned char seen[1000] = { 0 };
  unsigned i, distinct = 0;

  j.norandommap = true;
  raidsim_worker_init (&w, &j, 8192, 1000, 1000, 3, 0, 0);
  for (i = 0; i < 1000; ++i) {
    uint64_t b;

    ck_assert (raidsim_worker_next (&w, 0, &r));
    ck_assert_uint_eq ((r.offset - 8192) % 8192, 0);
    b = (r.offset - 8192) / 8192;
    ck_assert_uint_lt (b, 1000);
    distinct += !seen[b];
    seen[b] = 1;
  }
  /* Five standard deviations either side. */
  ck_assert_msg (distinct > 582 && distinct < 682,
                 "%u distinct blocks in 1000 draws", distinct);
  /* size_ios counts I/Os, not distinct blocks: 1000 done, so stop. */
  ck_assert (!raidsim_worker_next (&w, 0, &r));

  /* A size of 10.5 blocks: 11 I/Os, every one inside the whole blocks. */
  raidsim_worker_init (&w, &j, 8192, 10, 11, 3, 0, 0);
  for (i = 0; i < 11; ++i) {
    ck_assert (raidsim_worker_next (&w, 0, &r));
    ck_assert_uint_lt (r.offset, 8192 + 10 * 8192);
  }
  ck_assert (!raidsim_worker_next (&w, 0, &r));
}
END_TEST

START_TEST (workload_limits_and_mix)
{
  struct raidsim_job j = job_with (RAIDSIM_RW_RANDMIXED, 4096);
  struct raidsim_worker w;
  struct raidsim_hostreq r;
  unsigned i, reads = 0;

  j.rwmixread = 70;
  j.number_ios = 10000;
  raidsim_worker_init (&w, &j, 0, 1 << 20, 1 << 20, 1, 0, 0);
  for (i = 0; i < 10000; ++i) {
    ck_assert (raidsim_worker_next (&w, 0, &r));
    reads += r.dir == RAIDSIM_READ;
  }
  ck_assert (!raidsim_worker_next (&w, 0, &r));
  /* 7000 expected; 5 sigma is 229. */
  ck_assert_msg (reads > 6770 && reads < 7230, "%u reads", reads);

  /* runtime: nothing is issued at or after ramp_time + runtime. */
  j = job_with (RAIDSIM_RW_RANDREAD, 4096);
  j.ramp_time = 100;
  j.runtime = 1000;
  raidsim_worker_init (&w, &j, 0, 1 << 20, 1 << 20, 1, 0, 0);
  ck_assert (raidsim_worker_next (&w, 1099, &r));
  ck_assert (!raidsim_worker_next (&w, 1100, &r));
}
END_TEST

static Suite *
models_suite (void)
{
  Suite *s = suite_create ("sim-models");
  TCase *tc = tcase_create ("device");

  tcase_add_test (tc, fixed_by_hand);
  tcase_add_test (tc, fixed_closed_loop_by_hand);
  tcase_add_test (tc, fixed_write_latency);
  tcase_add_test (tc, unknown_model);
  suite_add_tcase (s, tc);
  tc = tcase_create ("controller");
  tcase_add_test (tc, ctl_overhead_and_slots);
  tcase_add_test (tc, ctl_coalescing);
  tcase_add_test (tc, ctl_coalescing_per_member);
  suite_add_tcase (s, tc);
  tc = tcase_create ("link");
  tcase_add_test (tc, link_transfer_times);
  tcase_add_test (tc, link_shared_uplink_caps);
  suite_add_tcase (s, tc);
  tc = tcase_create ("array");
  tcase_add_test (tc, array_raid0_split_matches_geometry);
  tcase_add_test (tc, array_merge_pieces);
  tcase_add_test (tc, array_raid1_writes_every_copy);
  tcase_add_test (tc, array_read_policies);
  tcase_add_test (tc, array_read_all_copies);
  tcase_add_test (tc, array_single_and_bounds);
  suite_add_tcase (s, tc);
  tc = tcase_create ("workload");
  tcase_add_test (tc, workload_sequential_wraps_and_stops);
  tcase_add_test (tc, workload_random_visits_each_block_once);
  tcase_add_test (tc, workload_norandommap_draws_afresh);
  tcase_add_test (tc, workload_limits_and_mix);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (models_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
