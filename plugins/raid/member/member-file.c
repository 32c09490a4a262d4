/* nbdkit-raid-plugin: members that are regular files or block devices.
 *
 * Three engines run the I/O, chosen by io=:
 *
 *   uring    one io_uring per member.  Any thread submits under a short
 *            lock; one reaper thread per member takes completions,
 *            resubmits short transfers and completes the member_io.
 *   threads  a few worker threads per member, each doing synchronous
 *            pread/pwrite from a queue.  A request's thread may take
 *            back a queued I/O no worker has started and run it itself
 *            (file_take_back).  io=auto uses it where io_uring
 *            cannot be set up (old kernels, seccomp filters) or would
 *            hand every I/O to a kernel thread anyway (see
 *            nowait_supported), and io=threads everywhere.
 *   inline   no thread at all: the request's thread does the I/O,
 *            synchronously, after its batch's other members' I/Os are
 *            in flight (member_submit_all).  io=auto uses it for
 *            regular files on tmpfs and ramfs (memory_backed), where an
 *            I/O is a memory copy that never waits for a device, so
 *            that handing it to another thread costs more than it
 *            can gain; io=inline everywhere.
 *
 * Either way the request's own thread does the last member I/O of each
 * batch itself (file_run, called by member_submit_all).  A member I/O
 * that carries a run of several pieces is one preadv/pwritev (threads)
 * or IORING_OP_READV/WRITEV (uring) over the pieces' places in the
 * client's buffer.
 *
 * Both serve every request of every nbdkit thread, so a member never has
 * more than max-inflight I/Os outstanding, and both complete each I/O
 * with member_io_done from their own thread.
 *
 * Block devices are opened with O_EXCL, as md claims its members: a
 * device that is mounted, in an md array or claimed by another program
 * is refused, and none of those can claim it while we serve.  A loop
 * device's backing file is recorded (m->backing) so that raid.c can
 * refuse it beside the very file it loops (O_EXCL does not see that).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/magic.h>
#include <linux/fs.h>
#include <linux/loop.h>

#include <liburing.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "member-file.h"
#include "member.h"


/* Synchronous workers per member in the threads engine: enough to keep
 * a device's queue busy without a thread per request.
 */
#define WORKERS 8

struct file_priv {
  int fd;
  bool is_block;
  bool use_uring;
  /* For the threads' messages: the member's name, which moves with
   * this state when a spare takes over a role (swap_backend).
   */
  const char *name;

  /* uring engine */
  struct io_uring ring;
  pthread_mutex_t sq_lock;
  pthread_t reaper;

  /* threads engine: the I/Os no worker has started, oldest first, linked
   * through q_next and q_prev; at most max_inflight, since each holds a
   * slot.  An I/O's backend_priv is f while it is queued here and NULL
   * once a worker or file_take_back has taken it, both under q_lock.
   */
  pthread_mutex_t q_lock;
  pthread_cond_t q_cond;
  struct member_io *q_first, *q_last;
  unsigned idle;                /* workers asleep on q_cond */
  bool waking;                  /* one was woken and has not yet looked */
  bool stopping;
  pthread_t workers[WORKERS];
  unsigned nworkers;
};

static bool
file_claims (const char *name)
{
  return true;
}

/* The block devices this backend holds, so that one given twice is
 * called that rather than "in use" (O_EXCL refuses our own claim too).
 */
static struct {
  dev_t rdev;
  const char *name;
} claimed[RAID_MAX_MEMBERS];
static unsigned nclaimed;

/* If the open block device fd is a loop device, the identity of what
 * it loops, in the form file_open gives members ("file:DEV:INO" or
 * "block:RDEV"); NULL if it is not a loop device.  Returns 0, or -1 if
 * out of memory.
 *
 * The kernel fills lo_device and lo_rdevice with huge_encode_dev, the
 * same bits as glibc's st_dev and st_rdev for every device number Linux
 * can have (12-bit majors, 20-bit minors), so they compare as they are.
 */
static int
loop_backing (int fd, char **backing)
{
  struct loop_info64 li;
  char id[64];

  *backing = NULL;
  if (ioctl (fd, LOOP_GET_STATUS64, &li) == -1)
    return 0;                   /* not a loop device, or not bound */
  if (li.lo_rdevice)
    snprintf (id, sizeof id, "block:%ju", (uintmax_t) li.lo_rdevice);
  else
    snprintf (id, sizeof id, "file:%ju:%ju", (uintmax_t) li.lo_device,
              (uintmax_t) li.lo_inode);
  *backing = strdup (id);
  return *backing ? 0 : -1;
}

