/* raidsim: seeded pseudo-random numbers.  The same seed gives the same
 * sequence on every machine, which is what makes a simulation
 * reproducible: no call here reads the clock or /dev/urandom.
 *
 * raidsim_rng is xoshiro256** (Blackman and Vigna), seeded through
 * splitmix64 so that nearby seeds (1, 2, 3...) still give unrelated
 * streams.  raidsim_perm is a keyed permutation of 0..n-1 in constant
 * memory, for fio's default random pattern that touches every block once
 * per pass.
 */
#ifndef RAIDSIM_RNG_H
#define RAIDSIM_RNG_H

#include <stdint.h>

struct raidsim_rng {
  uint64_t s[4];
};

/* splitmix64: one step of a 64-bit mixing sequence.  Also useful to
 * derive independent seeds from one (seed, index) pair.
 */
extern uint64_t raidsim_splitmix64 (uint64_t *state);

extern void raidsim_rng_seed (struct raidsim_rng *r, uint64_t seed);
extern uint64_t raidsim_rng_next (struct raidsim_rng *r);
/* Uniform in [0, n), without modulo bias; n must be > 0. */
extern uint64_t raidsim_rng_below (struct raidsim_rng *r, uint64_t n);

/* A pseudo-random permutation of 0..n-1: a 4-round Feistel network over
 * the smallest even number of bits that covers n, with values >= n
 * skipped ("cycle walking").  Each pass returns every index exactly
 * once; the next pass uses a new key.
 */
struct raidsim_perm {
  uint64_t n;                   /* domain size */
  uint64_t i;                   /* next counter value in this pass */
  unsigned half_bits;
  uint64_t half_mask;
  uint64_t key[4];
  struct raidsim_rng rng;       /* draws the keys of each pass */
};

/* n must be > 0 and < 2^62. */
extern void raidsim_perm_init (struct raidsim_perm *p, uint64_t n,
                               uint64_t seed);
extern uint64_t raidsim_perm_next (struct raidsim_perm *p);

#endif /* RAIDSIM_RNG_H */
