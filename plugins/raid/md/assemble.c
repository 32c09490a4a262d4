/* nbdkit-raid-plugin: assembly.  From the members as given to the array
 * that is served, once, before anything is written.
 *
 * Which kind of array (metadata=)
 *
 *   auto (the default)  every member holds an md v1.2 superblock: the
 *                       array is assembled from them.  No member holds
 *                       any md metadata: the array has none, and its
 *                       data starts at offset 0 of every member, as with
 *                       mdadm --build (the plugin's only kind of array
 *                       before md metadata, so those arrays are served
 *                       as they always were).  Anything else (some
 *                       members with a superblock and some without, or
 *                       md metadata of a version raidsim does not
 *                       serve) is refused: one of the two readings would
 *                       write array data over what the other holds.
 *   1.2                 the superblocks are required.
 *   none                no metadata; a member that holds md metadata of
 *                       any version is refused, since array data would
 *                       be written over it.
 *
 * Assembly from md v1.2 superblocks, as mdadm --assemble and the
 * kernel's md (super_1_validate) do it:
 *
 *   1. Every superblock must be one md would accept (mdsb_decode), sit
 *      where version 1.2 puts it, and fit its member (mdsb_check_member).
 *      Features raidsim does not keep up to date are refused
 *      (md_unkept_feature): a reshape or a replacement in progress,
 *      recorded bad blocks, a journal and the like, which md would trust
 *      later.  An internal write-intent bitmap (bitmap.c) and a recovery
 *      in progress, by offset or from the bitmap (sync/rebuild.c), are
 *      kept up to date and accepted.
 *   2. Whom to trust is md_trust's (raidsim/core/mdrules.h): one array
 *      UUID and one shape; each member in the role its own superblock
 *      gives it, one to a role, no spare; stale, and left out, a member
 *      more than one event behind the freshest, or whose role the
 *      freshest role table does not give it.
 *   3. As many members as the superblocks say (raid_disks) are given,
 *      "missing" in place of each absent one, in any order.  level=,
 *      chunk= and copies=, if given, must say what the superblocks say.
 *   4. The array starts only if every chunk keeps a live copy (RAID 0:
 *      if no member is missing or stale).
 *   5. The members are put in the places of their roles (members[r]
 *      holds role r), missing ones in the roles no member claims, and
 *      the geometry is made from the superblocks: md's data offset, and
 *      each member's size as md uses it (data offset plus data_size on
 *      RAID 0, plus size on RAID 1 and 10), so that the array's size is
 *      md's.
 *
 * The superblocks are written later (superblock.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/geometry.h"
#include "raidsim/mdrules.h"
#include "raidsim/mdsb.h"
#include "assemble.h"
#include "bitmap.h"
#include "state.h"
#include "superblock.h"
#include "member/probe.h"
#include "model/modelfile.h"

/* What each member holds, by its place on the command line: a 4K
 * superblock each, so not on the stack.  Used only while nbdkit reads
 * its parameters, in one thread.
 */
static struct member_md found[RAID_MAX_MEMBERS];
/* Members without any metadata, given in the place of a missing member
 * of an md array: new members, to be rebuilt (sync/rebuild.h).
 */
static bool blank[RAID_MAX_MEMBERS];
/* The keys given (level=, chunk=, copies=), which the array's are then
 * written into, and metadata=.
 */
static struct raid_settings *keys;
static enum raid_metadata metadata_kind;

static bool
is_missing (const struct member *m)
{
  return m->ops == &missing_ops;
}

/* No superblock to go by: missing, or a blank new member. */
static bool
absent (const struct raid_array *a, unsigned i)
{
  return is_missing (&a->members[i]) || blank[i];
}

struct uuid_buf { char s[36]; };

static struct uuid_buf
uuid_of (const struct mdsb *sb)
{
  struct uuid_buf b;

  mdsb_format_uuid (sb->set_uuid, b.s);
  return b;
}

struct name_buf { char s[33]; };

static struct name_buf
name_of (const struct mdsb *sb)
{
  struct name_buf b;

  memcpy (b.s, sb->set_name, 32);
  b.s[32] = '\0';
  return b;
}

/* ---- superblock-less arrays ---------------------------------------- */