static int
file_open (struct member *m)
{
  struct file_priv *f;
  struct stat st;
  int excl = 0;
  off_t end;
  char id[64];

  f = calloc (1, sizeof *f);
  if (f == NULL) {
    nbdkit_error ("calloc: %m");
    return -1;
  }
  m->priv = f;
  /* O_EXCL on a block device claims it, as md does; on a regular file
   * it would mean nothing (without O_CREAT), so ask only for devices.
   */
  if (stat (m->name, &st) == 0 && S_ISBLK (st.st_mode))
    excl = O_EXCL;
  f->fd = open (m->name, O_RDWR | O_CLOEXEC | excl);
  if (f->fd == -1 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
    int why = errno;

    f->fd = open (m->name, O_RDONLY | O_CLOEXEC | excl);
    m->read_only = true;
    if (f->fd >= 0)
      member_warning (m, "cannot be opened for writing (%s), so the "
                      "whole array is served read-only", strerror (why));
  }
  if (f->fd == -1 && errno == EBUSY && excl) {
    unsigned i;

    for (i = 0; i < nclaimed; ++i)
      if (claimed[i].rdev == st.st_rdev) {
        nbdkit_error ("member: %s and %s are the same device",
                      claimed[i].name, m->name);
        return -1;
      }
    nbdkit_error ("member: %s: the device is in use (mounted, in an md "
                  "array, or held by another program): %m", m->name);
    return -1;
  }
  if (f->fd == -1) {
    nbdkit_error ("member: %s: %m", m->name);
    return -1;
  }
  if (fstat (f->fd, &st) == -1) {
    nbdkit_error ("member: %s: fstat: %m", m->name);
    return -1;
  }
  if (S_ISBLK (st.st_mode)) {
    f->is_block = true;
    snprintf (id, sizeof id, "block:%ju", (uintmax_t) st.st_rdev);
    if (nclaimed < RAID_MAX_MEMBERS)
      claimed[nclaimed++] = (typeof (claimed[0])) {
        .rdev = st.st_rdev, .name = m->name };
    if (loop_backing (f->fd, &m->backing) == -1) {
      nbdkit_error ("member: %s: %m", m->name);
      return -1;
    }
  }
  else if (S_ISREG (st.st_mode))
    snprintf (id, sizeof id, "file:%ju:%ju",
              (uintmax_t) st.st_dev, (uintmax_t) st.st_ino);
  else {
    nbdkit_error ("member: %s: not a regular file or block device", m->name);
    return -1;
  }
  m->identity = strdup (id);
  end = lseek (f->fd, 0, SEEK_END);
  if (end == -1) {
    nbdkit_error ("member: %s: lseek: %m", m->name);
    return -1;
  }
  m->size = end;
  /* Reading the first byte proves the member is readable now rather
   * than at the first client request.
   */
  if (m->size > 0) {
    char b;
    if (pread (f->fd, &b, 1, 0) != 1) {
      nbdkit_error ("member: %s: cannot be read: %m", m->name);
      return -1;
    }
  }
  m->can_trim = m->can_zero = m->can_flush = m->can_fua = true;
  return 0;
}

/* Synchronous helpers, used by the threads engine for everything and by
 * the uring engine for the fallbacks of zero and trim.
 */
static int
full_pread (int fd, char *buf, uint64_t len, uint64_t offset)
{
  while (len > 0) {
    ssize_t n = pread (fd, buf, len, offset);
    if (n == -1 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = MEMBER_ESHRUNK; /* the member was truncated */
      return -1;
    }
    buf += n;
    len -= n;
    offset += n;
  }
  return 0;
}

static int
full_pwrite (int fd, const char *buf, uint64_t len, uint64_t offset,
             bool fua)
{
  while (len > 0) {
    struct iovec iov = { .iov_base = (void *) buf, .iov_len = len };
    /* pwrite when no flag is needed: the kernel takes it as one user
     * buffer, without an iovec to copy in and walk.
     */
    ssize_t n = fua ? pwritev2 (fd, &iov, 1, offset, RWF_DSYNC)
                    : pwrite (fd, buf, len, offset);
    if (n == -1 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = ENOSPC;
      return -1;
    }
    buf += n;
    len -= n;
    offset += n;
  }
  return 0;
}

