/* raidsim: the option tables of the raidsim command, read from the
 * command itself, for the man page and the bash completion
 * (raidsim/man/gen-man.py) and the test that checks them
 * (tests/unit/test-sim-man.sh).
 *
 * This is the raidsim program linked with -Wl,--wrap=getopt_long: the
 * first call a subcommand makes to getopt_long lands here instead, with
 * the very tables that subcommand parses its arguments with.  They are
 * printed, one option a line, and the program ends before doing
 * anything else:
 *
 *   option<TAB>LONG<TAB>ARG<TAB>SHORT
 *
 * ARG is none, required or optional; SHORT is the option's letter, or
 * '-' if it has none.  A letter of the short options with no long twin
 * is printed with LONG '-'.  A subcommand that takes no options (help)
 * never calls getopt_long and prints nothing of the kind.
 *
 * Run: build/raidsim/cli-tables run
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int __wrap_getopt_long (int argc, char *const argv[],
                               const char *optstring,
                               const struct option *longopts,
                               int *longindex);

static const char *
arg_name (int has_arg)
{
  switch (has_arg) {
  case no_argument: return "none";
  case required_argument: return "required";
  default: return "optional";
  }
}

/* The letter c in optstring: its has_arg, or -1 if it is not there. */
static int
short_arg (const char *optstring, int c)
{
  const char *p;

  if (c <= 0 || c > 127 || c == ':')
    return -1;
  for (p = optstring; *p; ++p) {
    if (*p == ':')
      continue;
    if (*p == c)
      return p[1] != ':' ? no_argument
        : p[2] == ':' ? optional_argument : required_argument;
  }
  return -1;
}

int
__wrap_getopt_long (int argc, char *const argv[], const char *optstring,
                    const struct option *longopts, int *longindex)
{
  const struct option *o;
  const char *p;

  for (o = longopts; o->name; ++o) {
    int c = o->flag == NULL && short_arg (optstring, o->val) >= 0
      ? o->val : 0;

    printf ("option\t%s\t%s\t%c\n", o->name, arg_name (o->has_arg),
            c ? c : '-');
  }
  for (p = optstring; *p; ++p) {
    if (*p == ':' || *p == '+' || *p == '-')
      continue;
    for (o = longopts; o->name; ++o)
      if (o->flag == NULL && o->val == *p)
        break;
    if (o->name == NULL)
      printf ("option\t-\t%s\t%c\n", arg_name (short_arg (optstring, *p)),
              *p);
  }
  exit (0);
}
