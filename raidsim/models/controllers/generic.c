/* raidsim: the `generic` controller / driver model.  Four stages, each a
 * mechanism that real drivers have, each turned off by its default:
 *
 * 1. Software overhead.  Every member command waits `overhead` before it
 *    can be issued: the driver's path from the RAID layer to the
 *    doorbell.  It is a delay, not a queue: commands pay it in parallel,
 *    as they do on a multi-core host (CPU saturation is not modelled).
 *
 * 2. Command slots.  At most `max_outstanding` commands are issued to a
 *    member at once (NCQ allows 32; an NVMe queue allows more).  Others
 *    wait, in order, for a slot; a slot is freed when the member has
 *    finished the command and moved its data.
 *
 * 3. Completion coalescing.  Finished commands are held until
 *    `coalesce_count` of them are waiting or `coalesce_timer` has passed
 *    since the first was held, and are then delivered together.  At
 *    queue depth 1 only one completion is ever waiting, so each pays the
 *    whole timer: this is the mechanism that fits VROC's low-QD penalty.
 *    Coalescing is off when coalesce_count is 1 or coalesce_timer is 0.
 *    `coalesce_scope` says what the count is counted over: the whole
 *    volume (one completion vector for all members, as a RAID driver
 *    that batches its own completions has), or each member on its own
 *    (NVMe interrupt coalescing is a feature of each drive's
 *    controller, so each drive's completion queue counts and times its
 *    own).  The two differ when the I/Os in flight are spread over the
 *    members: two 128 KiB writes at QD2 on a 128 KiB stripe are one on
 *    each drive, so per member neither ever sees a second completion.
 *
 * 4. Write-back cache (off by default).  With `cache_size` > 0 a write
 *    that finds room in the cache is acknowledged to the RAID layer as
 *    soon as its overhead is paid (RAIDSIM_CTL_ACK), and the controller
 *    writes it to its member later, by `cache_flush`:
 *      immediate  at once, in the background: the cache hides the
 *                 members' write latency until it fills, and then
 *                 writes go at the members' pace (a battery-backed RAID
 *                 card, or Intel RST's volume write-back cache);
 *      watermark  only while more than `cache_high` percent of the
 *                 cache is waiting to be written, oldest first: bursts
 *                 smaller than that never reach the members during the
 *                 burst.
 *    Taking a write costs a copy of its bytes into host memory at
 *    `cache_copy_rate`, one copy at a time (the benchmarks this is for
 *    submit from one thread): the cache answers at memory speed, not
 *    instantly.  A write that finds the cache full waits, in order,
 *    until flushes have made room, so once it is full the volume writes
 *    at the rate the members take the flushed writes.  The cache holds at most MAX_CACHED commands
 *    whatever their size.  Reads are not served from the cache (a read
 *    of data still waiting to be flushed goes to the member), and
 *    overwrites are not merged: both would need an index of the cached
 *    ranges, and the published figures this model is for are of
 *    streaming and random writes, where neither happens much.
 *
 * Flushes (interface version 3) pay the overhead, take a command slot
 * and are coalesced like any command, and are never cached.  With a
 * cache, whose contents are taken to be volatile (Intel RST's volume
 * write-back cache is host memory), a flush first waits until the
 * cache holds no acknowledged write, for any member: watermark
 * flushing then writes out every waiting write at once.  Writes that
 * arrive meanwhile and are cached delay it too (the cache keeps no
 * generations); fio's threads issue nothing while their own flush is
 * in flight.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "raidsim/controller.h"
#include "raidsim/error.h"

struct generic_params {
  uint64_t overhead;
  uint64_t max_outstanding;
  uint64_t coalesce_count;
  uint64_t coalesce_timer;
  uint64_t cache_size;
  int cache_flush;
  uint64_t cache_high;
  int coalesce_scope;
  uint64_t cache_copy_rate;
};

enum { FLUSH_IMMEDIATE, FLUSH_WATERMARK };
enum { SCOPE_VOLUME, SCOPE_MEMBER };

static const struct raidsim_enum scope_enums[] = {
  { "volume", SCOPE_VOLUME },
  { "member", SCOPE_MEMBER },
  { NULL, 0 },
};

static const struct raidsim_enum flush_enums[] = {
  { "immediate", FLUSH_IMMEDIATE },
  { "watermark", FLUSH_WATERMARK },
  { NULL, 0 },
};

/* Commands the cache may hold at once, so that the driver's pool of
 * commands stays bounded however small the writes are.
 */
