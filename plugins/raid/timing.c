/* nbdkit-raid-plugin: model=ARRAY.ini, the wall-clock driver of the
 * simulator's models (see timing.h for where it hooks in).
 *
 * The stages are sim.c's, in the same order (include/raidsim/sim.h):
 *
 *   RAID layer (array.c: split, read policy)
 *   -> controller submit ... reap ISSUE (or ACK from its cache)
 *   -> [write: links] -> device submit ... reap
 *   -> [read: links]  -> controller member_done ... reap COMPLETE
 *   -> RAID layer (last command of the request?)
 *
 * and the models are raidsim_lib's own (RAID layer, controller, links,
 * devices), created from the array file as `raidsim run` creates them.
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

/* -D raid.timing_rt=0: leave the scheduling policy alone (see
 * realtime_thread).
 */
NBDKIT_DLL_PUBLIC int raid_debug_timing_rt = 1;
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
  raidsim_ns moved;             /* when its data has crossed the links */
  struct tcmd *transit_next;
  struct tcmd *free_next;
};

struct transit {
  struct tcmd *head, *tail;
};

struct tmember {
  const struct raidsim_device_ops *ops;
  void *dev;
  uint64_t capacity;
  raidsim_ns dev_next;          /* ops->next (dev), kept up to date */
  struct transit transit[RAIDSIM_NDIRS];
  struct raidsim_link port;
  struct raidsim_link *path[2];
  unsigned npath;
};

static struct {
  char *path;
  struct raidsim_array_config *ac;
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
  struct tmember m[RAID_MAX_MEMBERS];
  struct tcmd *free_cmds;
  timing_state_fn state_fn;     /* the real array's state (timing.h) */
  struct timing_state state;    /* as the RAID layer last took it */

  /* The limits (timing.h), under their own lock. */
  pthread_mutex_t stats_lock;
  uint64_t requests;            /* requests the models timed */
  uint64_t bg_cmds;             /* timing_begin_background's commands */
  uint64_t bg_late;             /* and its batches found late */
  struct raid_histogram late;   /* real I/O end minus model time, late */
  struct raid_histogram error;  /* return minus model time, the others */
} tm = {
  .lock = PTHREAD_MUTEX_INITIALIZER,
  .stats_lock = PTHREAD_MUTEX_INITIALIZER,
};

static uint64_t
clock_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * RAIDSIM_NS_PER_S + ts.tv_nsec;
}

bool
timing_enabled (void)
{
  return tm.ac != NULL;
}

int
timing_config (const char *path)
{
  tm.ac = raidsim_array_config_load (path);
  if (tm.ac == NULL) {
    nbdkit_error ("model: %s", raidsim_error ());
    return -1;
  }
  tm.path = strdup (path);
  if (tm.path == NULL) {
    nbdkit_error ("model: strdup: %m");
    return -1;
  }
  if (tm.ac->failed_mask || tm.ac->rebuild_mask || tm.ac->resync) {
    nbdkit_error ("model: %s: failed, rebuild and resync describe the "
                  "simulator's background stream; the plugin takes the "
                  "members' state from the members", path);
    return -1;
  }
  return 0;
}

/* A single drive (level = single) is served as a one-member array: a
 * RAID 1 by default (timing_fill), or a RAID 0 if level=0 or the
 * member's md metadata says so.  Both map array byte x to byte x of the
 * one member (past md's data offset, as for every level: the models
 * see array offsets), which is where the drive model puts it, so the
 * model times the very offsets the member is read and written at.
 */
static bool
model_single (void)
{
  return tm.ac->level == RAIDSIM_LEVEL_SINGLE;
}

/* Whether the plugin's level serves the file's. */
static bool
level_serves (enum raid_level level)
{
  if (model_single ())
    return level == RAID_LEVEL_1 || level == RAID_LEVEL_0;
  return (int) level == tm.ac->level;
}

/* The file's level in words, for messages. */
static const char *
model_level (void)
{
  return model_single () ? "single (a one-member RAID 1 or 0)"
    : raid_level_name (tm.ac->level);
}

/* Whether the file has a chunk the array's must match: RAID 0 and 10
 * (a single drive's one member is not striped).
 */
static bool
model_has_chunk (void)
{
  return tm.ac->level == RAID_LEVEL_0 || tm.ac->level == RAID_LEVEL_10;
}

