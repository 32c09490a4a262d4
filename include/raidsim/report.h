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

#endif /* RAIDSIM_REPORT_H */
