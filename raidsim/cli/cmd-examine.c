/* raidsim examine: print the md superblock of each member, in the words,
 * order and layout of mdadm --examine (mdadm 4.2, version 1.x metadata),
 * so that the two can be compared line by line:
 *
 *   diff <(mdadm --examine a.img) <(raidsim examine a.img)
 *
 * tests/integration/test-mdadm.sh does exactly that for arrays of every
 * level.  The superblock is read with mdsb_unpack, so that a damaged one
 * is still shown (with "Checksum : X - expected Y", as mdadm shows it);
 * then it is checked with mdsb_decode and mdsb_check_member, and any
 * fault is reported on stderr and makes the exit status 1.
 *
 * Only version 1.2 (the superblock 4K from the start) is read.  Not yet
 * shown as mdadm shows them, because raidsim writes none of them: the
 * reshape lines and the cluster name.  With -X, each member's internal
 * bitmap is printed as mdadm -X prints it (test-mdadm-bitmap.sh).
 *
 * With --assembly, the members are taken as one array, as the nbdkit
 * raid plugin would assemble it, and what md's rules make of each is
 * printed instead (raidsim/core/mdrules.c, the very functions the
 * plugin decides with): trusted, stale (and whether its re-add is
 * rebuilt from the write-intent bitmap or in full), foreign, of
 * another shape, without a role; then whether the array starts, whole
 * or degraded.  "missing" stands for an absent member, as in the
 * plugin's member list (tests/unit/test-examine-assembly.sh).
 *
 * Run: build/raidsim/raidsim examine a.img b.img
 *      build/raidsim/raidsim examine --assembly a.img b.img missing
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "raidsim/geometry.h"
#include "raidsim/mdbitmap.h"
#include "raidsim/mdrules.h"
#include "raidsim/mdsb.h"
#include "cmd.h"
#include "md-member.h"

#define CMD PROGRAM_NAME " examine"

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s MEMBER...\n"
           "\n"
           "Print the md v1.2 superblock of each MEMBER (a file or a block\n"
           "device) as mdadm --examine prints it, field for field.  The\n"
           "exit status is 1 if any member has no superblock, or one that\n"
           "md would refuse (the reason goes to stderr).\n"
           "\n"
           "Options:\n"
           "  -X, --examine-bitmap  print each member's internal write-intent\n"
           "                        bitmap instead, as mdadm -X prints it\n"
           "  -A, --assembly        take the members as one array and print\n"
           "                        whom md's rules trust, as the nbdkit raid\n"
           "                        plugin assembles it (\"missing\" for an\n"
           "                        absent member); exit status 1 if it\n"
           "                        would not start\n"
           "  -h, --help            show this help\n",
           CMD);
}

/* mdadm's " (X.YZ MiB X.YZ MB)" after a byte count: nothing below 5000K,
 * MiB below 2G, GiB below 2T, else TiB; hundredths rounded half up.
 */
static const char *
human_size (uint64_t bytes)
{
  static char buf[64];
  static const struct {
    const char *bin, *dec;
    uint64_t bin_unit, dec_unit;
  } u[] = {
    { "MiB", "MB", UINT64_C (1) << 20, UINT64_C (1000000) },
    { "GiB", "GB", UINT64_C (1) << 30, UINT64_C (1000000000) },
    { "TiB", "TB", UINT64_C (1) << 40, UINT64_C (1000000000000) },
  };
  unsigned i;
  uint64_t cbin, cdec;

  if (bytes < 5000 * 1024)
    return "";
  if (bytes < (UINT64_C (2) << 30))
    i = 0;
  else if (bytes < (UINT64_C (2) << 40))
    i = 1;
  else
    i = 2;
  cbin = (bytes * 200 / u[i].bin_unit + 1) / 2;
  cdec = (bytes / (u[i].dec_unit / 200) + 1) / 2;
  snprintf (buf, sizeof buf, " (%" PRIu64 ".%02" PRIu64 " %s %" PRIu64
            ".%02" PRIu64 " %s)",
            cbin / 100, cbin % 100, u[i].bin, cdec / 100, cdec % 100,
            u[i].dec);
  return buf;
}

