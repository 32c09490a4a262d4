/* raidsim: md's rules for an array's members, pure (see mdrules.h for
 * what each decides, and where md decides it).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "raidsim/mdrules.h"

#define BIT(i) (UINT32_C (1) << (i))

/* ---- enough ------------------------------------------------------- */

int64_t
md_first_lost (const struct raid_geom *g, uint32_t out, struct raid_piece *p)
{
  struct raid_piece piece;
  uint64_t size = raid_geom_size (g), chunk = raid_geom_chunk (g);
  unsigned n = raid_geom_nmembers (g), c, k;

  for (c = 0; c < n && (uint64_t) c * chunk < size; ++c) {
    bool kept = false;

    raid_geom_map (g, (uint64_t) c * chunk, 1, &piece);
    for (k = 0; k < piece.ncopies; ++k)
      kept |= !(out & BIT (piece.copy[k].member));
    if (!kept) {
      if (p)
        *p = piece;
      return c;
    }
    /* On RAID 1 every member holds everything: the first chunk tells. */
    if (raid_geom_level (g) == RAID_LEVEL_1)
      break;
  }
  return -1;
}

bool
md_enough (const struct raid_geom *g, uint32_t out)
{
  return md_first_lost (g, out, NULL) == -1;
}

unsigned
md_most_copies (const struct raid_geom *g, uint32_t out)
{
  struct raid_piece piece;
  uint64_t size = raid_geom_size (g), chunk = raid_geom_chunk (g);
  unsigned n = raid_geom_nmembers (g), c, k, most = 0;

  for (c = 0; c < n && (uint64_t) c * chunk < size; ++c) {
    unsigned kept = 0;

    raid_geom_map (g, (uint64_t) c * chunk, 1, &piece);
    for (k = 0; k < piece.ncopies; ++k)
      kept += !(out & BIT (piece.copy[k].member));
    if (kept > most)
      most = kept;
    if (raid_geom_level (g) == RAID_LEVEL_1)
      break;
  }
  return most;
}

/* ---- trust ----------------------------------------------------------- */

/* The md features raidsim does not keep up to date, in words. */
static const struct { uint32_t bit; const char *what; } unkept[] = {
  { MDSB_FEATURE_RESHAPE_ACTIVE, "a reshape in progress" },
  { MDSB_FEATURE_BAD_BLOCKS, "recorded bad blocks" },
  { MDSB_FEATURE_REPLACEMENT, "a replacement in progress" },
  { MDSB_FEATURE_RESHAPE_BACKWARDS, "a reshape in progress" },
  { MDSB_FEATURE_NEW_OFFSET, "a reshape in progress" },
  { MDSB_FEATURE_CLUSTERED, "a clustered bitmap" },
  { MDSB_FEATURE_JOURNAL, "a journal" },
  { MDSB_FEATURE_PPL, "a partial parity log" },
  { MDSB_FEATURE_MULTIPLE_PPLS, "a partial parity log" },
};

const char *
md_unkept_feature (const struct mdsb *sb)
{
  size_t i;

  for (i = 0; i < sizeof unkept / sizeof unkept[0]; ++i)
    if (sb->feature_map & unkept[i].bit)
      return unkept[i].what;
  return NULL;
}

const char *
md_role_words (unsigned role, char *buf, size_t n)
{
  if (role == MDSB_ROLE_FAULTY)
    snprintf (buf, n, "faulty");
  else if (role == MDSB_ROLE_SPARE)
    snprintf (buf, n, "out of the array");
  else if (role == MDSB_ROLE_JOURNAL)
    snprintf (buf, n, "a journal");
  else
    snprintf (buf, n, "as role %u", role);
  return buf;
}

/* The first field of the array's shape in which x and y differ, with
 * both values, or NULL if none does.
 */
