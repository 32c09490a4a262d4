/* raidsim: the command-line entry point.  It only dispatches: each
 * subcommand lives in its own cmd-NAME.c and is listed once in the table
 * below, which also drives `raidsim help`.  With no arguments it runs
 * the built-in demo.
 *
 * Run: build/raidsim/raidsim help
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

#ifndef RAIDSIM_VERSION
#define RAIDSIM_VERSION "unknown"
#endif

static int cmd_help (int argc, char **argv);

struct command {
  const char *name;
  int (*fn) (int argc, char **argv);
  const char *summary;
};

static const struct command commands[] = {
  { "help", cmd_help, "list the commands, or show the help of one" },
  { "map",  cmd_map,  "show which member bytes hold a range of the array" },
  { "run",  cmd_run,  "simulate a fio job file or a preset against an array" },
  { "sweep", cmd_sweep, "a workload over arrays and QDs, chunks, members "
    "or levels" },
  { "plot", cmd_plot, "draw a sweep as PNG or SVG (gnuplot)" },
  { "demo", cmd_demo, "the built-in demo (also: no arguments)" },
  { "list", cmd_list, "the arrays, devices, controllers and workloads "
    "found by name" },
  { "config", cmd_config, "config file reference; check config files" },
  { "validate", cmd_validate, "predictions against the published figures" },
  { "calibrate", cmd_calibrate, "fit a device profile to fio measurements "
    "of one drive" },
  { "create", cmd_create, "write md superblocks to new members (mdadm --create)" },
  { "examine", cmd_examine, "print members' md superblocks (mdadm --examine)" },
  { "control", cmd_control, "detail, fail, remove, check a served array "
    "(mdadm --detail, --fail, ...)" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const struct command *
find_command (const char *name)
{
  size_t i;

  for (i = 0; i < NCOMMANDS; ++i)
    if (strcmp (commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static void
usage (FILE *fp)
{
  size_t i;

  fprintf (fp,
           "usage: %s COMMAND [ARGS...]\n"
           "       %s help COMMAND\n"
           "       %s --version\n"
           "       %s                 (the built-in demo)\n"
           "\n"
           "Commands:\n",
           PROGRAM_NAME, PROGRAM_NAME, PROGRAM_NAME, PROGRAM_NAME);
  for (i = 0; i < NCOMMANDS; ++i)
    fprintf (fp, "  %-9s %s\n", commands[i].name, commands[i].summary);
}

/* `raidsim help` lists the commands; `raidsim help CMD` runs
 * `raidsim CMD --help`.
 */
static int
cmd_help (int argc, char **argv)
{
  const struct command *c;
  char *help_argv[3];

  if (argc < 2) {
    usage (stdout);
    return 0;
  }
  c = find_command (argv[1]);
  if (c == NULL) {
    fprintf (stderr, "%s help: '%s' is not a command; "
             "run '%s help' for the list\n",
             PROGRAM_NAME, argv[1], PROGRAM_NAME);
    return 1;
  }
  if (c->fn == cmd_help) {
    usage (stdout);
    return 0;
  }
  help_argv[0] = (char *) c->name;
  help_argv[1] = (char *) "--help";
  help_argv[2] = NULL;
  return c->fn (2, help_argv);
}

int
main (int argc, char **argv)
{
  const struct command *c;

  if (argc < 2) {
    char *demo_argv[] = { (char *) "demo", NULL };

    return cmd_demo (1, demo_argv);
  }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0) {
    usage (stdout);
    return 0;
  }
  if (strcmp (argv[1], "--version") == 0 || strcmp (argv[1], "-V") == 0) {
    printf ("%s %s\n", PROGRAM_NAME, RAIDSIM_VERSION);
    return 0;
  }

  c = find_command (argv[1]);
  if (c == NULL) {
    fprintf (stderr, "%s: '%s' is not a command; run '%s help' for the list\n",
             PROGRAM_NAME, argv[1], PROGRAM_NAME);
    return 1;
  }
  return c->fn (argc - 1, argv + 1);
}
