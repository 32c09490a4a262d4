/* raidsim: the `fixed` device model.  Every request takes the same
 * service time, and the device serves up to `parallelism` requests at
 * once; more wait in arrival order.  Transfer size does not matter.
 *
 * It is not a model of any real drive.  It exists because its results
 * have closed forms: with QD requests kept in flight, IOPS is
 * min (QD, parallelism) / latency, exactly, which is what the tests of
 * the engine, the RAID layer, the links and the controller stand on.
 *
 * Requests are served first come, first served: an arriving request
 * takes the server that becomes idle first and starts when both it and
 * the server are there.  The servers' idle times are kept in a min-heap
 * (O(log P) per request), and requests in flight in a list sorted by
 * completion time; with a single latency, completions come in arrival
 * order and every insert is at the tail.
 *
 * A flush (device.h) is served like any request, for flush_latency: the
 * device has no volatile cache (a write is on the media when it
 * completes), so a flush has nothing to write back and costs only what
 * the parameter says, the command's own time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "raidsim/device.h"
#include "raidsim/error.h"

struct fixed_params {
  uint64_t latency;             /* ns, reads */
  uint64_t write_latency;       /* ns, 0: same as latency */
  uint64_t parallelism;
  uint64_t flush_latency;       /* ns */
};

#define MAX_PARALLELISM 65536

static const struct raidsim_param fixed_params[] = {
  { .name = "latency", .type = RAIDSIM_PT_TIME,
    .offset = offsetof (struct fixed_params, latency),
    .def = "100us", .min = 1, .max = 10 * RAIDSIM_NS_PER_S,
    .help = "Service time of every read (and of every write unless "
    "write_latency is set), from the moment a request starts being "
    "served until it completes." },
  { .name = "write_latency", .type = RAIDSIM_PT_TIME,
    .offset = offsetof (struct fixed_params, write_latency),
    .def = "0", .min = 0, .max = 10 * RAIDSIM_NS_PER_S,
    .help = "Service time of every write; 0 means the same as latency." },
  { .name = "parallelism", .type = RAIDSIM_PT_UINT,
    .offset = offsetof (struct fixed_params, parallelism),
    .def = "1", .min = 1, .max = MAX_PARALLELISM, .unit = "requests",
    .help = "Requests the device serves at the same time (internal "
    "channels, dies or heads); more wait in arrival order." },
  { .name = "flush_latency", .type = RAIDSIM_PT_TIME,
    .offset = offsetof (struct fixed_params, flush_latency),
    .def = "0", .min = 0, .max = 10 * RAIDSIM_NS_PER_S,
    .help = "Service time of a flush.  The device has no volatile cache, "
    "so this is the command's whole cost; 0: a flush completes as soon "
    "as a server takes it." },
  RAIDSIM_PARAM_END,
};

struct fixed {
  struct fixed_params p;
  struct raidsim_ioq inflight;  /* sorted by io->done */
  raidsim_ns free_at[];         /* min-heap: when each server is idle */
};

static void *
fixed_create (const void *params, uint64_t capacity)
{
  const struct fixed_params *p = params;
  struct fixed *d;

  d = calloc (1, sizeof *d + p->parallelism * sizeof d->free_at[0]);
  if (d == NULL) {
    raidsim_set_error ("fixed: out of memory");
    return NULL;
  }
  d->p = *p;
  if (d->p.write_latency == 0)
    d->p.write_latency = d->p.latency;
  raidsim_ioq_init (&d->inflight);
  return d;
}

static void
fixed_destroy (void *dev)
{
  free (dev);
}

/* Insert keeping inflight sorted by completion time, ties in arrival
 * order.  With one latency every insert lands at the tail, so this is
 * O(1) in the common case.
 */
static void
insert_sorted (struct raidsim_ioq *q, struct raidsim_io *io)
{
  struct raidsim_io **pp;

  if (q->tail == NULL || q->tail->done <= io->done) {
    raidsim_ioq_push (q, io);
    return;
  }
  for (pp = &q->head; *pp && (*pp)->done <= io->done; pp = &(*pp)->next)
    ;
  io->next = *pp;
  *pp = io;
  q->count++;
}

/* Give the earliest-idle server (the heap's root) the new idle time t. */
static void
replace_root (raidsim_ns *heap, size_t n, raidsim_ns t)
{
  size_t i = 0;

  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && heap[c + 1] < heap[c])
      c++;
    if (heap[c] >= t)
      break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = t;
}

static raidsim_ns
fixed_submit (void *dev, struct raidsim_io *io, raidsim_ns now)
{
  struct fixed *d = dev;
  raidsim_ns start, service;

  /* A trim (device.h): the model has no mapping, and a trim is served
   * as a flush is, a command with no data.
   */
  service = io->flush || io->trim ? d->p.flush_latency
    : io->dir == RAIDSIM_WRITE ? d->p.write_latency : d->p.latency;
  start = d->free_at[0] > now ? d->free_at[0] : now;
  replace_root (d->free_at, d->p.parallelism, start + service);
  io->started = start;
  io->done = start + service;
  insert_sorted (&d->inflight, io);
  return io->done;
}

static raidsim_ns
fixed_next (const void *dev)
{
  const struct fixed *d = dev;

  return d->inflight.head ? d->inflight.head->done : RAIDSIM_NEVER;
}

static struct raidsim_io *
fixed_reap (void *dev, raidsim_ns now)
{
  struct fixed *d = dev;

  if (d->inflight.head == NULL || d->inflight.head->done > now)
    return NULL;
  return raidsim_ioq_pop (&d->inflight);
}

const struct raidsim_device_ops raidsim_device_fixed = {
  .version = RAIDSIM_DEVICE_OPS_VERSION,
  .name = "fixed",
  .summary = "constant service time with N-way internal parallelism",
  .params = fixed_params,
  .params_size = sizeof (struct fixed_params),
  .create = fixed_create,
  .destroy = fixed_destroy,
  .submit = fixed_submit,
  .next = fixed_next,
  .reap = fixed_reap,
};
