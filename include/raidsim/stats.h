/* raidsim: combining the same figure from runs with different seeds.
 *
 * A simulated figure depends on its seed.  Run it with N seeds and
 * report the mean with a 95% confidence interval from Student's t
 * distribution with N - 1 degrees of freedom:
 *
 *   mean ± t(0.975, N - 1) · s / √N
 *
 * where s is the sample standard deviation (divisor N - 1).  Worked by
 * hand for the values 1, 2, 3, 4, 5: mean 3, s = √2.5 = 1.5811,
 * t(0.975, 4) = 2.7764, half-width 2.7764 · 1.5811 / √5 = 1.9632
 * (tests/unit/test-sim-stats.c checks these).
 *
 * The seeds of a combined run are first, first + 1, ..., first + N - 1
 * (raidsim validate, run and sweep: --seed gives first, --seeds N), or
 * for run and sweep a list (--seeds 1,7,42).  Nothing here runs
 * a simulation: a command runs one per seed and hands the figures over,
 * so run and sweep can share this with validate.
 *
 * Run the tests: meson test -C build --suite unit sim-stats
 */
#ifndef RAIDSIM_STATS_H
#define RAIDSIM_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* The most seeds one combined run takes. */
#define RAIDSIM_SEEDS_MAX 64

/* A figure over n seeds.  With n = 1 there is no spread: sd and half
 * are 0 and known is false.
 */
struct raidsim_interval {
  unsigned n;
  double mean;
  double sd;                    /* sample standard deviation, divisor n - 1 */
  double half;                  /* t(0.975, n - 1) · sd / √n */
  bool known;                   /* n >= 2: the interval means something */
};

/* The quantile of Student's t distribution with df degrees of freedom
 * (df >= 1): the t with P(T <= t) = p, for 0 < p < 1.  From the
 * regularised incomplete beta function, to about 1e-10.
 */
extern double raidsim_t_quantile (double p, unsigned df);

/* The mean of x[0..n-1] (n >= 1) and its two-sided 95% interval. */
extern struct raidsim_interval raidsim_interval95 (const double *x,
                                                   unsigned n);

/* Whether the interval [lo, hi] has limit strictly inside it: one end
 * on each side, so that another set of seeds could fall either way.
 */
extern bool raidsim_straddles (double lo, double hi, double limit);

/* The median of x[0..n-1] (n >= 1; the mean of the middle two for even
 * n).  Sorts x.
 */
extern double raidsim_median (double *x, unsigned n);

/* Parse a --seeds argument: a count from 1 to RAIDSIM_SEEDS_MAX.
 * Returns 0, or -1 with raidsim_error () set.
 */
extern int raidsim_parse_seeds (const char *s, unsigned *n);

/* Whether seeds first .. first + n - 1 exist (no wrap past 2^64 - 1). */
extern bool raidsim_seeds_fit (uint64_t first, unsigned n);

/* The seeds of a combined run (run, sweep). */
struct raidsim_seed_list {
  unsigned n;
  uint64_t seed[RAIDSIM_SEEDS_MAX];
};

/* Parse a --seeds argument of run and sweep: a count N, meaning first,
 * first + 1, ..., first + N - 1 as validate takes them, or a list of
 * two or more seeds "S1,S2,...", each as --seed reads it (decimal or 0x
 * hex), none twice.  Returns 0, or -1 with raidsim_error () set.
 */
extern int raidsim_parse_seed_list (const char *s, uint64_t first,
                                    struct raidsim_seed_list *list);

#endif /* RAIDSIM_STATS_H */
