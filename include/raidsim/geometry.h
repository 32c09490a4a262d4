/* raidsim: the one RAID geometry, shared by the nbdkit plugin and the
 * simulator.  See raidsim/geometry.c for a description of the layouts.
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

enum raid_level {
  RAID_LEVEL_0 = 0,
  RAID_LEVEL_1 = 1,
  RAID_LEVEL_10 = 10,
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
