/* nbdkit-raid-plugin: model=ARRAY.ini, the wall-clock driver of the
 * simulator's models (see timing.h for where it hooks in).
 *
 * The stages are sim.c's, and the code that moves a command through
 * them is the engine's own (include/raidsim/pipeline.h), which sim.c
 * runs too:
 *
 *   RAID layer (array.c: split, read policy)
 *   -> controller submit ... reap ISSUE (or ACK from its cache)
 *   -> [write: links] -> device submit ... reap
 *   -> [read: links]  -> controller member_done ... reap COMPLETE
 *   -> RAID layer (last command of the request?)
 *
 * and the models are raidsim_lib's own (RAID layer, controller, links,
 * devices), created from the array file as `raidsim run` creates them.
 * What is here is the driver's part: the clock, the requests waiting
 * for their commands, and the hooks the pipeline calls.
 * What differs is who owns the clock: here model time is
 * CLOCK_MONOTONIC minus the moment the models were built, in
 * nanoseconds.
 *
 * One lock (tm.lock) guards every model's state.  A client request's
 * thread takes it to submit the request at the clock's reading,
 * and hands out at once whatever the models can answer at that instant
 * (a model that adds no latency then never involves the timing thread).
 * The timing thread does the rest: it finds the earliest time any model
 * has something to do (the controller's next (), each device's next (),
 * the head of each member's link transit queues), sleeps until shortly
 * before it, and runs every model to that time.
 *
 * Lookahead.  Waking a sleeping thread takes tens of microseconds on a
 * busy machine, twice over here (the timing thread, then the request's
 * thread).  So the timing thread runs the models up to `lookahead`
 * before their time comes on the clock: it wakes at T - lookahead,
 * advances the models to T exactly, and tells each finished request
 * its completion time T; the request's thread, once its real I/O is
 * done, sleeps to just before T and spins to it (timing_end).  The
 * cost: a command submitted while the models are ahead of the clock is
 * taken as submitted at the models' time (the calling rules want
 * non-decreasing times), at most lookahead later than it really was.
 * A closed-loop client at QD1 never submits then (it is waiting for
 * its one request); at higher QD it shifts a few arrivals by up to
 * lookahead.  -D raid.timing_lookahead_us=0 turns it off.
 *
 * Model times are exact in the models; the clock's times are not.  A
 * request runs its real I/O at once, whatever the models say; only its
 * completion is held back.  Its model completion
 * time may come before the real I/O is done (the host is slower than
 * the model): the request then returns when the real I/O is done and is
 * counted late.  The models go on from their own times either way, as
 * the simulator's would.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/array.h"
#include "raidsim/config.h"
#include "raidsim/controller.h"
#include "raidsim/device.h"
#include "raidsim/error.h"
#include "raidsim/histogram.h"
#include "raidsim/link.h"
#include "raidsim/pipeline.h"

#include "clock.h"
#include "limits.h"
#include "modelfile.h"
#include "timing.h"

/* -D raid.timing_lookahead_us=N: how far ahead of the clock the timing
 * thread runs the models (see above).
 */
NBDKIT_DLL_PUBLIC int raid_debug_timing_lookahead_us = 100;
/* -D raid.timing_spin_us=N: the last microseconds before a completion
 * time that a request's thread spins rather than sleeps.
 */
NBDKIT_DLL_PUBLIC int raid_debug_timing_spin_us = 60;
/* -D raid.timing_host_us=N: return a request N microseconds before the
 * models' completion time (never before its real I/O has ended), to
 * take off the latency the host's own path adds on top of the model's:
 * the client, the socket and nbdkit, which a client sees even with a
 * model that adds nothing.  0 (the default): the model's time exactly.
 * bench/realtime-matrix.sh measures the path (its "host floor").
 */
NBDKIT_DLL_PUBLIC int raid_debug_timing_host_us = 0;

/* -D raid.timing_poll_us=N: a thread that waits for the models while
 * their next time is within N us polls the clock for it rather than
 * sleep until the timing thread wakes it; one thread at a time (see
 * timing_end).  0: never.
 */
NBDKIT_DLL_PUBLIC int raid_debug_timing_poll_us = 300;
static atomic_bool poller_busy;  /* a thread polls (timing_end) */

