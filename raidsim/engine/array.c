/* raidsim: the RAID layer (see array.h).  Levels 0, 1 and 10 come from
 * the shared geometry through raid_geom_foreach; the read policies are
 * the nbdkit raid plugin's, with its names and tie-breaks, so that the
 * member I/O simulated is the member I/O the plugin issues.
 *
 * Read policy, per piece: raid_read_choose (raidsim/core/readpolicy.c),
 * the very function the plugin calls, over a struct raid_read_state that
 * this layer keeps as the plugin keeps its own: a command counts as
 * pending from when it is sent until raidsim_array_cmd_done, and a
 * member's head moves when a command is sent.  The candidates are the
 * copies that can be read (unreadable, below): not on a failed member,
 * not on a member being rebuilt past the rebuild's position, and during
 * a resync, past its position, only the first live copy.  "all" is the
 * simulator's own: every readable copy is read.  Writes go to every
 * copy that is not on a failed member.
 *
 * With merge (the controller's merge_pieces), the pieces of a request
 * that are contiguous on a member go to it as one command, grouped by
 * raid_geom_runs as the plugin groups them.  The plugin chooses a copy
 * for every piece of a request before it issues any, so here too every
 * piece is chosen first and only the runs are counted as pending.
 */

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>

#include "raidsim/array.h"
#include "raidsim/error.h"

struct raidsim_array {
  int level;
  struct raid_geom *geom;       /* NULL for a single drive */
  uint64_t size;
  unsigned nmembers;
  raidsim_read_policy policy;
  bool merge;
  struct raid_seg *seg;         /* merge: the request's segments */
  struct raid_run *runs;
  size_t *next;
  size_t nseg, cap;
  struct raid_read_state reads;  /* the copy choice's state */
  uint32_t failed, rebuild;     /* members (see array.h) */
  bool resync;
  uint64_t sync_pos;            /* raidsim_array_sync_progress */
};

const char *
raidsim_read_policy_name (raidsim_read_policy p)
{
  return p == RAIDSIM_POLICY_ALL ? RAIDSIM_POLICY_ALL_NAME
    : raid_read_policy_name (p);
}

struct raidsim_array *
raidsim_array_new (const struct raidsim_array_params *p)
{
  struct raidsim_array *a;

  a = calloc (1, sizeof *a);
  if (a == NULL) {
    raidsim_set_error ("array: out of memory");
    return NULL;
  }
  a->level = p->level;
  a->nmembers = p->nmembers;
  a->policy = p->policy;
  a->merge = p->merge;
  a->failed = p->failed;
  a->rebuild = p->rebuild;
  a->resync = p->resync;
  raid_read_state_init (&a->reads);

  if (p->level == RAIDSIM_LEVEL_SINGLE) {
    if (p->nmembers != 1) {
      raidsim_set_error ("members: a single drive has 1 member, not %u",
                         p->nmembers);
      free (a);
      return NULL;
    }
    a->size = p->member_size[0];
    return a;
  }

  {
    struct raid_geom_params gp = {
      .level = p->level,
      .chunk = p->chunk,
      .copies = p->copies,
      .data_offset = 0,
      .nmembers = p->nmembers,
      .member_size = p->member_size,
    };

    a->geom = raid_geom_new (&gp);
    if (a->geom == NULL) {
      raidsim_set_error ("%s", raid_geom_error ());
      free (a);
      return NULL;
    }
    a->size = raid_geom_size (a->geom);
  }
  return a;
}

void
raidsim_array_free (struct raidsim_array *a)
{
  if (a) {
    raid_geom_free (a->geom);
    free (a->seg);
    free (a->runs);
    free (a->next);
    free (a);
  }
}

uint64_t
raidsim_array_size (const struct raidsim_array *a)
{
  return a->size;
}

unsigned
raidsim_array_nmembers (const struct raidsim_array *a)
{
  return a->nmembers;
}