static void
print_time (const char *label, uint64_t t)
{
  time_t secs = t & ((UINT64_C (1) << 40) - 1);

  printf ("%s : %.24s\n", label, ctime (&secs));
}

static void
print_r10_layout (uint32_t layout)
{
  unsigned near = MDSB_RAID10_NEAR (layout), far = MDSB_RAID10_FAR (layout);
  const char *sep = "";

  if (near != 1) {
    printf ("%s near=%u", sep, near);
    sep = ",";
  }
  if (far != 1)
    printf ("%s %s=%u", sep, MDSB_RAID10_OFFSET (layout) ? "offset" : "far",
            far);
  if (near * far == 1)
    printf ("NO REDUNDANCY");
}

/* The data disks' share of each member, for "Array Size". */
static bool
array_share (const struct mdsb *sb, uint64_t *num, uint64_t *den)
{
  *den = 1;
  switch (sb->level) {
  case 1: *num = 1; break;
  case 4: case 5: *num = sb->raid_disks - 1; break;
  case 6: *num = sb->raid_disks - 2; break;
  case 10:
    *num = sb->raid_disks;
    *den = MDSB_RAID10_NEAR (sb->layout) * MDSB_RAID10_FAR (sb->layout);
    break;
  default: return false;
  }
  return *num != 0 && *den != 0;
}

static void
print_array_state (const struct mdsb *sb)
{
  int32_t delta_extra = 0;
  uint32_t d, i, n;
  bool inconsistent = false;

  if ((sb->feature_map & MDSB_FEATURE_RESHAPE_ACTIVE) &&
      (int32_t) sb->delta_disks < 0)
    delta_extra = -(int32_t) sb->delta_disks;
  n = sb->raid_disks + delta_extra;

  printf ("   Array State : ");
  for (d = 0; d < n; ++d) {
    unsigned cnt = 0;

    for (i = 0; i < sb->max_dev && i < MDSB_MAX_DEV_LIMIT; ++i)
      if (sb->dev_roles[i] == d)
        cnt++;
    if (cnt == 2 && sb->level > 0)
      putchar ('R');
    else if (cnt == 1)
      putchar ('A');
    else if (cnt == 0)
      putchar ('.');
    else {
      putchar ('?');
      inconsistent = true;
    }
  }
  printf (" ('A' == active, '.' == missing, 'R' == replacing)\n");
  for (i = 0; i < sb->max_dev && i < MDSB_MAX_DEV_LIMIT; ++i)
    if (sb->dev_roles[i] <= MDSB_ROLE_MAX && sb->dev_roles[i] > n)
      inconsistent = true;
  if (inconsistent) {
    printf ("WARNING Array state is inconsistent - each number should "
            "appear only once\n");
    for (i = 0; i < sb->max_dev && i < MDSB_MAX_DEV_LIMIT; ++i)
      if (sb->dev_roles[i] >= MDSB_ROLE_FAULTY)
        printf (" %u:-", i);
      else
        printf (" %u:%u", i, sb->dev_roles[i]);
    printf ("\n");
  }
}

static void
print_uuid (const char *label, const uint8_t uuid[16])
{
  char s[36];

  mdsb_format_uuid (uuid, s);
  printf ("%s : %s\n", label, s);
}

