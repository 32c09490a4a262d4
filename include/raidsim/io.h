/* raidsim: the request that models see.
 *
 * One struct raidsim_io is one command to one member: what the RAID layer
 * sends down after raid_geom_foreach has split a host request.  Models of
 * devices and controllers are given these; they never allocate them and
 * never free them.  Whoever drives the models (the simulator's engine
 * glue, or later the nbdkit plugin) embeds a raidsim_io in its own
 * request struct and finds it again with container_of.
 */
#ifndef RAIDSIM_IO_H
#define RAIDSIM_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/engine.h"

enum raidsim_dir {
  RAIDSIM_READ = 0,
  RAIDSIM_WRITE = 1,
};
#define RAIDSIM_NDIRS 2

struct raidsim_io {
  /* Set by the caller before submitting, read-only to models. */
  enum raidsim_dir dir;
  unsigned member;              /* member index in the array */
  uint64_t offset;              /* byte offset on the member */
  uint64_t len;                 /* bytes */
  /* A flush (device.h, version 6): no data (len 0, offset 0, dir
   * RAIDSIM_WRITE); it completes once every write the member completed
   * before it was sent is on stable media.
   */
  bool flush;
  /* A trim (discard; device.h, version 7): offset and len as a write's
   * (dir RAIDSIM_WRITE), no data to move; the device unmaps the range.
   */
  bool trim;
  /* A write with FUA (forced unit access): a controller must not
   * acknowledge it from a volatile write-back cache.  Device models may
   * ignore it: the driver follows such a write at the device with a
   * flush (sim.c), as the block layer does for a drive without FUA.
   */
  bool fua;

  /* Owned by the model that currently holds the io, from submit until
   * the io is handed back; undefined afterwards.  Enough for a model to
   * keep its requests in intrusive queues without any allocation.
   */
  struct raidsim_io *next;
  raidsim_ns done;
  uint32_t tag;

  /* Set by the driver to RAIDSIM_NEVER before a device's submit; a
   * device model that knows when it starts serving the io sets it then
   * (device.h, version 5), so that the driver can tell the time waiting
   * at the device from the time being served.  Controllers ignore it.
   */
  raidsim_ns started;
};

/* A FIFO of ios linked through io->next, for models' queues. */
struct raidsim_ioq {
  struct raidsim_io *head, *tail;
  uint32_t count;
};

static inline void
raidsim_ioq_init (struct raidsim_ioq *q)
{
  q->head = q->tail = 0;
  q->count = 0;
}

static inline void
raidsim_ioq_push (struct raidsim_ioq *q, struct raidsim_io *io)
{
  io->next = 0;
  if (q->tail)
    q->tail->next = io;
  else
    q->head = io;
  q->tail = io;
  q->count++;
}

static inline struct raidsim_io *
raidsim_ioq_pop (struct raidsim_ioq *q)
{
  struct raidsim_io *io = q->head;

  if (io) {
    q->head = io->next;
    if (q->head == 0)
      q->tail = 0;
    q->count--;
  }
  return io;
}

#endif /* RAIDSIM_IO_H */
