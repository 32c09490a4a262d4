/* nbdkit-raid-plugin: software RAID 0, 1 and 10 over files, block devices
 * and NBD exports.
 *
 * The request path is short on purpose:
 *
 *   raid_pread / raid_pwrite / raid_trim / raid_zero / raid_flush
 *     -> on arrays with copies, a write, zero or trim holds its array
 *        range (rangelock.h) until its last member I/O is done, so that
 *        overlapping writes take turns and every copy ends the same
 *     -> plan_build: raid_geom_foreach (raidsim/core/geometry.c) cuts the
 *        request into pieces, each with the list of copies that hold it
 *     -> do_read picks one copy of every piece by the read policy,
 *        do_write takes every live copy; raid_geom_runs then groups the
 *        pieces that are contiguous on one member into runs, as Linux's
 *        block layer merges md's bios, and each run is one member_io
 *        (scattered over the client's buffer by an iovec); all are
 *        submitted at once, so a request over k members has k member
 *        I/Os in flight together
 *     -> member_submit_all (member.c) hands them to the members'
 *        backends (member-file.c, member-nbd.c), doing the last one in
 *        this thread where it can, and then any other that no backend
 *        thread has started yet; batch_wait sleeps until the last one
 *        is done
 *     -> failed member I/Os are retried on another copy (reads) or fail
 *        their member (writes), by the rules in the man page
 *
 * The array offset (what the client asked for) and the member offset
 * (where the bytes live) are kept in differently named variables all the
 * way down: nbdkit 1.32's split plugin wrote members at the array offset,
 * and we do not want that bug to be one typo away.
 *
 * Run: nbdkit raid level=0 chunk=128K a.img b.img
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/geometry.h"
#include "member.h"
#include "member-file.h"
#include "rangelock.h"
#include "stats-json.h"

/* -D raid.io=1 logs every member I/O: which member, member offset and
 * length, so a user can watch a request fan out.
 */
NBDKIT_DLL_PUBLIC int raid_debug_io = 0;

/* Read policies for RAID 1 and RAID 10.  See choose_copy. */
enum read_policy {
  POLICY_ROUND_ROBIN,
  POLICY_LEAST_PENDING,
  POLICY_SEQUENTIAL,
  POLICY_FIRST,
};

static const char *const policy_names[] = {
  [POLICY_ROUND_ROBIN] = "round-robin",
  [POLICY_LEAST_PENDING] = "least-pending",
  [POLICY_SEQUENTIAL] = "sequential",
  [POLICY_FIRST] = "first",
};

static const char *const io_names[] = {
  [FILE_IO_AUTO] = "auto",
  [FILE_IO_URING] = "uring",
  [FILE_IO_THREADS] = "threads",
};

#define MAX_INFLIGHT_DEFAULT 64
#define MAX_INFLIGHT_MAX 4096

static struct member members[RAID_MAX_MEMBERS];
static unsigned nmembers;
static struct raid_geom *geom;
static atomic_uint rr_counter;
static struct io_stats array_stats;
/* Held by every write while it is in flight, on arrays with copies. */
static struct range_lock write_ranges;

/* Configuration, as given; validated in raid_config_complete. */
static struct {
  bool level_set, chunk_set, copies_set, policy_set, io_set, inflight_set,
    stats_set;
  enum raid_level level;
  uint64_t chunk;
  unsigned copies;
  enum read_policy policy;
  unsigned max_inflight;
  char *stats_path;
} cfg = {
  .chunk = RAID_CHUNK_DEFAULT,
  .policy = POLICY_LEAST_PENDING,
  .max_inflight = MAX_INFLIGHT_DEFAULT,
};

/* Every parameter is described once, here.  The table drives parsing
 * (raid_config), --help (PARAM_HELP) and, through
 * tests/integration/test-pod-params.sh, is checked against the man page.
 */
struct param {
  const char *key;
  bool *seen;                   /* NULL for repeatable keys */
  int (*parse) (const char *key, const char *value);
};

static int parse_level (const char *, const char *);
static int parse_chunk (const char *, const char *);
static int parse_copies (const char *, const char *);
static int parse_policy (const char *, const char *);
static int parse_io (const char *, const char *);
static int parse_inflight (const char *, const char *);
static int parse_stats (const char *, const char *);
static int parse_member (const char *, const char *);

#define PARAM_HELP \
  "level=0|1|10           (required) RAID level.\n" \
  "chunk=SIZE             Chunk (stripe unit), power of two from 4K to 64M;\n" \
  "                       default 128K.\n" \
  "copies=N               RAID 10 near copies, 2 to the member count;\n" \
  "                       default 2.\n" \
  "read-policy=POLICY     RAID 1/10 read choice: round-robin,\n" \
  "                       least-pending (default), sequential, first.\n" \
  "io=auto|uring|threads  How file and device members do I/O; default\n" \
  "                       auto (io_uring where the kernel allows).\n" \
  "max-inflight=N         Member I/Os in flight per member, 1 to 4096;\n" \
  "                       default 64.\n" \
  "stats=PATH             Write statistics as JSON to PATH at exit and\n" \
  "                       on SIGUSR1.\n" \
  "[member=]FILE|DEVICE|URI  A member, in layout order; give 2 or more.\n" \
  "                       URI is an NBD URI (nbd://, nbd+unix://)."

static const struct param params[] = {
  { "level", &cfg.level_set, parse_level },
  { "chunk", &cfg.chunk_set, parse_chunk },
  { "copies", &cfg.copies_set, parse_copies },
  { "read-policy", &cfg.policy_set, parse_policy },
  { "io", &cfg.io_set, parse_io },
  { "max-inflight", &cfg.inflight_set, parse_inflight },
  { "stats", &cfg.stats_set, parse_stats },
  { "member", NULL, parse_member },
};

