/* raidsim: RAID geometry.  The mapping from an array offset to the member
 * bytes that hold it.  Pure functions, no I/O: the nbdkit plugin uses this
 * to issue member I/O and the simulator uses it to predict the same I/O.
 *
 * Every member reserves data_offset bytes at its start (0 until on-disk
 * metadata exists); all member offsets below are counted from there, and
 * raid_geom_map adds data_offset back before returning them.
 *
 * RAID 0 (md raid0, multi-zone "alternate" layout)
 *
 *   Each member is first rounded down to a whole number of chunks.  The
 *   array is then cut into zones.  Zone 0 stripes across every member up
 *   to the size of the smallest one.  Zone 1 stripes across the members
 *   that are larger than that, in member order, up to the next smallest
 *   size, and so on until no member has space left.  With equal members
 *   there is one zone.  Inside a zone of n members the zone-relative
 *   chunk number c lives on the (c mod n)-th member of the zone, at chunk
 *   (c div n) from where the zone starts on that member.  For members
 *   A=4, B=2, C=3 chunks:
 *
 *       member:   A    B    C
 *       chunk 0:  0    1    2     zone 0 (A, B, C), 6 chunks
 *       chunk 1:  3    4    5
 *       chunk 2:  6    -    7     zone 1 (A, C), 2 chunks
 *       chunk 3:  8    -    -     zone 2 (A), 1 chunk
 *
 *   md's original layout picked the member from the array-absolute chunk
 *   number instead of the zone-relative one; Linux now refuses to guess
 *   between them for multi-zone arrays, and we use the newer one.  The
 *   array size is the sum of the rounded member sizes.
 *
 * RAID 1
 *
 *   Every member holds the whole array at the same offset.  The array is
 *   as large as the smallest member.  There is no striping: a request maps
 *   to one piece, with one copy on each member.
 *
 * One member
 *
 *   A RAID 0 or RAID 1 of one member (md runs both) maps array byte x
 *   to byte x of the member (past the data offset): RAID 1 uses all of
 *   the member, RAID 0 its whole chunks.  Such an array is a single
 *   drive, which is how the plugin serves the simulator's level =
 *   single (docs/realtime.md).
 *
 * RAID 10 (md raid10, "near" layout, n copies)
 *
 *   Consider the members as a sequence of chunk slots laid out row by
 *   row: slot s is chunk (s div m) of member (s mod m), for m members.
 *   Array chunk c occupies the n consecutive slots c*n .. c*n+n-1, so its
 *   copies sit on neighbouring members and wrap to the next row when they
 *   run off the last member.  This works for any member count of at least
 *   n, odd ones included.  With 3 members and 2 copies:
 *
 *       member:   A    B    C
 *       row 0:    0    0    1
 *       row 1:    1    2    2
 *       row 2:    3    3    4
 *
 *   Every member is treated as the smallest one rounded down to whole
 *   chunks (md does the same), so the array holds
 *   floor (chunks_per_member * m / n) chunks.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "raidsim/geometry.h"
#include "geometry-error.h"

struct zone {
  uint64_t array_start;     /* first array byte in this zone */
  uint64_t array_end;       /* one past the last */
  uint64_t dev_start;       /* member offset (from data_offset) of the zone */
  unsigned ndevs;
  unsigned dev_shift;       /* log2 ndevs when a power of two, else 0 */
  unsigned dev[RAID_MAX_MEMBERS];
};

struct raid_geom {
  enum raid_level level;
  uint64_t chunk;
  unsigned chunk_shift;
  unsigned copies;
  uint64_t data_offset;
  unsigned nmembers;
  uint64_t used[RAID_MAX_MEMBERS];
  uint64_t size;
  unsigned nzones;
  struct zone zone[RAID_MAX_MEMBERS];
};

static __thread char errbuf[256];

void
raid_set_error (const char *fs, ...)
{
  va_list args;

  va_start (args, fs);
  vsnprintf (errbuf, sizeof errbuf, fs, args);
  va_end (args);
}

const char *
raid_geom_error (void)
{
  return errbuf;
}

static bool
is_power_of_2 (uint64_t v)
{
  return v && (v & (v - 1)) == 0;
}

static unsigned
log2_u64 (uint64_t v)
{
  return 63 - __builtin_clzll (v);
}

