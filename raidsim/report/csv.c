/* raidsim: reading and writing CSV (see csv.h). */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/csv.h"
#include "raidsim/error.h"
#include "raidsim/lines.h"

struct raidsim_csv {
  char *name;
  unsigned flags;
  unsigned need;                /* fields a record must have, from 0 */
  struct raidsim_lines lines;
};

static struct raidsim_csv *
new_reader (const char *name, unsigned flags)
{
  struct raidsim_csv *c = calloc (1, sizeof *c);

  if (c == NULL || (c->name = strdup (name)) == NULL) {
    raidsim_set_error ("%s: %s", name, strerror (ENOMEM));
    free (c);
    return NULL;
  }
  c->flags = flags;
  return c;
}

struct raidsim_csv *
raidsim_csv_open (const char *path, unsigned flags)
{
  FILE *fp = fopen (path, "r");
  struct raidsim_csv *c;

  if (fp == NULL) {
    raidsim_set_error ("%s: %s", path, strerror (errno));
    return NULL;
  }
  if ((c = new_reader (path, flags)) == NULL) {
    fclose (fp);
    return NULL;
  }
  c->lines.fp = fp;
  return c;
}

struct raidsim_csv *
raidsim_csv_open_text (const char *name, const char *text, unsigned flags)
{
  struct raidsim_csv *c = new_reader (name, flags);

  if (c)
    c->lines.text = text;
  return c;
}

void
raidsim_csv_close (struct raidsim_csv *c)
{
  if (c == NULL)
    return;
  if (c->lines.fp)
    fclose (c->lines.fp);
  raidsim_lines_free (&c->lines);
  free (c->name);
  free (c);
}

const char *
raidsim_csv_name (const struct raidsim_csv *c)
{
  return c->name;
}

/* Split line p in place into row's fields.  Returns 0 or -1. */
static int
split (const struct raidsim_csv *c, char *p, struct raidsim_csv_row *row)
{
  for (row->n = 0;; ++p) {
    char *out = p, end;

    if (row->n == RAIDSIM_CSV_FIELDS_MAX) {
      raidsim_set_error ("%s:%u: more than %d fields", c->name, row->line,
                         RAIDSIM_CSV_FIELDS_MAX);
      return -1;
    }
    row->field[row->n++] = out;
    if (*p == '"') {
      for (p++; *p != '"' || p[1] == '"'; p++) {
        if (*p == '\0') {
          raidsim_set_error ("%s:%u: field %u: no closing quote", c->name,
                             row->line, row->n);
          return -1;
        }
        if (*p == '"')
          p++;                  /* "" is one quote */
        *out++ = *p;
      }
      p++;
      if (*p != ',' && *p != '\0') {
        raidsim_set_error ("%s:%u: field %u: text after the closing quote",
                           c->name, row->line, row->n);
        return -1;
      }
    }
    else
      out = p += strcspn (p, ",");
    end = *p;
    *out = '\0';
    if (end == '\0')
      return 0;
  }
}

int
raidsim_csv_next (struct raidsim_csv *c, struct raidsim_csv_row *row)
{
  struct raidsim_lines *l = &c->lines;
  ssize_t n;

  while ((n = raidsim_lines_next (l)) >= 0) {
    char *s = l->line;

    /* The line's end, LF or CRLF, is no part of the last field. */
    if (n > 0 && s[n - 1] == '\n')
      s[--n] = '\0';
    if (n > 0 && s[n - 1] == '\r')
      s[--n] = '\0';
    row->line = l->lineno;
    if (n > RAIDSIM_CSV_LINE_MAX) {
      raidsim_set_error ("%s:%u: line longer than %d characters", c->name,
                         row->line, RAIDSIM_CSV_LINE_MAX);
      return -1;
    }
    if (n == 0 || ((c->flags & RAIDSIM_CSV_COMMENTS) && s[0] == '#'))
      continue;
    if (split (c, s, row) == -1)
      return -1;
    if (row->n < c->need) {
      raidsim_set_error ("%s:%u: too few fields", c->name, row->line);
      return -1;
    }
    return 1;
  }
  if (n == -2) {
    raidsim_set_error ("%s: %s", c->name, strerror (errno));
    return -1;
  }
  return 0;
}

int
raidsim_csv_columns (struct raidsim_csv *c,
                     const struct raidsim_csv_row *header,
                     const char *const *want, unsigned nwant, int *col,
                     const char *what)
{
  unsigned i, k, need = 0;

  for (k = 0; k < nwant; ++k) {
    col[k] = -1;
    for (i = 0; i < header->n && col[k] < 0; ++i)
      if (strcmp (header->field[i], want[k]) == 0)
        col[k] = i;
    if (col[k] < 0) {
      raidsim_set_error ("%s:%u: no '%s' column: not %s", c->name,
                         header->line, want[k], what);
      return -1;
    }
    if ((unsigned) col[k] >= need)
      need = col[k] + 1;
  }
  c->need = need;
  return 0;
}

int
raidsim_csv_header (struct raidsim_csv *c, const char *const *want,
                    unsigned nwant, int *col, const char *what)
{
  struct raidsim_csv_row header;
  int r = raidsim_csv_next (c, &header);

  if (r == 0)
    raidsim_set_error ("%s: empty: not %s", c->name, what);
  if (r != 1)
    return -1;
  return raidsim_csv_columns (c, &header, want, nwant, col, what);
}

void
raidsim_csv_field (FILE *fp, const char *s)
{
  if (strpbrk (s, ",\"\r\n") == NULL) {
    fputs (s, fp);
    return;
  }
  fputc ('"', fp);
  for (; *s; ++s) {
    if (*s == '"')
      fputc ('"', fp);
    fputc (*s, fp);
  }
  fputc ('"', fp);
}
