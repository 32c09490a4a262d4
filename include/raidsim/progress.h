/* raidsim: a progress line on stderr for long sweeps.
 *
 *   sweep: 12/40 runs, 00:07 elapsed, ~00:16 left
 *
 * rewritten in place with '\r' after each finished run and cleared
 * when the sweep ends (or fails), so the terminal is left as it was.
 * The caller decides whether to show it at all: `raidsim sweep` does
 * only when stderr is a terminal, so logs, pipes and tests see nothing.
 *
 * The time left is the elapsed time scaled by the runs still to do
 * (elapsed x (total - done) / done): runs of one sweep are alike, and
 * workers finish them at a steady rate once all are busy.
 *
 * Run the tests: meson test -C build sim-progress
 */
#ifndef RAIDSIM_PROGRESS_H
#define RAIDSIM_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct raidsim_progress {
  FILE *fp;                     /* NULL: show nothing */
  const char *what;             /* "sweep" */
  unsigned total;
  unsigned base;                /* runs done in earlier parts (the
                                 * earlier seeds of sweep --seeds),
                                 * added to each update's count */
  uint64_t start_ns;            /* CLOCK_MONOTONIC at start */
  size_t shown;                 /* length of the line on screen */
};

/* The line for `done` of `total` runs after `elapsed_ns`, without '\r'.
 * Times are mm:ss, or h:mm:ss from an hour; no estimate before the
 * first run ends.  Pure: the tests call it with chosen figures.
 */
extern void raidsim_progress_format (char *buf, size_t len, const char *what,
                                     unsigned done, unsigned total,
                                     uint64_t elapsed_ns);

/* Start (shows 0/total), update after each run (base + done of
 * total), and end (clears the line).  With fp NULL every call does
 * nothing.
 */
extern void raidsim_progress_start (struct raidsim_progress *p, FILE *fp,
                                    const char *what, unsigned total);
extern void raidsim_progress_update (struct raidsim_progress *p,
                                     unsigned done);
extern void raidsim_progress_end (struct raidsim_progress *p);

#endif /* RAIDSIM_PROGRESS_H */
