/* raidsim map: show where bytes of a RAID array live on its members.
 *
 * Given the array's parameters (the same keys the nbdkit raid plugin
 * takes) and the member sizes, print for each requested array range the
 * pieces it splits into and, for every copy of each piece, the member
 * index and the byte offset on that member.  The mapping comes from the
 * one geometry (raidsim/core/geometry.c) through raid_geom_foreach; nothing
 * here knows a layout.
 *
 * With --runs, print instead the member I/Os a request costs: the
 * pieces that are contiguous on one member grouped into runs by
 * raid_geom_runs, exactly as the nbdkit plugin issues them (and the
 * simulator with merge_pieces = yes sends them).  --runs takes every
 * copy of every piece, which is what a write issues, and a read of a
 * RAID 0; --runs=first takes only the first copy, which is what a read
 * with read-policy=first issues.
 *
 * Run, for a RAID 0 over two 256M members, the 300K starting at 1M:
 *   build/raidsim/raidsim map level=0 chunk=128K \
 *       member-size=256M member-size=256M 1M+300K
 * or with the sizes read from the member files themselves:
 *   build/raidsim/raidsim map level=0 member=a.img member=b.img 1M+300K
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include <getopt.h>

#include "raidsim/geometry.h"
#include "raidsim/raidkeys.h"
#include "cmd.h"
#include "options.h"

#define CMD PROGRAM_NAME " map"

/* The key=value parameters.  level, chunk and copies are the core's
 * (raid_keys[], include/raidsim/raidkeys.h), spelt and checked as the
 * plugin spells and checks them; the keys below are map's own.  Each
 * may also be given as a long option, --KEY=VALUE.  The parser, the
 * unknown-key error and --help all come from these tables.
 */
enum map_key { KEY_DATA_OFFSET, KEY_MEMBER_SIZE, KEY_MEMBER, NMAP_KEYS };

static const struct raid_key map_keys[NMAP_KEYS] = {
  [KEY_DATA_OFFSET] = { .name = "data-offset", .syntax = "SIZE",
    .help = "Bytes reserved at the start of each member; default 0." },
  [KEY_MEMBER_SIZE] = { .name = "member-size", .syntax = "SIZE",
    .help = "Size of the next member (repeat once per member)." },
  [KEY_MEMBER] = { .name = "member", .syntax = "FILE",
    .help = "The next member is FILE; its size is read from it." },
};

struct member {
  const char *file;             /* NULL if given by member-size */
  uint64_t size;
};

struct range {
  const char *text;             /* as the user wrote it */
  uint64_t offset, length;
};

static void
usage (FILE *fp)
{
  size_t i;

  fprintf (fp,
           "usage: %s level=0|1|10 [chunk=SIZE] [copies=N] [data-offset=SIZE]\n"
           "           member-size=SIZE|member=FILE ... [OFFSET[+LENGTH] ...]\n"
           "\n"
           "Print where each range of the array lives on the members: one\n"
           "line per piece with the array offset, the length, and for each\n"
           "copy MEMBER:MEMBER-OFFSET (member index from 0, offset in bytes).\n"
           "A piece never crosses a chunk boundary on RAID 0 and RAID 10.\n"
           "OFFSET alone means one byte.  With no range, print only the\n"
           "array's summary.  Sizes take K, M, G or T (powers of 1024).\n"
           "Lines starting with '#' are comments; -q leaves them out.\n"
           "\n"
           "With --runs, print the member I/Os each range costs instead:\n"
           "one line per run of pieces that are contiguous on one member,\n"
           "as the nbdkit raid plugin issues them: MEMBER:MEMBER-OFFSET,\n"
           "the length, the number of pieces, and each piece's\n"
           "ARRAY-OFFSET+LENGTH.  --runs groups every copy (a write;\n"
           "a RAID 0 read); --runs=first only the first copy (a read\n"
           "with read-policy=first).\n"
           "\n"
           "Parameters:\n",
           CMD);
  for (i = 0; i < RAID_KEY_COUNT + NMAP_KEYS; ++i) {
    const struct raid_key *k = i < RAID_KEY_COUNT ? &raid_keys[i]
      : &map_keys[i - RAID_KEY_COUNT];
    char *h, *line, *save = NULL;

    if (k == &raid_keys[RAID_KEY_READ_POLICY])
      continue;                 /* map reads no data: see --runs=first */
    h = raid_key_help (k, 21, 76);
    if (h == NULL)
      continue;
    for (line = strtok_r (h, "\n", &save); line;
         line = strtok_r (NULL, "\n", &save))
      fprintf (fp, "  %s\n", line);
    free (h);
  }
  fprintf (fp,
           "\n"
           "Options (each parameter may also be given as --KEY=VALUE):\n"
           "  --file FILE          same as member=FILE\n"
           "  --runs[=first]       print runs of pieces (member I/Os)\n"
           "  -q, --quiet          print piece lines only, no comments\n"
           "  -h, --help           show this help\n");
}