static void
examine (const struct mdsb *sb, const uint8_t *buf, uint64_t member_sectors,
         uint64_t bm_sectors,
         const char *homehost)
{
  const char *level = mdsb_level_name (sb->level);
  size_t hl = strlen (homehost);
  uint64_t num, den, before, after;
  uint32_t csum;
  unsigned role;

  printf ("          Magic : %08" PRIx32 "\n", sb->magic);
  printf ("        Version : 1.%d\n",
          sb->super_offset <= 4 ? 1 : sb->super_offset <= 8 ? 2 : 0);
  printf ("    Feature Map : 0x%" PRIx32 "\n", sb->feature_map);
  print_uuid ("     Array UUID", sb->set_uuid);
  printf ("           Name : %.32s", sb->set_name);
  if (hl > 0 && hl < 32 && sb->set_name[hl] == ':' &&
      strncmp (sb->set_name, homehost, hl) == 0)
    printf ("  (local to host %s)", homehost);
  printf ("\n");
  print_time ("  Creation Time", sb->ctime);
  printf ("     Raid Level : %s\n", level ? level : "-unknown-");
  printf ("   Raid Devices : %" PRIu32 "\n", sb->raid_disks);
  printf ("\n");

  printf (" Avail Dev Size : %" PRIu64 " sectors%s\n",
          sb->data_size, human_size (sb->data_size << 9));
  if (sb->level > 0) {
    if (array_share (sb, &num, &den)) {
      uint64_t bytes = (sb->size << 9) * num / den;

      printf ("     Array Size : %" PRIu64 " KiB%s\n",
              bytes >> 10, human_size (bytes));
    }
    if (sb->size != sb->data_size)
      printf ("  Used Dev Size : %" PRIu64 " sectors%s\n",
              sb->size, human_size (sb->size << 9));
  }
  if (sb->data_offset)
    printf ("    Data Offset : %" PRIu64 " sectors\n", sb->data_offset);
  if (sb->new_offset && (sb->feature_map & MDSB_FEATURE_NEW_OFFSET))
    printf ("     New Offset : %" PRIu64 " sectors\n",
            sb->data_offset + (int32_t) sb->new_offset);
  printf ("   Super Offset : %" PRIu64 " sectors\n", sb->super_offset);
  if (sb->feature_map & MDSB_FEATURE_RECOVERY_OFFSET)
    printf ("Recovery Offset : %" PRIu64 " sectors\n", sb->recovery_offset);
  mdsb_unused_space (sb, member_sectors, bm_sectors, &before, &after);
  if (after != 1 && !(sb->feature_map & MDSB_FEATURE_NEW_OFFSET))
    printf ("   Unused Space : before=%" PRIu64 " sectors, after=%" PRIu64
            " sectors\n", before, after);
  printf ("          State : %s\n",
          sb->resync_offset == MDSB_RESYNC_DONE ? "clean" : "active");
  print_uuid ("    Device UUID", sb->device_uuid);
  printf ("\n");

  if (sb->feature_map & MDSB_FEATURE_BITMAP_OFFSET)
    printf ("Internal Bitmap : %ld sectors from superblock\n",
            (long) (int32_t) sb->bitmap_offset);
  else if (sb->feature_map & (MDSB_FEATURE_PPL | MDSB_FEATURE_MULTIPLE_PPLS))
    printf ("            PPL : %u sectors at offset %d sectors from "
            "superblock\n", (unsigned) (sb->bitmap_offset >> 16),
            (int) (sb->bitmap_offset & 0xffff));
  if (sb->devflags) {
    printf ("          Flags :");
    if (sb->devflags & MDSB_DEVFLAG_WRITEMOSTLY)
      printf (" write-mostly");
    if (sb->devflags & MDSB_DEVFLAG_FAILFAST)
      printf (" failfast");
    printf ("\n");
  }
  print_time ("    Update Time", sb->utime);
  if (sb->bblog_size && sb->bblog_offset) {
    printf ("  Bad Block Log : %d entries available at offset %ld sectors",
            sb->bblog_size * 512 / 8, (long) (int32_t) sb->bblog_offset);
    if (sb->feature_map & MDSB_FEATURE_BAD_BLOCKS)
      printf (" - bad blocks present.");
    printf ("\n");
  }
  if (mdsb_checksum (buf, MDSB_SIZE, &csum) == 0 && csum == sb->sb_csum)
    printf ("       Checksum : %" PRIx32 " - correct\n", sb->sb_csum);
  else
    printf ("       Checksum : %" PRIx32 " - expected %" PRIx32 "\n",
            sb->sb_csum, csum);
  printf ("         Events : %" PRIu64 "\n", sb->events);
  printf ("\n");

  if (sb->level == 0 && (sb->feature_map & MDSB_FEATURE_RAID0_LAYOUT))
    printf ("         Layout : %s\n",
            sb->layout == MDSB_RAID0_LAYOUT_ORIGINAL ? "original"
            : sb->layout == MDSB_RAID0_LAYOUT_ALTERNATE ? "alternate"
            : sb->layout == 0 ? "dangerous" : "-unknown-");
  if (sb->level == 10) {
    printf ("         Layout :");
    print_r10_layout (sb->layout);
    printf ("\n");
  }
  switch (sb->level) {
  case 0: case 4: case 5: case 6: case 10:
    printf ("     Chunk Size : %dK\n", (int) sb->chunksize / 2);
    break;
  case MDSB_LEVEL_LINEAR:
    printf ("       Rounding : %dK\n", (int) sb->chunksize / 2);
    break;
  }
  printf ("\n");

  role = mdsb_role (sb);
  printf ("   Device Role : ");
  if (role >= MDSB_ROLE_FAULTY)
    printf ("spare\n");
  else if (role == MDSB_ROLE_JOURNAL)
    printf ("Journal\n");
  else if (sb->feature_map & MDSB_FEATURE_REPLACEMENT)
    printf ("Replacement device %u\n", role);
  else
    printf ("Active device %u\n", role);
  print_array_state (sb);
}