#define MAX_CACHED 65536

/* io->tag: what the io is handed out as, and whether the cache holds
 * it (it was acknowledged; its COMPLETE goes to no one).
 */
#define TAG_WHAT 0xff
#define TAG_CACHED 0x100

static const struct raidsim_param generic_params[] = {
  { .name = "overhead", .type = RAIDSIM_PT_TIME,
    .offset = offsetof (struct generic_params, overhead),
    .def = "0", .min = 0, .max = RAIDSIM_NS_PER_S,
    .help = "Software time added to every member command before it is "
    "issued (driver and RAID layer path).  A delay paid in parallel, not "
    "a CPU that saturates." },
  { .name = "max_outstanding", .type = RAIDSIM_PT_UINT,
    .offset = offsetof (struct generic_params, max_outstanding),
    .def = "32", .min = 1, .max = 65535, .unit = "commands",
    .help = "Commands in flight per member (NCQ: 32; NVMe: the queue "
    "depth).  Further commands wait in the driver." },
  { .name = "coalesce_count", .type = RAIDSIM_PT_UINT,
    .offset = offsetof (struct generic_params, coalesce_count),
    .def = "1", .min = 1, .max = 65535, .unit = "completions",
    .help = "Interrupt coalescing threshold: completions are delivered "
    "at once when this many are waiting.  1 turns coalescing off." },
  { .name = "coalesce_timer", .type = RAIDSIM_PT_TIME,
    .offset = offsetof (struct generic_params, coalesce_timer),
    .def = "0", .min = 0, .max = RAIDSIM_NS_PER_S,
    .help = "Interrupt coalescing timer: the longest a completion is "
    "held, counted from the first completion waiting.  0 turns "
    "coalescing off." },
  { .name = "coalesce_scope", .type = RAIDSIM_PT_ENUM,
    .offset = offsetof (struct generic_params, coalesce_scope),
    .def = "volume", .enums = scope_enums,
    .help = "What coalesce_count counts: volume (completions of all "
    "members together, one vector) or member (each member's completion "
    "queue on its own, with its own timer, as NVMe drives coalesce)." },
  { .name = "cache_size", .type = RAIDSIM_PT_SIZE,
    .offset = offsetof (struct generic_params, cache_size),
    .def = "0", .min = 0, .max = UINT64_C (64) << 30,
    .help = "Write-back cache: writes that fit are acknowledged at once "
    "and written to the members later (cache_flush).  0: no cache, every "
    "write completes when its member has it." },
  { .name = "cache_flush", .type = RAIDSIM_PT_ENUM,
    .offset = offsetof (struct generic_params, cache_flush),
    .def = "immediate", .enums = flush_enums,
    .help = "When cached writes go to the members: immediate (at once, in "
    "the background) or watermark (only while more than cache_high "
    "percent of the cache waits)." },
  { .name = "cache_high", .type = RAIDSIM_PT_UINT,
    .offset = offsetof (struct generic_params, cache_high),
    .def = "50", .min = 0, .max = 100, .unit = "%",
    .help = "For cache_flush = watermark: the share of the cache that may "
    "wait before flushing starts." },
  { .name = "cache_copy_rate", .type = RAIDSIM_PT_RATE,
    .offset = offsetof (struct generic_params, cache_copy_rate),
    .def = "0",
    .help = "Rate at which a write's bytes are copied into the write-back "
    "cache (host memory copy), one write at a time; the write is "
    "acknowledged when its copy ends.  0: the copy costs nothing." },
  RAIDSIM_PARAM_END,
};