/* The array file's copies, with its default. */
static unsigned
model_copies (void)
{
  return tm.ac->copies ? tm.ac->copies : RAID10_COPIES_DEFAULT;
}

int
timing_settings (const struct raid_settings *s)
{
  const struct raidsim_array_config *ac = tm.ac;

  if (ac == NULL)
    return 0;
  if (s->set[RAID_KEY_LEVEL] && !level_serves (s->level)) {
    nbdkit_error ("level: level=%s conflicts with model=%s, whose level "
                  "is %s", raid_level_name (s->level), tm.path,
                  model_level ());
    return -1;
  }
  if (s->set[RAID_KEY_CHUNK] && model_has_chunk () &&
      s->chunk != ac->chunk) {
    nbdkit_error ("chunk: chunk=%" PRIu64 "K conflicts with model=%s, "
                  "whose chunk is %" PRIu64 "K", s->chunk >> 10, tm.path,
                  ac->chunk >> 10);
    return -1;
  }
  if (s->set[RAID_KEY_COPIES] && ac->level == RAID_LEVEL_10 &&
      s->copies != model_copies ()) {
    nbdkit_error ("copies: copies=%u conflicts with model=%s, whose copies "
                  "is %u", s->copies, tm.path, model_copies ());
    return -1;
  }
  return 0;
}

void
timing_fill (struct raid_settings *s)
{
  const struct raidsim_array_config *ac = tm.ac;

  if (ac == NULL)
    return;
  if (model_single ()) {
    if (!s->set[RAID_KEY_LEVEL])
      s->level = RAID_LEVEL_1;
    s->set[RAID_KEY_LEVEL] = true;
    return;
  }
  s->level = ac->level;
  s->set[RAID_KEY_LEVEL] = true;
  if (ac->level != RAID_LEVEL_1) {
    s->chunk = ac->chunk;
    s->set[RAID_KEY_CHUNK] = true;
  }
  if (ac->level == RAID_LEVEL_10) {
    s->copies = model_copies ();
    s->set[RAID_KEY_COPIES] = true;
  }
}

int
timing_check_array (enum raid_level level, uint64_t chunk, unsigned copies,
                    unsigned nmembers)
{
  const struct raidsim_array_config *ac = tm.ac;

  if (ac == NULL)
    return 0;
  if (!level_serves (level)) {
    nbdkit_error ("level: model=%s has level %s, but the members' md "
                  "superblocks say RAID %s", tm.path, model_level (),
                  raid_level_name (level));
    return -1;
  }
  if (model_has_chunk () && chunk != ac->chunk) {
    nbdkit_error ("chunk: model=%s has chunk %" PRIu64 "K, but the "
                  "members' md superblocks say %" PRIu64 "K", tm.path,
                  ac->chunk >> 10, chunk >> 10);
    return -1;
  }
  if (level == RAID_LEVEL_10 && copies != model_copies ()) {
    nbdkit_error ("copies: model=%s has copies %u, but the members' md "
                  "superblocks say %u", tm.path, model_copies (), copies);
    return -1;
  }
  if (nmembers != ac->members) {
    nbdkit_error ("member: the array has %u members, but model=%s has "
                  "members = %" PRIu64, nmembers, tm.path, ac->members);
    return -1;
  }
  return 0;
}

/* ---- the stages, as in sim.c ---- */

static void
transit_push (struct tmember *m, struct tcmd *c, raidsim_ns now)
{
  struct transit *q = &m->transit[c->io.dir];

  c->moved = raidsim_links_transfer (m->path, m->npath, c->io.dir,
                                     c->io.len, now);
  c->transit_next = NULL;
  if (q->tail)
    q->tail->transit_next = c;
  else
    q->head = c;
  q->tail = c;
}

static struct tcmd *
transit_pop (struct transit *q, raidsim_ns now)
{
  struct tcmd *c = q->head;

  if (c == NULL || c->moved > now)
    return NULL;
  q->head = c->transit_next;
  if (q->head == NULL)
    q->tail = NULL;
  return c;
}

static void
dev_submit (struct tmember *m, struct tcmd *c, raidsim_ns now)
{
  c->io.started = RAIDSIM_NEVER;
  m->ops->submit (m->dev, &c->io, now);
  m->dev_next = m->ops->next (m->dev);
}

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