/* Read the internal bitmap (header and bits) of a member whose
 * superblock says it has one; *bm is malloc'd.  Returns its length, or
 * 0 (and *bm NULL) if it has none or it cannot be read.
 */
static uint64_t
read_bitmap (const struct md_member *m, const struct mdsb *sb, uint8_t **bm)
{
  int64_t off = ((int64_t) sb->super_offset + (int32_t) sb->bitmap_offset)
    * MDSB_SECTOR;
  uint8_t hdr[MDBM_HEADER_SIZE];
  struct mdbm h;
  uint64_t len;

  *bm = NULL;
  if (!(sb->feature_map & MDSB_FEATURE_BITMAP_OFFSET) || off < 0 ||
      pread (m->fd, hdr, sizeof hdr, off) != (ssize_t) sizeof hdr)
    return 0;
  mdbm_unpack (hdr, &h);
  len = h.chunksize && h.sync_size ? mdbm_bytes (&h, 512) : sizeof hdr;
  if (len > (UINT64_C (64) << 20) || (*bm = calloc (1, len)) == NULL)
    return 0;
  if (pread (m->fd, *bm, len, off) != (ssize_t) len) {
    free (*bm);
    *bm = NULL;
    return 0;
  }
  return len;
}

/* mdadm -X (--examine-bitmap), as it prints an internal bitmap found on
 * a member: its header, and the bits counted.  Only the Filename line
 * differs, since mdadm -X reads a regular file as a bitmap file from its
 * start (it looks for an internal bitmap on block devices only).
 */
static int
examine_bitmap (const char *path, const uint8_t *bm, uint64_t len)
{
  struct mdbm h;
  uint64_t total, dirty;
  char cs[24];
  unsigned i;

  if (bm == NULL) {
    fprintf (stderr, "%s: %s: no internal bitmap\n", CMD, path);
    return -1;
  }
  mdbm_unpack (bm, &h);
  printf ("        Filename : %s\n", path);
  printf ("           Magic : %08" PRIx32 "\n", h.magic);
  printf ("         Version : %" PRIu32 "\n", h.version);
  if (h.magic != MDBM_MAGIC || h.version < MDBM_MAJOR_HOSTENDIAN ||
      h.version > MDBM_MAJOR_CLUSTERED) {
    fprintf (stderr, "%s: %s: the bitmap is damaged (magic %08" PRIx32
             ", version %" PRIu32 ")\n", CMD, path, h.magic, h.version);
    return -1;
  }
  printf ("            UUID : ");
  for (i = 0; i < 16; ++i)
    printf ("%s%02x", i && i % 4 == 0 ? ":" : "", h.uuid[i]);
  printf ("\n");
  printf ("          Events : %" PRIu64 "\n", h.events);
  printf ("  Events Cleared : %" PRIu64 "\n", h.events_cleared);
  printf ("           State : %s\n", h.state == 0 ? "OK"
          : h.state == MDBM_STATE_STALE ? "Out of date" : "Unknown");
  mdbm_format_chunk (h.chunksize, cs);
  printf ("       Chunksize : %s\n", cs);
  printf ("          Daemon : %" PRIu32 "s flush period\n", h.daemon_sleep);
  if (h.write_behind)
    printf ("      Write Mode : Allow write behind, max %" PRIu32 "\n",
            h.write_behind);
  else
    printf ("      Write Mode : Normal\n");
  printf ("       Sync Size : %" PRIu64 "%s\n", h.sync_size / 2,
          human_size (h.sync_size * 512));
  total = mdbm_bits (h.sync_size, h.chunksize);
  if (total > (len - MDBM_HEADER_SIZE) * 8)
    total = (len - MDBM_HEADER_SIZE) * 8;
  dirty = mdbm_count (bm + MDBM_HEADER_SIZE, total);
  printf ("          Bitmap : %" PRIu64 " bits (chunks), %" PRIu64
          " dirty (%2.1f%%)\n", total, dirty,
          100.0 * dirty / (total ? total : 1));
  return 0;
}