/* md's create_strip_zones, in bytes rather than sectors. */
static void
build_zones (struct raid_geom *g)
{
  uint64_t prev = 0;            /* member offset where the next zone starts */
  uint64_t array_pos = 0;

  g->nzones = 0;
  for (;;) {
    uint64_t smallest = UINT64_MAX;
    struct zone *z = &g->zone[g->nzones];
    unsigned i;

    z->ndevs = 0;
    for (i = 0; i < g->nmembers; ++i) {
      if (g->used[i] > prev) {
        z->dev[z->ndevs++] = i;
        if (g->used[i] < smallest)
          smallest = g->used[i];
      }
    }
    if (z->ndevs == 0)
      break;
    z->dev_shift = is_power_of_2 (z->ndevs) ? log2_u64 (z->ndevs) : 0;
    z->dev_start = prev;
    z->array_start = array_pos;
    z->array_end = array_pos + (smallest - prev) * z->ndevs;
    array_pos = z->array_end;
    prev = smallest;
    g->nzones++;
  }
  g->size = array_pos;
}

struct raid_geom *
raid_geom_new (const struct raid_geom_params *p)
{
  struct raid_geom *g;
  uint64_t smallest = UINT64_MAX;
  unsigned i;

  if (p->level != RAID_LEVEL_0 && p->level != RAID_LEVEL_1 &&
      p->level != RAID_LEVEL_10) {
    raid_set_error ("level: %d is not a supported RAID level (0, 1 or 10)",
               (int) p->level);
    return NULL;
  }
  if (!is_power_of_2 (p->chunk) ||
      p->chunk < RAID_CHUNK_MIN || p->chunk > RAID_CHUNK_MAX) {
    raid_set_error ("chunk: %" PRIu64 " bytes is not a power of two "
               "from 4K to 64M", p->chunk);
    return NULL;
  }

  /* md runs a one-member RAID 0 or RAID 1 (mdadm creates one with
   * --force; raidsim create asks for it too): every array byte then
   * lies at its own offset on the one member, past the data offset,
   * which is how the plugin serves a single drive.  RAID 10 needs as
   * many members as copies, checked below.
   */
  if (p->nmembers < 1) {
    raid_set_error ("member: RAID %s needs at least 1 member, got 0",
               raid_level_name (p->level));
    return NULL;
  }
  if (p->nmembers > RAID_MAX_MEMBERS) {
    raid_set_error ("member: at most %d members are supported, got %u",
               RAID_MAX_MEMBERS, p->nmembers);
    return NULL;
  }
  if (p->level == RAID_LEVEL_10) {
    unsigned copies = p->copies ? p->copies : RAID10_COPIES_DEFAULT;
    if (copies < 2) {
      raid_set_error ("copies: RAID 10 needs at least 2 copies, got %u", copies);
      return NULL;
    }
    if (copies > p->nmembers) {
      raid_set_error ("copies: %u copies need at least %u members, got %u",
                 copies, copies, p->nmembers);
      return NULL;
    }
  }
  if (p->data_offset % RAID_CHUNK_MIN != 0) {
    raid_set_error ("data-offset: %" PRIu64 " is not a multiple of 4K",
               p->data_offset);
    return NULL;
  }

  g = calloc (1, sizeof *g);
  if (g == NULL) {
    raid_set_error ("raid_geom_new: %s", strerror (errno));
    return NULL;
  }
  g->level = p->level;
  g->chunk = p->chunk;
  g->chunk_shift = log2_u64 (p->chunk);
  g->data_offset = p->data_offset;
  g->nmembers = p->nmembers;

  for (i = 0; i < p->nmembers; ++i) {
    uint64_t avail;

    if (p->data_offset > p->member_size[i] ||
        p->member_size[i] - p->data_offset < p->chunk) {
      raid_set_error ("member: member %u has %" PRIu64 " bytes, less than "
                 "one chunk (%" PRIu64 ") after the data offset (%" PRIu64 ")",
                 i, p->member_size[i], p->chunk, p->data_offset);
      free (g);
      return NULL;
    }
    avail = p->member_size[i] - p->data_offset;
    if (p->level != RAID_LEVEL_1)
      avail &= ~(p->chunk - 1);
    g->used[i] = avail;
    if (avail < smallest)
      smallest = avail;
  }

  /* An array size is an int64_t to nbdkit and must not wrap here: the
   * data the members hold, added up (RAID 0: every member's; RAID 10:
   * the smallest's, times the members, before dividing by the copies;
   * RAID 1: one member's), must fit.
   */
  {
    uint64_t total = 0;
    for (i = 0; i < p->nmembers; ++i) {
      uint64_t add = p->level == RAID_LEVEL_0 ? g->used[i]
        : p->level == RAID_LEVEL_10 || i == 0 ? smallest : 0;
      if (add > (uint64_t) INT64_MAX - total) {
        raid_set_error ("member: the members' sizes add up to more than "
                        "%" PRId64 " bytes (8 EiB): too large", INT64_MAX);
        free (g);
        return NULL;
      }
      total += add;
    }
  }

  switch (g->level) {
  case RAID_LEVEL_0:
    g->copies = 1;
    build_zones (g);
    break;
  case RAID_LEVEL_1:
    g->copies = g->nmembers;
    for (i = 0; i < g->nmembers; ++i)
      g->used[i] = smallest;
    g->size = smallest;
    g->nzones = 1;
    break;
  case RAID_LEVEL_10: {
    uint64_t chunks_per_member = smallest >> g->chunk_shift;
    uint64_t nchunks;

    g->copies = p->copies ? p->copies : RAID10_COPIES_DEFAULT;
    nchunks = chunks_per_member * g->nmembers / g->copies;
    g->size = nchunks << g->chunk_shift;
    /* The last row may be partly used; count only the slots that hold
     * array chunks so that raid_geom_member_used is exact.
     */
    for (i = 0; i < g->nmembers; ++i) {
      uint64_t slots = nchunks * g->copies;
      uint64_t rows = slots / g->nmembers;
      uint64_t member_chunks = rows + (i < slots % g->nmembers ? 1 : 0);
      g->used[i] = member_chunks << g->chunk_shift;
    }
    g->nzones = 1;
    break;
  }
  }
  return g;
}

