/* raidsim tests: check that member files hold what the layout says.
 *
 * Given the array's parameters, the data that was written to the array
 * (from array offset 0) and the member files, compare every copy of
 * every byte of the data with the member bytes where the brute-force
 * reference layout (refmap.c, not the geometry under test) puts it.  A
 * member that failed is given as skip-member=SIZE: it counts for the
 * layout but its bytes are not checked.
 *
 * Run, after writing data.img to a RAID 10 whose member 0 failed:
 *   build/tests/lib/check-members level=10 chunk=128K data=data.img \
 *       skip-member=64M member=m1.img member=m2.img member=m3.img
 * Members with md metadata hold the data from data-offset=SIZE on
 * (mdadm --examine's Data Offset), e.g. data-offset=1M.
 * Exit status 0 if every checked byte matches, 1 otherwise.
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

#include "refmap.h"

#define MAX_MEMBERS 64
#define RAID1_PIECE (UINT64_C (1) << 20)
#define MAX_REPORTS 10

struct member {
  const char *file;             /* NULL for skip-member */
  int fd;
  uint64_t size;
  uint64_t checked;             /* bytes compared */
  uint64_t bad;                 /* bytes that differ */
};

static const char *prog = "check-members";

static void
usage (void)
{
  fprintf (stderr,
           "usage: %s level=0|1|10 chunk=SIZE [copies=N] [data-offset=SIZE]\n"
           "           data=FILE\n"
           "           member=FILE|skip-member=SIZE ...\n", prog);
  exit (EXIT_FAILURE);
}

/* A size with an optional K, M or G suffix.  Deliberately not the
 * geometry library's parser: this program shares nothing with it.
 */
static uint64_t
parse_size (const char *key, const char *s)
{
  char *end;
  unsigned long long v;

  errno = 0;
  v = strtoull (s, &end, 10);
  if (errno || end == s)
    goto bad;
  switch (*end) {
  case 'K': v <<= 10; end++; break;
  case 'M': v <<= 20; end++; break;
  case 'G': v <<= 30; end++; break;
  }
  if (*end)
    goto bad;
  return v;
 bad:
  fprintf (stderr, "%s: %s: '%s' is not a size\n", prog, key, s);
  exit (EXIT_FAILURE);
}

static int
open_sized (const char *file, uint64_t *size)
{
  struct stat st;
  int fd = open (file, O_RDONLY | O_CLOEXEC);

  if (fd == -1 || fstat (fd, &st) == -1) {
    fprintf (stderr, "%s: %s: %s\n", prog, file, strerror (errno));
    exit (EXIT_FAILURE);
  }
  if (S_ISBLK (st.st_mode)) {
    if (ioctl (fd, BLKGETSIZE64, size) == -1) {
      fprintf (stderr, "%s: %s: BLKGETSIZE64: %s\n",
               prog, file, strerror (errno));
      exit (EXIT_FAILURE);
    }
  }
  else
    *size = st.st_size;
  return fd;
}

static void
read_exactly (int fd, const char *file, void *buf, uint64_t len, uint64_t off)
{
  char *p = buf;

  while (len > 0) {
    ssize_t n = pread (fd, p, len, off);
    if (n == -1 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf (stderr, "%s: %s: read at %" PRIu64 ": %s\n", prog, file, off,
               n == 0 ? "unexpected end of file" : strerror (errno));
      exit (EXIT_FAILURE);
    }
    p += n;
    off += n;
    len -= n;
  }
}

int
main (int argc, char **argv)
{
  struct member m[MAX_MEMBERS];
  uint64_t sizes[MAX_MEMBERS];
  unsigned n = 0, i, k, copies = 2;
  int level = -1, data_fd = -1;
  uint64_t chunk = 0, data_size = 0, off, reports = 0, data_offset = 0;
  const char *data_file = NULL;
  struct refmap ref;
  char *want, *have;
  bool ok = true;

  for (i = 1; i < (unsigned) argc; ++i) {
    char *eq = strchr (argv[i], '=');
    const char *v;

    if (eq == NULL)
      usage ();
    *eq = '\0';
    v = eq + 1;
    if (strcmp (argv[i], "level") == 0)
      level = atoi (v);
    else if (strcmp (argv[i], "chunk") == 0)
      chunk = parse_size ("chunk", v);
    else if (strcmp (argv[i], "copies") == 0)
      copies = atoi (v);
    else if (strcmp (argv[i], "data-offset") == 0)
      data_offset = parse_size ("data-offset", v);
    else if (strcmp (argv[i], "data") == 0) {
      data_file = v;
      data_fd = open_sized (v, &data_size);
    }
    else if (strcmp (argv[i], "member") == 0 ||
             strcmp (argv[i], "skip-member") == 0) {
      if (n == MAX_MEMBERS)
        usage ();
      m[n] = (struct member) { .fd = -1 };
      if (argv[i][0] == 'm') {
        m[n].file = v;
        m[n].fd = open_sized (v, &m[n].size);
      }
      else
        m[n].size = parse_size ("skip-member", v);
      sizes[n] = m[n].size;
      n++;
    }
    else
      usage ();
  }
  if (level == -1 || data_file == NULL || n == 0)
    usage ();
  if (chunk == 0)
    chunk = 128 << 10;

  if (refmap_init (&ref, level, chunk, copies, data_offset, n, sizes) == -1) {
    fprintf (stderr, "%s: these parameters make no array\n", prog);
    exit (EXIT_FAILURE);
  }
  if (data_size > ref.size) {
    fprintf (stderr, "%s: %s has %" PRIu64 " bytes, more than the array "
             "(%" PRIu64 ")\n", prog, data_file, data_size, ref.size);
    exit (EXIT_FAILURE);
  }

  want = malloc (chunk > RAID1_PIECE ? chunk : RAID1_PIECE);
  have = malloc (chunk > RAID1_PIECE ? chunk : RAID1_PIECE);
  if (!want || !have) {
    perror ("malloc");
    exit (EXIT_FAILURE);
  }

  for (off = 0; off < data_size; ) {
    uint64_t len = level == 1 ? RAID1_PIECE : chunk - off % chunk;

    if (len > data_size - off)
      len = data_size - off;
    read_exactly (data_fd, data_file, want, len, off);
    for (k = 0; k < ref.copies; ++k) {
      unsigned mi;
      uint64_t moff, j;

      refmap_locate (&ref, off, k, &mi, &moff);
      if (m[mi].file == NULL)
        continue;
      read_exactly (m[mi].fd, m[mi].file, have, len, moff);
      m[mi].checked += len;
      if (memcmp (want, have, len) == 0)
        continue;
      ok = false;
      for (j = 0; j < len; ++j)
        if (want[j] != have[j])
          m[mi].bad++;
      if (reports++ < MAX_REPORTS) {
        for (j = 0; want[j] == have[j]; ++j)
          ;
        fprintf (stderr, "%s: member %u (%s) offset %" PRIu64 ": differs "
                 "from array offset %" PRIu64 " (copy %u)\n",
                 prog, mi, m[mi].file, moff + j, off + j, k);
      }
    }
    off += len;
  }

  for (i = 0; i < n; ++i) {
    if (m[i].file == NULL)
      printf ("member %u: not checked (failed member)\n", i);
    else
      printf ("member %u (%s): %" PRIu64 " bytes checked, %s\n",
              i, m[i].file, m[i].checked,
              m[i].bad ? "WRONG" : "all as the layout says");
    if (m[i].file && m[i].bad)
      printf ("member %u: %" PRIu64 " bytes differ\n", i, m[i].bad);
  }
  free (want);
  free (have);
  refmap_free (&ref);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
