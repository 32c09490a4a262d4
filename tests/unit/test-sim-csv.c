/* raidsim: the one CSV reader and writer (raidsim/report/csv.c).
 *
 * Every case is read twice, from text in memory and from a file with
 * the same bytes, since `raidsim validate` reads its compiled-in CSVs
 * from memory and `--csv` and `raidsim plot` read files.  Quoting,
 * commas and doubled quotes inside quotes, empty fields, CRLF, a last
 * line with no end, blank and comment lines; errors name the file and
 * the line; and what the writer quotes reads back as it was.
 *
 * Run: meson test -C build --suite unit sim-csv
 */

#include <stdlib.h>
#include <string.h>

#include "raidsim/csv.h"
#include "sim-test.h"

/* A reader of text: in memory when from_file is 0, else from a file
 * holding the same bytes.  Either is called "t.csv" in messages.
 */
static struct raidsim_csv *
open_case (int from_file, const char *text, unsigned flags)
{
  struct raidsim_csv *c;

  if (from_file) {
    const char *path = sim_test_file ("t.csv", "%s", text);

    ck_assert_int_eq (chdir (sim_test_tmpdir ()), 0);
    c = raidsim_csv_open (strrchr (path, '/') + 1, flags);
  }
  else
    c = raidsim_csv_open_text ("t.csv", text, flags);
  ck_assert_msg (c != NULL, "%s", raidsim_error ());
  return c;
}

/* Read every record of text and join them as "line:a|b|c;" so that a
 * whole file is checked in one comparison; an error is "!MESSAGE".
 */
static char *
read_all (int from_file, const char *text, unsigned flags)
{
  static char out[8192];
  struct raidsim_csv *c = open_case (from_file, text, flags);
  struct raidsim_csv_row row;
  size_t n = 0;
  int r;

  out[0] = '\0';
  while ((r = raidsim_csv_next (c, &row)) == 1) {
    unsigned i;

    n += snprintf (out + n, sizeof out - n, "%u:", row.line);
    for (i = 0; i < row.n; ++i)
      n += snprintf (out + n, sizeof out - n, "%s%s", i ? "|" : "",
                     row.field[i]);
    n += snprintf (out + n, sizeof out - n, ";");
  }
  if (r == -1)
    snprintf (out + n, sizeof out - n, "!%s", raidsim_error ());
  raidsim_csv_close (c);
  return out;
}

START_TEST (fields_and_quotes)
{
  int f = _i;

  /* Plain fields, and empty ones anywhere in a record. */
  ck_assert_str_eq (read_all (f, "a,b,c\n,x,\n", 0), "1:a|b|c;2:|x|;");
  /* A quoted field keeps its commas; "" inside it is one quote. */
  ck_assert_str_eq (read_all (f, "id,note\nr1,\"nearly 60,000 IOPS\"\n"
                              "r2,\"a \"\"fresh\"\" drive\"\n", 0),
                    "1:id|note;2:r1|nearly 60,000 IOPS;"
                    "3:r2|a \"fresh\" drive;");
  /* An empty quoted field is empty; a quote inside a plain field is
   * only a character.
   */
  ck_assert_str_eq (read_all (f, "\"\",5\"x\n", 0), "1:|5\"x;");
  /* CRLF ends a line as LF does, also after a quoted field. */
  ck_assert_str_eq (read_all (f, "a,\"b\"\r\n1,2\r\n", 0), "1:a|b;2:1|2;");
  /* The last line needs no end. */
  ck_assert_str_eq (read_all (f, "a,b\n1,2", 0), "1:a|b;2:1|2;");
  ck_assert_str_eq (read_all (f, "a,\"b,c\"", 0), "1:a|b,c;");
  /* Blank lines are no records but count as lines; '#' lines only
   * when asked for.
   */
  ck_assert_str_eq (read_all (f, "a\n\n\r\n# x,y\nb\n", 0),
                    "1:a;4:# x|y;5:b;");
  ck_assert_str_eq (read_all (f, "a\n\n\r\n# x,y\nb\n",
                              RAIDSIM_CSV_COMMENTS), "1:a;5:b;");
  ck_assert_str_eq (read_all (f, "", 0), "");
}
END_TEST