/* Examine one member.  Returns 0, or -1 if it has no superblock or one
 * that md would refuse.
 */
static int
examine_member (const char *path, const char *homehost, bool bitmap_only)
{
  struct md_member m;
  uint8_t buf[MDSB_SIZE];
  struct mdsb sb;
  uint8_t *bm = NULL;
  uint64_t bmlen, bm_sectors = 0;
  int r = -1;

  if (md_member_open (&m, CMD, path, false) == -1)
    return -1;
  if (md_member_read_sb (&m, CMD, buf) == -1)
    goto out;
  mdsb_unpack (buf, sizeof buf, &sb);
  if (sb.magic != MDSB_MAGIC || sb.major_version != 1) {
    mdsb_decode (buf, sizeof buf, &sb);         /* for its message */
    fprintf (stderr, "%s: %s: no md superblock (%s)\n", CMD, path,
             mdsb_error ());
    goto out;
  }
  if (sb.super_offset != MDSB_SUPER_OFFSET) {
    fprintf (stderr, "%s: %s: no md v1.2 superblock (super_offset: %"
             PRIu64 ", not %d)\n", CMD, path, sb.super_offset,
             MDSB_SUPER_OFFSET);
    goto out;
  }
  bmlen = read_bitmap (&m, &sb, &bm);
  if (bitmap_only) {
    r = examine_bitmap (path, bm, bmlen);
    goto out;
  }
  if (bm) {
    struct mdbm h;

    mdbm_unpack (bm, &h);
    bm_sectors = mdbm_bytes (&h, 4096) / MDSB_SECTOR;
  }
  printf ("%s:\n", path);
  examine (&sb, buf, m.size / MDSB_SECTOR, bm_sectors, homehost);
  fflush (stdout);
  if (mdsb_decode (buf, sizeof buf, &sb) == -1 ||
      mdsb_check_member (&sb, m.size / MDSB_SECTOR) == -1) {
    fprintf (stderr, "%s: %s: md would refuse this superblock: %s\n",
             CMD, path, mdsb_error ());
    goto out;
  }
  r = 0;
 out:
  free (bm);
  md_member_close (&m);
  return r;
}

/* ---- --assembly ---------------------------------------------------- */

