/* raidsim: finding files compiled into the program (see embedded.h). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "raidsim/embedded.h"
#include "raidsim/error.h"

const char *
raidsim_embedded_find (const struct raidsim_embedded *table, const char *name)
{
  const struct raidsim_embedded *e;

  for (e = table; e->name; ++e)
    if (strcmp (e->name, name) == 0)
      return e->text;
  raidsim_set_error ("%s: not among the files built into the program", name);
  return NULL;
}

int
raidsim_embedded_path (const char *base, const char *path, char *out,
                       size_t len)
{
  const char *slash = strrchr (base, '/'), *p;
  char joined[4096];
  size_t n = 0, dir = slash ? (size_t) (slash - base) : 0;
  int w;

  /* An absolute path is no name in a table: left as it is, it is
   * reported as not built in.
   */
  if (path[0] == '/') {
    w = snprintf (out, len, "%s", path);
    if (w < 0 || (size_t) w >= len)
      goto too_long;
    return 0;
  }
  w = snprintf (joined, sizeof joined, "%.*s%s%s", (int) dir, base,
                dir ? "/" : "", path);
  if (w < 0 || (size_t) w >= sizeof joined || len == 0)
    goto too_long;
  /* Copy joined to out a component at a time: "." and empty ones go,
   * ".." takes back the one before.
   */
  for (p = joined; *p; ) {
    size_t c = strcspn (p, "/");

    if (c == 0 || (c == 1 && p[0] == '.'))
      ;
    else if (c == 2 && p[0] == '.' && p[1] == '.') {
      if (n == 0) {
        raidsim_set_error ("%s: from %s: climbs above the source tree",
                           path, base);
        return -1;
      }
      while (n > 0 && out[n - 1] != '/')
        n--;
      if (n > 0)
        n--;                    /* the '/' before it */
    }
    else {
      if (n + (n > 0) + c + 1 > len)
        goto too_long;
      if (n > 0)
        out[n++] = '/';
      memcpy (out + n, p, c);
      n += c;
    }
    p += c;
    if (*p == '/')
      p++;
  }
  out[n] = '\0';
  return 0;

 too_long:
  raidsim_set_error ("%s: from %s: %s", path, base, strerror (ENAMETOOLONG));
  return -1;
}
