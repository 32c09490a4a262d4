/* raidsim: the options that several commands share, each parsed in one
 * place, and the one way a command reports a bad option or value:
 *
 *   raidsim CMD: --OPTION: what is wrong
 *
 * on one line of stderr, after which the command exits with status 1.
 * Each function takes the command's name as its messages give it
 * ("raidsim run", the CMD of each cmd-NAME.c) and returns 0, or -1
 * when it has printed the line.
 */
#ifndef RAIDSIM_CLI_OPTIONS_H
#define RAIDSIM_CLI_OPTIONS_H

#include <getopt.h>
#include <stdint.h>

#include "raidsim/report.h"

/* --format: table, csv or json (run, sweep, demo, validate). */
extern int cli_format (const char *cmd, const char *arg,
                       enum raidsim_format *format);

/* --seed: a whole number, decimal or 0x hex (run, sweep, validate). */
extern int cli_seed (const char *cmd, const char *arg, uint64_t *seed);

/* --workers: worker processes, 1 to RAIDSIM_SWEEP_MAX_WORKERS (sweep,
 * demo; also spelt --jobs, its old name).
 */
extern int cli_workers (const char *cmd, const char *arg,
                        unsigned *workers);

/* getopt_long returned ':' (a value missing) or '?' (an unknown
 * option): say which.  The option string starts with ':', so that
 * getopt itself prints nothing and tells the two apart.
 */
extern void cli_bad_option (const char *cmd, int c, char *const *argv);

/* Any other bad input: "CMD: message" on one line of stderr. */
extern void cli_error (const char *cmd, const char *fs, ...)
  __attribute__ ((format (printf, 2, 3)));

#endif /* RAIDSIM_CLI_OPTIONS_H */
