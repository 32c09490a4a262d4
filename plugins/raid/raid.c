/* nbdkit-raid-plugin: software RAID 0, 1 and 10 over files, block devices
 * and (later) NBD exports.
 *
 * The request path is short on purpose:
 *
 *   raid_pread / raid_pwrite / raid_trim / raid_zero
 *     -> raid_geom_foreach (raidsim/geometry.c) cuts the request into
 *        pieces, each with the list of copies that hold it
 *     -> read_piece picks one copy by the read policy and falls back to
 *        the others on error; write_piece / discard_piece touch every
 *        live copy
 *     -> member_pread / member_pwrite / ... do the member I/O
 *
 * The array offset (what the client asked for) and the member offset
 * (where the bytes live) are kept in differently named variables all the
 * way down: nbdkit 1.32's split plugin wrote members at the array offset,
 * and we do not want that bug to be one typo away.
 *
 * Run: nbdkit raid level=0 chunk=128K a.img b.img
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fs.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/geometry.h"

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

struct member {
  char *name;                   /* as the user gave it, for messages */
  int fd;
  bool is_block;
  bool read_only;
  uint64_t size;                /* raw bytes */
  /* Set once and never cleared: there is no resync yet, so a member that
   * missed a write must never be read again.
   */
  atomic_bool failed;
  atomic_uint pending;          /* member I/Os in flight, for least-pending */
  atomic_uint_fast64_t head;    /* member offset just past the last I/O */
};

static struct member members[RAID_MAX_MEMBERS];
static unsigned nmembers;
static struct raid_geom *geom;
static atomic_uint rr_counter;

/* Configuration, as given; validated in raid_config_complete. */
static struct {
  bool level_set, chunk_set, copies_set, policy_set;
  enum raid_level level;
  uint64_t chunk;
  unsigned copies;
  enum read_policy policy;
} cfg = {
  .chunk = RAID_CHUNK_DEFAULT,
  .policy = POLICY_LEAST_PENDING,
};

/* Every parameter is described once, here.  The table drives parsing
 * (raid_config), --help (raid_config_help) and, through
 * tests/test-pod-params.sh, is checked against the man page.
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
static int parse_member (const char *, const char *);

#define PARAM_HELP \
  "level=0|1|10           (required) RAID level.\n" \
  "chunk=SIZE             Chunk (stripe unit), power of two from 4K to 64M;\n" \
  "                       default 128K.\n" \
  "copies=N               RAID 10 near copies, 2 to the member count;\n" \
  "                       default 2.\n" \
  "read-policy=POLICY     RAID 1/10 read choice: round-robin,\n" \
  "                       least-pending (default), sequential, first.\n" \
  "[member=]FILE|DEVICE   A member, in layout order; give 2 or more."

static const struct param params[] = {
  { "level", &cfg.level_set, parse_level },
  { "chunk", &cfg.chunk_set, parse_chunk },
  { "copies", &cfg.copies_set, parse_copies },
  { "read-policy", &cfg.policy_set, parse_policy },
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
parse_copies (const char *key, const char *value)
{
  char *end;
  unsigned long v;

  errno = 0;
  v = strtoul (value, &end, 10);
  if (errno || end == value || *end || value[0] == '-' ||
      v < 2 || v > RAID_MAX_MEMBERS) {
    nbdkit_error ("copies: '%s' is not a whole number from 2 to %d",
                  value, RAID_MAX_MEMBERS);
    return -1;
  }
  cfg.copies = v;
  return 0;
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
parse_member (const char *key, const char *value)
{
  if (nmembers == RAID_MAX_MEMBERS) {
    nbdkit_error ("member: at most %d members are supported",
                  RAID_MAX_MEMBERS);
    return -1;
  }
  if (value[0] == '\0') {
    nbdkit_error ("member: empty file name");
    return -1;
  }
  members[nmembers].name = strdup (value);
  if (members[nmembers].name == NULL) {
    nbdkit_error ("strdup: %m");
    return -1;
  }
  members[nmembers].fd = -1;
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

/* Open a member and learn its size.  Nothing is written. */
static int
open_member (struct member *m)
{
  struct stat st;
  off_t end;

  m->fd = open (m->name, O_RDWR | O_CLOEXEC);
  if (m->fd == -1 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
    m->fd = open (m->name, O_RDONLY | O_CLOEXEC);
    m->read_only = true;
  }
  if (m->fd == -1) {
    nbdkit_error ("member: %s: %m", m->name);
    return -1;
  }
  if (fstat (m->fd, &st) == -1) {
    nbdkit_error ("member: %s: fstat: %m", m->name);
    return -1;
  }
  if (S_ISBLK (st.st_mode))
    m->is_block = true;
  else if (!S_ISREG (st.st_mode)) {
    nbdkit_error ("member: %s: not a regular file or block device", m->name);
    return -1;
  }
  end = lseek (m->fd, 0, SEEK_END);
  if (end == -1) {
    nbdkit_error ("member: %s: lseek: %m", m->name);
    return -1;
  }
  m->size = end;
  /* Reading the first byte proves the member is readable now rather
   * than at the first client request.
   */
  if (m->size > 0) {
    char b;
    if (pread (m->fd, &b, 1, 0) != 1) {
      nbdkit_error ("member: %s: cannot be read: %m", m->name);
      return -1;
    }
  }
  return 0;
}

