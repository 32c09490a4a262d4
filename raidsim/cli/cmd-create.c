/* raidsim create: write md v1.2 superblocks to the members of a new
 * array, as mdadm --create does, so that the members are real md
 * members: mdadm --examine reads them, Linux md assembles them, and the
 * nbdkit raid plugin assembles them too.
 *
 *   raidsim create --level=10 --chunk=64K --name=data a.img b.img c.img d.img
 *
 * The array's shape is the one raidsim's geometry serves
 * (raidsim/core/geometry.c): RAID 0 in md's multi-zone "alternate"
 * layout, RAID 1, RAID 10 with near copies.  Sizes come from that
 * geometry, given each member's size as md will use it, so the array
 * size printed here is the one the plugin serves.  What goes in the
 * superblock, and why, is in raidsim/core/mdsb.c: mdadm 4.2's own
 * choices of data offset, used size, bad block log and role table.
 *
 * Nothing is written until every check has passed: the parameters, the
 * members (present, distinct, large enough), and that no member already
 * holds md metadata, a file system or a partition table.  libblkid
 * detects those, as it does for blkid and wipefs; --force overwrites
 * such a member and first erases the signatures libblkid finds, as
 * wipefs -a would, so that no stale one is left beside the new
 * superblock.  A bad parameter is one line naming it, and exit status 1.
 *
 * Run: build/raidsim/raidsim create --help
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/random.h>
#include <unistd.h>

#include <blkid.h>

#include "raidsim/geometry.h"
#include "raidsim/mdbitmap.h"
#include "raidsim/mdsb.h"
#include "raidsim/probe.h"
#include "raidsim/raidkeys.h"
#include "cmd.h"
#include "options.h"
#include "md-member.h"

#define CMD PROGRAM_NAME " create"

/* mdadm's defaults: a 512K chunk, the array named after its device.
 * raidsim has no device to name it after, so it is called "raidsim"
 * unless --name says otherwise.
 */
#define CREATE_CHUNK_DEFAULT (UINT64_C (512) << 10)
#define CREATE_NAME_DEFAULT  "raidsim"
/* mdadm keeps names to 31 bytes, so that they are NUL-terminated. */
#define NAME_MAX_LEN 31

enum opt_id {
  OPT_LEVEL = 'l', OPT_CHUNK = 'c', OPT_NAME = 'N', OPT_UUID = 'u',
  OPT_FORCE = 'f', OPT_HELP = 'h',
  OPT_COPIES = 256, OPT_ASSUME_CLEAN, OPT_BITMAP, OPT_BITMAP_CHUNK,
};

/* The options, described once: getopt's tables and --help come from
 * here.  The spellings are mdadm's, but for --copies (mdadm says
 * --layout=n2), which is the plugin's and raidsim map's.  The values of
 * level, chunk and copies are parsed by the core's table of array keys
 * (raidsim/core/raidkeys.c), as the plugin's and raidsim map's are; the
 * help here is create's own, because its default chunk is mdadm's.
 */
static const struct create_opt {
  const char *name;
  int id;
  const char *metavar;          /* NULL: takes no value */
  const char *help;
} opts[] = {
  { "level", OPT_LEVEL, "0|1|10", "RAID level (required)" },
  { "chunk", OPT_CHUNK, "SIZE",
    "RAID 0 and 10: 4K to 64M, a power of two (default 512K)" },
  { "copies", OPT_COPIES, "N", "RAID 10 near copies (default 2)" },
  { "name", OPT_NAME, "NAME",
    "the array's name, 1 to 31 bytes (default " CREATE_NAME_DEFAULT ")" },
  { "uuid", OPT_UUID, "UUID", "the array's UUID (default random)" },
  { "bitmap", OPT_BITMAP, "internal|none",
    "write-intent bitmap (default: internal over 100G, as mdadm)" },
  { "bitmap-chunk", OPT_BITMAP_CHUNK, "SIZE",
    "array bytes per bit, a power of two (default: 64M, as mdadm)" },
  { "assume-clean", OPT_ASSUME_CLEAN, NULL,
    "RAID 1 and 10: mark the copies in sync (no resync)" },
  { "force", OPT_FORCE, NULL,
    "overwrite members that hold md metadata or a file system, and "
    "allow a one-member RAID 0 or 1 (as mdadm)" },
  { "help", OPT_HELP, NULL, "show this help" },
};

