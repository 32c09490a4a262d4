/* raidsim: a latency histogram of constant size, log-linear like
 * HdrHistogram.
 *
 * Values below 2^RAIDSIM_HIST_SUB_BITS (256 ns) are counted exactly.
 * Above that, every power of two is cut into 2^RAIDSIM_HIST_SUB_BITS
 * equal buckets, so any recorded value is known to within 1/256 (0.4%)
 * of itself, from nanoseconds to centuries, in about 115 KiB.  Minimum,
 * maximum, mean and standard deviation are kept exactly beside the
 * buckets.  It depends on nothing else in raidsim, so the nbdkit plugin
 * can keep one per member.
 */
#ifndef RAIDSIM_HISTOGRAM_H
#define RAIDSIM_HISTOGRAM_H

#include <stdint.h>

#define RAIDSIM_HIST_SUB_BITS 8
#define RAIDSIM_HIST_SUB (1u << RAIDSIM_HIST_SUB_BITS)
#define RAIDSIM_HIST_BUCKETS ((64 - RAIDSIM_HIST_SUB_BITS + 1) * RAIDSIM_HIST_SUB)

struct raidsim_histogram {
  uint64_t count;
  uint64_t min, max;
  unsigned __int128 sum;        /* exact: 10^8 samples of hours still fit */
  double mean, m2;              /* Welford's running mean and variance */
  uint64_t bucket[RAIDSIM_HIST_BUCKETS];
};

extern void raidsim_hist_init (struct raidsim_histogram *h);
extern void raidsim_hist_record (struct raidsim_histogram *h, uint64_t v);
/* Add the samples of src to dst. */
extern void raidsim_hist_merge (struct raidsim_histogram *dst,
                                const struct raidsim_histogram *src);

/* Record v without the running variance: what raidsim_hist_record does
 * but for Welford's mean and m2, so a fraction of its cost (no
 * division).  For histograms read only for min, max, mean and
 * percentiles, such as the per-stage ones a run records for every
 * request: raidsim_hist_stddev of one filled this way is meaningless,
 * and it must not be merged with one filled by raidsim_hist_record.
 */
static inline void
raidsim_hist_add (struct raidsim_histogram *h, uint64_t v)
{
  unsigned i;

  if (v < RAIDSIM_HIST_SUB)
    i = (unsigned) v;
  else {
    unsigned m = 63 - __builtin_clzll (v);

    i = (m - RAIDSIM_HIST_SUB_BITS + 1) * RAIDSIM_HIST_SUB +
      (unsigned) ((v >> (m - RAIDSIM_HIST_SUB_BITS)) - RAIDSIM_HIST_SUB);
  }
  h->bucket[i]++;
  h->count++;
  h->sum += v;
  if (v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
}

/* 0 if empty. */
extern uint64_t raidsim_hist_min (const struct raidsim_histogram *h);
extern uint64_t raidsim_hist_max (const struct raidsim_histogram *h);
extern double raidsim_hist_mean (const struct raidsim_histogram *h);
extern double raidsim_hist_stddev (const struct raidsim_histogram *h);

/* The smallest value v such that at least p percent of the samples are
 * <= v, to the histogram's resolution: the top of the bucket holding
 * that sample, clamped to [min, max] so that a histogram of identical
 * values returns that value exactly.  p in [0, 100]; 0 if empty.
 */
extern uint64_t raidsim_hist_percentile (const struct raidsim_histogram *h,
                                         double p);

/* Bucket helpers, exposed for the tests. */
extern unsigned raidsim_hist_index (uint64_t v);
extern uint64_t raidsim_hist_bucket_low (unsigned index);
extern uint64_t raidsim_hist_bucket_high (unsigned index);

#endif /* RAIDSIM_HISTOGRAM_H */