/* A completion vector: the completions it holds and its timer. */
struct vector {
  struct raidsim_ioq held;
  raidsim_ns deadline;          /* or NEVER */
};

/* The controller's side of one member: its commands in flight, those
 * waiting for a slot, and its completion vector.
 */
struct ctl_member {
  unsigned outstanding;
  struct raidsim_ioq waiting;   /* ready, but no free slot */
  struct vector v;              /* coalesce_scope = member */
};

struct generic {
  struct generic_params p;
  bool coalescing;
  unsigned nmembers;
  struct raidsim_ioq overhead_q; /* io->done: when the overhead ends */
  struct vector v;               /* coalesce_scope = volume */
  struct raidsim_ioq out;        /* due now; io->tag says what */
  raidsim_ns out_time;           /* when the head of out became due */
  /* Write-back cache. */
  uint64_t cached_bytes;         /* acknowledged, not yet on the member */
  unsigned cached;               /* commands in cached_bytes */
  struct raidsim_ioq cache_wait; /* writes waiting for room */
  struct raidsim_ioq copy_q;     /* io->done: when its copy ends */
  raidsim_ns copy_free;          /* when the copier is free */
  struct raidsim_ioq dirty;      /* watermark: acknowledged, not issued */
  struct raidsim_ioq flush_wait; /* flushes waiting for the cache */
  uint64_t dirty_bytes;
  struct ctl_member m[];
};

static void *
generic_create (const void *params, unsigned nmembers)
{
  const struct generic_params *p = params;
  struct generic *c;
  unsigned i;

  c = calloc (1, sizeof *c + nmembers * sizeof c->m[0]);
  if (c == NULL) {
    raidsim_set_error ("generic: out of memory");
    return NULL;
  }
  c->p = *p;
  c->coalescing = p->coalesce_count > 1 && p->coalesce_timer > 0;
  c->nmembers = nmembers;
  c->v.deadline = RAIDSIM_NEVER;
  raidsim_ioq_init (&c->overhead_q);
  raidsim_ioq_init (&c->v.held);
  raidsim_ioq_init (&c->out);
  raidsim_ioq_init (&c->cache_wait);
  raidsim_ioq_init (&c->dirty);
  raidsim_ioq_init (&c->copy_q);
  raidsim_ioq_init (&c->flush_wait);
  for (i = 0; i < nmembers; ++i) {
    raidsim_ioq_init (&c->m[i].waiting);
    raidsim_ioq_init (&c->m[i].v.held);
    c->m[i].v.deadline = RAIDSIM_NEVER;
  }
  return c;
}

static void
generic_destroy (void *c)
{
  free (c);
}

static uint64_t
generic_max_held (const void *params, uint64_t min_len)
{
  const struct generic_params *p = params;
  uint64_t n;

  if (p->cache_size == 0)
    return 0;
  n = (p->cache_size + min_len - 1) / min_len;
  return n < MAX_CACHED ? n : MAX_CACHED;
}

static void
emit (struct generic *c, struct raidsim_io *io, enum raidsim_ctl_out what,
      raidsim_ns now)
{
  if (c->out.head == NULL)
    c->out_time = now;
  io->tag = (io->tag & TAG_CACHED) | what;
  raidsim_ioq_push (&c->out, io);
}

/* Stage 2: issue if the member has a free slot, else wait for one. */
static void
admit (struct generic *c, struct raidsim_io *io, raidsim_ns now)
{
  struct ctl_member *m = &c->m[io->member];

  if (m->outstanding < c->p.max_outstanding) {
    m->outstanding++;
    emit (c, io, RAIDSIM_CTL_ISSUE, now);
  }
  else
    raidsim_ioq_push (&m->waiting, io);
}

static void
release_held (struct generic *c, struct vector *v, raidsim_ns now)
{
  struct raidsim_io *io;

  while ((io = raidsim_ioq_pop (&v->held)) != NULL)
    emit (c, io, RAIDSIM_CTL_COMPLETE, now);
  v->deadline = RAIDSIM_NEVER;
}

