/* raidsim: the options several commands share (see options.h). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "raidsim/error.h"
#include "raidsim/sweep.h"
#include "options.h"

/* A value parser's verdict r: 0, or -1 after the line naming option
 * and what the parser found wrong.
 */
static int
checked (const char *cmd, const char *option, int r)
{
  if (r == 0)
    return 0;
  fprintf (stderr, "%s: %s: %s\n", cmd, option, raidsim_error ());
  return -1;
}

int
cli_format (const char *cmd, const char *arg, enum raidsim_format *format)
{
  return checked (cmd, "--format", raidsim_parse_format (arg, format));
}

int
cli_seed (const char *cmd, const char *arg, uint64_t *seed)
{
  return checked (cmd, "--seed", raidsim_parse_seed (arg, seed));
}

int
cli_workers (const char *cmd, const char *arg, unsigned *workers)
{
  unsigned long n;
  char *end;

  errno = 0;
  n = strtoul (arg, &end, 10);
  if (errno || *end || n == 0 || n > RAIDSIM_SWEEP_MAX_WORKERS) {
    fprintf (stderr, "%s: --workers: '%s' is not a number from 1 to %d\n",
             cmd, arg, RAIDSIM_SWEEP_MAX_WORKERS);
    return -1;
  }
  *workers = n;
  return 0;
}

void
cli_bad_option (const char *cmd, int c, char *const *argv)
{
  /* getopt has stepped past the word it could not take, unless an
   * unknown letter is not the last of a group ("-xq"): then optopt says
   * which letter.
   */
  const char *word = argv[optind - 1];
  char letter[3] = { '-', (char) optopt, '\0' };

  if (optopt && !(word[0] == '-' && word[1] == '-'))
    word = letter;
  if (c == ':')
    fprintf (stderr, "%s: %s: needs a value\n", cmd, word);
  else
    fprintf (stderr, "%s: %s: unknown option; see '%s --help'\n", cmd,
             word, cmd);
}

void
cli_error (const char *cmd, const char *fs, ...)
{
  va_list args;

  fprintf (stderr, "%s: ", cmd);
  va_start (args, fs);
  vfprintf (stderr, fs, args);
  va_end (args);
  fputc ('\n', stderr);
}
