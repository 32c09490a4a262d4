/* nbdkit-raid-plugin: what every member has in common, whatever its
 * backend: choosing the backend, the max-inflight slots, statistics and
 * batches of I/O that complete together.  See member.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "member.h"


/* NBD first: it claims only URIs; then the word missing; everything
 * else is a path.
 */
static const struct member_ops *const backends[] = {
  &nbd_ops, &missing_ops, &file_ops,
};

const char *const op_names[MOP_COUNT] = {
  [MOP_READ] = "pread", [MOP_WRITE] = "pwrite", [MOP_ZERO] = "zero",
  [MOP_TRIM] = "trim", [MOP_FLUSH] = "flush",
};

const char *
member_strerror (int err)
{
  if (err == MEMBER_ESHRUNK)
    return "the member is shorter than it was at start";
  return strerror (err);
}

int
member_open (struct member *m)
{
  size_t i;

  for (i = 0; i < sizeof backends / sizeof backends[0]; ++i)
    if (backends[i]->claims (m->name)) {
      m->ops = backends[i];
      break;
    }
  pthread_mutex_init (&m->slot_lock, NULL);
  pthread_cond_init (&m->slot_cond, NULL);
  if (stats_init (&m->stats) == -1) {
    nbdkit_error ("member %s: %m", m->name);
    return -1;
  }
  m->min_block = 1;
  return m->ops->open (m);
}

int
member_read_early (struct member *m, void *buf, uint64_t length,
                   uint64_t member_offset)
{
  struct member_io io = {
    .op = MOP_READ, .buf = buf, .offset = member_offset, .length = length,
    .member = m,
  };

  if (m->ops->read_early)
    return m->ops->read_early (m, buf, length, member_offset);
  if (m->ops->run)
    return m->ops->run (m, &io);
  errno = ENOTSUP;
  return -1;
}

/* The locks are made anew in their new place: a pthread object may not
 * be copied.  The statistics' shards (with their locks) are on the heap
 * and only change hands.
 */
void
member_move (struct member *to, struct member *from)
{
  if (to == from)
    return;
  memcpy (to, from, sizeof *to);
  pthread_mutex_init (&to->slot_lock, NULL);
  pthread_cond_init (&to->slot_cond, NULL);
  if (to->ops->moved)
    to->ops->moved (to);
}

void
member_run_batch (struct member_io *ios, size_t n)
{
  struct member_batch batch;
  size_t i;

  if (n == 0)
    return;
  for (i = 0; i < n; ++i)
    ios[i].batch = &batch;
  batch_init (&batch, n);
  member_submit_all (ios, n);
  batch_wait (&batch);
  batch_destroy (&batch);
}

/* NBD members: libnbd reads and writes one contiguous buffer.  A run's
 * pieces could go out as one NBD command each instead, but the bytes
 * cross a socket anyway, one more memcpy of them costs less than the
 * round trips of k commands, and this way every backend issues exactly
 * the member I/O that raidsim predicts.
 */
static int
bounce_start (struct member_io *io)
{
  char *p;
  unsigned i;

  io->bounce = malloc (io->length ? io->length : 1);
  if (io->bounce == NULL)
    return -1;
  if (io->op == MOP_WRITE)
    for (i = 0, p = io->bounce; i < io->iovcnt; ++i) {
      memcpy (p, io->iov[i].iov_base, io->iov[i].iov_len);
      p += io->iov[i].iov_len;
    }
  io->buf = io->bounce;
  return 0;
}

static void
bounce_end (struct member_io *io, int err)
{
  const char *p;
  unsigned i;

  if (io->op == MOP_READ && err == 0)
    for (i = 0, p = io->bounce; i < io->iovcnt; ++i) {
      memcpy (io->iov[i].iov_base, p, io->iov[i].iov_len);
      p += io->iov[i].iov_len;
    }
  free (io->bounce);
  io->bounce = NULL;
}

/* Everything before the backend sees an I/O.  Returns false if the io
 * is already complete (its member has failed).
 */