void
raid_geom_free (struct raid_geom *g)
{
  free (g);
}

enum raid_level raid_geom_level (const struct raid_geom *g) { return g->level; }
uint64_t raid_geom_chunk (const struct raid_geom *g) { return g->chunk; }
unsigned raid_geom_nmembers (const struct raid_geom *g) { return g->nmembers; }
unsigned raid_geom_copies (const struct raid_geom *g) { return g->copies; }
uint64_t raid_geom_data_offset (const struct raid_geom *g) { return g->data_offset; }
uint64_t raid_geom_size (const struct raid_geom *g) { return g->size; }
unsigned raid_geom_nzones (const struct raid_geom *g) { return g->nzones; }

uint64_t
raid_geom_member_used (const struct raid_geom *g, unsigned i)
{
  return i < g->nmembers ? g->used[i] : 0;
}

/* Zones are few (at most one per member) and sorted, so a linear scan
 * beats anything cleverer.
 */
static const struct zone *
find_zone (const struct raid_geom *g, uint64_t offset)
{
  unsigned i;

  for (i = 0; i < g->nzones; ++i)
    if (offset < g->zone[i].array_end)
      return &g->zone[i];
  return NULL;
}

static void
map_raid0 (const struct raid_geom *g, uint64_t offset, struct raid_piece *p)
{
  const struct zone *z = find_zone (g, offset);
  uint64_t zoff = offset - z->array_start;
  uint64_t chunk = zoff >> g->chunk_shift;
  uint64_t in_chunk = zoff & (g->chunk - 1);

  uint64_t stripe;
  unsigned member;

  /* The power-of-two fast path: a shift and a mask, not a division
   * (tens of cycles) for every piece.
   */
  if (z->dev_shift || z->ndevs == 1) {
    stripe = chunk >> z->dev_shift;
    member = chunk & (z->ndevs - 1);
  }
  else {
    stripe = chunk / z->ndevs;
    member = chunk % z->ndevs;
  }
  p->ncopies = 1;
  p->copy[0].member = z->dev[member];
  p->copy[0].offset = z->dev_start + (stripe << g->chunk_shift) + in_chunk;
}

static void
map_raid10 (const struct raid_geom *g, uint64_t offset, struct raid_piece *p)
{
  uint64_t chunk = offset >> g->chunk_shift;
  uint64_t in_chunk = offset & (g->chunk - 1);
  uint64_t slot = chunk * g->copies;
  unsigned k;

  p->ncopies = g->copies;
  for (k = 0; k < g->copies; ++k, ++slot) {
    p->copy[k].member = slot % g->nmembers;
    p->copy[k].offset = ((slot / g->nmembers) << g->chunk_shift) + in_chunk;
  }
}

int
raid_geom_map (const struct raid_geom *g, uint64_t offset, uint64_t len,
               struct raid_piece *p)
{
  unsigned k;

  if (len == 0 || offset >= g->size || len > g->size - offset) {
    raid_set_error ("raid_geom_map: range %" PRIu64 "+%" PRIu64
               " is outside the array (%" PRIu64 " bytes)",
               offset, len, g->size);
    return -1;
  }

