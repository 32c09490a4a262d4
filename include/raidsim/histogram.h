/* raidsim core: the latency histogram that the plugin (one per member)
 * and the simulator (one per job and stage) both keep: constant size,
 * log-linear like HdrHistogram.
 *
 * Values below 2^RAID_HIST_SUB_BITS (256 ns) are counted exactly.
 * Above that, every power of two is cut into 2^RAID_HIST_SUB_BITS
 * equal buckets, so any recorded value is known to within 1/256 (0.4%)
 * of itself, from nanoseconds to centuries, in about 115 KiB.  Minimum,
 * maximum, mean and standard deviation are kept exactly beside the
 * buckets.  It depends on nothing else in raidsim, so the nbdkit plugin
 * can keep one per member.
 */
#ifndef RAID_HISTOGRAM_H
#define RAID_HISTOGRAM_H

#include <stdint.h>

#define RAID_HIST_SUB_BITS 8
#define RAID_HIST_SUB (1u << RAID_HIST_SUB_BITS)
#define RAID_HIST_BUCKETS ((64 - RAID_HIST_SUB_BITS + 1) * RAID_HIST_SUB)

struct raid_histogram {
  uint64_t count;
  uint64_t min, max;
  unsigned __int128 sum;        /* exact: 10^8 samples of hours still fit */
  double mean, m2;              /* Welford's running mean and variance */
  uint64_t bucket[RAID_HIST_BUCKETS];
};

extern void raid_hist_init (struct raid_histogram *h);
extern void raid_hist_record (struct raid_histogram *h, uint64_t v);
/* Add the samples of src to dst. */
extern void raid_hist_merge (struct raid_histogram *dst,
                                const struct raid_histogram *src);

/* Record v without the running variance: what raid_hist_record does
 * but for Welford's mean and m2, so a fraction of its cost (no
 * division).  For histograms read only for min, max, mean and
 * percentiles, such as the per-stage ones a run records for every
 * request: raid_hist_stddev of one filled this way is meaningless,
 * and it must not be merged with one filled by raid_hist_record.
 */
static inline unsigned
raid_hist_bucket_of (uint64_t v)
{
  unsigned m;

  if (v < RAID_HIST_SUB)
    return (unsigned) v;
  m = 63 - __builtin_clzll (v);
  return (m - RAID_HIST_SUB_BITS + 1) * RAID_HIST_SUB +
    (unsigned) ((v >> (m - RAID_HIST_SUB_BITS)) - RAID_HIST_SUB);
}

static inline void
raid_hist_add (struct raid_histogram *h, uint64_t v)
{
  h->bucket[raid_hist_bucket_of (v)]++;
  h->count++;
  h->sum += v;
  if (v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
}

/* Record n samples of v, as n calls of raid_hist_add would. */
static inline void
raid_hist_add_n (struct raid_histogram *h, uint64_t v, uint64_t n)
{
  if (n == 0)
    return;
  h->bucket[raid_hist_bucket_of (v)] += n;
  h->count += n;
  h->sum += (unsigned __int128) v * n;
  if (v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
}

/* 0 if empty. */
extern uint64_t raid_hist_min (const struct raid_histogram *h);
extern uint64_t raid_hist_max (const struct raid_histogram *h);
extern double raid_hist_mean (const struct raid_histogram *h);
extern double raid_hist_stddev (const struct raid_histogram *h);

/* The smallest value v such that at least p percent of the samples are
 * <= v, to the histogram's resolution: the top of the bucket holding
 * that sample, clamped to [min, max] so that a histogram of identical
 * values returns that value exactly.  p in [0, 100]; 0 if empty.
 */
extern uint64_t raid_hist_percentile (const struct raid_histogram *h,
                                         double p);

/* Bucket helpers, exposed for the tests. */
extern unsigned raid_hist_index (uint64_t v);
extern uint64_t raid_hist_bucket_low (unsigned index);
extern uint64_t raid_hist_bucket_high (unsigned index);

#endif /* RAID_HISTOGRAM_H */