static int
parse_level (const char *key, const char *value)
{
  if (raid_parse_level (value, &cfg.level) == -1) {
    nbdkit_error ("%s", raid_geom_error ());
    return -1;
  }
  return 0;
}

static int
parse_chunk (const char *key, const char *value)
{
  if (raid_parse_size (value, &cfg.chunk) == -1) {
    nbdkit_error ("chunk: %s", raid_geom_error ());
    return -1;
  }
  if (cfg.chunk < RAID_CHUNK_MIN || cfg.chunk > RAID_CHUNK_MAX ||
      (cfg.chunk & (cfg.chunk - 1)) != 0) {
    nbdkit_error ("chunk: '%s' is not a power of two from 4K to 64M", value);
    return -1;
  }
  return 0;
}

static int
parse_uint (const char *key, const char *value, unsigned min, unsigned max,
            unsigned *out)
{
  char *end;
  unsigned long v;

  errno = 0;
  v = strtoul (value, &end, 10);
  if (errno || end == value || *end || value[0] == '-' ||
      v < min || v > max) {
    nbdkit_error ("%s: '%s' is not a whole number from %u to %u",
                  key, value, min, max);
    return -1;
  }
  *out = v;
  return 0;
}

static int
parse_copies (const char *key, const char *value)
{
  return parse_uint (key, value, 2, RAID_MAX_MEMBERS, &cfg.copies);
}

static int
parse_inflight (const char *key, const char *value)
{
  return parse_uint (key, value, 1, MAX_INFLIGHT_MAX, &cfg.max_inflight);
}

static int
parse_policy (const char *key, const char *value)
{
  size_t i;

  for (i = 0; i < sizeof policy_names / sizeof policy_names[0]; ++i)
    if (strcmp (value, policy_names[i]) == 0) {
      cfg.policy = i;
      return 0;
    }
  nbdkit_error ("read-policy: '%s' is not one of round-robin, "
                "least-pending, sequential, first", value);
  return -1;
}

static int
parse_io (const char *key, const char *value)
{
  size_t i;

  for (i = 0; i < sizeof io_names / sizeof io_names[0]; ++i)
    if (strcmp (value, io_names[i]) == 0) {
      file_io_mode = i;
      return 0;
    }
  nbdkit_error ("io: '%s' is not one of auto, uring, threads", value);
  return -1;
}

static int
parse_stats (const char *key, const char *value)
{
  /* Made absolute now: nbdkit changes directory when it daemonizes. */
  cfg.stats_path = nbdkit_absolute_path (value);
  return cfg.stats_path ? 0 : -1;
}

static int
parse_member (const char *key, const char *value)
{
  struct member *m;

  if (nmembers == RAID_MAX_MEMBERS) {
    nbdkit_error ("member: at most %d members are supported",
                  RAID_MAX_MEMBERS);
    return -1;
  }
  if (value[0] == '\0') {
    nbdkit_error ("member: empty file name");
    return -1;
  }
  m = &members[nmembers];
  m->index = nmembers;
  m->name = strdup (value);
  if (m->name == NULL) {
    nbdkit_error ("strdup: %m");
    return -1;
  }
  nmembers++;
  return 0;
}

static int
raid_config (const char *key, const char *value)
{
  size_t i;

  for (i = 0; i < sizeof params / sizeof params[0]; ++i) {
    if (strcmp (key, params[i].key) != 0)
      continue;
    if (params[i].seen) {
      if (*params[i].seen) {
        nbdkit_error ("%s: given more than once", key);
        return -1;
      }
      *params[i].seen = true;
    }
    return params[i].parse (key, value);
  }
  nbdkit_error ("%s: unknown parameter (see nbdkit raid --help)", key);
  return -1;
}

/* The same file, device or export given twice would be written twice
 * over itself: refuse it however it is spelled.
 */
static int
check_duplicates (void)
{
  unsigned i, j;

  for (i = 0; i < nmembers; ++i)
    for (j = 0; j < i; ++j)
      if (strcmp (members[i].identity, members[j].identity) == 0) {
        nbdkit_error ("member: %s and %s are the same %s",
                      members[j].name, members[i].name,
                      members[i].ops == &nbd_ops ? "export" :
                      strncmp (members[i].identity, "block:", 6) == 0
                      ? "device" : "file");
        return -1;
      }
  return 0;
}

/* The array's minimum block size: the largest of its members' (all
 * powers of two, so every member's divides it).  1 for files.
 */
static uint32_t align = 1;

/* Every member I/O stays aligned if the chunk and the array's size are
 * multiples of every member's minimum block size; check both before
 * anything is served.
 */
static int
check_alignment (void)
{
  unsigned i, big = 0;

  for (i = 0; i < nmembers; ++i)
    if (members[i].min_block > align) {
      align = members[i].min_block;
      big = i;
    }
  if (align == 1)
    return 0;
  if (cfg.level != RAID_LEVEL_1 && cfg.chunk % align != 0) {
    nbdkit_error ("chunk: %" PRIu64 " is not a multiple of %" PRIu32
                  ", the minimum block size of member %s",
                  cfg.chunk, align, members[big].name);
    return -1;
  }
  if (raid_geom_size (geom) % align != 0) {
    nbdkit_error ("member: %s: the array's size %" PRIu64 " is not a "
                  "multiple of this member's minimum block size %" PRIu32,
                  members[big].name, raid_geom_size (geom), align);
    return -1;
  }
  return 0;
}