/* The same file or device given twice would be written twice over
 * itself: refuse it however it is spelled.
 */
static int
check_duplicates (void)
{
  struct stat st[RAID_MAX_MEMBERS];
  unsigned i, j;

  for (i = 0; i < nmembers; ++i)
    if (fstat (members[i].fd, &st[i]) == -1) {
      nbdkit_error ("member: %s: fstat: %m", members[i].name);
      return -1;
    }
  for (i = 0; i < nmembers; ++i)
    for (j = 0; j < i; ++j) {
      bool same = members[i].is_block
        ? members[j].is_block && st[i].st_rdev == st[j].st_rdev
        : !members[j].is_block && st[i].st_dev == st[j].st_dev &&
          st[i].st_ino == st[j].st_ino;
      if (same) {
        nbdkit_error ("member: %s and %s are the same %s",
                      members[j].name, members[i].name,
                      members[i].is_block ? "device" : "file");
        return -1;
      }
    }
  return 0;
}

static int
raid_config_complete (void)
{
  struct raid_geom_params p;
  uint64_t sizes[RAID_MAX_MEMBERS];
  uint64_t min_size;
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

  for (i = 0; i < nmembers; ++i)
    if (open_member (&members[i]) == -1)
      return -1;
  if (check_duplicates () == -1)
    return -1;

  /* A RAID 1 has no chunks, but a mirror smaller than the smallest
   * chunk is certainly a mistake; the chunk default makes this 128K.
   */
  min_size = cfg.chunk;
  for (i = 0; i < nmembers; ++i) {
    if (members[i].size < min_size) {
      nbdkit_error ("member: %s: %" PRIu64 " bytes is smaller than one "
                    "chunk (%" PRIu64 ")", members[i].name,
                    members[i].size, min_size);
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
  nbdkit_debug ("raid: level %s, %u members, chunk %" PRIu64
                ", %u copies, size %" PRIu64 ", %u zones, read-policy %s",
                raid_level_name (cfg.level), nmembers, cfg.chunk,
                raid_geom_copies (geom), raid_geom_size (geom),
                raid_geom_nzones (geom), policy_names[cfg.policy]);
  return 0;
}

static void
raid_unload (void)
{
  unsigned i;

  for (i = 0; i < nmembers; ++i) {
    if (members[i].fd >= 0)
      close (members[i].fd);
    free (members[i].name);
  }
  raid_geom_free (geom);
}

static void
raid_dump_plugin (void)
{
  printf ("raid_levels=0,1,10\n");
  printf ("raid_max_members=%d\n", RAID_MAX_MEMBERS);
  printf ("raid_chunk_default=%" PRIu64 "\n", RAID_CHUNK_DEFAULT);
  printf ("raid_read_policies=round-robin,least-pending,sequential,first\n");
  printf ("raid_io=sync\n");
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
  /* Any byte range works; the chunk is the natural unit to send since a
   * request inside one chunk touches one member (per copy).
   */
  *minimum = 1;
  *preferred = raid_geom_level (geom) == RAID_LEVEL_1 ? 4096
    : raid_geom_chunk (geom) > (32 << 20) ? (32 << 20) : raid_geom_chunk (geom);
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

static int raid_can_flush (void *handle) { return 1; }
static int raid_can_trim (void *handle) { return 1; }
static int raid_can_zero (void *handle) { return 1; }
static int raid_can_fast_zero (void *handle) { return 1; }
static int raid_can_fua (void *handle) { return NBDKIT_FUA_NATIVE; }
static int raid_can_extents (void *handle) { return 1; }

/* Every connection shares the members' file descriptors and a flush
 * syncs all of them, so what one connection flushed is what all see.
 */
static int raid_can_multi_conn (void *handle) { return 1; }

/* Member failure handling.  Only arrays with redundancy fail a member:
 * a RAID 0 has nothing to fall back to, so it returns the error.
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

/* Member I/O.  These return 0 or -1 with errno set, and do not log:
 * the caller decides whether an error is fatal or a failover.
 */
static int
member_pread (unsigned i, void *buf, uint64_t len, uint64_t member_offset)
{
  struct member *m = &members[i];
  char *p = buf;
  int r = 0;

  if (raid_debug_io)
    nbdkit_debug ("pread member=%u offset=%" PRIu64 " length=%" PRIu64,
                  i, member_offset, len);
  atomic_fetch_add (&m->pending, 1);
  while (len > 0) {
    ssize_t n = pread (m->fd, p, len, member_offset);
    if (n == -1 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;            /* short member: a truncated file */
      r = -1;
      break;
    }
    p += n;
    len -= n;
    member_offset += n;
  }
  atomic_store (&m->head, member_offset);
  atomic_fetch_sub (&m->pending, 1);
  return r;
}

static int
member_pwrite (unsigned i, const void *buf, uint64_t len,
               uint64_t member_offset)
{
  struct member *m = &members[i];
  const char *p = buf;
  int r = 0;

  if (raid_debug_io)
    nbdkit_debug ("pwrite member=%u offset=%" PRIu64 " length=%" PRIu64,
                  i, member_offset, len);
  atomic_fetch_add (&m->pending, 1);
  while (len > 0) {
    ssize_t n = pwrite (m->fd, p, len, member_offset);
    if (n == -1 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = ENOSPC;
      r = -1;
      break;
    }
    p += n;
    len -= n;
    member_offset += n;
  }
  atomic_store (&m->head, member_offset);
  atomic_fetch_sub (&m->pending, 1);
  return r;
}

static int
member_sync (unsigned i)
{
  if (raid_debug_io)
    nbdkit_debug ("fdatasync member=%u", i);
  return fdatasync (members[i].fd);
}

static int
write_zeroes (unsigned i, uint64_t len, uint64_t member_offset)
{
  static const char zeroes[65536];

  while (len > 0) {
    uint64_t n = len < sizeof zeroes ? len : sizeof zeroes;
    if (member_pwrite (i, zeroes, n, member_offset) == -1)
      return -1;
    len -= n;
    member_offset += n;
  }
  return 0;
}

static bool
is_unsupported (int err)
{
  return err == EOPNOTSUPP || err == ENOTSUP || err == ENOSYS ||
    err == ENOTTY || err == EINVAL;
}

/* Make a member range read as zeroes, the cheapest way it allows.
 * With fast set, never fall back to writing zeroes: the client asked to
 * be told instead (NBD_CMD_FLAG_FAST_ZERO).
 */
static int
member_zero (unsigned i, uint64_t len, uint64_t member_offset,
             bool may_trim, bool fast)
{
  int fd = members[i].fd;

  if (raid_debug_io)
    nbdkit_debug ("zero member=%u offset=%" PRIu64 " length=%" PRIu64,
                  i, member_offset, len);
  /* A punched hole reads as zeroes on files and, since Linux 4.9, on
   * block devices too.
   */
  if (may_trim &&
      fallocate (fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                 member_offset, len) == 0)
    return 0;
  if (fallocate (fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
                 member_offset, len) == 0)
    return 0;
  if (errno != 0 && !is_unsupported (errno))
    return -1;
  if (members[i].is_block) {
    uint64_t range[2] = { member_offset, len };
    if (ioctl (fd, BLKZEROOUT, range) == 0)
      return 0;
    if (!is_unsupported (errno))
      return -1;
  }
  if (fast) {
    errno = ENOTSUP;
    return -1;
  }
  return write_zeroes (i, len, member_offset);
}

/* Discard is advisory: a member that cannot punch holes simply keeps
 * its data, which NBD allows (trimmed data reads back unspecified).
 */
static int
member_trim (unsigned i, uint64_t len, uint64_t member_offset)
{
  int fd = members[i].fd;

  if (raid_debug_io)
    nbdkit_debug ("trim member=%u offset=%" PRIu64 " length=%" PRIu64,
                  i, member_offset, len);
  if (members[i].is_block) {
    uint64_t range[2] = { member_offset, len };
    if (ioctl (fd, BLKDISCARD, range) == 0 || is_unsupported (errno))
      return 0;
    return -1;
  }
  if (fallocate (fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                 member_offset, len) == 0 || is_unsupported (errno))
    return 0;
  return -1;
}

/* Read policy: which copy of a piece to read first.
 *
 * 1. Only copies on members that have not failed and that this request
 *    has not already tried are candidates.
 * 2. first: the first candidate in layout order.
 * 3. round-robin: candidates in turn, by a counter shared by all
 *    connections.
 * 4. least-pending: the candidate whose member has the fewest I/Os in
 *    flight (md's choice for non-rotational members); ties go to the
 *    earlier copy.
 * 5. sequential: a candidate whose member's last I/O ended exactly where
 *    this copy starts, so a stream stays on one member; otherwise the
 *    candidate whose last I/O ended nearest (md's choice for disks).
 *
 * Returns the copy index, or -1 if no candidate remains.
 */
static bool
candidate (const struct raid_piece *p, unsigned k, const bool *tried)
{
  return !tried[k] && !atomic_load (&members[p->copy[k].member].failed);
}

static int
choose_copy (const struct raid_piece *p, const bool *tried)
{
  unsigned k, n = 0, idx[RAID_MAX_MEMBERS];
  int best = -1;

  for (k = 0; k < p->ncopies; ++k)
    if (candidate (p, k, tried))
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

/* What a request carries down to its pieces. */
struct io_ctx {
  char *buf;                    /* the client's buffer */
  uint64_t array_start;         /* array offset of buf[0] */
  uint32_t flags;
  bool touched[RAID_MAX_MEMBERS]; /* members written, for FUA */
  int err;                      /* errno to give the client on failure */
};

/* Read one piece from one copy, trying the others on error.  A copy
 * that returned an error is rewritten from the good data, as md does; a
 * copy that cannot even be rewritten is failed.
 */
static int
read_piece (const struct raid_piece *p, void *opaque)
{
  struct io_ctx *ctx = opaque;
  char *buf = ctx->buf + (p->offset - ctx->array_start);
  bool tried[RAID_MAX_MEMBERS] = { false };
  bool bad[RAID_MAX_MEMBERS] = { false };
  int k, err = EIO;
  unsigned j;

  while ((k = choose_copy (p, tried)) >= 0) {
    const struct raid_copy *c = &p->copy[k];

    tried[k] = true;
    if (member_pread (c->member, buf, p->length, c->offset) == 0)
      break;
    err = errno;
    if (!is_redundant ()) {
      nbdkit_error ("pread: member %u (%s) at offset %" PRIu64 ": %s",
                    c->member, members[c->member].name, c->offset,
                    strerror (err));
      ctx->err = err;
      return -1;
    }
    nbdkit_error ("pread: member %u (%s) at offset %" PRIu64 ": %s; "
                  "reading another copy", c->member,
                  members[c->member].name, c->offset, strerror (err));
    bad[k] = true;
  }
  if (k < 0) {
    nbdkit_error ("pread: array offset %" PRIu64 ": no copy could be read",
                  p->offset);
    ctx->err = err;
    return -1;
  }

  for (j = 0; j < p->ncopies; ++j) {
    const struct raid_copy *c = &p->copy[j];
    if (!bad[j])
      continue;
    if (member_pwrite (c->member, buf, p->length, c->offset) == -1)
      fail_member (c->member, "rewrite after read error", errno);
    else
      nbdkit_debug ("raid: rewrote member %u offset %" PRIu64
                    " after a read error", c->member, c->offset);
  }
  return 0;
}

static int
raid_pread (void *handle, void *buf, uint32_t count, uint64_t offset,
            uint32_t flags)
{
  struct io_ctx ctx = { .buf = buf, .array_start = offset, .err = EIO };

  if (raid_geom_foreach (geom, offset, count, read_piece, &ctx) != 0) {
    errno = ctx.err;
    return -1;
  }
  return 0;
}

/* The operation done on every live copy of a piece. */
enum write_op { OP_WRITE, OP_ZERO, OP_TRIM };

static const char *const op_names[] = {
  [OP_WRITE] = "pwrite", [OP_ZERO] = "zero", [OP_TRIM] = "trim",
};

struct write_ctx {
  struct io_ctx io;
  enum write_op op;
};

/* Apply a write, zero or trim to every copy of a piece.  On a RAID 0
 * any error is the client's; with copies, a member that fails is marked
 * failed and the array goes on degraded as long as one copy took it.
 */
static int
write_piece (const struct raid_piece *p, void *opaque)
{
  struct write_ctx *w = opaque;
  const char *buf = w->io.buf ? w->io.buf + (p->offset - w->io.array_start)
                              : NULL;
  bool may_trim = w->io.flags & NBDKIT_FLAG_MAY_TRIM;
  bool fast = w->io.flags & NBDKIT_FLAG_FAST_ZERO;
  unsigned k, done = 0;
  int err = EIO;

  for (k = 0; k < p->ncopies; ++k) {
    const struct raid_copy *c = &p->copy[k];
    int r;

    if (atomic_load (&members[c->member].failed))
      continue;
    switch (w->op) {
    case OP_WRITE:
      r = member_pwrite (c->member, buf, p->length, c->offset);
      break;
    case OP_ZERO:
      r = member_zero (c->member, p->length, c->offset, may_trim, fast);
      break;
    case OP_TRIM:
      r = member_trim (c->member, p->length, c->offset);
      break;
    default:
      abort ();
    }
    if (r == -1) {
      err = errno;
      /* A refused fast zero is an answer, not a failed member. */
      if (fast && err == ENOTSUP) {
        w->io.err = err;
        return -1;
      }
      if (!is_redundant ()) {
        nbdkit_error ("%s: member %u (%s) at offset %" PRIu64 ": %s",
                      op_names[w->op], c->member, members[c->member].name,
                      c->offset, strerror (err));
        w->io.err = err;
        return -1;
      }
      fail_member (c->member, op_names[w->op], err);
      continue;
    }
    w->io.touched[c->member] = true;
    done++;
  }
  if (done == 0) {
    nbdkit_error ("%s: array offset %" PRIu64 ": no live copy left",
                  op_names[w->op], p->offset);
    w->io.err = err;
    return -1;
  }
  return 0;
}

/* FUA: sync what this request wrote.  A member that cannot sync is
 * failed like one that cannot write.
 */
static int
sync_touched (struct write_ctx *w)
{
  unsigned i;

  for (i = 0; i < nmembers; ++i) {
    if (!w->io.touched[i] || atomic_load (&members[i].failed))
      continue;
    if (member_sync (i) == -1) {
      int err = errno;
      if (!is_redundant ()) {
        nbdkit_error ("fdatasync: member %u (%s): %m", i, members[i].name);
        errno = err;
        return -1;
      }
      fail_member (i, "fdatasync", err);
    }
  }
  if (!array_whole ()) {
    nbdkit_error ("fdatasync: too many members failed");
    errno = EIO;
    return -1;
  }
  return 0;
}

static int
do_write (enum write_op op, const void *buf, uint32_t count, uint64_t offset,
          uint32_t flags)
{
  struct write_ctx w = {
    .io = { .buf = (char *) buf, .array_start = offset, .flags = flags,
            .err = EIO },
    .op = op,
  };

  if (raid_geom_foreach (geom, offset, count, write_piece, &w) != 0) {
    errno = w.io.err;
    return -1;
  }
  if (flags & NBDKIT_FLAG_FUA)
    return sync_touched (&w);
  return 0;
}

static int
raid_pwrite (void *handle, const void *buf, uint32_t count, uint64_t offset,
             uint32_t flags)
{
  return do_write (OP_WRITE, buf, count, offset, flags);
}

static int
raid_zero (void *handle, uint32_t count, uint64_t offset, uint32_t flags)
{
  return do_write (OP_ZERO, NULL, count, offset, flags);
}

static int
raid_trim (void *handle, uint32_t count, uint64_t offset, uint32_t flags)
{
  return do_write (OP_TRIM, NULL, count, offset, flags);
}

static int
raid_flush (void *handle, uint32_t flags)
{
  struct write_ctx w = { .io.err = EIO };
  unsigned i;

  for (i = 0; i < nmembers; ++i)
    w.io.touched[i] = true;
  return sync_touched (&w);
}

/* Extents.  A byte is a hole in the array only where every copy of it
 * is a hole on its member; anything else is data.
 *
 * Where a member is a hole from member_offset: returns true and sets
 * *end to where the hole ends; else returns false and sets *end to where
 * the data ends.  Members that cannot say (block devices, file systems
 * without SEEK_DATA) are all data.
 */
static bool
member_hole (unsigned i, uint64_t member_offset, uint64_t limit, uint64_t *end)
{
  int fd = members[i].fd;
  off_t d, h;

  *end = limit;
  if (members[i].is_block)
    return false;
  d = lseek (fd, member_offset, SEEK_DATA);
  if (d == -1)
    return errno == ENXIO;      /* no data at all after member_offset */
  if ((uint64_t) d > member_offset) {
    if ((uint64_t) d < limit)
      *end = d;
    return true;
  }
  h = lseek (fd, member_offset, SEEK_HOLE);
  if (h != -1 && (uint64_t) h < limit)
    *end = h;
  return false;
}

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
    uint64_t hole_end = p->length, data_end = p->length;
    unsigned k;

    for (k = 0; k < p->ncopies; ++k) {
      const struct raid_copy *c = &p->copy[k];
      uint64_t end;
      bool hole = member_hole (c->member, c->offset + pos,
                               c->offset + p->length, &end);
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
    {
      uint64_t next = all_hole ? hole_end : data_end;
      uint32_t type = all_hole ? NBDKIT_EXTENT_HOLE | NBDKIT_EXTENT_ZERO : 0;

      if (next <= pos)
        next = p->length;
      if (nbdkit_add_extent (e->extents, p->offset + pos, next - pos,
                             type) == -1)
        return -1;
      pos = next;
    }
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

/* Every member is shared by all connections and all requests, and the
 * member I/O uses pread/pwrite, which need no lock.
 */
#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL
NBDKIT_REGISTER_PLUGIN (plugin)