static int
assemble_none (struct raid_array *a)
{
  struct raid_geom_params p;
  uint64_t sizes[RAID_MAX_MEMBERS];
  unsigned i;

  for (i = 0; i < a->nmembers; ++i)
    if (is_missing (&a->members[i])) {
      nbdkit_error ("member: %s (member %u) stands for an absent member of "
                    "an array with md metadata, which says what it held; "
                    "these members have none", a->members[i].name, i);
      return -1;
    }
  modelfile_fill (keys);           /* model=: level, chunk, copies */
  if (raid_settings_check (keys, a->nmembers) == -1) {
    nbdkit_error ("%s", raid_geom_error ());
    return -1;
  }

  /* A RAID 1 has no chunks, but a mirror smaller than the smallest
   * chunk is certainly a mistake; the chunk default makes this 128K.
   */
  for (i = 0; i < a->nmembers; ++i) {
    if (a->members[i].size < keys->chunk) {
      nbdkit_error ("member: %s: %" PRIu64 " bytes is smaller than one "
                    "chunk (%" PRIu64 ")", a->members[i].name,
                    a->members[i].size, keys->chunk);
      return -1;
    }
    sizes[i] = a->members[i].size;
  }

  p = (struct raid_geom_params) {
    .level = keys->level,
    .chunk = keys->chunk,
    .copies = keys->copies,
    .data_offset = 0,
    .nmembers = a->nmembers,
    .member_size = sizes,
  };
  a->geom = raid_geom_new (&p);
  if (a->geom == NULL) {
    nbdkit_error ("%s", raid_geom_error ());
    return -1;
  }
  return 0;
}

/* ---- md v1.2 arrays ------------------------------------------------- */

/* Step 1: a superblock that md would accept, without a feature raidsim
 * does not keep up to date (raidsim/core/mdrules.c).
 */
static int
check_features (const struct member *m, const struct mdsb *sb)
{
  const char *what = md_unkept_feature (sb);

  if (what == NULL)
    return 0;
  nbdkit_error ("member: %s: its md superblock records %s "
                "(feature_map %#" PRIx32 "), which raidsim does not "
                "keep up to date, so it does not serve this array",
                m->name, what, sb->feature_map);
  return -1;
}

/* The given level=, chunk= and copies= against the superblocks'. */
static int
check_keys (enum raid_level level, uint64_t chunk, unsigned copies)
{
  const struct raid_settings *s = keys;

  if (s->set[RAID_KEY_LEVEL] && s->level != level) {
    nbdkit_error ("level: level=%s given, but the members' md superblocks "
                  "say RAID %s (leave level= out, or give level=%s)",
                  raid_level_name (s->level), raid_level_name (level),
                  raid_level_name (level));
    return -1;
  }
  if (s->set[RAID_KEY_CHUNK] && level == RAID_LEVEL_1) {
    nbdkit_error ("chunk: chunk= given, but the members' md superblocks "
                  "say RAID 1, which has no chunk (leave chunk= out)");
    return -1;
  }
  if (s->set[RAID_KEY_CHUNK] && s->chunk != chunk) {
    nbdkit_error ("chunk: chunk=%" PRIu64 "K given, but the members' md "
                  "superblocks say %" PRIu64 "K (leave chunk= out, or give "
                  "chunk=%" PRIu64 "K)", s->chunk >> 10, chunk >> 10,
                  chunk >> 10);
    return -1;
  }
  if (s->set[RAID_KEY_COPIES] && level != RAID_LEVEL_10) {
    nbdkit_error ("copies: copies= given, but the members' md superblocks "
                  "say RAID %s, which has no copy count (leave copies= out)",
                  raid_level_name (level));
    return -1;
  }
  if (s->set[RAID_KEY_COPIES] && s->copies != copies) {
    nbdkit_error ("copies: copies=%u given, but the members' md superblocks "
                  "say %u near copies (leave copies= out, or give "
                  "copies=%u)", s->copies, copies, copies);
    return -1;
  }
  return 0;
}

/* What the members' superblocks say of the array, from the first one
 * with a superblock (sb0), once every member has its UUID and shape.
 */
struct md_shape {
  enum raid_level level;
  unsigned copies;
  uint64_t chunk, data_offset;
};

/* Step 2: one array, one shape (md_trust's verdicts), and a shape
 * raidsim serves.
 */
static int
check_shape (struct raid_array *a, const struct md_trust_set *t,
             struct md_shape *sh)
{
  const struct mdsb *sb0 = &found[t->ref].sb;
  const unsigned n = a->nmembers;
  unsigned i;

