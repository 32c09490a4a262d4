/* raidsim calibrate: a device profile fitted to fio measurements of one
 * drive (include/raidsim/calibrate.h).
 *
 * The user runs configs/calibrate.fio against the drive with
 * --output-format=json, and gives the JSON with a one-drive array file
 * whose device file is the base profile (the model, and every key that
 * is not fitted: capacity, rpm, caches...) and whose controller is the
 * port the drive was measured through.  The fitted profile is written
 * as a device file with the fitted values, the residuals and this
 * command in its comments.
 *
 * Run:
 *   build/raidsim/raidsim run configs/arrays/single-hdd-7200.ini \
 *       --workload configs/calibrate.fio --format json > disk.json
 *   build/raidsim/raidsim calibrate configs/arrays/single-hdd-7200.ini \
 *       disk.json -o disk.ini
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/calibrate.h"
#include "raidsim/config.h"
#include "raidsim/error.h"
#include "cmd.h"
#include "options.h"

#define CMD PROGRAM_NAME " calibrate"

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s ARRAY FIO-JSON [--fit NAME[,NAME]...] [-o OUT.ini] "
           "[--seed N]\n"
           "\n"
           "Fit the device of ARRAY, a one-drive array file (level = single;\n"
           "its device file is the base profile, its controller the port the\n"
           "drive was measured through), to fio's JSON output FIO-JSON\n"
           "(fio --output-format=json configs/calibrate.fio).  Each job is\n"
           "simulated and the fitted parameters are moved until the predicted\n"
           "IOPS match the measured ones.  Writes a device file with the\n"
           "fitted values, each job's residual and this command.\n"
           "\n"
           "Options:\n"
           "      --fit NAMES   fit only these parameters (comma-separated);\n"
           "                    default: every one the model fits\n"
           "  -o, --output F    write the device file to F (default: stdout)\n"
           "  -s, --seed N      seed of the simulations (default 1)\n"
           "  -h, --help        show this help\n"
           "\n"
           "Parameters fitted, by model, and the jobs that inform them:\n",
           CMD);
  raidsim_cal_list (fp);
}

int
cmd_calibrate (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "fit", required_argument, NULL, 'F' },
    { "output", required_argument, NULL, 'o' },
    { "seed", required_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  static struct raidsim_cal_data data;
  static struct raidsim_cal_result res;
  const char *names[RAIDSIM_CAL_MAX_PARAMS];
  unsigned nnames = 0;
  char *fit = NULL, *command = NULL;
  const char *output = NULL;
  uint64_t seed = 1;
  struct raidsim_array_config *ac = NULL;
  FILE *out = stdout;
  size_t cmdlen = 0;
  FILE *cmdfp;
  int c, ret = 1;

  /* The command, as the file records it, before getopt reorders argv. */
  cmdfp = open_memstream (&command, &cmdlen);
  if (cmdfp == NULL)
    goto sys;
  fprintf (cmdfp, "%s", CMD);
  for (int i = 1; i < argc; ++i)
    fprintf (cmdfp, " %s", argv[i]);
  if (fclose (cmdfp) == EOF)
    goto sys;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":o:s:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'F':
      fit = optarg;
      break;
    case 'o':
      output = optarg;
      break;
    case 's':
      if (cli_seed (CMD, optarg, &seed) == -1)
        goto out;
      break;
    case 'h':
      usage (stdout);
      ret = 0;
      goto out;
    default:
      cli_bad_option (CMD, c, argv);
      goto out;
    }
  }
  if (optind + 2 != argc) {
    fprintf (stderr, "%s: give a one-drive array file and fio's JSON "
             "output; see '%s --help'\n", CMD, CMD);
    goto out;
  }
  if (fit) {
    for (char *t = strtok (fit, ","); t; t = strtok (NULL, ",")) {
      if (nnames == RAIDSIM_CAL_MAX_PARAMS) {
        fprintf (stderr, "%s: --fit: at most %d names\n", CMD,
                 RAIDSIM_CAL_MAX_PARAMS);
        goto out;
      }
      names[nnames++] = t;
    }
    if (nnames == 0) {
      fprintf (stderr, "%s: --fit: no parameter named\n", CMD);
      goto out;
    }
  }

  ac = raidsim_array_config_load (argv[optind]);
  if (ac == NULL)
    goto err;
  if (raidsim_cal_read (argv[optind + 1], &data) == -1)
    goto err;
  if (raidsim_cal_fit (ac, &data, nnames ? names : NULL, nnames, seed,
                       &res) == -1)
    goto err;
  if (output && (out = fopen (output, "w")) == NULL) {
    fprintf (stderr, "%s: %s: %s\n", CMD, output, strerror (errno));
    goto out;
  }
  if (raidsim_cal_write_ini (out, ac, &data, &res, command) == -1 ||
      (out != stdout ? fclose (out) : fflush (out)) == EOF) {
    fprintf (stderr, "%s: %s: %s\n", CMD, output ? output : "stdout",
             strerror (errno));
    goto out;
  }
  ret = 0;
  goto out;

 sys:
  fprintf (stderr, "%s: %s\n", CMD, strerror (errno));
  goto out;
 err:
  fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
 out:
  free (command);
  raidsim_array_config_free (ac);
  return ret;
}