static int
raid_config_complete (void)
{
  struct raid_geom_params p;
  uint64_t sizes[RAID_MAX_MEMBERS];
  unsigned i;

  if (!cfg.level_set) {
    nbdkit_error ("level: required (level=0, level=1 or level=10)");
    return -1;
  }
  if (cfg.copies_set && cfg.level != RAID_LEVEL_10) {
    nbdkit_error ("copies: only RAID 10 has a copy count");
    return -1;
  }
  if (nmembers < 2) {
    nbdkit_error ("member: RAID %s needs at least 2 members, got %u",
                  raid_level_name (cfg.level), nmembers);
    return -1;
  }
  if (cfg.level == RAID_LEVEL_10 && cfg.copies > nmembers) {
    nbdkit_error ("copies: %u copies need at least %u members, got %u",
                  cfg.copies, cfg.copies, nmembers);
    return -1;
  }

  for (i = 0; i < nmembers; ++i) {
    members[i].max_inflight = cfg.max_inflight;
    if (member_open (&members[i]) == -1)
      return -1;
  }
  if (check_duplicates () == -1)
    return -1;

  /* A RAID 1 has no chunks, but a mirror smaller than the smallest
   * chunk is certainly a mistake; the chunk default makes this 128K.
   */
  for (i = 0; i < nmembers; ++i) {
    if (members[i].size < cfg.chunk) {
      nbdkit_error ("member: %s: %" PRIu64 " bytes is smaller than one "
                    "chunk (%" PRIu64 ")", members[i].name,
                    members[i].size, cfg.chunk);
      return -1;
    }
    sizes[i] = members[i].size;
  }

  p = (struct raid_geom_params) {
    .level = cfg.level,
    .chunk = cfg.chunk,
    .copies = cfg.copies,
    .data_offset = 0,
    .nmembers = nmembers,
    .member_size = sizes,
  };
  geom = raid_geom_new (&p);
  if (geom == NULL) {
    nbdkit_error ("%s", raid_geom_error ());
    return -1;
  }
  if (check_alignment () == -1)
    return -1;
  stats_init (&array_stats);
  range_lock_init (&write_ranges);
  nbdkit_debug ("raid: level %s, %u members, chunk %" PRIu64
                ", %u copies, size %" PRIu64 ", %u zones, read-policy %s",
                raid_level_name (cfg.level), nmembers, cfg.chunk,
                raid_geom_copies (geom), raid_geom_size (geom),
                raid_geom_nzones (geom), policy_names[cfg.policy]);
  return 0;
}

/* Threads and rings do not survive nbdkit's fork into the background,
 * so the backends start them here.
 */
static int
raid_after_fork (void)
{
  unsigned i;

  for (i = 0; i < nmembers; ++i) {
    if (members[i].ops->start (&members[i]) == -1)
      return -1;
    nbdkit_debug ("raid: member %u (%s) does I/O with %s", i,
                  members[i].name, members[i].engine);
  }
  if (cfg.stats_path)
    return stats_json_start (cfg.stats_path);
  return 0;
}

/* The engine of the file and device members: "uring" or "threads" if
 * they all use one, "mixed" if not, "none" if there are none.
 */
static const char *
file_engine (void)
{
  const char *e = NULL;
  unsigned i;

  for (i = 0; i < nmembers; ++i) {
    if (members[i].ops != &file_ops || members[i].engine == NULL)
      continue;
    if (e && strcmp (e, members[i].engine) != 0)
      return "mixed";
    e = members[i].engine;
  }
  return e ? e : "none";
}

static struct stats_source
stats_source (void)
{
  return (struct stats_source) {
    .geom = geom, .members = members, .nmembers = nmembers,
    .array = &array_stats,
    .io = file_engine (),
  };
}

static void
raid_unload (void)
{
  unsigned i;

  if (geom) {
    struct stats_source src = stats_source ();
    stats_json_stop ();
    if (cfg.stats_path)
      stats_json_write (cfg.stats_path, &src);
    stats_log_summary (&src);
    range_lock_destroy (&write_ranges);
  }
  for (i = 0; i < nmembers; ++i) {
    if (members[i].ops)
      members[i].ops->close (&members[i]);
    free (members[i].name);
    free (members[i].identity);
  }
  free (cfg.stats_path);
  raid_geom_free (geom);
}

/* Called from the SIGUSR1 thread in stats-json.c. */
void
raid_stats_snapshot (struct stats_source *src)
{
  *src = stats_source ();
}

static void
raid_dump_plugin (void)
{
  printf ("raid_levels=0,1,10\n");
  printf ("raid_max_members=%d\n", RAID_MAX_MEMBERS);
  printf ("raid_chunk_default=%" PRIu64 "\n", RAID_CHUNK_DEFAULT);
  printf ("raid_read_policies=round-robin,least-pending,sequential,first\n");
  printf ("raid_member_backends=file,nbd\n");
  /* Whether this kernel lets us use io_uring, so users know which path
   * io=auto will take for file and device members.
   */
  printf ("raid_io=%s\n", file_probe_uring () ? "uring" : "threads");
}

static void *
raid_open (int readonly)
{
  return NBDKIT_HANDLE_NOT_NEEDED;
}

static int64_t
raid_get_size (void *handle)
{
  return raid_geom_size (geom);
}

static int
raid_block_size (void *handle,
                 uint32_t *minimum, uint32_t *preferred, uint32_t *maximum)
{
  /* Any byte range works unless a member wants aligned requests; the
   * chunk is the natural unit to send since a request inside one chunk
   * touches one member (per copy).
   */
  *minimum = align;
  *preferred = raid_geom_level (geom) == RAID_LEVEL_1 ? 4096
    : raid_geom_chunk (geom) > (32 << 20) ? (32 << 20) : raid_geom_chunk (geom);
  if (*preferred < align)
    *preferred = align;
  *maximum = 0xffffffff;
  return 0;
}

static int
raid_can_write (void *handle)
{
  unsigned i;

  for (i = 0; i < nmembers; ++i)
    if (members[i].read_only)
      return 0;
  return 1;
}