static bool
member_start (struct member_io *io)
{
  struct member *m = io->member;

  io->err = 0;
  io->done_bytes = 0;
  io->backend_priv = NULL;
  io->bounce = NULL;
  if (atomic_load (&m->failed)) {
    io->err = EIO;
    batch_done (io->batch);
    return false;
  }
  if (io->op != MOP_READ && io->op != MOP_FLUSH &&
      atomic_load (&m->no_writes)) {
    io->err = EROFS;
    batch_done (io->batch);
    return false;
  }
  if (io->iov && !m->ops->vectored && bounce_start (io) == -1) {
    io->err = ENOMEM;
    batch_done (io->batch);
    return false;
  }

  /* Back-pressure: wait for one of the member's max-inflight slots. */
  pthread_mutex_lock (&m->slot_lock);
  while (atomic_load (&m->load->pending) >= m->max_inflight)
    pthread_cond_wait (&m->slot_cond, &m->slot_lock);
  /* Failed again, under the lock: a member that has failed and whose
   * I/Os have drained (ctl/verbs.c's remove waits for that under this
   * lock before it closes the member) never gets another one.
   */
  if (atomic_load (&m->failed)) {
    pthread_mutex_unlock (&m->slot_lock);
    if (io->bounce) {
      free (io->bounce);
      io->bounce = NULL;
    }
    io->err = EIO;
    batch_done (io->batch);
    return false;
  }
  raid_load_issue (m->load, io->op == MOP_READ || io->op == MOP_WRITE,
                   io->offset, io->length);
  pthread_mutex_unlock (&m->slot_lock);
  io->start_ns = stats_start (&m->stats);
  if (raid_debug_io)
    nbdkit_debug ("%s member=%u offset=%" PRIu64 " length=%" PRIu64
                  " pieces=%u%s", op_names[io->op], m->index, io->offset,
                  io->length, io->pieces, io->flags & MIO_FUA ? " fua" : "");
  return true;
}

void
member_submit (struct member_io *io)
{
  struct member *m = io->member;

  if (!member_start (io))
    return;
  batch_share (io->batch);      /* a backend thread may complete it */
  if (m->ops->submit (m, io) == -1)
    member_io_done (io, errno ? errno : EIO);
}

/* Run io in this thread; it already holds its slot. */
static void
member_run (struct member_io *io)
{
  struct member *m = io->member;
  int r = m->ops->run (m, io);

  member_io_done (io, r == -1 ? (errno ? errno : EIO) : 0);
}

/* The request's own thread would only sleep in batch_wait while the
 * batch runs, so it works on the batch itself, cooperatively:
 *
 * 1. Every I/O for a member with threads of its own (uring, threads,
 *    nbd) goes to its backend first, so that all of them are in flight
 *    before this thread runs anything: nothing waits for one member
 *    before asking the next.  The last of them is kept back when the
 *    batch has no inline I/O and the backend can run it here.
 * 2. This thread runs the one it kept back, then the I/Os of inline
 *    members (m->inline_io: files on tmpfs or ramfs, io=inline), one
 *    after another.  A request that touches one member then costs no
 *    hand-off at all, and on members whose I/O is a memory copy that
 *    never waits for a device, none of its I/Os does: the copies run
 *    one after another on this CPU instead of on others, which costs
 *    the wake-ups and the cache misses of the data crossing CPUs, and
 *    which buys nothing once the CPUs are busy with other requests
 *    (docs/performance.md).
 * 3. Then it takes back, latest first, the I/Os that no backend thread
 *    has started yet and runs them too.  Those a backend thread did
 *    start, batch_wait waits for.
 *
 * On fast members the hand-offs between threads, not the I/O, limit
 * small requests (see docs/performance.md): a mirrored 4K write used to
 * cost a wake-up of a worker and one of this thread for 2 writes of a
 * few microseconds each.  Step 3 saves both whenever the workers are
 * busy, or slower to wake than step 2 is to run, and is a no-op on
 * members slower than a wake-up, where the workers start every I/O at
 * once.  Latest first, because the backends' threads take from the
 * front of their queues.
 */
void
member_submit_all (struct member_io *ios, size_t n)
{
  struct member_io *mine = NULL;        /* kept back in step 1 */
  struct member *m;
  size_t i, last = n, ninline = 0;

  for (i = 0; i < n; ++i) {
    if (ios[i].member->inline_io)
      ninline++;
    else
      last = i;
  }
  if (last < n && ninline == 0 && ios[last].member->ops->run)
    mine = &ios[last];

  for (i = 0; i < n; ++i)
    if (!ios[i].member->inline_io && &ios[i] != mine)
      member_submit (&ios[i]);

  if (mine && member_start (mine))
    member_run (mine);
  for (i = 0; i < n; ++i)
    if (ios[i].member->inline_io && member_start (&ios[i]))
      member_run (&ios[i]);

  for (i = n; i-- > 0;) {
    m = ios[i].member;
    if (&ios[i] != mine && !m->inline_io && m->ops->take_back &&
        m->ops->take_back (m, &ios[i]))
      member_run (&ios[i]);
  }
}

