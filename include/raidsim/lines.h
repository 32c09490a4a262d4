/* raidsim: text read line by line, from a file or from memory, for the
 * readers of INI files (param.c) and CSV files (csv.c), so that a file
 * compiled into the program reads exactly as the same file on disk.
 *
 *   struct raidsim_lines l = { .text = text };    (or .fp = fp)
 *   while (raidsim_lines_next (&l) >= 0)
 *     ... l.line, line number l.lineno ...
 *   raidsim_lines_free (&l);
 */
#ifndef RAIDSIM_LINES_H
#define RAIDSIM_LINES_H

#include <stdio.h>
#include <sys/types.h>

struct raidsim_lines {
  FILE *fp;                     /* read from this file, or else */
  const char *text;             /* from the rest of this text */
  char *line;                   /* the current line, its end included */
  size_t cap;
  unsigned lineno;              /* of the current line, from 1 */
};

/* The next line into l->line: its length; -1 at the end; -2 on a read
 * error or when memory runs out, with errno set.
 */
extern ssize_t raidsim_lines_next (struct raidsim_lines *l);
extern void raidsim_lines_free (struct raidsim_lines *l);

#endif /* RAIDSIM_LINES_H */