/* Every operation works on every member: backends that lack one fall
 * back (zero becomes a write of zeroes, a trim does nothing, FUA becomes
 * a flush), so the array can always offer it.
 */
static int raid_can_flush (void *handle) { return 1; }
static int raid_can_trim (void *handle) { return 1; }
static int raid_can_zero (void *handle) { return 1; }

/* A fast zero is refused before anything changes if any member would
 * refuse it; members known to refuse from the start (NBD servers without
 * fast zero) mean the array should not offer it at all.
 */
static int
raid_can_fast_zero (void *handle)
{
  unsigned i;

  for (i = 0; i < nmembers; ++i)
    if (atomic_load (&members[i].no_fast_zero))
      return 0;
  return 1;
}
static int raid_can_fua (void *handle) { return NBDKIT_FUA_NATIVE; }
static int raid_can_extents (void *handle) { return 1; }

/* Every connection shares the members and a flush syncs all of them,
 * so what one connection flushed is what all see.
 */
static int raid_can_multi_conn (void *handle) { return 1; }

/* Member failure.  Only arrays with redundancy fail a member: a RAID 0
 * has nothing to fall back to, so it returns the error.
 */
static bool
is_redundant (void)
{
  return raid_geom_copies (geom) > 1;
}

static void
fail_member (unsigned i, const char *op, int err)
{
  bool was = atomic_exchange (&members[i].failed, true);
  unsigned live = 0, j;

  if (was)
    return;
  for (j = 0; j < nmembers; ++j)
    if (!atomic_load (&members[j].failed))
      live++;
  nbdkit_error ("member %u (%s) failed on %s: %s; array is degraded, "
                "%u of %u members remain", i, members[i].name, op,
                strerror (err), live, nmembers);
}

/* The array can still serve every byte if every chunk keeps a live
 * copy.  The near layout repeats every nmembers chunks, so checking the
 * first nmembers chunks checks them all.
 */
static bool
array_whole (void)
{
  struct raid_piece p;
  uint64_t size = raid_geom_size (geom), chunk = raid_geom_chunk (geom);
  unsigned c, k;

  for (c = 0; c < nmembers && (uint64_t) c * chunk < size; ++c) {
    bool live = false;
    raid_geom_map (geom, (uint64_t) c * chunk, 1, &p);
    for (k = 0; k < p.ncopies; ++k)
      live |= !atomic_load (&members[p.copy[k].member].failed);
    if (!live)
      return false;
    if (raid_geom_level (geom) == RAID_LEVEL_1)
      break;
  }
  return true;
}

/* A request's plan: its pieces, copied out of the geometry with only as
 * many copies as each has.  Small requests fit the inline arrays.
 */
struct piece {
  uint64_t offset;              /* array offset */
  uint64_t length;
  unsigned ncopies;
  struct raid_copy *copy;
  uint32_t tried, bad;          /* copy bitmasks, for reads */
  int chosen;
  bool again;                   /* read chosen again, on its own */
};

#define PLAN_INLINE 16

struct plan {
  struct piece *piece;
  size_t npieces, cap;
  struct raid_copy *copies;
  size_t ncopies, copies_cap;
  struct piece piece_inline[PLAN_INLINE];
  struct raid_copy copies_inline[PLAN_INLINE * 2];
};

static void
plan_init (struct plan *pl)
{
  pl->piece = pl->piece_inline;
  pl->cap = PLAN_INLINE;
  pl->npieces = 0;
  pl->copies = pl->copies_inline;
  pl->copies_cap = PLAN_INLINE * 2;
  pl->ncopies = 0;
}

static void
plan_free (struct plan *pl)
{
  if (pl->piece != pl->piece_inline)
    free (pl->piece);
  if (pl->copies != pl->copies_inline)
    free (pl->copies);
}

static int
grow (void **arr, void *inline_arr, size_t *cap, size_t need, size_t elem)
{
  size_t ncap = *cap;
  void *n;

  if (need <= *cap)
    return 0;
  while (ncap < need)
    ncap *= 2;
  if (*arr == inline_arr) {
    n = malloc (ncap * elem);
    if (n)
      memcpy (n, *arr, *cap * elem);
  }
  else
    n = realloc (*arr, ncap * elem);
  if (n == NULL)
    return -1;
  *arr = n;
  *cap = ncap;
  return 0;
}

static int
plan_add (const struct raid_piece *p, void *opaque)
{
  struct plan *pl = opaque;
  struct piece *q;

  if (grow ((void **) &pl->piece, pl->piece_inline, &pl->cap,
            pl->npieces + 1, sizeof *pl->piece) == -1 ||
      grow ((void **) &pl->copies, pl->copies_inline, &pl->copies_cap,
            pl->ncopies + p->ncopies, sizeof *pl->copies) == -1) {
    nbdkit_error ("malloc: %m");
    return -1;
  }
  q = &pl->piece[pl->npieces++];
  q->offset = p->offset;
  q->length = p->length;
  q->ncopies = p->ncopies;
  /* Stored as an index until the copies array stops moving. */
  q->copy = (struct raid_copy *) (uintptr_t) pl->ncopies;
  q->tried = q->bad = 0;
  q->chosen = -1;
  q->again = false;
  memcpy (&pl->copies[pl->ncopies], p->copy, p->ncopies * sizeof *p->copy);
  pl->ncopies += p->ncopies;
  return 0;
}

static int
plan_build (struct plan *pl, uint64_t offset, uint64_t count)
{
  size_t i;

  plan_init (pl);
  if (raid_geom_foreach (geom, offset, count, plan_add, pl) != 0) {
    plan_free (pl);
    errno = EIO;
    return -1;
  }
  for (i = 0; i < pl->npieces; ++i)
    pl->piece[i].copy = &pl->copies[(uintptr_t) pl->piece[i].copy];
  return 0;
}