static const char *
shape_differs (const struct mdsb *x, const struct mdsb *y,
               uint64_t *vx, uint64_t *vy)
{
#define FIELD(f) \
  if (x->f != y->f) { *vx = x->f; *vy = y->f; return #f; }
  FIELD (level);
  FIELD (layout);
  FIELD (chunksize);
  FIELD (raid_disks);
  if (x->level > 0)
    FIELD (size);
  FIELD (data_offset);
  /* A member being rebuilt (from the bitmap or not) says so in its own
   * feature map.
   */
  if ((x->feature_map ^ y->feature_map) &
      ~(MDSB_FEATURE_RECOVERY_OFFSET | MDSB_FEATURE_RECOVERY_BITMAP)) {
    *vx = x->feature_map;
    *vy = y->feature_map;
    return "feature_map";
  }
#undef FIELD
  return NULL;
}

/* What the freshest role table says of the member whose superblock is sb. */
static unsigned
listed_role (const struct mdsb *sb, const struct mdsb *fsb)
{
  if (sb->dev_number < fsb->max_dev && sb->dev_number < MDSB_MAX_DEV_LIMIT)
    return fsb->dev_roles[sb->dev_number];
  return MDSB_ROLE_SPARE;
}

void
md_trust (const struct mdsb *const *sb, unsigned n, struct md_trust_set *t)
{
  unsigned i, r;

  memset (t, 0, sizeof *t);
  t->n = n;
  t->ref = t->fresh = n;
  for (r = 0; r < RAID_MAX_MEMBERS; ++r)
    t->holder[r] = -1;

  /* 1. One array, one shape, against the first member with a
   * superblock.
   */
  for (i = 0; i < n; ++i) {
    struct md_member_trust *m = &t->m[i];

    m->trust = sb[i] ? MD_TRUSTED : MD_ABSENT;
    m->listed = MDSB_ROLE_SPARE;
    if (sb[i] == NULL)
      continue;
    if (t->ref == n) {
      t->ref = i;
      continue;
    }
    if (memcmp (sb[i]->set_uuid, sb[t->ref]->set_uuid, 16) != 0)
      m->trust = MD_FOREIGN;
    else if ((m->field = shape_differs (sb[i], sb[t->ref], &m->value,
                                        &m->ref_value)) != NULL)
      m->trust = MD_OTHER_SHAPE;
  }
  if (t->ref == n)
    return;

  /* 2. Roles, from each member's own superblock. */
  for (i = 0; i < n; ++i) {
    struct md_member_trust *m = &t->m[i];

    if (m->trust != MD_TRUSTED)
      continue;
    m->role = mdsb_role (sb[i]);
    if (m->role >= n)
      m->trust = MD_NO_ROLE;
    else if (t->holder[m->role] >= 0) {
      m->trust = MD_DUP_ROLE;
      m->other = t->holder[m->role];
    }
    else
      t->holder[m->role] = i;
  }

  /* 3. The freshest, and who is stale against it. */
  t->fresh = t->ref;
  for (i = 0; i < n; ++i)
    if (t->m[i].trust == MD_TRUSTED &&
        sb[i]->events > sb[t->fresh]->events)
      t->fresh = i;
  for (i = 0; i < n; ++i) {
    struct md_member_trust *m = &t->m[i];
    const struct mdsb *fsb = sb[t->fresh];

    if (m->trust != MD_TRUSTED)
      continue;
    m->listed = listed_role (sb[i], fsb);
    if (sb[i]->events + 1 < fsb->events)
      m->trust = MD_STALE_EVENTS;
    else if (m->listed != m->role && sb[i]->events < fsb->events)
      m->trust = MD_STALE_LISTED;
    else if (m->listed != m->role)
      m->trust = MD_STALE_ROLE;
    else {
      if (sb[i]->events < fsb->events)
        m->trust = MD_TRUSTED_BEHIND;
      t->nlive++;
    }
  }

  /* 4. Absent members take the roles no member holds, in order. */
  for (i = 0, r = 0; i < n; ++i) {
    if (t->m[i].trust != MD_ABSENT)
      continue;
    while (r < n && t->holder[r] >= 0)
      r++;
    if (r == n)
      break;
    t->m[i].role = r;
    t->holder[r] = i;
  }
}

int
md_trust_refused (const struct md_trust_set *t)
{
  unsigned i;

  for (i = 0; i < t->n; ++i)
    if (t->m[i].trust >= MD_FOREIGN)
      return i;
  return -1;
}

/* ---- re-add ------------------------------------------------------ */

bool
md_readd_ok (const struct md_bitmap_view *b, uint64_t events,
             const char **why)
{
  if (!b->on) {
    *why = "the array has no write-intent bitmap";
    return false;
  }
  if (b->stale) {
    *why = "the bitmap is stale";
    return false;
  }
  if (events < b->events_cleared) {
    *why = "its events are older than the bitmap's events_cleared";
    return false;
  }
  *why = "its events are not older than the bitmap's events_cleared";
  return true;
}

enum md_readd
md_readd (const struct md_array_view *a, const struct mdsb *sb,
          unsigned *role, const char **why, unsigned *other)
{
  unsigned r = mdsb_role (sb), i;

  *role = r;
  *why = NULL;
  if (r >= a->n)
    return MD_READD_WAS_SPARE;
  if (!(a->failed & BIT (r)))
    return MD_READD_ROLE_LIVE;
  if (sb->events > a->events)
    return MD_READD_AHEAD;
  if (!md_readd_ok (&a->bitmap, sb->events, why))
    return MD_READD_NO_BITMAP;
  for (i = 0; i < a->n; ++i)
    if (i != r && a->in_array[i] && a->sb[i].dev_number == sb->dev_number) {
      *other = i;
      return MD_READD_DEV_TAKEN;
    }
  return MD_READD;
}

static bool
test_bit (const uint8_t *bits, uint64_t k)
{
  return bits[k / 8] & (1u << (k % 8));
}

uint64_t
md_readd_next (const uint8_t *bits, uint64_t nbits, uint64_t chunk,
               uint64_t pos, uint64_t size)
{
  uint64_t k;

  for (k = pos / chunk; k < nbits && !test_bit (bits, k); ++k)
    ;
  if (k >= nbits || k * chunk >= size)
    return size;
  return k * chunk > pos ? k * chunk : pos;
}

uint64_t
md_readd_bytes (const uint8_t *bits, uint64_t nbits, uint64_t chunk,
                uint64_t pos, uint64_t size)
{
  uint64_t k, n = 0;

  for (k = pos / chunk; k < nbits && k * chunk < size; ++k)
    if (test_bit (bits, k)) {
      uint64_t lo = k * chunk > pos ? k * chunk : pos;
      uint64_t hi = (k + 1) * chunk < size ? (k + 1) * chunk : size;

      n += hi - lo;
    }
  return n;
}

bool
md_readd_needs (const uint8_t *bits, uint64_t nbits, uint64_t chunk,
                uint64_t offset, uint64_t len)
{
  uint64_t first, last, k;

  if (len == 0)
    return false;
  first = offset / chunk;
  last = (offset + len - 1) / chunk;
  if (last >= nbits)
    last = nbits - 1;
  for (k = first; k <= last; ++k)
    if (test_bit (bits, k))
      return true;
  return false;
}

/* ---- recovery offsets ------------------------------------------------ */

uint64_t
md_recovery_offset (const struct raid_geom *g, unsigned member, uint64_t pos)
{
  uint64_t size = raid_geom_size (g), chunk = raid_geom_chunk (g);
  uint64_t doff = raid_geom_data_offset (g), off = pos;
  unsigned n = raid_geom_nmembers (g), i, k;
  struct raid_piece pc;

  /* A member's next piece is within nmembers chunks of any offset. */
  for (i = 0; i <= n && off < size; ++i) {
    if (raid_geom_map (g, off, 1, &pc) == -1)
      break;
    for (k = 0; k < pc.ncopies; ++k)
      if (pc.copy[k].member == member)
        return pc.copy[k].offset - doff;
    off = (off / chunk + 1) * chunk;
  }
  return raid_geom_member_used (g, member);
}

uint64_t
md_recovery_resume (const struct raid_geom *g, unsigned member, uint64_t moff,
                    uint64_t region)
{
  uint64_t size = raid_geom_size (g);
  uint64_t lo = 0, hi = (size + region - 1) / region;

  /* md_recovery_offset is non-decreasing in the array offset: find the
   * last k with md_recovery_offset (k * region) <= moff.
   */
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    uint64_t p = mid * region;

    if (p > size)
      p = size;
    if (md_recovery_offset (g, member, p) <= moff)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo * region > size ? size : lo * region;
}