uint64_t
raidsim_array_max_cmds (const struct raidsim_array *a, uint64_t len)
{
  uint64_t chunk, pieces;

  if (a->geom == NULL)
    return 1;
  if (raid_geom_level (a->geom) == RAID_LEVEL_1)
    return raid_geom_copies (a->geom);
  /* A range of len bytes touches at most ceil (len / chunk) + 1 chunks
   * when it does not start on a chunk boundary.
   */
  chunk = raid_geom_chunk (a->geom);
  pieces = (len + chunk - 1) / chunk + 1;
  return pieces * raid_geom_copies (a->geom);
}

static bool
is_failed (const struct raidsim_array *a, unsigned member)
{
  return a->failed & (UINT32_C (1) << member);
}

/* The copies of p that a read must not use, as raid_read_choose's skip
 * bits (bit k: copy k): those on failed members, those on members being
 * rebuilt that the rebuild has not reached yet, and during a resync, for
 * a piece not yet in sync, all but the first live copy (md's
 * choose_first).  0 for an array with none of these, so that such an
 * array chooses exactly as before.
 */
static uint32_t
unreadable (const struct raidsim_array *a, const struct raid_piece *p)
{
  bool first_only = a->resync && p->offset + p->length > a->sync_pos;
  bool have_live = false;
  uint32_t skip = 0;
  unsigned k;

  if (a->failed == 0 && a->rebuild == 0 && !a->resync)
    return 0;
  for (k = 0; k < p->ncopies; ++k) {
    const struct raid_copy *c = &p->copy[k];
    uint32_t bit = UINT32_C (1) << c->member;

    if ((a->failed & bit) ||
        ((a->rebuild & bit) && c->offset + p->length > a->sync_pos) ||
        (first_only && have_live))
      skip |= UINT32_C (1) << k;
    else
      have_live = true;
  }
  return skip;
}

/* The copy a read of p uses, or -1 if none can be read (the array
 * file's check makes sure one always can).
 */
static int
choose_copy (struct raidsim_array *a, const struct raid_piece *p)
{
  uint32_t skip;
  unsigned k;

  /* RAID 0 and single copies: nothing to choose; "all" reads every copy
   * (split_piece), but a merged read takes the first it can.
   */
  skip = unreadable (a, p);
  if (p->ncopies == 1)
    return skip ? -1 : 0;
  if (a->policy == RAIDSIM_POLICY_ALL) {
    for (k = 0; k < p->ncopies; ++k)
      if (!(skip & (UINT32_C (1) << k)))
        return k;
    return -1;
  }
  return raid_read_choose (a->policy, &a->reads, p->copy, p->ncopies, skip);
}

static int
no_copy (const struct raid_piece *p)
{
  raidsim_set_error ("internal error: array bytes %" PRIu64 "+%" PRIu64
                     " have no copy that can be read", p->offset, p->length);
  return -1;
}

struct split_ctx {
  struct raidsim_array *a;
  enum raidsim_dir dir;
  raidsim_member_fn fn;
  void *opaque;
};

static int
send (struct split_ctx *ctx, unsigned member, uint64_t offset, uint64_t len)
{
  struct raidsim_member_cmd cmd = { member, offset, len };

  raid_load_issue (&ctx->a->reads.member[member], true, offset, len);
  return ctx->fn (&cmd, ctx->opaque);
}

static int
split_piece (const struct raid_piece *p, void *opaque)
{
  struct split_ctx *ctx = opaque;
  uint32_t skip = 0;
  unsigned k;
  int r;

  if (ctx->dir == RAIDSIM_READ && ctx->a->policy != RAIDSIM_POLICY_ALL) {
    r = choose_copy (ctx->a, p);
    if (r < 0)
      return no_copy (p);
    return send (ctx, p->copy[r].member, p->copy[r].offset, p->length);
  }
  if (ctx->dir == RAIDSIM_READ)
    skip = unreadable (ctx->a, p);
  for (k = 0; k < p->ncopies; ++k) {
    if ((skip & (UINT32_C (1) << k)) || is_failed (ctx->a, p->copy[k].member))
      continue;
    r = send (ctx, p->copy[k].member, p->copy[k].offset, p->length);
    if (r != 0)
      return r;
  }
  return 0;
}

