/* nbdkit-raid-plugin: members and their backends.
 *
 * A member is one component of the array: a file, a block device or an
 * NBD export.  Each kind of member is a backend behind struct
 * member_ops, one file each (member-file.c, member-nbd.c), as fio keeps
 * one file per ioengine.
 *
 * Member I/O is asynchronous so that a request covering k members has k
 * member I/Os in flight at once:
 *
 *   1. The request path (raid.c) fills one struct member_io per member
 *      I/O, all pointing at one struct member_batch, and hands each to
 *      member_submit.
 *   2. member_submit (or member_submit_all for a whole batch) waits for a free slot on the member (at most
 *      max-inflight per member, so a slow member pushes back instead of
 *      growing a queue), counts the I/O in flight, and calls the
 *      backend's submit.
 *   3. The backend starts the I/O and returns at once.  When it
 *      finishes, whichever thread notices (an io_uring reaper, a worker
 *      thread, a libnbd reader thread) calls member_io_done with the
 *      result.
 *   4. member_io_done records statistics, frees the slot and, when the
 *      batch's last I/O is done, wakes the request's thread, which is
 *      sleeping in batch_wait.
 *
 * The request's thread is not idle meanwhile: it runs the batch's last
 * I/O itself, then takes back and runs any of the others that no
 * backend thread has started yet (member_submit_all).  Members whose
 * I/O never waits for a device (files on tmpfs or ramfs, io=inline)
 * have no backend thread at all: their I/Os run in the request's
 * thread, one after another, once every other member's I/O of the
 * batch is in flight.
 *
 * An I/O on a member that has already failed is not submitted: it
 * completes at once with EIO, so the request path sees one uniform kind
 * of error.
 */
#ifndef RAID_MEMBER_H
#define RAID_MEMBER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "raidsim/readpolicy.h"
#include "stats.h"

enum member_op {
  MOP_READ,
  MOP_WRITE,
  MOP_ZERO,                     /* may punch holes if MIO_MAY_TRIM */
  MOP_TRIM,
  MOP_FLUSH,
};
#define MOP_COUNT 5

/* member_io flags */
#define MIO_FUA      1u         /* durable when it completes */
#define MIO_MAY_TRIM 2u         /* MOP_ZERO may leave a hole */
#define MIO_FAST     4u         /* MOP_ZERO: fail with ENOTSUP, don't write */

struct member_batch {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  unsigned remaining;
};

struct member;

struct member_io {
  enum member_op op;
  uint32_t flags;
  /* The data of MOP_READ / MOP_WRITE: buf, or, when iov is not NULL,
   * the iovcnt buffers of iov[] in turn (a run of several pieces, whose
   * bytes are scattered over the client's buffer).  The backend may
   * change iov[] and iovcnt while the I/O is in flight.
   */
  void *buf;
  struct iovec *iov;
  unsigned iovcnt;
  unsigned pieces;              /* array pieces (chunks) it carries */
  uint64_t offset;              /* member offset, never the array offset */
  uint64_t length;
  int err;                      /* 0, or an errno once done */
  struct member *member;
  struct member_batch *batch;
  uint64_t start_ns;            /* for the latency histogram */
  /* Owned by the backend while the I/O is in flight. */
  uint64_t done_bytes;
  uint64_t progress_ns;         /* NBD: when it was issued or last got a
                                 * reply, for the timeout */
  void *backend_priv;
  void *bounce;                 /* member.c's copy of iov[] for backends
                                 * that are not vectored */
  struct member_io *q_next, *q_prev;    /* a backend's queue */
};

struct member_ops {
  const char *name;             /* "file", "nbd" */

  /* True if submit and run take io->iov.  For other backends member.c
   * gathers iov[] into one bounce buffer (and scatters it back after a
   * read), so that they only ever see io->buf.
   */
  bool vectored;

  /* True if this backend takes this member string (a path, a URI). */
  bool (*claims) (const char *name);

  /* Open the member at config time: set m->size, m->identity and the
   * can_* flags.  Nothing may be written.  Return 0, or -1 after
   * nbdkit_error naming the member.
   */
  int (*open) (struct member *m);

