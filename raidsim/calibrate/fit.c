/* raidsim: fitting a device profile to measured jobs (calibrate.h).
 *
 * The simulator is the model of the fit: each measured job is run
 * against the one-drive array (its pattern, a fixed number of I/Os after
 * a short ramp), and the fitted parameters are moved until the predicted
 * IOPS match the measured ones.  Using the simulator rather than closed
 * forms means the fit sees everything the model does (the controller's
 * overhead and port, caches, queueing), and a profile that produced a
 * measurement is a fixed point of the fit.
 *
 * The search is Nelder-Mead on x = log (value / base) for the
 * continuous parameters (times and rates), from the base values, with
 * one restart from the best point; whole-number parameters (a fixed
 * device's parallelism) are chosen by trying every value from 1 to the
 * deepest queue measured, before and after, and then their neighbours,
 * each with the continuous values searched again (refine_whole).  The objective is the sum
 * over the jobs that inform a fitted parameter of (log (predicted /
 * measured))^2: a relative error, so a 4K job counts as much as a 1 MiB
 * one.  A run with a given seed is deterministic, so the fit is too.
 *
 * Which parameters a model fits, and which jobs inform each, is the
 * table below: a parameter with no job to inform it is an error, not a
 * silent keep, unless the caller leaves it out (--fit).  A parameter may
 * follow another when it is not fitted itself (`tie`): an hdd's
 * rate_inner keeps its ratio to rate_outer when no sequential job
 * reaches the inner half of the drive.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/calibrate.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"
#include "raidsim/report.h"
#include "raidsim/sim.h"

enum need {
  NEED_RR1,                     /* random reads at QD1 */
  NEED_RW1,                     /* random writes at QD1 */
  NEED_RRQ,                     /* random reads at QD >= 4 */
  NEED_SEQ,                     /* sequential reads or writes */
  NEED_SEQW,                    /* sequential writes */
  NEED_ZONES,                   /* sequential reads near both ends */
  NEED_RR1_WIDE,                /* random reads at QD1 over >= half */
  NEED_RR_WIDE,                 /* the same, and at any deeper queue */
  NEED_RR1_SPANS,               /* random reads at QD1 over two spans */
  NEED_NONE,                    /* never searched: only follows its tie */
};

static const char *const need_text[] = {
  [NEED_RR1] = "random reads at iodepth=1 (calibrate.fio: rand-read-4k-qd1)",
  [NEED_RW1] = "random writes at iodepth=1 (calibrate.fio: "
  "rand-write-4k-qd1)",
  [NEED_RRQ] = "random reads at iodepth=4 or more (calibrate.fio: "
  "rand-read-4k-qd32)",
  [NEED_SEQ] = "sequential reads or writes (calibrate.fio: seq-*)",
  [NEED_SEQW] = "sequential writes (calibrate.fio: seq-write-*)",
  [NEED_ZONES] = "sequential reads in the first 10% of the drive and "
  "beyond its half (calibrate.fio: hdd-zone-*)",
  [NEED_RR1_WIDE] = "random reads at iodepth=1 over half the drive or "
  "more (calibrate.fio: rand-read-4k-qd1)",
  [NEED_RR_WIDE] = "random reads at iodepth=1 over half the drive or "
  "more (calibrate.fio: rand-read-4k-qd1; rand-read-4k-qd32 counts too)",
  [NEED_RR1_SPANS] = "random reads at iodepth=1 over a span of 20% of "
  "the drive or less and one of half or more (calibrate.fio: "
  "hdd-span-* and rand-read-4k-qd1)",
  [NEED_NONE] = "nothing: it is not searched",
};

struct fit_entry {
  const char *model, *name;
  enum need need;
  const char *tie;              /* follows this one when not fitted */
};

