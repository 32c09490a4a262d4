/* raidsim run: simulate a fio job file or a benchmark preset against
 * an array.
 *
 * Loads the array file (and the device and controller files it names),
 * the job file or the preset's jobs, runs the discrete-event simulation
 * to the end of every job and prints the figures.  The same seed gives
 * byte-identical output.
 *
 * Run:
 *   build/raidsim/raidsim run configs/arrays/raid0-2x-fixed.ini \
 *       --workload configs/workloads/randread-4k-qd8.fio --format json
 *   build/raidsim/raidsim run configs/arrays/single-hdd-7200.ini \
 *       --workload cdm3:50MB
 *   build/raidsim/raidsim run configs/arrays/raid1-2x-fixed.ini \
 *       --set rebuild=1 --workload configs/workloads/randread-4k-qd8.fio
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/config.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"
#include "raidsim/preset.h"
#include "raidsim/report.h"
#include "raidsim/sim.h"
#include "cmd.h"
#include "measured.h"
#include "options.h"

#define CMD PROGRAM_NAME " run"

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s ARRAY --workload JOB|PRESET[:SPAN] [--set KEY=VALUE]... "
           "[--seed N] [--format table|csv|json] [--measured FILE]\n"
           "       %s --presets\n"
           "       %s --print-jobs ARRAY --workload PRESET[:SPAN]\n"
           "\n"
           "Simulate the fio job file JOB, or a benchmark preset, against\n"
           "the array described by the array file ARRAY (see\n"
           "configs/arrays/) and print IOPS, bandwidth, latency\n"
           "percentiles and per-member figures.\n"
           "\n"
           "Options:\n"
           "  -w, --workload JOB   fio job file (the subset in\n"
           "                       docs/config-reference.md) or a preset\n"
           "                       (docs/presets.md)\n"
           "      --presets        list the presets\n"
           "      --print-jobs     print the workload's jobs as a fio job\n"
           "                       file for ARRAY, and run nothing\n"
           "      --set KEY=VALUE  set a key of the array file for this run\n"
           "                       (any but device, controller and members),\n"
           "                       e.g. --set rebuild=1 --set failed=none\n"
           "  -s, --seed N         seed of every random choice (default 1);\n"
           "                       the same seed gives the same output\n"
           "  -f, --format FMT     table (default), csv or json (fio's field\n"
           "                       names)\n"
           "  -m, --measured FILE  after the table, FILE's figures beside the\n"
           "                       run's, with ratios: fio's JSON from the\n"
           "                       same job file (e.g. against nbdkit raid\n"
           "                       model=ARRAY), or the raid plugin's\n"
           "                       stats= file\n"
           "  -h, --help           show this help\n"
           "\n"
           "Presets:\n",
           CMD, CMD, CMD);
  raidsim_preset_list (fp, false);
}

int
cmd_run (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "workload", required_argument, NULL, 'w' },
    { "seed", required_argument, NULL, 's' },
    { "format", required_argument, NULL, 'f' },
    { "presets", no_argument, NULL, 'P' },
    { "print-jobs", no_argument, NULL, 'J' },
    { "set", required_argument, NULL, 'S' },
    { "measured", required_argument, NULL, 'm' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *workload = NULL;
  const char *measured = NULL;
  uint64_t seed = 1;
  enum raidsim_format format = RAIDSIM_FORMAT_TABLE;
  struct raidsim_array_config *ac = NULL;
  struct raidsim_jobfile *jf = NULL;
  struct raidsim_sim *s = NULL;
  bool print_jobs = false;
  const char *sets[64];
  int nsets = 0;
  int c, ret = 1;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":w:s:f:m:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'w':
      workload = optarg;
      break;
    case 's':
      if (cli_seed (CMD, optarg, &seed) == -1)
        return 1;
      break;
    case 'f':
      if (cli_format (CMD, optarg, &format) == -1)
        return 1;
      break;
    case 'P':
      raidsim_preset_list (stdout, false);
      return 0;
    case 'J':
      print_jobs = true;
      break;
    case 'm':
      measured = optarg;
      break;
    case 'S':
      /* Applied once the array file is loaded, in order. */
      if (nsets == (int) (sizeof sets / sizeof sets[0])) {
        fprintf (stderr, "%s: --set: at most %zu\n", CMD,
                 sizeof sets / sizeof sets[0]);
        return 1;
      }
      sets[nsets++] = optarg;
      break;
    case 'h':
      usage (stdout);
      return 0;
    default:
      cli_bad_option (CMD, c, argv);
      return 1;
    }
  }
  if (optind + 1 != argc) {
    fprintf (stderr, "%s: give exactly one array file; see '%s --help'\n",
             CMD, CMD);
    return 1;
  }
  if (workload == NULL) {
    fprintf (stderr, "%s: --workload: missing; give a fio job file or a "
             "preset (%s)\n", CMD, raidsim_preset_names ());
    return 1;
  }
  if (measured && format != RAIDSIM_FORMAT_TABLE) {
    fprintf (stderr, "%s: --measured: only with --format table\n", CMD);
    return 1;
  }

  ac = raidsim_array_config_load (argv[optind]);
  if (ac == NULL)
    goto err;
  for (c = 0; c < nsets; ++c)
    if (raidsim_array_config_set (ac, sets[c]) == -1) {
      fprintf (stderr, "%s: --set %s: %s\n", CMD, sets[c], raidsim_error ());
      goto out;
    }
  jf = raidsim_workload_load (workload, raidsim_array_config_size (ac));
  if (jf == NULL) {
    fprintf (stderr, "%s: --workload: %s\n", CMD, raidsim_error ());
    goto out;
  }
  raidsim_jobfile_print_noted (stderr, CMD, jf);
  if (print_jobs) {
    printf ("; %s for %s (raidsim run --print-jobs)\n", workload,
            argv[optind]);
    raidsim_jobfile_write (stdout, jf);
    ret = fflush (stdout) == EOF;
    goto out;
  }
  s = raidsim_sim_new (ac, jf, seed);
  if (s == NULL)
    goto err;
  if (raidsim_sim_run (s) == -1)
    goto err;
  if (raidsim_report (stdout, s, format) == -1)
    goto err;
  if (measured && measured_compare (stdout, measured, s) == -1) {
    fprintf (stderr, "%s: --measured: %s\n", CMD, raidsim_error ());
    goto out;
  }
  if (fflush (stdout) == EOF) {
    fprintf (stderr, "%s: write: %s\n", CMD, strerror (errno));
    goto out;
  }
  ret = 0;
  goto out;

 err:
  fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
 out:
  raidsim_sim_free (s);
  raidsim_jobfile_free (jf);
  raidsim_array_config_free (ac);
  return ret;
}
