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
#include "raidsim/stats.h"
#include "cmd.h"
#include "measured.h"
#include "options.h"

#define CMD PROGRAM_NAME " run"

/* --trace's iodepth when the replay is timed: enough that the trace's
 * times, not the host, decide when I/Os reach the array (an open loop,
 * as DiskSim replays a trace); any holding back shows as host-queue.
 */
#define TIMED_IODEPTH 4096

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s ARRAY --workload JOB|PRESET[:SPAN] [--set KEY=VALUE]... "
           "[--seed N] [--seeds N|LIST] [--format table|csv|json] "
           "[--measured FILE]\n"
           "       %s ARRAY --trace FILE [--replay timed|fast] "
           "[--iodepth N] ...\n"
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
           "  -t, --trace FILE     replay a trace instead: a fio iolog (v2,\n"
           "                       v3), blkparse text or blktrace binary\n"
           "                       (docs/simulator.md); as a job file with\n"
           "                       read_iolog=FILE\n"
           "      --replay MODE    timed (default for a trace with times):\n"
           "                       each I/O at its time in the trace, open\n"
           "                       loop; fast: as fast as --iodepth allows\n"
           "                       (fio's replay_no_stall)\n"
           "      --iodepth N      most I/Os of the trace in flight (default:\n"
           "                       %d timed, 1 fast)\n"
           "      --lat-log PREFIX write fio's latency log of each job, one\n"
           "                       line per I/O, to PREFIX_lat.N.log\n"
           "      --precision F    stop a job once the 95%% interval of each\n"
           "                       of its IOPS, MB/s and mean latencies is\n"
           "                       within F of its mean (0.01: 1%%); 0: run\n"
           "                       every job to its end (default: 0.01 for\n"
           "                       time-based jobs of runtime over a minute)\n"
           "      --set KEY=VALUE  set a key of the array file for this run\n"
           "                       (any but device, controller and members),\n"
           "                       e.g. --set rebuild=1 --set failed=none\n"
           "  -s, --seed N         seed of every random choice (default 1);\n"
           "                       the same seed gives the same output\n"
           "      --seeds N|LIST   run once per seed, --seed to --seed + N - 1\n"
           "                       or the seeds listed (1,7,42), and print\n"
           "                       each figure's mean and 95%% interval\n"
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
           CMD, CMD, CMD, CMD, TIMED_IODEPTH);
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
    { "trace", required_argument, NULL, 't' },
    { "replay", required_argument, NULL, 'R' },
    { "iodepth", required_argument, NULL, 'D' },
    { "lat-log", required_argument, NULL, 'L' },
    { "seeds", required_argument, NULL, 'N' },
    { "precision", required_argument, NULL, 'p' },
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
  const char *trace = NULL, *lat_log = NULL;
  int replay = -1;              /* 0 timed, 1 fast; -1: from the trace */
  uint64_t iodepth = 0;
  const char *seeds_arg = NULL;
  struct raidsim_seed_list seeds;
  struct raidsim_figs *figs = NULL;
  unsigned k;
  int c, ret = 1;
  double precision = -1;        /* -1: the simulator's default */

  optind = 1;
  while ((c = getopt_long (argc, argv, ":w:s:f:m:t:h", longopts, NULL))
         != -1) {
    switch (c) {
    case 't':
      trace = optarg;
      break;
    case 'R':
      if (strcmp (optarg, "timed") == 0)
        replay = 0;
      else if (strcmp (optarg, "fast") == 0)
        replay = 1;
      else {
        cli_error (CMD, "--replay: '%s' is not timed or fast", optarg);
        return 1;
      }
      break;
    case 'D': {
      char *end;

      errno = 0;
      iodepth = strtoull (optarg, &end, 10);
      if (errno || *end || optarg[0] < '1' || optarg[0] > '9' ||
          iodepth > 65536) {
        cli_error (CMD, "--iodepth: '%s' is not a number from 1 to 65536",
                   optarg);
        return 1;
      }
      break;
    }
    case 'L':
      lat_log = optarg;
      break;
    case 'N':
      seeds_arg = optarg;
      break;
    case 'p': {
      char *end;

      errno = 0;
      precision = strtod (optarg, &end);
      if (errno || end == optarg || *end || !(precision >= 0) ||
          precision >= 1) {
        cli_error (CMD, "--precision: '%s' is not a fraction from 0 to 1 "
                   "(0.01 for 1%%, 0 to run every job to its end)", optarg);
        return 1;
      }
      break;
    }
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
  if (workload == NULL && trace == NULL) {
    fprintf (stderr, "%s: --workload: missing; give a fio job file or a "
             "preset (%s), or --trace\n", CMD, raidsim_preset_names ());
    return 1;
  }
  if (workload && trace) {
    cli_error (CMD, "--trace: give either --workload or --trace");
    return 1;
  }
  /* After every --seed: a count starts there. */
  if (seeds_arg && raidsim_parse_seed_list (seeds_arg, seed, &seeds) == -1) {
    cli_error (CMD, "--seeds: %s", raidsim_error ());
    return 1;
  }
  if (seeds_arg && lat_log) {
    cli_error (CMD, "--lat-log: one run's log; give --seed, not --seeds");
    return 1;
  }
  if (trace == NULL && (replay != -1 || iodepth)) {
    cli_error (CMD, "%s: only with --trace (a job file says iodepth and "
               "replay_no_stall itself)", replay != -1 ? "--replay"
               : "--iodepth");
    return 1;
  }
  if (seeds_arg && measured) {
    cli_error (CMD, "--measured: compares one run; give --seed, not "
               "--seeds");
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
  if (trace) {
    /* Timed if the trace has times, unless asked otherwise. */
    jf = raidsim_jobfile_trace (trace, 1, replay == 1);
    if (jf == NULL) {
      fprintf (stderr, "%s: --trace: %s\n", CMD, raidsim_error ());
      goto out;
    }
    if (replay == -1 && !raidsim_job_timed (&jf->jobs[0]))
      replay = 1;
    jf->jobs[0].replay_no_stall = replay == 1;
    jf->jobs[0].iodepth = iodepth ? iodepth
      : replay == 1 ? 1 : TIMED_IODEPTH;
    workload = trace;
  }
  else
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
  if (seeds_arg) {
    /* One whole run per seed; the figures of each, then their means. */
    figs = calloc (seeds.n, sizeof *figs);
    if (figs == NULL) {
      cli_error (CMD, "%s", strerror (ENOMEM));
      goto out;
    }
    for (k = 0; k < seeds.n; ++k) {
      raidsim_sim_free (s);
      s = raidsim_sim_new (ac, jf, seeds.seed[k]);
      if (s && precision >= 0)
        raidsim_sim_set_precision (s, precision);
      if (s == NULL || raidsim_sim_run (s) == -1 ||
          raidsim_figs_of (s, &figs[k]) == -1)
        goto err;
    }
    if (raidsim_report_seeds (stdout, s, &seeds, figs, format) == -1)
      goto err;
    if (fflush (stdout) == EOF) {
      fprintf (stderr, "%s: write: %s\n", CMD, strerror (errno));
      goto out;
    }
    ret = 0;
    goto out;
  }
  s = raidsim_sim_new (ac, jf, seed);
  if (s == NULL)
    goto err;
  if (precision >= 0)
    raidsim_sim_set_precision (s, precision);
  if (lat_log && raidsim_sim_lat_log (s, lat_log) == -1)
    goto err;
  if (raidsim_sim_run (s) == -1 || raidsim_sim_close_logs (s) == -1)
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
  for (k = 0; figs && k < seeds.n; ++k)
    raidsim_figs_free (&figs[k]);
  free (figs);
  raidsim_sim_free (s);
  raidsim_jobfile_free (jf);
  raidsim_array_config_free (ac);
  return ret;
}
