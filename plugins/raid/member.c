/* nbdkit-raid-plugin: what every member has in common, whatever its
 * backend: choosing the backend, the max-inflight slots, statistics and
 * batches of I/O that complete together.  See member.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "member.h"


/* NBD first: it claims only URIs, and everything else is a path. */
static const struct member_ops *const backends[] = { &nbd_ops, &file_ops };

static const char *const op_names[MOP_COUNT] = {
  [MOP_READ] = "pread", [MOP_WRITE] = "pwrite", [MOP_ZERO] = "zero",
  [MOP_TRIM] = "trim", [MOP_FLUSH] = "flush",
};

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
  stats_init (&m->stats);
  return m->ops->open (m);
}

void
batch_init (struct member_batch *b, unsigned count)
{
  pthread_mutex_init (&b->lock, NULL);
  pthread_cond_init (&b->cond, NULL);
  b->remaining = count;
}

void
batch_wait (struct member_batch *b)
{
  pthread_mutex_lock (&b->lock);
  while (b->remaining > 0)
    pthread_cond_wait (&b->cond, &b->lock);
  pthread_mutex_unlock (&b->lock);
}

void
batch_destroy (struct member_batch *b)
{
  pthread_cond_destroy (&b->cond);
  pthread_mutex_destroy (&b->lock);
}

/* The batch lives on the stack of the thread in batch_wait, which may
 * return and destroy it as soon as the lock is dropped: touch nothing
 * after the unlock.
 */
static void
batch_done (struct member_batch *b)
{
  pthread_mutex_lock (&b->lock);
  if (--b->remaining == 0)
    pthread_cond_broadcast (&b->cond);
  pthread_mutex_unlock (&b->lock);
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
  if (atomic_load (&m->failed)) {
    io->err = EIO;
    batch_done (io->batch);
    return false;
  }

  /* Back-pressure: wait for one of the member's max-inflight slots. */
  pthread_mutex_lock (&m->slot_lock);
  while (atomic_load (&m->pending) >= m->max_inflight)
    pthread_cond_wait (&m->slot_cond, &m->slot_lock);
  atomic_fetch_add (&m->pending, 1);
  pthread_mutex_unlock (&m->slot_lock);

  /* The head moves when the I/O is issued, as md's does, so that the
   * next request of a stream already sees it.
   */
  if (io->op == MOP_READ || io->op == MOP_WRITE)
    atomic_store (&m->head, io->offset + io->length);
  io->start_ns = stats_start (&m->stats);
  if (raid_debug_io)
    nbdkit_debug ("%s member=%u offset=%" PRIu64 " length=%" PRIu64
                  "%s", op_names[io->op], m->index, io->offset, io->length,
                  io->flags & MIO_FUA ? " fua" : "");
  return true;
}

void
member_submit (struct member_io *io)
{
  struct member *m = io->member;

  if (member_start (io) && m->ops->submit (m, io) == -1)
    member_io_done (io, errno ? errno : EIO);
}

/* The request's own thread would only sleep in batch_wait while the
 * batch runs, so it does the batch's last I/O itself, at the same time
 * as the others, where the backend can.  A request that touches one
 * member then costs no hand-off between threads at all: on fast members
 * the hand-offs, not the I/O, are what limits small requests (see
 * docs/performance.md).
 */
void
member_submit_all (struct member_io *ios, size_t n)
{
  struct member_io *last;
  struct member *m;
  size_t i;

  if (n == 0)
    return;
  for (i = 0; i + 1 < n; ++i)
    member_submit (&ios[i]);
  last = &ios[n - 1];
  m = last->member;
  if (m->ops->run == NULL) {
    member_submit (last);
    return;
  }
  if (member_start (last)) {
    int r = m->ops->run (m, last);
    member_io_done (last, r == -1 ? (errno ? errno : EIO) : 0);
  }
}

void
member_io_done (struct member_io *io, int err)
{
  struct member *m = io->member;
  struct member_batch *b = io->batch;

  /* A refused fast zero is an answer, not an error: count it as
   * neither a zero done nor a failure.
   */
  if (io->op == MOP_ZERO && (io->flags & MIO_FAST) && err == ENOTSUP)
    stats_done (&m->stats, io->op, io->length, io->start_ns, STATS_NOT_DONE);
  else
    stats_done (&m->stats, io->op, io->length, io->start_ns, err);
  io->err = err;
  pthread_mutex_lock (&m->slot_lock);
  atomic_fetch_sub (&m->pending, 1);
  pthread_cond_signal (&m->slot_cond);
  pthread_mutex_unlock (&m->slot_lock);
  batch_done (b);
}
