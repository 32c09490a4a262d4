/* raidsim: the log-linear latency histogram (see histogram.h).
 *
 * Bucket layout, with S = RAID_HIST_SUB_BITS:
 *   v < 2^S:       index v, one value per bucket;
 *   2^m <= v < 2^(m+1), m >= S:
 *                  index (m - S + 1) * 2^S + ((v >> (m - S)) - 2^S),
 *                  so the octave is cut into 2^S buckets of width 2^(m-S).
 * The index is a shift and a count-leading-zeros, with no loop and no
 * floating point, because recording is on the path of every simulated
 * I/O.
 */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "raidsim/histogram.h"

#define S RAID_HIST_SUB_BITS

void
raid_hist_init (struct raid_histogram *h)
{
  memset (h, 0, sizeof *h);
  h->min = UINT64_MAX;
}

unsigned
raid_hist_index (uint64_t v)
{
  return raid_hist_bucket_of (v);
}

uint64_t
raid_hist_bucket_low (unsigned index)
{
  unsigned octave = index / RAID_HIST_SUB;   /* m - S + 1, or 0 */
  uint64_t sub = index % RAID_HIST_SUB;

  if (octave == 0)
    return index;
  return (RAID_HIST_SUB + sub) << (octave - 1);
}

uint64_t
raid_hist_bucket_high (unsigned index)
{
  unsigned octave = index / RAID_HIST_SUB;

  if (octave == 0)
    return index;
  /* Written so that the last bucket ends at UINT64_MAX, not 0. */
  return raid_hist_bucket_low (index) + ((UINT64_C (1) << (octave - 1)) - 1);
}

void
raid_hist_record (struct raid_histogram *h, uint64_t v)
{
  double delta;

  h->bucket[raid_hist_index (v)]++;
  h->count++;
  h->sum += v;
  if (v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
  delta = (double) v - h->mean;
  h->mean += delta / h->count;
  h->m2 += delta * ((double) v - h->mean);
}

void
raid_hist_merge (struct raid_histogram *dst,
                    const struct raid_histogram *src)
{
  unsigned i;
  uint64_t n;
  double delta;

  if (src->count == 0)
    return;
  for (i = 0; i < RAID_HIST_BUCKETS; ++i)
    dst->bucket[i] += src->bucket[i];
  if (src->min < dst->min)
    dst->min = src->min;
  if (src->max > dst->max)
    dst->max = src->max;
  /* Chan et al.'s pairwise update of mean and variance. */
  n = dst->count + src->count;
  delta = src->mean - dst->mean;
  dst->m2 += src->m2 + delta * delta * ((double) dst->count * src->count / n);
  dst->mean += delta * src->count / n;
  dst->count = n;
  dst->sum += src->sum;
}

uint64_t
raid_hist_min (const struct raid_histogram *h)
{
  return h->count ? h->min : 0;
}

uint64_t
raid_hist_max (const struct raid_histogram *h)
{
  return h->max;
}

/* The mean from the exact sum, not Welford's running value, so that a
 * run of identical latencies reports exactly that latency.
 */
double
raid_hist_mean (const struct raid_histogram *h)
{
  if (h->count == 0)
    return 0;
  return (double) h->sum / h->count;
}

double
raid_hist_stddev (const struct raid_histogram *h)
{
  if (h->count < 2)
    return 0;
  return sqrt (h->m2 / (h->count - 1));
}

uint64_t
raid_hist_percentile (const struct raid_histogram *h, double p)
{
  uint64_t rank, seen = 0;
  unsigned i;

  if (h->count == 0)
    return 0;
  if (p <= 0)
    return h->min;
  if (p >= 100)
    return h->max;
  /* The rank of the sample at p percent, counting from 1. */
  rank = (uint64_t) ceil (p / 100.0 * h->count);
  if (rank < 1)
    rank = 1;
  for (i = 0; i < RAID_HIST_BUCKETS; ++i) {
    seen += h->bucket[i];
    if (seen >= rank) {
      uint64_t v = raid_hist_bucket_high (i);
      if (v > h->max)
        v = h->max;
      if (v < h->min)
        v = h->min;
      return v;
    }
  }
  return h->max;
}
