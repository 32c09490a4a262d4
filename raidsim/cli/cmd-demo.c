/* raidsim demo (and `raidsim` with no arguments): one Optane-class drive
 * against two of them in a VROC-style RAID 0, over the four-corners
 * preset, side by side.
 *
 * The config files are compiled into the program (demo.h, generated
 * from configs/ by embed-configs.sh), so the demo runs from any current
 * directory, from the build tree or installed, with no data files.  To
 * reuse the array loaders unchanged, they are written to a private
 * temporary directory for the run and removed afterwards.
 *
 * Run:
 *   build/raidsim/raidsim
 *   build/raidsim/raidsim demo --format csv
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raidsim/error.h"
#include "raidsim/sweep.h"
#include "cmd.h"
#include "demo.h"

#define CMD PROGRAM_NAME " demo"

static const char *const demo_arrays[] = {
  "arrays/single-optane-900p.ini",
  "arrays/raid0-2x-optane-vroc.ini",
};
#define NARRAYS (sizeof demo_arrays / sizeof demo_arrays[0])

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s [--format table|csv|json] [--jobs N] [--configs]\n"
           "\n"
           "The built-in demo, also what `%s` with no arguments runs: an\n"
           "Optane-class drive on its own against two of them in a\n"
           "VROC-style RAID 0, over the four-corners preset.  --configs\n"
           "prints the built-in config files instead.\n",
           CMD, PROGRAM_NAME);
}

/* dir/name into path; -1 if it does not fit. */
static int
join (char *path, size_t size, const char *dir, const char *name)
{
  int n = snprintf (path, size, "%s/%s", dir, name);

  if (n < 0 || (size_t) n >= size) {
    raidsim_set_error ("%s/%s: %s", dir, name, strerror (ENAMETOOLONG));
    return -1;
  }
  return 0;
}

/* Remove what write_configs made; errors do not matter here. */
static void
remove_configs (const char *dir)
{
  const struct raidsim_embedded *f;
  char path[PATH_MAX];
  static const char *const subdirs[] = { "arrays", "devices", "controllers" };
  size_t i;

  for (f = raidsim_demo_files; f->name; ++f)
    if (join (path, sizeof path, dir, f->name) == 0)
      unlink (path);
  for (i = 0; i < sizeof subdirs / sizeof subdirs[0]; ++i)
    if (join (path, sizeof path, dir, subdirs[i]) == 0)
      rmdir (path);
  rmdir (dir);
}

static int
write_configs (const char *dir)
{
  const struct raidsim_embedded *f;
  char path[PATH_MAX];
  static const char *const subdirs[] = { "arrays", "devices", "controllers" };
  size_t i;

  for (i = 0; i < sizeof subdirs / sizeof subdirs[0]; ++i) {
    if (join (path, sizeof path, dir, subdirs[i]) == -1)
      return -1;
    if (mkdir (path, 0700) == -1) {
      raidsim_set_error ("%s: %s", path, strerror (errno));
      return -1;
    }
  }
  for (f = raidsim_demo_files; f->name; ++f) {
    FILE *fp;

    if (join (path, sizeof path, dir, f->name) == -1)
      return -1;
    fp = fopen (path, "w");
    if (fp == NULL || fputs (f->text, fp) == EOF || fclose (fp) == EOF) {
      raidsim_set_error ("%s: %s", path, strerror (errno));
      return -1;
    }
  }
  return 0;
}

int
cmd_demo (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "format", required_argument, NULL, 'f' },
    { "jobs", required_argument, NULL, 'j' },
    { "configs", no_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  enum raidsim_format format = RAIDSIM_FORMAT_TABLE;
  struct raidsim_sweep sw = { .seed = 1, .workload = "four-corners" };
  struct raidsim_sweep_result res = { 0 };
  const char *tmp = getenv ("TMPDIR");
  char dir[PATH_MAX], paths[NARRAYS][PATH_MAX];
  const char *arrays[NARRAYS];
  char *end;
  size_t i;
  int c, ret = 1;

  optind = 1;
  while ((c = getopt_long (argc, argv, "f:j:ch", longopts, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (raidsim_parse_format (optarg, &format) == -1) {
        fprintf (stderr, "%s: --format: %s\n", CMD, raidsim_error ());
        return 1;
      }
      break;
    case 'j':
      errno = 0;
      sw.workers = strtoul (optarg, &end, 10);
      if (errno || *end || sw.workers == 0 || sw.workers > 64) {
        fprintf (stderr, "%s: --jobs: '%s' is not a number from 1 to 64\n",
                 CMD, optarg);
        return 1;
      }
      break;
    case 'c': {
      const struct raidsim_embedded *f;

      for (f = raidsim_demo_files; f->name; ++f)
        printf ("%s==> configs/%s <==\n%s", f == raidsim_demo_files
                ? "" : "\n", f->name, f->text);
      return fflush (stdout) == EOF;
    }
    case 'h':
      usage (stdout);
      return 0;
    default:
      fprintf (stderr, "see '%s --help'\n", CMD);
      return 1;
    }
  }
  if (optind != argc) {
    fprintf (stderr, "%s: takes no arguments; see '%s --help'\n", CMD, CMD);
    return 1;
  }

  snprintf (dir, sizeof dir, "%s/raidsim-demo-XXXXXX", tmp && *tmp ? tmp
            : "/tmp");
  if (mkdtemp (dir) == NULL) {
    fprintf (stderr, "%s: %s: %s\n", CMD, dir, strerror (errno));
    return 1;
  }
  if (write_configs (dir) == -1)
    goto err;
  for (i = 0; i < NARRAYS; ++i) {
    if (join (paths[i], sizeof paths[i], dir, demo_arrays[i]) == -1)
      goto err;
    arrays[i] = paths[i];
  }
  sw.narrays = NARRAYS;
  sw.arrays = arrays;
  sw.progress = isatty (STDERR_FILENO);
  if (raidsim_sweep_run (&sw, &res) == -1)
    goto err;

  if (format == RAIDSIM_FORMAT_TABLE)
    printf ("raidsim demo: an Optane-class drive (optane-900p-like) on the "
            "NVMe driver, against\n"
            "two in a VROC-style RAID 0 (128 KiB chunks, completions "
            "coalesced up to 100 us),\n"
            "over four-corners: sequential 128 KiB and random 4 KiB, reads "
            "and writes, QD 1-32.\n"
            "ratio = RAID 0 / single.  Configs: `%s demo --configs`; "
            "commands: `%s help`.\n\n", PROGRAM_NAME, PROGRAM_NAME);
  if (raidsim_sweep_report (stdout, &sw, &res, format) == -1)
    goto err;
  if (fflush (stdout) == EOF) {
    fprintf (stderr, "%s: write: %s\n", CMD, strerror (errno));
    goto out;
  }
  ret = 0;
  goto out;

 err:
  fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
 out:
  raidsim_sweep_result_free (&res);
  remove_configs (dir);
  return ret;
}