/* Read policy: which copy of a piece to read.
 *
 * 1. Only copies on members that have not failed and that this request
 *    has not already tried are candidates.
 * 2. first: the first candidate in layout order.
 * 3. round-robin: candidates in turn, by a counter shared by all
 *    connections.
 * 4. least-pending: the candidate whose member has the fewest I/Os in
 *    flight (md's choice for non-rotational members); ties go to the
 *    earlier copy.  Every piece of a request is chosen before any of
 *    them is submitted, so a request's own pieces do not count: they
 *    stay on one copy where the counts allow, and go to that member as
 *    one run (raidsim's array.c chooses the same way with merge_pieces).
 * 5. sequential: a candidate whose member's last I/O ended exactly where
 *    this copy starts, so a stream stays on one member; otherwise the
 *    candidate whose last I/O ended nearest (md's choice for disks).
 *
 * Returns the copy index, or -1 if no candidate remains.
 */
static int
choose_copy (const struct piece *p)
{
  unsigned k, n = 0, idx[RAID_MAX_MEMBERS];
  int best = -1;

  for (k = 0; k < p->ncopies; ++k)
    if (!(p->tried & (1u << k)) &&
        !atomic_load (&members[p->copy[k].member].failed))
      idx[n++] = k;
  if (n == 0)
    return -1;

  switch (cfg.policy) {
  case POLICY_FIRST:
    return idx[0];

  case POLICY_ROUND_ROBIN:
    return idx[atomic_fetch_add (&rr_counter, 1) % n];

  case POLICY_LEAST_PENDING: {
    unsigned best_pending = UINT_MAX;
    for (k = 0; k < n; ++k) {
      unsigned pending = atomic_load (&members[p->copy[idx[k]].member].pending);
      if (pending < best_pending) {
        best_pending = pending;
        best = idx[k];
      }
    }
    return best;
  }

  case POLICY_SEQUENTIAL: {
    uint64_t best_dist = UINT64_MAX;
    for (k = 0; k < n; ++k) {
      const struct raid_copy *c = &p->copy[idx[k]];
      uint64_t head = atomic_load (&members[c->member].head);
      uint64_t dist = head > c->offset ? head - c->offset : c->offset - head;
      if (dist < best_dist) {
        best_dist = dist;
        best = idx[k];
      }
    }
    return best;
  }
  }
  abort ();
}

/* A request's member I/Os: the segments (a piece on the copy it uses),
 * the runs raid_geom_runs groups them into, and one member_io per run,
 * whose iovec, for a run of several pieces, points into the client's
 * buffer.  Small requests fit the inline arrays.
 */
#define IOSET_INLINE 16

struct ioset {
  size_t nseg, nrun;
  struct raid_seg *seg;
  size_t *seg_piece;            /* the plan's piece of each segment */
  size_t *next;
  struct raid_run *run;
  struct member_io *io;
  struct iovec *iov;
  void *heap;
  struct member_io io_inline[IOSET_INLINE];
  struct raid_seg seg_inline[IOSET_INLINE];
  struct raid_run run_inline[IOSET_INLINE];
  struct iovec iov_inline[IOSET_INLINE];
  size_t seg_piece_inline[IOSET_INLINE], next_inline[IOSET_INLINE];
};

/* Room for cap segments, and so for cap runs. */
static int
ioset_init (struct ioset *set, size_t cap)
{
  char *p;

  set->nseg = set->nrun = 0;
  set->heap = NULL;
  if (cap <= IOSET_INLINE) {
    set->io = set->io_inline;
    set->seg = set->seg_inline;
    set->run = set->run_inline;
    set->iov = set->iov_inline;
    set->seg_piece = set->seg_piece_inline;
    set->next = set->next_inline;
    return 0;
  }
  /* One allocation; every member has 8-byte alignment at most. */
  p = set->heap = malloc (cap * (sizeof *set->io + sizeof *set->seg +
                                 sizeof *set->run + sizeof *set->iov +
                                 2 * sizeof (size_t)));
  if (p == NULL) {
    nbdkit_error ("malloc: %m");
    return -1;
  }
  set->io = (void *) p;        p += cap * sizeof *set->io;
  set->seg = (void *) p;       p += cap * sizeof *set->seg;
  set->run = (void *) p;       p += cap * sizeof *set->run;
  set->iov = (void *) p;       p += cap * sizeof *set->iov;
  set->seg_piece = (void *) p; p += cap * sizeof (size_t);
  set->next = (void *) p;
  return 0;
}

static void
ioset_free (struct ioset *set)
{
  free (set->heap);
}

static void
ioset_add (struct ioset *set, size_t piece, const struct piece *p,
           const struct raid_copy *c)
{
  set->seg_piece[set->nseg] = piece;
  set->seg[set->nseg++] = (struct raid_seg) {
    .offset = p->offset, .length = p->length,
    .member = c->member, .member_offset = c->offset,
  };
}

/* Group the segments into runs of at most max_segs and fill one
 * member_io per run.  buf is the client's buffer, which starts at array
 * offset req_offset, or NULL for zero and trim.
 */
static void
ioset_runs (struct ioset *set, enum member_op op, uint32_t flags,
            char *buf, uint64_t req_offset, unsigned max_segs,
            struct member_batch *batch)
{
  size_t r, s, v = 0;

  set->nrun = raid_geom_runs (set->seg, set->nseg, max_segs, set->run,
                              set->next);
  for (r = 0; r < set->nrun; ++r) {
    const struct raid_run *run = &set->run[r];
    struct member_io *io = &set->io[r];

    *io = (struct member_io) {
      .op = op,
      .flags = flags,
      .offset = run->offset,
      .length = run->length,
      .pieces = run->nsegs,
      .member = &members[run->member],
      .batch = batch,
    };
    if (buf == NULL)
      continue;
    if (run->nsegs == 1) {
      io->buf = buf + (set->seg[run->first].offset - req_offset);
      continue;
    }
    io->iov = &set->iov[v];
    io->iovcnt = run->nsegs;
    for (s = run->first; s != RAID_SEG_END; s = set->next[s])
      set->iov[v++] = (struct iovec) {
        .iov_base = buf + (set->seg[s].offset - req_offset),
        .iov_len = set->seg[s].length,
      };
  }
}

