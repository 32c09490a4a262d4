/* nbdkit-raid-plugin: the one walk of md's sync actions (walk.c), as
 * md_do_sync walks the array for every action and calls the
 * personality's sync_request for each step: the resync (resync.c), the
 * rebuild (rebuild.c), the replacement (replace.c) and check and repair
 * (scrub.c) each give it their ops, and it does the rest.
 *
 * The array is walked from a position to its end in regions of at most
 * MD_SYNC_REGION bytes, in ascending order.  Up to window of them are in
 * flight at once, copied by copiers threads: the walk's own, which
 * copies too while it waits, and copiers - 1 of a pool started for the
 * walk (window 1 and copiers 1 walk one region at a time, in the walk's
 * thread).  Regions come back out in the order they went in
 * (recwindow.h), each once it is done, and only then is it passed: a
 * position never passes a region below which one is still copied, as
 * md's recovery_offset only advances over completed sync requests.
 *
 *   next     where the walk goes on: the first array offset at or
 *            after pos with work to do, *len (given as the region's
 *            length from pos) cut to the end of that work (a bitmap's
 *            run of chunks); size or more if none is left.  NULL: pos.
 *   region   one region's work, in any copier's thread, under no lock:
 *            it sets r->copied (the bytes the throttle counts) and
 *            r->ok (false: the walk is to stop above it).  buf holds
 *            bufsize bytes, 4K-aligned, the copier's own.
 *   passed   in the walk's thread, each region in order: positions,
 *            the status, checkpoints, the throttle (throttle.h) and
 *            the log.  Returns false to put no more regions in (those
 *            in flight are waited for, and passed too).
 */
#ifndef RAID_SYNC_WALK_H
#define RAID_SYNC_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "recwindow.h"

struct walk;

struct walk_ops {
  uint64_t (*next) (struct walk *w, uint64_t pos, uint64_t *len);
  void (*region) (struct walk *w, struct rec_region *r, char *buf);
  bool (*passed) (struct walk *w, const struct rec_region *r);
};

#define WALK_MAX_COPIERS 4

struct walk_pool;

struct walk {
  const struct walk_ops *ops;
  void *opaque;                 /* the action's own */
  uint64_t size;                /* the array's */
  unsigned window;              /* at most RECWINDOW_MAX */
  unsigned copiers;             /* at most WALK_MAX_COPIERS */
  uint64_t bufsize;             /* bytes of each copier's buffer */

  /* Read by passed: */
  uint64_t cursor;              /* where the next region would start */
  unsigned inflight;            /* regions in the window, r not counted */

  struct walk_pool *pool;       /* walk_start's */
};

/* Before the walk: its buffers and copier threads, with ops, size,
 * window, copiers and bufsize set.  Returns 0, or -1 with errno set if
 * not even the walk's own buffer could be had (copiers that cannot
 * start are done without).  walk_end stops the threads and frees it all.
 */
extern int walk_start (struct walk *w);
extern void walk_end (struct walk *w);

/* Walk from pos to the end, or until passed says stop: returns once
 * every region that went in has been passed.  w->cursor is then where
 * the next would have started.
 */
extern void walk_run (struct walk *w, uint64_t pos);

/* The log's "WHAT: N% done (X of Y bytes)" once per tenth of size that
 * pos passes; *next_tenth starts at walk_first_tenth (pos, size).
 */
extern unsigned walk_first_tenth (uint64_t pos, uint64_t size);
extern void walk_log_tenths (const char *what, unsigned *next_tenth,
                             uint64_t pos, uint64_t size);

#endif /* RAID_SYNC_WALK_H */
