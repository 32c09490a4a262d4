/* raidsim: files compiled into the program, so that the demo and
 * `raidsim validate` run from any directory, installed or in the build
 * tree, with no data files and nothing written to disk.
 *
 * raidsim/config/embed-files.py makes each table at build time from the
 * source tree.  A file's name is its path from the tree's top
 * ("configs/arrays/single-optane-900p.ini"), which is also what error
 * messages call it, and its text is the file's.  The config loaders
 * find the files an array file names in the same table, by their path
 * relative to the array file (config.h, raidsim_array_config_load_from).
 */
#ifndef RAIDSIM_EMBEDDED_H
#define RAIDSIM_EMBEDDED_H

#include <stddef.h>

struct raidsim_embedded {
  const char *name;             /* from the source tree's top */
  const char *text;
};

/* The text of name in table, which ends with { NULL, NULL }; or NULL
 * with raidsim_error () set to "NAME: not among the files built into
 * the program".
 */
extern const char *raidsim_embedded_find (const struct raidsim_embedded *table,
                                          const char *name);

/* path, relative to the directory of base (a name in a table), as a
 * name in the table: "../devices/x.ini" from "configs/arrays/a.ini" is
 * "configs/devices/x.ini".  Returns 0, or -1 with raidsim_error () set
 * if it does not fit in len bytes or climbs above the tree's top.
 */
extern int raidsim_embedded_path (const char *base, const char *path,
                                  char *out, size_t len);

#endif /* RAIDSIM_EMBEDDED_H */