/* Run the member I/Os ios[0..n-1] as one batch and wait for them. */
static void
run_batch (struct member_io *ios, size_t n, struct member_batch *batch)
{
  batch_init (batch, n);
  member_submit_all (ios, n);
  batch_wait (batch);
  batch_destroy (batch);
}

static void
ioset_submit (struct ioset *set, struct member_batch *batch)
{
  run_batch (set->io, set->nrun, batch);
}

/* Rewrite the copies of piece p that failed a read, as md does, from
 * the copy that was read, and fail a copy that cannot even be
 * rewritten.  The data is read again while the piece's range is held:
 * the data the client got may already be older than a write that has
 * reached every copy since, and writing it back would undo that write
 * on the rewritten copies only.
 */
static void
repair_piece (const struct piece *p)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  struct member_batch batch;
  struct range_hold hold;
  char *data;
  size_t j, n = 0;
  unsigned k;

  data = malloc (p->length);
  if (data == NULL) {
    nbdkit_error ("pread: array offset %" PRIu64 ": no memory to rewrite "
                  "the copies that failed: %m", p->offset);
    return;
  }
  range_acquire (&write_ranges, &hold, p->offset, p->length);
  ios[0] = (struct member_io) {
    .op = MOP_READ, .pieces = 1, .buf = data,
    .offset = p->copy[p->chosen].offset, .length = p->length,
    .member = &members[p->copy[p->chosen].member], .batch = &batch,
  };
  run_batch (ios, 1, &batch);
  if (ios[0].err) {
    nbdkit_error ("pread: member %u (%s) at offset %" PRIu64 ": %s; the "
                  "copies that failed are not rewritten",
                  ios[0].member->index, ios[0].member->name, ios[0].offset,
                  strerror (ios[0].err));
    goto out;
  }
  for (k = 0; k < p->ncopies; ++k)
    if (p->bad & (1u << k))
      ios[n++] = (struct member_io) {
        .op = MOP_WRITE, .pieces = 1, .buf = data,
        .offset = p->copy[k].offset, .length = p->length,
        .member = &members[p->copy[k].member], .batch = &batch,
      };
  run_batch (ios, n, &batch);
  for (j = 0; j < n; ++j) {
    if (ios[j].err)
      fail_member (ios[j].member->index, "rewrite after read error",
                   ios[j].err);
    else
      nbdkit_debug ("raid: rewrote member %u offset %" PRIu64
                    " after a read error", ios[j].member->index,
                    ios[j].offset);
  }
 out:
  range_release (&write_ranges, &hold);
  free (data);
}

static void
repair (const struct plan *pl)
{
  size_t i;

  for (i = 0; i < pl->npieces; ++i)
    if (pl->piece[i].bad)
      repair_piece (&pl->piece[i]);
}

/* Read every piece from one copy, all pieces at once, the pieces that
 * are contiguous on a member as one run.  A run that fails is read again
 * piece by piece from the same copy, since which of its pieces failed is
 * not known; a piece that fails on its own goes round again on another
 * copy.  Copies that returned an error are then rewritten from the good
 * data (repair).
 */
static int
do_read (char *buf, uint64_t count, uint64_t offset, size_t *npieces)
{
  struct plan pl;
  struct ioset set;
  struct member_batch batch;
  unsigned max_segs = RAID_RUN_MAX_SEGS;
  size_t i, r, s;
  int err = 0;

  if (plan_build (&pl, offset, count) == -1)
    return -1;
  *npieces = pl.npieces;
  if (ioset_init (&set, pl.npieces) == -1) {
    plan_free (&pl);
    errno = ENOMEM;
    return -1;
  }

  for (;;) {
    /* Choose for every piece before submitting any, so that a piece with
     * no copy left fails the request with no I/O in flight.
     */
    set.nseg = 0;
    for (i = 0; i < pl.npieces; ++i) {
      struct piece *p = &pl.piece[i];
      if (p->again)
        p->again = false;
      else {
        if (p->chosen >= 0 && !(p->bad & (1u << p->chosen)))
          continue;             /* read already */
        p->chosen = choose_copy (p);
        if (p->chosen < 0) {
          nbdkit_error ("pread: array offset %" PRIu64 ": no copy could "
                        "be read", p->offset);
          err = EIO;
          goto out;
        }
        p->tried |= 1u << p->chosen;
      }
      ioset_add (&set, i, p, &p->copy[p->chosen]);
    }
    if (set.nseg == 0)
      break;

    ioset_runs (&set, MOP_READ, 0, buf, offset, max_segs, &batch);
    ioset_submit (&set, &batch);
    max_segs = 1;               /* rounds after the first are retries */

    for (r = 0; r < set.nrun; ++r) {
      struct member_io *io = &set.io[r];
      struct member *m = io->member;
      struct piece *p;

      if (io->err == 0)
        continue;
      if (set.run[r].nsegs > 1) {
        for (s = set.run[r].first; s != RAID_SEG_END; s = set.next[s])
          pl.piece[set.seg_piece[s]].again = true;
        continue;
      }
      p = &pl.piece[set.seg_piece[set.run[r].first]];
      if (!is_redundant ()) {
        nbdkit_error ("pread: member %u (%s) at offset %" PRIu64 ": %s",
                      m->index, m->name, io->offset, strerror (io->err));
        err = io->err;
        continue;
      }
      if (!atomic_load (&m->failed))
        nbdkit_error ("pread: member %u (%s) at offset %" PRIu64 ": %s; "
                      "reading another copy", m->index, m->name,
                      io->offset, strerror (io->err));
      p->bad |= 1u << p->chosen;
    }
    if (err)
      goto out;
  }

  repair (&pl);

 out:
  ioset_free (&set);
  plan_free (&pl);
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
}

