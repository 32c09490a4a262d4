/* raidsim: the tables of files built into the raidsim command, made at
 * build time by raidsim/config/embed-files.py (see cli/meson.build and
 * include/raidsim/embedded.h).  Each ends with { NULL, NULL }.
 */
#ifndef RAIDSIM_CLI_BUILTIN_H
#define RAIDSIM_CLI_BUILTIN_H

#include "raidsim/embedded.h"

/* The demo's arrays, first and in the order it runs them, and the
 * device and controller files they name (cmd-demo.c).
 */
extern const struct raidsim_embedded raidsim_demo_files[];

/* What `raidsim validate` carries (cmd-validate.c): the published
 * figures (tests/data/published.csv), the row -> array + workload
 * mapping (configs/validation/published-map.csv) and every config file
 * it names.
 */
extern const struct raidsim_embedded raidsim_validation_files[];

#endif /* RAIDSIM_CLI_BUILTIN_H */
