/* raidsim: one simulation run (see sim.h for the stages a request goes
 * through).  Everything time-related happens here: the models are told
 * the time and answer when their stage ends, and this file turns those
 * answers into engine events.
 *
 * Each model has one wake-up event, kept at the model's next () time.
 * While a model's wake-up is being handled, calls back into the same
 * model (a completion leads to a new request, which the controller
 * issues in the same instant) do not reschedule it; the handler does
 * that once, at the end.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/array.h"
#include "raidsim/background.h"
#include "raidsim/error.h"
#include "raidsim/sim.h"
#include "raidsim/trace.h"
#include "raidsim/workload.h"

/* Member commands in one run; beyond this a job is refused rather than
 * allowed to take gigabytes (huge bs over a small chunk, at high QD).
 */
#define MAX_CMDS (UINT64_C (1) << 22)

struct hreq;

/* A member command. */
struct cmd {
  struct raidsim_io io;         /* what the models see */
  raidsim_ns moved;             /* when its data has crossed the links */
  /* When it passed each hand-over, for the stages (sim.h). */
  raidsim_ns t_submit;          /* to the controller */
  raidsim_ns t_issue;           /* ISSUE from the controller */
  raidsim_ns t_dev;             /* at the device */
  raidsim_ns t_start;           /* its service began */
  raidsim_ns t_reaped;          /* the device handed it back */
  raidsim_ns t_member;          /* member_done: data moved */
  struct cmd *transit_next;     /* in its member's transit queue */
  struct raidsim_sim *sim;
  union {
    struct hreq *parent;        /* the host's: its request, NULL once
                                 * acknowledged (acked) */
    void *tag;                  /* the background stream's (bg) */
  };
  bool bg;                      /* the background stream's command */
  bool acked;                   /* the controller's cache acknowledged it */
  /* A FUA write (hostreq fua).  The device models have no FUA command,
   * so its member gets it as the block layer sends a FUA write to a
   * drive with a volatile cache and no FUA (blk-flush.c, a post-flush):
   * the write, then a flush of that member once the write completes;
   * the command is done when the flush is.  fua_flushing: its flush is
   * at the device (io.flush set, the write's range kept here).
   */
  bool fua, fua_flushing;
  uint64_t fua_offset, fua_len;
  struct cmd *free_next;
};

/* A host request. */
struct hreq {
  struct thread *thr;
  struct raidsim_hostreq req;
  raidsim_ns due;               /* when the thread wanted it issued */
  raidsim_ns issued;
  unsigned pending;             /* member commands not yet complete */
  struct hreq *free_next;
};

/* A job's stage samples not yet in its histograms: per stage, the
 * value of its first sample and how many samples since had that value.
 * Most stages of most runs take one value over and over (a fixed
 * controller overhead, no host queue, no coalescing), and counting a
 * repeat is far cheaper than a histogram's add; other values go to the
 * histogram at once.  The histograms end with the same samples
 * (flush_stages), and their order does not matter to them.
 */
struct stage_runs {
  uint64_t v[RAIDSIM_NSTAGES];
  uint64_t n[RAIDSIM_NSTAGES];
  bool set;
};

/* Early stop (raidsim_sim_set_precision): a job's measured requests in
 * batches of `per` completions; per direction (read, write, trim) each
 * batch's I/Os, bytes and latency sum, and its length in time.
 */
#define ES_MAX 32               /* batches kept; full: merged in pairs */
#define ES_MIN 16               /* batches before a decision */
#define ES_FIRST 4096           /* completions in a batch at first */
/* No decision before this much of the job's time: effects with a long
 * period (a drive's garbage collection in bursts, a cache filling)
 * must have had the time to show in the batches.
 */
#define ES_MIN_NS RAIDSIM_NS_PER_S
#define ES_NDIRS 3

struct es_batch {
  uint64_t ios[ES_NDIRS], bytes[ES_NDIRS];
  unsigned __int128 lat[ES_NDIRS];
  raidsim_ns len;
};

struct early {
  double precision;             /* 0: this job runs as written */
  uint64_t per, n;              /* per batch; in the current one */
  raidsim_ns t0;                /* the current batch's start */
  struct es_batch cur, b[ES_MAX];
  unsigned nb;
  bool started, ready, done;
};

struct thread {
  struct raidsim_worker w;
  struct raidsim_job_result *res;
  struct stage_runs *runs;      /* its job's */
  unsigned inflight;
  bool flushing;                /* a flush in flight: issue nothing */
  bool finished;                /* stopped issuing, nothing in flight */
  /* For a job that paces itself (rate, thinktime, startdelay): when to
   * try again to issue.
   */
  struct raidsim_sim *sim;
  struct raidsim_event wake;
  bool started;                 /* its group (or waitee) has let it go */
};

/* Commands whose data is crossing the links, to or from one member.
 * Transfers on one member's path in one direction end in the order they
 * start (each link serves them in turn, and the end is the latest of
 * non-decreasing link times), so a FIFO whose head the member's wake-up
 * watches orders them exactly as one event each would, with a heap of
 * one entry per member instead of one per command in flight.
 */
struct transit {
  struct cmd *head, *tail;
};

/* A member drive in the run: its device, its transit queues, and one
 * wake-up for the earliest of the device's next () and the queues'
 * heads.
 *
 * A device's next () changes only when it is given a command or reaps
 * one, so it is asked then and remembered: a wake-up for data arriving
 * on the links neither asks again nor calls a reap that could only
 * return NULL (device.h: nothing is due before next ()).
 */
struct sim_member {
  struct raidsim_sim *sim;
  const struct raidsim_device_ops *ops;
  void *dev;
  raidsim_ns dev_next;          /* ops->next (dev), kept up to date */
  struct raidsim_event wake;
  bool in_wake;
  struct transit transit[RAIDSIM_NDIRS];
  struct raidsim_link port;
  /* The links between the member and the host that have a rate. */
  struct raidsim_link *path[2];
  unsigned npath;
  unsigned queue;               /* commands at the device */
  raidsim_ns last_done;         /* the device's latest completion */
  raidsim_ns last_change;
  struct raidsim_member_result res;
};

struct raidsim_sim {
  const struct raidsim_array_config *ac;
  const struct raidsim_jobfile *jf;
  uint64_t seed;
  struct raidsim_engine *engine;
  struct raidsim_array *array;
  uint64_t array_size;

  const struct raidsim_controller_ops *ctl_ops;
  void *ctl;
  struct raidsim_event ctl_wake;
  bool ctl_in_wake;

  struct raidsim_link uplink;
  unsigned nmembers;
  struct sim_member m[RAID_MAX_MEMBERS];

  unsigned njobs;
  struct raidsim_job_result *jobs;
  struct stage_runs *runs;      /* one per job */
  struct early *early;          /* one per job */
  double precision;             /* raidsim_sim_set_precision; < 0: default */
  unsigned nthreads;
  struct thread *threads;

