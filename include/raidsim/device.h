/* raidsim: the interface between a device model and whoever owns the
 * clock.
 *
 * A device model is a state machine that is told the time; it never
 * reads a clock and never schedules anything.  It has one input and one
 * output:
 *
 *   submit (dev, io, now)   a request arrives at time now;
 *   next (dev)              the earliest time at which the model has a
 *                           completion to hand back, or a decision to
 *                           take (RAIDSIM_NEVER if neither);
 *   reap (dev, now)         hand back one request completed at or
 *                           before now, or NULL.
 *
 * The caller must call with non-decreasing values of now, and must call
 * reap no later than next () says (calling it later is allowed: the
 * requests are simply handed back late, and a model's internal decisions
 * are taken as of next (), not of the late now).  A reap at next () may
 * return NULL: a model that reorders requests, such as a disk choosing
 * the command with the shortest positioning time, can only choose when
 * its mechanism comes free, so next () is also the time of such a
 * choice; the caller simply asks next () again.  Before next () there
is nothing to hand back and nothing to decide: a reap then returns NULL
and changes nothing.  next () changes only with submit and reap, so a
caller may remember it rather than ask again (the simulator does).
 *
 * Two drivers use this interface:
 *
 *   - The simulator's engine (sim.c) keeps one wake-up event per
 *     device at next (), and when it fires calls reap until NULL, then
 *     moves the wake-up to the new next ().
 *
 *   - A wall-clock driver, such as the nbdkit plugin will have, calls
 *     submit with the current clock reading, sleeps until next () or
 *     until another request arrives, and then calls reap with the clock.
 *
 * submit also returns the io's completion time when the model can fix it
 * at submission (fixed and flash can: they serve requests in arrival
 * order).  A model that reorders requests, such as the hdd with NCQ,
 * returns RAIDSIM_NEVER there and fixes the time later; drivers that
 * rely on next () and reap () work with both kinds.
 *
 * Flushes (version 6).  submit may be given a flush: an io with
 * io->flush set, no data (len 0) and dir RAIDSIM_WRITE, as a block
 * layer sends an empty REQ_PREFLUSH bio (NVMe Flush, ATA FLUSH CACHE
 * EXT, SCSI SYNCHRONIZE CACHE).  It completes, through next () and
 * reap () like any io, once every write the device acknowledged before
 * the flush arrived is on stable media: a model with a volatile write
 * cache (the flash model's write buffer, an hdd with write_cache on)
 * writes back what it holds and completes the flush after that; one
 * without completes it at its command cost.  What a flush costs is the
 * model's own (each model's comment says how, from which parameters).
 *
 * Models are looked up by name in a registry (models.c) and configured
 * from a [device] section through their parameter table.  The ops
 * struct carries a version number, as fio's ioengine_ops does: a model
 * built against another version of this interface is refused.
 */
#ifndef RAIDSIM_DEVICE_H
#define RAIDSIM_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "raidsim/engine.h"
#include "raidsim/io.h"
#include "raidsim/param.h"

/* Bump when struct raidsim_device_ops or the calling rules change.
 * 2: create takes the capacity; next () may be a decision time.
 * 3: place (optional) says which member a device is.
 * 4: place also gives the run's seed.
 * 5: submit (or a later reap) may set io->started, when the io starts
 *    being served; left at RAIDSIM_NEVER, the driver estimates it.
 * 6: submit may be given a flush (io->flush, above).
 * 7: submit may be given a trim (io->trim): the range's data is no
 *    longer wanted.  A model with nothing to unmap completes it after
 *    its command cost.
 */
#define RAIDSIM_DEVICE_OPS_VERSION 7

struct raidsim_device_ops {
  int version;                  /* RAIDSIM_DEVICE_OPS_VERSION */
  const char *name;             /* model = NAME in [device] */
  const char *summary;          /* one line, for the docs */

  /* The model's own parameters in [device], stored in a struct of
   * params_size bytes.
   */
  const struct raidsim_param *params;
  size_t params_size;

  /* Checks between parameters that one range cannot express.  Returns 0,
   * or -1 with raidsim_error () set to "KEY: what is wrong".  May be
   * NULL.
   */
  int (*check) (const void *params);

  /* A new device of capacity bytes (the [device] capacity key) in its
   * idle state at time 0, with its own copy of params.  NULL on
   * failure, with raidsim_error () set to "KEY: what is wrong".
   */
  void *(*create) (const void *params, uint64_t capacity);
  void (*destroy) (void *dev);

  /* Optional (NULL: the model ignores it).  Called once, before any
   * I/O, with the device's member index in its array and the run's
   * seed.  Members built from one file are identical, but real units
   * are not in every respect: an hdd uses the index for its spindle's
   * phase, since the spindles of an array's disks are not
   * synchronised, and a used flash drive seeds its own garbage
   * collection schedule from both.  A model never called here behaves
   * as member 0 of a run with seed 0.
   */
  void (*place) (void *dev, unsigned member, uint64_t seed);

  raidsim_ns (*submit) (void *dev, struct raidsim_io *io, raidsim_ns now);
  raidsim_ns (*next) (const void *dev);
  struct raidsim_io *(*reap) (void *dev, raidsim_ns now);
};

/* The registered models, ending with NULL (models.c). */
extern const struct raidsim_device_ops *const raidsim_device_models[];
/* NULL with raidsim_error () set if there is no such model. */
extern const struct raidsim_device_ops *raidsim_device_find (const char *name);

/* Each model's ops, one file each under raidsim/models/devices/. */
extern const struct raidsim_device_ops raidsim_device_fixed;
extern const struct raidsim_device_ops raidsim_device_hdd;
extern const struct raidsim_device_ops raidsim_device_flash;

#endif /* RAIDSIM_DEVICE_H */
