/* raidsim: a completion queue for device models whose requests do not
 * finish in the order they arrive (flash dies, a disk's cache hits).
 *
 * A binary min-heap of (completion time, arrival number, io): ties
 * complete in arrival order, so a run is deterministic.  The io keeps
 * its own fields untouched; the heap's array grows by doubling, which
 * happens only while the number of requests in flight reaches a new
 * high, so memory follows the queue depth, never the number of I/Os.
 * Header-only and internal to the models under devices/.
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
  uint64_t seq;
  struct raidsim_io *io;
};

struct doneq {
  struct doneq_entry *e;
  size_t n, cap;
  uint64_t seq;
};

static inline int
doneq_init (struct doneq *q)
{
  q->n = 0;
  q->seq = 0;
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

/* (done, seq) as one 128-bit number compares with a subtract and a
 * borrow: no branch on the keys, which in a heap go either way at
 * random and would be mispredicted half the time.
 */
static inline int
doneq_before (const struct doneq_entry *a, const struct doneq_entry *b)
{
  return (((unsigned __int128) a->done << 64) | a->seq) <
    (((unsigned __int128) b->done << 64) | b->seq);
}

static inline void
doneq_push (struct doneq *q, struct raidsim_io *io, raidsim_ns done)
{
  struct doneq_entry x = { done, q->seq++, io };
  size_t i;

  if (q->n == q->cap) {
    struct doneq_entry *e = realloc (q->e, 2 * q->cap * sizeof q->e[0]);

    /* submit cannot fail by its interface; running out of memory for a
     * few more pointers leaves nothing sensible to do.
     */
    if (e == NULL) {
      fprintf (stderr, "raidsim: out of memory in a device model\n");
      abort ();
    }
    q->e = e;
    q->cap *= 2;
  }
  for (i = q->n++; i > 0; ) {
    size_t parent = (i - 1) / 2;

    if (!doneq_before (&x, &q->e[parent]))
      break;
    q->e[i] = q->e[parent];
    i = parent;
  }
  q->e[i] = x;
}

static inline raidsim_ns
doneq_next (const struct doneq *q)
{
  return q->n ? q->e[0].done : RAIDSIM_NEVER;
}

/* The earliest io if it is done by now, else NULL. */
static inline struct raidsim_io *
doneq_pop (struct doneq *q, raidsim_ns now)
{
  struct raidsim_io *io;
  struct doneq_entry last;
  size_t i = 0;

  if (q->n == 0 || q->e[0].done > now)
    return NULL;
  io = q->e[0].io;
  last = q->e[--q->n];
  for (;;) {
    size_t c = 2 * i + 1;

    if (c >= q->n)
      break;
    /* The smaller child, by addition rather than a branch. */
    if (c + 1 < q->n)
      c += doneq_before (&q->e[c + 1], &q->e[c]);
    if (!doneq_before (&q->e[c], &last))
      break;
    q->e[i] = q->e[c];
    i = c;
  }
  if (q->n)
    q->e[i] = last;
  return io;
}

#endif /* RAIDSIM_DEVICES_DONEQ_H */