/* A member command, as the models see it. */
struct tcmd {
  struct raidsim_io io;
  struct timing_req *req;       /* NULL once acknowledged (ACK) */
  bool acked;
  struct tcmd *free_next;
};

static struct {
  bool started;

  pthread_mutex_t lock;         /* everything below, but stats */
  pthread_cond_t kick;          /* an earlier deadline, or stop */
  pthread_t thread;
  bool stop;
  uint64_t t0;                  /* CLOCK_MONOTONIC of model time 0 */
  raidsim_ns now;               /* the models' time */
  raidsim_ns wake_at;           /* what the thread sleeps for */

  struct raidsim_array *array;  /* the RAID layer (array.c) */
  uint64_t array_size;          /* the modelled array's */
  const struct raidsim_controller_ops *ctl_ops;
  void *ctl;
  struct raidsim_link uplink;
  unsigned nmembers;
  struct raidsim_pipe_member m[RAID_MAX_MEMBERS];       /* pipeline.h */
  uint64_t capacity[RAID_MAX_MEMBERS];
  struct tcmd *free_cmds;
  timing_state_fn state_fn;     /* the real array's state (timing.h) */
  struct timing_state state;    /* as the RAID layer last took it */
} tm = {
  .lock = PTHREAD_MUTEX_INITIALIZER,
};

bool
timing_enabled (void)
{
  return modelfile_array () != NULL;
}

/* ---- the pipeline's hooks (pipeline.h) ---- */

/* A command of request r is done, as far as the client is concerned,
 * at model time now.  r lives on its thread's stack: nothing of it is
 * touched after the unlock.
 */
static void
req_model_done (struct timing_req *r, raidsim_ns now)
{
  pthread_mutex_lock (&r->lock);
  if (--r->left == 0) {
    r->done = tm.t0 + now;
    pthread_cond_signal (&r->cond);
  }
  pthread_mutex_unlock (&r->lock);
}

/* The controller has delivered c: the RAID layer's count of commands
 * at its member goes down (the read policies look at it), and c is
 * recycled.
 */
static void
cmd_complete (struct tcmd *c)
{
  struct raidsim_member_cmd mc = { c->io.member, c->io.offset, c->io.len };

  /* Flushes are not pending for the read policies (array.h). */
  if (!c->io.flush)
    raidsim_array_cmd_done (tm.array, &mc);
  c->free_next = tm.free_cmds;
  tm.free_cmds = c;
}

/* Whether a round of run_due moved anything. */
static bool progress;

static void
to_device (void *opaque, struct raidsim_io *io, raidsim_ns now)
{
  raidsim_pipe_dev_submit (&tm.m[io->member], io, now);
  progress = true;
}

static void
reaped (void *opaque, struct raidsim_io *io, raidsim_ns now)
{
  progress = true;
}

static void
finished (void *opaque, struct raidsim_io *io, raidsim_ns now)
{
  tm.ctl_ops->member_done (tm.ctl, io, now);
  progress = true;
}

static void
ctl_out (void *opaque, struct raidsim_io *io, enum raidsim_ctl_out what,
         raidsim_ns now)
{
  struct tcmd *c = container_of (io, struct tcmd, io);
  struct raidsim_pipe_member *m = &tm.m[io->member];

  progress = true;
  switch (what) {
  case RAIDSIM_CTL_ISSUE:
    if (raidsim_pipe_crosses_to_device (m, io))
      raidsim_pipe_transit_push (m, io, now);
    else
      raidsim_pipe_dev_submit (m, io, now);
    break;
  case RAIDSIM_CTL_ACK:
    c->acked = true;
    req_model_done (c->req, now);
    c->req = NULL;
    break;
  case RAIDSIM_CTL_COMPLETE:
    if (!c->acked)
      req_model_done (c->req, now);
    cmd_complete (c);
    break;
  }
}

/* Everything due by now, until nothing is left: one stage's output is
 * the next one's input at the same instant.
 */