  for (i = 0; i < n; ++i) {
    const struct md_member_trust *m = &t->m[i];
    const struct mdsb *sb = &found[i].sb;

    if (m->trust == MD_FOREIGN) {
      nbdkit_error ("member: %s is a member of another array: UUID %s "
                    "(\"%s\"), not %s (\"%s\") as %s", a->members[i].name,
                    uuid_of (sb).s, name_of (sb).s, uuid_of (sb0).s,
                    name_of (sb0).s, a->members[t->ref].name);
      return -1;
    }
    if (m->trust == MD_OTHER_SHAPE) {
      nbdkit_error ("member: %s and %s hold superblocks of one array (UUID "
                    "%s) that disagree on its shape: %s %" PRIu64 " and %"
                    PRIu64, a->members[t->ref].name, a->members[i].name,
                    uuid_of (sb0).s, m->field, m->ref_value, m->value);
      return -1;
    }
  }
  sh->copies = 0;
  switch (sb0->level) {
  case 0: sh->level = RAID_LEVEL_0; break;
  case 1: sh->level = RAID_LEVEL_1; break;
  case 10: sh->level = RAID_LEVEL_10; break;
  default:
    nbdkit_error ("level: the members' md superblocks say %s (level %d), "
                  "which raidsim does not serve (RAID 0, 1 and 10 only)",
                  mdsb_level_name (sb0->level) ? mdsb_level_name (sb0->level)
                  : "an unknown level", (int) sb0->level);
    return -1;
  }
  if (sh->level == RAID_LEVEL_10) {
    sh->copies = MDSB_RAID10_NEAR (sb0->layout);
    if (MDSB_RAID10_FAR (sb0->layout) != 1 ||
        MDSB_RAID10_OFFSET (sb0->layout) || sh->copies < 2 ||
        sh->copies > n) {
      nbdkit_error ("copies: the members' md superblocks give RAID 10 "
                    "layout %#" PRIx32 ", but raidsim serves only near "
                    "copies (md's n2, n3, ...: far 1, not offset)",
                    sb0->layout);
      return -1;
    }
  }
  sh->chunk = (uint64_t) sb0->chunksize * MDSB_SECTOR;
  if (sh->level == RAID_LEVEL_1)
    sh->chunk = RAID_CHUNK_MIN; /* no chunk: the geometry's smallest */
  else if (sh->chunk < RAID_CHUNK_MIN || sh->chunk > RAID_CHUNK_MAX ||
           (sh->chunk & (sh->chunk - 1)) != 0) {
    nbdkit_error ("chunk: the members' md superblocks say %" PRIu32
                  " sectors, which raidsim does not serve (a power of two "
                  "from 4K to 64M)", sb0->chunksize);
    return -1;
  }
  sh->data_offset = sb0->data_offset * MDSB_SECTOR;
  if (sh->data_offset % RAID_CHUNK_MIN != 0) {
    nbdkit_error ("member: the members' md data offset, %" PRIu64
                  " sectors, is not a multiple of 4K, which raidsim needs",
                  sb0->data_offset);
    return -1;
  }
  return 0;
}

/* Steps 2 and 3: as many members as the array has, the keys given, one
 * member to a role, and who is stale (md_trust's verdicts, logged).
 */