static const char *const op_names[MOP_COUNT] = {
  [MOP_READ] = "pread", [MOP_WRITE] = "pwrite", [MOP_ZERO] = "zero",
  [MOP_TRIM] = "trim", [MOP_FLUSH] = "flush",
};

/* Apply a write, zero or trim to every live copy of every piece, all at
 * once.  On a RAID 0 any error is the client's; with copies, a member
 * that fails is marked failed and the array goes on degraded as long as
 * every piece reached one copy.
 */
static int
do_write (enum member_op op, const char *buf, uint64_t count,
          uint64_t offset, uint32_t flags, size_t *npieces)
{
  struct plan pl;
  struct ioset set;
  struct member_batch batch;
  uint32_t mflags = 0;
  size_t i, r, s;
  int err = 0;

  if (flags & NBDKIT_FLAG_FUA) mflags |= MIO_FUA;
  if (flags & NBDKIT_FLAG_MAY_TRIM) mflags |= MIO_MAY_TRIM;
  if (flags & NBDKIT_FLAG_FAST_ZERO) mflags |= MIO_FAST;

  if (plan_build (&pl, offset, count) == -1)
    return -1;
  *npieces = pl.npieces;

  /* A member that has refused a fast zero will refuse again: say so
   * before zeroing anything, so that copies never disagree over a zero
   * the client is about to redo the slow way.
   */
  if (mflags & MIO_FAST)
    for (i = 0; i < pl.ncopies; ++i)
      if (atomic_load (&members[pl.copies[i].member].no_fast_zero)) {
        plan_free (&pl);
        errno = ENOTSUP;
        return -1;
      }

  if (ioset_init (&set, pl.ncopies) == -1) {
    plan_free (&pl);
    errno = ENOMEM;
    return -1;
  }
  for (i = 0; i < pl.npieces; ++i) {
    struct piece *p = &pl.piece[i];
    unsigned k;
    for (k = 0; k < p->ncopies; ++k)
      if (!atomic_load (&members[p->copy[k].member].failed))
        ioset_add (&set, i, p, &p->copy[k]);
  }
  ioset_runs (&set, op, mflags, op == MOP_WRITE ? (char *) buf : NULL,
              offset, RAID_RUN_MAX_SEGS, &batch);
  ioset_submit (&set, &batch);

  /* Count, for every piece, the copies that took it.  A run that failed
   * fails its member (or the request, on a RAID 0) whichever of its
   * pieces failed, so runs need no splitting here.
   */
  for (i = 0; i < pl.npieces; ++i)
    pl.piece[i].tried = 0;
  for (r = 0; r < set.nrun; ++r) {
    struct member_io *io = &set.io[r];
    struct member *m = io->member;
    if (io->err == 0) {
      for (s = set.run[r].first; s != RAID_SEG_END; s = set.next[s])
        pl.piece[set.seg_piece[s]].tried++;
      continue;
    }
    /* A refused fast zero is an answer, not a failed member. */
    if ((mflags & MIO_FAST) && io->err == ENOTSUP) {
      atomic_store (&m->no_fast_zero, true);
      err = ENOTSUP;
      continue;
    }
    if (!is_redundant ()) {
      nbdkit_error ("%s: member %u (%s) at offset %" PRIu64 ": %s",
                    op_names[op], m->index, m->name, io->offset,
                    strerror (io->err));
      err = io->err;
      continue;
    }
    fail_member (m->index, op_names[op], io->err);
  }
  if (err == 0)
    for (i = 0; i < pl.npieces; ++i)
      if (pl.piece[i].tried == 0) {
        nbdkit_error ("%s: array offset %" PRIu64 ": no live copy left",
                      op_names[op], pl.piece[i].offset);
        err = EIO;
        break;
      }

  ioset_free (&set);
  plan_free (&pl);
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
}

static int
do_flush (void)
{
  struct member_io ios[RAID_MAX_MEMBERS];
  struct member_batch batch;
  unsigned i, n = 0;
  int err = 0;

  for (i = 0; i < nmembers; ++i)
    if (!atomic_load (&members[i].failed))
      ios[n++] = (struct member_io) {
        .op = MOP_FLUSH, .member = &members[i], .batch = &batch,
      };
  run_batch (ios, n, &batch);
  for (i = 0; i < n; ++i) {
    if (ios[i].err == 0)
      continue;
    if (!is_redundant ()) {
      nbdkit_error ("flush: member %u (%s): %s", ios[i].member->index,
                    ios[i].member->name, strerror (ios[i].err));
      err = ios[i].err;
    }
    else
      fail_member (ios[i].member->index, "flush", ios[i].err);
  }
  if (err == 0 && !array_whole ()) {
    nbdkit_error ("flush: too many members failed");
    err = EIO;
  }
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
}

/* Every client request is counted in the array's statistics once
 * do_* has returned r, with errno set if r is -1, with the pieces the
 * geometry cut it into.
 */
static int
counted (int op, uint64_t count, size_t pieces, uint64_t start_ns, int r)
{
  int err = r == -1 ? errno : 0;

  stats_done (&array_stats, op, count, pieces, start_ns, err);
  errno = err;
  return r;
}

/* nbdkit 1.32 does not hold clients to the minimum block size we
 * advertise, and a member would refuse the unaligned I/O, failing it:
 * refuse the request instead, as the NBD protocol allows.
 */
