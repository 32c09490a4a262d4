/* raidsim list: the arrays, devices, controllers and workloads that can
 * be named (raidsim run NAME, device = NAME, --workload NAME), found in
 * the data directories in lookup order (include/raidsim/datadir.h),
 * each with the first sentence of its opening comment.  A name found in
 * two directories is listed once, from the first, as it is found.
 *
 * Run:
 *   build/raidsim/raidsim list
 *   raidsim list arrays --paths          (installed)
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/datadir.h"
#include "raidsim/preset.h"
#include "cmd.h"
#include "options.h"

#define CMD PROGRAM_NAME " list"

/* Lines are kept to this width: the name, then as much of the
 * description as fits.
 */
#define WIDTH 100

/* How each kind is named, in what order, and where a name of it goes. */
static const struct {
  enum raidsim_kind kind;
  const char *use;
} kinds[] = {
  { RAIDSIM_KIND_ARRAY, "raidsim run NAME; nbdkit raid model=NAME" },
  { RAIDSIM_KIND_DEVICE, "device = NAME in an array file" },
  { RAIDSIM_KIND_CONTROLLER, "controller = NAME in an array file" },
  { RAIDSIM_KIND_WORKLOAD, "--workload NAME" },
};
#define NKINDS (sizeof kinds / sizeof kinds[0])
#define PRESETS NKINDS          /* the word "presets" */

static void
usage (FILE *fp)
{
  fprintf (fp,
           "usage: %s [--paths] [arrays|devices|controllers|workloads|presets]...\n"
           "\n"
           "List the array, device, controller and workload files that\n"
           "raidsim finds by name, each with the first sentence of its\n"
           "opening comment, and the built-in presets.  Names are looked\n"
           "for in $RAIDSIM_DATADIR, the build tree (when run from it),\n"
           "the installed data directory and the one beside the program,\n"
           "in that order; the first file of a name is the one used.\n"
           "\n"
           "Options:\n"
           "  -p, --paths   print each file's path instead of its description\n"
           "  -h, --help    show this help\n",
           CMD);
}

struct entry {
  char name[256];
  char path[PATH_MAX];
  unsigned root;
};

static int
by_name (const void *a, const void *b)
{
  const struct entry *x = a, *y = b;

  if (x->root != y->root)
    return x->root < y->root ? -1 : 1;
  return strcmp (x->name, y->name);
}

/* The files of kind in every root, the first of each name, sorted by
 * root and name, into *out.  Returns how many, or -1 on ENOMEM.
 */
static int
collect (enum raidsim_kind kind, const struct raidsim_datadir_root *roots,
         unsigned nroots, struct entry **out)
{
  const struct raidsim_kind_info *k = &raidsim_kinds[kind];
  size_t elen = strlen (k->ext);
  struct entry *v = NULL;
  size_t n = 0, cap = 0;
  unsigned r;

  for (r = 0; r < nroots; ++r) {
    char dir[PATH_MAX + 32];
    struct dirent *d;
    DIR *dp;

    snprintf (dir, sizeof dir, "%s/%s", roots[r].path, k->dir);
    if ((dp = opendir (dir)) == NULL)
      continue;
    while ((d = readdir (dp)) != NULL) {
      size_t len = strlen (d->d_name), i;
      bool seen = false;

      if (d->d_name[0] == '.' || len <= elen || len - elen >= sizeof v->name ||
          strcmp (d->d_name + len - elen, k->ext) != 0)
        continue;
      for (i = 0; i < n && !seen; ++i)
        seen = strlen (v[i].name) == len - elen &&
          strncmp (v[i].name, d->d_name, len - elen) == 0;
      if (seen)
        continue;
      if (n == cap) {
        struct entry *nv = realloc (v, (cap = cap ? cap * 2 : 32) * sizeof *v);

        if (nv == NULL) {
          closedir (dp);
          free (v);
          return -1;
        }
        v = nv;
      }
      snprintf (v[n].name, sizeof v[n].name, "%.*s", (int) (len - elen),
                d->d_name);
      snprintf (v[n].path, sizeof v[n].path, "%s/%s", dir, d->d_name);
      v[n].root = r;
      n++;
    }
    closedir (dp);
  }
  if (n > 0)
    qsort (v, n, sizeof *v, by_name);
  *out = v;
  return (int) n;
}

static int
list_kind (unsigned which, const struct raidsim_datadir_root *roots,
           unsigned nroots, bool paths)
{
  const struct raidsim_kind_info *k = &raidsim_kinds[kinds[which].kind];
  struct entry *v = NULL;
  int n, i, width = 0;
  unsigned r;

  if ((n = collect (kinds[which].kind, roots, nroots, &v)) < 0) {
    cli_error (CMD, "%s: %s", k->dir, strerror (ENOMEM));
    return -1;
  }
  for (i = 0; i < n; ++i)
    if ((int) strlen (v[i].name) > width)
      width = strlen (v[i].name);
  if (n == 0) {
    printf ("%s (%s): none, in", k->dir, kinds[which].use);
    for (r = 0; r < nroots; ++r)
      printf ("%s %s/%s", r ? "," : "", roots[r].path, k->dir);
    printf ("%s\n", nroots ? "" : " no data directory");
  }
  for (i = 0; i < n; ++i) {
    char desc[WIDTH];
    int room = WIDTH - 4 - width;

    if (i == 0 || v[i].root != v[i - 1].root)
      printf ("%s (%s), in %s/%s (%s):\n", k->dir,
              kinds[which].use, roots[v[i].root].path, k->dir,
              roots[v[i].root].source);
    if (paths) {
      printf ("  %-*s  %s\n", width, v[i].name, v[i].path);
      continue;
    }
    raidsim_datadir_describe (v[i].path, desc,
                              room < 30 ? 30 : (size_t) room);
    printf ("  %-*s  %s\n", width, v[i].name, desc);
  }
  free (v);
  return 0;
}

int
cmd_list (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "paths", no_argument, NULL, 'p' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct raidsim_datadir_root roots[RAIDSIM_DATADIR_MAX_ROOTS];
  bool want[NKINDS + 1] = { false }, any = false, paths = false;
  unsigned nroots, i, printed = 0;
  int c;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":ph", longopts, NULL)) != -1) {
    switch (c) {
    case 'p':
      paths = true;
      break;
    case 'h':
      usage (stdout);
      return 0;
    default:
      cli_bad_option (CMD, c, argv);
      return 1;
    }
  }
  for (; optind < argc; ++optind) {
    for (i = 0; i < NKINDS; ++i)
      if (strcmp (argv[optind], raidsim_kinds[kinds[i].kind].dir) == 0)
        break;
    if (i == NKINDS && strcmp (argv[optind], "presets") != 0) {
      cli_error (CMD, "'%s' is not one of arrays, devices, controllers, "
                 "workloads or presets", argv[optind]);
      return 1;
    }
    want[i] = any = true;
  }
  for (i = 0; !any && i <= NKINDS; ++i)
    want[i] = true;

  nroots = raidsim_datadir_roots (roots, RAIDSIM_DATADIR_MAX_ROOTS);
  for (i = 0; i < NKINDS; ++i) {
    if (!want[i])
      continue;
    if (printed++)
      putchar ('\n');
    if (list_kind (i, roots, nroots, paths) == -1)
      return 1;
  }
  if (want[PRESETS])
    printf ("%spresets (--workload NAME[:SPAN]), built in: %s\n",
            printed ? "\n" : "", raidsim_preset_names ());
  if (fflush (stdout) == EOF) {
    cli_error (CMD, "write: %s", strerror (errno));
    return 1;
  }
  return 0;
}