/* Step past n bytes of an iovec array, in place: what a short preadv
 * or pwritev leaves to do.
 */
static void
iov_advance (struct iovec **iov, unsigned *iovcnt, uint64_t n)
{
  while (*iovcnt > 0 && n >= (*iov)->iov_len) {
    n -= (*iov)->iov_len;
    (*iov)++;
    (*iovcnt)--;
  }
  if (*iovcnt > 0) {
    (*iov)->iov_base = (char *) (*iov)->iov_base + n;
    (*iov)->iov_len -= n;
  }
}

/* A run of pieces: one preadv or pwritev however many pieces, which is
 * the point of merging them (see raid_geom_runs).
 */
static int
full_rwv (int fd, bool write, struct iovec *iov, unsigned iovcnt,
          uint64_t offset, bool fua)
{
  while (iovcnt > 0) {
    ssize_t n = write
      ? pwritev2 (fd, iov, iovcnt, offset, fua ? RWF_DSYNC : 0)
      : preadv (fd, iov, iovcnt, offset);
    if (n == -1 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = write ? ENOSPC : MEMBER_ESHRUNK;
      return -1;
    }
    iov_advance (&iov, &iovcnt, n);
    offset += n;
  }
  return 0;
}

static bool
is_unsupported (int err)
{
  return err == EOPNOTSUPP || err == ENOTSUP || err == ENOSYS ||
    err == ENOTTY || err == EINVAL;
}

static int
write_zeroes (int fd, uint64_t len, uint64_t offset)
{
  static const char zeroes[65536];

  while (len > 0) {
    uint64_t n = len < sizeof zeroes ? len : sizeof zeroes;
    if (full_pwrite (fd, zeroes, n, offset, false) == -1)
      return -1;
    len -= n;
    offset += n;
  }
  return 0;
}

/* Make a range read as zeroes the cheapest way the member allows.  A
 * punched hole reads as zeroes on files and, since Linux 4.9, on block
 * devices too.  With MIO_FAST, never fall back to writing zeroes: the
 * client asked to be told instead.
 */
static int
sync_zero (struct file_priv *f, struct member_io *io, bool tried_punch)
{
  if (!tried_punch && (io->flags & MIO_MAY_TRIM) &&
      fallocate (f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                 io->offset, io->length) == 0)
    goto done;
  if (fallocate (f->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
                 io->offset, io->length) == 0)
    goto done;
  if (!is_unsupported (errno))
    return -1;
  if (f->is_block) {
    uint64_t range[2] = { io->offset, io->length };
    if (ioctl (f->fd, BLKZEROOUT, range) == 0)
      goto done;
    if (!is_unsupported (errno))
      return -1;
  }
  if (io->flags & MIO_FAST) {
    errno = ENOTSUP;
    return -1;
  }
  if (write_zeroes (f->fd, io->length, io->offset) == -1)
    return -1;
 done:
  if ((io->flags & MIO_FUA) && fdatasync (f->fd) == -1)
    return -1;
  return 0;
}

/* Discard is advisory: a member that cannot punch holes keeps its data,
 * which NBD allows (trimmed data reads back unspecified).
 */
static int
sync_trim (struct file_priv *f, struct member_io *io)
{
  int r;

  if (f->is_block) {
    uint64_t range[2] = { io->offset, io->length };
    r = ioctl (f->fd, BLKDISCARD, range);
  }
  else
    r = fallocate (f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                   io->offset, io->length);
  if (r == -1 && !is_unsupported (errno))
    return -1;
  if ((io->flags & MIO_FUA) && fdatasync (f->fd) == -1)
    return -1;
  return 0;
}

static int
sync_io (struct file_priv *f, struct member_io *io)
{
  switch (io->op) {
  case MOP_READ:
    if (io->iov)
      return full_rwv (f->fd, false, io->iov, io->iovcnt, io->offset, false);
    return full_pread (f->fd, io->buf, io->length, io->offset);
  case MOP_WRITE:
    if (io->iov)
      return full_rwv (f->fd, true, io->iov, io->iovcnt, io->offset,
                       io->flags & MIO_FUA);
    return full_pwrite (f->fd, io->buf, io->length, io->offset,
                        io->flags & MIO_FUA);
  case MOP_ZERO:
    return sync_zero (f, io, false);
  case MOP_TRIM:
    return sync_trim (f, io);
  case MOP_FLUSH:
    return fdatasync (f->fd);
  }
  errno = EINVAL;
  return -1;
}

