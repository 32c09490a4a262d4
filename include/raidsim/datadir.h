/* raidsim: finding array, device, controller and workload files by
 * name, in the data directories, as well as by path.
 *
 * `meson install` puts configs/ in DATADIR/raidsim (arrays/, devices/,
 * controllers/, workloads/, validation/), so that an installed raidsim
 * runs from any folder:
 *
 *   raidsim run raid0-2x-optane-900p-vroc --workload four-corners
 *
 * A file named on the command line, SPEC, is looked for in this order,
 * and the first that exists is taken:
 *
 *   1. SPEC as given (from the current directory), then SPEC.EXT when
 *      SPEC has no extension (EXT: .ini, or .fio for a workload);
 *   2. if SPEC is a bare name (no '/'), KIND/SPEC and KIND/SPEC.EXT in
 *      each data directory, in the order raidsim_datadir_roots gives.
 *
 * A file named inside another file (an array file's device = and
 * controller =) is looked for the same way, from the directory of that
 * file instead of the current one; and then, whatever its path, by its
 * last component in the data directories, so that an array file copied
 * out of configs/ still finds "../devices/x.ini".  An absolute path is
 * only itself.
 *
 * The data directories, in order (raidsim_datadir_roots):
 *
 *   1. each directory of $RAIDSIM_DATADIR, a ':'-separated list;
 *   2. the source tree's configs/, when this program (or the plugin
 *      holding this code) is a file of the build tree it was built in:
 *      a developer's build reads its own tree, never an older install;
 *   3. the installed data directory (prefix/datadir/raidsim);
 *   4. the data directory beside the program (BINDIR/../share/raidsim
 *      as configured), for a program installed with DESTDIR or moved
 *      with its prefix.
 *
 * A name found nowhere is an error naming every place looked in.
 */
#ifndef RAIDSIM_DATADIR_H
#define RAIDSIM_DATADIR_H

#include <limits.h>
#include <stddef.h>

enum raidsim_kind {
  RAIDSIM_KIND_ARRAY,
  RAIDSIM_KIND_DEVICE,
  RAIDSIM_KIND_CONTROLLER,
  RAIDSIM_KIND_WORKLOAD,
  RAIDSIM_NKINDS
};

struct raidsim_kind_info {
  const char *dir;              /* under a data directory: "arrays" */
  const char *ext;              /* ".ini" */
  const char *what;             /* for messages: "array file" */
};

/* Indexed by enum raidsim_kind. */
extern const struct raidsim_kind_info raidsim_kinds[RAIDSIM_NKINDS];

#define RAIDSIM_DATADIR_MAX_ROOTS 12

struct raidsim_datadir_root {
  char path[PATH_MAX];
  const char *source;           /* "$RAIDSIM_DATADIR", "build tree",
                                 * "installed", "beside the program" */
};

/* The data directories in lookup order, existing or not, into roots
 * (at most max); returns how many.
 */
extern unsigned raidsim_datadir_roots (struct raidsim_datadir_root *roots,
                                       unsigned max);

/* The file spec names, of kind, named in the file referrer (NULL: on
 * the command line), looked for as described above in roots[0..n-1],
 * into out.  Returns 0, or -1 with raidsim_error () set to one line
 * naming spec and every place looked in.
 */
extern int raidsim_datadir_find_in (enum raidsim_kind kind, const char *spec,
                                    const char *referrer,
                                    const struct raidsim_datadir_root *roots,
                                    unsigned n, char *out, size_t len);

/* The same in raidsim_datadir_roots's directories. */
extern int raidsim_datadir_find (enum raidsim_kind kind, const char *spec,
                                 const char *referrer, char *out, size_t len);

/* The one-line description of the file at path: the first sentence of
 * its opening comment (lines starting with ';' or '#'), into out,
 * shortened at a word with "..." to fit len bytes; "" if it has none.
 */
extern void raidsim_datadir_describe (const char *path, char *out,
                                      size_t len);

#endif /* RAIDSIM_DATADIR_H */