  /* Stonewall groups run one after another (fiojob.h). */
  unsigned group;               /* the one running */
  unsigned group_left;          /* its threads not yet finished */
  bool waiting;                 /* some job waits for another (wait_for) */

  struct hreq *hreqs, *free_hreqs;
  struct cmd *cmds, *free_cmds;

  /* A resync or rebuild beside the workload (background.h), or NULL. */
  struct raidsim_bg *bg;
  struct raidsim_event bg_wake;

  raidsim_ns window_start, end;
  struct raidsim_event window_ev;
  bool ran;

  /* fio's latency logs, one per job (raidsim_sim_lat_log); NULL: none. */
  FILE **lat_logs;
};

/* ---- stage plumbing ---- */

static void ctl_wake_fire (struct raidsim_engine *e, struct raidsim_event *ev);
static void dev_wake_fire (struct raidsim_engine *e, struct raidsim_event *ev);
static void issue (struct raidsim_sim *s, struct thread *t, raidsim_ns now);
static void bg_kick (struct raidsim_sim *s, raidsim_ns now);
static void start_group (struct raidsim_sim *s, unsigned g, raidsim_ns now);

static void
schedule (struct raidsim_sim *s, struct raidsim_event *ev, raidsim_ns t)
{
  if (raidsim_engine_schedule (s->engine, ev, t) == -1) {
    /* Pools and heap are sized for the worst case, so this is a bug. */
    fprintf (stderr, "raidsim: internal error: cannot schedule an event "
             "at %" PRIu64 " ns (now %" PRIu64 ")\n", t,
             raidsim_engine_now (s->engine));
    abort ();
  }
}

/* Keep a model's wake-up at its next () time, not in the past. */
static void
rewake (struct raidsim_sim *s, struct raidsim_event *wake, raidsim_ns next,
        raidsim_ns now)
{
  if (next == RAIDSIM_NEVER) {
    raidsim_engine_cancel (s->engine, wake);
    return;
  }
  if (next < now)
    next = now;
  if (!raidsim_event_scheduled (wake) || wake->time != next)
    schedule (s, wake, next);
}

static void ctl_drain (struct raidsim_sim *s, raidsim_ns next, raidsim_ns now);

/* The controller has new input.  What it can hand out at once is
 * handed out at once, rather than through an event at the same
 * nanosecond: a host completion and the next request's issue are then
 * one event fewer each, which is a quarter of the events of a run.
 */
static void
ctl_kick (struct raidsim_sim *s, raidsim_ns now)
{
  raidsim_ns next;

  if (s->ctl_in_wake)
    return;
  next = s->ctl_ops->next (s->ctl);
  if (next <= now)
    ctl_drain (s, next, now);
  else
    rewake (s, &s->ctl_wake, next, now);
}

/* Members' queue figures: the area under "commands at the device" and
 * the time it is non-zero, both inside the window.
 */
static void
member_account (struct raidsim_sim *s, struct sim_member *m, raidsim_ns now)
{
  raidsim_ns from = m->last_change > s->window_start
    ? m->last_change : s->window_start;

  if (now > from) {
    m->res.queue_area += (unsigned __int128) m->queue * (now - from);
    if (m->queue > 0)
      m->res.busy += now - from;
  }
  m->last_change = now;
}

/* When the member next has something to do: a completion or decision
 * of its device, or data arriving across the links.
 */
static raidsim_ns
member_next (const struct sim_member *m)
{
  raidsim_ns t = m->dev_next;
  unsigned d;

  for (d = 0; d < RAIDSIM_NDIRS; ++d)
    if (m->transit[d].head && m->transit[d].head->moved < t)
      t = m->transit[d].head->moved;
  return t;
}

static void
dev_submit (struct raidsim_sim *s, struct cmd *c, raidsim_ns now)
{
  struct sim_member *m = &s->m[c->io.member];

  member_account (s, m, now);
  m->queue++;
  if (m->queue > m->res.max_queue && now >= s->window_start)
    m->res.max_queue = m->queue;
  if (c->io.flush) {
    if (now >= s->window_start)
      m->res.flushes++;
  }
  else if (c->io.trim) {
    if (now >= s->window_start) {
      m->res.trims++;
      m->res.trim_bytes += c->io.len;
    }
  }
  else if (now >= s->window_start) {
    m->res.ios[c->io.dir]++;
    m->res.bytes[c->io.dir] += c->io.len;
    if (c->bg) {
      m->res.bg_ios[c->io.dir]++;
      m->res.bg_bytes[c->io.dir] += c->io.len;
    }
  }
  /* The stream's idle test looks at the host's I/O at each member. */
  if (s->bg && !c->bg && !c->io.flush)
    raidsim_bg_fg_io (s->bg, c->io.member, c->io.len);
  if (!c->fua_flushing)
    c->t_dev = now;
  c->io.started = RAIDSIM_NEVER;
  m->ops->submit (m->dev, &c->io, now);
  m->dev_next = m->ops->next (m->dev);
  if (!m->in_wake)
    rewake (s, &m->wake, member_next (m), now);
}

/* c's data starts across the links of its member's path now. */
static void
transit_push (struct raidsim_sim *s, struct sim_member *m, struct cmd *c,
              raidsim_ns now)
{
  struct transit *q = &m->transit[c->io.dir];

  c->moved = raidsim_links_transfer (m->path, m->npath, c->io.dir,
                                     c->io.len, now);
  c->transit_next = NULL;
  if (q->tail)
    q->tail->transit_next = c;
  else {
    q->head = c;
    if (!m->in_wake)
      rewake (s, &m->wake, member_next (m), now);
  }
  q->tail = c;
}

/* The controller issued c: move a write's data to the member first (a
 * flush has none: the command itself is not modelled on the links).
 */
static void
cmd_issued (struct raidsim_sim *s, struct cmd *c, raidsim_ns now)
{
  struct sim_member *m = &s->m[c->io.member];

  c->t_issue = now;
  if (c->io.dir == RAIDSIM_WRITE && m->npath > 0 && !c->io.flush &&
      !c->io.trim)
    transit_push (s, m, c, now);
  else
    dev_submit (s, c, now);
}

static void
member_finished (struct raidsim_sim *s, struct cmd *c, raidsim_ns now)
{
  c->t_member = now;
  s->ctl_ops->member_done (s->ctl, &c->io, now);
  ctl_kick (s, now);
}

/* The device is done with c: move a read's data to the host. */
static void
dev_done (struct raidsim_sim *s, struct cmd *c, raidsim_ns now)
{
  struct sim_member *m = &s->m[c->io.member];

  if (c->io.dir == RAIDSIM_READ && m->npath > 0)
    transit_push (s, m, c, now);
  else if (c->fua && !c->fua_flushing) {
    /* The write is done: its post-flush goes to the same member. */
    c->fua_flushing = true;
    c->fua_offset = c->io.offset;
    c->fua_len = c->io.len;
    c->io.flush = true;
    c->io.fua = false;
    c->io.offset = 0;
    c->io.len = 0;
    dev_submit (s, c, now);
  }
  else {
    if (c->fua_flushing) {
      c->fua_flushing = false;
      c->io.flush = false;
      c->io.fua = true;
      c->io.offset = c->fua_offset;
      c->io.len = c->fua_len;
    }
    member_finished (s, c, now);
  }
}

