/* raidsim: seeded random numbers and permutations.  See rng.h for why
 * these generators and not rand () or random (): the output must not
 * depend on the C library, the machine or the clock.
 */

#include <stdint.h>

#include "raidsim/rng.h"

uint64_t
raidsim_splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += UINT64_C (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void
raidsim_rng_seed (struct raidsim_rng *r, uint64_t seed)
{
  uint64_t sm = seed;
  unsigned i;

  /* splitmix64 never yields four zero words in a row, the one state
   * xoshiro cannot leave.
   */
  for (i = 0; i < 4; ++i)
    r->s[i] = raidsim_splitmix64 (&sm);
}

static inline uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

uint64_t
raidsim_rng_next (struct raidsim_rng *r)
{
  uint64_t *s = r->s;
  uint64_t result = rotl (s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

/* Lemire's multiply-shift with rejection: unbiased, and almost never
 * loops, so random offsets do not favour the start of a span.
 */
uint64_t
raidsim_rng_below (struct raidsim_rng *r, uint64_t n)
{
  unsigned __int128 m = (unsigned __int128) raidsim_rng_next (r) * n;
  uint64_t low = (uint64_t) m;

  if (low < n) {
    uint64_t threshold = -n % n;
    while (low < threshold) {
      m = (unsigned __int128) raidsim_rng_next (r) * n;
      low = (uint64_t) m;
    }
  }
  return (uint64_t) (m >> 64);
}

static void
perm_new_keys (struct raidsim_perm *p)
{
  unsigned k;

  for (k = 0; k < 4; ++k)
    p->key[k] = raidsim_rng_next (&p->rng);
  p->i = 0;
}

void
raidsim_perm_init (struct raidsim_perm *p, uint64_t n, uint64_t seed)
{
  unsigned bits = 2;

  p->n = n;
  /* The smallest even width with 2^bits >= n, so the domain is less
   * than four times n and cycle walking takes under four tries on
   * average.
   */
  while (bits < 62 && (UINT64_C (1) << bits) < n)
    bits += 2;
  p->half_bits = bits / 2;
  p->half_mask = (UINT64_C (1) << p->half_bits) - 1;
  raidsim_rng_seed (&p->rng, seed);
  perm_new_keys (p);
}

/* A balanced Feistel network is a bijection on 2*half_bits bits
 * whatever the round function, so this is a permutation of the domain.
 */
static uint64_t
feistel (const struct raidsim_perm *p, uint64_t x)
{
  uint64_t left = x >> p->half_bits;
  uint64_t right = x & p->half_mask;
  unsigned k;

  for (k = 0; k < 4; ++k) {
    uint64_t f = right ^ p->key[k];
    uint64_t tmp;

    f = (f ^ (f >> 31)) * UINT64_C (0x7fb5d329728ea185);
    f = (f ^ (f >> 27)) * UINT64_C (0x81dadef4bc2dd44d);
    f ^= f >> 33;
    tmp = right;
    right = left ^ (f & p->half_mask);
    left = tmp;
  }
  return (left << p->half_bits) | right;
}

uint64_t
raidsim_perm_next (struct raidsim_perm *p)
{
  uint64_t domain = UINT64_C (1) << (2 * p->half_bits);

  for (;;) {
    uint64_t v;

    if (p->i >= domain)
      perm_new_keys (p);
    v = feistel (p, p->i++);
    if (v < p->n)
      return v;
  }
}
