/* raidsim: the built-in demo's config files, compiled into the program
 * (embed-configs.sh generates the table from configs/ at build time).
 */
#ifndef RAIDSIM_DEMO_H
#define RAIDSIM_DEMO_H

struct raidsim_embedded {
  const char *name;             /* relative to configs/ */
  const char *text;
};

/* Ends with { NULL, NULL }. */
extern const struct raidsim_embedded raidsim_demo_files[];

/* What `raidsim validate` carries (cmd-validate.c): the published
 * figures, the row -> array + workload mapping and every config file it
 * names, relative to the source tree's top (tests/data/published.csv,
 * configs/validation/published-map.csv, configs/arrays/...).
 */
extern const struct raidsim_embedded raidsim_validation_files[];

#endif /* RAIDSIM_DEMO_H */