static int
check_roles (struct raid_array *a, const struct md_trust_set *t,
             const struct md_shape *sh)
{
  const struct mdsb *sb0 = &found[t->ref].sb, *fsb = &found[t->fresh].sb;
  const unsigned n = a->nmembers;
  unsigned i;
  char w[64];

  /* 3. The members given, and the keys. */
  if (sb0->raid_disks < 1 || sb0->raid_disks > RAID_MAX_MEMBERS) {
    nbdkit_error ("member: the members' md superblocks say the array has "
                  "%" PRIu32 " members; raidsim serves 1 to %d",
                  sb0->raid_disks, RAID_MAX_MEMBERS);
    return -1;
  }
  if (n != sb0->raid_disks) {
    nbdkit_error ("member: the array (UUID %s) has %" PRIu32 " members, "
                  "but %u are given; give missing in place of each absent "
                  "one", uuid_of (sb0).s, sb0->raid_disks, n);
    return -1;
  }
  if (check_keys (sh->level, sb0->chunksize * (uint64_t) MDSB_SECTOR,
                  sh->copies) == -1)
    return -1;

  /* Roles. */
  for (i = 0; i < n; ++i) {
    const struct md_member_trust *m = &t->m[i];

    if (m->trust == MD_NO_ROLE) {
      nbdkit_error ("member: %s has no active role in the array: its "
                    "superblock lists it %s (give a spare as spare=)",
                    a->members[i].name,
                    md_role_words (m->role, w, sizeof w));
      return -1;
    }
    if (m->trust == MD_DUP_ROLE) {
      nbdkit_error ("member: %s and %s both hold role %u of the array "
                    "(the same member twice, or a copy of one)",
                    a->members[m->other].name, a->members[i].name, m->role);
      return -1;
    }
  }

  /* Stale members. */
  for (i = 0; i < n; ++i) {
    const struct md_member_trust *m = &t->m[i];
    const struct mdsb *sb = &found[i].sb;

    switch (m->trust) {
    case MD_STALE_EVENTS:
      nbdkit_error ("member %u (%s) is stale: events %" PRIu64 " < %"
                    PRIu64 "; not trusted: re-added, to be rebuilt", m->role,
                    a->members[i].name, sb->events, fsb->events);
      break;
    case MD_STALE_LISTED:
      nbdkit_error ("member %u (%s) is stale: events %" PRIu64 " < %"
                    PRIu64 ", and the freshest superblock (%s's) lists it "
                    "%s; not trusted: re-added, to be rebuilt", m->role,
                    a->members[i].name, sb->events, fsb->events,
                    a->members[t->fresh].name,
                    md_role_words (m->listed, w, sizeof w));
      break;
    case MD_STALE_ROLE:
      nbdkit_error ("member %u (%s) is stale: the freshest superblock "
                    "(%s's, events %" PRIu64 ") lists it %s; not trusted: "
                    "re-added, to be rebuilt", m->role, a->members[i].name,
                    a->members[t->fresh].name, fsb->events,
                    md_role_words (m->listed, w, sizeof w));
      break;
    case MD_TRUSTED_BEHIND:
      nbdkit_debug ("raid: member %s is one event behind (%" PRIu64
                    " < %" PRIu64 ") and the freshest superblock still "
                    "lists it in its role: an update was cut short; it "
                    "is used, as md uses it", a->members[i].name,
                    sb->events, fsb->events);
      break;
    default:
      break;
    }
  }
  if (sh->level == RAID_LEVEL_0 && t->nlive < n) {
    for (i = 0; i < n && !absent (a, i) && !md_trust_stale (t->m[i].trust);
         ++i)
      ;
    if (blank[i])
      nbdkit_error ("member: a RAID 0 cannot take %s, which holds no md "
                    "metadata, as a new member: it keeps no copies to "
                    "rebuild it from", a->members[i].name);
    else if (absent (a, i))
      nbdkit_error ("member: a RAID 0 cannot start with a member missing: "
                    "it keeps no copies");
    else
      nbdkit_error ("member: a RAID 0 cannot start without %s, which is "
                    "stale: it keeps no copies", a->members[i].name);
    return -1;
  }
  return 0;
}

/* Step 5: members in the places of their roles (missing and blank ones
 * in the roles no member holds: md_trust gave them), and the geometry
 * from the superblocks.  *failed gets the members left out for now.
 */
static int
place_members (struct raid_array *a, const struct md_trust_set *t,
               const struct md_shape *sh, bool *is_new, bool *readd,
               bool *resume, uint32_t *failed)
{
  const struct mdsb *sb0 = &found[t->ref].sb;
  const unsigned n = a->nmembers;
  struct raid_meta *meta = &a->meta;
  struct raid_geom_params p;
  uint64_t sizes[RAID_MAX_MEMBERS];
  struct member *moved;
  unsigned i, r, align = 1;

  moved = malloc (n * sizeof *moved);
  if (moved == NULL) {
    nbdkit_error ("malloc: %m");
    return -1;
  }
  memcpy (moved, a->members, n * sizeof *moved);
  *failed = 0;
  for (r = 0; r < n; ++r) {
    struct member *m = &a->members[r];
    bool stale;

    i = t->holder[r];
    stale = md_trust_stale (t->m[i].trust);
    member_move (m, &moved[i]);
    m->index = r;
    m->load = &a->reads.member[r];
    meta->in_array[r] = !is_missing (m) && !stale && !blank[i];
    if (!absent (a, i))
      meta->sb[r] = found[i].sb;
    /* Left out until the array is known whole without them; then
     * re-added or added (superblock_validate).
     */
    resume[r] = meta->in_array[r] &&
      (found[i].sb.feature_map & MDSB_FEATURE_RECOVERY_OFFSET);
    if (stale || blank[i] || resume[r])
      atomic_store (&m->failed, true);
    if (atomic_load (&m->failed))
      *failed |= UINT32_C (1) << r;
    is_new[r] = blank[i];
    readd[r] = stale;
    if (!is_missing (m) && m->min_block > align)
      align = m->min_block;
    sizes[r] = sh->data_offset + MDSB_SECTOR *
      (sh->level == RAID_LEVEL_0 && !absent (a, i) ? found[i].sb.data_size
       : sb0->size);
  }
  free (moved);
  if (sh->data_offset % align != 0) {
    nbdkit_error ("member: the members' md data offset, %" PRIu64 " bytes, "
                  "is not a multiple of a member's minimum block size %u",
                  sh->data_offset, align);
    return -1;
  }

  p = (struct raid_geom_params) {
    .level = sh->level,
    .chunk = sh->chunk,
    .copies = sh->copies,
    .data_offset = sh->data_offset,
    .nmembers = n,
    .member_size = sizes,
  };
  a->geom = raid_geom_new (&p);
  if (a->geom == NULL) {
    nbdkit_error ("%s", raid_geom_error ());
    return -1;
  }
  return 0;
}