static struct vector *
vector_of (struct generic *c, const struct raidsim_io *io)
{
  return c->p.coalesce_scope == SCOPE_MEMBER ? &c->m[io->member].v : &c->v;
}

static bool
cache_has_room (const struct generic *c, const struct raidsim_io *io)
{
  return c->cached < MAX_CACHED &&
    c->cached_bytes + io->len <= c->p.cache_size;
}

/* Take a write into the cache and acknowledge it; it is flushed by the
 * policy once its ACK has been reaped (see generic_reap).
 */
static void
cache_take (struct generic *c, struct raidsim_io *io, raidsim_ns now)
{
  c->cached++;
  c->cached_bytes += io->len;
  io->tag = TAG_CACHED;
  if (c->p.cache_copy_rate == 0) {
    emit (c, io, RAIDSIM_CTL_ACK, now);
    return;
  }
  /* One copier, so the queue stays in order of io->done. */
  if (c->copy_free < now)
    c->copy_free = now;
  c->copy_free += (raidsim_ns)
    (((unsigned __int128) io->len * RAIDSIM_NS_PER_S +
      c->p.cache_copy_rate - 1) / c->p.cache_copy_rate);
  io->done = c->copy_free;
  raidsim_ioq_push (&c->copy_q, io);
}

/* Stage 4: a write that fits, with none waiting before it, goes into
 * the cache; one that does not waits for room, in order.  Everything
 * else goes on to its slot.
 */
static void
cache_or_admit (struct generic *c, struct raidsim_io *io, raidsim_ns now)
{
  if (io->flush && c->cached > 0) {
    raidsim_ioq_push (&c->flush_wait, io);
    while ((io = raidsim_ioq_pop (&c->dirty)) != NULL) {
      c->dirty_bytes -= io->len;
      admit (c, io, now);
    }
  }
  else if (c->p.cache_size == 0 || io->dir != RAIDSIM_WRITE || io->flush ||
           io->trim || io->fua)
    admit (c, io, now);
  else if (c->cache_wait.head == NULL && cache_has_room (c, io))
    cache_take (c, io, now);
  else
    raidsim_ioq_push (&c->cache_wait, io);
}

/* Watermark flushing: issue the oldest waiting writes while more than
 * cache_high percent of the cache waits.
 */
static void
flush_dirty (struct generic *c, raidsim_ns now)
{
  uint64_t high = c->p.cache_size / 100 * c->p.cache_high +
    c->p.cache_size % 100 * c->p.cache_high / 100;

  while (c->dirty.head && c->dirty_bytes > high) {
    struct raidsim_io *io = raidsim_ioq_pop (&c->dirty);

    c->dirty_bytes -= io->len;
    admit (c, io, now);
  }
}

static void
generic_submit (void *cv, struct raidsim_io *io, raidsim_ns now)
{
  struct generic *c = cv;

  io->tag = 0;
  if (c->p.overhead == 0)
    cache_or_admit (c, io, now);
  else {
    /* One constant delay, so the queue stays in order of io->done. */
    io->done = now + c->p.overhead;
    raidsim_ioq_push (&c->overhead_q, io);
  }
}

