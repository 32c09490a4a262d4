/* raidsim: small helpers that several commands share, header-only as
 * nbdkit keeps its common/include helpers.
 */
#ifndef RAIDSIM_CLI_UTIL_H
#define RAIDSIM_CLI_UTIL_H

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* Whether a file name ends in ext (".png"), in any case: OUT.PNG is a
 * PNG and JOB.FIO a fio job file.
 */
static inline bool
has_extension (const char *name, const char *ext)
{
  size_t n = strlen (name), m = strlen (ext);

  return n >= m && strcasecmp (name + n - m, ext) == 0;
}

/* qsort's order of doubles, smallest first; also of rows of doubles by
 * their first column.
 */
static inline int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

#endif /* RAIDSIM_CLI_UTIL_H */