  p->offset = offset;
  if (g->level == RAID_LEVEL_1) {
    p->length = len;
    p->ncopies = g->nmembers;
    for (k = 0; k < g->nmembers; ++k) {
      p->copy[k].member = k;
      p->copy[k].offset = offset;
    }
  }
  else {
    uint64_t to_boundary = g->chunk - (offset & (g->chunk - 1));

    p->length = len < to_boundary ? len : to_boundary;
    if (g->level == RAID_LEVEL_0)
      map_raid0 (g, offset, p);
    else
      map_raid10 (g, offset, p);
  }

  for (k = 0; k < p->ncopies; ++k)
    p->copy[k].offset += g->data_offset;
  return 0;
}

int
raid_geom_foreach (const struct raid_geom *g, uint64_t offset, uint64_t len,
                   raid_piece_fn f, void *opaque)
{
  struct raid_piece p;

  if (len == 0)
    return 0;
  if (offset >= g->size || len > g->size - offset) {
    raid_set_error ("raid_geom_foreach: range %" PRIu64 "+%" PRIu64
               " is outside the array (%" PRIu64 " bytes)",
               offset, len, g->size);
    return -1;
  }
  while (len > 0) {
    int r;

    raid_geom_map (g, offset, len, &p);
    r = f (&p, opaque);
    if (r != 0)
      return r;
    offset += p.length;
    len -= p.length;
  }
  return 0;
}

size_t
raid_geom_runs (const struct raid_seg *seg, size_t n, unsigned max_segs,
                struct raid_run *runs, size_t *next)
{
  /* The latest run of every member and its last segment, valid for the
   * members whose bit is set in open: most calls carry one or two
   * segments (every 4K request is one), and clearing the arrays would
   * cost more than grouping them.
   */
  size_t open_run[RAID_MAX_MEMBERS], open_last[RAID_MAX_MEMBERS];
  uint32_t open = 0;
  size_t i, nruns = 0;

  for (i = 0; i < n; ++i) {
    uint32_t bit = UINT32_C (1) << seg[i].member;
    size_t r = (open & bit) ? open_run[seg[i].member] : RAID_SEG_END;

    next[i] = RAID_SEG_END;
    if (r != RAID_SEG_END &&
        runs[r].offset + runs[r].length == seg[i].member_offset &&
        runs[r].nsegs < max_segs) {
      next[open_last[seg[i].member]] = i;
      runs[r].length += seg[i].length;
      runs[r].nsegs++;
    }
    else {
      r = nruns++;
      runs[r] = (struct raid_run) {
        .member = seg[i].member, .offset = seg[i].member_offset,
        .length = seg[i].length, .first = i, .nsegs = 1,
      };
      open_run[seg[i].member] = r;
      open |= bit;
    }
    open_last[seg[i].member] = i;
  }
  return nruns;
}

static const struct {
  enum raid_level level;
  const char *name, *alias;
} levels[] = {
#define LEVEL(id, n, name, alias) { id, name, alias },
  RAID_LEVELS (LEVEL)
#undef LEVEL
};

int
raid_parse_level (const char *s, enum raid_level *level)
{
  size_t i;

  for (i = 0; i < sizeof levels / sizeof levels[0]; ++i)
    if (strcasecmp (s, levels[i].name) == 0 ||
        strcasecmp (s, levels[i].alias) == 0) {
      *level = levels[i].level;
      return 0;
    }
  raid_set_error ("level: '%s' is not a supported RAID level (0, 1 or 10)", s);
  return -1;
}

const char *
raid_level_name (enum raid_level level)
{
  size_t i;

  for (i = 0; i < sizeof levels / sizeof levels[0]; ++i)
    if (levels[i].level == level)
      return levels[i].name;
  return "?";
}

int
raid_parse_size (const char *s, uint64_t *bytes)
{
  char *end;
  unsigned long long v;
  unsigned shift = 0;

  errno = 0;
  if (*s < '0' || *s > '9')
    goto bad;
  v = strtoull (s, &end, 10);
  if (errno != 0)
    goto bad;
  switch (*end) {
  case '\0': break;
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  case 't': case 'T': shift = 40; end++; break;
  default: goto bad;
  }
  if (shift && (strcmp (end, "B") == 0 || strcmp (end, "iB") == 0))
    end += strlen (end);
  if (*end != '\0')
    goto bad;
  if (shift && v > (UINT64_MAX >> shift))
    goto bad;
  *bytes = (uint64_t) v << shift;
  return 0;

 bad:
  raid_set_error ("'%s' is not a size (a number with an optional K, M, G or T "
             "suffix)", s);
  return -1;
}
