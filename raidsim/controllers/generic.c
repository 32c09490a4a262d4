/* raidsim: the `generic` controller / driver model.  Three stages, each a
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
 * 3. Completion coalescing.  Finished commands are held, all members
 *    together (one completion vector), until `coalesce_count` of them
 *    are waiting or `coalesce_timer` has passed since the first was
 *    held, and are then delivered together.  At queue depth 1 only one
 *    completion is ever waiting, so each pays the whole timer: this is
 *    the mechanism that fits VROC's low-QD penalty.  Coalescing is off
 *    when coalesce_count is 1 or coalesce_timer is 0.
 *
 * TODO: an optional write-back cache (size, flush policy), which issue 4
 * lists for this model, is not implemented yet.
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
};

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
  RAIDSIM_PARAM_END,
};

struct member {
  unsigned outstanding;
  struct raidsim_ioq waiting;   /* ready, but no free slot */
};

struct generic {
  struct generic_params p;
  bool coalescing;
  unsigned nmembers;
  struct raidsim_ioq overhead_q; /* io->done: when the overhead ends */
  struct raidsim_ioq held;       /* completions being coalesced */
  raidsim_ns deadline;           /* coalescing timer, or NEVER */
  struct raidsim_ioq out;        /* due now; io->tag says what */
  raidsim_ns out_time;           /* when the head of out became due */
  struct member m[];
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
  c->deadline = RAIDSIM_NEVER;
  raidsim_ioq_init (&c->overhead_q);
  raidsim_ioq_init (&c->held);
  raidsim_ioq_init (&c->out);
  for (i = 0; i < nmembers; ++i)
    raidsim_ioq_init (&c->m[i].waiting);
  return c;
}

static void
generic_destroy (void *c)
{
  free (c);
}

static void
emit (struct generic *c, struct raidsim_io *io, enum raidsim_ctl_out what,
      raidsim_ns now)
{
  if (c->out.head == NULL)
    c->out_time = now;
  io->tag = what;
  raidsim_ioq_push (&c->out, io);
}

/* Stage 2: issue if the member has a free slot, else wait for one. */
static void
admit (struct generic *c, struct raidsim_io *io, raidsim_ns now)
{
  struct member *m = &c->m[io->member];

  if (m->outstanding < c->p.max_outstanding) {
    m->outstanding++;
    emit (c, io, RAIDSIM_CTL_ISSUE, now);
  }
  else
    raidsim_ioq_push (&m->waiting, io);
}

static void
release_held (struct generic *c, raidsim_ns now)
{
  struct raidsim_io *io;

  while ((io = raidsim_ioq_pop (&c->held)) != NULL)
    emit (c, io, RAIDSIM_CTL_COMPLETE, now);
  c->deadline = RAIDSIM_NEVER;
}

static void
generic_submit (void *cv, struct raidsim_io *io, raidsim_ns now)
{
  struct generic *c = cv;

  if (c->p.overhead == 0)
    admit (c, io, now);
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
  struct member *m = &c->m[io->member];
  struct raidsim_io *w;

  m->outstanding--;
  if ((w = raidsim_ioq_pop (&m->waiting)) != NULL) {
    m->outstanding++;
    emit (c, w, RAIDSIM_CTL_ISSUE, now);
  }

  if (!c->coalescing) {
    emit (c, io, RAIDSIM_CTL_COMPLETE, now);
    return;
  }
  raidsim_ioq_push (&c->held, io);
  if (c->held.count >= c->p.coalesce_count)
    release_held (c, now);
  else if (c->held.count == 1)
    c->deadline = now + c->p.coalesce_timer;
}

static raidsim_ns
generic_next (const void *cv)
{
  const struct generic *c = cv;
  raidsim_ns t = c->deadline;

  if (c->out.head && c->out_time < t)
    t = c->out_time;
  if (c->overhead_q.head && c->overhead_q.head->done < t)
    t = c->overhead_q.head->done;
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
    admit (c, io, io->done);
  }
  if (c->deadline <= now)
    release_held (c, c->deadline);

  io = raidsim_ioq_pop (&c->out);
  if (io == NULL)
    return NULL;
  *what = io->tag;
  return io;
}

const struct raidsim_controller_ops raidsim_controller_generic = {
  .version = RAIDSIM_CONTROLLER_OPS_VERSION,
  .name = "generic",
  .summary = "driver overhead, per-member command slots, "
  "completion coalescing",
  .params = generic_params,
  .params_size = sizeof (struct generic_params),
  .create = generic_create,
  .destroy = generic_destroy,
  .submit = generic_submit,
  .member_done = generic_member_done,
  .next = generic_next,
  .reap = generic_reap,
};