static void
generic_member_done (void *cv, struct raidsim_io *io, raidsim_ns now)
{
  struct generic *c = cv;
  struct ctl_member *m = &c->m[io->member];
  struct raidsim_io *w;
  struct vector *v;

  m->outstanding--;
  if ((w = raidsim_ioq_pop (&m->waiting)) != NULL) {
    m->outstanding++;
    emit (c, w, RAIDSIM_CTL_ISSUE, now);
  }

  /* A flushed write: no one waits for it, so it skips coalescing, and
   * its room goes to the writes waiting for the cache, in order.
   */
  if (io->tag & TAG_CACHED) {
    c->cached--;
    c->cached_bytes -= io->len;
    emit (c, io, RAIDSIM_CTL_COMPLETE, now);
    if (c->cached == 0)
      while ((w = raidsim_ioq_pop (&c->flush_wait)) != NULL)
        admit (c, w, now);
    while ((w = c->cache_wait.head) != NULL && cache_has_room (c, w)) {
      raidsim_ioq_pop (&c->cache_wait);
      cache_take (c, w, now);
    }
    return;
  }

  if (!c->coalescing) {
    emit (c, io, RAIDSIM_CTL_COMPLETE, now);
    return;
  }
  v = vector_of (c, io);
  raidsim_ioq_push (&v->held, io);
  if (v->held.count >= c->p.coalesce_count)
    release_held (c, v, now);
  else if (v->held.count == 1)
    v->deadline = now + c->p.coalesce_timer;
}

static raidsim_ns
generic_next (const void *cv)
{
  const struct generic *c = cv;
  raidsim_ns t = c->v.deadline;
  unsigned i;

  if (c->p.coalesce_scope == SCOPE_MEMBER)
    for (i = 0; i < c->nmembers; ++i)
      if (c->m[i].v.deadline < t)
        t = c->m[i].v.deadline;

  if (c->out.head && c->out_time < t)
    t = c->out_time;
  if (c->overhead_q.head && c->overhead_q.head->done < t)
    t = c->overhead_q.head->done;
  if (c->copy_q.head && c->copy_q.head->done < t)
    t = c->copy_q.head->done;
  return t;
}

static struct raidsim_io *
generic_reap (void *cv, raidsim_ns now, enum raidsim_ctl_out *what)
{
  struct generic *c = cv;
  struct raidsim_io *io;

  /* Move everything that has become due by now to the output, oldest
   * first, then hand out one.
   */
  while (c->overhead_q.head && c->overhead_q.head->done <= now) {
    io = raidsim_ioq_pop (&c->overhead_q);
    cache_or_admit (c, io, io->done);
  }
  while (c->copy_q.head && c->copy_q.head->done <= now) {
    io = raidsim_ioq_pop (&c->copy_q);
    emit (c, io, RAIDSIM_CTL_ACK, io->done);
  }
  if (c->v.deadline <= now)
    release_held (c, &c->v, c->v.deadline);
  if (c->p.coalesce_scope == SCOPE_MEMBER) {
    /* Timers that ran out, in order, so the output stays in time order. */
    for (;;) {
      struct vector *first = NULL;
      unsigned i;

      for (i = 0; i < c->nmembers; ++i)
        if (c->m[i].v.deadline <= now &&
            (first == NULL || c->m[i].v.deadline < first->deadline))
          first = &c->m[i].v;
      if (first == NULL)
        break;
      release_held (c, first, first->deadline);
    }
  }

  io = raidsim_ioq_pop (&c->out);
  if (io == NULL)
    return NULL;
  *what = io->tag & TAG_WHAT;
  /* An acknowledged write is handed out twice: now as ACK, later as
   * ISSUE.  It can be queued for the second only once it has left the
   * output queue, which is now.
   */
  if (*what == RAIDSIM_CTL_ACK) {
    if (c->p.cache_flush == FLUSH_IMMEDIATE || c->flush_wait.head)
      admit (c, io, now);
    else {
      raidsim_ioq_push (&c->dirty, io);
      c->dirty_bytes += io->len;
      flush_dirty (c, now);
    }
  }
  return io;
}

const struct raidsim_controller_ops raidsim_controller_generic = {
  .version = RAIDSIM_CONTROLLER_OPS_VERSION,
  .name = "generic",
  .summary = "driver overhead, per-member command slots, "
  "completion coalescing, write-back cache",
  .params = generic_params,
  .params_size = sizeof (struct generic_params),
  .max_held = generic_max_held,
  .create = generic_create,
  .destroy = generic_destroy,
  .submit = generic_submit,
  .member_done = generic_member_done,
  .next = generic_next,
  .reap = generic_reap,
};