  /* Start background machinery (threads, rings) after nbdkit has forked
   * into the background, from the plugin's .after_fork.
   */
  int (*start) (struct member *m);

  /* Start io; return at once.  The backend must eventually call
   * member_io_done (io, err) exactly once, from any thread, or return
   * -1 with errno set if it could not even start (then member_submit
   * completes the io itself).
   */
  int (*submit) (struct member *m, struct member_io *io);

  /* Do io synchronously in the calling thread: return 0, or -1 with
   * errno set.  Optional; where present, member_submit_all runs the last
   * I/O of a batch this way (see there).
   */
  int (*run) (struct member *m, struct member_io *io);

  /* Take back io, given to submit earlier, if nothing has started it
   * yet: return true if the backend has forgotten it (the caller now
   * owns it and must run it), false if it has started or finished.
   * Optional, and only with run; see member_submit_all.
   */
  bool (*take_back) (struct member *m, struct member_io *io);

  /* Allocation at member_offset, for extents: return true if it is a
   * hole, false if data, and set *end (<= limit) to where that state
   * ends.  Synchronous.  Backends that cannot tell report data.
   */
  bool (*hole) (struct member *m, uint64_t member_offset, uint64_t limit,
                uint64_t *end);

  /* Stop threads, close.  Called at unload. */
  void (*close) (struct member *m);
};

struct member {
  unsigned index;
  char *name;                   /* as the user gave it, for messages */
  const struct member_ops *ops;
  void *priv;                   /* the backend's state */
  const char *engine;           /* set by ops->start: "uring", "threads",
                                 * "inline", "nbd" */
  bool inline_io;               /* set by ops->start: submit does the I/O
                                 * in the calling thread before it
                                 * returns (see member_submit_all) */

  /* Set before ops->open: how file and device members do I/O (io=). */
  enum file_io_mode {
    FILE_IO_AUTO,               /* inline on tmpfs and ramfs; else
                                 * io_uring if it works, else threads */
    FILE_IO_URING,
    FILE_IO_THREADS,
    FILE_IO_INLINE,
  } io_mode;

  /* Set before ops->open: how long an NBD member may take to connect,
   * or to answer one I/O, in milliseconds; 0 is forever (timeout=).
   */
  unsigned timeout_ms;

  /* Set by ops->open. */
  uint64_t size;
  char *identity;               /* same identity = same member twice */
  char *backing;                /* a loop device's: its backing file's
                                 * identity, else NULL */
  bool read_only;
  bool can_trim, can_zero, can_flush, can_fua;
  uint32_t min_block;           /* requests must be aligned to this; a
                                 * power of two, 1 unless the backend
                                 * says otherwise */

  /* Set once and never cleared: there is no resync yet, so a member that
   * missed a write must never be read again.
   */
  atomic_bool failed;
  /* Member I/Os in flight and the member offset past the last one: the
   * copy choice's view of this member, in the array's raid_read_state
   * (include/raidsim/readpolicy.h), which member.c keeps up to date.
   */
  struct raid_member_load *load;
  atomic_bool no_fast_zero;     /* refused a fast zero once: refuse early */

  /* The max-inflight slots. */
  pthread_mutex_t slot_lock;
  pthread_cond_t slot_cond;
  unsigned max_inflight;

  struct io_stats stats;
};

extern const struct member_ops file_ops;
extern const struct member_ops nbd_ops;

/* -D raid.io=1 */
extern int raid_debug_io;

/* Pick the backend that claims name and open it. */
extern int member_open (struct member *m);

extern void batch_init (struct member_batch *b, unsigned count);
extern void batch_wait (struct member_batch *b);
extern void batch_destroy (struct member_batch *b);

extern void member_submit (struct member_io *io);
/* Submit ios[0..n-1], all of one batch. */
extern void member_submit_all (struct member_io *ios, size_t n);
extern void member_io_done (struct member_io *io, int err);

/* A warning about member m, at start-up: the array is served, but not
 * as its user may think (a member that can only be read, space left
 * unused).  One line, "nbdkit: raid: warning: member N (NAME): ...".
 */
extern void member_warning (const struct member *m, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

#endif /* RAID_MEMBER_H */