/* The stages (sim.h) of c, the command its request waited for last,
 * completed at now; a command the controller's cache acknowledged at
 * now spent all of its request's time in the controller.
 */
static inline void
stage_add (struct raidsim_job_result *r, struct stage_runs *sr,
           enum raidsim_stage i, uint64_t v)
{
  if (v == sr->v[i])
    sr->n[i]++;
  else
    raid_hist_add (&r->stage[i], v);
}

/* Put a job's pending stage samples in its histograms. */
static void
flush_stages (struct raidsim_job_result *r, struct stage_runs *sr)
{
  unsigned i;

  for (i = 0; i < RAIDSIM_NSTAGES; ++i) {
    raid_hist_add_n (&r->stage[i], sr->v[i], sr->n[i]);
    sr->n[i] = 0;
  }
}

static void
record_stages (struct raidsim_job_result *r, struct stage_runs *sr,
               const struct hreq *h, const struct cmd *c, raidsim_ns now)
{
  raidsim_ns link;

  if (!sr->set) {
    /* The first request's stages are the values counted by repeats. */
    sr->set = true;
    sr->v[RAIDSIM_STAGE_HOST_QUEUE] = h->issued - h->due;
    if (c->acked) {
      sr->v[RAIDSIM_STAGE_CONTROLLER] = now - c->t_submit;
    }
    else {
      sr->v[RAIDSIM_STAGE_CONTROLLER] = c->t_issue - c->t_submit;
      sr->v[RAIDSIM_STAGE_COALESCE] = now - c->t_member;
    }
  }
  stage_add (r, sr, RAIDSIM_STAGE_HOST_QUEUE, h->issued - h->due);
  if (c->acked) {
    stage_add (r, sr, RAIDSIM_STAGE_CONTROLLER, now - c->t_submit);
    stage_add (r, sr, RAIDSIM_STAGE_COALESCE, 0);
    stage_add (r, sr, RAIDSIM_STAGE_LINK, 0);
    stage_add (r, sr, RAIDSIM_STAGE_DEVICE_QUEUE, 0);
    stage_add (r, sr, RAIDSIM_STAGE_DEVICE_SERVICE, 0);
    return;
  }
  link = c->io.dir == RAIDSIM_WRITE ? c->t_dev - c->t_issue
    : c->t_member - c->t_reaped;
  stage_add (r, sr, RAIDSIM_STAGE_CONTROLLER, c->t_issue - c->t_submit);
  stage_add (r, sr, RAIDSIM_STAGE_COALESCE, now - c->t_member);
  stage_add (r, sr, RAIDSIM_STAGE_LINK, link);
  stage_add (r, sr, RAIDSIM_STAGE_DEVICE_QUEUE, c->t_start - c->t_dev);
  stage_add (r, sr, RAIDSIM_STAGE_DEVICE_SERVICE, c->t_reaped - c->t_start);
}

/* One line of fio 3.33's latency log with log_offset=1 (flush_samples):
 * completion time in ms from the job's start after ramp_time (fio's
 * epoch, reset when the ramp ends), latency in ns, direction (0 read,
 * 1 write), bytes, offset, priority (always 0 here).
 */
static void
lat_log (struct raidsim_sim *s, const struct raidsim_job_result *r,
         const struct hreq *h, raidsim_ns now)
{
  FILE *fp = s->lat_logs[r - s->jobs];

  if (fp)
    fprintf (fp, "%" PRIu64 ", %" PRIu64 ", %u, %" PRIu64 ", %" PRIu64
             ", 0\n", (now - r->start) / RAIDSIM_NS_PER_MS, now - h->issued,
             (unsigned) h->req.dir, h->req.len, h->req.offset);
}

/* The 95% interval's half width over the mean, of the figure f of
 * each batch, less than p?  Student's t for k - 1 degrees of freedom
 * from 15 to 31 is 1.96 + 2.4 / (k - 1) to within 0.3%.
 */
static bool
es_tight (const double *f, unsigned k, double p)
{
  double mean = 0, var = 0, t = 1.96 + 2.4 / (k - 1);
  unsigned i;

  for (i = 0; i < k; ++i)
    mean += f[i];
  mean /= k;
  if (mean <= 0)
    return false;
  for (i = 0; i < k; ++i)
    var += (f[i] - mean) * (f[i] - mean);
  var /= k - 1;
  return t * sqrt (var / k) <= p * mean;
}

static void es_stop (struct raidsim_sim *s, unsigned job, raidsim_ns now);
static void thread_finished (struct raidsim_sim *s, struct thread *t,
                             raidsim_ns now);

/* A measured request of job `job` completed: count it in its batch,
 * and when a batch closes, see whether every figure is known well
 * enough.
 */
static void
es_count (struct raidsim_sim *s, unsigned job, const struct hreq *h,
          raidsim_ns now)
{
  struct early *e = &s->early[job];
  unsigned d = h->req.trim ? 2 : h->req.dir, i, k;
  double f[3][ES_NDIRS][ES_MAX];

  if (!e->started) {
    e->started = true;
    e->t0 = s->jobs[job].start;
  }
  e->cur.ios[d]++;
  e->cur.bytes[d] += h->req.len;
  e->cur.lat[d] += now - h->issued;
  if (++e->n < e->per)
    return;
  e->cur.len = now - e->t0;
  e->b[e->nb++] = e->cur;
  memset (&e->cur, 0, sizeof e->cur);
  e->n = 0;
  e->t0 = now;
  if (e->nb == ES_MAX) {
    for (i = 0; i < ES_MAX / 2; ++i) {
      struct es_batch *a = &e->b[2 * i], *b = &e->b[2 * i + 1];

      for (d = 0; d < ES_NDIRS; ++d) {
        a->ios[d] += b->ios[d];
        a->bytes[d] += b->bytes[d];
        a->lat[d] += b->lat[d];
      }
      a->len += b->len;
      e->b[i] = *a;
    }
    e->nb = ES_MAX / 2;
    e->per *= 2;
  }
  if (e->nb < ES_MIN || now - s->jobs[job].start < ES_MIN_NS)
    return;
  for (d = 0; d < ES_NDIRS; ++d) {
    bool any = false;

    for (k = 0; k < e->nb; ++k) {
      const struct es_batch *b = &e->b[k];

      if (b->len == 0)
        return;
      any |= b->ios[d] > 0;
      f[0][d][k] = b->ios[d] * 1e9 / b->len;
      f[1][d][k] = b->bytes[d] * 1e9 / b->len;
      f[2][d][k] = b->ios[d] ? (double) b->lat[d] / b->ios[d] : 0;
    }
    if (!any)
      continue;
    for (i = 0; i < 3; ++i)
      if (!es_tight (f[i][d], e->nb, e->precision))
        return;
  }
  e->ready = true;
  es_stop (s, job, now);
}