static const struct fit_entry fit_table[] = {
  { "fixed", "latency", NEED_RR1, NULL },
  { "fixed", "write_latency", NEED_RW1, NULL },
  { "fixed", "parallelism", NEED_RRQ, NULL },
  { "hdd", "rate_outer", NEED_SEQ, NULL },
  { "hdd", "rate_inner", NEED_ZONES, "rate_outer" },
  /* Deep queues of random reads over the drive depend on the seek
   * curve too (a disk reorders them for short seeks), so they count.
   */
  { "hdd", "seek_avg", NEED_RR_WIDE, NULL },
  /* Searched together, seek_avg and seek_full trade off against each
   * other within the noise of a few thousand rotational waits (a round
   * trip recovered seek_full 16% low), so the curve keeps its shape.
   */
  { "hdd", "seek_full", NEED_NONE, "seek_avg" },
  { "flash", "overhead", NEED_RRQ, NULL },
  { "flash", "read_time", NEED_RR1, NULL },
  { "flash", "program_time", NEED_SEQW, NULL },
  { NULL, NULL, 0, NULL },
};

/* How long each job is simulated: long enough for about RANDOM_IOS
 * random I/Os (per queue slot, up to 8: the mean of 2,000 rotational
 * waits of a disk is within 0.6% of half a turn) or 256 MiB of
 * sequential transfer at the measured rate, after the job's own ramp
 * (up to MAX_RAMP): the ramp is where a drive works off what the job
 * before left it, such as a disk's write cache full of random writes.
 */
#define RANDOM_IOS 2000
#define SEQ_BYTES (UINT64_C (256) << 20)
#define MAX_RAMP (2 * RAIDSIM_NS_PER_S)
#define MIN_RUN (20 * RAIDSIM_NS_PER_MS)

void
raidsim_cal_list (FILE *fp)
{
  const struct fit_entry *e;

  for (e = fit_table; e->model; ++e)
    if (e->need == NEED_NONE)
      fprintf (fp, "  %-6s %-13s not searched: follows %s\n", e->model,
               e->name, e->tie);
    else
      fprintf (fp, "  %-6s %-13s %s%s%s\n", e->model, e->name,
               need_text[e->need], e->tie ? "; else follows " : "",
               e->tie ? e->tie : "");
}

static bool
is_random (const struct raidsim_cal_job *j)
{
  return j->rw == RAIDSIM_RW_RANDREAD || j->rw == RAIDSIM_RW_RANDWRITE;
}

static bool
informs (enum need n, const struct raidsim_cal_job *j, uint64_t cap)
{
  uint64_t off, size;

  raidsim_cal_region (j, cap, &off, &size);
  switch (n) {
  case NEED_RR1: return j->rw == RAIDSIM_RW_RANDREAD && j->iodepth == 1;
  case NEED_RW1: return j->rw == RAIDSIM_RW_RANDWRITE && j->iodepth == 1;
  case NEED_RRQ: return j->rw == RAIDSIM_RW_RANDREAD && j->iodepth >= 4;
  case NEED_SEQ:
    return j->rw == RAIDSIM_RW_READ || j->rw == RAIDSIM_RW_WRITE;
  case NEED_SEQW: return j->rw == RAIDSIM_RW_WRITE;
  case NEED_ZONES: return j->rw == RAIDSIM_RW_READ;
  case NEED_RR1_WIDE:
    return informs (NEED_RR1, j, cap) && size >= cap / 2;
  case NEED_RR_WIDE:
    return j->rw == RAIDSIM_RW_RANDREAD && size >= cap / 2;
  case NEED_RR1_SPANS: return informs (NEED_RR1, j, cap);
  case NEED_NONE: return false;
  }
  return false;
}