/* One line, "raidsim CMD: message", as every command says it. */
#define error(...) cli_error (CMD, __VA_ARGS__)

/* A member's size: a regular file's length or a block device's size. */
static int
member_file_size (const char *file, uint64_t *size)
{
  struct stat st;
  int fd;

  fd = open (file, O_RDONLY | O_CLOEXEC);
  if (fd == -1) {
    error ("member: %s: %s", file, strerror (errno));
    return -1;
  }
  if (fstat (fd, &st) == -1) {
    error ("member: %s: fstat: %s", file, strerror (errno));
    close (fd);
    return -1;
  }
  if (S_ISREG (st.st_mode))
    *size = st.st_size;
  else if (S_ISBLK (st.st_mode)) {
    if (ioctl (fd, BLKGETSIZE64, size) == -1) {
      error ("member: %s: BLKGETSIZE64: %s", file, strerror (errno));
      close (fd);
      return -1;
    }
  }
  else {
    error ("member: %s: not a regular file or a block device", file);
    close (fd);
    return -1;
  }
  close (fd);
  return 0;
}

static int
parse_size_param (const char *name, const char *value, uint64_t *bytes)
{
  if (raid_parse_size (value, bytes) == -1) {
    error ("%s: %s", name, raid_geom_error ());
    return -1;
  }
  return 0;
}

/* OFFSET[+LENGTH], each a size. */
static int
parse_range (const char *text, struct range *r)
{
  const char *plus = strchr (text, '+');
  char *off;
  int ret;

  r->text = text;
  r->length = 1;
  off = plus ? strndup (text, plus - text) : strdup (text);
  if (off == NULL) {
    error ("range: %s", strerror (errno));
    return -1;
  }
  ret = raid_parse_size (off, &r->offset);
  free (off);
  if (ret == -1 || (plus && raid_parse_size (plus + 1, &r->length) == -1)) {
    error ("range: '%s' is not OFFSET[+LENGTH] (sizes with an optional "
           "K, M, G or T suffix)", text);
    return -1;
  }
  if (r->length == 0) {
    error ("range: '%s' has length 0", text);
    return -1;
  }
  return 0;
}

/* Append a member given by member-size=SIZE or member=FILE. */
static int
add_member (struct member *members, uint64_t *sizes, unsigned *nmembers,
            unsigned key, const char *value)
{
  struct member *m = &members[*nmembers];

  if (*nmembers == RAID_MAX_MEMBERS) {
    error ("member: at most %d members are supported", RAID_MAX_MEMBERS);
    return -1;
  }
  if (key == KEY_MEMBER_SIZE) {
    m->file = NULL;
    if (parse_size_param ("member-size", value, &m->size) == -1)
      return -1;
  }
  else {
    m->file = value;
    if (member_file_size (value, &m->size) == -1)
      return -1;
  }
  sizes[*nmembers] = m->size;
  (*nmembers)++;
  return 0;
}

static int
print_piece (const struct raid_piece *p, void *opaque)
{
  unsigned k;

  printf ("%-14" PRIu64 " %-10" PRIu64, p->offset, p->length);
  for (k = 0; k < p->ncopies; ++k)
    printf (" %u:%" PRIu64, p->copy[k].member, p->copy[k].offset);
  putchar ('\n');
  return 0;
}

/* The pieces of one range, to be grouped into runs. */
struct pieces {
  struct raid_piece *p;
  size_t n, cap;
};

static int
collect_piece (const struct raid_piece *p, void *opaque)
{
  struct pieces *c = opaque;

  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    struct raid_piece *np = realloc (c->p, cap * sizeof *np);
    if (np == NULL) {
      error ("%s", strerror (errno));
      return -1;
    }
    c->p = np;
    c->cap = cap;
  }
  c->p[c->n++] = *p;
  return 0;
}

