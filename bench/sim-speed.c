/* raidsim's speed benchmark: how many simulated I/Os per second of wall
 * time one core gets through, the peak memory of a run, and how the
 * engine's event queue compares with DiskSim's event list.  Not a test:
 * it prints figures and ratios, and bench/sim-speed.sh runs it and
 * records them (docs/performance.md).
 *
 *   sim-speed speed ARRAY IOS   4 KiB random reads at QD32 on ARRAY, IOS
 *                               I/Os; prints I/Os per second of wall and
 *                               CPU time and the peak resident memory
 *   sim-speed queue [OPS]       the hold model (pop the earliest event,
 *                               schedule one later) on our engine (a
 *                               flat array up to 8 pending events, a
 *                               binary heap beyond) and on a sorted
 *                               doubly-linked list with
 *                               linear insertion from the head, as
 *                               DiskSim 4.0's addtointq keeps its intq,
 *                               at several numbers of pending events
 *
 * Run: bench/sim-speed.sh (it builds nothing; run meson compile first)
 *      build/raidsim/sim-speed speed \
 *          configs/arrays/raid0-4x-sata-ssd.ini 10000000
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "raidsim/config.h"
#include "raidsim/engine.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"
#include "raidsim/rng.h"
#include "raidsim/sim.h"

static double
seconds (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
speed (const char *array, uint64_t ios)
{
  struct raidsim_array_config *ac = raidsim_array_config_load (array);
  struct raidsim_jobfile jf = { .njobs = 1 };
  struct raidsim_job job;
  struct raidsim_sim *s;
  struct rusage ru;
  double w0, c0, wall, cpu;
  uint64_t done;

  if (ac == NULL) {
    fprintf (stderr, "sim-speed: %s\n", raidsim_error ());
    return 1;
  }
  /* The job of configs/workloads/randread-4k-qd32.fio, with IOS I/Os. */
  memset (&job, 0, sizeof job);
  raidsim_params_defaults (raidsim_fio_params, &job);
  snprintf (job.name, sizeof job.name, "randread-4k-qd32");
  job.rw = RAIDSIM_RW_RANDREAD;
  job.bs = 4096;
  job.iodepth = 32;
  job.size = UINT64_C (16) << 30;
  job.number_ios = ios;
  job.time_based = true;        /* go round the 16 GiB as often as needed */
  job.runtime = UINT64_C (1) << 62;
  snprintf (jf.path, sizeof jf.path, "sim-speed");
  jf.jobs = &job;
  raidsim_jobfile_groups (&jf);

  s = raidsim_sim_new (ac, &jf, 1);
  if (s == NULL) {
    fprintf (stderr, "sim-speed: %s\n", raidsim_error ());
    return 1;
  }
  w0 = seconds (CLOCK_MONOTONIC);
  c0 = seconds (CLOCK_PROCESS_CPUTIME_ID);
  if (raidsim_sim_run (s) == -1) {
    fprintf (stderr, "sim-speed: %s\n", raidsim_error ());
    return 1;
  }
  wall = seconds (CLOCK_MONOTONIC) - w0;
  cpu = seconds (CLOCK_PROCESS_CPUTIME_ID) - c0;
  done = raidsim_sim_job (s, 0)->dir[RAIDSIM_READ].ios;
  getrusage (RUSAGE_SELF, &ru);
  printf ("ios %" PRIu64 " events %" PRIu64 " wall_s %.3f cpu_s %.3f "
          "ios_per_wall_s %.0f ios_per_cpu_s %.0f events_per_io %.2f "
          "maxrss_kib %ld\n",
          done, raidsim_sim_events (s), wall, cpu, done / wall, done / cpu,
          (double) raidsim_sim_events (s) / done, ru.ru_maxrss);
  raidsim_sim_free (s);
  raidsim_array_config_free (ac);
  return 0;
}

/* ---- the hold model ---- */

struct lnode {
  raidsim_ns time;
  struct lnode *next, *prev;
};