/* merge: the request's segments (a piece on the copy it uses), then
 * one command per run.  The buffers live in the array and only grow, so
 * that a simulation does not allocate per request.
 */
static int
add_seg (struct raidsim_array *a, const struct raid_piece *p, unsigned k)
{
  if (a->nseg == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    struct raid_seg *s = realloc (a->seg, cap * sizeof *s);
    struct raid_run *r = s ? realloc (a->runs, cap * sizeof *r) : NULL;
    size_t *n = r ? realloc (a->next, cap * sizeof *n) : NULL;

    if (s) a->seg = s;
    if (r) a->runs = r;
    if (n == NULL) {
      raidsim_set_error ("array: out of memory");
      return -1;
    }
    a->next = n;
    a->cap = cap;
  }
  a->seg[a->nseg++] = (struct raid_seg) {
    .offset = p->offset, .length = p->length,
    .member = p->copy[k].member, .member_offset = p->copy[k].offset,
  };
  return 0;
}

static int
merge_piece (const struct raid_piece *p, void *opaque)
{
  struct split_ctx *ctx = opaque;
  unsigned k;
  int r;

  if (ctx->dir == RAIDSIM_READ) {
    r = choose_copy (ctx->a, p);
    return r < 0 ? no_copy (p) : add_seg (ctx->a, p, r);
  }
  for (k = 0; k < p->ncopies; ++k)
    if (!is_failed (ctx->a, p->copy[k].member) && add_seg (ctx->a, p, k) == -1)
      return -1;
  return 0;
}

static int
split_merged (struct raidsim_array *a, struct split_ctx *ctx,
              uint64_t offset, uint64_t len)
{
  size_t nruns, i;
  int r;

  a->nseg = 0;
  r = raid_geom_foreach (a->geom, offset, len, merge_piece, ctx);
  if (r != 0)
    return -1;                  /* range checked by the caller; or an
                                 * error set by merge_piece */
  nruns = raid_geom_runs (a->seg, a->nseg, RAID_RUN_MAX_SEGS, a->runs,
                          a->next);
  for (i = 0; i < nruns; ++i) {
    r = send (ctx, a->runs[i].member, a->runs[i].offset, a->runs[i].length);
    if (r != 0)
      return r;
  }
  return 0;
}

int
raidsim_array_split (struct raidsim_array *a, enum raidsim_dir dir,
                     uint64_t offset, uint64_t len,
                     raidsim_member_fn fn, void *opaque)
{
  struct split_ctx ctx = { a, dir, fn, opaque };

  if (len == 0 || offset >= a->size || len > a->size - offset) {
    raidsim_set_error ("array: range %" PRIu64 "+%" PRIu64
                       " is outside the array (%" PRIu64 " bytes)",
                       offset, len, a->size);
    return -1;
  }
  if (a->geom == NULL)
    return send (&ctx, 0, offset, len);
  if (a->merge)
    return split_merged (a, &ctx, offset, len);
  /* The range is checked above, so a non-zero value is split_piece's,
   * with its own message.
   */
  return raid_geom_foreach (a->geom, offset, len, split_piece, &ctx);
}

void
raidsim_array_cmd_sent (struct raidsim_array *a,
                        const struct raidsim_member_cmd *cmd)
{
  raid_load_issue (&a->reads.member[cmd->member], false, cmd->offset,
                   cmd->len);
}

void
raidsim_array_set_state (struct raidsim_array *a, uint32_t failed,
                         uint32_t rebuild, bool resync)
{
  a->failed = failed;
  a->rebuild = rebuild;
  a->resync = resync;
}