/* ---- threads engine ---- */

/* Whether to wake a worker for what is queued: called with q_lock held,
 * and if it returns true the caller signals q_cond after dropping the
 * lock, so that the worker does not wake only to wait for the lock.
 *
 * Only one worker is woken at a time; once it has taken an I/O it wakes
 * the next if more are queued.  Every queued I/O still gets a worker as
 * soon as one can run, but a burst of submissions does not wake a
 * worker for each, only to find that the request threads took their
 * I/Os back (member_submit_all) while it was waking up.
 *
 * No I/O can be stranded: waking is cleared under the lock by every
 * worker that returns from the wait, and every worker that was asleep
 * when waking was set returns from it after that.
 */
static bool
want_worker (struct file_priv *f)
{
  if (f->q_first == NULL || f->idle == 0 || f->waking)
    return false;
  f->waking = true;
  return true;
}

/* Called with q_lock held. */
static void
queue_remove (struct file_priv *f, struct member_io *io)
{
  if (io->q_prev)
    io->q_prev->q_next = io->q_next;
  else
    f->q_first = io->q_next;
  if (io->q_next)
    io->q_next->q_prev = io->q_prev;
  else
    f->q_last = io->q_prev;
  io->q_next = io->q_prev = NULL;
  io->backend_priv = NULL;
}

/* -D raid.file_thread_delay_ms=N: the threads of a member's engine
 * wait N ms before they start, so that a test can have a spare take
 * over a role before they run (test-takeover-threads.sh).
 */
NBDKIT_DLL_PUBLIC int raid_debug_file_thread_delay_ms = 0;

/* The engines' threads are given their member's state, never the
 * struct member: a spare started by `add` may take over a role before
 * its threads first run, and swap_backend then moves this state to
 * another struct member (the role's) and leaves the spare's slot with
 * the role's old backend.
 */
static void
thread_delay (void)
{
  if (raid_debug_file_thread_delay_ms > 0)
    usleep ((useconds_t) raid_debug_file_thread_delay_ms * 1000);
}

static void *
worker (void *arg)
{
  struct file_priv *f = arg;

  thread_delay ();

  for (;;) {
    struct member_io *io;
    bool wake;
    int r;

    pthread_mutex_lock (&f->q_lock);
    while (f->q_first == NULL && !f->stopping) {
      f->idle++;
      pthread_cond_wait (&f->q_cond, &f->q_lock);
      f->idle--;
      f->waking = false;
    }
    io = f->q_first;
    if (io == NULL) {
      pthread_mutex_unlock (&f->q_lock);
      return NULL;
    }
    queue_remove (f, io);
    wake = want_worker (f);
    pthread_mutex_unlock (&f->q_lock);
    if (wake)
      pthread_cond_signal (&f->q_cond);

    r = sync_io (f, io);
    member_io_done (io, r == -1 ? (errno ? errno : EIO) : 0);
  }
}

static int
threads_start (struct member *m)
{
  struct file_priv *f = m->priv;
  unsigned i;
  int err;

  pthread_mutex_init (&f->q_lock, NULL);
  pthread_cond_init (&f->q_cond, NULL);
  for (i = 0; i < WORKERS && i < m->max_inflight; ++i) {
    err = pthread_create (&f->workers[i], NULL, worker, f);
    if (err) {
      errno = err;
      nbdkit_error ("member: %s: pthread_create: %m", m->name);
      return -1;
    }
    f->nworkers++;
  }
  return 0;
}

static int
threads_submit (struct member *m, struct member_io *io)
{
  struct file_priv *f = m->priv;
  bool wake;

  pthread_mutex_lock (&f->q_lock);
  io->q_next = NULL;
  io->q_prev = f->q_last;
  if (f->q_last)
    f->q_last->q_next = io;
  else
    f->q_first = io;
  f->q_last = io;
  io->backend_priv = f;
  wake = want_worker (f);
  pthread_mutex_unlock (&f->q_lock);
  if (wake)
    pthread_cond_signal (&f->q_cond);
  return 0;
}

/* The io's own request thread has nothing better to do than run it:
 * take it out of the queue if no worker has.  A worker it woke for this
 * io finds the queue empty and sleeps again, which costs that worker
 * but not the request.
 */
