/* raidsim config: the config reference, and a checker for config files.
 *
 * `raidsim config --help` (and so `raidsim help config`) prints every
 * key of every config file with its type, default and range, from the
 * same tables the parser uses; `--markdown` prints the same as
 * docs/config-reference.md.  Given files, it checks each one (an array
 * file with the files it names, a device, controller or fio job file)
 * and prints the settings in effect, defaults included.
 *
 * Run:
 *   build/raidsim/raidsim help config
 *   build/raidsim/raidsim config --markdown > docs/config-reference.md
 *   build/raidsim/raidsim config configs/arrays/raid0-2x-fixed.ini
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
#include "cmd.h"
#include "options.h"
#include "util.h"

#define CMD PROGRAM_NAME " config"

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s [--markdown]\n"
           "       %s FILE...\n"
           "\n"
           "With no FILE, print the reference of every config key (as\n"
           "Markdown with --markdown, which is docs/config-reference.md).\n"
           "With FILEs, check each array, device, controller or fio job\n"
           "file and print the settings in effect, defaults included.\n"
           "\n"
           "Options:\n"
           "      --markdown   the reference as Markdown\n"
           "  -h, --help       show this help and the reference\n",
           CMD, CMD);
}

static void
print_params (const struct raidsim_param *table, const void *base)
{
  const struct raidsim_param *p;
  char buf[RAIDSIM_STR_MAX + 64];

  for (p = table; p->name; ++p) {
    raidsim_param_format (p, (const char *) base + p->offset, buf, sizeof buf);
    printf ("%s = %s\n", p->name, buf);
  }
}

/* The kind of a config file is its first section. */
static int
check_file (const char *path)
{
  struct raidsim_ini *ini;
  const char *kind;
  unsigned i;

  if (has_extension (path, ".fio") || has_extension (path, ".job")) {
    struct raidsim_jobfile *jf = raidsim_jobfile_load (path);

    if (jf == NULL)
      return -1;
    printf ("; %s: %u job%s\n", path, jf->njobs, jf->njobs == 1 ? "" : "s");
    for (i = 0; i < jf->njobs; ++i) {
      char buf[RAIDSIM_STR_MAX + 64];
      unsigned o;

      printf ("[%s]\n", jf->jobs[i].name);
      for (o = 0; o < RAIDSIM_FIO_NOPTS; ++o) {
        raidsim_job_format_opt (&jf->jobs[i], o, buf, sizeof buf);
        printf ("%s = %s\n", raidsim_fio_params[o].name, buf);
      }
    }
    raidsim_jobfile_free (jf);
    return 0;
  }

  ini = raidsim_ini_load (path, RAIDSIM_INI_CONFIG);
  if (ini == NULL)
    return -1;
  if (ini->nsections == 0) {
    raidsim_set_error ("%s: no section: expected [array], [device] or "
                       "[controller]", path);
    raidsim_ini_free (ini);
    return -1;
  }
  kind = ini->sections[0].name;
  if (strcmp (kind, "array") == 0) {
    struct raidsim_array_config *ac;

    raidsim_ini_free (ini);
    if ((ac = raidsim_array_config_load (path)) == NULL)
      return -1;
    raidsim_array_config_print (stdout, ac);
    raidsim_array_config_free (ac);
  }
  else if (strcmp (kind, "device") == 0) {
    struct raidsim_device_config *d;

    raidsim_ini_free (ini);
    if ((d = raidsim_device_config_load (path)) == NULL)
      return -1;
    printf ("; %s\n[device]\n", path);
    print_params (raidsim_device_common_params, d);
    print_params (d->ops->params, d->params);
    raidsim_device_config_free (d);
  }
  else if (strcmp (kind, "controller") == 0) {
    struct raidsim_controller_config *c;

    raidsim_ini_free (ini);
    if ((c = raidsim_controller_config_load (path)) == NULL)
      return -1;
    printf ("; %s\n[controller]\n", path);
    print_params (raidsim_controller_common_params, c);
    print_params (c->ops->params, c->params);
    raidsim_controller_config_free (c);
  }
  else {
    raidsim_set_error ("%s:%u: [%s]: unknown section: expected [array], "
                       "[device] or [controller] (fio job files end in "
                       ".fio)", path, ini->sections[0].line, kind);
    raidsim_ini_free (ini);
    return -1;
  }
  return 0;
}

int
cmd_config (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "markdown", no_argument, NULL, 'M' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  bool markdown = false;
  int c, i, ret = 0;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case 'M':
      markdown = true;
      break;
    case 'h':
      usage (stdout);
      raidsim_config_reference (stdout, false);
      return 0;
    default:
      cli_bad_option (CMD, c, argv);
      return 1;
    }
  }
  if (markdown && optind < argc) {
    fprintf (stderr, "%s: --markdown: prints the reference, so takes no "
             "FILE; see '%s --help'\n", CMD, CMD);
    return 1;
  }
  if (optind == argc) {
    raidsim_config_reference (stdout, markdown);
    return fflush (stdout) == EOF ? 1 : 0;
  }
  for (i = optind; i < argc; ++i) {
    if (i > optind)
      printf ("\n");
    if (check_file (argv[i]) == -1) {
      fprintf (stderr, "%s: %s\n", CMD, raidsim_error ());
      ret = 1;
    }
  }
  if (fflush (stdout) == EOF) {
    fprintf (stderr, "%s: write: %s\n", CMD, strerror (errno));
    ret = 1;
  }
  return ret;
}