static int
assemble_md (struct raid_array *a)
{
  const unsigned n = a->nmembers;
  struct raid_meta *meta = &a->meta;
  const struct mdsb *sbs[RAID_MAX_MEMBERS];
  struct md_trust_set *t;
  struct md_shape sh;
  const struct mdsb *sb0, *fsb;
  bool is_new[RAID_MAX_MEMBERS], readd[RAID_MAX_MEMBERS]; /* by role */
  bool resume[RAID_MAX_MEMBERS];
  uint32_t failed;
  unsigned i, r;
  int ret = -1;

  /* 1. Each superblock on its own. */
  for (i = 0; i < n; ++i) {
    sbs[i] = NULL;
    if (absent (a, i))
      continue;
    if (!found[i].valid) {
      nbdkit_error ("member: %s: its md v1.2 superblock cannot be used: %s",
                    a->members[i].name, found[i].why);
      return -1;
    }
    if (check_features (&a->members[i], &found[i].sb) == -1)
      return -1;
    sbs[i] = &found[i].sb;
  }
  /* Whom to trust (raidsim/core/mdrules.c): a few KiB, not on the
   * stack of nbdkit's thread.
   */
  t = malloc (sizeof *t);
  if (t == NULL) {
    nbdkit_error ("malloc: %m");
    return -1;
  }
  md_trust (sbs, n, t);
  if (t->ref == n) {
    nbdkit_error ("member: every member is missing");
    goto out;
  }
  sb0 = &found[t->ref].sb;
  fsb = &found[t->fresh].sb;
  if (check_shape (a, t, &sh) == -1 || check_roles (a, t, &sh) == -1 ||
      place_members (a, t, &sh, is_new, readd, resume, &failed) == -1)
    goto out;

  /* md needs a layout only for a RAID 0 with more than one zone; then it
   * must be the alternate one, which is raidsim's geometry.
   */
  if (sh.level == RAID_LEVEL_0 && raid_geom_nzones (a->geom) > 1 &&
      (!(sb0->feature_map & MDSB_FEATURE_RAID0_LAYOUT) ||
       sb0->layout != MDSB_RAID0_LAYOUT_ALTERNATE)) {
    nbdkit_error ("member: the array is a RAID 0 of members of different "
                  "sizes in md's %s layout (layout %" PRIu32 "); raidsim "
                  "serves md's alternate layout only",
                  sb0->feature_map & MDSB_FEATURE_RAID0_LAYOUT
                  ? "original" : "unspecified", sb0->layout);
    goto drop;
  }

  /* 4. Every chunk keeps a live copy. */
  if (!md_whole (a, failed)) {
    nbdkit_error ("member: the array cannot start: with the members that "
                  "are missing, stale, new or being rebuilt left out, "
                  "some of its chunks have no live copy");
    goto drop;
  }
  meta->on = true;
  meta->max_dev = fsb->max_dev;
  meta->resync_offset = fsb->resync_offset;
  meta->events = fsb->events;
  pthread_mutex_init (&meta->lock, NULL);
  atomic_store (&meta->recorded, failed);
  meta->started = false;

  /* Members to rebuild (sync/rebuild.h): stale ones re-added, blank
   * ones added with superblocks of their own, and those whose superblock
   * records a recovery in progress.
   */
  superblock_slots_from (a, fsb);
  for (i = 0; i < n; ++i)
    if (!absent (a, i))
      superblock_slots_from (a, &found[i].sb);
  for (r = 0; r < n; ++r) {
    if (is_new[r]) {
      if (superblock_new (a, fsb, &a->members[r], r, &meta->sb[r]) == -1)
        goto drop;
      superblock_validate (a, r, SB_REBUILD_NEW);
    }
    else if (readd[r])
      superblock_validate (a, r, SB_REBUILD_READD);
    else if (resume[r])
      superblock_validate (a, r, SB_REBUILD_RESUME);
  }

  keys->level = sh.level;
  keys->chunk = sh.chunk;
  keys->copies = sh.level == RAID_LEVEL_10 ? sh.copies
    : keys->copies;

  for (r = 0; r < n; ++r)
    if (is_missing (&a->members[r]))
      nbdkit_error ("member %u is missing; the array starts degraded, "
                    "%u of %u members live", r, t->nlive, n);
  nbdkit_debug ("raid: assembled md array %s (\"%s\") from md v1.2 "
                "superblocks: events %" PRIu64 ", %u of %u members live",
                uuid_of (sb0).s, name_of (sb0).s, meta->events, t->nlive, n);
  ret = 0;
  goto out;

 drop:
  raid_geom_free (a->geom);
  a->geom = NULL;
 out:
  free (t);
  return ret;
}

