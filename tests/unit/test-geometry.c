/* raidsim: unit tests for the geometry, with no I/O.
 *
 * Every mapping raid_geom_map returns is compared with the brute-force
 * table in refmap.c, for all levels, chunk sizes 4K to 1M, 1 to 8 members
 * (RAID 10: 2 to 8),
 * equal and unequal members, and requests that straddle chunk, stripe,
 * zone and array-end boundaries.
 *
 * Run: meson test -C build geometry
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "raidsim/geometry.h"
#include "raidsim/raidkeys.h"
#include "refmap.h"

#define K (UINT64_C (1024))
#define M (K * K)

/* xorshift64*: a fixed seed keeps failures reproducible. */
static uint64_t rng_state = 0x9E3779B97F4A7C15;
static uint64_t
rnd (void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C (2685821657736338717);
}
static uint64_t
rnd_range (uint64_t lo, uint64_t hi)  /* inclusive */
{
  return lo + rnd () % (hi - lo + 1);
}

struct collect {
  struct raid_piece *p;
  size_t n, cap;
};

static int
collect_piece (const struct raid_piece *p, void *opaque)
{
  struct collect *c = opaque;

  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 64;
    c->p = realloc (c->p, c->cap * sizeof *c->p);
    ck_assert_ptr_nonnull (c->p);
  }
  c->p[c->n++] = *p;
  return 0;
}

/* Check one byte of a piece against the reference, for every copy. */
static void
check_byte (const struct refmap *ref, const struct raid_piece *p,
            uint64_t delta)
{
  unsigned k;

  for (k = 0; k < p->ncopies; ++k) {
    unsigned m;
    uint64_t moff;

    refmap_locate (ref, p->offset + delta, k, &m, &moff);
    ck_assert_msg (p->copy[k].member == m &&
                   p->copy[k].offset + delta == moff,
                   "array byte %" PRIu64 " copy %u: geometry says member %u "
                   "offset %" PRIu64 ", reference says member %u offset %"
                   PRIu64, p->offset + delta, k, p->copy[k].member,
                   p->copy[k].offset + delta, m, moff);
  }
}

/* Check's ck_assert reports every passing check to its parent process
 * when tests fork; the loops below check millions of things, so they
 * speak only on failure.
 */
