/* raidsim: text line by line, from a file or from memory (see lines.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/lines.h"

ssize_t
raidsim_lines_next (struct raidsim_lines *l)
{
  const char *nl;
  size_t n;

  if (l->fp) {
    ssize_t r;

    errno = 0;
    r = getline (&l->line, &l->cap, l->fp);
    if (r == -1)
      return ferror (l->fp) || errno == ENOMEM ? -2 : -1;
    l->lineno++;
    return r;
  }
  if (l->text == NULL || *l->text == '\0')
    return -1;
  nl = strchr (l->text, '\n');
  n = nl ? (size_t) (nl - l->text) + 1 : strlen (l->text);
  if (n + 1 > l->cap) {
    char *p = realloc (l->line, n + 1);

    if (p == NULL) {
      errno = ENOMEM;
      return -2;
    }
    l->line = p;
    l->cap = n + 1;
  }
  memcpy (l->line, l->text, n);
  l->line[n] = '\0';
  l->text += n;
  l->lineno++;
  return n;
}

void
raidsim_lines_free (struct raidsim_lines *l)
{
  free (l->line);
  l->line = NULL;
  l->cap = 0;
}
