/* raidsim: md's rules for an array's members, as pure functions of the
 * geometry, the superblocks and the bitmap, with no I/O and no locks
 * (raidsim/core/mdrules.c).  The plugin decides with them at assembly,
 * when a member fails, when one is added back and while one is rebuilt;
 * the simulator's failed= and rebuild= keys are checked with the same
 * md_enough; raidsim examine --assembly shows what they make of a set
 * of members.  Tested with superblock sets made by hand
 * (tests/unit/test-mdrules.c).
 *
 *   enough       md's enough () (raid10.c) and raid1's last in-sync
 *                disk: whether every chunk keeps a copy with a set of
 *                members out;
 *   trust        whom assembly trusts from a set of superblocks
 *                (mdadm --assemble and super_1_validate): trusted,
 *                stale, foreign, of another shape, without a role;
 *   re-add       whether a member that left may come back from the
 *                write-intent bitmap, and what such a re-add rebuilds
 *                (the chunks whose bits are set) and may skip;
 *   recovery     md's recovery_offset, the member offset a rebuild has
 *                reached, and back to the array offset a restart goes
 *                on from.
 */
#ifndef RAIDSIM_MDRULES_H
#define RAIDSIM_MDRULES_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/geometry.h"
#include "raidsim/mdsb.h"

/* ---- enough ------------------------------------------------------- */

/* The first chunk (its index: array offset / chunk; 0 on RAID 1) none of
 * whose copies is on a member outside the bitmask out, with its piece in
 * *p if p is not NULL; -1 if every chunk keeps one.  The near layout
 * repeats every nmembers chunks, so the first nmembers chunks (the
 * first on RAID 1) stand for them all.
 */
extern int64_t md_first_lost (const struct raid_geom *g, uint32_t out,
                              struct raid_piece *p);

/* md's enough (): every chunk keeps a copy outside out.  A RAID 0 keeps
 * none with any member out.
 */
extern bool md_enough (const struct raid_geom *g, uint32_t out);

/* The most copies outside out that any chunk keeps: 2 or more when
 * there is something to resync or compare.
 */
extern unsigned md_most_copies (const struct raid_geom *g, uint32_t out);

/* ---- trust ----------------------------------------------------------- */

/* What assembly makes of a member, from its superblock against the
 * others'.  The verdicts from MD_FOREIGN on refuse the whole array.
 */
enum md_trust {
  MD_ABSENT,            /* no superblock to go by: missing, or blank */
  MD_TRUSTED,           /* the freshest's events and role */
  MD_TRUSTED_BEHIND,    /* one event behind, still listed in its role:
                         * an update a crash cut short, which md uses */
  MD_STALE_EVENTS,      /* more than one event behind */
  MD_STALE_LISTED,      /* behind, and the freshest lists it otherwise
                         * (faulty, or out of the array) */
  MD_STALE_ROLE,        /* as many events, but the freshest lists it
                         * otherwise */
  MD_FOREIGN,           /* another array's (set UUID) */
  MD_OTHER_SHAPE,       /* this array's UUID, another shape */
  MD_NO_ROLE,           /* a spare, faulty or journal: no active role */
  MD_DUP_ROLE,          /* a role another member given holds too */
};

/* Whether a verdict leaves the member out, to be rebuilt. */
static inline bool
md_trust_stale (enum md_trust t)
{
  return t == MD_STALE_EVENTS || t == MD_STALE_LISTED || t == MD_STALE_ROLE;
}

struct md_member_trust {
  enum md_trust trust;
  unsigned role;        /* its superblock's role; for an absent member,
                         * the role it takes: the first no member holds */
  unsigned listed;      /* what the freshest role table says of its
                         * dev_number: a role, or MDSB_ROLE_FAULTY or
                         * MDSB_ROLE_SPARE (out of the table too) */
  unsigned other;       /* MD_DUP_ROLE: the member that holds the role */
  const char *field;    /* MD_OTHER_SHAPE: the first field that differs */
  uint64_t value, ref_value;    /* ... its value, and ref's */
};

struct md_trust_set {
  unsigned n;
  unsigned ref;         /* the first member with a superblock; n if none */
  unsigned fresh;       /* the freshest: the most events, the first given
                         * of those with as many (ref if none is) */
  unsigned nlive;       /* members trusted */
  int holder[RAID_MAX_MEMBERS];         /* by role: the member, or -1 */
  struct md_member_trust m[RAID_MAX_MEMBERS];
};

/* Judge the members of one array, given in any order: sb[i] is member
 * i's superblock (decoded and checked: mdsb_decode, mdsb_check_member),
 * or NULL if it has none to go by.  As mdadm --assemble and the kernel:
 *
 *   1. ref is the first member with a superblock; every other must have
 *      its set UUID (MD_FOREIGN) and shape: level, layout, chunk, member
 *      count, size (above RAID 0), data offset and the feature map but
 *      for the recovery bits (MD_OTHER_SHAPE);
 *   2. each takes the role its own superblock gives it (MD_NO_ROLE if
 *      none below n; MD_DUP_ROLE for the second of two with one role);
 *   3. the freshest is the one with the most events; a member is stale
 *      if it is more than one event behind, or if the freshest's role
 *      table does not give it its role (md accepts one event behind
 *      when the freshest still lists it: MD_TRUSTED_BEHIND);
 *   4. absent members take the roles no member holds, in order.
 *
 * n is at most RAID_MAX_MEMBERS.  Fills *t; never fails (the verdicts
 * say what is wrong).
 */
