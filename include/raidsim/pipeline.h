/* raidsim: the stages a member command goes through below the RAID
 * layer, one implementation for both drivers of the models: the
 * simulator's run (raidsim/engine/sim.c, on the event engine) and the
 * nbdkit plugin's model= (plugins/raid/model/timing.c, on the wall
 * clock):
 *
 *   controller submit ... reap ISSUE (or ACK from its cache)
 *   -> [write: links] -> device submit ... reap
 *   -> [read: links]  -> controller member_done ... reap COMPLETE
 *
 * The driver owns the clock, the commands and what follows from them
 * (its statistics, its wake-ups, the host's request); these functions
 * move a command from one stage to the next and hand it to the driver's
 * hooks where the driver has something to do.  They read no clock and
 * allocate nothing.  Static inline, so that a driver's hooks, known at
 * compile time, cost no call.
 *
 * While its data crosses the links no model holds a command, so the
 * member's transit queue keeps it through io->next, with the time its
 * data will have crossed in io->done (io.h).  Transfers on one member's
 * path in one direction end in the order they start (each link serves
 * them in turn, and the end is the latest of non-decreasing link
 * times), so a FIFO whose head the driver watches orders them exactly
 * as one event each would.
 *
 * A device's next () changes only when it is given a command or reaps
 * one (device.h), so it is asked then and remembered in dev_next.
 */
#ifndef RAIDSIM_PIPELINE_H
#define RAIDSIM_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/config.h"
#include "raidsim/controller.h"
#include "raidsim/device.h"
#include "raidsim/io.h"
#include "raidsim/link.h"

struct raidsim_transit {
  struct raidsim_io *head, *tail;
};

/* One member's stages: its device, its links, and the commands whose
 * data is crossing them.
 */
struct raidsim_pipe_member {
  const struct raidsim_device_ops *ops;
  void *dev;
  raidsim_ns dev_next;          /* ops->next (dev), kept up to date */
  struct raidsim_transit transit[RAIDSIM_NDIRS];
  struct raidsim_link port;
  /* The links between the member and the host that have a rate. */
  struct raidsim_link *path[2];
  unsigned npath;
};

/* Member index of an array file's ac (pipeline.c): its device made and
 * placed (seed, as device.h's place), and its port link, named portN.
 * Returns 0, or -1 with raidsim_error () set.  raidsim_pipe_member_path
 * then gives it its path to the host: the port and the shared uplink,
 * those with a rate.
 */
extern int raidsim_pipe_member_init (struct raidsim_pipe_member *m,
                                     const struct raidsim_array_config *ac,
                                     unsigned index, uint64_t seed);
extern void raidsim_pipe_member_path (struct raidsim_pipe_member *m,
                                      struct raidsim_link *uplink);
/* The device destroyed (if made). */
extern void raidsim_pipe_member_free (struct raidsim_pipe_member *m);

/* io's data starts across the links of its member's path at now.
 * Returns true if it is the queue's head: the member's next time may
 * have come sooner.
 */
static inline bool
raidsim_pipe_transit_push (struct raidsim_pipe_member *m,
                           struct raidsim_io *io, raidsim_ns now)
{
  struct raidsim_transit *q = &m->transit[io->dir];

  io->done = raidsim_links_transfer (m->path, m->npath, io->dir, io->len,
                                     now);
  io->next = NULL;
  if (q->tail) {
    q->tail->next = io;
    q->tail = io;
    return false;
  }
  q->head = q->tail = io;
  return true;
}

/* The head of a transit queue, if its data has crossed by now. */
static inline struct raidsim_io *
raidsim_pipe_transit_pop (struct raidsim_pipe_member *m,
                          enum raidsim_dir dir, raidsim_ns now)
{
  struct raidsim_transit *q = &m->transit[dir];
  struct raidsim_io *io = q->head;

  if (io == NULL || io->done > now)
    return NULL;
  q->head = io->next;
  if (q->head == NULL)
    q->tail = NULL;
  return io;
}

/* When the member next has something to do: a completion or decision
 * of its device, or data arriving across the links.
 */
