/* raidsim: the discrete-event core of the simulator.
 *
 * Simulated time is an integer count of nanoseconds from the start of
 * the run.  Integers, not doubles, so that adding a service time is exact
 * and two runs on different machines agree to the nanosecond.
 *
 * An event is a small struct embedded in whatever it belongs to (a
 * request, a model's wake-up timer), so scheduling never allocates: the
 * engine's heap is sized once, for the number of events that can be
 * pending at the same time, and memory stays constant however many I/Os
 * a run simulates.  Events fire in order of (time, sequence number); the
 * sequence number is taken when an event is scheduled, so events due at
 * the same nanosecond fire in the order they were scheduled and a run is
 * deterministic.
 *
 * The engine knows nothing of disks or RAID.  Models of devices, links
 * and controllers never see it either: see device.h for how a model is
 * driven by whoever owns the clock.
 */
#ifndef RAIDSIM_ENGINE_H
#define RAIDSIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t raidsim_ns;

/* "No time": a model with nothing to do returns this as its next time. */
#define RAIDSIM_NEVER UINT64_MAX

#define RAIDSIM_NS_PER_US UINT64_C (1000)
#define RAIDSIM_NS_PER_MS UINT64_C (1000000)
#define RAIDSIM_NS_PER_S  UINT64_C (1000000000)

struct raidsim_engine;
struct raidsim_event;

typedef void (*raidsim_event_fn) (struct raidsim_engine *e,
                                  struct raidsim_event *ev);

/* Embed one in the owner and recover the owner in fire () with
 * container_of.  Initialise with raidsim_event_init before first use.
 */
struct raidsim_event {
  raidsim_ns time;              /* when it fires (valid while scheduled) */
  uint32_t slot;                /* heap position + 1; 0: not scheduled */
  raidsim_event_fn fire;
};

#ifndef container_of
#define container_of(ptr, type, member) \
  ((type *) ((char *) (ptr) - offsetof (type, member)))
#endif

static inline void
raidsim_event_init (struct raidsim_event *ev, raidsim_event_fn fire)
{
  ev->time = RAIDSIM_NEVER;
  ev->slot = 0;
  ev->fire = fire;
}

static inline bool
raidsim_event_scheduled (const struct raidsim_event *ev)
{
  return ev->slot != 0;
}

/* An engine able to hold up to capacity scheduled events at once.
 * Returns NULL on allocation failure.
 */
extern struct raidsim_engine *raidsim_engine_new (size_t capacity);
extern void raidsim_engine_free (struct raidsim_engine *e);

/* The current simulated time: the time of the event being fired, or of
 * the last one fired.
 */
extern raidsim_ns raidsim_engine_now (const struct raidsim_engine *e);

/* Schedule ev at time t, which must not be in the past.  An event that
 * is already scheduled is moved to t and takes a new sequence number, as
 * if it had been cancelled and scheduled again.  Returns 0, or -1 if the
 * heap is full or t < now (both are bugs in the caller).
 */
extern int raidsim_engine_schedule (struct raidsim_engine *e,
                                    struct raidsim_event *ev, raidsim_ns t);
extern void raidsim_engine_cancel (struct raidsim_engine *e,
                                   struct raidsim_event *ev);

/* Fire the earliest event.  Returns false if none is scheduled. */
extern bool raidsim_engine_step (struct raidsim_engine *e);

/* Fire events until none is left. */
extern void raidsim_engine_run (struct raidsim_engine *e);

extern size_t raidsim_engine_pending (const struct raidsim_engine *e);
/* Events fired so far, for the speed figures. */
extern uint64_t raidsim_engine_fired (const struct raidsim_engine *e);

#endif /* RAIDSIM_ENGINE_H */