/* The array, then its bitmap, then whether re-added members are
 * rebuilt from it (sync/rebuild.h).
 */
static int
assemble_bitmap (struct raid_array *a)
{
  if (assemble_md (a) == -1 || bitmap_assemble (a) == -1)
    return -1;
  superblock_validate_bitmap (a);
  return 0;
}

int
assemble (struct raid_array *a, struct raid_settings *settings,
          enum raid_metadata metadata_kind_)
{
  unsigned i, nv12 = 0, npresent = 0, first_v12 = 0, first_none = 0;
  const struct member *m;

  keys = settings;
  metadata_kind = metadata_kind_;
  for (i = 0; i < a->nmembers; ++i) {
    m = &a->members[i];
    if (is_missing (m))
      continue;
    npresent++;
    if (superblock_read (&a->members[i], &found[i]) == -1)
      return -1;
    switch (found[i].kind) {
    case MD_V1_2:
      if (nv12++ == 0)
        first_v12 = i;
      break;
    case MD_OTHER:
      if (metadata_kind == METADATA_NONE)
        nbdkit_error ("member: %s holds md metadata (version %s), which "
                      "metadata=none would write array data over",
                      m->name, found[i].version);
      else
        nbdkit_error ("member: %s holds md metadata version %s, which "
                      "raidsim does not serve (only 1.2); refusing to "
                      "write over it", m->name, found[i].version);
      return -1;
    case MD_NONE:
      if (npresent - nv12 == 1)
        first_none = i;
      break;
    }
  }

  /* Members without any metadata beside md members: new members in the
   * places of missing ones (sync/rebuild.h), if nothing is on them.
   */
  for (i = 0; i < a->nmembers; ++i) {
    blank[i] = false;
    if (is_missing (&a->members[i]) || found[i].kind != MD_NONE ||
        metadata_kind == METADATA_NONE || nv12 == 0)
      continue;
    if (member_check_blank (&a->members[i], "member", true,
                            a->conf.force) == -1)
      return -1;
    blank[i] = true;
  }

  switch (metadata_kind) {
  case METADATA_NONE:
    if (nv12 > 0) {
      m = &a->members[first_v12];
      nbdkit_error ("member: %s holds an md v1.2 superblock (array %s, "
                    "\"%s\"), which metadata=none would write array data "
                    "over; leave metadata= out to assemble the array from "
                    "it", m->name, found[first_v12].valid
                    ? uuid_of (&found[first_v12].sb).s : "unreadable",
                    found[first_v12].valid
                    ? name_of (&found[first_v12].sb).s : "");
      return -1;
    }
    return assemble_none (a);
  case METADATA_1_2:
    if (nv12 == 0) {
      nbdkit_error ("member: %s holds no md v1.2 superblock "
                    "(metadata=1.2)", a->members[first_none].name);
      return -1;
    }
    return assemble_bitmap (a);
  case METADATA_AUTO:
  default:
    if (nv12 == 0 && npresent > 0)
      return assemble_none (a);
    (void) first_none;
    return assemble_bitmap (a);
  }
}
