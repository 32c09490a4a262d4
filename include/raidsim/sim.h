/* raidsim: one simulation run: an array (RAID layer, controller, links,
 * member devices) driven by the jobs of a fio job file, on the
 * discrete-event engine.
 *
 * This is the only part of the simulator that owns a clock.  It moves
 * each host request through the stages below, asking each model when
 * its stage ends and scheduling an engine event for that moment:
 *
 *   worker -> RAID layer (array.c: split, read policy)
 *          -> controller (submit ... reap ISSUE, or ACK from its cache)
 *          -> [write: links] -> device (submit ... reap)
 *          -> [read: links]  -> controller (member_done ... reap COMPLETE)
 *          -> RAID layer (last command of the request?) -> worker
 *
 * Memory is fixed when the run is set up: host requests and member
 * commands come from pools sized by iodepth × numjobs and the most
 * commands one request can split into (plus what a controller's cache
 * may hold), and the engine's heap holds one wake-up per model and, per
 * member and direction, one event for the commands whose data is on the
 * links.  Statistics are counters and constant-size histograms.  So
 * memory does not grow with the number of I/Os simulated.
 *
 * Jobs run together, except that a stonewall group starts when the one
 * before has finished (fiojob.h).
 *
 * An array file that asks for a resync or a rebuild adds a background
 * stream (background.h): its member commands come from the same pool
 * and go through the same controller, links and devices as the jobs',
 * from time 0 until the jobs have finished (or sync_runtime, if later),
 * and the memory it needs is fixed too.
 */
#ifndef RAIDSIM_SIM_H
#define RAIDSIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "raidsim/background.h"
#include "raidsim/config.h"
#include "raidsim/engine.h"
#include "raidsim/fiojob.h"
#include "raidsim/histogram.h"
#include "raidsim/link.h"

/* Where a request's time goes: the stages of sim.c's path, in order.
 * Each is worked out per member command from the times it passed each
 * hand-over; a request's stages are those of its member command that
 * completed last (the one the request waited for), so for one request
 * they add up to its latency:
 *
 *   host queue      from the request being due to the thread issuing
 *                   it.  A closed-loop thread issues the moment a
 *                   slot is free, so this is 0 for it; a replayed
 *                   trace's I/O (read_iolog) is due at its time in the
 *                   trace and waits here while iodepth are in flight.
 *   controller      from the controller's submit to its ISSUE: its
 *                   overhead and any wait for a command slot or room in
 *                   its cache.  A write the cache acknowledged spends
 *                   its whole request here (submit to ACK).
 *   coalescing      from the member being done (data moved) to the
 *                   controller's COMPLETE: completion coalescing.
 *   link            crossing the port and the uplink, waiting for them
 *                   included: before the device for a write, after it
 *                   for a read.
 *   device queue    at the device before being served.
 *   device service  being served.  A model that says when it starts
 *                   serving an io (io->started, device.h) splits the two
 *                   exactly (fixed does); for others the service is
 *                   taken to start at the later of the io's arrival and
 *                   the device's previous completion, exact for a device
 *                   that serves one command at a time in order.
 */
enum raidsim_stage {
  RAIDSIM_STAGE_HOST_QUEUE,
  RAIDSIM_STAGE_CONTROLLER,
  RAIDSIM_STAGE_COALESCE,
  RAIDSIM_STAGE_LINK,
  RAIDSIM_STAGE_DEVICE_QUEUE,
  RAIDSIM_STAGE_DEVICE_SERVICE,
};
#define RAIDSIM_NSTAGES 6

/* "host-queue", "controller", "coalescing", "link", "device-queue",
 * "device-service".
 */
extern const char *const raidsim_stage_names[RAIDSIM_NSTAGES];

struct raidsim_dir_result {
  uint64_t ios, bytes;
  struct raid_histogram lat; /* completion latency, ns */
};

struct raidsim_job_result {
  const struct raidsim_job *job;
  raidsim_ns start;             /* its start + ramp_time: counting starts */
  raidsim_ns end;               /* last counted completion */
  struct raidsim_dir_result dir[RAIDSIM_NDIRS];
  /* Flushes (fsync, fdatasync): count and latency, from the thread
   * issuing one to its last member's completion (bytes stays 0).  Not
   * in the stages.
   */
  struct raidsim_dir_result flush;
  /* Trims (rw=trim, randtrim, trimwrite): count, bytes and latency, as
   * fio reports its trim direction.  Not in the stages.
   */
  struct raidsim_dir_result trim;
  /* Both directions' measured requests, ns (enum raidsim_stage). */
  struct raid_histogram stage[RAIDSIM_NSTAGES];
  /* Stopped early (raidsim_sim_set_precision): every checked figure's
   * 95% interval was within precision of its mean when it stopped,
   * after `end - start` of simulated time; 0: ran as written.
   */
  double stopped_at_precision;
};

