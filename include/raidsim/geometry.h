/* raidsim: the one RAID geometry, shared by the nbdkit plugin and the
 * simulator.  See raidsim/core/geometry.c for a description of the layouts.
 *
 * A geometry is built once from the level, chunk size, copy count, data
 * offset and the raw member sizes, and is then read-only: every function
 * taking a const struct raid_geom * is pure and safe to call from any
 * number of threads at once.
 */
#ifndef RAIDSIM_GEOMETRY_H
#define RAIDSIM_GEOMETRY_H

#include <stdint.h>
#include <stddef.h>

/* md refuses arrays wider than this for RAID 0 zones in one superblock
 * format; we pick a limit that keeps struct raid_piece small enough to
 * live on the stack of an nbdkit worker thread.
 */
#define RAID_MAX_MEMBERS 32

#define RAID_CHUNK_MIN     (UINT64_C (4) << 10)   /* 4 KiB */
#define RAID_CHUNK_MAX     (UINT64_C (64) << 20)  /* 64 MiB */
#define RAID_CHUNK_DEFAULT (UINT64_C (128) << 10) /* 128 KiB, VROC's default */
#define RAID10_COPIES_DEFAULT 2

/* The levels, each once: enum value, number, name and md's alias.  The
 * plugin's level=, raidsim map and the simulator's array files all take
 * these spellings (raid_parse_level, and the tables that expand this).
 */
#define RAID_LEVELS(X)                          \
  X (RAID_LEVEL_0, 0, "0", "raid0")             \
  X (RAID_LEVEL_1, 1, "1", "raid1")             \
  X (RAID_LEVEL_10, 10, "10", "raid10")

enum raid_level {
#define RAID_LEVEL_ENUM(id, n, name, alias) id = n,
  RAID_LEVELS (RAID_LEVEL_ENUM)
#undef RAID_LEVEL_ENUM
};

struct raid_geom_params {
  enum raid_level level;
  uint64_t chunk;              /* bytes; power of two, 4K .. 64M */
  unsigned copies;             /* RAID 10 near copies; 0 means the default.
                                * Ignored for RAID 0; RAID 1 has one copy
                                * per member. */
  uint64_t data_offset;        /* bytes reserved at the start of every
                                * member before array data begins */
  unsigned nmembers;
  const uint64_t *member_size; /* raw size in bytes of each member */
};

/* One copy of a piece: where on which member its bytes live.  The member
 * offset is absolute on the member, data_offset already added.
 */
struct raid_copy {
  unsigned member;
  uint64_t offset;
};

/* A piece is the largest run of array bytes starting at a given offset
 * that every copy holds contiguously: it never crosses a chunk boundary
 * on RAID 0 and RAID 10, and on RAID 1 it runs to the end of the request.
 * copy[] is in layout order: copy[0] is md's first copy.
 */
struct raid_piece {
  uint64_t offset;             /* array offset of the first byte */
  uint64_t length;
  unsigned ncopies;
  struct raid_copy copy[RAID_MAX_MEMBERS];
};

struct raid_geom;

/* Build a geometry.  Returns NULL on invalid parameters; the reason, which
 * starts with the name of the offending parameter (level, chunk, copies,
 * member, data-offset), is returned by raid_geom_error ().
 */
extern struct raid_geom *raid_geom_new (const struct raid_geom_params *p);
extern void raid_geom_free (struct raid_geom *g);

/* The last error from raid_geom_new or raid_parse_* in this thread. */
extern const char *raid_geom_error (void);

extern enum raid_level raid_geom_level (const struct raid_geom *g);
extern uint64_t raid_geom_chunk (const struct raid_geom *g);
extern unsigned raid_geom_nmembers (const struct raid_geom *g);
/* Copies of every byte: 1 for RAID 0, nmembers for RAID 1, near copies
 * for RAID 10.
 */