/* What md's rules make of one member, in words (the plugin's). */
static void
print_trust (const struct md_trust_set *t, unsigned i, char **names,
             const struct mdsb *sb)
{
  const struct md_member_trust *m = &t->m[i];
  const struct mdsb *fsb = &sb[t->fresh];
  char w[24], u[36];

  printf ("%s: ", names[i]);
  if (m->trust < MD_FOREIGN)
    printf ("role %u: ", m->role);
  switch (m->trust) {
  case MD_ABSENT:
    printf ("missing\n");
    break;
  case MD_TRUSTED:
    printf ("trusted (events %" PRIu64 ")\n", sb[i].events);
    break;
  case MD_TRUSTED_BEHIND:
    printf ("trusted: events %" PRIu64 ", one behind the freshest's (%s), "
            "which still lists it in its role: an update was cut short\n",
            sb[i].events, names[t->fresh]);
    break;
  case MD_STALE_EVENTS:
    printf ("stale: events %" PRIu64 " < %" PRIu64 " (%s's)", sb[i].events,
            fsb->events, names[t->fresh]);
    break;
  case MD_STALE_LISTED:
    printf ("stale: events %" PRIu64 " < %" PRIu64 ", and the freshest "
            "superblock (%s's) lists it %s", sb[i].events, fsb->events,
            names[t->fresh], md_role_words (m->listed, w, sizeof w));
    break;
  case MD_STALE_ROLE:
    printf ("stale: the freshest superblock (%s's, events %" PRIu64 ") "
            "lists it %s", names[t->fresh], fsb->events,
            md_role_words (m->listed, w, sizeof w));
    break;
  case MD_FOREIGN:
    mdsb_format_uuid (sb[i].set_uuid, u);
    printf ("foreign: array UUID %s, not %s's\n", u, names[t->ref]);
    break;
  case MD_OTHER_SHAPE:
    printf ("another shape: %s %" PRIu64 ", not %" PRIu64 " as %s's\n",
            m->field, m->value, m->ref_value, names[t->ref]);
    break;
  case MD_NO_ROLE:
    printf ("no active role: its superblock lists it %s\n",
            md_role_words (m->role, w, sizeof w));
    break;
  case MD_DUP_ROLE:
    printf ("role %u, which %s holds too\n", m->role, names[m->other]);
    break;
  }
}

/* The array's geometry from its superblocks (ref's shape, each member's
 * used size), for md_enough; NULL if raidsim does not serve the shape.
 */
static struct raid_geom *
assembly_geom (const struct md_trust_set *t, const struct mdsb *sb)
{
  const struct mdsb *sb0 = &sb[t->ref];
  uint64_t sizes[RAID_MAX_MEMBERS], doff = sb0->data_offset * MDSB_SECTOR;
  struct raid_geom_params p = {
    .chunk = (uint64_t) sb0->chunksize * MDSB_SECTOR, .data_offset = doff,
    .nmembers = t->n, .member_size = sizes,
  };
  unsigned r;

  switch (sb0->level) {
  case 0: p.level = RAID_LEVEL_0; break;
  case 1: p.level = RAID_LEVEL_1; p.chunk = RAID_CHUNK_MIN; break;
  case 10:
    p.level = RAID_LEVEL_10;
    p.copies = MDSB_RAID10_NEAR (sb0->layout);
    break;
  default: return NULL;
  }
  for (r = 0; r < t->n; ++r) {
    int i = t->holder[r];

    sizes[r] = doff + MDSB_SECTOR *
      (p.level == RAID_LEVEL_0 && i >= 0 && t->m[i].trust != MD_ABSENT
       ? sb[i].data_size : sb0->size);
  }
  return raid_geom_new (&p);
}

/* The freshest member's write-intent bitmap, as a re-add sees it. */
static void
assembly_bitmap (const struct md_member *fm, const struct mdsb *fsb,
                 struct md_bitmap_view *v)
{
  uint8_t *bm;
  struct mdbm h;

  *v = (struct md_bitmap_view) { .on = false };
  if (fm == NULL || read_bitmap (fm, fsb, &bm) == 0)
    return;
  mdbm_unpack (bm, &h);
  free (bm);
  v->on = true;
  v->stale = h.events < fsb->events || (h.state & MDBM_STATE_STALE);
  v->events_cleared = h.events_cleared;
}