struct raidsim_member_result {
  uint64_t ios[RAIDSIM_NDIRS];   /* commands that reached the device */
  uint64_t bytes[RAIDSIM_NDIRS];
  uint64_t bg_ios[RAIDSIM_NDIRS]; /* of those, the background stream's */
  uint64_t bg_bytes[RAIDSIM_NDIRS];
  raidsim_ns busy;               /* time with >= 1 command at the device */
  unsigned __int128 queue_area;  /* integral of commands at the device, ns */
  unsigned max_queue;
  uint64_t flushes;              /* flush commands that reached the device */
  uint64_t trims, trim_bytes;    /* trim commands that reached it */
};

struct raidsim_sim;

/* Set up a run; seed fixes every random choice.  ac and jf must outlive
 * the run and its reports.  NULL with raidsim_error () set.
 */
extern struct raidsim_sim *raidsim_sim_new (const struct raidsim_array_config *ac,
                                            const struct raidsim_jobfile *jf,
                                            uint64_t seed);
extern void raidsim_sim_free (struct raidsim_sim *s);

/* Run to the end: until every thread has stopped and its last request
 * completed.  Returns 0, or -1 with raidsim_error () set.
 */
extern int raidsim_sim_run (struct raidsim_sim *s);

/* Early stop, before the run.  A job may stop once the 95% confidence
 * interval of each of its checked figures (per direction: IOPS, MB/s
 * and mean latency; the percentiles, minimum and maximum are not
 * checked) is within precision (a fraction, 0.01 for 1%) of the mean.
 * The interval comes from batch means: the job's measured requests in
 * batches of equal count (at most 32, merged in pairs as they fill),
 * at least 16 batches (of at least 4096 requests at first) and a
 * second of the job's simulated time, Student's t for batches - 1
 * degrees of freedom.
 * Its threads then stop issuing, as at the end of runtime, and its
 * result says so (stopped_at_precision).  precision 0: no job stops
 * early.  Not called: RAIDSIM_DEFAULT_PRECISION for time-based jobs
 * whose runtime is over a minute, none for others.
 */
#define RAIDSIM_DEFAULT_PRECISION 0.01
extern void raidsim_sim_set_precision (struct raidsim_sim *s,
                                       double precision);

/* Before the run: write fio's latency log of every job, one line per
 * request counted (after ramp_time), to PREFIX_lat.N.log (N the job's
 * number from 1, as fio names them with per_job_logs), in fio 3.33's
 * format with log_offset=1: "TIME_MS, LAT_NS, DDIR, BYTES, OFFSET,
 * PRIO".  The threads of a job share its log.  Returns 0, or -1 with
 * raidsim_error () set.
 */
extern int raidsim_sim_lat_log (struct raidsim_sim *s, const char *prefix);
/* After the run: close the logs, reporting a write error.  Returns 0 or
 * -1 with raidsim_error () set.  raidsim_sim_free closes them too.
 */
extern int raidsim_sim_close_logs (struct raidsim_sim *s);

extern uint64_t raidsim_sim_seed (const struct raidsim_sim *s);
extern const struct raidsim_jobfile *
raidsim_sim_jobfile (const struct raidsim_sim *s);
extern const struct raidsim_array_config *
raidsim_sim_array (const struct raidsim_sim *s);
extern uint64_t raidsim_sim_array_size (const struct raidsim_sim *s);
extern unsigned raidsim_sim_njobs (const struct raidsim_sim *s);
extern const struct raidsim_job_result *
raidsim_sim_job (const struct raidsim_sim *s, unsigned i);
extern unsigned raidsim_sim_nmembers (const struct raidsim_sim *s);
extern const struct raidsim_member_result *
raidsim_sim_member (const struct raidsim_sim *s, unsigned i);
/* Links: each member's port, then the uplink; NULL past the end or for
 * an unlimited link.
 */
extern unsigned raidsim_sim_nlinks (const struct raidsim_sim *s);
extern const struct raidsim_link *raidsim_sim_link (const struct raidsim_sim *s,
                                                    unsigned i);
/* The span member and link figures are taken over: from the latest
 * ramp_time of the jobs that start first (the first stonewall group) to
 * the end of the run.
 */
extern void raidsim_sim_window (const struct raidsim_sim *s,
                                raidsim_ns *start, raidsim_ns *end);
extern uint64_t raidsim_sim_events (const struct raidsim_sim *s);

/* Utilisation in percent over the window: a member's time with a
 * command at its device, a link's busy time (a full-duplex link's
 * busier direction; a half-duplex link's two together), each over the
 * window's length.  0 for an unlimited link or an empty window.
 */
extern double raidsim_sim_member_util (const struct raidsim_sim *s,
                                       unsigned i);
extern double raidsim_sim_link_util (const struct raidsim_sim *s, unsigned i);
/* The most utilised member or link: its name ("member2", "port0",
 * "uplink") in name, its utilisation returned.  The first wins a tie,
 * members before links.
 */
extern double raidsim_sim_bottleneck (const struct raidsim_sim *s,
                                      char *name, size_t len);
/* The resync or rebuild that ran beside the workload (background.h), or
 * NULL if the array file asks for none.
 */
extern const struct raidsim_bg_result *
raidsim_sim_sync (const struct raidsim_sim *s);

#endif /* RAIDSIM_SIM_H */