extern unsigned raid_geom_copies (const struct raid_geom *g);
extern uint64_t raid_geom_data_offset (const struct raid_geom *g);
/* Usable array size in bytes. */
extern uint64_t raid_geom_size (const struct raid_geom *g);
/* Bytes of member i that hold array data, counted from data_offset. */
extern uint64_t raid_geom_member_used (const struct raid_geom *g, unsigned i);
/* RAID 0 zones (1 for other levels). */
extern unsigned raid_geom_nzones (const struct raid_geom *g);

/* Map the first piece of the array range [offset, offset+len).  len must
 * be > 0 and the range must lie inside the array.  Returns 0 and fills *p,
 * with p->length <= len, or -1 if the range is out of bounds.  Callers
 * loop, advancing by p->length, until the request is covered; see
 * raid_geom_foreach.
 */
extern int raid_geom_map (const struct raid_geom *g,
                          uint64_t offset, uint64_t len,
                          struct raid_piece *p);

/* Call f for every piece of [offset, offset+len) in array order.  Stops
 * and returns f's value at the first non-zero return; returns -1 if the
 * range is out of bounds (without calling f), else 0.
 */
typedef int (*raid_piece_fn) (const struct raid_piece *p, void *opaque);
extern int raid_geom_foreach (const struct raid_geom *g,
                              uint64_t offset, uint64_t len,
                              raid_piece_fn f, void *opaque);

/* Member runs: what a request costs each member.
 *
 * A request's pieces, each with the copy it will use (a read takes one,
 * a write every live one), are the segments below.  Segments that go to
 * the same member at contiguous member offsets, in array order, are one
 * member I/O: a run.  Linux's block layer merges md's per-chunk bios the
 * same way, so a 1 MiB read of a 2-member RAID 0 with 128K chunks costs
 * each member one 512K I/O, not four of 128K.  The plugin issues one
 * member I/O per run (scatter-gather over the client's buffer) and the
 * simulator, with merge_pieces, sends one command per run.
 */
struct raid_seg {
  uint64_t offset;             /* array offset of the first byte */
  uint64_t length;
  unsigned member;
  uint64_t member_offset;      /* absolute, as in struct raid_copy */
};

struct raid_run {
  unsigned member;
  uint64_t offset;             /* member offset of the first byte */
  uint64_t length;             /* the sum of its segments' lengths */
  size_t first;                /* its first segment (an index into seg[]) */
  size_t nsegs;
};

/* The most segments one run may carry: IOV_MAX, so that a run is one
 * preadv/pwritev however small the chunks.  The simulator uses the same
 * limit so that it sends the commands the plugin issues.
 */
#define RAID_RUN_MAX_SEGS 1024

#define RAID_SEG_END ((size_t) -1)

/* Group seg[0..n) into runs.  A segment joins the latest run of its
 * member if it starts exactly where that run ends and the run has fewer
 * than max_segs segments (max_segs >= 1; 1 makes one run per segment);
 * otherwise it starts a new run.  runs[] receives the runs, in the order
 * of their first segments, and needs room for n; next[i] is the segment
 * after seg[i] in its run, or RAID_SEG_END, so a run's segments are
 * run.first, next[run.first], ... in array order and at increasing
 * member offsets.  Returns the number of runs.  Pure; needs no geometry.
 */
extern size_t raid_geom_runs (const struct raid_seg *seg, size_t n,
                              unsigned max_segs, struct raid_run *runs,
                              size_t *next);

/* Parsing helpers shared by the plugin and the simulator so that both
 * accept the same spellings.  Each returns 0 or -1 with raid_geom_error ()
 * set to a message naming the value.
 */
extern int raid_parse_level (const char *s, enum raid_level *level);
/* Sizes: a number with an optional K, M, G, T suffix (powers of 1024),
 * optionally followed by "B" or "iB".
 */
extern int raid_parse_size (const char *s, uint64_t *bytes);
extern const char *raid_level_name (enum raid_level level);

#endif /* RAIDSIM_GEOMETRY_H */