#define NOPTS (sizeof opts / sizeof opts[0])

struct create {
  struct raid_settings keys;    /* level, chunk, copies */
  enum raid_level level;
  uint64_t chunk;
  unsigned copies;
  const char *name;
  uint8_t uuid[16];
  bool have_uuid;
  bool force, assume_clean;
  int bitmap;                   /* -1 mdadm's default, 0 none, 1 internal */
  uint64_t bitmap_chunk;        /* bytes; 0 for mdadm's choice */
  uint8_t *bmbuf;               /* the bitmap as written (same on all) */
  uint64_t bmlen;

  unsigned n;                   /* members, missing ones included */
  const char *path[RAID_MAX_MEMBERS];
  bool present[RAID_MAX_MEMBERS];
  struct md_member m[RAID_MAX_MEMBERS];
  char signature[RAID_MAX_MEMBERS][64];   /* what libblkid found, or "" */
  uint8_t sbbuf[RAID_MAX_MEMBERS][MDSB_SIZE];   /* encoded, to write */
};

static void
usage (FILE *fp)
{
  size_t i;

  fprintf (fp,
           "usage: %s --level=0|1|10 [--chunk=SIZE] [--copies=N] "
           "[--name=NAME]\n"
           "           [--uuid=UUID] [--assume-clean] [--force] MEMBER...\n"
           "\n"
           "Write an md v1.2 superblock to every MEMBER (a file or a block\n"
           "device), as mdadm --create does: the members then form an md\n"
           "array that mdadm --examine reads and Linux md assembles.\n"
           "A member may be 'missing' on RAID 1 and 10: the array starts\n"
           "degraded.  Members that already hold md metadata, a file\n"
           "system or a partition table are refused without --force, and\n"
           "so is an array of one member (a single drive), as mdadm does.\n"
           "Sizes take K, M, G or T (powers of 1024).\n"
           "\n"
           "Options:\n",
           CMD);
  for (i = 0; i < NOPTS; ++i) {
    char lhs[64];

    if (opts[i].id < 256)
      snprintf (lhs, sizeof lhs, "-%c, --%s%s%s", opts[i].id, opts[i].name,
                opts[i].metavar ? "=" : "",
                opts[i].metavar ? opts[i].metavar : "");
    else
      snprintf (lhs, sizeof lhs, "    --%s%s%s", opts[i].name,
                opts[i].metavar ? "=" : "",
                opts[i].metavar ? opts[i].metavar : "");
    fprintf (fp, "  %-24s %s\n", lhs, opts[i].help);
  }
}

/* One line, "raidsim CMD: message", as every command says it. */
#define error(...) cli_error (CMD, __VA_ARGS__)

static int
check_name (const char *name)
{
  const char *p;

  if (*name == '\0' || strlen (name) > NAME_MAX_LEN) {
    error ("name: '%s' is not 1 to %d bytes long", name, NAME_MAX_LEN);
    return -1;
  }
  for (p = name; *p; ++p)
    if ((unsigned char) *p <= ' ' || *p == '/' || *p == 0x7f) {
      error ("name: '%s' has a space, a control character or a '/' "
             "(it names /dev/md/NAME)", name);
      return -1;
    }
  return 0;
}

