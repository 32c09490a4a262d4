/* raidsim: the progress line of long sweeps (see progress.h). */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "raidsim/progress.h"

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* mm:ss, or h:mm:ss from an hour on. */
static void
clock_text (char *buf, size_t len, uint64_t s)
{
  if (s >= 3600)
    snprintf (buf, len, "%" PRIu64 ":%02u:%02u", s / 3600,
              (unsigned) (s / 60 % 60), (unsigned) (s % 60));
  else
    snprintf (buf, len, "%02u:%02u", (unsigned) (s / 60),
              (unsigned) (s % 60));
}

void
raidsim_progress_format (char *buf, size_t len, const char *what,
                         unsigned done, unsigned total, uint64_t elapsed_ns)
{
  char el[32], left[32];
  uint64_t s = elapsed_ns / 1000000000u;

  clock_text (el, sizeof el, s);
  if (done == 0 || done >= total) {
    snprintf (buf, len, "%s: %u/%u runs, %s elapsed", what, done, total, el);
    return;
  }
  /* Rounded to the nearest second: 7 s for 12 of 40 leaves 16.33 s. */
  clock_text (left, sizeof left,
              (uint64_t) ((double) elapsed_ns * (total - done) / done / 1e9
                          + 0.5));
  snprintf (buf, len, "%s: %u/%u runs, %s elapsed, ~%s left", what, done,
            total, el, left);
}

static void
show (struct raidsim_progress *p, unsigned done)
{
  char line[160];
  size_t n;

  raidsim_progress_format (line, sizeof line, p->what, done, p->total,
                           now_ns () - p->start_ns);
  n = strlen (line);
  /* Pad over a longer line shown before (the estimate comes and goes). */
  fprintf (p->fp, "\r%s%*s", line,
           p->shown > n ? (int) (p->shown - n) : 0, "");
  if (p->shown < n)
    p->shown = n;
  fflush (p->fp);
}

void
raidsim_progress_start (struct raidsim_progress *p, FILE *fp,
                        const char *what, unsigned total)
{
  p->fp = fp;
  p->what = what;
  p->total = total;
  p->base = 0;
  p->start_ns = now_ns ();
  p->shown = 0;
  if (fp)
    show (p, 0);
}

void
raidsim_progress_update (struct raidsim_progress *p, unsigned done)
{
  if (p->fp)
    show (p, p->base + done);
}

void
raidsim_progress_end (struct raidsim_progress *p)
{
  if (p->fp == NULL)
    return;
  /* Blank the line and return to its start: the table or the error
   * that follows begins in column 0 of a clean line.
   */
  fprintf (p->fp, "\r%*s\r", (int) p->shown, "");
  fflush (p->fp);
  p->fp = NULL;
}
