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
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include "raidsim/geometry.h"
#include "cmd.h"

#define CMD PROGRAM_NAME " map"

/* The key=value parameters, described once: the parser, the unknown-key
 * error and --help all come from this table.
 */
enum map_key {
  KEY_LEVEL, KEY_CHUNK, KEY_COPIES, KEY_DATA_OFFSET, KEY_MEMBER_SIZE,
  KEY_MEMBER,
};

static const struct {
  const char *name;
  enum map_key key;
  const char *value;
  const char *help;
} params[] = {
  { "level",       KEY_LEVEL,       "0|1|10",
    "RAID level (required)" },
  { "chunk",       KEY_CHUNK,       "SIZE",
    "chunk size, a power of two from 4K to 64M (default 128K)" },
  { "copies",      KEY_COPIES,      "N",
    "RAID 10 near copies (default 2)" },
  { "data-offset", KEY_DATA_OFFSET, "SIZE",
    "bytes reserved at the start of each member (default 0)" },
  { "member-size", KEY_MEMBER_SIZE, "SIZE",
    "size of the next member (repeat once per member)" },
  { "member",      KEY_MEMBER,      "FILE",
    "the next member is FILE; its size is read from it" },
};

#define NPARAMS (sizeof params / sizeof params[0])

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
  for (i = 0; i < NPARAMS; ++i) {
    char lhs[64];

    snprintf (lhs, sizeof lhs, "%s=%s", params[i].name, params[i].value);
    fprintf (fp, "  %-20s %s\n", lhs, params[i].help);
  }
  fprintf (fp,
           "\n"
           "Options:\n"
           "  --file FILE          same as member=FILE\n"
           "  --runs[=first]       print runs of pieces (member I/Os)\n"
           "  -q, --quiet          print piece lines only, no comments\n"
           "  -h, --help           show this help\n");
}

static void __attribute__ ((format (printf, 1, 2)))
error (const char *fs, ...)
{
  va_list args;

  fprintf (stderr, "%s: ", CMD);
  va_start (args, fs);
  vfprintf (stderr, fs, args);
  va_end (args);
  fputc ('\n', stderr);
}

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

static int
parse_copies (const char *value, unsigned *copies)
{
  char *end;
  unsigned long v;

  errno = 0;
  if (*value < '0' || *value > '9')
    goto bad;
  v = strtoul (value, &end, 10);
  if (errno != 0 || *end != '\0' || v == 0 || v > RAID_MAX_MEMBERS)
    goto bad;
  *copies = v;
  return 0;

 bad:
  error ("copies: '%s' is not a copy count from 1 to %d",
         value, RAID_MAX_MEMBERS);
  return -1;
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
            enum map_key key, const char *value)
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

int
cmd_map (int argc, char **argv)
{
  struct raid_geom_params gp = { .chunk = RAID_CHUNK_DEFAULT };
  struct member members[RAID_MAX_MEMBERS];
  uint64_t sizes[RAID_MAX_MEMBERS];
  struct range *ranges;
  size_t nranges = 0;
  unsigned nmembers = 0, i;
  bool have_level = false, quiet = false, runs = false, first_only = false;
  struct raid_geom *g;
  int ret = 1;

  ranges = calloc (argc, sizeof *ranges);
  if (ranges == NULL) {
    error ("%s", strerror (errno));
    return 1;
  }

  for (i = 1; i < (unsigned) argc; ++i) {
    const char *arg = argv[i];
    const char *eq = strchr (arg, '=');
    const char *value;
    size_t j;

    if (strcmp (arg, "-h") == 0 || strcmp (arg, "--help") == 0) {
      usage (stdout);
      ret = 0;
      goto out;
    }
    if (strcmp (arg, "-q") == 0 || strcmp (arg, "--quiet") == 0) {
      quiet = true;
      continue;
    }
    if (strcmp (arg, "--runs") == 0 || strcmp (arg, "--runs=first") == 0) {
      runs = true;
      first_only = arg[6] == '=';
      continue;
    }
    if (strcmp (arg, "--file") == 0) {
      if (i + 1 >= (unsigned) argc) {
        error ("--file: needs a FILE");
        goto out;
      }
      if (add_member (members, sizes, &nmembers, KEY_MEMBER, argv[++i]) == -1)
        goto out;
      continue;
    }
    if (arg[0] == '-') {
      error ("%s: unknown option; see '%s --help'", arg, CMD);
      goto out;
    }
    if (eq == NULL) {
      if (parse_range (arg, &ranges[nranges]) == -1)
        goto out;
      nranges++;
      continue;
    }

    value = eq + 1;
    for (j = 0; j < NPARAMS; ++j)
      if (strlen (params[j].name) == (size_t) (eq - arg) &&
          strncmp (params[j].name, arg, eq - arg) == 0)
        break;
    if (j == NPARAMS) {
      error ("%.*s: unknown parameter; the parameters are level, chunk, "
             "copies, data-offset, member-size and member",
             (int) (eq - arg), arg);
      goto out;
    }

    switch (params[j].key) {
    case KEY_LEVEL:
      if (raid_parse_level (value, &gp.level) == -1) {
        error ("%s", raid_geom_error ());
        goto out;
      }
      have_level = true;
      break;
    case KEY_CHUNK:
      if (parse_size_param ("chunk", value, &gp.chunk) == -1)
        goto out;
      break;
    case KEY_COPIES:
      if (parse_copies (value, &gp.copies) == -1)
        goto out;
      break;
    case KEY_DATA_OFFSET:
      if (parse_size_param ("data-offset", value, &gp.data_offset) == -1)
        goto out;
      break;
    case KEY_MEMBER_SIZE:
    case KEY_MEMBER:
      if (add_member (members, sizes, &nmembers, params[j].key, value) == -1)
        goto out;
      break;
    }
  }

  if (!have_level) {
    error ("level: missing; give level=0, level=1 or level=10");
    goto out;
  }
  if (gp.copies && gp.level != RAID_LEVEL_10) {
    error ("copies: only RAID 10 takes a copy count");
    goto out;
  }
  if (nmembers == 0) {
    error ("member: no members; give member-size=SIZE or member=FILE "
           "once per member");
    goto out;
  }
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