static inline raidsim_ns
raidsim_pipe_member_next (const struct raidsim_pipe_member *m)
{
  raidsim_ns t = m->dev_next;
  unsigned d;

  for (d = 0; d < RAIDSIM_NDIRS; ++d)
    if (m->transit[d].head && m->transit[d].head->done < t)
      t = m->transit[d].head->done;
  return t;
}

/* io goes to the member's device at now. */
static inline void
raidsim_pipe_dev_submit (struct raidsim_pipe_member *m,
                         struct raidsim_io *io, raidsim_ns now)
{
  io->started = RAIDSIM_NEVER;
  m->ops->submit (m->dev, io, now);
  m->dev_next = m->ops->next (m->dev);
}

/* The controller issued io: a write's data crosses the links before the
 * device has it (a flush has none: the command itself is not modelled
 * on the links).
 */
static inline bool
raidsim_pipe_crosses_to_device (const struct raidsim_pipe_member *m,
                                const struct raidsim_io *io)
{
  return io->dir == RAIDSIM_WRITE && m->npath > 0 && !io->flush;
}

/* The member's stage: writes whose data has arrived go to the device
 * (to_device, the driver's submit, which calls raidsim_pipe_dev_submit),
 * the device hands back what it has finished (reaped, then a read's
 * data crosses the links), reads whose data has reached the host are
 * done (finished, where the driver tells the controller member_done);
 * until nothing is left at now, since one can make another due at the
 * same instant.  Returns the member's next time.
 */
static inline raidsim_ns
raidsim_pipe_member_run (struct raidsim_pipe_member *m, raidsim_ns now,
                         void (*to_device) (void *, struct raidsim_io *,
                                            raidsim_ns),
                         void (*reaped) (void *, struct raidsim_io *,
                                         raidsim_ns),
                         void (*finished) (void *, struct raidsim_io *,
                                           raidsim_ns),
                         void *opaque)
{
  raidsim_ns next;

  do {
    struct raidsim_io *io;

    while ((io = raidsim_pipe_transit_pop (m, RAIDSIM_WRITE, now)) != NULL)
      to_device (opaque, io, now);
    if (m->dev_next <= now) {
      while ((io = m->ops->reap (m->dev, now)) != NULL) {
        reaped (opaque, io, now);
        if (io->dir == RAIDSIM_READ && m->npath > 0)
          raidsim_pipe_transit_push (m, io, now);
        else
          finished (opaque, io, now);
      }
      m->dev_next = m->ops->next (m->dev);
    }
    while ((io = raidsim_pipe_transit_pop (m, RAIDSIM_READ, now)) != NULL)
      finished (opaque, io, now);
  } while ((next = raidsim_pipe_member_next (m)) <= now);
  return next;
}

/* The controller's stage: hand out everything it has due by now, each
 * to out with what it is (ISSUE, ACK, COMPLETE); next is its next () as
 * of the call.  next () is asked after each io handed out, which may
 * have given the controller new input, and reap is called only while it
 * is due: the reap that would end the loop by returning NULL is not made
 * when next () already says that nothing is due (device.h's rules,
 * which controllers follow).  Returns the controller's next time.
 */
static inline raidsim_ns
raidsim_pipe_ctl_run (const struct raidsim_controller_ops *ops, void *ctl,
                      raidsim_ns next, raidsim_ns now,
                      void (*out) (void *, struct raidsim_io *,
                                   enum raidsim_ctl_out, raidsim_ns),
                      void *opaque)
{
  while (next <= now) {
    enum raidsim_ctl_out what;
    struct raidsim_io *io = ops->reap (ctl, now, &what);

    if (io != NULL)
      out (opaque, io, what, now);
    next = ops->next (ctl);
    if (io == NULL)
      break;
  }
  return next;
}

/* A member command of the RAID layer's, as the controller is given it. */
static inline void
raidsim_pipe_io (struct raidsim_io *io, enum raidsim_dir dir, bool flush,
                 const struct raidsim_member_cmd *mc)
{
  io->dir = dir;
  io->flush = flush;
  io->member = mc->member;
  io->offset = mc->offset;
  io->len = mc->len;
}

#endif /* RAIDSIM_PIPELINE_H */
