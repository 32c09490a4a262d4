/* raidsim: the driver every fuzzing harness shares (see fuzz.h).
 *
 * Built with afl-cc (bench/fuzz.sh), it runs in AFL++'s persistent mode:
 * the fork server starts once, and each child feeds up to 10000 inputs
 * from shared memory to fuzz_one before AFL++ starts another, which is
 * many times faster than a process per input.  afl-cc defines
 * __AFL_FUZZ_TESTCASE_LEN; nothing here needs AFL++ otherwise.
 *
 * Built by the normal meson build, it reads each file named on the
 * command line (a directory: each file in it, in name order), calls
 * fuzz_one once per file and prints its name first, so that a failing
 * replay says which input did it.  Exit status 0 when every input was
 * read, 1 if none was found; a crash ends the process, which fails the
 * test.
 *
 * Run: build/tests/fuzz/fuzz-ini tests/fuzz/corpus/ini
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

FILE *
fuzz_null (void)
{
  static FILE *fp;

  if (fp == NULL && (fp = fopen ("/dev/null", "w")) == NULL) {
    perror ("/dev/null");
    exit (1);
  }
  return fp;
}

#ifdef __AFL_FUZZ_TESTCASE_LEN

__AFL_FUZZ_INIT ();

int
main (void)
{
  unsigned char *buf;

  fuzz_null ();
  __AFL_INIT ();
  buf = __AFL_FUZZ_TESTCASE_BUF;
  while (__AFL_LOOP (10000))
    fuzz_one (buf, __AFL_FUZZ_TESTCASE_LEN);
  return 0;
}

#else

static int
replay_file (const char *path)
{
  FILE *fp = fopen (path, "rb");
  uint8_t *data = NULL;
  size_t size = 0, cap = 0, n;

  if (fp == NULL) {
    fprintf (stderr, "%s: %s\n", path, strerror (errno));
    return -1;
  }
  for (;;) {
    if (size == cap) {
      cap = cap ? cap * 2 : 4096;
      if ((data = realloc (data, cap)) == NULL) {
        perror ("realloc");
        exit (1);
      }
    }
    n = fread (data + size, 1, cap - size, fp);
    if (n == 0)
      break;
    size += n;
  }
  if (ferror (fp)) {
    fprintf (stderr, "%s: read error\n", path);
    fclose (fp);
    free (data);
    return -1;
  }
  fclose (fp);
  printf ("%s (%zu bytes)\n", path, size);
  fflush (stdout);
  fuzz_one (data, size);
  free (data);
  return 0;
}

static int
name_cmp (const struct dirent **a, const struct dirent **b)
{
  return strcmp ((*a)->d_name, (*b)->d_name);
}

static int
replay (const char *path, unsigned *count)
{
  struct stat st;
  struct dirent **names;
  int n, i, r = 0;

  if (stat (path, &st) == -1) {
    fprintf (stderr, "%s: %s\n", path, strerror (errno));
    return -1;
  }
  if (!S_ISDIR (st.st_mode)) {
    (*count)++;
    return replay_file (path);
  }
  n = scandir (path, &names, NULL, name_cmp);
  if (n == -1) {
    fprintf (stderr, "%s: %s\n", path, strerror (errno));
    return -1;
  }
  for (i = 0; i < n; ++i) {
    char *child;

    /* Dot files (README, .gitkeep) are not inputs. */
    if (names[i]->d_name[0] != '.' && r == 0) {
      if (asprintf (&child, "%s/%s", path, names[i]->d_name) == -1) {
        perror ("asprintf");
        exit (1);
      }
      if (replay (child, count) == -1)
        r = -1;
      free (child);
    }
    free (names[i]);
  }
  free (names);
  return r;
}

int
main (int argc, char **argv)
{
  unsigned count = 0;
  int i;

  if (argc < 2) {
    fprintf (stderr, "usage: %s FILE|DIRECTORY...\n", argv[0]);
    return 2;
  }
  for (i = 1; i < argc; ++i)
    if (replay (argv[i], &count) == -1)
      return 1;
  /* A corpus that went missing must not pass as a clean replay. */
  if (count == 0) {
    fprintf (stderr, "%s: no inputs found\n", argv[0]);
    return 1;
  }
  printf ("%u inputs, no crash\n", count);
  return 0;
}

#endif
