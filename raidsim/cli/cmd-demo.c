/* raidsim demo (and `raidsim` with no arguments): one Optane-class drive
 * against two of them in a VROC-style RAID 0, over the four-corners
 * preset, side by side.
 *
 * The config files are compiled into the program (builtin.h, made
 * from configs/ by embed-files.py) and read from memory, so the demo
 * runs from any current directory, from the build tree or installed,
 * with no data files and nothing written to disk.  Its arrays are those
 * of its table, in the order cli/meson.build lists them.
 *
 * Run:
 *   build/raidsim/raidsim
 *   build/raidsim/raidsim demo --format csv
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raidsim/error.h"
#include "raidsim/sweep.h"
#include "cmd.h"
#include "options.h"
#include "builtin.h"

#define CMD PROGRAM_NAME " demo"

/* The demo runs every array of its table: they come first. */
#define ARRAYS_DIR "configs/arrays/"
#define MAX_ARRAYS 8

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s [--format table|csv|json] [--workers N] [--configs]\n"
           "\n"
           "The built-in demo, also what `%s` with no arguments runs: an\n"
           "Optane-class drive on its own against two of them in a\n"
           "VROC-style RAID 0, over the four-corners preset.  --configs\n"
           "prints the built-in config files instead.  --workers N runs\n"
           "it in N processes (--jobs N, its old name, still works).\n"
           "\n"
           "Options:\n"
           "  -f, --format FMT   table (default), csv or json\n"
           "  -j, --workers N    worker processes (default: the online CPUs)\n"
           "  -j, --jobs N       the old name of --workers\n"
           "  -c, --configs      print the built-in config files, run nothing\n"
           "  -h, --help         show this help\n",
           CMD, PROGRAM_NAME);
}

int
cmd_demo (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "format", required_argument, NULL, 'f' },
    { "workers", required_argument, NULL, 'j' },
    { "jobs", required_argument, NULL, 'j' }, /* its old name */
    { "configs", no_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  enum raidsim_format format = RAIDSIM_FORMAT_TABLE;
  struct raidsim_sweep sw = { .seed = 1, .workload = "four-corners" };
  struct raidsim_sweep_result res = { 0 };
  const struct raidsim_embedded *f;
  const char *arrays[MAX_ARRAYS];
  unsigned narrays = 0;
  int c, ret = 1;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":f:j:ch", longopts, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (cli_format (CMD, optarg, &format) == -1)
        return 1;
      break;
    case 'j':
      if (cli_workers (CMD, optarg, &sw.workers) == -1)
        return 1;
      break;
    case 'c':
      for (f = raidsim_demo_files; f->name; ++f)
        printf ("%s==> %s <==\n%s", f == raidsim_demo_files ? "" : "\n",
                f->name, f->text);
      return fflush (stdout) == EOF;
    case 'h':
      usage (stdout);
      return 0;
    default:
      cli_bad_option (CMD, c, argv);
      return 1;
    }
  }
  if (optind != argc) {
    fprintf (stderr, "%s: takes no arguments; see '%s --help'\n", CMD, CMD);
    return 1;
  }

  for (f = raidsim_demo_files; f->name; ++f) {
    if (strncmp (f->name, ARRAYS_DIR, strlen (ARRAYS_DIR)) != 0)
      continue;
    if (narrays == MAX_ARRAYS) {
      fprintf (stderr, "%s: more than %d arrays built in\n", CMD, MAX_ARRAYS);
      return 1;
    }
    arrays[narrays++] = f->name;
  }
  sw.narrays = narrays;
  sw.arrays = arrays;
  sw.files = raidsim_demo_files;
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
  return ret;
}
