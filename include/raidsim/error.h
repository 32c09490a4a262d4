/* raidsim: the simulator's error messages.
 *
 * Functions of the simulator library return -1 or NULL on failure and
 * leave a message here, kept per thread as libnbd does, so that a caller
 * several layers up can print it unchanged.  Messages about a config or
 * job file have the form "FILE:LINE: KEY: what is wrong"; others start
 * with the name of the object or function they concern.
 */
#ifndef RAIDSIM_ERROR_H
#define RAIDSIM_ERROR_H

#include <stdarg.h>

/* The last error set in this thread ("" if none). */
extern const char *raidsim_error (void);

extern void raidsim_set_error (const char *fs, ...)
  __attribute__ ((format (printf, 1, 2)));
extern void raidsim_set_verror (const char *fs, va_list args)
  __attribute__ ((format (printf, 1, 0)));

#endif /* RAIDSIM_ERROR_H */
