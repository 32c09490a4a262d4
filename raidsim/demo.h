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

#endif /* RAIDSIM_DEMO_H */
