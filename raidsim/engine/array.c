/* raidsim: the RAID layer (see array.h).  Levels 0, 1 and 10 come from
 * the shared geometry through raid_geom_foreach; the read policies are
 * the nbdkit raid plugin's, with its names and tie-breaks, so that the
 * member I/O simulated is the member I/O the plugin issues.
 *
 * Read policy, per piece (the plugin's choose_copy):
 *
 * 1. Every copy is a candidate (the simulator has no failed members yet).
 * 2. first: the first copy in layout order.
 * 3. round-robin: copies in turn, by one counter for the whole array.
 * 4. least-pending: the copy whose member has the fewest commands in
 *    flight; ties go to the earlier copy.
 * 5. sequential: the copy whose member's last command ended nearest to
 *    where this one starts (exactly there for a stream); ties go to the
 *    earlier copy.  As in the plugin, "last command" means the last one
 *    to finish.
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
  enum raidsim_read_policy policy;
  bool merge;
  struct raid_seg *seg;         /* merge: the request's segments */
  struct raid_run *runs;
  size_t *next;
  size_t nseg, cap;
  uint64_t rr_counter;
  unsigned pending[RAID_MAX_MEMBERS];
  uint64_t head[RAID_MAX_MEMBERS]; /* member offset past the last command */
};

static const char *const policy_names[] = {
  [RAIDSIM_POLICY_ROUND_ROBIN] = "round-robin",
  [RAIDSIM_POLICY_LEAST_PENDING] = "least-pending",
  [RAIDSIM_POLICY_SEQUENTIAL] = "sequential",
  [RAIDSIM_POLICY_FIRST] = "first",
  [RAIDSIM_POLICY_ALL] = "all",
};

const char *
raidsim_read_policy_name (enum raidsim_read_policy p)
{
  return policy_names[p];
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

static unsigned
choose_copy (struct raidsim_array *a, const struct raid_piece *p)
{
  unsigned k, best = 0;

  /* RAID 0 and single copies: nothing to choose.  (Round-robin's counter
   * then stays put, which no one can see: every piece of the array has
   * the same number of copies.)
   */
  if (p->ncopies == 1)
    return 0;
  switch (a->policy) {
  case RAIDSIM_POLICY_FIRST:
  case RAIDSIM_POLICY_ALL:      /* split_piece sends every copy */
    return 0;

  case RAIDSIM_POLICY_ROUND_ROBIN:
    return a->rr_counter++ % p->ncopies;

  case RAIDSIM_POLICY_LEAST_PENDING: {
    unsigned best_pending = UINT_MAX;
    for (k = 0; k < p->ncopies; ++k) {
      unsigned pending = a->pending[p->copy[k].member];
      if (pending < best_pending) {
        best_pending = pending;
        best = k;
      }
    }
    return best;
  }

  case RAIDSIM_POLICY_SEQUENTIAL: {
    uint64_t best_dist = UINT64_MAX;
    for (k = 0; k < p->ncopies; ++k) {
      const struct raid_copy *c = &p->copy[k];
      uint64_t head = a->head[c->member];
      uint64_t dist = head > c->offset ? head - c->offset : c->offset - head;
      if (dist < best_dist) {
        best_dist = dist;
        best = k;
      }
    }
    return best;
  }
  }
  abort ();
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

  ctx->a->pending[member]++;
  return ctx->fn (&cmd, ctx->opaque);
}

static int
split_piece (const struct raid_piece *p, void *opaque)
{
  struct split_ctx *ctx = opaque;
  unsigned k;
  int r;

  if (ctx->dir == RAIDSIM_READ && ctx->a->policy != RAIDSIM_POLICY_ALL) {
    k = choose_copy (ctx->a, p);
    return send (ctx, p->copy[k].member, p->copy[k].offset, p->length);
  }
  for (k = 0; k < p->ncopies; ++k) {
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

  if (ctx->dir == RAIDSIM_READ)
    return add_seg (ctx->a, p, choose_copy (ctx->a, p));
  for (k = 0; k < p->ncopies; ++k)
    if (add_seg (ctx->a, p, k) == -1)
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
    return -1;                  /* range checked by the caller */
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
  int r;

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
  r = raid_geom_foreach (a->geom, offset, len, split_piece, &ctx);
  if (r == -1)
    raidsim_set_error ("%s", raid_geom_error ());
  return r;
}

void
raidsim_array_cmd_done (struct raidsim_array *a,
                        const struct raidsim_member_cmd *cmd)
{
  a->pending[cmd->member]--;
  a->head[cmd->member] = cmd->offset + cmd->len;
}