/* Print the runs of one range: every copy, or the first only. */
static int
print_runs (const struct raid_geom *g, const struct range *r,
            bool first_only)
{
  struct pieces c = { 0 };
  struct raid_seg *seg = NULL;
  struct raid_run *runs = NULL;
  size_t *next = NULL, nseg = 0, nruns, i, s;
  unsigned k;
  int ret = -1;

  if (raid_geom_foreach (g, r->offset, r->length, collect_piece, &c) != 0)
    goto out;
  seg = malloc (c.n * raid_geom_copies (g) * sizeof *seg);
  runs = malloc (c.n * raid_geom_copies (g) * sizeof *runs);
  next = malloc (c.n * raid_geom_copies (g) * sizeof *next);
  if (seg == NULL || runs == NULL || next == NULL) {
    error ("%s", strerror (errno));
    goto out;
  }
  for (i = 0; i < c.n; ++i)
    for (k = 0; k < (first_only ? 1 : c.p[i].ncopies); ++k)
      seg[nseg++] = (struct raid_seg) {
        .offset = c.p[i].offset, .length = c.p[i].length,
        .member = c.p[i].copy[k].member,
        .member_offset = c.p[i].copy[k].offset,
      };
  nruns = raid_geom_runs (seg, nseg, RAID_RUN_MAX_SEGS, runs, next);
  for (i = 0; i < nruns; ++i) {
    char *sep = " ";

    printf ("%u:%-12" PRIu64 " %-10" PRIu64 " %-6zu", runs[i].member,
            runs[i].offset, runs[i].length, runs[i].nsegs);
    for (s = runs[i].first; s != RAID_SEG_END; s = next[s]) {
      printf ("%s%" PRIu64 "+%" PRIu64, sep, seg[s].offset, seg[s].length);
      sep = ",";
    }
    putchar ('\n');
  }
  ret = 0;

 out:
  free (c.p);
  free (seg);
  free (runs);
  free (next);
  return ret;
}

static void
print_summary (const struct raid_geom *g, const struct member *m)
{
  unsigned i, n = raid_geom_nmembers (g);

  printf ("# RAID %s, chunk %" PRIu64 ", %u members, %u %s of each byte, "
          "data offset %" PRIu64 "\n",
          raid_level_name (raid_geom_level (g)), raid_geom_chunk (g), n,
          raid_geom_copies (g), raid_geom_copies (g) == 1 ? "copy" : "copies",
          raid_geom_data_offset (g));
  printf ("# array size %" PRIu64 " bytes", raid_geom_size (g));
  if (raid_geom_level (g) == RAID_LEVEL_0)
    printf (", %u %s", raid_geom_nzones (g),
            raid_geom_nzones (g) == 1 ? "zone" : "zones");
  putchar ('\n');
  for (i = 0; i < n; ++i) {
    printf ("# member %u: size %" PRIu64 ", array data in %" PRIu64 " bytes",
            i, m[i].size, raid_geom_member_used (g, i));
    if (m[i].file)
      printf (", %s", m[i].file);
    putchar ('\n');
  }
}

/* One KEY=VALUE, given as a word or as --KEY=VALUE. */
static int
map_set (struct raid_settings *rs, uint64_t *data_offset,
         struct member *members, uint64_t *sizes, unsigned *nmembers,
         const char *key, const char *value)
{
  int r = raid_settings_parse (rs, key, value);
  size_t j;

  if (r == -1 || (r == 0 && rs->set[RAID_KEY_READ_POLICY])) {
    if (r == 0)
      error ("read-policy: map reads no data; use --runs=first to see "
             "the I/O of read-policy=first");
    else
      error ("%s", raid_geom_error ());
    return -1;
  }
  if (r == 0)
    return 0;
  for (j = 0; j < NMAP_KEYS; ++j)
    if (strcmp (map_keys[j].name, key) == 0)
      break;
  switch (j) {
  case KEY_DATA_OFFSET:
    return parse_size_param ("data-offset", value, data_offset);
  case KEY_MEMBER_SIZE:
  case KEY_MEMBER:
    return add_member (members, sizes, nmembers, j, value);
  }
  error ("%s: unknown parameter; the parameters are level, chunk, "
         "copies, data-offset, member-size and member", key);
  return -1;
}

enum { OPT_RUNS = 256, OPT_FILE, OPT_KEY };