void
raidsim_array_sync_progress (struct raidsim_array *a, uint64_t pos)
{
  a->sync_pos = pos;
}

const struct raid_geom *
raidsim_array_geom (const struct raidsim_array *a)
{
  return a->geom;
}

void
raidsim_array_cmd_done (struct raidsim_array *a,
                        const struct raidsim_member_cmd *cmd)
{
  raid_load_done (&a->reads.member[cmd->member]);
}

/* A flush goes to every member that is not failed, members being
 * rebuilt included: md sends an empty REQ_PREFLUSH bio to each rdev
 * with a raid_disk that is not Faulty (md.c, submit_flushes), whatever
 * the level (raid0, raid1 and raid10 all hand a flush to
 * md_flush_request).  It does not count as pending for the read
 * policies: it moves no head and md's nr_pending of a flush is dropped
 * before the read balance could see it.
 */
int
raidsim_array_flush (struct raidsim_array *a, raidsim_member_fn fn,
                     void *opaque)
{
  unsigned i;
  int r;

  for (i = 0; i < a->nmembers; ++i) {
    struct raidsim_member_cmd mc = { i, 0, 0 };

    if (is_failed (a, i))
      continue;
    if ((r = fn (&mc, opaque)) != 0)
      return r;
  }
  return 0;
}

/* ---- discards (trims) ----
 *
 * md's rules, per level (drivers/md, read for these facts):
 *
 * - raid0 (raid0_handle_discard): a discard is first split at the end
 *   of its zone; within a zone, every member the discard's stripes touch
 *   gets one discard, from the first to the last byte of its own chunks
 *   in range, and a member with nothing in range gets none.
 * - raid1: a discard is written like data, to every mirror that has
 *   not failed, in pieces no larger than md's 64 MiB barrier units
 *   (align_to_barrier_unit_end).
 * - raid10 (raid10_handle_discard): when the members are a multiple of
 *   the copies and the discard covers at least two stripes (a stripe:
 *   members / copies chunks), its part from the first stripe boundary
 *   to the last goes to each member as one range; what lies before and
 *   after, and any other discard, goes as a write does, chunk piece by
 *   chunk piece to every copy.
 * - a single drive: the range as it is.
 *
 * A member's own limit on a discard's size (max_discard_sectors, where
 * the block layer would split it again) is not modelled: one range is
 * one command.  Discard commands count as pending for the read policies
 * as writes do (md holds nr_pending on the rdev for them too).
 */

/* The member ranges of one discard, before they are sent. */
struct discard {
  struct raidsim_array *a;
  raidsim_member_fn fn;
  void *opaque;
  bool open[RAID_MAX_MEMBERS];
  uint64_t start[RAID_MAX_MEMBERS], end[RAID_MAX_MEMBERS];
};

static int
discard_send (struct discard *d, unsigned m)
{
  struct raidsim_member_cmd cmd = { m, d->start[m], d->end[m] - d->start[m] };

  d->open[m] = false;
  raid_load_issue (&d->a->reads.member[m], false, cmd.offset, cmd.len);
  return d->fn (&cmd, d->opaque);
}

/* Send every member's open range, in member order. */
static int
discard_close (struct discard *d)
{
  unsigned m;
  int r;

  for (m = 0; m < d->a->nmembers; ++m)
    if (d->open[m] && (r = discard_send (d, m)) != 0)
      return r;
  return 0;
}

/* A piece of a discard whose copies each join their member's range. */
static int
discard_grow (const struct raid_piece *p, void *opaque)
{
  struct discard *d = opaque;
  unsigned k;
  int r;

  for (k = 0; k < p->ncopies; ++k) {
    unsigned m = p->copy[k].member;

    if (is_failed (d->a, m))
      continue;
    if (d->open[m] && d->end[m] == p->copy[k].offset) {
      d->end[m] += p->length;
      continue;
    }
    if (d->open[m] && (r = discard_send (d, m)) != 0)
      return r;
    d->open[m] = true;
    d->start[m] = p->copy[k].offset;
    d->end[m] = p->copy[k].offset + p->length;
  }
  return 0;
}