void
member_io_done (struct member_io *io, int err)
{
  struct member *m = io->member;
  struct member_batch *b = io->batch;

  if (io->bounce)
    bounce_end (io, err);
  /* A refused fast zero is an answer, not an error: count it as
   * neither a zero done nor a failure.
   */
  if (io->op == MOP_ZERO && (io->flags & MIO_FAST) && err == ENOTSUP)
    stats_done (&m->stats, io->op, io->length, io->pieces, io->start_ns,
                STATS_NOT_DONE);
  else
    stats_done (&m->stats, io->op, io->length, io->pieces, io->start_ns,
                err);
  io->err = err;
  pthread_mutex_lock (&m->slot_lock);
  raid_load_done (m->load);
  pthread_cond_signal (&m->slot_cond);
  pthread_mutex_unlock (&m->slot_lock);
  batch_done (b);
}

int
member_hole (struct member *m, uint64_t member_offset, uint64_t limit,
             uint64_t *end)
{
  int r, e;

  pthread_mutex_lock (&m->slot_lock);
  if (atomic_load (&m->failed)) {
    pthread_mutex_unlock (&m->slot_lock);
    errno = EIO;
    return -1;
  }
  m->calls++;
  pthread_mutex_unlock (&m->slot_lock);
  r = m->ops->hole (m, member_offset, limit, end);
  e = errno;
  pthread_mutex_lock (&m->slot_lock);
  m->calls--;
  pthread_cond_broadcast (&m->slot_cond);
  pthread_mutex_unlock (&m->slot_lock);
  errno = e;
  return r;
}

/* member_io_done signals slot_cond for one waiter for a slot, which
 * need not be this one: look again every 10 ms.
 */
void
member_drain (struct member *m)
{
  pthread_mutex_lock (&m->slot_lock);
  if (atomic_load (&m->load->pending) > 0 || m->calls > 0)
    nbdkit_debug ("raid: member %u (%s): waiting for %u I/O and %u "
                  "block status call(s) in flight before it is closed",
                  m->index, m->name,
                  (unsigned) atomic_load (&m->load->pending), m->calls);
  while (atomic_load (&m->load->pending) > 0 || m->calls > 0) {
    struct timespec ts;

    clock_gettime (CLOCK_REALTIME, &ts);
    ts.tv_nsec += 10000000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait (&m->slot_cond, &m->slot_lock, &ts);
  }
  pthread_mutex_unlock (&m->slot_lock);
}

/* nbdkit 1.32 has no warning level, and nbdkit_error would call these
 * errors.  They are given while nbdkit reads its parameters, before it
 * forks into the background, when stderr is still where the user who
 * started it is looking: so they go there, in the form of the plugin's
 * other lines (the statistics summary), and to the debug log as well.
 */
void
member_warning (const struct member *m, const char *fmt, ...)
{
  va_list ap;
  char *msg;

  va_start (ap, fmt);
  if (vasprintf (&msg, fmt, ap) == -1)
    msg = NULL;
  va_end (ap);
  if (msg == NULL)
    return;
  fprintf (stderr, "nbdkit: raid: warning: member %u (%s): %s\n",
           m->index, m->name, msg);
  nbdkit_debug ("raid: warning: member %u (%s): %s", m->index, m->name,
                msg);
  free (msg);
}

void
member_swap_backend (struct member *x, struct member *y)
{
#define SW(f) do { __typeof__ (x->f) t_ = x->f; x->f = y->f; y->f = t_; } \
  while (0)
  SW (name); SW (ops); SW (priv); SW (engine); SW (inline_io);
  SW (size); SW (identity); SW (backing); SW (read_only);
  SW (can_trim); SW (can_zero); SW (can_flush); SW (can_fua);
  SW (min_block);
#undef SW
  {
    bool t = atomic_load (&x->no_fast_zero);
    atomic_store (&x->no_fast_zero, atomic_load (&y->no_fast_zero));
    atomic_store (&y->no_fast_zero, t);
  }
  if (x->ops->moved)
    x->ops->moved (x);
  if (y->ops->moved)
    y->ops->moved (y);
}