/* Whether job j is still running (some thread not finished). */
static bool
job_running (const struct raidsim_sim *s, unsigned j)
{
  unsigned i;

  for (i = 0; i < s->nthreads; ++i)
    if (s->threads[i].res == &s->jobs[j] && !s->threads[i].finished)
      return true;
  return false;
}

/* Every figure of the job is known to its precision.  Jobs that run
 * together share the array, so one stopping would change what the
 * others measure: the job's group stops once every job of it still
 * running is ready too, its threads then stopping as when a runtime
 * ends.
 */
static void
es_stop (struct raidsim_sim *s, unsigned job, raidsim_ns now)
{
  unsigned g = s->jobs[job].job->group, i, j;

  for (j = 0; j < s->njobs; ++j)
    if (s->jobs[j].job->group == g && job_running (s, j) &&
        !s->early[j].ready)
      return;
  for (j = 0; j < s->njobs; ++j) {
    if (s->jobs[j].job->group != g || !s->early[j].ready ||
        s->early[j].done)
      continue;
    s->early[j].done = true;
    s->jobs[j].stopped_at_precision = s->early[j].precision;
  }
  for (i = 0; i < s->nthreads; ++i) {
    struct thread *o = &s->threads[i];

    if (o->w.job->group != g || o->finished || o->w.stopped ||
        !s->early[o->res - s->jobs].done)
      continue;
    o->w.stopped = true;
    if (o->started && o->inflight == 0) {
      raidsim_engine_cancel (s->engine, &o->wake);
      thread_finished (s, o, now);
    }
  }
}

/* c was the last of h's commands: the request is done. */
static void
host_done (struct raidsim_sim *s, struct hreq *h, const struct cmd *c,
           raidsim_ns now)
{
  struct thread *t = h->thr;

  if (h->req.flush) {
    t->flushing = false;
    if (h->req.measured) {
      t->res->flush.ios++;
      raid_hist_record (&t->res->flush.lat, now - h->issued);
      if (now > t->res->end)
        t->res->end = now;
    }
  }
  else if (h->req.trim) {
    if (h->req.measured) {
      t->res->trim.ios++;
      t->res->trim.bytes += h->req.len;
      raid_hist_record (&t->res->trim.lat, now - h->issued);
      if (now > t->res->end)
        t->res->end = now;
      if (s->early[t->res - s->jobs].precision > 0 &&
          !s->early[t->res - s->jobs].ready)
        es_count (s, t->res - s->jobs, h, now);
    }
  }
  else if (h->req.measured) {
    struct raidsim_dir_result *d = &t->res->dir[h->req.dir];

    record_stages (t->res, t->runs, h, c, now);
    d->ios++;
    d->bytes += h->req.len;
    raid_hist_record (&d->lat, now - h->issued);
    if (now > t->res->end)
      t->res->end = now;
    if (s->lat_logs)
      lat_log (s, t->res, h, now);
    if (s->early[t->res - s->jobs].precision > 0 &&
        !s->early[t->res - s->jobs].ready)
      es_count (s, t->res - s->jobs, h, now);
  }
  t->inflight--;
  h->free_next = s->free_hreqs;
  s->free_hreqs = h;
  issue (s, t, now);
}

/* The controller delivered c's completion to the RAID layer.  For a
 * write its cache acknowledged earlier, the host request is long done:
 * the command is only recycled (and the RAID layer's count of commands
 * at the member goes down now, when the member really has it).
 */
static void bg_cmd_done (struct raidsim_sim *s, void *tag, raidsim_ns now);

static void
cmd_complete (struct raidsim_sim *s, struct cmd *c, raidsim_ns now)
{
  struct hreq *h = c->parent;
  struct raidsim_member_cmd mc = { c->io.member, c->io.offset, c->io.len };

  if (!c->io.flush)
    raidsim_array_cmd_done (s->array, &mc);
  c->free_next = s->free_cmds;
  s->free_cmds = c;
  if (c->acked)
    return;
  if (c->bg) {
    bg_cmd_done (s, c->tag, now);
    return;
  }
  if (--h->pending == 0)
    host_done (s, h, c, now);
}

/* The controller's cache took c: as far as the host knows, it is done. */
static void
cmd_acked (struct raidsim_sim *s, struct cmd *c, raidsim_ns now)
{
  struct hreq *h = c->parent;

  c->acked = true;
  if (c->bg) {
    bg_cmd_done (s, c->tag, now);
    return;
  }
  c->parent = NULL;
  if (--h->pending == 0)
    host_done (s, h, c, now);
}

/* ---- events ---- */

/* Hand out everything the controller has due by now; next is its
 * next () as of the call.  next () is asked after each io handed out,
 * which may have given the controller new input, and reap is called
 * only while it is due: the reap that would end the loop by returning
 * NULL is not made when next () already says that nothing is due
 * (device.h, whose rules controllers follow).
 */
static void
ctl_drain (struct raidsim_sim *s, raidsim_ns next, raidsim_ns now)
{
  enum raidsim_ctl_out what;
  struct raidsim_io *io;

  s->ctl_in_wake = true;
  while (next <= now) {
    struct cmd *c;

    io = s->ctl_ops->reap (s->ctl, now, &what);
    if (io != NULL) {
      c = container_of (io, struct cmd, io);
      if (what == RAIDSIM_CTL_ISSUE)
        cmd_issued (s, c, now);
      else if (what == RAIDSIM_CTL_ACK)
        cmd_acked (s, c, now);
      else
        cmd_complete (s, c, now);
    }
    next = s->ctl_ops->next (s->ctl);
    if (io == NULL)
      break;
  }
  s->ctl_in_wake = false;
  rewake (s, &s->ctl_wake, next, now);
}

static void
ctl_wake_fire (struct raidsim_engine *e, struct raidsim_event *ev)
{
  struct raidsim_sim *s = container_of (ev, struct raidsim_sim, ctl_wake);

  ctl_drain (s, s->ctl_ops->next (s->ctl), raidsim_engine_now (e));
}

/* The head of a transit queue, if its data has arrived by now. */
static struct cmd *
transit_pop (struct transit *q, raidsim_ns now)
{
  struct cmd *c = q->head;

  if (c == NULL || c->moved > now)
    return NULL;
  q->head = c->transit_next;
  if (q->head == NULL)
    q->tail = NULL;
  return c;
}

/* Everything due at the member by now: writes whose data has arrived go
 * to the device, the device hands back what it has finished, reads whose
 * data has reached the host are done.  Until nothing is left, since one
 * can make another due at the same instant.
 */