/* A piece sent as a write sends it: every live copy, one command each. */
static int
discard_piece (const struct raid_piece *p, void *opaque)
{
  struct discard *d = opaque;
  int r;

  if ((r = discard_grow (p, d)) != 0)
    return r;
  return discard_close (d);
}

/* The array offsets where RAID 0 zones end, as md's create_strip_zones
 * lays them out (geometry.c): ascending, the last the array's size.
 */
static unsigned
raid0_zone_ends (const struct raidsim_array *a, uint64_t *ends)
{
  uint64_t prev = 0, pos = 0;
  unsigned n = 0;

  for (;;) {
    uint64_t next = UINT64_MAX;
    unsigned i, devs = 0;

    for (i = 0; i < a->nmembers; ++i) {
      uint64_t u = raid_geom_member_used (a->geom, i);

      if (u > prev) {
        devs++;
        if (u < next)
          next = u;
      }
    }
    if (devs == 0)
      return n;
    pos += (next - prev) * devs;
    ends[n++] = pos;
    prev = next;
  }
}

int
raidsim_array_discard (struct raidsim_array *a, uint64_t offset,
                       uint64_t len, raidsim_member_fn fn, void *opaque)
{
  struct discard d = { .a = a, .fn = fn, .opaque = opaque };
  int r;

  if (len == 0 || offset >= a->size || len > a->size - offset) {
    raidsim_set_error ("array: range %" PRIu64 "+%" PRIu64
                       " is outside the array (%" PRIu64 " bytes)",
                       offset, len, a->size);
    return -1;
  }
  if (a->geom == NULL) {
    d.open[0] = true;
    d.start[0] = offset;
    d.end[0] = offset + len;
    return discard_send (&d, 0);
  }
  switch (raid_geom_level (a->geom)) {
  case RAID_LEVEL_0: {
    uint64_t ends[RAID_MAX_MEMBERS];
    unsigned nz = raid0_zone_ends (a, ends), z;

    for (z = 0; z < nz && len > 0; ++z) {
      uint64_t n;

      if (offset >= ends[z])
        continue;
      n = ends[z] - offset < len ? ends[z] - offset : len;
      if ((r = raid_geom_foreach (a->geom, offset, n, discard_grow, &d)) != 0 ||
          (r = discard_close (&d)) != 0)
        return r;
      offset += n;
      len -= n;
    }
    return 0;
  }
  case RAID_LEVEL_1: {
    const uint64_t unit = UINT64_C (64) << 20;

    while (len > 0) {
      uint64_t n = unit - offset % unit;

      if (n > len)
        n = len;
      if ((r = raid_geom_foreach (a->geom, offset, n, discard_piece, &d)) != 0)
        return r;
      offset += n;
      len -= n;
    }
    return 0;
  }
  default: {
    unsigned copies = raid_geom_copies (a->geom);
    uint64_t stripe = raid_geom_chunk (a->geom) * (a->nmembers / copies);
    uint64_t head, tail;

    if (a->nmembers % copies != 0 || len < 2 * stripe)
      return raid_geom_foreach (a->geom, offset, len, discard_piece, &d);
    head = (stripe - offset % stripe) % stripe;
    tail = (offset + len) % stripe;
    if (head && (r = raid_geom_foreach (a->geom, offset, head,
                                        discard_piece, &d)) != 0)
      return r;
    if ((r = raid_geom_foreach (a->geom, offset + head, len - head - tail,
                                discard_grow, &d)) != 0 ||
        (r = discard_close (&d)) != 0)
      return r;
    if (tail)
      return raid_geom_foreach (a->geom, offset + len - tail, tail,
                                discard_piece, &d);
    return 0;
  }
  }
}
