/* raidsim: a completion queue for device models whose requests do not
 * finish in the order they arrive (flash dies, a disk's cache hits).
 *
 * An array of (completion time, io) sorted by time, ties in arrival
 * order, so a run is deterministic.  The live entries are
 * e[lo..hi): the earliest is taken from the front by moving lo, and a
 * new one is inserted from the back.  Requests mostly finish in nearly
 * the order they arrive, so the insertion rarely moves more than an
 * entry or two, and taking the earliest is a load and an increment: a
 * heap would cost a sift with a mispredicted branch at every level.
 * The io keeps its own fields untouched; the array is compacted when
 * it fills up with half of it taken, and grows by doubling otherwise,
 * which happens only while the number of requests in flight reaches a
 * new high, so memory follows the queue depth, never the number of
 * I/Os.  Header-only and internal to the models under devices/.
 */
#ifndef RAIDSIM_DEVICES_DONEQ_H
#define RAIDSIM_DEVICES_DONEQ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "raidsim/engine.h"
#include "raidsim/io.h"

struct doneq_entry {
  raidsim_ns done;
  struct raidsim_io *io;
};

struct doneq {
  struct doneq_entry *e;
  size_t lo, hi, cap;
};

static inline int
doneq_init (struct doneq *q)
{
  q->lo = q->hi = 0;
  q->cap = 64;
  q->e = malloc (q->cap * sizeof q->e[0]);
  return q->e ? 0 : -1;
}

static inline void
doneq_free (struct doneq *q)
{
  free (q->e);
  q->e = NULL;
}

static inline void
doneq_push (struct doneq *q, struct raidsim_io *io, raidsim_ns done)
{
  struct doneq_entry x = { done, io };
  size_t i;

  if (q->hi == q->cap) {
    if (q->lo >= q->cap / 2) {
      /* Half of the array or more has been taken: move the rest down. */
      for (i = q->lo; i < q->hi; ++i)
        q->e[i - q->lo] = q->e[i];
      q->hi -= q->lo;
      q->lo = 0;
    }
    else {
      struct doneq_entry *e = realloc (q->e, 2 * q->cap * sizeof q->e[0]);

      /* submit cannot fail by its interface; running out of memory for
       * a few more pointers leaves nothing sensible to do.
       */
      if (e == NULL) {
        fprintf (stderr, "raidsim: out of memory in a device model\n");
        abort ();
      }
      q->e = e;
      q->cap *= 2;
    }
  }
  /* After every entry due at the same time: those arrived earlier. */
  for (i = q->hi++; i > q->lo && q->e[i - 1].done > done; --i)
    q->e[i] = q->e[i - 1];
  q->e[i] = x;
}

static inline raidsim_ns
doneq_next (const struct doneq *q)
{
  return q->lo < q->hi ? q->e[q->lo].done : RAIDSIM_NEVER;
}

/* The earliest io if it is done by now, else NULL. */
static inline struct raidsim_io *
doneq_pop (struct doneq *q, raidsim_ns now)
{
  struct raidsim_io *io;

  if (q->lo == q->hi || q->e[q->lo].done > now)
    return NULL;
  io = q->e[q->lo++].io;
  /* Empty: start again from the front, which keeps compaction rare. */
  if (q->lo == q->hi)
    q->lo = q->hi = 0;
  return io;
}

#endif /* RAIDSIM_DEVICES_DONEQ_H */
