/* raidsim: the per-thread error message of the simulator library.  One
 * buffer per thread, so that the plugin can later call the same models
 * from several nbdkit worker threads without the messages mixing.
 */

#include <stdarg.h>
#include <stdio.h>

#include "raidsim/error.h"

static __thread char errbuf[1024];

const char *
raidsim_error (void)
{
  return errbuf;
}

/* Callers often wrap the previous message ("%s: %s", file,
 * raidsim_error ()), so format into a scratch buffer first: vsnprintf
 * must not read from the buffer it writes.
 */
void
raidsim_set_verror (const char *fs, va_list args)
{
  char tmp[sizeof errbuf];

  vsnprintf (tmp, sizeof tmp, fs, args);
  snprintf (errbuf, sizeof errbuf, "%s", tmp);
}

void
raidsim_set_error (const char *fs, ...)
{
  va_list args;

  va_start (args, fs);
  raidsim_set_verror (fs, args);
  va_end (args);
}