static int
parse_options (struct create *cr, int argc, char **argv)
{
  struct option longopts[NOPTS + 1];
  char shortopts[2 * NOPTS + 1], *sp = shortopts;
  size_t i;
  int c;

  for (i = 0; i < NOPTS; ++i) {
    longopts[i].name = opts[i].name;
    longopts[i].has_arg = opts[i].metavar ? required_argument : no_argument;
    longopts[i].flag = NULL;
    longopts[i].val = opts[i].id;
    if (opts[i].id < 256) {
      *sp++ = opts[i].id;
      if (opts[i].metavar)
        *sp++ = ':';
    }
  }
  memset (&longopts[NOPTS], 0, sizeof longopts[NOPTS]);
  *sp = '\0';

  raid_settings_init (&cr->keys);
  opterr = 0;                   /* one line of our own instead */
  while ((c = getopt_long (argc, argv, shortopts, longopts, NULL)) != -1) {
    switch (c) {
    case OPT_LEVEL:
    case OPT_CHUNK:
    case OPT_COPIES:
      /* The option's name is the key's ("level", "chunk", "copies"). */
      for (i = 0; opts[i].id != c; ++i)
        ;
      if (raid_settings_parse (&cr->keys, opts[i].name, optarg) != 0) {
        error ("%s", raid_geom_error ());
        return -1;
      }
      break;
    case OPT_NAME:
      if (check_name (optarg) == -1)
        return -1;
      cr->name = optarg;
      break;
    case OPT_UUID:
      if (mdsb_parse_uuid (optarg, cr->uuid) == -1) {
        error ("%s", mdsb_error ());
        return -1;
      }
      cr->have_uuid = true;
      break;
    case OPT_ASSUME_CLEAN:
      cr->assume_clean = true;
      break;
    case OPT_BITMAP:
      if (strcmp (optarg, "internal") == 0)
        cr->bitmap = 1;
      else if (strcmp (optarg, "none") == 0)
        cr->bitmap = 0;
      else {
        error ("bitmap: '%s' is not internal or none", optarg);
        return -1;
      }
      break;
    case OPT_BITMAP_CHUNK:
      if (raid_parse_size (optarg, &cr->bitmap_chunk) == -1 ||
          cr->bitmap_chunk == 0) {
        error ("bitmap-chunk: '%s' is not a size (4K, 64M ...)", optarg);
        return -1;
      }
      break;
    case OPT_FORCE:
      cr->force = true;
      break;
    case OPT_HELP:
      usage (stdout);
      exit (EXIT_SUCCESS);
    default:
      error ("option: '%s' is not an option of %s, or lacks its value "
             "(see --help)", argv[optind - 1], CMD);
      return -1;
    }
  }

  for (; optind < argc; ++optind) {
    if (cr->n == RAID_MAX_MEMBERS) {
      error ("member: at most %d members are supported", RAID_MAX_MEMBERS);
      return -1;
    }
    cr->path[cr->n] = argv[optind];
    cr->present[cr->n] = strcasecmp (argv[optind], "missing") != 0;
    cr->m[cr->n].fd = -1;
    cr->n++;
  }

  /* The core's rules across keys (level required, copies on RAID 10
   * only and no more than the members, a member at least), then
   * mdadm's: one member only with --force, RAID 1 takes no chunk.
   */
  if (raid_settings_check (&cr->keys, cr->n) == -1) {
    error ("%s", raid_geom_error ());
    return -1;
  }
  /* mdadm --create refuses --raid-devices=1 without --force, however
   * valid (md runs a one-member RAID 0 or 1): one member is more often
   * a member forgotten than a single drive meant.
   */
  if (cr->n == 1 && !cr->force) {
    error ("member: 1 member is an unusual number for an array, so it is "
           "probably a mistake (mdadm refuses it too); use --force if you "
           "mean a one-member RAID %s", raid_level_name (cr->keys.level));
    return -1;
  }
  cr->level = cr->keys.level;
  cr->copies = cr->keys.copies;
  if (cr->level == RAID_LEVEL_1 && cr->keys.set[RAID_KEY_CHUNK]) {
    error ("chunk: RAID 1 has no chunks (mdadm refuses --chunk for it too)");
    return -1;
  }
  cr->chunk = cr->keys.set[RAID_KEY_CHUNK] ? cr->keys.chunk
    : CREATE_CHUNK_DEFAULT;
  if (cr->name == NULL)
    cr->name = CREATE_NAME_DEFAULT;
  /* mdadm: "bitmaps not meaningful with level raid0". */
  if (cr->level == RAID_LEVEL_0 && cr->bitmap == 1) {
    error ("bitmap: RAID 0 has no copies to keep in sync (mdadm refuses "
           "a bitmap on it too)");
    return -1;
  }
  /* A chunk asked for means a bitmap wanted, whatever the size. */
  if (cr->bitmap_chunk && cr->bitmap == -1 && cr->level != RAID_LEVEL_0)
    cr->bitmap = 1;
  if (cr->bitmap_chunk && (cr->bitmap == 0 || cr->level == RAID_LEVEL_0)) {
    error ("bitmap-chunk: the array has no bitmap (--bitmap=none, or "
           "RAID 0)");
    return -1;
  }
  return 0;
}

