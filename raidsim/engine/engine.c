/* raidsim: the discrete-event core.  Pending events are kept keyed by
 * (time, sequence number), with each event remembering its own position
 * so that it can be moved or cancelled without leaving stale entries
 * behind.  Two layouts, chosen by capacity when the engine is made:
 *
 * - Up to FLAT_MAX events (the simulator's case for arrays of up to six
 *   members: one wake-up per model and the window),
 *   an unordered array.  Scheduling, moving and cancelling write one
 *   entry; firing finds the earliest by a scan whose comparisons compile
 *   to conditional moves.  A heap of a handful of entries spends its
 *   time in branches that go one way or the other at random, and a
 *   mispredicted branch costs more than the whole scan.
 * - Beyond that, a binary min-heap: O(log n) for every operation, where
 *   a scan would grow with the number of events.
 *
 * Either way the earliest (time, sequence) pair is unique, so both fire
 * events in exactly the same order.
 *
 * The key is copied into the array beside the event pointer: the
 * comparisons then read one contiguous array instead of chasing a
 * pointer per entry.
 */

#include <stdint.h>
#include <stdlib.h>

#include "raidsim/engine.h"

/* The largest capacity kept as a flat array.  In the hold model
 * (callgrind, with its branch simulation) a scan of 8 entries costs 40
 * instructions more per event than the heap, and the heap 1.3
 * mispredicted branches more; by 12 to 16 entries the two are even,
 * and beyond, the scan grows faster.
 */
#define FLAT_MAX 8

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
  bool flat;
  struct entry *heap;
  /* The event being fired and the index of its entry, which stays in
   * the array until fire () returns (see step).
   */
  struct raidsim_event *firing;
  size_t firing_at;
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
  e->flat = capacity <= FLAT_MAX;
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

/* Put x at index i.  The firing event's position is the engine's to
 * remember: its own slot says "not scheduled" until it is scheduled
 * again.
 */
static inline void
place (struct raidsim_engine *e, size_t i, struct entry x)
{
  e->heap[i] = x;
  if (x.ev == e->firing)
    e->firing_at = i;
  else
    x.ev->slot = i + 1;
}

/* ---- the flat array ---- */

/* The index of the earliest entry.  (time, seq) as one 128-bit number
 * compares with a compare and a borrow, and the selects become
 * conditional moves: no branch depends on the keys.  The best key is
 * kept as its two halves, which lets the compiler compare once per
 * entry (with the 128-bit value kept whole it compares twice).
 */
static inline size_t
earliest (const struct entry *h, size_t n)
{
  uint64_t bt = h[0].time, bq = h[0].seq;
  size_t at = 0, i;

  for (i = 1; i < n; ++i) {
    uint64_t t = h[i].time, q = h[i].seq;
    unsigned __int128 k = ((unsigned __int128) t << 64) | q;
    unsigned __int128 best = ((unsigned __int128) bt << 64) | bq;
    bool lt = k < best;

    bt = lt ? t : bt;
    bq = lt ? q : bq;
    at = lt ? i : at;
  }
  return at;
}

/* Take entry i out, filling the hole with the last entry. */
static void
flat_remove (struct raidsim_engine *e, size_t i)
{
  e->n--;
  if (i != e->n)
    place (e, i, e->heap[e->n]);
}

/* ---- the heap ---- */

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

/* The entry at i has a new key: move it up or down to where it belongs. */
static void
resift (struct raidsim_engine *e, size_t i)
{
  if (i > 0 && before (&e->heap[i], &e->heap[(i - 1) / 2]))
    sift_up (e, i);
  else
    sift_down (e, i);
}

/* Take entry i out of the heap, filling the hole with the last entry. */
static void
heap_remove (struct raidsim_engine *e, size_t i)
{
  e->n--;
  if (i == e->n)
    return;
  e->heap[i] = e->heap[e->n];
  /* The moved entry may belong above or below its new position. */
  resift (e, i);
}

/* ---- both ---- */

int
raidsim_engine_schedule (struct raidsim_engine *e, struct raidsim_event *ev,
                         raidsim_ns t)
{
  struct entry x;
  size_t i;

  if (t < e->now)
    return -1;
  ev->time = t;
  x.time = t;
  x.seq = e->next_seq++;
  x.ev = ev;
  /* Moving a scheduled event (a model's wake-up, most often) changes
   * its entry in place rather than removing it and adding it again;
   * so does the event being fired when it schedules itself again, as
   * most do (see step).
   */
  if (ev->slot != 0)
    i = ev->slot - 1;
  else if (ev == e->firing) {
    i = e->firing_at;
    e->firing = NULL;
    ev->slot = i + 1;
  }
  else {
    if (e->n >= e->capacity)
      return -1;
    i = e->n++;
    ev->slot = i + 1;
    e->heap[i] = x;
    if (!e->flat)
      sift_up (e, i);
    return 0;
  }
  e->heap[i] = x;
  if (!e->flat)
    resift (e, i);
  return 0;
}

void
raidsim_engine_cancel (struct raidsim_engine *e, struct raidsim_event *ev)
{
  size_t i;

  if (ev->slot == 0)
    return;
  i = ev->slot - 1;
  ev->slot = 0;
  if (e->flat)
    flat_remove (e, i);
  else
    heap_remove (e, i);
}

/* Fire the earliest event (there is one).  Inlined into run, the loop
 * every simulation spends its time in.
 */
static inline __attribute__ ((always_inline)) void
step (struct raidsim_engine *e)
{
  struct raidsim_event *ev;
  size_t i;

  i = e->flat ? earliest (e->heap, e->n) : 0;
  ev = e->heap[i].ev;
  e->now = e->heap[i].time;
  e->fired++;
  /* The event is unscheduled before it fires, so fire () may schedule
   * it again, which is how periodic timers and multi-stage requests
   * reuse one event.  Its entry stays where it is meanwhile, so that if
   * fire () schedules ev again the new key simply replaces it (see
   * schedule), and otherwise it is removed afterwards.  In the heap,
   * nothing scheduled during fire () can go above it at the root: its
   * time is now, its sequence number older than any new one.
   */
  ev->slot = 0;
  e->firing = ev;
  e->firing_at = i;
  ev->fire (e, ev);
  if (e->firing == ev) {
    e->firing = NULL;
    if (e->flat)
      flat_remove (e, e->firing_at);
    else
      heap_remove (e, 0);
  }
}

bool
raidsim_engine_step (struct raidsim_engine *e)
{
  if (e->n == 0)
    return false;
  step (e);
  return true;
}

void
raidsim_engine_run (struct raidsim_engine *e)
{
  while (e->n != 0)
    step (e);
}