int
cmd_map (int argc, char **argv)
{
  static const struct option long_options[] = {
    { "help", no_argument, NULL, 'h' },
    { "quiet", no_argument, NULL, 'q' },
    { "runs", optional_argument, NULL, OPT_RUNS },
    { "file", required_argument, NULL, OPT_FILE },
    { "level", required_argument, NULL, OPT_KEY },
    { "chunk", required_argument, NULL, OPT_KEY },
    { "copies", required_argument, NULL, OPT_KEY },
    { "data-offset", required_argument, NULL, OPT_KEY },
    { "member-size", required_argument, NULL, OPT_KEY },
    { "member", required_argument, NULL, OPT_KEY },
    { NULL, 0, NULL, 0 },
  };
  struct raid_settings rs;
  struct raid_geom_params gp = { .chunk = RAID_CHUNK_DEFAULT };
  struct member members[RAID_MAX_MEMBERS];
  uint64_t sizes[RAID_MAX_MEMBERS];
  struct range *ranges;
  size_t nranges = 0;
  unsigned nmembers = 0, i;
  bool quiet = false, runs = false, first_only = false;
  struct raid_geom *g;
  int ret = 1, c, idx;

  ranges = calloc (argc, sizeof *ranges);
  if (ranges == NULL) {
    error ("%s", strerror (errno));
    return 1;
  }
  raid_settings_init (&rs);

  /* "-" first: words come back in order as option 1, so that members
   * keep their order however they are given.
   */
  optind = 1;
  while ((c = getopt_long (argc, argv, "-:hq", long_options, &idx)) != -1) {
    switch (c) {
    case 'h':
      usage (stdout);
      ret = 0;
      goto out;
    case 'q':
      quiet = true;
      break;
    case OPT_RUNS:
      if (optarg && strcmp (optarg, "first") != 0) {
        error ("--runs: '%s' is not 'first'", optarg);
        goto out;
      }
      runs = true;
      first_only = optarg != NULL;
      break;
    case OPT_FILE:
      if (add_member (members, sizes, &nmembers, KEY_MEMBER, optarg) == -1)
        goto out;
      break;
    case OPT_KEY:
      if (map_set (&rs, &gp.data_offset, members, sizes, &nmembers,
                   long_options[idx].name, optarg) == -1)
        goto out;
      break;
    case 1: {
      const char *arg = optarg, *eq = strchr (arg, '=');
      char key[64];

      if (eq == NULL) {
        if (parse_range (arg, &ranges[nranges]) == -1)
          goto out;
        nranges++;
        break;
      }
      snprintf (key, sizeof key, "%.*s", (int) (eq - arg), arg);
      if (map_set (&rs, &gp.data_offset, members, sizes, &nmembers,
                   key, eq + 1) == -1)
        goto out;
      break;
    }
    default:
      cli_bad_option (CMD, c, argv);
      goto out;
    }
  }

  if (nmembers == 0 && rs.set[RAID_KEY_LEVEL]) {
    error ("member: no members; give member-size=SIZE or member=FILE "
           "once per member");
    goto out;
  }
  if (raid_settings_check (&rs, nmembers) == -1) {
    error ("%s", raid_geom_error ());
    goto out;
  }
  gp.level = rs.level;
  gp.chunk = rs.chunk;
  gp.copies = rs.level == RAID_LEVEL_10 ? rs.copies : 0;
  gp.nmembers = nmembers;
  gp.member_size = sizes;

  g = raid_geom_new (&gp);
  if (g == NULL) {
    error ("%s", raid_geom_error ());
    goto out;
  }

  /* Check every range before printing any, so that bad input gives one
   * error line and no partial output.
   */
  for (i = 0; i < nranges; ++i) {
    if (ranges[i].offset >= raid_geom_size (g) ||
        ranges[i].length > raid_geom_size (g) - ranges[i].offset) {
      error ("range: '%s' is outside the array (%" PRIu64 " bytes)",
             ranges[i].text, raid_geom_size (g));
      raid_geom_free (g);
      goto out;
    }
  }

  if (!quiet) {
    print_summary (g, members);
    if (nranges > 0 && runs)
      printf ("# member:member-offset length pieces array-offset+length "
              "of each piece\n");
    else if (nranges > 0)
      printf ("# array-offset length     member:member-offset for each copy\n");
  }
  for (i = 0; i < nranges; ++i) {
    if (runs) {
      if (print_runs (g, &ranges[i], first_only) == -1) {
        raid_geom_free (g);
        goto out;
      }
      continue;
    }
    if (raid_geom_foreach (g, ranges[i].offset, ranges[i].length,
                           print_piece, NULL) != 0) {
      error ("range: '%s': %s", ranges[i].text, raid_geom_error ());
      raid_geom_free (g);
      goto out;
    }
  }
  raid_geom_free (g);

  if (fflush (stdout) == EOF || ferror (stdout)) {
    error ("write: %s", strerror (errno));
    goto out;
  }
  ret = 0;

 out:
  free (ranges);
  return ret;
}
