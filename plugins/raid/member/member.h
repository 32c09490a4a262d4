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
 * of error.  Under nbdkit -r (no_writes) a write, zero or trim is not
 * submitted either: it completes at once with EROFS.
 */
#ifndef RAID_MEMBER_H
#define RAID_MEMBER_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "raidsim/readpolicy.h"
#include "batch.h"
#include "op.h"
#include "stats.h"

/* member_io flags */
#define MIO_FUA      1u         /* durable when it completes */
#define MIO_MAY_TRIM 2u         /* MOP_ZERO may leave a hole */
#define MIO_FAST     4u         /* MOP_ZERO: fail with ENOTSUP, don't write */
#define MIO_NO_GROW  8u         /* MOP_WRITE: fail with MEMBER_ESHRUNK
                                 * rather than write past the member's
                                 * present end (a repair's rewrite) */

/* The error of a member I/O that found its member shorter than it was
 * at start: a read that met the end of a file or device, or a write
 * with MIO_NO_GROW that would have grown it.  The member has lost data,
 * and the request path fails it at once (io/read.c, io/write.c).  No backend
 * returns ENXIO otherwise: pread and pwrite do not on files and
 * devices, and NBD has no such error.
 */
#define MEMBER_ESHRUNK ENXIO

/* What went wrong with a member I/O, for messages: strerror, but for
 * MEMBER_ESHRUNK.
 */
extern const char *member_strerror (int err);

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

  /* Allocation at member_offset, for extents: return 1 if it is a
   * hole, 0 if data, and set *end (<= limit) to where that state ends.
   * Return -1 with errno set if the member cannot answer at all (its
   * connection is lost, or member_offset lies past its present end):
   * io/extents.c then asks another copy, and fails the request with EIO
   * if no copy answers, rather than guess.  Synchronous.  A live member
   * that cannot tell allocation (no SEEK_DATA, no base:allocation, a
   * server that fails block status) reports data.
   */
  int (*hole) (struct member *m, uint64_t member_offset, uint64_t limit,
               uint64_t *end);

  /* nbdkit runs read-only (-r): hold the member read-only from now on
   * where that loses nothing.  Called once, before any member I/O.
   * Optional; return 0, or -1 after nbdkit_error naming the member.
   */
  int (*drop_write) (struct member *m);

  /* Stop threads, close.  Called at unload. */
  void (*close) (struct member *m);

  /* Read length bytes at member_offset into buf, in the calling thread,
   * before start: how the md superblocks are read at config time
   * (md/superblock.c), when no backend thread runs yet.  Optional where run
   * works before start (files).  Return 0, or -1 with errno set.
   */
  int (*read_early) (struct member *m, void *buf, uint64_t length,
                     uint64_t member_offset);

  /* The struct member was moved, between open and start (assembly puts
   * members in the places of their md roles, assemble.c): update any
   * pointer to it that open kept.  Optional.
   */
  void (*moved) (struct member *m);
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
  /* nbdkit -r: set at the first connection (raid.c), before any I/O,
   * and never cleared.  member_start then refuses every write, zero and
   * trim with EROFS, whatever asks for it.
   */
  atomic_bool no_writes;

  /* The max-inflight slots. */
  pthread_mutex_t slot_lock;
  pthread_cond_t slot_cond;
  unsigned max_inflight;
  /* Under slot_lock: calls into the backend outside member I/O
   * (ops->hole, by member_hole) in flight.  Like the I/Os in flight,
   * they hold the member open: member_drain waits for both.
   */
  unsigned calls;

  struct io_stats stats;
};

extern const struct member_ops file_ops;
extern const struct member_ops nbd_ops;
extern const struct member_ops missing_ops;

/* -D raid.io=1 */
extern int raid_debug_io;

/* Pick the backend that claims name and open it. */
extern int member_open (struct member *m);

/* Read synchronously before start (ops->read_early, or ops->run):
 * returns 0, or -1 with errno set.
 */
extern int member_read_early (struct member *m, void *buf, uint64_t length,
                              uint64_t member_offset);

/* Move an opened member that has not started yet, and has done no I/O
 * but member_read_early, from *from to *to.
 */
extern void member_move (struct member *to, struct member *from);

extern void member_submit (struct member_io *io);
/* Submit ios[0..n-1], all of one batch. */
extern void member_submit_all (struct member_io *ios, size_t n);
/* Run ios[0..n-1] as one batch of their own and wait for them all: the
 * background work's way (metadata, resync, recovery, scrub).
 */
extern void member_run_batch (struct member_io *ios, size_t n);
/* The same for ios that point at batch already (ioset_runs, plan.h): the
 * request path's way.
 */
static inline void
member_run_batch_in (struct member_io *ios, size_t n,
                     struct member_batch *batch)
{
  batch_init (batch, n);
  member_submit_all (ios, n);
  batch_wait (batch);
  batch_destroy (batch);
}
extern void member_io_done (struct member_io *io, int err);

/* ops->hole on a member that may fail and be removed meanwhile (the
 * control socket's remove): like member I/O, it is refused (-1, EIO)
 * once the member has failed, and otherwise holds the member open
 * until it returns.  Returns as ops->hole.
 */
extern int member_hole (struct member *m, uint64_t member_offset,
                        uint64_t limit, uint64_t *end);

/* Wait until no I/O of m and no member_hole on it is in flight.  m has
 * failed, and member_start and member_hole check that under slot_lock
 * before they go to the backend, so none starts after this: m may then
 * be closed.
 */
extern void member_drain (struct member *m);

/* Exchange the backends of x and y (ops, priv, name, size, identity and
 * the rest that open set), which stay where they are: a spare taking
 * over a role (md/spares.h).  Neither may have I/O in flight.
 */
extern void member_swap_backend (struct member *x, struct member *y);

/* A warning about member m, at start-up: the array is served, but not
 * as its user may think (a member that can only be read, space left
 * unused).  One line, "nbdkit: raid: warning: member N (NAME): ...".
 */
extern void member_warning (const struct member *m, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

#endif /* RAID_MEMBER_H */
