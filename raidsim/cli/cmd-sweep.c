/* raidsim sweep: one workload over several arrays and over the values
 * of one parameter, the runs spread over the CPUs.
 *
 * Every run is an independent simulation with the same seed; the
 * output is in run order whatever the number of worker processes, so
 * `--workers 1` and `--workers 2` print the same bytes.  (--workers
 * was --jobs, which is still read: the jobs of a sweep are fio's.)  A progress bar goes
 * to stderr when stderr is a terminal.
 *
 * Run:
 *   build/raidsim/raidsim sweep configs/arrays/single-optane-900p.ini \
 *       configs/arrays/raid0-2x-optane-vroc.ini --workload four-corners
 *   build/raidsim/raidsim sweep configs/arrays/raid0-2x-fixed.ini \
 *       --workload configs/workloads/randread-4k-qd1.fio \
 *       --vary qd=1,2,4,8,16,32 --format csv > qd.csv
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raidsim/error.h"
#include "raidsim/preset.h"
#include "raidsim/stats.h"
#include "raidsim/sweep.h"
#include "cmd.h"
#include "options.h"

#define CMD PROGRAM_NAME " sweep"

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s ARRAY... --workload JOB|PRESET[:SPAN]\n"
           "       [--vary qd=1,2,4,...|chunk=4K,...|members=2,...|"
           "level=0,1,10]\n"
           "       [--qd-per-member] [--seed N] [--seeds N|LIST] [--workers N]\n"
           "       [--format table|csv|json]\n"
           "\n"
           "Run the workload on every ARRAY, once per value of the varied\n"
           "parameter (every job's iodepth, or the array's chunk, member\n"
           "count or level), and print one line per job and run.  Several\n"
           "--vary make a grid: every combination of their values.  With\n"
           "several arrays and nothing varied, the table puts the arrays\n"
           "side by side.  `raidsim plot` draws the CSV or JSON output.\n"
           "\n"
           "Options:\n"
           "  -w, --workload W   fio job file or preset (raidsim run "
           "--presets)\n"
           "  -v, --vary P=LIST  a parameter and its values; once per key\n"
           "      --qd-per-member  the iodepth (or qd=) is per member: each\n"
           "                     run's queue depth is it times the members\n"
           "  -s, --seed N       seed of every run (default 1)\n"
           "      --seeds N|LIST the whole sweep once per seed, --seed to\n"
           "                     --seed + N - 1 or those listed (1,7,42):\n"
           "                     each figure is the mean, with its 95%%\n"
           "                     interval (CSV: *_ci95 columns)\n"
           "  -j, --workers N    worker processes (default: the online "
           "CPUs);\n"
           "                     --jobs N, its old name, still works\n"
           "  -f, --format FMT   table (default), csv or json\n"
           "  -h, --help         show this help\n",
           CMD);
}

int
cmd_sweep (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "workload", required_argument, NULL, 'w' },
    { "vary", required_argument, NULL, 'v' },
    { "seed", required_argument, NULL, 's' },
    { "workers", required_argument, NULL, 'j' },
    { "jobs", required_argument, NULL, 'j' }, /* its old name */
    { "format", required_argument, NULL, 'f' },
    { "qd-per-member", no_argument, NULL, 'Q' },
    { "seeds", required_argument, NULL, 'N' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct raidsim_sweep sw = { .seed = 1 };
  struct raidsim_sweep_result res = { 0 };
  enum raidsim_format format = RAIDSIM_FORMAT_TABLE;
  const char *seeds_arg = NULL;
  struct raidsim_seed_list seeds;
  int c, ret = 1;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":w:v:s:j:f:h", longopts, NULL))
         != -1) {
    switch (c) {
    case 'w':
      sw.workload = optarg;
      break;
    case 'v':
      if (raidsim_sweep_parse_vary (&sw, optarg) == -1) {
        fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
        return 1;
      }
      break;
    case 's':
      if (cli_seed (CMD, optarg, &sw.seed) == -1)
        return 1;
      break;
    case 'j':
      if (cli_workers (CMD, optarg, &sw.workers) == -1)
        return 1;
      break;
    case 'f':
      if (cli_format (CMD, optarg, &format) == -1)
        return 1;
      break;
    case 'Q':
      sw.qd_per_member = true;
      break;
    case 'N':
      seeds_arg = optarg;
      break;
    case 'h':
      usage (stdout);
      return 0;
    default:
      cli_bad_option (CMD, c, argv);
      return 1;
    }
  }
  /* After every --seed: a count starts there. */
  if (seeds_arg) {
    if (raidsim_parse_seed_list (seeds_arg, sw.seed, &seeds) == -1) {
      cli_error (CMD, "--seeds: %s", raidsim_error ());
      return 1;
    }
    sw.seeds = &seeds;
  }
  if (optind >= argc) {
    fprintf (stderr, "%s: give one or more array files; see '%s --help'\n",
             CMD, CMD);
    return 1;
  }
  if (sw.workload == NULL) {
    fprintf (stderr, "%s: --workload: missing; give a fio job file or a "
             "preset (%s)\n", CMD, raidsim_preset_names ());
    return 1;
  }
  sw.narrays = argc - optind;
  sw.arrays = (const char *const *) &argv[optind];
  sw.progress = isatty (STDERR_FILENO);

  if (raidsim_sweep_run (&sw, &res) == -1) {
    fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
    return 1;
  }
  if (raidsim_sweep_report (stdout, &sw, &res, format) == -1)
    fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
  else if (fflush (stdout) == EOF)
    fprintf (stderr, "%s: write: %s\n", CMD, strerror (errno));
  else
    ret = 0;
  raidsim_sweep_result_free (&res);
  return ret;
}
