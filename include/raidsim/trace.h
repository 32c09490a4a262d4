/* raidsim: I/O traces to replay against an array.
 *
 * Four formats, told apart by their first bytes:
 *
 *   fio iolog version 2   "fio version 2 iolog", then lines
 *                         "FILE ACTION" (add, open, close) and
 *                         "FILE ACTION OFFSET LENGTH" (read, write,
 *                         sync, datasync, trim, and wait, whose OFFSET
 *                         is a pause in microseconds);
 *   fio iolog version 3   "fio version 3 iolog", then the same lines
 *                         each led by a timestamp in microseconds from
 *                         the start of the run (fio's log_io_u writes
 *                         utime_since_now), and no wait;
 *   blkparse text         blkparse's default output: "MAJ,MIN CPU SEQ
 *                         SEC.NSEC PID ACTION RWBS SECTOR + COUNT
 *                         [PROCESS]", then a summary after the events;
 *   blktrace binary       the struct blk_io_trace records that blktrace
 *                         writes (blktrace_api.h: magic 0x65617400 |
 *                         version 7, 48 bytes, then pdu_len bytes of
 *                         payload), in either byte order.  blktrace
 *                         writes one file per CPU; `blkparse -i NAME -d
 *                         FILE -O` merges them into one in time order.
 *
 * Which events of a block trace are the workload: the queue events
 * (Q), as fio's blktrace.c takes them.  A Q is the moment the host
 * asked for the I/O; the dispatch (D) that follows was timed by the
 * traced device's own queue and scheduler, so replaying D would impose
 * the old device's pacing on the simulated array, and C (completion)
 * is the old device's answer.  Q events are before merging, so the
 * array sees the I/Os as the file system sent them.
 *
 * Actions and what becomes of them:
 *   - read and write: replayed;
 *   - sync, datasync, a flush without data (RWBS "F..." with no
 *     sectors, BLK_TC_FLUSH with bytes 0), trim and discard (RWBS
 *     "D", BLK_TC_DISCARD): counted and skipped, as the models have
 *     neither flush nor trim (device.h); a write that carries a
 *     preflush or FUA flag is replayed as a plain write;
 *   - file actions (add, open, close) and blkparse's other events,
 *     notify events and messages: no I/O, skipped.
 * All files of an iolog and all devices of a block trace are replayed
 * onto the one array, as fio does with replay_redirect.
 *
 * Times: a record's time counts from the trace's first I/O (fio starts
 * a replay with its first entry, delay_since_ttime), and never goes
 * backwards: an entry stamped before the one before it is due at the
 * same time (fio issues it at once).  An iolog version 2 is timed only
 * if it has waits; then its I/Os are due at the sum of the waits
 * before them.
 *
 * A bad trace is refused with one line naming the place, "FILE:LINE:
 * what is wrong" for text and "FILE: event N (byte B): what is wrong"
 * for blktrace's binary records.
 */
#ifndef RAIDSIM_TRACE_H
#define RAIDSIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "raidsim/engine.h"

enum raidsim_trace_format {
  RAIDSIM_TRACE_IOLOG2,
  RAIDSIM_TRACE_IOLOG3,
  RAIDSIM_TRACE_BLKPARSE,
  RAIDSIM_TRACE_BLKTRACE,
};

/* The largest I/O a trace may hold (as fio's bs limit in raidsim). */
#define RAIDSIM_TRACE_MAX_LEN (UINT64_C (256) << 20)

struct raidsim_trace_rec {
  raidsim_ns time;              /* due, from the first I/O; 0 untimed */
  uint64_t offset, len;         /* bytes */
  uint32_t line;                /* text: line; binary: event number, from 1 */
  uint8_t dir;                  /* enum raidsim_dir */
};

struct raidsim_trace {
  char name[512];               /* the file, for messages */
  int format;                   /* enum raidsim_trace_format */
  bool timed;                   /* times mean something (not an iolog v2
                                 * without waits) */
  size_t n, cap;
  struct raidsim_trace_rec *recs;
  uint64_t syncs, trims;        /* skipped: no flush, no trim in the models */
  uint64_t max_len;             /* the largest I/O */
  uint64_t gcd;                 /* divides every offset and length */
  unsigned ndevices;            /* block traces: devices seen (major,minor) */
};

/* Parse len bytes of buf (a whole trace, any of the formats above) into
 * t, which the call initialises; name is used in messages.  A pure
 * function: no I/O, no global state.  Returns 0, or -1 with
 * raidsim_error () set and t freed.
 */
extern int raidsim_trace_parse_buffer (const char *buf, size_t len,
                                       const char *name,
                                       struct raidsim_trace *t);

/* Read the file at path and parse it.  NULL with raidsim_error () set. */
extern struct raidsim_trace *raidsim_trace_load (const char *path);

/* Free what parse_buffer allocated (t itself is the caller's). */
extern void raidsim_trace_clear (struct raidsim_trace *t);
/* Free a trace from raidsim_trace_load. */
extern void raidsim_trace_free (struct raidsim_trace *t);

/* Check that every I/O fits an array of array_size bytes.  Returns 0,
 * or -1 with raidsim_error () naming the first that does not.
 */
extern int raidsim_trace_check (const struct raidsim_trace *t,
                                uint64_t array_size);

/* "fio iolog v2", "fio iolog v3", "blkparse", "blktrace". */
extern const char *raidsim_trace_format_name (int format);

#endif /* RAIDSIM_TRACE_H */