static bool
file_take_back (struct member *m, struct member_io *io)
{
  struct file_priv *f = m->priv;
  bool taken = false;

  if (f->use_uring)
    return false;               /* the kernel has it already */
  pthread_mutex_lock (&f->q_lock);
  if (io->backend_priv == f) {
    queue_remove (f, io);
    taken = true;
  }
  pthread_mutex_unlock (&f->q_lock);
  return taken;
}

/* ---- uring engine ---- */

/* Queue the (rest of the) I/O.  Called with sq_lock held. */
static int
uring_prep (struct file_priv *f, struct member_io *io)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (&f->ring);
  uint64_t done = io->done_bytes;

  if (sqe == NULL) {
    /* The ring has room for max_inflight entries, but a reaper's
     * resubmission can race with new submissions: push what is queued
     * and try once more.
     */
    io_uring_submit (&f->ring);
    sqe = io_uring_get_sqe (&f->ring);
    if (sqe == NULL) {
      errno = EAGAIN;
      return -1;
    }
  }
  switch (io->op) {
  case MOP_READ:
    /* iov[] has been advanced past what is done (uring_complete). */
    if (io->iov)
      io_uring_prep_readv (sqe, f->fd, io->iov, io->iovcnt,
                           io->offset + done);
    else
      io_uring_prep_read (sqe, f->fd, (char *) io->buf + done,
                          io->length - done, io->offset + done);
    break;
  case MOP_WRITE:
    if (io->iov)
      io_uring_prep_writev (sqe, f->fd, io->iov, io->iovcnt,
                            io->offset + done);
    else
      io_uring_prep_write (sqe, f->fd, (char *) io->buf + done,
                           io->length - done, io->offset + done);
    if (io->flags & MIO_FUA)
      sqe->rw_flags = RWF_DSYNC;
    break;
  case MOP_ZERO:
    io_uring_prep_fallocate (sqe, f->fd,
                             (io->flags & MIO_MAY_TRIM)
                             ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
                             : FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
                             io->offset, io->length);
    break;
  case MOP_TRIM:
    if (f->is_block)            /* BLKDISCARD has no uring opcode here */
      io_uring_prep_nop (sqe);
    else
      io_uring_prep_fallocate (sqe, f->fd,
                               FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                               io->offset, io->length);
    break;
  case MOP_FLUSH:
    io_uring_prep_fsync (sqe, f->fd, IORING_FSYNC_DATASYNC);
    break;
  }
  io_uring_sqe_set_data (sqe, io);
  return 0;
}

static int
uring_submit (struct member *m, struct member_io *io)
{
  struct file_priv *f = m->priv;
  int r;

  pthread_mutex_lock (&f->sq_lock);
  r = uring_prep (f, io);
  if (r == 0) {
    r = io_uring_submit (&f->ring);
    if (r < 0) {
      errno = -r;
      r = -1;
    }
    else
      r = 0;
  }
  pthread_mutex_unlock (&f->sq_lock);
  return r;
}

/* What to do with one completion: 0 if the io is finished (with *err),
 * 1 if it was resubmitted.
 */
static int
uring_complete (struct file_priv *f, struct member_io *io, int res, int *err)
{
  *err = 0;
  switch (io->op) {
  case MOP_READ:
  case MOP_WRITE:
    if (res == -EINTR || res == -EAGAIN)
      goto resubmit;
    if (res < 0) {
      *err = -res;
      return 0;
    }
    if (res == 0) {
      *err = io->op == MOP_READ ? MEMBER_ESHRUNK : ENOSPC;
      return 0;
    }
    io->done_bytes += res;
    if (io->done_bytes < io->length) {
      if (io->iov)
        iov_advance (&io->iov, &io->iovcnt, res);
      goto resubmit;
    }
    return 0;

  case MOP_ZERO:
    /* fallocate's modes are not supported everywhere: finish with the
     * synchronous fallbacks, skipping the punch that just failed.
     */
    if (res < 0) {
      if (sync_zero (f, io, true) == -1)
        *err = errno ? errno : EIO;
    }
    else if ((io->flags & MIO_FUA) && fdatasync (f->fd) == -1)
      *err = errno;
    return 0;

  case MOP_TRIM:
    if (f->is_block) {
      if (sync_trim (f, io) == -1)
        *err = errno ? errno : EIO;
    }
    else if (res < 0 && !is_unsupported (-res))
      *err = -res;
    else if ((io->flags & MIO_FUA) && fdatasync (f->fd) == -1)
      *err = errno;
    return 0;

  case MOP_FLUSH:
    if (res < 0)
      *err = -res;
    return 0;
  }
  return 0;

 resubmit:
  pthread_mutex_lock (&f->sq_lock);
  if (uring_prep (f, io) == -1) {
    *err = errno;
    pthread_mutex_unlock (&f->sq_lock);
    return 0;
  }
  io_uring_submit (&f->ring);
  pthread_mutex_unlock (&f->sq_lock);
  return 1;
}

