/* raidsim: the discrete-event core.  A binary min-heap of pending
 * events keyed by (time, sequence number), with each event remembering
 * its own heap position so that it can be moved or cancelled in
 * O(log n) without leaving stale entries behind.
 *
 * The key is copied into the heap array beside the event pointer: the
 * comparisons during a sift then read one contiguous array instead of
 * chasing a pointer per level, which is where a heap spends its time.
 */

#include <stdint.h>
#include <stdlib.h>

#include "raidsim/engine.h"

struct entry {
  raidsim_ns time;
  uint64_t seq;
  struct raidsim_event *ev;
};

struct raidsim_engine {
  raidsim_ns now;
  uint64_t next_seq;
  uint64_t fired;
  size_t n, capacity;
  struct entry *heap;
  /* The event being fired, still at the root of the heap (see step). */
  struct raidsim_event *firing;
};

struct raidsim_engine *
raidsim_engine_new (size_t capacity)
{
  struct raidsim_engine *e;

  if (capacity == 0 || capacity >= UINT32_MAX)
    return NULL;
  e = calloc (1, sizeof *e);
  if (e == NULL)
    return NULL;
  e->heap = calloc (capacity, sizeof *e->heap);
  if (e->heap == NULL) {
    free (e);
    return NULL;
  }
  e->capacity = capacity;
  return e;
}

void
raidsim_engine_free (struct raidsim_engine *e)
{
  if (e) {
    free (e->heap);
    free (e);
  }
}

raidsim_ns
raidsim_engine_now (const struct raidsim_engine *e)
{
  return e->now;
}

size_t
raidsim_engine_pending (const struct raidsim_engine *e)
{
  /* The event being fired keeps its entry until fire () returns, but it
   * is not pending.
   */
  return e->n - (e->firing != NULL);
}

uint64_t
raidsim_engine_fired (const struct raidsim_engine *e)
{
  return e->fired;
}

static inline bool
before (const struct entry *a, const struct entry *b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static inline void
place (struct raidsim_engine *e, size_t i, struct entry x)
{
  e->heap[i] = x;
  x.ev->slot = i + 1;
}

static void
sift_up (struct raidsim_engine *e, size_t i)
{
  struct entry x = e->heap[i];

  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before (&x, &e->heap[parent]))
      break;
    place (e, i, e->heap[parent]);
    i = parent;
  }
  place (e, i, x);
}

static void
sift_down (struct raidsim_engine *e, size_t i)
{
  struct entry x = e->heap[i];

  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= e->n)
      break;
    if (child + 1 < e->n && before (&e->heap[child + 1], &e->heap[child]))
      child++;
    if (!before (&e->heap[child], &x))
      break;
    place (e, i, e->heap[child]);
    i = child;
  }
  place (e, i, x);
}

/* Take entry i out of the heap, filling the hole with the last entry. */
static void
remove_at (struct raidsim_engine *e, size_t i)
{
  struct entry last;

  e->heap[i].ev->slot = 0;
  e->n--;
  if (i == e->n)
    return;
  last = e->heap[e->n];
  e->heap[i] = last;
  /* The moved entry may belong above or below its new position. */
  if (i > 0 && before (&last, &e->heap[(i - 1) / 2]))
    sift_up (e, i);
  else
    sift_down (e, i);
}

int
raidsim_engine_schedule (struct raidsim_engine *e, struct raidsim_event *ev,
                         raidsim_ns t)
{
  struct entry x;

  if (t < e->now)
    return -1;
  ev->time = t;
  x.time = t;
  x.seq = e->next_seq++;
  x.ev = ev;
  /* Moving a scheduled event (a model's wake-up, most often) changes
   * its entry in place and sifts it one way, rather than removing it
   * and inserting it again.
   */
  if (ev->slot != 0) {
    size_t i = ev->slot - 1;

    e->heap[i] = x;
    if (i > 0 && before (&x, &e->heap[(i - 1) / 2]))
      sift_up (e, i);
    else
      sift_down (e, i);
    return 0;
  }
  /* The event being fired schedules itself again, as most do: its new
   * entry takes the root's place with one sift down, instead of one
   * to remove the root and one to insert the entry.
   */
  if (ev == e->firing) {
    e->firing = NULL;
    e->heap[0] = x;
    sift_down (e, 0);
    return 0;
  }
  if (e->n >= e->capacity)
    return -1;
  e->heap[e->n] = x;
  ev->slot = ++e->n;
  sift_up (e, e->n - 1);
  return 0;
}

void
raidsim_engine_cancel (struct raidsim_engine *e, struct raidsim_event *ev)
{
  if (ev->slot != 0)
    remove_at (e, ev->slot - 1);
}

bool
raidsim_engine_step (struct raidsim_engine *e)
{
  struct raidsim_event *ev;

  if (e->n == 0)
    return false;
  ev = e->heap[0].ev;
  e->now = e->heap[0].time;
  e->fired++;
  /* The event is unscheduled before it fires, so fire () may schedule
   * it again, which is how periodic timers and multi-stage requests
   * reuse one event.  Its entry stays at the root meanwhile: nothing
   * scheduled during fire () can go above it (its time is now, its
   * sequence number older than any new one), so if fire () schedules
   * ev again the new entry simply replaces it (see schedule), and
   * otherwise it is removed afterwards.
   */
  ev->slot = 0;
  e->firing = ev;
  ev->fire (e, ev);
  if (e->firing == ev) {
    e->firing = NULL;
    ev->slot = 1;               /* so that remove_at clears it */
    remove_at (e, 0);
  }
  return true;
}

void
raidsim_engine_run (struct raidsim_engine *e)
{
  while (raidsim_engine_step (e))
    ;
}