static void
dev_wake_fire (struct raidsim_engine *e, struct raidsim_event *ev)
{
  struct sim_member *m = container_of (ev, struct sim_member, wake);
  struct raidsim_sim *s = m->sim;
  raidsim_ns now = raidsim_engine_now (e), next;

  m->in_wake = true;
  do {
    struct raidsim_io *io;
    struct cmd *c;

    while ((c = transit_pop (&m->transit[RAIDSIM_WRITE], now)) != NULL)
      dev_submit (s, c, now);
    if (m->dev_next <= now) {
      while ((io = m->ops->reap (m->dev, now)) != NULL) {
        c = container_of (io, struct cmd, io);
        member_account (s, m, now);
        m->queue--;
        c->t_reaped = now;
        /* Service began when the model says, or else when the io and
         * the device were both there (sim.h).
         */
        if (io->started != RAIDSIM_NEVER)
          c->t_start = io->started;
        else
          c->t_start = m->last_done > c->t_dev ? m->last_done : c->t_dev;
        m->last_done = now;
        dev_done (s, c, now);
      }
      m->dev_next = m->ops->next (m->dev);
    }
    while ((c = transit_pop (&m->transit[RAIDSIM_READ], now)) != NULL)
      member_finished (s, c, now);
  } while ((next = member_next (m)) <= now);
  m->in_wake = false;
  rewake (s, &m->wake, next, now);
}

static void
window_opens (struct raidsim_engine *e, struct raidsim_event *ev)
{
  struct raidsim_sim *s = container_of (ev, struct raidsim_sim, window_ev);
  unsigned i;

  for (i = 0; i < s->nmembers; ++i)
    raidsim_link_reset_stats (&s->m[i].port);
  raidsim_link_reset_stats (&s->uplink);
}

/* ---- host side ---- */

struct split_ctx {
  struct raidsim_sim *s;
  struct hreq *h;
  raidsim_ns now;
};

static int
send_cmd (const struct raidsim_member_cmd *mc, void *opaque)
{
  struct split_ctx *ctx = opaque;
  struct raidsim_sim *s = ctx->s;
  struct cmd *c = s->free_cmds;

  if (c == NULL) {
    raidsim_set_error ("internal error: member command pool exhausted");
    return -1;
  }
  s->free_cmds = c->free_next;
  c->parent = ctx->h;
  c->bg = false;
  c->acked = false;
  c->fua = ctx->h->req.fua && !ctx->h->req.trim;
  c->fua_flushing = false;
  c->io.dir = ctx->h->req.dir;
  c->io.flush = ctx->h->req.flush;
  c->io.trim = ctx->h->req.trim;
  c->io.fua = c->fua;
  c->io.member = mc->member;
  c->io.offset = mc->offset;
  c->io.len = mc->len;
  c->t_submit = ctx->now;
  ctx->h->pending++;
  s->ctl_ops->submit (s->ctl, &c->io, ctx->now);
  return 0;
}

static void start_thread (struct raidsim_sim *s, unsigned i, raidsim_ns now);
static void thread_finished (struct raidsim_sim *s, struct thread *t,
                             raidsim_ns now);

/* exitall (fio's fio_terminate_threads): thread t has finished, and the
 * threads its job's exit_what names stop issuing.  Their I/O in flight
 * completes; one with none finishes now, one not started yet finishes
 * as it starts.
 */
static void
exit_all (struct raidsim_sim *s, const struct thread *t, raidsim_ns now)
{
  const struct raidsim_job *job = t->w.job;
  unsigned i;

  for (i = 0; i < s->nthreads; ++i) {
    struct thread *o = &s->threads[i];
    bool hit;

    if (o->finished || o->w.stopped)
      continue;
    switch (job->exit_what) {
    case RAIDSIM_EXIT_GROUP:
      hit = o->w.job->report_group == job->report_group;
      break;
    case RAIDSIM_EXIT_STONEWALL:
      hit = o->started && o->w.t0 <= now;
      break;
    default:
      hit = true;
    }
    if (hit)
      o->w.stopped = true;
  }
  for (i = 0; i < s->nthreads; ++i) {
    struct thread *o = &s->threads[i];

    if (o->w.stopped && o->started && !o->finished && o->inflight == 0) {
      raidsim_engine_cancel (s->engine, &o->wake);
      thread_finished (s, o, now);
    }
  }
}

/* A thread has stopped and its last request is done.  If it was the
 * last of its job, the jobs that wait_for it start; the last thread of
 * a group to finish starts the next group.
 */
static void
thread_finished (struct raidsim_sim *s, struct thread *t, raidsim_ns now)
{
  const struct raidsim_job *job = t->w.job;
  unsigned i;

  t->finished = true;
  /* A job of its group may be waiting for this one to stop early. */
  for (i = 0; i < s->njobs; ++i)
    if (s->early[i].ready && !s->early[i].done &&
        s->jobs[i].job->group == job->group) {
      es_stop (s, i, now);
      break;
    }
  if (s->jf->exitall)
    exit_all (s, t, now);
  if (s->waiting) {
    for (i = 0; i < s->nthreads; ++i)
      if (s->threads[i].w.job == job && !s->threads[i].finished)
        break;
    if (i == s->nthreads)
      for (i = 0; i < s->nthreads; ++i) {
        const struct raidsim_job *w = s->threads[i].w.job;

        if (w->waitee && &s->jf->jobs[w->waitee - 1] == job &&
            w->group == s->group)
          start_thread (s, i, now);
      }
  }
  if (--s->group_left == 0 && s->group + 1 < s->jf->ngroups)
    start_group (s, s->group + 1, now);
  else if (s->group_left == 0 && s->bg) {
    raidsim_bg_fg_done (s->bg, now);
    bg_kick (s, now);
  }
}

/* ---- the background stream ---- */

/* The stream sends a member command: from the pool, through the RAID
 * layer's count of commands at each member, to the controller like the
 * host's.
 */
static void
bg_send (void *opaque, enum raidsim_dir dir,
         const struct raidsim_member_cmd *mc, void *tag)
{
  struct raidsim_sim *s = opaque;
  struct cmd *c = s->free_cmds;
  raidsim_ns now = raidsim_engine_now (s->engine);

  /* The pool holds raidsim_bg_max_cmds for the stream. */
  if (c == NULL)
    abort ();
  s->free_cmds = c->free_next;
  c->tag = tag;
  c->bg = true;
  c->acked = false;
  c->fua = c->fua_flushing = false;
  c->io.dir = dir;
  c->io.flush = false;
  c->io.trim = false;
  c->io.fua = false;
  c->io.member = mc->member;
  c->io.offset = mc->offset;
  c->io.len = mc->len;
  c->t_submit = now;
  raidsim_array_cmd_sent (s->array, mc);
  s->ctl_ops->submit (s->ctl, &c->io, now);
}

/* Let the stream issue what is due and keep its wake-up at its next (). */
static void
bg_kick (struct raidsim_sim *s, raidsim_ns now)
{
  raidsim_bg_run (s->bg, now, bg_send, s);
  ctl_kick (s, now);
  rewake (s, &s->bg_wake, raidsim_bg_next (s->bg), now);
}