static int
examine_assembly (int n, char **names)
{
  struct md_member m[RAID_MAX_MEMBERS];
  struct mdsb sb[RAID_MAX_MEMBERS];
  const struct mdsb *sbs[RAID_MAX_MEMBERS];
  bool open_[RAID_MAX_MEMBERS] = { false };
  struct md_trust_set t;
  struct md_bitmap_view bv;
  struct raid_geom *g;
  uint32_t out = 0;
  unsigned nstale = 0, nabsent = 0;
  int i, status = 1;

  if (n > RAID_MAX_MEMBERS) {
    fprintf (stderr, "%s: member: at most %d members\n", CMD,
             RAID_MAX_MEMBERS);
    return 1;
  }
  for (i = 0; i < n; ++i) {
    uint8_t buf[MDSB_SIZE];

    sbs[i] = NULL;
    if (strcmp (names[i], "missing") == 0)
      continue;
    if (md_member_open (&m[i], CMD, names[i], false) == -1)
      goto out;
    open_[i] = true;
    if (md_member_read_sb (&m[i], CMD, buf) == -1)
      goto out;
    if (mdsb_decode (buf, sizeof buf, &sb[i]) == -1 ||
        mdsb_check_member (&sb[i], m[i].size / MDSB_SECTOR) == -1) {
      fprintf (stderr, "%s: %s: no md superblock that md would accept: %s\n",
               CMD, names[i], mdsb_error ());
      goto out;
    }
    sbs[i] = &sb[i];
  }
  md_trust (sbs, n, &t);                /* raidsim/core/mdrules.c */
  if (t.ref == (unsigned) n) {
    fprintf (stderr, "%s: member: every member is missing\n", CMD);
    goto out;
  }
  assembly_bitmap (open_[t.fresh] ? &m[t.fresh] : NULL, &sb[t.fresh], &bv);
  for (i = 0; i < n; ++i) {
    const char *why;

    print_trust (&t, i, names, sb);
    if (t.m[i].trust == MD_ABSENT)
      nabsent++;
    if (!md_trust_stale (t.m[i].trust))
      continue;
    nstale++;
    if (md_readd_ok (&bv, sb[i].events, &why))
      printf ("; re-added, rebuilt from the write-intent bitmap (%s)\n", why);
    else
      printf ("; re-added, rebuilt in full (%s)\n", why);
  }
  if (md_trust_refused (&t) >= 0 || sb[t.ref].raid_disks != (unsigned) n) {
    printf ("assembly: refused: %s\n", md_trust_refused (&t) >= 0
            ? "the members are not of one array, or not one to a role"
            : "the array's member count is not the number given");
    goto out;
  }
  g = assembly_geom (&t, sb);
  if (g == NULL) {
    printf ("assembly: refused: raidsim does not serve this shape\n");
    goto out;
  }
  for (i = 0; i < n; ++i)
    if (t.m[i].trust == MD_ABSENT || md_trust_stale (t.m[i].trust))
      out |= UINT32_C (1) << t.m[i].role;
  printf ("assembly: RAID %s of %d members: %u trusted, %u stale, %u missing: ",
          raid_level_name (raid_geom_level (g)), n, t.nlive, nstale,
          nabsent);
  if (!md_enough (g, out))
    printf ("some chunks keep no copy; the array does not start\n");
  else {
    printf ("the array starts %s\n", out ? "degraded" : "whole");
    status = 0;
  }
  raid_geom_free (g);
 out:
  for (i = 0; i < n; ++i)
    if (open_[i])
      md_member_close (&m[i]);
  return status;
}

int
cmd_examine (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "help", no_argument, NULL, 'h' },
    { "examine-bitmap", no_argument, NULL, 'X' },
    { "assembly", no_argument, NULL, 'A' },
    { NULL, 0, NULL, 0 },
  };
  char homehost[256] = "";
  int c, i, status = 0;
  bool bitmap_only = false, assembly = false;

  while ((c = getopt_long (argc, argv, "hXA", longopts, NULL)) != -1) {
    switch (c) {
    case 'X':
      bitmap_only = true;
      break;
    case 'A':
      assembly = true;
      break;
    case 'h':
      usage (stdout);
      return 0;
    default:
      usage (stderr);
      return 1;
    }
  }
  if (optind == argc) {
    fprintf (stderr, "%s: member: name at least one member to examine\n",
             CMD);
    return 1;
  }
  if (assembly)
    return examine_assembly (argc - optind, argv + optind);
  /* mdadm marks a name "HOST:NAME" as local when HOST is this machine's
   * (its HOMEHOST <system>, Debian's default).
   */
  if (gethostname (homehost, sizeof homehost - 1) == -1)
    homehost[0] = '\0';

  for (i = optind; i < argc; ++i)
    if (examine_member (argv[i], homehost, bitmap_only) == -1)
      status = 1;
  return status;
}