/* The internal bitmap, as mdadm --create writes it (mdbitmap.c): the
 * header, then every bit of its 4K-rounded size set, so that md
 * resyncs the whole array when it first starts it (--assume-clean marks
 * the array clean instead, and md then clears the bits lazily).
 * Returns 0, or -1 after an error line.
 */
static int
build_bitmap (struct create *cr, const struct mdsb_array *a, unsigned copies)
{
  struct mdbm h;
  uint32_t chunk;

  memset (&h, 0, sizeof h);
  h.sync_size = mdbm_sync_size (a->level, a->size, a->raid_disks, copies);
  if (mdbm_choose_chunk (h.sync_size, mdsb_bitmap_space (a->size),
                         cr->bitmap_chunk, &chunk) == -1) {
    error ("%s", mdsb_error ());
    return -1;
  }
  h.magic = MDBM_MAGIC;
  h.version = MDBM_MAJOR_HI;
  memcpy (h.uuid, a->uuid, 16);
  h.events = a->events;
  h.chunksize = chunk;
  h.daemon_sleep = MDBM_DEFAULT_DAEMON_SLEEP;
  cr->bmlen = mdbm_bytes (&h, 4096);
  cr->bmbuf = malloc (cr->bmlen);
  if (cr->bmbuf == NULL) {
    error ("bitmap: %s", strerror (errno));
    return -1;
  }
  memset (cr->bmbuf, 0xff, cr->bmlen);
  mdbm_encode (&h, cr->bmbuf);
  return 0;
}

static int
write_bitmap (const struct create *cr, unsigned i)
{
  ssize_t r = pwrite (cr->m[i].fd, cr->bmbuf, cr->bmlen,
                      MDSB_OFFSET + MDBM_OFFSET_SECTORS * MDSB_SECTOR);

  if (r != (ssize_t) cr->bmlen || fsync (cr->m[i].fd) == -1) {
    error ("member: %s: write of the bitmap: %s", cr->path[i],
           r == -1 || r == (ssize_t) cr->bmlen ? strerror (errno)
           : "short write");
    return -1;
  }
  return 0;
}

/* Which members may be missing: none on RAID 0, all but one on RAID 1,
 * and on RAID 10 any set that leaves a copy of every chunk (checked by
 * check_copies once the geometry exists).
 */
static int
check_missing (const struct create *cr)
{
  unsigned i, npresent = 0;

  for (i = 0; i < cr->n; ++i)
    npresent += cr->present[i];
  if (npresent == cr->n)
    return 0;
  if (cr->level == RAID_LEVEL_0) {
    error ("member: RAID 0 cannot start with a member missing: it keeps "
           "no copies");
    return -1;
  }
  if (npresent == 0) {
    error ("member: every member is missing");
    return -1;
  }
  return 0;
}

/* RAID 10: every chunk keeps a copy on a present member.  Chunk c's
 * copies start at slot c * copies, so the pattern repeats every
 * nmembers chunks at most.
 */
static int
check_copies (const struct create *cr, const struct raid_geom *g)
{
  uint64_t c, nchunks = raid_geom_size (g) / raid_geom_chunk (g);
  unsigned k;

  if (cr->level != RAID_LEVEL_10)
    return 0;
  for (c = 0; c < cr->n && c < nchunks; ++c) {
    struct raid_piece p;
    bool covered = false;

    if (raid_geom_map (g, c * raid_geom_chunk (g), 1, &p) == -1)
      abort ();
    for (k = 0; k < p.ncopies; ++k)
      covered |= cr->present[p.copy[k].member];
    if (!covered) {
      error ("member: with these members missing, no copy of chunk %"
             PRIu64 " is left (its copies are on members %u to %u)",
             c, p.copy[0].member, p.copy[p.ncopies - 1].member);
      return -1;
    }
  }
  return 0;
}