extern void md_trust (const struct mdsb *const *sb, unsigned n,
                      struct md_trust_set *t);

/* The first verdict of t, in member order, that refuses the array, or
 * -1: for callers that report one error.
 */
extern int md_trust_refused (const struct md_trust_set *t);

/* The first md feature in sb's feature map that raidsim does not keep
 * up to date (a reshape, recorded bad blocks, a journal ...), in words;
 * NULL if none.  The bitmap and a recovery in progress, by offset or
 * from the bitmap, are kept.
 */
extern const char *md_unkept_feature (const struct mdsb *sb);

/* What a role table entry says of a member, in words: "faulty", "out of
 * the array", "a journal" or "as role N".  buf needs 24 bytes.
 */
extern const char *md_role_words (unsigned role, char *buf, size_t n);

/* ---- re-add ------------------------------------------------------ */

/* The array's write-intent bitmap as a re-add sees it. */
struct md_bitmap_view {
  bool on;              /* the array has one */
  bool stale;           /* its events are behind the superblocks', or its
                         * header says stale: bits may be missing */
  uint64_t events_cleared;
};

/* md's super_1_validate with a bitmap: a member whose superblock has
 * events may come back by rebuilding only the chunks whose bits are set
 * if every write it missed is still marked: the bitmap is there and not
 * stale, and events is not older than events_cleared (bits are cleared
 * only while the array is whole).  *why says which, in words.
 */
extern bool md_readd_ok (const struct md_bitmap_view *b, uint64_t events,
                         const char **why);

/* An add while the array runs (mdadm --re-add), of a member whose
 * superblock is sb and is this array's (md_trust's MD_FOREIGN refused
 * already).  Which it becomes:
 */
enum md_readd {
  MD_READD,             /* its role back, rebuilt from the bitmap */
  MD_READD_WAS_SPARE,   /* it had no role below n: a spare */
  MD_READD_ROLE_LIVE,   /* its role is held by a live member: a spare */
  MD_READD_AHEAD,       /* events ahead of the array's: a spare,
                         * rebuilt in full */
  MD_READD_NO_BITMAP,   /* md_readd_ok says no (why): a spare, rebuilt
                         * in full (md's hot-add) */
  MD_READD_DEV_TAKEN,   /* its dev_number is another member's now */
};

/* The members now: n, the roles that are failed or empty (failed, bit
 * r), the array's events, each role's superblock (in_array[r] false:
 * no member in the array holds role r), and the bitmap.  *role gets
 * the member's role, *why md_readd_ok's words, *other (MD_READD_DEV_TAKEN)
 * the member whose dev_number it is.
 */
struct md_array_view {
  unsigned n;
  uint32_t failed;
  uint64_t events;
  const struct mdsb *sb;        /* [n] */
  const bool *in_array;         /* [n] */
  struct md_bitmap_view bitmap;
};
extern enum md_readd md_readd (const struct md_array_view *a,
                               const struct mdsb *sb, unsigned *role,
                               const char **why, unsigned *other);

/* What a re-add from the bitmap rebuilds: the chunks whose bit is set,
 * bits[] holding nbits bits of chunk array bytes each; what it may skip
 * is the rest.  md_readd_next: the first array offset at or after pos
 * in a chunk whose bit is set, or size if none before size.
 * md_readd_bytes: the bytes of [pos, size) in such chunks.
 * md_readd_needs: whether [offset, offset + len) touches one (false for
 * len 0).
 */
extern uint64_t md_readd_next (const uint8_t *bits, uint64_t nbits,
                               uint64_t chunk, uint64_t pos, uint64_t size);
extern uint64_t md_readd_bytes (const uint8_t *bits, uint64_t nbits,
                                uint64_t chunk, uint64_t pos, uint64_t size);
extern bool md_readd_needs (const uint8_t *bits, uint64_t nbits,
                            uint64_t chunk, uint64_t offset, uint64_t len);

/* ---- recovery offsets ------------------------------------------------ */

/* The member offset (bytes from data_offset) below which member holds
 * nothing of the array at or above array offset pos: what a rebuild
 * that has reached pos records as md's recovery_offset.  Every layout
 * served with copies (RAID 1, RAID 10 near) keeps a member's pieces in
 * array order, so this is the offset of its first piece at or after
 * pos, or the member's used bytes if none.
 */
extern uint64_t md_recovery_offset (const struct raid_geom *g,
                                    unsigned member, uint64_t pos);

/* Where a rebuild recorded as member offset moff goes on: the largest
 * multiple of region (capped at the array's size) below which every
 * piece on member lies below moff.
 */
extern uint64_t md_recovery_resume (const struct raid_geom *g,
                                    unsigned member, uint64_t moff,
                                    uint64_t region);

#endif /* RAIDSIM_MDRULES_H */
