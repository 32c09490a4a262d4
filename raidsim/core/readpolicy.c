/* raidsim: the copy choice (see include/raidsim/readpolicy.h for the
 * policy, numbered as md's read_balance comments number theirs).  The
 * plugin and the simulator both call raid_read_choose; there is no
 * second implementation to keep in step.
 */

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "raidsim/readpolicy.h"
#include "geometry-error.h"

static const char *const names[] = {
#define NAME(id, name, help) [id] = name,
  RAID_READ_POLICIES (NAME)
#undef NAME
};

static const char *const helps[] = {
#define HELP(id, name, help) [id] = help,
  RAID_READ_POLICIES (HELP)
#undef HELP
};

const char *
raid_read_policy_name (enum raid_read_policy p)
{
  return (unsigned) p < RAID_READ_POLICY_COUNT ? names[p] : "?";
}

const char *
raid_read_policy_help (enum raid_read_policy p)
{
  return (unsigned) p < RAID_READ_POLICY_COUNT ? helps[p] : "?";
}

int
raid_parse_read_policy (const char *s, enum raid_read_policy *p)
{
  char list[256];
  size_t len = 0;
  unsigned i;

  for (i = 0; i < RAID_READ_POLICY_COUNT; ++i)
    if (strcmp (s, names[i]) == 0) {
      *p = i;
      return 0;
    }
  list[0] = '\0';
  for (i = 0; i < RAID_READ_POLICY_COUNT && len < sizeof list; ++i)
    len += snprintf (list + len, sizeof list - len, "%s%s",
                     i ? ", " : "", names[i]);
  raid_set_error ("read-policy: '%s' is not one of %s", s, list);
  return -1;
}

void
raid_read_state_init (struct raid_read_state *st)
{
  unsigned i;

  for (i = 0; i < RAID_MAX_MEMBERS; ++i) {
    atomic_init (&st->member[i].pending, 0);
    atomic_init (&st->member[i].head, 0);
  }
  atomic_init (&st->rr, 0);
}

/* Updates of one member's load are serialised by the caller (see
 * readpolicy.h), so a plain load and store will do: no locked
 * read-modify-write on the simulator's hot path.  Readers in
 * raid_read_choose need no lock: any recent count is as good a guess.
 */
void
raid_load_issue (struct raid_member_load *m, bool moves_head,
                 uint64_t offset, uint64_t length)
{
  unsigned n = atomic_load_explicit (&m->pending, memory_order_relaxed);

  atomic_store_explicit (&m->pending, n + 1, memory_order_relaxed);
  if (moves_head)
    atomic_store_explicit (&m->head, offset + length, memory_order_relaxed);
}

void
raid_load_done (struct raid_member_load *m)
{
  unsigned n = atomic_load_explicit (&m->pending, memory_order_relaxed);

  atomic_store_explicit (&m->pending, n - 1, memory_order_relaxed);
}

int
raid_read_choose (enum raid_read_policy policy, struct raid_read_state *st,
                  const struct raid_copy *copy, unsigned ncopies,
                  uint32_t skip)
{
  unsigned k, n = 0, idx[RAID_MAX_MEMBERS];
  int best = -1;

  /* 1. The candidates. */
  for (k = 0; k < ncopies; ++k)
    if (!(skip & (UINT32_C (1) << k)))
      idx[n++] = k;
  /* 2. Nothing to choose. */
  if (n == 0)
    return -1;
  if (n == 1)
    return idx[0];

  /* 3. The policy. */
  switch (policy) {
  case RAID_READ_FIRST:
    return idx[0];

  case RAID_READ_ROUND_ROBIN:
    return idx[atomic_fetch_add_explicit (&st->rr, 1,
                                          memory_order_relaxed) % n];

  case RAID_READ_LEAST_PENDING: {
    unsigned best_pending = UINT_MAX;
    for (k = 0; k < n; ++k) {
      unsigned pending =
        atomic_load_explicit (&st->member[copy[idx[k]].member].pending,
                              memory_order_relaxed);
      if (pending < best_pending) {
        best_pending = pending;
        best = idx[k];
      }
    }
    return best;
  }

  case RAID_READ_SEQUENTIAL: {
    uint64_t best_dist = UINT64_MAX;
    for (k = 0; k < n; ++k) {
      const struct raid_copy *c = &copy[idx[k]];
      uint64_t head = atomic_load_explicit (&st->member[c->member].head,
                                            memory_order_relaxed);
      uint64_t dist = head > c->offset ? head - c->offset : c->offset - head;
      if (dist < best_dist) {
        best_dist = dist;
        best = idx[k];
      }
    }
    return best;
  }

  case RAID_READ_POLICY_COUNT:
    break;
  }
  return -1;
}