static void *
reaper (void *arg)
{
  struct file_priv *f = arg;

  thread_delay ();

  for (;;) {
    struct io_uring_cqe *cqe;
    struct member_io *io;
    int r, res, err;

    r = io_uring_wait_cqe (&f->ring, &cqe);
    if (r == -EINTR)
      continue;
    if (r < 0) {
      nbdkit_error ("member: %s: io_uring_wait_cqe: %s", f->name,
                    strerror (-r));
      return NULL;
    }
    io = io_uring_cqe_get_data (cqe);
    res = cqe->res;
    io_uring_cqe_seen (&f->ring, cqe);
    if (io == NULL)             /* the stop marker from file_close */
      return NULL;
    if (uring_complete (f, io, res, &err) == 0)
      member_io_done (io, err);
  }
}

static int
uring_start (struct member *m)
{
  struct file_priv *f = m->priv;
  int r;

  /* Room for every slot plus the stop marker. */
  r = io_uring_queue_init (m->max_inflight + 1, &f->ring, 0);
  if (r < 0) {
    errno = -r;
    return -1;
  }
  pthread_mutex_init (&f->sq_lock, NULL);
  f->name = m->name;
  r = pthread_create (&f->reaper, NULL, reaper, f);
  if (r) {
    io_uring_queue_exit (&f->ring);
    errno = r;
    return -1;
  }
  f->use_uring = true;
  return 0;
}

bool
file_probe_uring (void)
{
  struct io_uring ring;

  if (io_uring_queue_init (1, &ring, 0) < 0)
    return false;
  io_uring_queue_exit (&ring);
  return true;
}

/* io_uring serves buffered I/O inline only where the file system can
 * do it without blocking; elsewhere (tmpfs, for one) it hands every I/O
 * to a kernel worker thread, and then costs one more hand-off than our
 * own worker threads.  A one-byte non-blocking read tells which.
 */
static bool
nowait_supported (struct file_priv *f)
{
  char b;
  struct iovec iov = { .iov_base = &b, .iov_len = 1 };

  return preadv2 (f->fd, &iov, 1, 0, RWF_NOWAIT) >= 0 || errno == EAGAIN;
}

/* A regular file whose pages live in memory only (tmpfs, ramfs): its
 * I/O is a memory copy that never waits for a device.  A block device
 * never is, even a RAM disk: it has a queue and a driver of its own.
 */
static bool
memory_backed (struct file_priv *f)
{
  struct statfs sf;

  if (f->is_block || fstatfs (f->fd, &sf) == -1)
    return false;
  return sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC;
}

static int
file_start (struct member *m)
{
  struct file_priv *f = m->priv;

  if (m->io_mode == FILE_IO_INLINE ||
      (m->io_mode == FILE_IO_AUTO && memory_backed (f))) {
    m->engine = "inline";
    m->inline_io = true;
    return 0;
  }
  if (m->io_mode == FILE_IO_AUTO && !nowait_supported (f))
    nbdkit_debug ("raid: member %s: its file system cannot do "
                  "non-blocking I/O, using worker threads", m->name);
  else if (m->io_mode != FILE_IO_THREADS) {
    if (uring_start (m) == 0) {
      m->engine = "uring";
      return 0;
    }
    if (m->io_mode == FILE_IO_URING) {
      nbdkit_error ("io: member %s: io_uring is not available here: %m",
                    m->name);
      return -1;
    }
    nbdkit_debug ("raid: member %s: io_uring unavailable (%m), "
                  "using worker threads", m->name);
  }
  m->engine = "threads";
  return threads_start (m);
}

/* MIO_NO_GROW: whether io would write past the file's present end,
 * which would grow a truncated member back with holes.  Checked just
 * before the write is issued (a truncation in between still slips
 * through); only the repair asks, so it costs the hot path nothing.
 * Block devices cannot grow.
 */