static void
run_due (raidsim_ns now)
{
  unsigned i;

  do {
    progress = false;
    raidsim_pipe_ctl_run (tm.ctl_ops, tm.ctl, tm.ctl_ops->next (tm.ctl),
                          now, ctl_out, NULL);
    for (i = 0; i < tm.nmembers; ++i)
      raidsim_pipe_member_run (&tm.m[i], now, to_device, reaped, finished,
                               NULL);
  } while (progress);
}

/* The earliest time a model has something to do. */
static raidsim_ns
next_deadline (void)
{
  raidsim_ns t = tm.ctl_ops->next (tm.ctl);
  unsigned i;

  for (i = 0; i < tm.nmembers; ++i) {
    raidsim_ns m = raidsim_pipe_member_next (&tm.m[i]);

    if (m < t)
      t = m;
  }
  return t;
}

/* The models' time for an input arriving now: the clock, or the
 * models' own time if they have run ahead of it (lookahead).
 */
static raidsim_ns
model_now (void)
{
  raidsim_ns now = clock_ns () - tm.t0;

  if (now < tm.now)
    now = tm.now;
  tm.now = now;
  return now;
}

/* With tm.lock held: if the models' next time is due on the clock, or
 * due within the lookahead, run them to it, their own time for it,
 * however late the clock is, and return true.  d is next_deadline ().
 */
static bool
advance (raidsim_ns d)
{
  raidsim_ns ahead = (raidsim_ns) raid_debug_timing_lookahead_us * 1000;

  if (d == RAIDSIM_NEVER || clock_ns () - tm.t0 + ahead < d)
    return false;
  if (d > tm.now)
    tm.now = d;
  run_due (tm.now);
  return true;
}

/* With tm.lock held: wake the timing thread if the models' next time
 * is later than after and earlier than what it sleeps for.
 */
static void
kick_beyond (raidsim_ns after)
{
  raidsim_ns d = next_deadline ();

  if (d != RAIDSIM_NEVER && d > after && d < tm.wake_at)
    pthread_cond_signal (&tm.kick);
}

static void *
timing_thread (void *arg)
{
  clock_realtime_thread ("the timing thread");
  pthread_mutex_lock (&tm.lock);
  while (!tm.stop) {
    raidsim_ns d = next_deadline ();
    raidsim_ns ahead = (raidsim_ns) raid_debug_timing_lookahead_us * 1000;

    if (advance (d))
      continue;
    if (d == RAIDSIM_NEVER) {
      tm.wake_at = RAIDSIM_NEVER;
      pthread_cond_wait (&tm.kick, &tm.lock);
      continue;
    }
    {
      struct timespec ts;
      uint64_t abs = tm.t0 + d - ahead;

      tm.wake_at = d;
      ts.tv_sec = abs / RAIDSIM_NS_PER_S;
      ts.tv_nsec = abs % RAIDSIM_NS_PER_S;
      pthread_cond_timedwait (&tm.kick, &tm.lock, &ts);
    }
  }
  pthread_mutex_unlock (&tm.lock);
  return NULL;
}

int
timing_start (timing_state_fn state)
{
  const struct raidsim_array_config *ac = modelfile_array ();
  pthread_condattr_t attr;
  unsigned i;
  int err;

  if (ac == NULL)
    return 0;
  tm.nmembers = ac->members;
  for (i = 0; i < tm.nmembers; ++i) {
    tm.capacity[i] = ac->devices[i]->capacity;
    if (raidsim_pipe_member_init (&tm.m[i], ac, i, 0) == -1) {
      nbdkit_error ("model: %s: %s", ac->devices[i]->path, raidsim_error ());
      return -1;
    }
  }
  raidsim_link_init_spec (&tm.uplink, "uplink", &ac->ctl->uplink);
  for (i = 0; i < tm.nmembers; ++i)
    raidsim_pipe_member_path (&tm.m[i], &tm.uplink);
  {
    uint64_t member_size[RAID_MAX_MEMBERS];
    struct raidsim_array_params p;

    raidsim_array_config_params (ac, member_size, &p);
    tm.array = raidsim_array_new (&p);
    if (tm.array == NULL) {
      nbdkit_error ("model: %s: %s", modelfile_path (), raidsim_error ());
      return -1;
    }
    tm.array_size = raidsim_array_size (tm.array);
  }
  tm.state_fn = state;
  tm.ctl_ops = ac->ctl->ops;
  tm.ctl = tm.ctl_ops->create (ac->ctl->params, tm.nmembers);
  if (tm.ctl == NULL) {
    nbdkit_error ("model: %s: %s", ac->ctl->path, raidsim_error ());
    return -1;
  }
  limits_init ();

  pthread_condattr_init (&attr);
  pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
  pthread_cond_init (&tm.kick, &attr);
  pthread_condattr_destroy (&attr);
  tm.t0 = clock_ns ();
  tm.now = 0;
  tm.wake_at = RAIDSIM_NEVER;
  err = pthread_create (&tm.thread, NULL, timing_thread, NULL);
  if (err) {
    errno = err;
    nbdkit_error ("model: pthread_create: %m");
    return -1;
  }
  tm.started = true;
  nbdkit_debug ("raid: model=%s: level %d, %" PRIu64 " members, device "
                "model %s, controller model %s", modelfile_path (), ac->level,
                ac->members, ac->devices[0]->model, ac->ctl->model);
  return 0;
}