/* DiskSim's addtointq: walk from the head to the first later event. */
static void
list_insert (struct lnode **head, struct lnode *n)
{
  struct lnode *run = *head;

  if (run == NULL || n->time < run->time) {
    n->next = run;
    n->prev = NULL;
    if (run)
      run->prev = n;
    *head = n;
    return;
  }
  while (run->next && !(n->time < run->next->time))
    run = run->next;
  n->next = run->next;
  n->prev = run;
  if (run->next)
    run->next->prev = n;
  run->next = n;
}

static struct lnode *
list_pop (struct lnode **head)
{
  struct lnode *n = *head;

  *head = n->next;
  if (*head)
    (*head)->prev = NULL;
  return n;
}

static uint64_t sink;           /* keeps the list loop from being elided */

/* Mean increment 1 us, uniform in [1 ns, 2 us]: events spread over the
 * queue as service completions do.
 */
static raidsim_ns
increment (struct raidsim_rng *r)
{
  return 1 + raidsim_rng_below (r, 2000);
}

/* The hold model proper, on our engine: the fired event schedules
 * itself again, as a completion schedules the next request.
 */
static struct raidsim_rng hold_rng;

static void
hold_fire (struct raidsim_engine *e, struct raidsim_event *ev)
{
  raidsim_engine_schedule (e, ev, raidsim_engine_now (e) +
                           increment (&hold_rng));
}

static double
hold_engine (size_t n, uint64_t ops)
{
  struct raidsim_engine *e = raidsim_engine_new (n);
  struct raidsim_event *ev = calloc (n, sizeof *ev);
  double t0;
  uint64_t i;

  raidsim_rng_seed (&hold_rng, 42);
  for (i = 0; i < n; ++i) {
    raidsim_event_init (&ev[i], hold_fire);
    raidsim_engine_schedule (e, &ev[i], increment (&hold_rng));
  }
  t0 = seconds (CLOCK_MONOTONIC);
  for (i = 0; i < ops; ++i)
    raidsim_engine_step (e);
  t0 = seconds (CLOCK_MONOTONIC) - t0;
  raidsim_engine_free (e);
  free (ev);
  return t0;
}

static double
hold_list (size_t n, uint64_t ops)
{
  struct lnode *nodes = calloc (n, sizeof *nodes), *head = NULL;
  struct raidsim_rng r;
  raidsim_ns now = 0;
  double t0;
  uint64_t i;

  raidsim_rng_seed (&r, 42);
  for (i = 0; i < n; ++i) {
    nodes[i].time = increment (&r);
    list_insert (&head, &nodes[i]);
  }
  t0 = seconds (CLOCK_MONOTONIC);
  for (i = 0; i < ops; ++i) {
    struct lnode *x = list_pop (&head);

    now = x->time;
    x->time = now + increment (&r);
    list_insert (&head, x);
  }
  t0 = seconds (CLOCK_MONOTONIC) - t0;
  sink += now;
  free (nodes);
  return t0;
}

static int
queue (uint64_t ops)
{
  static const size_t sizes[] = { 8, 16, 128, 1024, 8192 };
  size_t k;

  printf ("%8s %16s %14s %11s\n", "pending", "engine ns/event",
          "list ns/event", "list/engine");
  for (k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    size_t n = sizes[k];
    /* Fewer operations for the slow list at large sizes. */
    uint64_t lops = n >= 1024 ? ops / (n / 128) : ops;
    double th = hold_engine (n, ops) / ops * 1e9;
    double tl = hold_list (n, lops) / lops * 1e9;

    printf ("%8zu %16.1f %14.1f %11.1f\n", n, th, tl, tl / th);
  }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "speed") == 0)
    return speed (argv[2], strtoull (argv[3], NULL, 10));
  if ((argc == 2 || argc == 3) && strcmp (argv[1], "queue") == 0)
    return queue (argc == 3 ? strtoull (argv[2], NULL, 10) : 10000000);
  fprintf (stderr, "usage: sim-speed speed ARRAY IOS\n"
           "       sim-speed queue [OPS]\n");
  return 2;
}
