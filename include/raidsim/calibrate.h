/* raidsim: device profiles fitted to a user's own fio measurements of
 * one drive (`raidsim calibrate`).
 *
 * Two stages, each with one job:
 *
 *   raidsim_cal_read    reads fio's JSON output (--output-format=json,
 *                       or raidsim run --format json, which uses fio's
 *                       field names) into a list of measured jobs: the
 *                       pattern (rw, bs, iodepth, offset, size) and the
 *                       IOPS it achieved.  Pure parsing, no simulation.
 *
 *   raidsim_cal_fit     changes the fitted parameters of the device of a
 *                       one-drive array until the simulator, running
 *                       each measured job against it, predicts what was
 *                       measured: a Nelder-Mead search on the logarithms
 *                       of the parameters, minimising the sum of
 *                       squared log ratios of predicted to measured
 *                       IOPS over the jobs that inform them.
 *
 * What is fitted depends on the model (the table in fit.c), and each
 * parameter says which measured jobs inform it; the others keep the
 * values of the base device file, which is where rpm, capacity, cache
 * sizes and the like come from (a data sheet gives those).
 */
#ifndef RAIDSIM_CALIBRATE_H
#define RAIDSIM_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "raidsim/config.h"
#include "raidsim/param.h"

#define RAIDSIM_CAL_MAX_JOBS 64
#define RAIDSIM_CAL_MAX_PARAMS 8

/* One measured job: what it did and the IOPS it got. */
struct raidsim_cal_job {
  char name[128];
  int rw;                       /* read, write, randread or randwrite */
  uint64_t bs;                  /* bytes */
  uint64_t iodepth;
  /* offset and size as written: bytes, or a percentage of the drive
   * when *_pct (fio's offset=25%); size 0: to the end of the drive.
   */
  uint64_t offset, size;
  bool offset_pct, size_pct;
  uint64_t ramp_time;           /* ns, as measured (fio's ramp_time) */
  uint64_t runtime;             /* ns measured after the ramp; 0: unknown */
  double iops;                  /* of the job's direction */
  double lat_mean;              /* ns; 0 if not given */
};

struct raidsim_cal_data {
  char path[RAIDSIM_STR_MAX];
  unsigned njobs;
  struct raidsim_cal_job jobs[RAIDSIM_CAL_MAX_JOBS];
};

/* Read fio's JSON output from path.  Text before the first '{' (notes
 * fio prints on stdout) is skipped.  Returns 0, or -1 with
 * raidsim_error () set to one line naming the file and, where one is at
 * fault, the job: "PATH: job 'NAME': rw=randrw: ...".
 */
extern int raidsim_cal_read (const char *path, struct raidsim_cal_data *d);
/* The same from text in memory; name is used in messages. */
extern int raidsim_cal_read_text (const char *name, const char *text,
                                  struct raidsim_cal_data *d);

/* A job's region in bytes on a drive of capacity bytes. */
extern void raidsim_cal_region (const struct raidsim_cal_job *j,
                                uint64_t capacity, uint64_t *offset,
                                uint64_t *size);

/* What a fit did to one parameter. */
enum raidsim_cal_how {
  RAIDSIM_CAL_FITTED,           /* searched */
  RAIDSIM_CAL_SCALED,           /* kept in proportion to another (tie) */
};

struct raidsim_cal_param {
  const struct raidsim_param *p; /* in the model's table */
  enum raidsim_cal_how how;
  const char *tie;              /* SCALED: the parameter it follows */
  double base, value;           /* base units (ns, bytes/s, count) */
};

struct raidsim_cal_result {
  unsigned nparams;
  struct raidsim_cal_param params[RAIDSIM_CAL_MAX_PARAMS];
  /* Per measured job: the prediction with the fitted values, and
   * whether the job entered the fit.
   */
  double predicted[RAIDSIM_CAL_MAX_JOBS];
  bool used[RAIDSIM_CAL_MAX_JOBS];
  unsigned evaluations;         /* simulations run */
};

/* The parameters a model can fit, for --help and the docs: prints one
 * line per parameter, "MODEL NAME: the jobs that inform it".
 */
extern void raidsim_cal_list (FILE *fp);

/* Fit the device of ac, a one-drive array (level single), to d.  names
 * (nnames of them) are the parameters to fit; NULL fits every parameter
 * the model can fit.  The fitted values are written into the device's
 * parameters in ac.  Returns 0, or -1 with raidsim_error () set to one
 * line: "PATH: no job for NAME: it needs ..." when a parameter has no
 * job to inform it, "PATH: job 'NAME': ..." when a job cannot be
 * simulated.
 */
extern int raidsim_cal_fit (struct raidsim_array_config *ac,
                            const struct raidsim_cal_data *d,
                            const char *const *names, unsigned nnames,
                            uint64_t seed, struct raidsim_cal_result *r);

/* Predict every job of d on ac as it is (no fit): r->predicted. */
extern int raidsim_cal_predict (const struct raidsim_array_config *ac,
                                const struct raidsim_cal_data *d,
                                uint64_t seed, double *predicted);

/* Write the fitted device as an INI device file: a comment with the
 * command, the fitted values beside their base values, each job's
 * measured and predicted IOPS and residual, then [device] with every
 * key of the model.  Returns 0 or -1 (errno set by stdio).
 */
extern int raidsim_cal_write_ini (FILE *fp, const struct raidsim_array_config *ac,
                                  const struct raidsim_cal_data *d,
                                  const struct raidsim_cal_result *r,
                                  const char *command);

#endif /* RAIDSIM_CALIBRATE_H */