#define REQUIRE(cond) \
  do { if (!(cond)) ck_abort_msg ("%s:%d: %s", __FILE__, __LINE__, #cond); \
  } while (0)

/* Runs, against a brute force built from the reference alone: the
 * request is cut at chunk boundaries here, each piece is located with
 * refmap_locate, and then, member by member, the member's segments in
 * array order are grouped while each starts where the previous ended and
 * the group is below max_segs.  choice[i] is the copy piece i reads, or
 * -1 for a write (every copy, in copy order).  raid_geom_runs is fed the
 * geometry's own pieces; segment indexes agree because both lists are in
 * (piece, copy) order, which is checked.
 */
static void
check_runs (const struct refmap *ref, const struct raid_piece *pieces,
            size_t npieces, uint64_t off, uint64_t len, const int *choice,
            unsigned max_segs)
{
  size_t cap = npieces * ref->copies, nseg = 0, nref = 0, nruns, i, j;
  struct raid_seg *seg = malloc (cap * sizeof *seg);
  struct raid_seg *want = malloc (cap * sizeof *want);
  struct raid_run *runs = malloc (cap * sizeof *runs);
  size_t *next = malloc (cap * sizeof *next);
  size_t *group = malloc (cap * sizeof *group);
  bool *seen = calloc (cap, sizeof *seen);
  uint64_t pos;
  unsigned m, k;

  REQUIRE (seg && want && runs && next && group && seen);
  for (i = 0; i < npieces; ++i)
    for (k = 0; k < pieces[i].ncopies; ++k)
      if (choice[i] < 0 || (unsigned) choice[i] == k)
        seg[nseg++] = (struct raid_seg) {
          pieces[i].offset, pieces[i].length,
          pieces[i].copy[k].member, pieces[i].copy[k].offset };

  for (pos = off, i = 0; pos < off + len; ++i) {
    uint64_t end = ref->level == 1 ? off + len
      : (pos / ref->chunk + 1) * ref->chunk;
    if (end > off + len)
      end = off + len;
    REQUIRE ((i) < (npieces));
    for (k = 0; k < ref->copies; ++k)
      if (choice[i] < 0 || (unsigned) choice[i] == k) {
        struct raid_seg *w = &want[nref++];
        w->offset = pos;
        w->length = end - pos;
        refmap_locate (ref, pos, k, &w->member, &w->member_offset);
      }
    pos = end;
  }
  REQUIRE ((i) == (npieces));
  REQUIRE ((nref) == (nseg));
  for (i = 0; i < nseg; ++i) {
    REQUIRE ((seg[i].offset) == (want[i].offset));
    REQUIRE ((seg[i].member) == (want[i].member));
    REQUIRE ((seg[i].member_offset) == (want[i].member_offset));
  }

  nruns = raid_geom_runs (seg, nseg, max_segs, runs, next);
  REQUIRE ((nruns) <= (nseg));

  /* Every segment is in exactly one run, and a run's figures are its
   * segments'.
   */
  for (j = 0; j < nruns; ++j) {
    uint64_t moff = runs[j].offset, total = 0;
    size_t count = 0;
    for (i = runs[j].first; i != RAID_SEG_END; i = next[i]) {
      REQUIRE ((i) < (nseg));
      REQUIRE (!seen[i]);
      seen[i] = true;
      REQUIRE ((want[i].member) == (runs[j].member));
      REQUIRE ((want[i].member_offset) == (moff));
      moff += want[i].length;
      total += want[i].length;
      count++;
    }
    REQUIRE ((total) == (runs[j].length));
    REQUIRE ((count) == (runs[j].nsegs));
    REQUIRE ((count) <= (max_segs));
    if (j > 0)
      REQUIRE ((runs[j - 1].first) < (runs[j].first));
  }
  for (i = 0; i < nseg; ++i)
    REQUIRE (seen[i]);

  /* Member by member, the runs are exactly the brute force's groups. */
  for (m = 0; m < ref->nmembers; ++m) {
    size_t r = 0, ng = 0;
    uint64_t gend = 0;

    for (i = 0; i <= nref; ++i) {
      bool last = i == nref;
      if (!last && want[i].member != m)
        continue;
      if (ng > 0 && (last || want[i].member_offset != gend ||
                     ng == max_segs)) {
        size_t x = 0, s;
        /* The next run of member m must hold group[0 .. ng). */
        while (r < nruns && runs[r].member != m)
          r++;
        REQUIRE ((r) < (nruns));
        for (s = runs[r].first; s != RAID_SEG_END; s = next[s])
          REQUIRE ((s) == (group[x++]));
        REQUIRE ((x) == (ng));
        r++;
        ng = 0;
      }
      if (last)
        break;
      group[ng++] = i;
      gend = want[i].member_offset + want[i].length;
    }
    while (r < nruns && runs[r].member != m)
      r++;
    REQUIRE ((r) == (nruns));
  }

  free (seg); free (want); free (runs); free (next); free (group);
  free (seen);
}

/* Runs for a read with random copies, a read of copy 0, a write, and
 * with a small max_segs so that the cap is crossed.
 */
static void
check_request_runs (const struct refmap *ref, const struct raid_piece *p,
                    size_t n, uint64_t off, uint64_t len)
{
  int *choice = calloc (n, sizeof *choice);
  static const unsigned caps[] = { RAID_RUN_MAX_SEGS, 1, 2, 3 };
  size_t i;

  REQUIRE (choice != NULL);
  for (i = 0; i < n; ++i)
    choice[i] = -1;
  check_runs (ref, p, n, off, len, choice, RAID_RUN_MAX_SEGS);
  check_runs (ref, p, n, off, len, choice, caps[rnd () % 4]);
  for (i = 0; i < n; ++i)
    choice[i] = 0;
  check_runs (ref, p, n, off, len, choice, RAID_RUN_MAX_SEGS);
  for (i = 0; i < n; ++i)
    choice[i] = rnd () % ref->copies;
  check_runs (ref, p, n, off, len, choice, caps[rnd () % 4]);
  free (choice);
}

static void
check_request (const struct raid_geom *g, const struct refmap *ref,
               uint64_t off, uint64_t len)
{
  struct collect c = { 0 };
  uint64_t pos = off;
  size_t i;

  ck_assert_int_eq (raid_geom_foreach (g, off, len, collect_piece, &c), 0);
  ck_assert_uint_gt (c.n, 0);
  for (i = 0; i < c.n; ++i) {
    const struct raid_piece *p = &c.p[i];
    uint64_t end = p->offset + p->length;

    ck_assert_uint_eq (p->offset, pos);
    ck_assert_uint_gt (p->length, 0);
    ck_assert_uint_eq (p->ncopies, ref->copies);
    /* A piece stops only at a chunk boundary or at the request's end,
     * and never crosses a chunk boundary on a striped level.
     */
    if (ref->level != 1) {
      ck_assert_uint_eq (p->offset / ref->chunk, (end - 1) / ref->chunk);
      if (end != off + len)
        ck_assert_uint_eq (end % ref->chunk, 0);
    }
    else
      ck_assert_uint_eq (p->length, len);
    check_byte (ref, p, 0);
    check_byte (ref, p, p->length - 1);
    check_byte (ref, p, rnd () % p->length);
    pos = end;
  }
  ck_assert_uint_eq (pos, off + len);
  check_request_runs (ref, c.p, c.n, off, len);
  free (c.p);
}

/* Array offsets where something changes: chunks, stripes, zones, end. */
static size_t
boundaries (const struct refmap *ref, uint64_t *b, size_t max)
{
  size_t n = 0;
  uint64_t c;
  unsigned prev_width = 0;

  b[n++] = 0;
  b[n++] = ref->size;
  if (ref->level == 1) {
    b[n++] = ref->size / 2;
    return n;
  }
  for (c = 1; c < ref->nchunks && n < max; ++c) {
    bool stripe = c % ref->nmembers == 0;
    /* RAID 0: a zone starts where the number of members per row drops. */
    bool zone = false;
    if (ref->level == 0 && ref->mchunk[c] != ref->mchunk[c - 1]) {
      unsigned width = 0;
      uint64_t d;
      for (d = c; d < ref->nchunks && ref->mchunk[d] == ref->mchunk[c]; ++d)
        width++;
      zone = prev_width && width != prev_width;
      prev_width = width;
    }
    if (c < 3 || stripe || zone || c + 2 >= ref->nchunks || rnd () % 8 == 0)
      b[n++] = c * ref->chunk;
  }
  return n;
}

static void
run_config (int level, uint64_t chunk, unsigned copies, uint64_t data_offset,
            unsigned n, const uint64_t *sizes)
{
  struct raid_geom_params params = {
    .level = level, .chunk = chunk, .copies = copies,
    .data_offset = data_offset, .nmembers = n, .member_size = sizes,
  };
  struct raid_geom *g = raid_geom_new (&params);
  struct refmap ref;
  uint64_t *b;
  size_t nb, i, j;
  unsigned m;

  ck_assert_msg (g != NULL, "raid_geom_new: %s", raid_geom_error ());
  ck_assert_int_eq (refmap_init (&ref, level, chunk, copies, data_offset,
                                 n, sizes), 0);
  ck_assert_uint_eq (raid_geom_size (g), ref.size);
  ck_assert_uint_eq (raid_geom_copies (g), ref.copies);

  /* Used bytes per member, counted from the reference table. */
  for (m = 0; m < n; ++m) {
    uint64_t used = 0;
    if (level == 1)
      used = ref.size;
    else {
      uint64_t s;
      for (s = 0; s < ref.nchunks * ref.copies; ++s)
        if (ref.member[s] == m && (ref.mchunk[s] + 1) * chunk > used)
          used = (ref.mchunk[s] + 1) * chunk;
    }
    ck_assert_uint_eq (raid_geom_member_used (g, m), used);
  }

  /* Every chunk, whole. */
  if (level != 1)
    for (i = 0; i < ref.nchunks; ++i)
      check_request (g, &ref, i * chunk, chunk);

  /* Requests from and to every boundary, nudged by a little. */
  b = malloc (4096 * sizeof *b);
  nb = boundaries (&ref, b, 4096);
  for (i = 0; i < nb; ++i) {
    static const int64_t nudge[] = { -4097, -512, -1, 0, 1, 512, 4096 };
    for (j = 0; j < sizeof nudge / sizeof nudge[0]; ++j) {
      int64_t start = (int64_t) b[i] + nudge[j];
      uint64_t len;
      if (start < 0 || (uint64_t) start >= ref.size)
        continue;
      len = rnd_range (1, 3 * chunk * n);
      if (len > ref.size - start)
        len = ref.size - start;
      check_request (g, &ref, start, len);
      /* And a request that ends exactly on the boundary. */
      if (b[i] > (uint64_t) start)
        check_request (g, &ref, start, b[i] - start);
    }
  }
  free (b);

  /* Random requests, some tiny, some spanning several stripes. */
  for (i = 0; i < 300; ++i) {
    uint64_t off = rnd () % ref.size;
    uint64_t maxlen = (i % 3 == 0) ? 512 : 4 * chunk * n;
    uint64_t len = rnd_range (1, maxlen);
    if (len > ref.size - off)
      len = ref.size - off;
    check_request (g, &ref, off, len);
  }

  /* Out of range requests are refused, not truncated. */
  {
    struct raid_piece p;
    ck_assert_int_eq (raid_geom_map (g, ref.size, 1, &p), -1);
    ck_assert_int_eq (raid_geom_map (g, ref.size - 1, 2, &p), -1);
    ck_assert_int_eq (raid_geom_map (g, 0, 0, &p), -1);
  }

  refmap_free (&ref);
  raid_geom_free (g);
}

static const uint64_t chunks[] = { 4 * K, 16 * K, 128 * K, 1 * M };

/* Member sizes: equal, or unequal with tails that are not whole chunks. */
static void
make_sizes (uint64_t chunk, unsigned n, bool equal, uint64_t data_offset,
            uint64_t *sizes)
{
  unsigned i;
  uint64_t base = rnd_range (3, 24) * chunk;

  for (i = 0; i < n; ++i) {
    if (equal)
      sizes[i] = base;
    else
      sizes[i] = rnd_range (2, 24) * chunk + rnd () % chunk;
    sizes[i] += data_offset;
  }
}

static void
sweep_level (int level)
{
  size_t ci;
  unsigned n;

  for (ci = 0; ci < sizeof chunks / sizeof chunks[0]; ++ci)
    for (n = 1; n <= 8; ++n) {
      int equal;
      for (equal = 0; equal <= 1; ++equal) {
        uint64_t sizes[8];
        uint64_t doff = equal ? 0 : 1 * M;
        unsigned copies;

        make_sizes (chunks[ci], n, equal, doff, sizes);
        if (level != 10)
          run_config (level, chunks[ci], 0, doff, n, sizes);
        else
          for (copies = 2; copies <= n && copies <= 4; ++copies)
            run_config (level, chunks[ci], copies, doff, n, sizes);
      }
    }
}

START_TEST (raid0_matches_reference) { sweep_level (0); }
END_TEST
START_TEST (raid1_matches_reference) { sweep_level (1); }
END_TEST
START_TEST (raid10_matches_reference) { sweep_level (10); }
END_TEST

/* The worked examples in geometry.c's header comment, by hand. */
START_TEST (raid0_zones_example)
{
  const uint64_t c = 4 * K;
  uint64_t sizes[] = { 4 * c, 2 * c + 100, 3 * c };
  struct raid_geom_params params = {
    .level = RAID_LEVEL_0, .chunk = c, .nmembers = 3, .member_size = sizes,
  };
  struct raid_geom *g = raid_geom_new (&params);
  struct raid_piece p;
  /* array chunk -> member, member chunk */
  static const unsigned want[][2] = {
    {0,0}, {1,0}, {2,0}, {0,1}, {1,1}, {2,1}, {0,2}, {2,2}, {0,3},
  };
  unsigned i;

  ck_assert_ptr_nonnull (g);
  ck_assert_uint_eq (raid_geom_size (g), 9 * c);
  ck_assert_uint_eq (raid_geom_nzones (g), 3);
  for (i = 0; i < 9; ++i) {
    ck_assert_int_eq (raid_geom_map (g, i * c + 5, c - 5, &p), 0);
    ck_assert_uint_eq (p.length, c - 5);
    ck_assert_uint_eq (p.copy[0].member, want[i][0]);
    ck_assert_uint_eq (p.copy[0].offset, want[i][1] * c + 5);
  }
  raid_geom_free (g);
}
END_TEST

START_TEST (raid10_odd_example)
{
  const uint64_t c = 64 * K;
  uint64_t sizes[] = { 3 * c, 3 * c, 3 * c };
  struct raid_geom_params params = {
    .level = RAID_LEVEL_10, .chunk = c, .copies = 2,
    .nmembers = 3, .member_size = sizes,
  };
  struct raid_geom *g = raid_geom_new (&params);
  struct raid_piece p;
  /* array chunk -> (member, row) of copy 0 and copy 1 */
  static const unsigned want[][4] = {
    {0,0, 1,0}, {2,0, 0,1}, {1,1, 2,1}, {0,2, 1,2},
  };
  unsigned i;

  ck_assert_ptr_nonnull (g);
  /* 9 slots hold 4 chunks with 2 copies; one slot stays unused. */
  ck_assert_uint_eq (raid_geom_size (g), 4 * c);
  ck_assert_uint_eq (raid_geom_member_used (g, 2), 2 * c);
  for (i = 0; i < 4; ++i) {
    ck_assert_int_eq (raid_geom_map (g, i * c, c, &p), 0);
    ck_assert_uint_eq (p.length, c);
    ck_assert_uint_eq (p.ncopies, 2);
    ck_assert_uint_eq (p.copy[0].member, want[i][0]);
    ck_assert_uint_eq (p.copy[0].offset, want[i][1] * c);
    ck_assert_uint_eq (p.copy[1].member, want[i][2]);
    ck_assert_uint_eq (p.copy[1].offset, want[i][3] * c);
  }
  raid_geom_free (g);
}
END_TEST

/* RAID 0: k whole stripes are one run per member, k chunks long, at
 * the stripe's row; and the whole of an array of unequal members (the
 * zones example) is one run per member, since each member's chunks come
 * in array order at increasing offsets, across zone boundaries too.
 */
static size_t
runs_of (const struct raid_geom *g, uint64_t off, uint64_t len,
         struct raid_run *runs, size_t cap)
{
  struct collect c = { 0 };
  struct raid_seg *seg;
  size_t *next, i, n;

  ck_assert_int_eq (raid_geom_foreach (g, off, len, collect_piece, &c), 0);
  seg = malloc (c.n * sizeof *seg);
  next = malloc (c.n * sizeof *next);
  ck_assert (seg && next && c.n <= cap);
  for (i = 0; i < c.n; ++i)
    seg[i] = (struct raid_seg) { c.p[i].offset, c.p[i].length,
                                 c.p[i].copy[0].member, c.p[i].copy[0].offset };
  n = raid_geom_runs (seg, c.n, RAID_RUN_MAX_SEGS, runs, next);
  free (seg);
  free (next);
  free (c.p);
  return n;
}

START_TEST (raid0_full_stripes_one_run_per_member)
{
  static const uint64_t cs[] = { 4 * K, 128 * K };
  struct raid_run runs[256];
  size_t ci;
  unsigned n, k, i;

  for (ci = 0; ci < 2; ++ci)
    for (n = 2; n <= 8; ++n)
      for (k = 1; k <= 8; ++k) {
        uint64_t c = cs[ci], sizes[8];
        struct raid_geom_params params = {
          .level = RAID_LEVEL_0, .chunk = c, .nmembers = n,
          .member_size = sizes,
        };
        struct raid_geom *g;
        uint64_t row = k;         /* start at stripe row k */

        for (i = 0; i < n; ++i)
          sizes[i] = 32 * c;
        g = raid_geom_new (&params);
        ck_assert_ptr_nonnull (g);
        ck_assert_uint_eq (runs_of (g, row * n * c, k * n * c, runs, 256), n);
        for (i = 0; i < n; ++i) {
          ck_assert_uint_eq (runs[i].member, i);
          ck_assert_uint_eq (runs[i].offset, row * c);
          ck_assert_uint_eq (runs[i].length, k * c);
          ck_assert_uint_eq (runs[i].nsegs, k);
        }
        raid_geom_free (g);
      }
}
END_TEST

START_TEST (raid0_zones_whole_array_runs)
{
  const uint64_t c = 4 * K;
  uint64_t sizes[] = { 4 * c, 2 * c + 100, 3 * c };
  static const uint64_t chunks_of[] = { 4, 2, 3 };
  struct raid_geom_params params = {
    .level = RAID_LEVEL_0, .chunk = c, .nmembers = 3, .member_size = sizes,
  };
  struct raid_geom *g = raid_geom_new (&params);
  struct raid_run runs[16];
  unsigned i;

  ck_assert_ptr_nonnull (g);
  ck_assert_uint_eq (runs_of (g, 0, 9 * c, runs, 16), 3);
  for (i = 0; i < 3; ++i) {
    ck_assert_uint_eq (runs[i].member, i);
    ck_assert_uint_eq (runs[i].offset, 0);
    ck_assert_uint_eq (runs[i].length, chunks_of[i] * c);
  }
  /* Chunks 3 .. 7 (rows 1 and 2) cross from zone 0 into zone 1: member
   * A's row 1 and row 2 are one run, C's too, and B's row 1 alone.
   */
  ck_assert_uint_eq (runs_of (g, 3 * c, 5 * c, runs, 16), 3);
  ck_assert_uint_eq (runs[0].member, 0);
  ck_assert_uint_eq (runs[0].offset, c);
  ck_assert_uint_eq (runs[0].length, 2 * c);
  ck_assert_uint_eq (runs[1].member, 1);
  ck_assert_uint_eq (runs[1].length, c);
  ck_assert_uint_eq (runs[2].member, 2);
  ck_assert_uint_eq (runs[2].length, 2 * c);
  raid_geom_free (g);
}
END_TEST

START_TEST (data_offset_shifts_every_copy)
{
  uint64_t sizes[] = { 2 * M, 2 * M };
  struct raid_geom_params params = {
    .level = RAID_LEVEL_1, .chunk = 128 * K, .data_offset = 1 * M,
    .nmembers = 2, .member_size = sizes,
  };
  struct raid_geom *g = raid_geom_new (&params);
  struct raid_piece p;

  ck_assert_ptr_nonnull (g);
  ck_assert_uint_eq (raid_geom_size (g), 1 * M);
  ck_assert_int_eq (raid_geom_map (g, 10, 100, &p), 0);
  ck_assert_uint_eq (p.copy[0].offset, 1 * M + 10);
  ck_assert_uint_eq (p.copy[1].offset, 1 * M + 10);
  raid_geom_free (g);
}
END_TEST

/* Each bad parameter is refused with a message that names it. */
static void
expect_error (enum raid_level level, uint64_t chunk, unsigned copies,
              unsigned n, uint64_t size, const char *param)
{
  uint64_t sizes[40];
  unsigned i;
  struct raid_geom_params params = {
    .level = level, .chunk = chunk, .copies = copies,
    .nmembers = n, .member_size = sizes,
  };

  for (i = 0; i < 40; ++i)
    sizes[i] = size;
  ck_assert_ptr_null (raid_geom_new (&params));
  ck_assert_msg (strncmp (raid_geom_error (), param, strlen (param)) == 0,
                 "error '%s' does not start with '%s'",
                 raid_geom_error (), param);
}

START_TEST (bad_parameters)
{
  expect_error (5, 128 * K, 0, 2, M, "level");
  expect_error (RAID_LEVEL_0, 100 * K, 0, 2, M, "chunk");
  expect_error (RAID_LEVEL_0, 2 * K, 0, 2, M, "chunk");
  expect_error (RAID_LEVEL_0, 128 * M, 0, 2, 1024 * M, "chunk");
  expect_error (RAID_LEVEL_0, 0, 0, 2, M, "chunk");
  expect_error (RAID_LEVEL_0, 128 * K, 0, 0, M, "member");
  expect_error (RAID_LEVEL_1, 128 * K, 0, 0, M, "member");
  /* One member is a drive for RAID 0 and 1, but not 2 copies. */
  expect_error (RAID_LEVEL_10, 128 * K, 0, 1, M, "copies");
  expect_error (RAID_LEVEL_0, 128 * K, 0, 33, M, "member");
  expect_error (RAID_LEVEL_10, 128 * K, 3, 2, M, "copies");
  expect_error (RAID_LEVEL_10, 128 * K, 1, 2, M, "copies");
  expect_error (RAID_LEVEL_0, 128 * K, 0, 2, 128 * K - 1, "member");
}
END_TEST

/* One member (md's one-member RAID 0 and RAID 1, raidsim create
 * --force): array byte x is byte x of the member past the data offset,
 * in one piece with one copy; RAID 1 uses every byte, RAID 0 whole
 * chunks.  Worked by hand, not from the reference table.
 */
START_TEST (one_member_is_a_drive)
{
  uint64_t size[] = { 5 * M + 100 };
  struct raid_geom_params params = {
    .level = RAID_LEVEL_1, .chunk = 64 * K, .data_offset = 1 * M,
    .nmembers = 1, .member_size = size,
  };
  struct raid_geom *g;
  struct raid_piece p;

  g = raid_geom_new (&params);
  ck_assert_msg (g != NULL, "raid_geom_new: %s", raid_geom_error ());
  ck_assert_uint_eq (raid_geom_size (g), 4 * M + 100);
  ck_assert_uint_eq (raid_geom_copies (g), 1);
  ck_assert_uint_eq (raid_geom_member_used (g, 0), 4 * M + 100);
  ck_assert_int_eq (raid_geom_map (g, 12345, 300000, &p), 0);
  ck_assert_uint_eq (p.offset, 12345);
  ck_assert_uint_eq (p.length, 300000);
  ck_assert_uint_eq (p.ncopies, 1);
  ck_assert_uint_eq (p.copy[0].member, 0);
  ck_assert_uint_eq (p.copy[0].offset, 1 * M + 12345);
  ck_assert_int_eq (raid_geom_map (g, 4 * M + 99, 1, &p), 0);
  ck_assert_uint_eq (p.copy[0].offset, 5 * M + 99);
  ck_assert_int_eq (raid_geom_map (g, 4 * M + 100, 1, &p), -1);
  raid_geom_free (g);

  params.level = RAID_LEVEL_0;
  g = raid_geom_new (&params);
  ck_assert_msg (g != NULL, "raid_geom_new: %s", raid_geom_error ());
  ck_assert_uint_eq (raid_geom_size (g), 4 * M);
  ck_assert_uint_eq (raid_geom_copies (g), 1);
  ck_assert_uint_eq (raid_geom_nzones (g), 1);
  /* 70000 to the chunk boundary at 131072, then a whole chunk. */
  ck_assert_int_eq (raid_geom_map (g, 70000, 300000, &p), 0);
  ck_assert_uint_eq (p.length, 64 * K * 2 - 70000);
  ck_assert_uint_eq (p.copy[0].member, 0);
  ck_assert_uint_eq (p.copy[0].offset, 1 * M + 70000);
  ck_assert_int_eq (raid_geom_map (g, 64 * K * 2, 300000, &p), 0);
  ck_assert_uint_eq (p.length, 64 * K);
  ck_assert_uint_eq (p.copy[0].offset, 1 * M + 64 * K * 2);
  ck_assert_int_eq (raid_geom_map (g, 4 * M - 1, 1, &p), 0);
  ck_assert_uint_eq (p.copy[0].offset, 5 * M - 1);
  ck_assert_int_eq (raid_geom_map (g, 4 * M, 1, &p), -1);
  raid_geom_free (g);
}
END_TEST

/* The keys' rules across keys (raidkeys.c) on the member count: a
 * member at least, and as many as RAID 10's copies.
 */
static int
settings_check (const char *level, unsigned n)
{
  struct raid_settings s;

  raid_settings_init (&s);
  ck_assert_int_eq (raid_settings_parse (&s, "level", level), 0);
  return raid_settings_check (&s, n);
}

START_TEST (settings_member_count)
{
  ck_assert_int_eq (settings_check ("0", 1), 0);
  ck_assert_int_eq (settings_check ("1", 1), 0);
  ck_assert_int_eq (settings_check ("raid1", 2), 0);
  ck_assert_int_eq (settings_check ("1", 0), -1);
  ck_assert_str_eq (raid_geom_error (),
                    "member: RAID 1 needs at least 1 member, got 0");
  ck_assert_int_eq (settings_check ("0", 0), -1);
  ck_assert_str_eq (raid_geom_error (),
                    "member: RAID 0 needs at least 1 member, got 0");
  ck_assert_int_eq (settings_check ("10", 1), -1);
  ck_assert_str_eq (raid_geom_error (),
                    "copies: 2 copies need at least 2 members, got 1");
  ck_assert_int_eq (settings_check ("10", 2), 0);
}
END_TEST

START_TEST (parse_helpers)
{
  uint64_t v;
  enum raid_level l;

  ck_assert_int_eq (raid_parse_size ("128K", &v), 0);
  ck_assert_uint_eq (v, 128 * K);
  ck_assert_int_eq (raid_parse_size ("1MiB", &v), 0);
  ck_assert_uint_eq (v, M);
  ck_assert_int_eq (raid_parse_size ("4096", &v), 0);
  ck_assert_uint_eq (v, 4096);
  ck_assert_int_eq (raid_parse_size ("2G", &v), 0);
  ck_assert_uint_eq (v, 2048 * M);
  ck_assert_int_eq (raid_parse_size ("", &v), -1);
  ck_assert_int_eq (raid_parse_size ("12Q", &v), -1);
  ck_assert_int_eq (raid_parse_size ("-4K", &v), -1);
  ck_assert_int_eq (raid_parse_size ("K", &v), -1);
  ck_assert_int_eq (raid_parse_size ("99999999999T", &v), -1);
  ck_assert_int_eq (raid_parse_level ("10", &l), 0);
  ck_assert_int_eq (l, RAID_LEVEL_10);
  ck_assert_int_eq (raid_parse_level ("raid1", &l), 0);
  ck_assert_int_eq (l, RAID_LEVEL_1);
  ck_assert_int_eq (raid_parse_level ("5", &l), -1);
  ck_assert_ptr_nonnull (strstr (raid_geom_error (), "level"));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("geometry");
  TCase *tc = tcase_create ("mapping");
  SRunner *sr;
  int failed;

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, raid0_matches_reference);
  tcase_add_test (tc, raid1_matches_reference);
  tcase_add_test (tc, raid10_matches_reference);
  tcase_add_test (tc, raid0_zones_example);
  tcase_add_test (tc, raid10_odd_example);
  tcase_add_test (tc, raid0_full_stripes_one_run_per_member);
  tcase_add_test (tc, raid0_zones_whole_array_runs);
  tcase_add_test (tc, data_offset_shifts_every_copy);
  tcase_add_test (tc, bad_parameters);
  tcase_add_test (tc, one_member_is_a_drive);
  tcase_add_test (tc, settings_member_count);
  tcase_add_test (tc, parse_helpers);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