static void
bg_cmd_done (struct raidsim_sim *s, void *tag, raidsim_ns now)
{
  raidsim_bg_cmd_done (s->bg, tag, now, bg_send, s);
  bg_kick (s, now);
}

static void
bg_wake_fire (struct raidsim_engine *e, struct raidsim_event *ev)
{
  struct raidsim_sim *s = container_of (ev, struct raidsim_sim, bg_wake);

  bg_kick (s, raidsim_engine_now (e));
}

/* Top the thread up to iodepth requests in flight, as far as its
 * pacing lets it (raidsim_worker_ready; always at once for a job that
 * does not pace itself).
 */
static void
issue (struct raidsim_sim *s, struct thread *t, raidsim_ns now)
{
  while (t->inflight < t->w.job->iodepth && !t->flushing) {
    struct hreq *h = s->free_hreqs;
    struct split_ctx ctx = { s, h, now };
    raidsim_ns at = t->w.timed ? raidsim_worker_ready (&t->w, now,
                                                       t->inflight) : now;

    if (at > now) {
      if (at != RAIDSIM_NEVER && (!raidsim_event_scheduled (&t->wake) ||
                                  t->wake.time != at))
        schedule (s, &t->wake, at);
      return;
    }

    /* The pool holds iodepth requests for every thread, so it cannot be
     * empty while this thread is below its iodepth.
     */
    if (h == NULL)
      abort ();
    if (!raidsim_worker_next (&t->w, now, &h->req)) {
      if (t->inflight > 0 || t->finished)
        return;
      if (!raidsim_worker_end_flush (&t->w, &h->req)) {
        thread_finished (s, t, now);
        return;
      }
    }
    s->free_hreqs = h->free_next;
    h->thr = t;
    h->due = h->req.due;        /* a closed loop's is now; a replayed
                                 * trace's may be earlier */
    h->issued = now;
    h->pending = 0;
    t->inflight++;
    if (h->req.flush) {
      t->flushing = true;
      if (raidsim_array_flush (s->array, send_cmd, &ctx) != 0) {
        fprintf (stderr, "raidsim: internal error: %s\n", raidsim_error ());
        abort ();
      }
      /* Every member failed: nothing to wait for. */
      if (h->pending == 0)
        host_done (s, h, NULL, now);
    }
    else if (h->req.trim
             ? raidsim_array_discard (s->array, h->req.offset, h->req.len,
                                      send_cmd, &ctx) != 0
             : raidsim_array_split (s->array, h->req.dir, h->req.offset,
                                    h->req.len, send_cmd, &ctx) != 0) {
      fprintf (stderr, "raidsim: internal error: %s\n", raidsim_error ());
      abort ();
    }
    ctl_kick (s, now);
  }
}

static void
thread_wake_fire (struct raidsim_engine *e, struct raidsim_event *ev)
{
  struct thread *t = container_of (ev, struct thread, wake);

  issue (t->sim, t, raidsim_engine_now (e));
}

/* Start every thread of stonewall group g at now, or its startdelay
 * later: its times (ramp_time, runtime) and its figures count from
 * there, a job's from its first thread's start.
 */
/* Whether thread i must wait for another job of its group (wait_for). */
static bool
waits (const struct raidsim_sim *s, unsigned i)
{
  const struct raidsim_job *j = s->threads[i].w.job;

  return j->waitee && s->jf->jobs[j->waitee - 1].group == j->group;
}

/* Thread i starts now, or its startdelay later: its times and its
 * job's figures count from there (a job's from its first thread).
 */
static void
start_thread (struct raidsim_sim *s, unsigned i, raidsim_ns now)
{
  struct raidsim_job_result *r = s->threads[i].res;
  raidsim_ns t0 = now + s->threads[i].w.delay;

  s->threads[i].w.t0 = t0;
  s->threads[i].started = true;
  if (i == 0 || s->threads[i - 1].res != r ||
      t0 + r->job->ramp_time < r->start)
    r->start = r->end = t0 + r->job->ramp_time;
  issue (s, &s->threads[i], now);
}

static void
start_group (struct raidsim_sim *s, unsigned g, raidsim_ns now)
{
  unsigned i;

  s->group = g;
  s->group_left = 0;
  for (i = 0; i < s->nthreads; ++i)
    if (s->threads[i].w.job->group == g)
      s->group_left++;
  for (i = 0; i < s->nthreads; ++i)
    if (s->threads[i].w.job->group == g && !waits (s, i))
      start_thread (s, i, now);
}

/* ---- set-up ---- */