static bool
would_grow (struct file_priv *f, const struct member_io *io)
{
  struct stat st;

  if (io->op != MOP_WRITE || !(io->flags & MIO_NO_GROW) || f->is_block)
    return false;
  return fstat (f->fd, &st) == -1 ||
    (uint64_t) st.st_size < io->offset + io->length;
}

static int
file_run (struct member *m, struct member_io *io)
{
  if (would_grow (m->priv, io)) {
    errno = MEMBER_ESHRUNK;
    return -1;
  }
  return sync_io (m->priv, io);
}

static int
file_submit (struct member *m, struct member_io *io)
{
  struct file_priv *f = m->priv;

  if (would_grow (f, io)) {
    errno = MEMBER_ESHRUNK;
    return -1;
  }
  if (m->inline_io) {
    int r = sync_io (f, io);

    member_io_done (io, r == -1 ? (errno ? errno : EIO) : 0);
    return 0;
  }
  return f->use_uring ? uring_submit (m, io) : threads_submit (m, io);
}

/* Where a member is a hole from member_offset.  Block devices, and file
 * systems without SEEK_DATA, are all data.  Past the file's present end
 * the member has lost what it held (it was truncated): that is no hole
 * of zeros, and the member cannot answer.
 */
static int
file_hole (struct member *m, uint64_t member_offset, uint64_t limit,
           uint64_t *end)
{
  struct file_priv *f = m->priv;
  struct stat st;
  off_t d, h;

  *end = limit;
  if (f->is_block)
    return 0;
  d = lseek (f->fd, member_offset, SEEK_DATA);
  if (d == -1) {
    if (errno != ENXIO)
      return 0;
    /* No data from member_offset to the end of the file, or
     * member_offset is past the end.
     */
    if (fstat (f->fd, &st) == -1 || (uint64_t) st.st_size <= member_offset) {
      errno = MEMBER_ESHRUNK;
      return -1;
    }
    if ((uint64_t) st.st_size < limit)
      *end = st.st_size;
    return 1;
  }
  if ((uint64_t) d > member_offset) {
    if ((uint64_t) d < limit)
      *end = d;
    return 1;
  }
  h = lseek (f->fd, member_offset, SEEK_HOLE);
  if (h != -1 && (uint64_t) h < limit)
    *end = h;
  return 0;
}

/* nbdkit -r: reopen a regular file read-only, through /proc/self/fd so
 * that it is the very file opened at start whatever its name is now,
 * and put the new description in the old one's place, so that the
 * engines go on with the same fd number.  Block devices keep their
 * descriptor (a second open could not share an exclusive hold).
 */
static int
file_drop_write (struct member *m)
{
  struct file_priv *f = m->priv;
  char path[64];
  int fd;

  if (f->is_block || m->read_only)
    return 0;
  snprintf (path, sizeof path, "/proc/self/fd/%d", f->fd);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd == -1 || dup3 (fd, f->fd, O_CLOEXEC) == -1) {
    nbdkit_error ("member: %s: reopening read-only: %m", m->name);
    if (fd >= 0)
      close (fd);
    return -1;
  }
  close (fd);
  return 0;
}

static void
file_close (struct member *m)
{
  struct file_priv *f = m->priv;
  unsigned i;

  if (f == NULL)
    return;
  if (f->use_uring) {
    pthread_mutex_lock (&f->sq_lock);
    struct io_uring_sqe *sqe = io_uring_get_sqe (&f->ring);
    if (sqe) {
      io_uring_prep_nop (sqe);
      io_uring_sqe_set_data (sqe, NULL);
      io_uring_submit (&f->ring);
    }
    pthread_mutex_unlock (&f->sq_lock);
    if (sqe)
      pthread_join (f->reaper, NULL);
    io_uring_queue_exit (&f->ring);
  }
  if (f->nworkers) {
    pthread_mutex_lock (&f->q_lock);
    f->stopping = true;
    pthread_cond_broadcast (&f->q_cond);
    pthread_mutex_unlock (&f->q_lock);
    for (i = 0; i < f->nworkers; ++i)
      pthread_join (f->workers[i], NULL);
  }
  if (f->fd >= 0)
    close (f->fd);
  free (f);
  m->priv = NULL;
}

const struct member_ops file_ops = {
  .name = "file",
  .vectored = true,
  .claims = file_claims,
  .open = file_open,
  .start = file_start,
  .submit = file_submit,
  .run = file_run,
  .take_back = file_take_back,
  .hole = file_hole,
  .drop_write = file_drop_write,
  .close = file_close,
};