START_TEST (errors_name_file_and_line)
{
  int f = _i;
  char *line = malloc (RAIDSIM_CSV_LINE_MAX + 8), *text;
  size_t n;

  ck_assert_str_eq (read_all (f, "a,b\n1,\"open\n2,3\n", 0),
                    "1:a|b;!t.csv:2: field 2: no closing quote");
  ck_assert_str_eq (read_all (f, "a\n\"q\"x,1\n", 0),
                    "1:a;!t.csv:2: field 1: text after the closing quote");

  /* A line of exactly the limit is read; one more character is too
   * long, whatever the line's end.
   */
  memset (line, 'x', RAIDSIM_CSV_LINE_MAX);
  line[RAIDSIM_CSV_LINE_MAX] = '\0';
  n = strlen (line) + 32;
  text = malloc (n + 8);
  snprintf (text, n + 8, "a\r\n%s\r\n", line);
  ck_assert_int_eq (strncmp (read_all (f, text, 0), "1:a;2:xxx", 9), 0);
  snprintf (text, n + 8, "a\n%sy\r\nb\n", line);
  ck_assert_str_eq (read_all (f, text, 0), "1:a;!t.csv:2: line longer than "
                    "4096 characters");
  snprintf (text, n + 8, "a\n%sy", line);
  ck_assert_str_eq (read_all (f, text, 0), "1:a;!t.csv:2: line longer than "
                    "4096 characters");
  free (text);
  free (line);

  /* More fields than a record can hold. */
  text = calloc (1, 2 * RAIDSIM_CSV_FIELDS_MAX + 8);
  memset (text, ',', RAIDSIM_CSV_FIELDS_MAX);
  ck_assert_str_eq (read_all (f, text, 0), "!t.csv:1: more than 64 fields");
  free (text);
}
END_TEST

START_TEST (header_columns)
{
  static const char *const want[] = { "value", "id" };
  int f = _i, col[2];
  struct raidsim_csv *c;
  struct raidsim_csv_row row;

  c = open_case (f, "# a comment\nid,case,value\nr1,c,5\nr2,c\n",
                 RAIDSIM_CSV_COMMENTS);
  ck_assert_int_eq (raidsim_csv_header (c, want, 2, col, "a test file"), 0);
  ck_assert_int_eq (col[0], 2);
  ck_assert_int_eq (col[1], 0);
  ck_assert_int_eq (raidsim_csv_next (c, &row), 1);
  ck_assert_str_eq (row.field[col[0]], "5");
  /* A record without every wanted column is refused, not read past. */
  ck_assert_int_eq (raidsim_csv_next (c, &row), -1);
  ck_assert_str_eq (raidsim_error (), "t.csv:4: too few fields");
  raidsim_csv_close (c);

  c = open_case (f, "id,case\nr1,c\n", 0);
  ck_assert_int_eq (raidsim_csv_header (c, want, 2, col, "a test file"), -1);
  ck_assert_str_eq (raidsim_error (), "t.csv:1: no 'value' column: not a "
                    "test file");
  raidsim_csv_close (c);

  c = open_case (f, "\n\n", 0);
  ck_assert_int_eq (raidsim_csv_header (c, want, 2, col, "a test file"), -1);
  ck_assert_str_eq (raidsim_error (), "t.csv: empty: not a test file");
  raidsim_csv_close (c);
}
END_TEST

START_TEST (missing_file)
{
  ck_assert_ptr_null (raidsim_csv_open ("/nonexistent/x.csv", 0));
  ck_assert_str_eq (raidsim_error (),
                    "/nonexistent/x.csv: No such file or directory");
}
END_TEST

/* What the writer quotes reads back as it was written; plain fields
 * stay unquoted, so the simulator's CSV is byte for byte as before.
 */
START_TEST (writer_round_trip)
{
  static const char *const fields[] = {
    "raid0-2x-fixed", "", "a,b", "say \"hi\"", "\"", ",", "x\ry",
  };
  enum { N = sizeof fields / sizeof fields[0] };
  char *buf = NULL;
  size_t len = 0, i;
  FILE *fp = open_memstream (&buf, &len);
  struct raidsim_csv *c;
  struct raidsim_csv_row row;

  for (i = 0; i < N; ++i) {
    if (i)
      fputc (',', fp);
    raidsim_csv_field (fp, fields[i]);
  }
  fputc ('\n', fp);
  ck_assert_int_eq (fclose (fp), 0);
  ck_assert_str_eq (buf, "raid0-2x-fixed,,\"a,b\",\"say \"\"hi\"\"\","
                    "\"\"\"\",\",\",\"x\ry\"\n");
  c = raidsim_csv_open_text ("w.csv", buf, 0);
  ck_assert_int_eq (raidsim_csv_next (c, &row), 1);
  ck_assert_uint_eq (row.n, N);
  for (i = 0; i < N; ++i)
    ck_assert_str_eq (row.field[i], fields[i]);
  ck_assert_int_eq (raidsim_csv_next (c, &row), 0);
  raidsim_csv_close (c);
  free (buf);
}
END_TEST

static Suite *
csv_suite (void)
{
  Suite *s = suite_create ("sim-csv");
  TCase *tc = tcase_create ("read");

  /* _i: 0 reads from memory, 1 from a file. */
  tcase_add_loop_test (tc, fields_and_quotes, 0, 2);
  tcase_add_loop_test (tc, errors_name_file_and_line, 0, 2);
  tcase_add_loop_test (tc, header_columns, 0, 2);
  tcase_add_test (tc, missing_file);
  suite_add_tcase (s, tc);
  tc = tcase_create ("write");
  tcase_add_test (tc, writer_round_trip);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (csv_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