static uint64_t
gcd64 (uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

void
raidsim_sim_free (struct raidsim_sim *s)
{
  unsigned i;

  if (s == NULL)
    return;
  for (i = 0; i < s->nmembers; ++i)
    if (s->m[i].dev)
      s->m[i].ops->destroy (s->m[i].dev);
  if (s->ctl)
    s->ctl_ops->destroy (s->ctl);
  if (s->lat_logs) {
    for (i = 0; i < s->njobs; ++i)
      if (s->lat_logs[i])
        fclose (s->lat_logs[i]);
    free (s->lat_logs);
  }
  raidsim_bg_free (s->bg);
  raidsim_array_free (s->array);
  raidsim_engine_free (s->engine);
  free (s->jobs);
  free (s->runs);
  free (s->early);
  free (s->threads);
  free (s->hreqs);
  free (s->cmds);
  free (s);
}

struct raidsim_sim *
raidsim_sim_new (const struct raidsim_array_config *ac,
                 const struct raidsim_jobfile *jf, uint64_t seed)
{
  struct raidsim_sim *s;
  uint64_t sizes[RAID_MAX_MEMBERS];
  struct raidsim_array_params ap;
  uint64_t nhreqs = 0, ncmds = 0, min_len = 0;
  unsigned i, j, k;

  s = calloc (1, sizeof *s);
  if (s == NULL)
    goto nomem;
  s->ac = ac;
  s->jf = jf;
  s->seed = seed;
  s->nmembers = ac->members;

  raidsim_array_config_params (ac, sizes, &ap);
  s->array = raidsim_array_new (&ap);
  if (s->array == NULL)
    goto err;
  s->array_size = raidsim_array_size (s->array);

  /* Check every job and size the pools for the worst case. */
  for (j = 0; j < jf->njobs; ++j) {
    const struct raidsim_job *job = &jf->jobs[j];
    struct raidsim_region r;
    uint64_t reqs;

    for (i = 0; i < job->numjobs; ++i)
      if (raidsim_job_thread_region (jf, job, s->array_size, i, &r) == -1)
        goto err;
    reqs = job->numjobs * job->iodepth;
    if (job->trace) {
      /* A thread never has more in flight than its trace has I/Os;
       * one request more lets it ask for the next when all are in
       * flight, and hear that there is none (issue takes a request
       * from the pool before asking).
       */
      if (raidsim_trace_check (job->trace, s->array_size) == -1)
        goto err;
      if (job->iodepth > job->trace->n)
        reqs = job->numjobs * (job->trace->n + 1);
    }
    nhreqs += reqs;
    ncmds += reqs * raidsim_array_max_cmds (s->array,
                                            raidsim_job_max_bs (job));
    if (ncmds > MAX_CMDS) {
      raidsim_set_error ("%s:%u: iodepth: %" PRIu64 " threads x %" PRIu64
                         " I/Os of %" PRIu64 " bytes can split into more "
                         "than %" PRIu64 " member commands; use fewer "
                         "threads, a lower iodepth or a smaller bs",
                         jf->path, job->line, job->numjobs, job->iodepth,
                         raidsim_job_max_bs (job), MAX_CMDS);
      goto err;
    }
    s->nthreads += job->numjobs;
    if (job->waitee)
      s->waiting = true;
    /* Member and link figures are counted from the end of the first
     * group's ramp: later groups start at times not known yet.
     */
    if (job->group == 0 && job->ramp_time > s->window_start)
      s->window_start = job->ramp_time;
    /* No member command is shorter than this: pieces end at request
     * and chunk boundaries, both multiples of it.
     */
    for (i = 0; i < job->numjobs; ++i) {
      uint64_t g;

      raidsim_job_thread_region (jf, job, s->array_size, i, &r);
      g = gcd64 (raidsim_job_bs_gcd (job), r.start);
      if (ac->level != RAIDSIM_LEVEL_SINGLE)
        g = gcd64 (g, ac->chunk);
      min_len = min_len ? gcd64 (min_len, g) : g;
    }
  }

  /* A resync or rebuild: its commands come from the same pool. */
  if (raidsim_sync_config_action (ac) != RAIDSIM_SYNC_NONE) {
    s->bg = raidsim_bg_new (ac, s->array, s->nmembers);
    if (s->bg == NULL)
      goto err;
    ncmds += raidsim_bg_max_cmds (s->bg);
    min_len = gcd64 (min_len, raidsim_bg_min_len (s->bg));
  }

  /* Writes a controller's cache has acknowledged stay in the pool until
   * they are flushed.
   */
  if (ac->ctl->ops->max_held) {
    uint64_t held = ac->ctl->ops->max_held (ac->ctl->params, min_len);

    if (ncmds + held > MAX_CMDS) {
      raidsim_set_error ("%s: cache_size: the cache could hold more than "
                         "%" PRIu64 " commands of %" PRIu64 " bytes; use a "
                         "smaller cache or larger blocks",
                         ac->ctl->path, MAX_CMDS, min_len);
      goto err;
    }
    ncmds += held;
  }

  s->njobs = jf->njobs;
  s->jobs = calloc (s->njobs, sizeof *s->jobs);
  s->runs = calloc (s->njobs, sizeof *s->runs);
  s->early = calloc (s->njobs, sizeof *s->early);
  s->precision = -1;
  s->threads = calloc (s->nthreads, sizeof *s->threads);
  s->hreqs = calloc (nhreqs, sizeof *s->hreqs);
  s->cmds = calloc (ncmds, sizeof *s->cmds);
  if (!s->jobs || !s->runs || !s->early || !s->threads || !s->hreqs ||
      !s->cmds)
    goto nomem;
  for (i = 0; i < nhreqs; ++i) {
    s->hreqs[i].free_next = s->free_hreqs;
    s->free_hreqs = &s->hreqs[i];
  }
  for (i = 0; i < ncmds; ++i) {
    s->cmds[i].sim = s;
    s->cmds[i].free_next = s->free_cmds;
    s->free_cmds = &s->cmds[i];
  }

  /* A wake-up per model, the window, the background stream's if there
   * is one, and one per thread of a job that paces itself.
   */
  {
    size_t nwake = 0;

    for (j = 0; j < jf->njobs; ++j)
      if (raidsim_job_timed (&jf->jobs[j]))
        nwake += jf->jobs[j].numjobs;
    s->engine = raidsim_engine_new (s->nmembers + 2 + (s->bg != NULL)
                                    + nwake);
  }
  if (s->engine == NULL)
    goto nomem;

  for (j = 0, k = 0; j < jf->njobs; ++j) {
    const struct raidsim_job *job = &jf->jobs[j];

    s->jobs[j].job = job;
    s->jobs[j].start = job->ramp_time;  /* moved when its group starts */
    s->jobs[j].end = job->ramp_time;
    for (i = 0; i < RAIDSIM_NDIRS; ++i)
      raid_hist_init (&s->jobs[j].dir[i].lat);
    for (i = 0; i < RAIDSIM_NSTAGES; ++i)
      raid_hist_init (&s->jobs[j].stage[i]);
    raid_hist_init (&s->jobs[j].flush.lat);
    raid_hist_init (&s->jobs[j].trim.lat);
    for (i = 0; i < job->numjobs; ++i, ++k) {
      struct raidsim_region r;

      raidsim_job_thread_region (jf, job, s->array_size, i, &r);
      s->threads[k].res = &s->jobs[j];
      s->threads[k].runs = &s->runs[j];
      s->threads[k].sim = s;
      raidsim_event_init (&s->threads[k].wake, thread_wake_fire);
      raidsim_worker_init_region (&s->threads[k].w, job, &r, seed, j, i);
    }
  }

  for (i = 0; i < s->nmembers; ++i) {
    const struct raidsim_device_config *dc = ac->devices[i];
    struct sim_member *m = &s->m[i];
    char name[32];

    m->sim = s;
    m->ops = dc->ops;
    m->dev = dc->ops->create (dc->params, dc->capacity);
    if (m->dev == NULL)
      goto err;
    if (dc->ops->place)
      dc->ops->place (m->dev, i, seed);
    m->dev_next = dc->ops->next (m->dev);
    raidsim_event_init (&m->wake, dev_wake_fire);
    snprintf (name, sizeof name, "port%u", i);
    raidsim_link_init_spec (&m->port, name, &ac->ctl->port);
  }
  raidsim_link_init_spec (&s->uplink, "uplink", &ac->ctl->uplink);
  for (i = 0; i < s->nmembers; ++i) {
    struct sim_member *m = &s->m[i];

    if (m->port.rate)
      m->path[m->npath++] = &m->port;
    if (s->uplink.rate)
      m->path[m->npath++] = &s->uplink;
  }
  s->ctl_ops = ac->ctl->ops;
  s->ctl = s->ctl_ops->create (ac->ctl->params, s->nmembers);
  if (s->ctl == NULL)
    goto err;
  raidsim_event_init (&s->ctl_wake, ctl_wake_fire);
  raidsim_event_init (&s->window_ev, window_opens);
  raidsim_event_init (&s->bg_wake, bg_wake_fire);
  return s;

 nomem:
  raidsim_set_error ("simulation: %s", strerror (ENOMEM));
 err:
  raidsim_sim_free (s);
  return NULL;
}

int
raidsim_sim_lat_log (struct raidsim_sim *s, const char *prefix)
{
  unsigned i;

  s->lat_logs = calloc (s->njobs, sizeof *s->lat_logs);
  if (s->lat_logs == NULL) {
    raidsim_set_error ("latency log: %s", strerror (ENOMEM));
    return -1;
  }
  for (i = 0; i < s->njobs; ++i) {
    char path[4096];

    if (s->jobs[i].job->hidden)
      continue;
    snprintf (path, sizeof path, "%s_lat.%u.log", prefix, i + 1);
    if ((s->lat_logs[i] = fopen (path, "w")) == NULL) {
      raidsim_set_error ("latency log: %s: %s", path, strerror (errno));
      return -1;
    }
  }
  return 0;
}

int
raidsim_sim_close_logs (struct raidsim_sim *s)
{
  unsigned i;
  int r = 0;

  for (i = 0; s->lat_logs && i < s->njobs; ++i)
    if (s->lat_logs[i]) {
      if ((ferror (s->lat_logs[i]) | fclose (s->lat_logs[i])) != 0 && r == 0) {
        raidsim_set_error ("latency log %u: write error", i + 1);
        r = -1;
      }
      s->lat_logs[i] = NULL;
    }
  return r;
}

int
raidsim_sim_run (struct raidsim_sim *s)
{
  unsigned i;

  /* The models' state is consumed by a run; a second needs a new sim. */
  if (s->ran) {
    raidsim_set_error ("simulation: already run");
    return -1;
  }
  s->ran = true;
  for (i = 0; i < s->njobs; ++i) {
    const struct raidsim_job *j = s->jobs[i].job;
    struct early *e = &s->early[i];

    e->precision = s->precision >= 0 ? s->precision
      : j->time_based && j->runtime > 60 * RAIDSIM_NS_PER_S
      ? RAIDSIM_DEFAULT_PRECISION : 0;
    e->per = ES_FIRST;
  }
  if (s->window_start > 0)
    schedule (s, &s->window_ev, s->window_start);
  start_group (s, 0, 0);
  if (s->bg) {
    raidsim_bg_start (s->bg, 0);
    bg_kick (s, 0);
  }
  raidsim_engine_run (s->engine);
  s->end = raidsim_engine_now (s->engine);
  if (s->end < s->window_start)
    s->end = s->window_start;
  for (i = 0; i < s->nmembers; ++i)
    member_account (s, &s->m[i], s->end);
  for (i = 0; i < s->njobs; ++i)
    flush_stages (&s->jobs[i], &s->runs[i]);
  if (s->bg)
    raidsim_bg_finish (s->bg);
  return 0;
}

void
raidsim_sim_set_precision (struct raidsim_sim *s, double precision)
{
  s->precision = precision > 0 ? precision : 0;
}

/* ---- results ---- */

const char *const raidsim_stage_names[RAIDSIM_NSTAGES] = {
  [RAIDSIM_STAGE_HOST_QUEUE] = "host-queue",
  [RAIDSIM_STAGE_CONTROLLER] = "controller",
  [RAIDSIM_STAGE_COALESCE] = "coalescing",
  [RAIDSIM_STAGE_LINK] = "link",
  [RAIDSIM_STAGE_DEVICE_QUEUE] = "device-queue",
  [RAIDSIM_STAGE_DEVICE_SERVICE] = "device-service",
};

static double
window_util (const struct raidsim_sim *s, raidsim_ns busy)
{
  raidsim_ns span = s->end > s->window_start ? s->end - s->window_start : 0;

  return span ? 100.0 * busy / span : 0;
}

double
raidsim_sim_member_util (const struct raidsim_sim *s, unsigned i)
{
  return i < s->nmembers ? window_util (s, s->m[i].res.busy) : 0;
}

double
raidsim_sim_link_util (const struct raidsim_sim *s, unsigned i)
{
  const struct raidsim_link *l = raidsim_sim_link (s, i);
  raidsim_ns r, w;

  if (l == NULL)
    return 0;
  r = l->busy[RAIDSIM_READ];
  w = l->busy[RAIDSIM_WRITE];
  return window_util (s, !l->full_duplex ? r + w : r > w ? r : w);
}

double
raidsim_sim_bottleneck (const struct raidsim_sim *s, char *name, size_t len)
{
  double best = -1, u;
  unsigned i;

  for (i = 0; i < s->nmembers; ++i)
    if ((u = raidsim_sim_member_util (s, i)) > best) {
      best = u;
      snprintf (name, len, "member%u", i);
    }
  for (i = 0; i < raidsim_sim_nlinks (s); ++i)
    if (raidsim_sim_link (s, i) && (u = raidsim_sim_link_util (s, i)) > best) {
      best = u;
      snprintf (name, len, "%s", raidsim_sim_link (s, i)->name);
    }
  return best < 0 ? 0 : best;
}

const struct raidsim_jobfile *
raidsim_sim_jobfile (const struct raidsim_sim *s)
{
  return s->jf;
}

uint64_t
raidsim_sim_seed (const struct raidsim_sim *s)
{
  return s->seed;
}

unsigned
raidsim_sim_njobs (const struct raidsim_sim *s)
{
  return s->njobs;
}

unsigned
raidsim_sim_nmembers (const struct raidsim_sim *s)
{
  return s->nmembers;
}

uint64_t
raidsim_sim_array_size (const struct raidsim_sim *s)
{
  return s->array_size;
}

const struct raidsim_array_config *
raidsim_sim_array (const struct raidsim_sim *s)
{
  return s->ac;
}

const struct raidsim_job_result *
raidsim_sim_job (const struct raidsim_sim *s, unsigned i)
{
  return i < s->njobs ? &s->jobs[i] : NULL;
}

const struct raidsim_member_result *
raidsim_sim_member (const struct raidsim_sim *s, unsigned i)
{
  return i < s->nmembers ? &s->m[i].res : NULL;
}

unsigned
raidsim_sim_nlinks (const struct raidsim_sim *s)
{
  return s->nmembers + 1;
}

const struct raidsim_link *
raidsim_sim_link (const struct raidsim_sim *s, unsigned i)
{
  const struct raidsim_link *l;

  if (i < s->nmembers)
    l = &s->m[i].port;
  else if (i == s->nmembers)
    l = &s->uplink;
  else
    return NULL;
  return l->rate ? l : NULL;
}

void
raidsim_sim_window (const struct raidsim_sim *s, raidsim_ns *start,
                    raidsim_ns *end)
{
  *start = s->window_start;
  *end = s->end;
}

const struct raidsim_bg_result *
raidsim_sim_sync (const struct raidsim_sim *s)
{
  return s->bg ? raidsim_bg_result (s->bg) : NULL;
}

uint64_t
raidsim_sim_events (const struct raidsim_sim *s)
{
  return raidsim_engine_fired (s->engine);
}