/* Whether d has what need n asks for. */
static bool
satisfied (enum need n, const struct raidsim_cal_data *d, uint64_t cap)
{
  double lo = 1, hi = 0;
  bool any = false;

  /* Deeper queues count in the fit, but a QD1 job must be there. */
  if (n == NEED_RR_WIDE)
    return satisfied (NEED_RR1_WIDE, d, cap);

  for (unsigned i = 0; i < d->njobs; ++i) {
    const struct raidsim_cal_job *j = &d->jobs[i];
    uint64_t off, size;
    double where;

    if (!informs (n, j, cap))
      continue;
    any = true;
    raidsim_cal_region (j, cap, &off, &size);
    /* Sequential jobs: where their region's middle is; random reads:
     * the fraction of the drive they span.
     */
    where = n == NEED_ZONES ? (off + size / 2.0) / cap : (double) size / cap;
    if (where < lo)
      lo = where;
    if (where > hi)
      hi = where;
  }
  if (n == NEED_ZONES)
    return any && lo <= 0.10 && hi >= 0.5;
  if (n == NEED_RR1_SPANS)
    return any && lo <= 0.20 && hi >= 0.5;
  return any;
}

static const struct raidsim_param *
model_param (const struct raidsim_device_config *dc, const char *name)
{
  const struct raidsim_param *p;

  for (p = dc->ops->params; p->name; ++p)
    if (strcmp (p->name, name) == 0)
      return p;
  return NULL;
}

static uint64_t *
field (const struct raidsim_device_config *dc, const struct raidsim_param *p)
{
  return (uint64_t *) ((char *) dc->params + p->offset);
}

/* Everything one fit needs, passed to the objective. */
struct fit {
  struct raidsim_array_config *ac;
  struct raidsim_device_config *dc;
  const struct raidsim_cal_data *d;
  struct raidsim_jobfile jf;
  uint64_t seed;
  struct raidsim_cal_result *r;
  unsigned nx;                  /* continuous parameters searched */
  unsigned xi[RAIDSIM_CAL_MAX_PARAMS]; /* their index in r->params */
  double pred[RAIDSIM_CAL_MAX_JOBS];
  unsigned idx[RAIDSIM_CAL_MAX_JOBS]; /* jf's job k is d's job idx[k] */
  int failed;                   /* a simulation failed: error set */
};

/* Jobs to simulate, one stonewall group each, in the file's order (a
 * drive's state, such as a disk's write cache, carries from one to the
 * next as it did when they were measured).
 */