/* Ask libblkid what the member already holds.  Returns 0 (the signature,
 * or "" if none, in cr->signature[i]) or -1.
 */
static int
probe_member (struct create *cr, unsigned i)
{
  switch (raid_probe_signature (cr->m[i].fd, cr->signature[i],
                                sizeof cr->signature[i])) {
  case RAID_PROBE_CANNOT:
    error ("member: %s: libblkid cannot probe it", cr->path[i]);
    return -1;
  case RAID_PROBE_FAILED:
    error ("member: %s: libblkid failed to probe it", cr->path[i]);
    return -1;
  }
  return 0;
}

/* --force: erase every signature libblkid finds, as wipefs -a does. */
static int
wipe_member (struct create *cr, unsigned i)
{
  blkid_probe pr;
  const char *type;
  int n = 0;

  pr = blkid_new_probe ();
  if (pr == NULL || blkid_probe_set_device (pr, cr->m[i].fd, 0, 0) != 0) {
    error ("member: %s: libblkid cannot probe it", cr->path[i]);
    if (pr)
      blkid_free_probe (pr);
    return -1;
  }
  blkid_probe_enable_superblocks (pr, 1);
  blkid_probe_set_superblocks_flags (pr, BLKID_SUBLKS_MAGIC |
                                     BLKID_SUBLKS_TYPE |
                                     BLKID_SUBLKS_BADCSUM);
  blkid_probe_enable_partitions (pr, 1);
  blkid_probe_set_partitions_flags (pr, BLKID_PARTS_MAGIC);
  while (blkid_do_probe (pr) == 0) {
    if (blkid_probe_lookup_value (pr, "TYPE", &type, NULL) != 0 &&
        blkid_probe_lookup_value (pr, "PTTYPE", &type, NULL) != 0)
      type = "unknown";
    if (blkid_do_wipe (pr, 0) != 0) {
      error ("member: %s: erasing its %s signature failed", cr->path[i],
             type);
      blkid_free_probe (pr);
      return -1;
    }
    printf ("%s: %s: erased its %s signature (--force)\n", CMD,
            cr->path[i], type);
    if (++n > 64)                 /* a probe that never ends */
      break;
  }
  blkid_free_probe (pr);
  return 0;
}

static void
random_bytes (uint8_t *buf, size_t n)
{
  while (n > 0) {
    ssize_t r = getrandom (buf, n, 0);

    if (r == -1) {
      if (errno == EINTR)
        continue;
      error ("getrandom: %s", strerror (errno));
      exit (EXIT_FAILURE);
    }
    buf += r;
    n -= r;
  }
}

static void
close_members (struct create *cr)
{
  unsigned i;

  for (i = 0; i < cr->n; ++i)
    md_member_close (&cr->m[i]);
}