void
timing_stop (void)
{
  unsigned i;
  struct tcmd *c;

  if (tm.started) {
    pthread_mutex_lock (&tm.lock);
    tm.stop = true;
    pthread_cond_signal (&tm.kick);
    pthread_mutex_unlock (&tm.lock);
    pthread_join (tm.thread, NULL);
    tm.started = false;
  }
  if (tm.ctl)
    tm.ctl_ops->destroy (tm.ctl);
  tm.ctl = NULL;
  for (i = 0; i < tm.nmembers; ++i)
    raidsim_pipe_member_free (&tm.m[i]);
  tm.nmembers = 0;
  if (tm.array)
    raidsim_array_free (tm.array);
  tm.array = NULL;
  while ((c = tm.free_cmds) != NULL) {
    tm.free_cmds = c->free_next;
    free (c);
  }
  modelfile_free ();
}

/* ---- the hooks ---- */

struct send_ctx {
  struct timing_req *r;
  enum raidsim_dir dir;
  bool flush;                   /* raidsim_array_flush's commands */
  raidsim_ns now;
};

/* One member command from the model's RAID layer: to the controller. */
static int
send_cmd (const struct raidsim_member_cmd *mc, void *opaque)
{
  struct send_ctx *ctx = opaque;
  struct tcmd *c = tm.free_cmds;

  if (c)
    tm.free_cmds = c->free_next;
  else {
    c = malloc (sizeof *c);
    if (c == NULL)
      return -1;
  }
  memset (c, 0, sizeof *c);
  c->req = ctx->r;
  raidsim_pipe_io (&c->io, ctx->dir, ctx->flush, mc);
  ctx->r->left++;
  tm.ctl_ops->submit (tm.ctl, &c->io, ctx->now);
  return 0;
}

/* With tm.lock held: the models' RAID layer takes the real array's
 * state as it is now (timing.h).  A request that arrives after a
 * member has failed is split as the degraded array splits it, as
 * `raidsim run --set failed=N` splits it: its reads go to the copies
 * that are left and its writes skip the failed member, so a degraded
 * RAID 1 reads from one drive's queue, not two.
 */
static void
follow_state (void)
{
  struct timing_state st;

  if (tm.state_fn == NULL)
    return;
  tm.state_fn (&st);
  if (st.failed != tm.state.failed || st.rebuild != tm.state.rebuild ||
      st.resync != tm.state.resync) {
    nbdkit_debug ("raid: model=: the members' state is now failed 0x%"
                  PRIx32 ", rebuilding 0x%" PRIx32 "%s", st.failed,
                  st.rebuild, st.resync ? ", resyncing" : "");
    raidsim_array_set_state (tm.array, st.failed, st.rebuild, st.resync);
  }
  if (st.sync_pos != tm.state.sync_pos)
    raidsim_array_sync_progress (tm.array, st.sync_pos);
  tm.state = st;
}

/* The start and the end of handing one request's commands to the
 * models: r is set up, and tm.lock is held from open to close.
 */
