/* raidsim: the one CSV reader and the one CSV writer of the simulator.
 *
 * The dialect is RFC 4180's, as spreadsheets write it: fields split at
 * commas; a field that starts with a double quote runs to the matching
 * quote, commas included, and "" inside it is one quote; a record is
 * one line, ended by LF or CRLF, and the last line needs no end.  Blank
 * lines are not records, nor, when asked for, lines starting with '#'
 * (configs/validation/published-map.csv documents itself that way).
 * A quoted field cannot hold a line end: every file the simulator
 * reads or writes keeps one record to a line.
 *
 * Every error is one line, "NAME:LINE: what is wrong", where NAME is
 * the path or, for text in memory, the name it was given.
 *
 * Run the tests: meson test -C build --suite unit sim-csv
 */
#ifndef RAIDSIM_CSV_H
#define RAIDSIM_CSV_H

#include <stdio.h>

/* The longest line, its end excluded, and the most fields of a record. */
#define RAIDSIM_CSV_LINE_MAX 4096
#define RAIDSIM_CSV_FIELDS_MAX 64

/* Flags of raidsim_csv_open. */
#define RAIDSIM_CSV_COMMENTS 1u /* a line starting with '#' is no record */

struct raidsim_csv;

/* One record.  The fields point into the reader's buffer: they hold
 * until the next raidsim_csv_next or raidsim_csv_close.
 */
struct raidsim_csv_row {
  unsigned line;                /* its line in the file, from 1 */
  unsigned n;                   /* fields */
  char *field[RAIDSIM_CSV_FIELDS_MAX];
};

/* A reader of the file at path, or of text in memory that errors call
 * name.  NULL with raidsim_error () set ("PATH: No such file ...").
 */
extern struct raidsim_csv *raidsim_csv_open (const char *path,
                                             unsigned flags);
extern struct raidsim_csv *raidsim_csv_open_text (const char *name,
                                                  const char *text,
                                                  unsigned flags);
extern void raidsim_csv_close (struct raidsim_csv *c);

/* The file's path or the text's name, for messages. */
extern const char *raidsim_csv_name (const struct raidsim_csv *c);

/* The next record: 1, 0 at the end, or -1 with raidsim_error () set for
 * a line longer than RAIDSIM_CSV_LINE_MAX, a record of more than
 * RAIDSIM_CSV_FIELDS_MAX fields, a quote left open or text after a
 * closing quote, and, once raidsim_csv_columns has found a header's
 * columns, a record too short to have all of them ("too few fields").
 */
extern int raidsim_csv_next (struct raidsim_csv *c,
                             struct raidsim_csv_row *row);

/* Find the column of each of the nwant names in a header: col[i] for
 * want[i].  -1 with raidsim_error () set to "NAME:LINE: no 'COLUMN'
 * column: not WHAT" for the first name missing, where what says what
 * the file should have been.  From then on raidsim_csv_next refuses a
 * record that lacks one of these columns.
 */
extern int raidsim_csv_columns (struct raidsim_csv *c,
                                const struct raidsim_csv_row *header,
                                const char *const *want, unsigned nwant,
                                int *col, const char *what);

/* The same after reading the header, the first record; a file with no
 * record is "NAME: empty: not WHAT".
 */
extern int raidsim_csv_header (struct raidsim_csv *c,
                               const char *const *want, unsigned nwant,
                               int *col, const char *what);

/* Write one field, quoted only if it has to be (a comma, a quote or a
 * line end in it), so that plain names stay plain.
 */
extern void raidsim_csv_field (FILE *fp, const char *s);

#endif /* RAIDSIM_CSV_H */
