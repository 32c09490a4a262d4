/* raidsim: the interface of a controller / driver model.
 *
 * The controller stands for everything between the RAID layer and the
 * members' command queues: the driver's per-I/O software cost, the
 * limit on commands outstanding per member (NCQ's 32, an NVMe queue
 * depth), and the way completions reach the host (interrupt coalescing).
 *
 * Like a device model (device.h) it is a state machine that is told the
 * time and never reads a clock.  It has two inputs and one output:
 *
 *   submit (c, io, now)       the RAID layer sends a member command;
 *   member_done (c, io, now)  the member has finished io (data moved);
 *   next (c)                  the earliest time the controller has
 *                             something to hand out, or RAIDSIM_NEVER;
 *   reap (c, now, &what)      hand out one io that is due by now, with
 *                             what = RAIDSIM_CTL_ISSUE (send it to its
 *                             member now), RAIDSIM_CTL_COMPLETE (tell
 *                             the RAID layer it is done) or
 *                             RAIDSIM_CTL_ACK (see below), or NULL.
 *
 * The same calling rules as for devices apply: non-decreasing now,
 * reap called once next () is reached, and before next () a reap
 * returns NULL and changes nothing.  An io goes submit -> reap
 * (ISSUE) -> member_done -> reap (COMPLETE).  The links the data
 * crosses are not the controller's business: the driver moves the data
 * between ISSUE and member_done (link.h).
 *
 * A controller with a write-back cache acknowledges a write before its
 * member has it: reap hands the io out with RAIDSIM_CTL_ACK, and the
 * driver tells the RAID layer that this command is done, but keeps the
 * io, which the controller still holds: it goes on through ISSUE,
 * member_done and COMPLETE as any other, and at COMPLETE the driver
 * only recycles it.  So the driver can size its pools, max_held says
 * how many acknowledged commands the controller may hold at once.
 */
#ifndef RAIDSIM_CONTROLLER_H
#define RAIDSIM_CONTROLLER_H

#include <stddef.h>
#include <stdint.h>

#include "raidsim/engine.h"
#include "raidsim/io.h"
#include "raidsim/param.h"

/* Bump when struct raidsim_controller_ops or the calling rules change.
 * 3: submit may be given a flush (io->flush, device.h): a command with
 *    no data, which the controller never acknowledges from a cache; it
 *    goes submit -> ISSUE -> member_done -> COMPLETE like a read.
 */
#define RAIDSIM_CONTROLLER_OPS_VERSION 3

enum raidsim_ctl_out {
  RAIDSIM_CTL_ISSUE,
  RAIDSIM_CTL_COMPLETE,
  RAIDSIM_CTL_ACK,              /* interface version 2 */
};

struct raidsim_controller_ops {
  int version;                  /* RAIDSIM_CONTROLLER_OPS_VERSION */
  const char *name;             /* model = NAME in [controller] */
  const char *summary;
  const struct raidsim_param *params;
  size_t params_size;
  int (*check) (const void *params); /* may be NULL; see device.h */

  /* The most commands the controller may hold after acknowledging
   * them (RAIDSIM_CTL_ACK), when no member command is shorter than
   * min_len bytes.  May be NULL: none.
   */
  uint64_t (*max_held) (const void *params, uint64_t min_len);

  void *(*create) (const void *params, unsigned nmembers);
  void (*destroy) (void *c);

  void (*submit) (void *c, struct raidsim_io *io, raidsim_ns now);
  void (*member_done) (void *c, struct raidsim_io *io, raidsim_ns now);
  raidsim_ns (*next) (const void *c);
  struct raidsim_io *(*reap) (void *c, raidsim_ns now,
                              enum raidsim_ctl_out *what);
};

extern const struct raidsim_controller_ops *const raidsim_controller_models[];
extern const struct raidsim_controller_ops *
raidsim_controller_find (const char *name);

extern const struct raidsim_controller_ops raidsim_controller_generic;

#endif /* RAIDSIM_CONTROLLER_H */