static void
open_req (struct timing_req *r, struct send_ctx *ctx)
{
  pthread_mutex_init (&r->lock, NULL);
  pthread_cond_init (&r->cond, NULL);
  r->timed = true;
  r->left = 0;
  pthread_mutex_lock (&tm.lock);
  ctx->r = r;
  ctx->now = model_now ();
  r->start = r->done = tm.t0 + ctx->now;
  follow_state ();
}

static void
close_req (struct send_ctx *ctx)
{
  run_due (ctx->now);
  /* A next time within the lookahead is this thread's to run (in
   * timing_end) unless someone waits for it; one beyond, the timing
   * thread's, if it sleeps for a later one.
   */
  kick_beyond (ctx->now + (raidsim_ns) raid_debug_timing_lookahead_us * 1000);
  pthread_mutex_unlock (&tm.lock);
}

/* A request (flush false) or a flush arrives: its member commands go
 * to the controller at the clock's reading.
 */
static void
begin (struct timing_req *r, bool write, bool flush, uint64_t offset,
       uint64_t len)
{
  struct send_ctx ctx = {
    .dir = write ? RAIDSIM_WRITE : RAIDSIM_READ, .flush = flush,
  };
  int err;

  open_req (r, &ctx);
  /* No commands (left stays 0): not timed, rather than not done; the
   * data path goes on.  Only allocation can fail here.
   */
  err = flush ? raidsim_array_flush (tm.array, send_cmd, &ctx)
    : raidsim_array_split (tm.array, ctx.dir, offset, len, send_cmd, &ctx);
  if (err != 0)
    nbdkit_debug ("raid: model=: %s at %" PRIu64 " not (fully) timed: %s",
                  flush ? "flush" : "request", offset, raidsim_error ());
  close_req (&ctx);
}

void
timing_begin (struct timing_req *r, bool write, uint64_t offset,
              uint64_t len)
{
  r->timed = false;
  r->background = false;
  if (!tm.started || len == 0)
    return;
  /* A request past the modelled array's end (members larger than the
   * modelled drives) is folded back into it.
   */
  if (len > tm.array_size)
    return;
  if (offset + len > tm.array_size)
    offset %= tm.array_size - len + 1;
  begin (r, write, false, offset, len);
}

/* A client flush is the simulator's host flush (sim.c): the model's
 * RAID layer sends every member a flush command (raidsim_array_flush),
 * which the controller passes on (draining what its cache holds, if
 * its model has one) and each device completes once what it
 * acknowledged is on stable media (device.h, version 6).  The real
 * flush of the members runs meanwhile, as a request's real I/O does.
 */
void
timing_begin_flush (struct timing_req *r)
{
  r->timed = false;
  r->background = false;
  if (!tm.started)
    return;
  begin (r, true, true, 0, 0);
}

void
timing_begin_background (struct timing_req *r,
                         const struct timing_member_cmd *cmds, size_t n)
{
  struct send_ctx ctx = { .r = r };
  size_t i;

  r->timed = false;
  r->background = true;
  if (!tm.started || n == 0)
    return;
  open_req (r, &ctx);
  for (i = 0; i < n; ++i) {
    struct raidsim_member_cmd mc = {
      cmds[i].member, cmds[i].offset, cmds[i].len,
    };
    uint64_t cap;

    if (mc.member >= tm.nmembers || mc.len == 0)
      continue;
    /* Members larger than the modelled drives: folded back into them,
     * as timing_begin folds a request past the modelled array's end.
     */
    cap = tm.capacity[mc.member];
    if (mc.len > cap)
      continue;
    if (mc.offset + mc.len > cap)
      mc.offset %= cap - mc.len + 1;
    ctx.dir = cmds[i].write ? RAIDSIM_WRITE : RAIDSIM_READ;
    raidsim_array_cmd_sent (tm.array, &mc);
    if (send_cmd (&mc, &ctx) == -1) {
      raidsim_array_cmd_done (tm.array, &mc);
      nbdkit_debug ("raid: model=: background I/O not (fully) timed: "
                    "out of memory");
      break;
    }
  }
  limits_background (r->left);
  close_req (&ctx);
}

/* With tm.lock held: whether this thread polls for the models' next
 * time d rather than sleep (timing_end); polling, whether it did.  It
 * polls while d is within raid.timing_poll_us, if no other thread does.
 */