static int
create (struct create *cr)
{
  uint64_t member_sectors[RAID_MAX_MEMBERS], geom_size[RAID_MAX_MEMBERS];
  uint64_t data_offset = 0, used = UINT64_MAX, array_size;
  uint32_t chunk_sectors;
  uint16_t roles[RAID_MAX_MEMBERS];
  struct raid_geom_params gp;
  struct raid_geom *g;
  struct mdsb_array a;
  struct mdsb sb;
  char uuidstr[36];
  unsigned i, j;

  if (check_missing (cr) == -1)
    return -1;

  /* Open the members and read their sizes. */
  for (i = 0; i < cr->n; ++i) {
    if (!cr->present[i])
      continue;
    if (md_member_open (&cr->m[i], CMD ": member", cr->path[i], true) == -1)
      return -1;
    for (j = 0; j < i; ++j)
      if (cr->present[j] && md_member_same (&cr->m[i], &cr->m[j])) {
        error ("member: %s is the same as %s", cr->path[i], cr->path[j]);
        return -1;
      }
    member_sectors[i] = cr->m[i].size / MDSB_SECTOR;
  }

  /* mdadm takes the data offset from the first member it meets, and
   * keeps it for all; RAID 1 has no chunk.
   */
  chunk_sectors = cr->level == RAID_LEVEL_1 ? 0 : cr->chunk / MDSB_SECTOR;
  for (i = 0; i < cr->n; ++i)
    if (cr->present[i]) {
      data_offset = mdsb_default_data_offset (member_sectors[i],
                                              chunk_sectors);
      break;
    }

  /* What each member gives the array, as md will use it (mdsb.c). */
  for (i = 0; i < cr->n; ++i) {
    uint64_t avail;

    if (!cr->present[i])
      continue;
    if (member_sectors[i] <= data_offset) {
      error ("member: %s has %" PRIu64 " bytes, no room after md's data "
             "offset of %" PRIu64 " bytes", cr->path[i], cr->m[i].size,
             data_offset * MDSB_SECTOR);
      return -1;
    }
    avail = member_sectors[i] - data_offset;
    if (cr->level == RAID_LEVEL_1)
      avail &= ~(uint64_t) 127;           /* whole 64K */
    else
      avail &= ~(uint64_t) (chunk_sectors - 1);
    if (avail == 0) {
      error ("member: %s has %" PRIu64 " bytes, less than one %s after "
             "md's data offset of %" PRIu64 " bytes", cr->path[i],
             cr->m[i].size, cr->level == RAID_LEVEL_1 ? "64K" : "chunk",
             data_offset * MDSB_SECTOR);
      return -1;
    }
    if (avail < used)
      used = avail;
  }

  /* The geometry, from the member sizes md will use: RAID 0 members use
   * all their own space, the others the same "size" each.
   */
  for (i = 0; i < cr->n; ++i)
    geom_size[i] = MDSB_SECTOR *
      (cr->level == RAID_LEVEL_0 ? member_sectors[i] : data_offset + used);
  memset (&gp, 0, sizeof gp);
  gp.level = cr->level;
  gp.chunk = cr->level == RAID_LEVEL_1 ? RAID_CHUNK_MIN : cr->chunk;
  gp.copies = cr->copies;
  gp.data_offset = data_offset * MDSB_SECTOR;
  gp.nmembers = cr->n;
  gp.member_size = geom_size;
  g = raid_geom_new (&gp);
  if (g == NULL) {
    error ("%s", raid_geom_error ());
    return -1;
  }
  if (check_copies (cr, g) == -1)
    goto err;
  array_size = raid_geom_size (g);

  /* The superblocks, all built before anything is written. */
  if (!cr->have_uuid)
    random_bytes (cr->uuid, sizeof cr->uuid);
  for (i = 0; i < cr->n; ++i)
    roles[i] = cr->present[i] ? i : MDSB_ROLE_SPARE;
  memset (&a, 0, sizeof a);
  memcpy (a.uuid, cr->uuid, sizeof a.uuid);
  a.name = cr->name;
  a.level = cr->level;
  a.raid_disks = cr->n;
  a.data_offset = data_offset;
  a.ctime = time (NULL);
  a.events = 0;
  a.ndevs = cr->n;
  a.dev_roles = roles;
  switch (cr->level) {
  case RAID_LEVEL_0:
    a.layout = MDSB_RAID0_LAYOUT_ALTERNATE;
    a.feature_map = raid_geom_nzones (g) > 1 ? MDSB_FEATURE_RAID0_LAYOUT : 0;
    a.chunksize = chunk_sectors;
    a.size = 0;
    a.resync_offset = MDSB_RESYNC_DONE;
    break;
  case RAID_LEVEL_1:
    a.size = used;
    a.resync_offset = cr->assume_clean ? MDSB_RESYNC_DONE : 0;
    break;
  case RAID_LEVEL_10:
    a.layout = MDSB_RAID10_LAYOUT (raid_geom_copies (g), 1);
    a.chunksize = chunk_sectors;
    a.size = used;
    a.resync_offset = cr->assume_clean ? MDSB_RESYNC_DONE : 0;
    break;
  }
  if (cr->level != RAID_LEVEL_0 &&
      (cr->bitmap == 1 || (cr->bitmap == -1 &&
                           mdbm_default_on (cr->level, a.size)))) {
    if (build_bitmap (cr, &a, raid_geom_copies (g)) == -1)
      goto err;
    a.bitmap_sectors = cr->bmlen / MDSB_SECTOR;
  }
  for (i = 0; i < cr->n; ++i) {
    struct mdsb_device d;

    if (!cr->present[i])
      continue;
    memset (&d, 0, sizeof d);
    d.dev_number = i;
    d.data_size = member_sectors[i] - data_offset;
    random_bytes (d.uuid, sizeof d.uuid);
    if (mdsb_build (&sb, &a, &d) == -1) {
      error ("%s", mdsb_error ());
      goto err;
    }
    mdsb_encode (&sb, cr->sbbuf[i]);
  }

  /* Last check: what the members hold now. */
  for (i = 0; i < cr->n; ++i) {
    if (!cr->present[i])
      continue;
    if (probe_member (cr, i) == -1)
      goto err;
    if (cr->signature[i][0] && !cr->force) {
      error ("member: %s holds %s%s (libblkid found it); use --force to "
             "overwrite it", cr->path[i],
             strcmp (cr->signature[i], "linux_raid_member") == 0
             ? "md metadata: " : "", cr->signature[i]);
      goto err;
    }
  }

  /* Write. */
  for (i = 0; i < cr->n; ++i) {
    if (!cr->present[i])
      continue;
    if (cr->signature[i][0] && wipe_member (cr, i) == -1)
      goto err;
    /* The bitmap first, as mdadm's store_super1 and md: a superblock
     * that names a bitmap never points at garbage.
     */
    if ((cr->bmbuf && write_bitmap (cr, i) == -1) ||
        md_member_write_sb (&cr->m[i], CMD ": member", cr->sbbuf[i]) == -1) {
      if (i > 0)
        error ("member: the members before %s were written; create the "
               "array again (with --force)", cr->path[i]);
      goto err;
    }
  }

  mdsb_format_uuid (cr->uuid, uuidstr);
  printf ("%s: RAID %s \"%s\", UUID %s\n", CMD,
          raid_level_name (cr->level), cr->name, uuidstr);
  printf ("  members: %u", cr->n);
  for (i = 0, j = 0; i < cr->n; ++i)
    j += !cr->present[i];
  if (j)
    printf (" (%u missing: the array starts degraded)", j);
  if (cr->level == RAID_LEVEL_10)
    printf (", near copies: %u", raid_geom_copies (g));
  if (cr->level != RAID_LEVEL_1)
    printf (", chunk: %" PRIu64 "K", cr->chunk >> 10);
  printf ("\n");
  printf ("  data offset: %" PRIu64 " sectors (%" PRIu64 " bytes) on every "
          "member\n", data_offset, data_offset * MDSB_SECTOR);
  printf ("  array size: %" PRIu64 " bytes (%" PRIu64 " KiB)\n",
          array_size, array_size >> 10);
  if (cr->bmbuf) {
    struct mdbm h;
    char cs[24];

    mdbm_unpack (cr->bmbuf, &h);
    mdbm_format_chunk (h.chunksize, cs);
    printf ("  bitmap: internal, %s chunks, %" PRIu64 " bits, 8 sectors "
            "after the superblock\n", cs,
            mdbm_bits (h.sync_size, h.chunksize));
  }
  if (cr->level != RAID_LEVEL_0 && !cr->assume_clean)
    printf ("  state: active (%s)\n", raid_geom_copies (g) > 1
            ? "md resyncs the copies when it first starts the array"
            : "as mdadm writes it; with one copy, md's resync has "
            "nothing to copy");
  raid_geom_free (g);
  return 0;

 err:
  raid_geom_free (g);
  return -1;
}

int
cmd_create (int argc, char **argv)
{
  struct create *cr;
  int r;

  cr = calloc (1, sizeof *cr);
  if (cr == NULL) {
    error ("calloc: %s", strerror (errno));
    return 1;
  }
  cr->bitmap = -1;
  r = parse_options (cr, argc, argv);
  if (r == 0)
    r = create (cr);
  close_members (cr);
  free (cr->bmbuf);
  free (cr);
  return r == 0 ? 0 : 1;
}