static int
build_jobs (struct raidsim_jobfile *jf, const struct raidsim_cal_data *d,
            uint64_t cap, const bool *only, bool as_measured, unsigned *idx)
{
  unsigned n = 0;

  memset (jf, 0, sizeof *jf);
  snprintf (jf->path, sizeof jf->path, "%s", d->path);
  jf->jobs = calloc (d->njobs, sizeof *jf->jobs);
  if (jf->jobs == NULL) {
    raidsim_set_error ("%s: %s", d->path, strerror (ENOMEM));
    return -1;
  }
  for (unsigned i = 0; i < d->njobs; ++i) {
    const struct raidsim_cal_job *c = &d->jobs[i];
    struct raidsim_job *j = &jf->jobs[n];
    uint64_t off, size, ios, run;

    if (only && !only[i])
      continue;
    idx[n++] = i;

    raidsim_params_defaults (raidsim_fio_params, j);
    snprintf (j->name, sizeof j->name, "%s", c->name);
    j->line = n;
    raidsim_cal_region (c, cap, &off, &size);
    if (size < c->bs) {
      raidsim_set_error ("%s: job '%s': its region (%" PRIu64 " bytes) is "
                         "smaller than one block", d->path, c->name, size);
      return -1;
    }
    ios = is_random (c) ? RANDOM_IOS * (c->iodepth < 8 ? c->iodepth : 8)
      : SEQ_BYTES / c->bs;
    if (ios < 64)
      ios = 64;
    run = (uint64_t) (ios / c->iops * RAIDSIM_NS_PER_S);
    if (run < MIN_RUN)
      run = MIN_RUN;
    if (as_measured && c->runtime)
      run = c->runtime;
#define SET(opt, fld, value) \
    do { j->fld = (value); j->opt_line[RAIDSIM_FIO_##opt] = n; } while (0)
    SET (RW, rw, c->rw);
    SET (BS, bs, c->bs);
    SET (IODEPTH, iodepth, c->iodepth);
    SET (OFFSET, offset, off);
    SET (SIZE, size, size);
    SET (RUNTIME, runtime, run);
    if (c->ramp_time)
      SET (RAMP_TIME, ramp_time,
           c->ramp_time < MAX_RAMP ? c->ramp_time : MAX_RAMP);
    /* Jobs go round their region as often as they need. */
    SET (TIME_BASED, time_based, true);
    if (n > 1)
      SET (STONEWALL, stonewall, true);
    if (is_random (c))
      SET (NORANDOMMAP, norandommap, true);
#undef SET
  }
  jf->njobs = n;
  raidsim_jobfile_groups (jf);
  return 0;
}

static int
simulate (const struct raidsim_array_config *ac,
          const struct raidsim_jobfile *jf, const struct raidsim_cal_data *d,
          const unsigned *idx, uint64_t seed, double *pred)
{
  struct raidsim_sim *s = raidsim_sim_new (ac, jf, seed);

  if (s == NULL || raidsim_sim_run (s) == -1) {
    raidsim_sim_free (s);
    return -1;
  }
  for (unsigned k = 0; k < jf->njobs; ++k) {
    const struct raidsim_cal_job *c = &d->jobs[idx[k]];
    bool w = c->rw == RAIDSIM_RW_WRITE || c->rw == RAIDSIM_RW_RANDWRITE;

    pred[idx[k]] = raidsim_result_iops (raidsim_sim_job (s, k),
                                   w ? RAIDSIM_WRITE : RAIDSIM_READ);
  }
  raidsim_sim_free (s);
  return 0;
}

/* Store value v (base units) in parameter k, within its range. */
static void
store (struct fit *f, unsigned k, double v)
{
  struct raidsim_cal_param *cp = &f->r->params[k];
  uint64_t x;

  if (v < 1)
    v = 1;
  if (v > 9e18)
    v = 9e18;
  x = (uint64_t) llround (v);
  if (x < cp->p->min)
    x = cp->p->min;
  if (cp->p->max && x > cp->p->max)
    x = cp->p->max;
  *field (f->dc, cp->p) = x;
  cp->value = x;
}

/* Parameters that follow another keep its ratio to their base. */
static void
apply_ties (struct fit *f)
{
  for (unsigned k = 0; k < f->r->nparams; ++k) {
    struct raidsim_cal_param *cp = &f->r->params[k];

    if (cp->how != RAIDSIM_CAL_SCALED)
      continue;
    for (unsigned m = 0; m < f->r->nparams; ++m)
      if (strcmp (f->r->params[m].p->name, cp->tie) == 0)
        store (f, k, cp->base * f->r->params[m].value / f->r->params[m].base);
  }
}

static double
objective_now (struct fit *f)
{
  double sum = 0;

  apply_ties (f);
  /* Values the model refuses together (an hdd's seek curve must rise
   * with distance) are outside the search's domain.
   */
  if (f->dc->ops->check && f->dc->ops->check (f->dc->params) == -1)
    return HUGE_VAL;
  f->r->evaluations++;
  if (simulate (f->ac, &f->jf, f->d, f->idx, f->seed, f->pred) == -1) {
    f->failed = 1;
    return HUGE_VAL;
  }
  for (unsigned i = 0; i < f->d->njobs; ++i)
    if (f->r->used[i]) {
      double e = f->pred[i] > 0 ? log (f->pred[i] / f->d->jobs[i].iops)
        : 50;

      sum += e * e;
    }
  return sum;
}

static double
objective (struct fit *f, const double *x)
{
  for (unsigned i = 0; i < f->nx; ++i) {
    unsigned k = f->xi[i];

    store (f, k, f->r->params[k].base * exp (x[i]));
  }
  return objective_now (f);
}

/* The search stops when its points agree to 0.2% in every parameter. */
#define XTOL 0.002

/* Nelder-Mead (Lagarias et al.'s coefficients: reflect 1, expand 2,
 * contract 1/2, shrink 1/2) from x0 with steps of `step`, for at most
 * maxeval evaluations or until the simplex's values agree to 1e-10 or its points to XTOL.
 * Leaves the best point in x0 and returns its value.
 */
static double
nelder_mead (struct fit *f, double *x0, double step, unsigned maxeval)
{
  enum { N = RAIDSIM_CAL_MAX_PARAMS };
  unsigned n = f->nx, evals = 0;
  double s[N + 1][N], fv[N + 1], c[N], xr[N], xe[N], fr, fe;

  for (unsigned i = 0; i <= n; ++i) {
    memcpy (s[i], x0, n * sizeof x0[0]);
    if (i > 0)
      s[i][i - 1] += step;
    fv[i] = objective (f, s[i]);
    evals++;
  }
  while (evals < maxeval && !f->failed) {
    unsigned hi = 0, lo = 0, nh = 0;

    for (unsigned i = 1; i <= n; ++i) {
      if (fv[i] > fv[hi])
        hi = i;
      if (fv[i] < fv[lo])
        lo = i;
    }
    nh = lo;
    for (unsigned i = 0; i <= n; ++i)
      if (i != hi && fv[i] > fv[nh])
        nh = i;
    {
      double size = 0;

      for (unsigned i = 0; i <= n; ++i)
        for (unsigned k = 0; k < n; ++k)
          size = fmax (size, fabs (s[i][k] - s[lo][k]));
      if (fv[hi] - fv[lo] < 1e-10 || size < XTOL)
        break;
    }
    for (unsigned k = 0; k < n; ++k) {
      c[k] = 0;
      for (unsigned i = 0; i <= n; ++i)
        if (i != hi)
          c[k] += s[i][k] / n;
      xr[k] = c[k] + (c[k] - s[hi][k]);
    }
    fr = objective (f, xr);
    evals++;
    if (fr < fv[lo]) {
      for (unsigned k = 0; k < n; ++k)
        xe[k] = c[k] + 2 * (c[k] - s[hi][k]);
      fe = objective (f, xe);
      evals++;
      if (fe < fr) {
        memcpy (s[hi], xe, n * sizeof xe[0]);
        fv[hi] = fe;
      }
      else {
        memcpy (s[hi], xr, n * sizeof xr[0]);
        fv[hi] = fr;
      }
      continue;
    }
    if (fr < fv[nh]) {
      memcpy (s[hi], xr, n * sizeof xr[0]);
      fv[hi] = fr;
      continue;
    }
    /* Contract towards the better of the worst point and its
     * reflection.
     */
    {
      const double *from = fr < fv[hi] ? xr : s[hi];
      double ff = fr < fv[hi] ? fr : fv[hi], fc;

      for (unsigned k = 0; k < n; ++k)
        xe[k] = c[k] + 0.5 * (from[k] - c[k]);
      fc = objective (f, xe);
      evals++;
      if (fc < ff) {
        memcpy (s[hi], xe, n * sizeof xe[0]);
        fv[hi] = fc;
        continue;
      }
    }
    for (unsigned i = 0; i <= n; ++i)
      if (i != lo) {
        for (unsigned k = 0; k < n; ++k)
          s[i][k] = s[lo][k] + 0.5 * (s[i][k] - s[lo][k]);
        fv[i] = objective (f, s[i]);
        evals++;
      }
  }
  {
    unsigned lo = 0;

    for (unsigned i = 1; i <= n; ++i)
      if (fv[i] < fv[lo])
        lo = i;
    memcpy (x0, s[lo], n * sizeof x0[0]);
    return fv[lo];
  }
}

/* Whole-number parameter k: try 1 to qd, keep the best. */
static void
scan_whole (struct fit *f, unsigned k, uint64_t qd)
{
  double best = HUGE_VAL;
  uint64_t best_v = 1;

  for (uint64_t v = 1; v <= qd && !f->failed; ++v) {
    double o;

    store (f, k, v);
    o = objective_now (f);
    if (o < best) {
      best = o;
      best_v = v;
    }
  }
  store (f, k, best_v);
}

/* The rounds below settle where a whole number and the continuous
 * values balance each other's errors rather than where both are right:
 * a fixed device one short of its parallelism, with a latency between
 * what the QD1 job and the deep one want, is a point that neither the
 * scan (one whole number at a time, the continuous values kept) nor
 * the search (the whole numbers kept) leaves; a base 10 times off ends
 * there.  So each whole number's neighbours are tried with the
 * continuous values searched again, and one that fits better is kept,
 * until none does.  x is the continuous point; it and the model are
 * left at the best found.
 */
static void
refine_whole (struct fit *f, double *x, uint64_t qd)
{
  enum { N = RAIDSIM_CAL_MAX_PARAMS };

  for (int pass = 0; pass < 16 && !f->failed; ++pass) {
    bool moved = false;

    for (unsigned k = 0; k < f->r->nparams && !f->failed; ++k) {
      const struct raidsim_cal_param *cp = &f->r->params[k];
      uint64_t cur, best_v;
      double best, bx[N];

      if (cp->how != RAIDSIM_CAL_FITTED || cp->p->type != RAIDSIM_PT_UINT)
        continue;
      cur = best_v = cp->value;
      best = objective (f, x);
      memcpy (bx, x, f->nx * sizeof x[0]);
      for (int d = -1; d <= 1; d += 2) {
        double tx[N], o;

        if ((d < 0 && cur <= 1) || (d > 0 && cur >= qd))
          continue;
        memcpy (tx, x, f->nx * sizeof x[0]);
        store (f, k, cur + d);
        o = nelder_mead (f, tx, 0.1, 60 + 40 * f->nx);
        if (o < best) {
          best = o;
          best_v = cur + d;
          memcpy (bx, tx, f->nx * sizeof x[0]);
        }
      }
      store (f, k, best_v);
      memcpy (x, bx, f->nx * sizeof x[0]);
      objective (f, x);
      moved |= best_v != cur;
    }
    if (!moved)
      break;
  }
}

/* Round v to 4 significant figures: the file says what was fitted, not
 * the search's last digits.
 */
static double
round4 (double v)
{
  double m;

  if (v <= 0)
    return v;
  m = pow (10, floor (log10 (v)) - 3);
  return round (v / m) * m;
}

int
raidsim_cal_predict (const struct raidsim_array_config *ac,
                     const struct raidsim_cal_data *d, uint64_t seed,
                     double *predicted)
{
  struct raidsim_jobfile jf;
  unsigned idx[RAIDSIM_CAL_MAX_JOBS];
  int ret;

  if (build_jobs (&jf, d, raidsim_array_config_size (ac), NULL, true,
                  idx) == -1) {
    free (jf.jobs);
    return -1;
  }
  ret = simulate (ac, &jf, d, idx, seed, predicted);
  free (jf.jobs);
  return ret;
}

int
raidsim_cal_fit (struct raidsim_array_config *ac,
                 const struct raidsim_cal_data *d,
                 const char *const *names, unsigned nnames, uint64_t seed,
                 struct raidsim_cal_result *r)
{
  struct fit f = { .ac = ac, .d = d, .seed = seed, .r = r };
  struct raidsim_device_config *dc;
  const struct fit_entry *e;
  uint64_t cap, maxqd = 1;
  double x[RAIDSIM_CAL_MAX_PARAMS] = { 0 };
  bool any_whole = false;
  int ret = -1;

  memset (r, 0, sizeof *r);
  if (ac->level != RAIDSIM_LEVEL_SINGLE || ac->members != 1) {
    raidsim_set_error ("%s: calibrate needs an array of one drive "
                       "(level = single)", ac->path);
    return -1;
  }
  f.dc = dc = ac->devices[0];
  cap = raidsim_array_config_size (ac);

  /* The parameters named (all the model's if none), each checked. */
  for (unsigned i = 0; i < nnames; ++i) {
    for (e = fit_table; e->model; ++e)
      if (strcmp (e->model, dc->model) == 0 && strcmp (e->name, names[i]) == 0)
        break;
    if (e->model == NULL || e->need == NEED_NONE) {
      raidsim_set_error ("--fit: %s: not a parameter calibrate fits for "
                         "model %s (raidsim calibrate --help lists them)",
                         names[i], dc->model);
      return -1;
    }
  }
  for (e = fit_table; e->model; ++e) {
    bool named = names == NULL && e->need != NEED_NONE;
    struct raidsim_cal_param *cp;

    if (strcmp (e->model, dc->model) != 0)
      continue;
    for (unsigned i = 0; i < nnames; ++i)
      if (strcmp (e->name, names[i]) == 0)
        named = true;
    if (!named && e->tie == NULL)
      continue;
    cp = &r->params[r->nparams];
    cp->p = model_param (dc, e->name);
    cp->base = cp->value = *field (dc, cp->p);
    /* A zero base (a fixed device's write_latency: "as latency") starts
     * from the parameter fitted before it, of the same type.
     */
    if (named && cp->base == 0 && r->nparams > 0 &&
        r->params[r->nparams - 1].p->type == cp->p->type)
      cp->base = cp->value = r->params[r->nparams - 1].base;
    if (named && cp->base == 0) {
      raidsim_set_error ("%s: %s is 0; give it a starting value to fit "
                         "from", dc->path, e->name);
      return -1;
    }
    if (named) {
      if (!satisfied (e->need, d, cap)) {
        raidsim_set_error ("%s: no job for %s: it needs %s", d->path,
                           e->name, need_text[e->need]);
        return -1;
      }
      cp->how = RAIDSIM_CAL_FITTED;
      if (cp->p->type == RAIDSIM_PT_UINT)
        any_whole = true;
      else
        f.xi[f.nx++] = r->nparams;
      for (unsigned i = 0; i < d->njobs; ++i)
        if (informs (e->need, &d->jobs[i], cap))
          r->used[i] = true;
    }
    else {
      /* Follows its tie if that is fitted; otherwise untouched. */
      bool tie_named = names == NULL;

      for (unsigned i = 0; i < nnames; ++i)
        if (strcmp (e->tie, names[i]) == 0)
          tie_named = true;
      if (!tie_named)
        continue;
      cp->how = RAIDSIM_CAL_SCALED;
      cp->tie = e->tie;
    }
    r->nparams++;
  }
  if (r->nparams == 0) {
    raidsim_set_error ("%s: calibrate fits no parameter of model %s",
                       dc->path, dc->model);
    return -1;
  }
  for (unsigned i = 0; i < d->njobs; ++i)
    if (d->jobs[i].iodepth > maxqd)
      maxqd = d->jobs[i].iodepth;
  /* The search runs the jobs it fits to; the residuals, every job. */
  if (build_jobs (&f.jf, d, cap, r->used, false, f.idx) == -1)
    goto out;

  /* Rounds: each tries the whole numbers with the continuous values
   * found so far, then searches these again (from the best point, with
   * smaller steps after the first), until the whole numbers settle.
   */
  for (int round = 0; round < 6 && !f.failed; ++round) {
    bool moved = false;

    if (any_whole)
      for (unsigned k = 0; k < r->nparams; ++k)
        if (r->params[k].how == RAIDSIM_CAL_FITTED &&
            r->params[k].p->type == RAIDSIM_PT_UINT) {
          double before = r->params[k].value;

          scan_whole (&f, k, maxqd);
          moved |= r->params[k].value != before;
        }
    if (f.nx) {
      nelder_mead (&f, x, round == 0 ? 0.3 : 0.05, 60 + 40 * f.nx);
      objective (&f, x);
    }
    if (round > 0 && !moved)
      break;
  }
  if (any_whole && f.nx)
    refine_whole (&f, x, maxqd);
  if (f.failed)
    goto out;
  /* What the file will say, and its predictions. */
  for (unsigned k = 0; k < r->nparams; ++k)
    if (r->params[k].how == RAIDSIM_CAL_FITTED &&
        r->params[k].p->type != RAIDSIM_PT_UINT)
      store (&f, k, round4 (r->params[k].value));
  apply_ties (&f);
  for (unsigned k = 0; k < r->nparams; ++k)
    if (r->params[k].how == RAIDSIM_CAL_SCALED)
      store (&f, k, round4 (r->params[k].value));
  if (raidsim_cal_predict (ac, d, seed, r->predicted) == -1) {
    f.failed = 1;
    goto out;
  }
  ret = 0;
 out:
  if (ret == -1 && f.failed)
    raidsim_set_error ("%s: simulating the jobs: %s", d->path,
                       raidsim_error ());
  free (f.jf.jobs);
  return ret;
}

static const char *const rw_text[] = {
  [RAIDSIM_RW_READ] = "read", [RAIDSIM_RW_WRITE] = "write",
  [RAIDSIM_RW_RANDREAD] = "randread", [RAIDSIM_RW_RANDWRITE] = "randwrite",
};

int
raidsim_cal_write_ini (FILE *fp, const struct raidsim_array_config *ac,
                       const struct raidsim_cal_data *d,
                       const struct raidsim_cal_result *r,
                       const char *command)
{
  const struct raidsim_device_config *dc = ac->devices[0];
  const struct raidsim_param *p;
  char buf[64], bufb[64];

  fprintf (fp, "; Device profile fitted by raidsim calibrate to the fio "
           "measurements in\n; %s, from the base %s\n; through the "
           "controller %s.\n;\n; Made by:\n;   %s\n;\n", d->path, dc->path,
           ac->ctl->path, command);
  fprintf (fp, "; Fitted (base value in brackets):\n");
  for (unsigned k = 0; k < r->nparams; ++k) {
    const struct raidsim_cal_param *cp = &r->params[k];
    uint64_t v = cp->value, b = cp->base;

    raidsim_param_format (cp->p, &v, buf, sizeof buf);
    raidsim_param_format (cp->p, &b, bufb, sizeof bufb);
    if (cp->how == RAIDSIM_CAL_FITTED)
      fprintf (fp, ";   %s = %s (%s)\n", cp->p->name, buf, bufb);
    else
      fprintf (fp, ";   %s = %s (%s), kept in proportion to %s\n",
               cp->p->name, buf, bufb, cp->tie);
  }
  fprintf (fp, "; Every other key is the base's.\n;\n"
           "; Residuals, IOPS (* marks the jobs the fit used):\n"
           ";   %-24s %-9s %6s %4s %12s %12s %8s\n", "job", "rw", "bs", "qd",
           "measured", "predicted", "error");
  for (unsigned i = 0; i < d->njobs; ++i) {
    const struct raidsim_cal_job *j = &d->jobs[i];
    uint64_t bs = j->bs;

    raidsim_param_format_value (RAIDSIM_PT_SIZE, bs, buf, sizeof buf);
    fprintf (fp, "; %c %-24s %-9s %6s %4" PRIu64 " %12.1f %12.1f %+7.2f%%\n",
             r->used[i] ? '*' : ' ', j->name, rw_text[j->rw], buf,
             j->iodepth, j->iops, r->predicted[i],
             100 * (r->predicted[i] / j->iops - 1));
  }
  fprintf (fp, "[device]\nmodel = %s\n", dc->model);
  raidsim_param_format_value (RAIDSIM_PT_SIZE, dc->capacity, buf, sizeof buf);
  fprintf (fp, "capacity = %s\n", buf);
  for (p = dc->ops->params; p->name; ++p) {
    char v[RAIDSIM_STR_MAX];

    raidsim_param_format (p, (const char *) dc->params + p->offset, v,
                          sizeof v);
    fprintf (fp, "%s = %s\n", p->name, v);
  }
  return ferror (fp) ? -1 : 0;
}