static bool
poll_for (raidsim_ns d, bool polling)
{
  uint64_t window = (uint64_t) raid_debug_timing_poll_us * 1000;
  bool near = window > 0 && d != RAIDSIM_NEVER &&
    d <= clock_ns () - tm.t0 + window;

  if (polling && !near) {
    atomic_store (&poller_busy, false);
    return false;
  }
  if (!polling && near)
    return !atomic_exchange (&poller_busy, true);
  return polling;
}

void
timing_end (struct timing_req *r)
{
  uint64_t done, real;
  bool polling = false;

  if (!r->timed)
    return;
  real = clock_ns ();           /* the real I/O has ended */
  /* While the models' next time is due within the lookahead, this
   * thread runs them itself rather than wait for the timing thread to
   * wake up and then wake it: at low QD that next time is usually this
   * request's own completion, and one wake-up less on its path is tens
   * of microseconds less on a busy machine.
   *
   * Until then it would sleep, and the timing thread wake it, at the
   * lookahead before that time; on this 2-CPU VM about 4% of such
   * wake-ups come more than 100 us late (docs/realtime.md), which is
   * the whole p99 of the error at QD1.  So one thread at a time, while
   * the models' next time is near (raid.timing_poll_us), polls for it
   * instead: at QD1 that is every request, on one CPU, for the model's
   * latency.  More than one would take the CPUs the client and nbdkit
   * need (all of them polling halves the IOPS at QD2).
   */
  for (;;) {
    bool ran;
    raidsim_ns d;

    pthread_mutex_lock (&r->lock);
    if (r->left == 0)
      break;
    pthread_mutex_unlock (&r->lock);
    pthread_mutex_lock (&tm.lock);
    d = next_deadline ();
    ran = advance (d);
    if (!ran) {                 /* the timing thread runs them from here,
                                 * unless this thread polls */
      kick_beyond (0);
      if (!r->background)       /* a walk needs no precision */
        polling = poll_for (d, polling);
    }
    pthread_mutex_unlock (&tm.lock);
    if (ran)
      continue;
    if (polling) {
      for (int i = 0; i < 64; ++i)
        __builtin_ia32_pause ();
      sched_yield ();
      continue;
    }
    pthread_mutex_lock (&r->lock);
    while (r->left > 0)
      pthread_cond_wait (&r->cond, &r->lock);
    break;
  }
  if (polling)
    atomic_store (&poller_busy, false);
  done = r->done;
  pthread_mutex_unlock (&r->lock);
  pthread_cond_destroy (&r->cond);
  pthread_mutex_destroy (&r->lock);
  if (r->background) {
    struct timespec ts = {
      .tv_sec = done / RAIDSIM_NS_PER_S, .tv_nsec = done % RAIDSIM_NS_PER_S,
    };

    if (real > done)
      limits_background_late ();
    while (real < done &&
           clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
      ;
    return;
  }
  {
    uint64_t host = (uint64_t) raid_debug_timing_host_us * 1000;

    done = done - r->start > host ? done - host : r->start;
  }

  if (real > done) {
    limits_request (true, real - done);
    return;
  }
  real = clock_wait_until (done, (uint64_t) raid_debug_timing_spin_us * 1000);
  limits_request (false, real - done);
}

/* ---- statistics (limits.h) ---- */

json_object *
timing_json (void)
{
  const struct limits_knobs k = {
    .lookahead_ns = raid_debug_timing_lookahead_us * 1000ull,
    .spin_ns = raid_debug_timing_spin_us * 1000ull,
    .host_ns = raid_debug_timing_host_us * 1000ull,
  };
  struct timing_state st;

  if (modelfile_path () == NULL)
    return NULL;
  pthread_mutex_lock (&tm.lock);
  st = tm.state;
  pthread_mutex_unlock (&tm.lock);
  return limits_json (modelfile_path (), &k, st.failed, st.rebuild,
                      st.resync);
}

void
timing_log_summary (bool to_stderr)
{
  if (modelfile_path () != NULL)
    limits_log_summary (modelfile_path (), to_stderr);
}