static int
aligned (const char *op, uint64_t count, uint64_t offset)
{
  if (((offset | count) & (align - 1)) == 0)
    return 1;
  nbdkit_error ("%s: offset %" PRIu64 " count %" PRIu64 " is not aligned "
                "to the array's minimum block size %" PRIu32,
                op, offset, count, align);
  errno = EINVAL;
  return 0;
}

static int
raid_pread (void *handle, void *buf, uint32_t count, uint64_t offset,
            uint32_t flags)
{
  uint64_t t;
  size_t pieces = 0;
  int r;

  if (!aligned ("pread", count, offset))
    return -1;
  t = stats_start (&array_stats);
  r = do_read (buf, count, offset, &pieces);
  return counted (MOP_READ, count, pieces, t, r);
}

/* Writes, zeroes and trims take the same path: do_write with their op. */
static int
write_op (enum member_op op, const void *buf, uint32_t count,
          uint64_t offset, uint32_t flags)
{
  uint64_t t;
  size_t pieces = 0;
  int r;
  struct range_hold hold;
  bool held = is_redundant () && count > 0;

  if (!aligned (op_names[op], count, offset))
    return -1;
  t = stats_start (&array_stats);
  if (held)
    range_acquire (&write_ranges, &hold, offset, count);
  r = do_write (op, buf, count, offset, flags, &pieces);
  if (held)
    range_release (&write_ranges, &hold);
  return counted (op, count, pieces, t, r);
}

static int
raid_pwrite (void *handle, const void *buf, uint32_t count, uint64_t offset,
             uint32_t flags)
{
  return write_op (MOP_WRITE, buf, count, offset, flags);
}

static int
raid_zero (void *handle, uint32_t count, uint64_t offset, uint32_t flags)
{
  return write_op (MOP_ZERO, NULL, count, offset, flags);
}

static int
raid_trim (void *handle, uint32_t count, uint64_t offset, uint32_t flags)
{
  return write_op (MOP_TRIM, NULL, count, offset, flags);
}

static int
raid_flush (void *handle, uint32_t flags)
{
  uint64_t t = stats_start (&array_stats);
  return counted (MOP_FLUSH, 0, 0, t, do_flush ());
}

/* Extents.  A byte is a hole in the array only where every copy of it
 * is a hole on its member; anything else is data.
 */
struct extents_ctx {
  struct nbdkit_extents *extents;
  unsigned pieces;
};

static int
extents_piece (const struct raid_piece *p, void *opaque)
{
  struct extents_ctx *e = opaque;
  uint64_t pos = 0;

  while (pos < p->length) {
    bool all_hole = true;
    uint64_t hole_end = p->length, data_end = p->length, next;
    uint32_t type;
    unsigned k;

    for (k = 0; k < p->ncopies; ++k) {
      const struct raid_copy *c = &p->copy[k];
      struct member *m = &members[c->member];
      uint64_t end;
      bool hole;

      /* A failed member's allocation says nothing about the data. */
      if (atomic_load (&m->failed))
        continue;
      hole = m->ops->hole (m, c->offset + pos, c->offset + p->length, &end);
      end -= c->offset;
      if (hole) {
        if (end < hole_end)
          hole_end = end;
      }
      else {
        all_hole = false;
        if (end < data_end)
          data_end = end;
      }
    }
    /* While any copy holds data, the array does; the data may go on past
     * data_end on another copy, in which case the next round adds more
     * data, which nbdkit merges.
     */
    next = all_hole ? hole_end : data_end;
    type = all_hole ? NBDKIT_EXTENT_HOLE | NBDKIT_EXTENT_ZERO : 0;
    if (next <= pos)
      next = p->length;
    if (nbdkit_add_extent (e->extents, p->offset + pos, next - pos,
                           type) == -1)
      return -1;
    pos = next;
  }
  /* The client may get fewer extents than it asked for: stop after a
   * bounded amount of work so that one request on a huge array with
   * small chunks cannot stall the server.
   */
  if (++e->pieces >= 1024)
    return 1;
  return 0;
}

static int
raid_extents (void *handle, uint32_t count, uint64_t offset, uint32_t flags,
              struct nbdkit_extents *extents)
{
  struct extents_ctx e = { .extents = extents };
  int r;

  if (flags & NBDKIT_FLAG_REQ_ONE)
    count = 1;
  r = raid_geom_foreach (geom, offset, count, extents_piece, &e);
  return r == -1 ? -1 : 0;
}

static struct nbdkit_plugin plugin = {
  .name               = "raid",
  .longname           = "nbdkit software RAID 0, 1 and 10 plugin",
  .version            = PACKAGE_VERSION,
  .config             = raid_config,
  .config_complete    = raid_config_complete,
  .config_help        = PARAM_HELP,
  .magic_config_key   = "member",
  .dump_plugin        = raid_dump_plugin,
  .after_fork         = raid_after_fork,
  .unload             = raid_unload,
  .open               = raid_open,
  .get_size           = raid_get_size,
  .block_size         = raid_block_size,
  .can_write          = raid_can_write,
  .can_flush          = raid_can_flush,
  .can_trim           = raid_can_trim,
  .can_zero           = raid_can_zero,
  .can_fast_zero      = raid_can_fast_zero,
  .can_fua            = raid_can_fua,
  .can_extents        = raid_can_extents,
  .can_multi_conn     = raid_can_multi_conn,
  .pread              = raid_pread,
  .pwrite             = raid_pwrite,
  .flush              = raid_flush,
  .trim               = raid_trim,
  .zero               = raid_zero,
  .extents            = raid_extents,
  .errno_is_preserved = 1,
};

/* Members are shared by all connections and all requests; member.c and
 * the backends do their own locking.
 */
#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL
NBDKIT_REGISTER_PLUGIN (plugin)
