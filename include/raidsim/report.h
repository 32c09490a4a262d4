/* raidsim: the figures of a run, as a table for people, CSV for
 * spreadsheets and JSON for programs.
 *
 * The JSON follows fio's --output-format=json where a field means the
 * same thing (jobs[].read.iops, bw_bytes, lat_ns.mean,
 * clat_ns.percentile["99.000000"], disk_util[].util), so that scripts
 * written for fio's output read ours; what fio has no field for (the
 * member queues, the links) is added under names of our own.  The output
 * depends only on the inputs and the seed: no time stamps, no host
 * names, so that two runs can be compared byte for byte.
 */
#ifndef RAIDSIM_REPORT_H
#define RAIDSIM_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "raidsim/sim.h"

enum raidsim_format {
  RAIDSIM_FORMAT_TABLE,
  RAIDSIM_FORMAT_CSV,
  RAIDSIM_FORMAT_JSON,
};

/* Parse a --format argument (table, csv, json).  Returns 0, or -1 with
 * raidsim_error () set to a message naming the value.
 */
extern int raidsim_parse_format (const char *s, enum raidsim_format *format);

/* Parse a --seed argument: a whole number, decimal or 0x hex.  Returns
 * 0, or -1 with raidsim_error () set.
 */
extern int raidsim_parse_seed (const char *s, uint64_t *seed);

/* Returns 0, or -1 with raidsim_error () set. */
extern int raidsim_report (FILE *fp, const struct raidsim_sim *s,
                           enum raidsim_format format);

/* The figures most callers want, from one job and direction. */
extern double raidsim_result_iops (const struct raidsim_job_result *r,
                                   enum raidsim_dir dir);
extern double raidsim_result_bw (const struct raidsim_job_result *r,
                                 enum raidsim_dir dir); /* bytes/s */

/* The direction a job moves data in, for one-figure summaries (a
 * surface scan's points, a validation row): writes for write and
 * randwrite, reads for the rest, mixes included.
 */
extern enum raidsim_dir raidsim_job_dir (const struct raidsim_job *j);

/* A surface scan's figures (a workload whose summary is
 * RAIDSIM_SUMMARY_SURFACE, as HD Tune reports it): the transfer rate of
 * each sample point, bytes/s, and their minimum, maximum and mean.
 * Returns the number of points (0 if the workload is not a scan).
 */
extern unsigned raidsim_result_surface (const struct raidsim_sim *s,
                                        double *min, double *max,
                                        double *avg);

/* ---- several seeds (raidsim run --seeds; seeds.c) ---- */

struct raidsim_seed_list;

/* One figure of a run: of a job (who is its name; dir 0 read, 1 write,
 * -1 both), of a member ("member0") or link ("uplink"), or of the
 * bottleneck ("bottleneck").  name: iops, bw_bytes (bytes/s),
 * lat_mean_ns, lat_p50_ns, lat_p95_ns, lat_p99_ns, STAGE_mean_ns (one
 * per stage of sim.h), util (percent).
 */
struct raidsim_fig {
  char who[64];
  int dir;
  char name[40];
  double v;
};

struct raidsim_figs {
  unsigned n;
  struct raidsim_fig *f;
  char bottleneck[32];          /* the run's bottleneck's name */
};

/* The figures of a finished run, always the same list for the same
 * array and jobs whatever the seed.  Returns 0, or -1 with
 * raidsim_error () set.
 */
extern int raidsim_figs_of (const struct raidsim_sim *s,
                            struct raidsim_figs *figs);
extern void raidsim_figs_free (struct raidsim_figs *figs);

/* Each figure's mean over the seeds (figs[k] from seed k) and its 95%
 * interval (stats.h), as a table, CSV ("array,what,direction,figure,
 * seeds,mean,sd,ci95,lo,hi") or JSON; s is any one of the runs, for the
 * array's name.  Returns 0, or -1 with raidsim_error () set.
 */
extern int raidsim_report_seeds (FILE *fp, const struct raidsim_sim *s,
                                 const struct raidsim_seed_list *seeds,
                                 const struct raidsim_figs *figs,
                                 enum raidsim_format format);

#endif /* RAIDSIM_REPORT_H */
