/* raidsim: sweeps, many independent runs of one workload: over several
 * arrays, and over the values of one or more parameters (queue depth,
 * chunk, member count, RAID level).  Several parameters make a grid:
 * every combination of their values is a run, the first parameter's
 * values changing slowest.
 *
 * Each run is a whole simulation with the same seed, independent of
 * every other, so runs can go to separate processes: raidsim_sweep_run
 * forks up to `workers` of them and hands out runs one at a time as
 * workers come free.  Results are collected by run number and written
 * in that order, so the output is byte-identical whatever the number
 * of workers, and with one worker everything runs in the calling
 * process.
 */
#ifndef RAIDSIM_SWEEP_H
#define RAIDSIM_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "raidsim/fiojob.h"
#include "raidsim/io.h"
#include "raidsim/report.h"
#include "raidsim/stats.h"

enum raidsim_vary {
  RAIDSIM_VARY_NONE,
  RAIDSIM_VARY_QD,              /* every job's iodepth */
  RAIDSIM_VARY_CHUNK,           /* the array's chunk, bytes */
  RAIDSIM_VARY_MEMBERS,         /* the array's member count */
  RAIDSIM_VARY_LEVEL,           /* the array's level (a raid_level) */
};

#define RAIDSIM_SWEEP_MAX_VALUES 64
#define RAIDSIM_SWEEP_MAX_KEYS 4        /* one per enum raidsim_vary */
#define RAIDSIM_SWEEP_MAX_WORKERS 64

struct raidsim_embedded;

/* One varied parameter and its values, in the order given. */
struct raidsim_vary_axis {
  int key;                      /* enum raidsim_vary */
  unsigned nvalues;
  uint64_t values[RAIDSIM_SWEEP_MAX_VALUES];
};

struct raidsim_sweep {
  unsigned narrays;
  const char *const *arrays;    /* array file paths */
  /* NULL: arrays[] are on the file system; else they are names in this
   * table of files built into the program (embedded.h).
   */
  const struct raidsim_embedded *files;
  const char *workload;         /* fio job file or preset */
  unsigned nvary;               /* 0: nothing varied */
  struct raidsim_vary_axis vary[RAIDSIM_SWEEP_MAX_KEYS];
  uint64_t seed;
  unsigned workers;             /* processes, at most
                                 * RAIDSIM_SWEEP_MAX_WORKERS; 0: the
                                 * online CPUs */
  bool progress;                /* a progress bar on stderr */
  /* The jobs' iodepth (or the varied qd) is per member: each run's
   * jobs get it times the run's member count, so a member-count sweep
   * keeps every drive's queue depth, not the total.
   */
  bool qd_per_member;
  /* NULL: every run with seed.  Else the whole sweep once per seed of
   * the list (stats.h), and each point's figures are their means, with
   * 95% intervals in the result's ci.
   */
  const struct raidsim_seed_list *seeds;
};

/* One job of one run: what a sweep reports and `raidsim plot` draws. */
struct raidsim_point {
  char array[64];               /* the array file's name, no .ini */
  char job[64];
  unsigned nvary;               /* the sweep's nvary */
  int vary[RAIDSIM_SWEEP_MAX_KEYS]; /* the sweep's keys, in order */
  uint64_t value[RAIDSIM_SWEEP_MAX_KEYS]; /* this run's value of each */
  int rw;                       /* enum raidsim_rw */
  uint64_t bs, iodepth, numjobs;
  uint64_t ios[RAIDSIM_NDIRS];
  double iops[RAIDSIM_NDIRS];
  double bw[RAIDSIM_NDIRS];     /* bytes/s */
  double lat_mean[RAIDSIM_NDIRS]; /* ns */
  uint64_t lat_p99[RAIDSIM_NDIRS]; /* ns */
  /* The run's most utilised member or link (raidsim_sim_bottleneck):
   * of the whole run, so of all its jobs together.
   */
  char bottleneck[32];
  double bottleneck_util;       /* percent */
};

/* The half-widths of the 95% intervals of a point's figures over the
 * seeds (stats.h), in the units of struct raidsim_point.
 */
struct raidsim_point_ci {
  double iops[RAIDSIM_NDIRS];
  double bw[RAIDSIM_NDIRS];
  double lat_mean[RAIDSIM_NDIRS];
  double lat_p99[RAIDSIM_NDIRS];
  double bottleneck_util;
  unsigned bottleneck_seeds;    /* seeds whose bottleneck is the point's */
};

struct raidsim_sweep_result {
  unsigned npoints;
  struct raidsim_point *points;
  /* With sw->seeds: each point's figures are their means over nseeds
   * seeds (ios rounded down; the bottleneck the one most seeds name,
   * the first seed's among equals, and its utilisation the mean over
   * all seeds), and ci[i] holds the intervals of points[i].  0 and
   * NULL for a sweep of one seed.
   */
  unsigned nseeds;
  struct raidsim_point_ci *ci;
};

/* "qd=1,2,4" etc.: adds an axis to sw->vary.  A key already varied is
 * refused.  Returns 0, or -1 with raidsim_error () set ("--vary: ...").
 */
extern int raidsim_sweep_parse_vary (struct raidsim_sweep *sw,
                                     const char *spec);

/* Run every (array, value) pair.  Returns 0, or -1 with raidsim_error ()
 * set to the first failing run's message.
 */
extern int raidsim_sweep_run (const struct raidsim_sweep *sw,
                              struct raidsim_sweep_result *res);
extern void raidsim_sweep_result_free (struct raidsim_sweep_result *res);

/* Write the points as a table, CSV or JSON.  The table puts several
 * arrays side by side when nothing is varied.
 */
extern int raidsim_sweep_report (FILE *fp, const struct raidsim_sweep *sw,
                                 const struct raidsim_sweep_result *res,
                                 enum raidsim_format format);

extern const char *raidsim_vary_name (int vary);

/* name with the queue depth it carries ("4k-qd32-read", cdm8's
 * "RND4K-Q32T1-read") set to depth; a name that carries none is copied.
 */
extern void raidsim_sweep_job_name (const char *name, uint64_t depth,
                                    char *buf, size_t len);

#endif /* RAIDSIM_SWEEP_H */