static bool
ctl_drain (raidsim_ns now)
{
  bool progress = false;

  while (tm.ctl_ops->next (tm.ctl) <= now) {
    enum raidsim_ctl_out what;
    struct raidsim_io *io = tm.ctl_ops->reap (tm.ctl, now, &what);
    struct tcmd *c;
    struct tmember *m;

    if (io == NULL)
      break;
    progress = true;
    c = container_of (io, struct tcmd, io);
    m = &tm.m[io->member];
    switch (what) {
    case RAIDSIM_CTL_ISSUE:
      /* A flush carries no data over the links (as in sim.c). */
      if (io->dir == RAIDSIM_WRITE && m->npath > 0 && !io->flush)
        transit_push (m, c, now);
      else
        dev_submit (m, c, now);
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
  return progress;
}

static bool
member_drain (struct tmember *m, raidsim_ns now)
{
  bool progress = false;
  struct tcmd *c;

  while ((c = transit_pop (&m->transit[RAIDSIM_WRITE], now)) != NULL) {
    dev_submit (m, c, now);
    progress = true;
  }
  while (m->dev_next <= now) {
    raidsim_ns before = m->dev_next;
    struct raidsim_io *io = m->ops->reap (m->dev, now);

    m->dev_next = m->ops->next (m->dev);
    if (io == NULL) {
      /* A decision (device.h): ask again, unless nothing changed. */
      if (m->dev_next == before)
        break;
      continue;
    }
    progress = true;
    c = container_of (io, struct tcmd, io);
    if (io->dir == RAIDSIM_READ && m->npath > 0)
      transit_push (m, c, now);
    else {
      tm.ctl_ops->member_done (tm.ctl, io, now);
    }
  }
  while ((c = transit_pop (&m->transit[RAIDSIM_READ], now)) != NULL) {
    tm.ctl_ops->member_done (tm.ctl, &c->io, now);
    progress = true;
  }
  return progress;
}

/* Everything due by now, until nothing is left: one stage's output is
 * the next one's input at the same instant.
 */
static void
run_due (raidsim_ns now)
{
  bool progress;
  unsigned i;

  do {
    progress = ctl_drain (now);
    for (i = 0; i < tm.nmembers; ++i)
      progress |= member_drain (&tm.m[i], now);
  } while (progress);
}

/* The earliest time a model has something to do. */
static raidsim_ns
next_deadline (void)
{
  raidsim_ns t = tm.ctl_ops->next (tm.ctl);
  unsigned i, d;

  for (i = 0; i < tm.nmembers; ++i) {
    struct tmember *m = &tm.m[i];

    if (m->dev_next < t)
      t = m->dev_next;
    for (d = 0; d < RAIDSIM_NDIRS; ++d)
      if (m->transit[d].head && m->transit[d].head->moved < t)
        t = m->transit[d].head->moved;
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

/* The threads that keep time: the timing thread, and each of nbdkit's
 * threads that waits for a completion time, from its first wait on (a
 * policy switched back and forth would cost two system calls a
 * request; these threads only ever serve the array).  On a busy machine a
 * thread woken at its time under the normal policy runs when the
 * scheduler gets round to it, milliseconds later under load; SCHED_FIFO
 * (priority 1, the lowest real-time one) runs it at once.  They sleep
 * almost all the time and spin at most raid.timing_spin_us at a time,
 * and the kernel's real-time throttling (sched_rt_runtime_us) still
 * leaves the rest of the machine its share.  Where the policy is not
 * allowed (no CAP_SYS_NICE, RLIMIT_RTPRIO 0) the thread stays as it
 * was, and the precision is what the normal policy gives; the debug log
 * says which.  1 ns of timer slack in both cases, where the default is
 * 50 us.
 */
static void
realtime_thread (const char *who)
{
  struct sched_param sp = { .sched_priority = 1 };
  int err = 0;

  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  if (raid_debug_timing_rt)
    err = pthread_setschedparam (pthread_self (), SCHED_FIFO, &sp);
  if (err)
    nbdkit_debug ("raid: model=: %s keeps the normal scheduling policy: "
                  "SCHED_FIFO: %s", who, strerror (err));
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
  realtime_thread ("the timing thread");
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
  const struct raidsim_array_config *ac = tm.ac;
  pthread_condattr_t attr;
  unsigned i;
  int err;

  if (ac == NULL)
    return 0;
  tm.nmembers = ac->members;
  for (i = 0; i < tm.nmembers; ++i) {
    const struct raidsim_device_config *dc = ac->devices[i];
    struct tmember *m = &tm.m[i];
    char name[32];

    m->ops = dc->ops;
    m->capacity = dc->capacity;
    m->dev = dc->ops->create (dc->params, dc->capacity);
    if (m->dev == NULL) {
      nbdkit_error ("model: %s: %s", dc->path, raidsim_error ());
      return -1;
    }
    if (dc->ops->place)
      dc->ops->place (m->dev, i, 0);
    m->dev_next = dc->ops->next (m->dev);
    snprintf (name, sizeof name, "port%u", i);
    raidsim_link_init_spec (&m->port, name, &ac->ctl->port);
  }
  raidsim_link_init_spec (&tm.uplink, "uplink", &ac->ctl->uplink);
  for (i = 0; i < tm.nmembers; ++i) {
    struct tmember *m = &tm.m[i];

    if (m->port.rate)
      m->path[m->npath++] = &m->port;
    if (tm.uplink.rate)
      m->path[m->npath++] = &tm.uplink;
  }
  {
    uint64_t member_size[RAID_MAX_MEMBERS];
    struct raidsim_array_params p;

    raidsim_array_config_params (ac, member_size, &p);
    tm.array = raidsim_array_new (&p);
    if (tm.array == NULL) {
      nbdkit_error ("model: %s: %s", tm.path, raidsim_error ());
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
  raid_hist_init (&tm.late);
  raid_hist_init (&tm.error);

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
                "model %s, controller model %s", tm.path, ac->level,
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
    if (tm.m[i].dev)
      tm.m[i].ops->destroy (tm.m[i].dev);
  tm.nmembers = 0;
  if (tm.array)
    raidsim_array_free (tm.array);
  tm.array = NULL;
  while ((c = tm.free_cmds) != NULL) {
    tm.free_cmds = c->free_next;
    free (c);
  }
  if (tm.ac)
    raidsim_array_config_free (tm.ac);
  tm.ac = NULL;
  free (tm.path);
  tm.path = NULL;
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
  c->io.dir = ctx->dir;
  c->io.flush = ctx->flush;
  c->io.member = mc->member;
  c->io.offset = mc->offset;
  c->io.len = mc->len;
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
    cap = tm.m[mc.member].capacity;
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
  pthread_mutex_lock (&tm.stats_lock);
  tm.bg_cmds += r->left;
  pthread_mutex_unlock (&tm.stats_lock);
  close_req (&ctx);
}

/* Sleep to just before abs (CLOCK_MONOTONIC ns), then spin to it. */
static uint64_t
wait_until (uint64_t abs)
{
  static __thread bool slack_set;
  uint64_t spin = (uint64_t) raid_debug_timing_spin_us * 1000, now;

  if (!slack_set) {
    realtime_thread ("a request thread");
    slack_set = true;
  }
  now = clock_ns ();
  if (now + spin < abs) {
    struct timespec ts = {
      .tv_sec = (abs - spin) / RAIDSIM_NS_PER_S,
      .tv_nsec = (abs - spin) % RAIDSIM_NS_PER_S,
    };
    while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)
           == EINTR)
      ;
  }
  /* Spinning, let the others that spin or wait for a CPU (request
   * threads of other completions, under the same SCHED_FIFO priority)
   * have it, but for the last microseconds.
   */
  while ((now = clock_ns ()) < abs) {
    if (abs - now > 3 * RAIDSIM_NS_PER_US)
      sched_yield ();
    else
      __builtin_ia32_pause ();
  }
  return now;
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

    if (real > done) {
      pthread_mutex_lock (&tm.stats_lock);
      tm.bg_late++;
      pthread_mutex_unlock (&tm.stats_lock);
    }
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
    pthread_mutex_lock (&tm.stats_lock);
    tm.requests++;
    raid_hist_record (&tm.late, real - done);
    pthread_mutex_unlock (&tm.stats_lock);
    return;
  }
  real = wait_until (done);
  pthread_mutex_lock (&tm.stats_lock);
  tm.requests++;
  raid_hist_record (&tm.error, real - done);
  pthread_mutex_unlock (&tm.stats_lock);
}

/* ---- statistics ---- */

static json_object *
hist_json (const struct raid_histogram *h)
{
  json_object *o = json_object_new_object ();

  json_object_object_add (o, "count", json_object_new_uint64 (h->count));
  json_object_object_add (o, "mean",
                          json_object_new_double (raid_hist_mean (h)));
  json_object_object_add (o, "p50", json_object_new_uint64
                          (raid_hist_percentile (h, 50)));
  json_object_object_add (o, "p99", json_object_new_uint64
                          (raid_hist_percentile (h, 99)));
  json_object_object_add (o, "max",
                          json_object_new_uint64 (raid_hist_max (h)));
  return o;
}

static json_object *
members_json (uint32_t set)
{
  json_object *a = json_object_new_array ();
  unsigned i;

  for (i = 0; i < 32; ++i)
    if (set & (UINT32_C (1) << i))
      json_object_array_add (a, json_object_new_int (i));
  return a;
}

/* "timing": { "model": PATH, "lookahead_ns": N, "spin_ns": N,
 *             "host_ns": N, "requests": N,
 *             "failed": [ I... ], "rebuilding": [ I... ], "resync": B,
 *                      the members' state the models last took
 *             "late":  { count, mean, p50, p99, max },  real I/O ended
 *                      after the model's time, by how much (ns)
 *             "error": { ... },   the others: return minus model time
 *             "background": { "commands": N, "late": N } }  the
 *                      member I/O of rebuilds, resyncs and checks: the
 *                      commands the models timed, and the batches whose
 *                      real I/O ended after the models' time
 */
json_object *
timing_json (void)
{
  struct raid_histogram *late, *error;
  struct timing_state st;
  json_object *o, *bg;
  uint64_t requests, bg_cmds, bg_late;

  if (tm.path == NULL)
    return NULL;
  late = malloc (sizeof *late);
  error = malloc (sizeof *error);
  if (late == NULL || error == NULL) {
    free (late);
    free (error);
    return NULL;
  }
  pthread_mutex_lock (&tm.stats_lock);
  *late = tm.late;
  *error = tm.error;
  requests = tm.requests;
  bg_cmds = tm.bg_cmds;
  bg_late = tm.bg_late;
  pthread_mutex_unlock (&tm.stats_lock);
  pthread_mutex_lock (&tm.lock);
  st = tm.state;
  pthread_mutex_unlock (&tm.lock);

  o = json_object_new_object ();
  json_object_object_add (o, "model", json_object_new_string (tm.path));
  json_object_object_add (o, "lookahead_ns", json_object_new_uint64
                          (raid_debug_timing_lookahead_us * 1000ull));
  json_object_object_add (o, "spin_ns", json_object_new_uint64
                          (raid_debug_timing_spin_us * 1000ull));
  json_object_object_add (o, "host_ns", json_object_new_uint64
                          (raid_debug_timing_host_us * 1000ull));
  json_object_object_add (o, "requests", json_object_new_uint64 (requests));
  json_object_object_add (o, "failed", members_json (st.failed));
  json_object_object_add (o, "rebuilding", members_json (st.rebuild));
  json_object_object_add (o, "resync", json_object_new_boolean (st.resync));
  json_object_object_add (o, "late", hist_json (late));
  json_object_object_add (o, "error", hist_json (error));
  bg = json_object_new_object ();
  json_object_object_add (bg, "commands", json_object_new_uint64 (bg_cmds));
  json_object_object_add (bg, "late", json_object_new_uint64 (bg_late));
  json_object_object_add (o, "background", bg);
  free (late);
  free (error);
  return o;
}

void
timing_log_summary (bool to_stderr)
{
  char line[512];

  if (tm.path == NULL)
    return;
  pthread_mutex_lock (&tm.stats_lock);
  snprintf (line, sizeof line,
            "raid: timing: model=%s: %" PRIu64 " requests timed, %" PRIu64
            " late (the real I/O ended after the model's time; by p50 %"
            PRIu64 " p99 %" PRIu64 " max %" PRIu64 " ns), the others "
            "returned after the model's time by p50 %" PRIu64 " p99 %"
            PRIu64 " ns",
            tm.path, tm.requests, tm.late.count,
            raid_hist_percentile (&tm.late, 50),
            raid_hist_percentile (&tm.late, 99), raid_hist_max (&tm.late),
            raid_hist_percentile (&tm.error, 50),
            raid_hist_percentile (&tm.error, 99));
  pthread_mutex_unlock (&tm.stats_lock);
  if (to_stderr)
    fprintf (stderr, "nbdkit: %s\n", line);
  else
    nbdkit_debug ("%s", line);
}
