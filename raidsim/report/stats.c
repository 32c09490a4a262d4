/* raidsim: combining the same figure from runs with different seeds
 * (see stats.h).
 */

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/error.h"
#include "raidsim/report.h"
#include "raidsim/stats.h"

/* The continued fraction of the incomplete beta function, by the
 * modified Lentz method; converges fast for x < (a + 1) / (a + b + 2).
 */
static double
beta_cf (double a, double b, double x)
{
  const double tiny = 1e-300, eps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1), h;
  int m;

  if (fabs (d) < tiny)
    d = tiny;
  d = 1 / d;
  h = d;
  for (m = 1; m <= 1000; ++m) {
    double aa, del;

    /* The even step, then the odd step. */
    aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + aa * d;
    c = 1 + aa / c;
    if (fabs (d) < tiny)
      d = tiny;
    if (fabs (c) < tiny)
      c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + aa * d;
    c = 1 + aa / c;
    if (fabs (d) < tiny)
      d = tiny;
    if (fabs (c) < tiny)
      c = tiny;
    d = 1 / d;
    del = d * c;
    h *= del;
    if (fabs (del - 1) < eps)
      break;
  }
  return h;
}

/* The regularised incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double
beta_inc (double a, double b, double x)
{
  double front;

  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  front = exp (lgamma (a + b) - lgamma (a) - lgamma (b)
               + a * log (x) + b * log1p (-x));
  if (x < (a + 1) / (a + b + 2))
    return front * beta_cf (a, b, x) / a;
  return 1 - front * beta_cf (b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom. */
static double
t_cdf (double t, unsigned df)
{
  double tail = beta_inc (df / 2.0, 0.5, df / (df + t * t)) / 2;

  return t >= 0 ? 1 - tail : tail;
}

double
raidsim_t_quantile (double p, unsigned df)
{
  double lo = 0, hi = 1;
  int i;

  if (df == 0 || !(p > 0 && p < 1))
    return NAN;
  if (p < 0.5)
    return -raidsim_t_quantile (1 - p, df);
  if (p == 0.5)
    return 0;
  /* Bracket the quantile, then halve the bracket. */
  while (t_cdf (hi, df) < p && hi < 1e300)
    hi *= 2;
  for (i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    double mid = (lo + hi) / 2;

    if (t_cdf (mid, df) < p)
      lo = mid;
    else
      hi = mid;
  }
  return (lo + hi) / 2;
}

struct raidsim_interval
raidsim_interval95 (const double *x, unsigned n)
{
  struct raidsim_interval iv = { n, 0, 0, 0, false };
  double ss = 0;
  unsigned i;

  if (n == 0)
    return iv;
  for (i = 0; i < n; ++i)
    iv.mean += x[i];
  iv.mean /= n;
  if (n < 2)
    return iv;
  for (i = 0; i < n; ++i)
    ss += (x[i] - iv.mean) * (x[i] - iv.mean);
  iv.sd = sqrt (ss / (n - 1));
  iv.half = raidsim_t_quantile (0.975, n - 1) * iv.sd / sqrt (n);
  iv.known = true;
  return iv;
}

bool
raidsim_straddles (double lo, double hi, double limit)
{
  return lo < limit && limit < hi;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

double
raidsim_median (double *x, unsigned n)
{
  qsort (x, n, sizeof x[0], cmp_double);
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

int
raidsim_parse_seeds (const char *s, unsigned *n)
{
  char *end;
  unsigned long v;

  errno = 0;
  if (*s < '0' || *s > '9')
    goto bad;
  v = strtoul (s, &end, 10);
  if (errno != 0 || *end != '\0' || v < 1 || v > RAIDSIM_SEEDS_MAX)
    goto bad;
  *n = v;
  return 0;

 bad:
  raidsim_set_error ("'%s' is not a count of seeds from 1 to %d", s,
                     RAIDSIM_SEEDS_MAX);
  return -1;
}

bool
raidsim_seeds_fit (uint64_t first, unsigned n)
{
  return n >= 1 && first <= UINT64_MAX - (n - 1);
}

int
raidsim_parse_seed_list (const char *s, uint64_t first,
                         struct raidsim_seed_list *list)
{
  unsigned i, n;

  list->n = 0;
  if (strchr (s, ',') == NULL) {
    if (raidsim_parse_seeds (s, &n) == -1)
      return -1;
    if (!raidsim_seeds_fit (first, n)) {
      raidsim_set_error ("%u seeds from %" PRIu64 " run past 2^64 - 1", n,
                         first);
      return -1;
    }
    for (i = 0; i < n; ++i)
      list->seed[i] = first + i;
    list->n = n;
    return 0;
  }
  while (*s) {
    const char *comma = strchr (s, ',');
    size_t len = comma ? (size_t) (comma - s) : strlen (s);
    char one[32];
    uint64_t v;

    if (len == 0 || len >= sizeof one) {
      raidsim_set_error ("'%.*s' in the list is not a seed", (int) len, s);
      return -1;
    }
    memcpy (one, s, len);
    one[len] = '\0';
    if (raidsim_parse_seed (one, &v) == -1)
      return -1;
    for (i = 0; i < list->n; ++i)
      if (list->seed[i] == v) {
        raidsim_set_error ("seed %" PRIu64 " is in the list twice", v);
        return -1;
      }
    if (list->n == RAIDSIM_SEEDS_MAX) {
      raidsim_set_error ("more than %d seeds in the list", RAIDSIM_SEEDS_MAX);
      return -1;
    }
    list->seed[list->n++] = v;
    s += len;
    if (*s == ',' && *++s == '\0') {
      raidsim_set_error ("the list ends with a comma");
      return -1;
    }
  }
  return 0;
}
