/* raidsim: the trace parsers (raidsim/config/trace.c) on buffers made
 * here, for what the replay tests (test-sim-trace.sh) do not reach:
 * blktrace's records in big-endian byte order, times that go backwards,
 * an iolog version 2 timed by its waits, CRLF line ends, a buffer that
 * ends mid-line without a NUL, and the errors, each naming its place.
 *
 * The record layout is blktrace_api.h's struct blk_io_trace: magic,
 * sequence (u32), time, sector (u64), bytes, action, pid, device, cpu
 * (u32), error, pdu_len (u16): 48 bytes.
 *
 * Run: meson test -C build trace-parse
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "raidsim/error.h"
#include "raidsim/io.h"
#include "raidsim/trace.h"

#define Q_READ  (1u | (1u << 4 << 16) | (1u << 0 << 16))  /* Q, QUEUE, READ */
#define Q_WRITE (1u | (1u << 4 << 16) | (1u << 1 << 16))  /* Q, QUEUE, WRITE */

static void
put (unsigned char *b, uint64_t v, int n, int be)
{
  int i;

  for (i = 0; i < n; ++i)
    b[be ? n - 1 - i : i] = v >> (8 * i);
}

/* One record at b (48 bytes + pdu), in big-endian order if be. */
static size_t
record (unsigned char *b, int be, uint32_t magic, uint64_t time,
        uint64_t sector, uint32_t bytes, uint32_t action, uint16_t pdu)
{
  memset (b, 0, 48 + pdu);
  put (b, magic, 4, be);
  put (b + 8, time, 8, be);
  put (b + 16, sector, 8, be);
  put (b + 24, bytes, 4, be);
  put (b + 28, action, 4, be);
  put (b + 46, pdu, 2, be);
  return 48 + pdu;
}

static void
parse_ok (const void *buf, size_t len, struct raidsim_trace *t)
{
  ck_assert_msg (raidsim_trace_parse_buffer (buf, len, "t", t) == 0, "%s",
                 raidsim_error ());
}

static void
parse_err (const void *buf, size_t len, const char *want)
{
  struct raidsim_trace t;

  ck_assert_int_eq (raidsim_trace_parse_buffer (buf, len, "t", &t), -1);
  ck_assert_str_eq (raidsim_error (), want);
  ck_assert_ptr_null (t.recs);
}

START_TEST (blktrace_big_endian_and_time_order)
{
  unsigned char b[4 * 64];
  size_t n = 0;
  struct raidsim_trace t;

  /* A read at 5000 ns, a write stamped earlier (3000: due with the
   * read), a read at 9000 ns with a 16-byte payload before it.
   */
  n += record (b + n, 1, 0x65617407, 5000, 8, 4096, Q_READ, 0);
  n += record (b + n, 1, 0x65617407, 3000, 16, 8192, Q_WRITE, 16);
  n += record (b + n, 1, 0x65617407, 9000, 1, 512, Q_READ, 0);
  parse_ok (b, n, &t);
  ck_assert_int_eq (t.format, RAIDSIM_TRACE_BLKTRACE);
  ck_assert (t.timed);
  ck_assert_uint_eq (t.n, 3);
  ck_assert_uint_eq (t.recs[0].time, 0);
  ck_assert_uint_eq (t.recs[0].offset, 4096);
  ck_assert_uint_eq (t.recs[0].len, 4096);
  ck_assert_uint_eq (t.recs[0].dir, RAIDSIM_READ);
  ck_assert_uint_eq (t.recs[1].time, 0);
  ck_assert_uint_eq (t.recs[1].dir, RAIDSIM_WRITE);
  ck_assert_uint_eq (t.recs[1].offset, 8192);
  ck_assert_uint_eq (t.recs[2].time, 4000);
  ck_assert_uint_eq (t.recs[2].line, 3);
  ck_assert_uint_eq (t.max_len, 8192);
  ck_assert_uint_eq (t.gcd, 512);
  raidsim_trace_clear (&t);
}
END_TEST

START_TEST (blktrace_errors)
{
  unsigned char b[3 * 64];
  size_t n = 0;

  n += record (b, 0, 0x65617407, 0, 0, 4096, Q_READ, 0);
  record (b + n, 0, 0x65617406, 1, 0, 4096, Q_READ, 0);
  parse_err (b, n + 48, "t: event 2 (byte 48): blktrace version 6 (only 7 "
             "is read)");
  record (b + n, 0, 0x65617407, 1, 0, 4096, Q_READ, 100);
  parse_err (b, n + 48 + 99, "t: event 2 (byte 48): truncated: its payload "
             "of 100 bytes runs past the end");
  record (b + n, 0, 0x12345678, 1, 0, 4096, Q_READ, 0);
  parse_err (b, n + 48, "t: event 2 (byte 48): bad magic 0x12345678 (not "
             "0x65617407)");
  record (b + n, 0, 0x65617407, 1, 0, 0, 1u | (1u << 4 << 16), 0);
  parse_err (b, n + 48, "t: event 2 (byte 48): a queue event of 0 bytes "
             "that is not a flush");
}
END_TEST

START_TEST (iolog2_waits_crlf_and_no_nul)
{
  static const char v2[] =
    "fio version 2 iolog\r\n"
    "/dev/x add\r\n"
    "/dev/x read 0 4096\r\n"
    "/dev/x wait 1500 0\r\n"
    "/dev/x write 4096 4096\r\n"
    "/dev/x wait 250 0\r\n"
    "/dev/x read 8192 512\r\n"
    "/dev/x read 0 garbage after the end of the buffer\n";
  struct raidsim_trace t;

  /* The buffer ends with the third I/O's line: what follows must not be
   * read.
   */
  parse_ok (v2, strstr (v2, "/dev/x read 0 garbage") - v2, &t);
  ck_assert_int_eq (t.format, RAIDSIM_TRACE_IOLOG2);
  ck_assert (t.timed);
  ck_assert_uint_eq (t.n, 3);
  ck_assert_uint_eq (t.recs[0].time, 0);
  ck_assert_uint_eq (t.recs[1].time, 1500 * RAIDSIM_NS_PER_US);
  ck_assert_uint_eq (t.recs[2].time, 1750 * RAIDSIM_NS_PER_US);
  ck_assert_uint_eq (t.recs[2].line, 7);
  raidsim_trace_clear (&t);

  /* Without waits there are no times. */
  {
    static const char v[] = "fio version 2 iolog\nf read 0 512\nf write 512 512\n";

    parse_ok (v, strlen (v), &t);
  }
  ck_assert (!t.timed);
  ck_assert_uint_eq (t.n, 2);
  raidsim_trace_clear (&t);
}
END_TEST

/* A string literal, without its NUL, and the error it must give. */
#define TEXT_ERR(lit, want) parse_err (lit, sizeof lit - 1, want)

START_TEST (text_errors)
{
  static const char nul[] = "fio version 3 iolog\n1 f read 0\0 512\n";

  TEXT_ERR ("fio version 3 iologue\n1 f read 0 512\n",
            "t:1: the header is not 'fio version 3 iolog'");
  TEXT_ERR ("fio version 3 iolog\n1 f read 0 0\n", "t:2: read of length 0");
  TEXT_ERR ("fio version 3 iolog\n1 f write 18446744073709551615 4096\n",
            "t:2: offset 18446744073709551615 + length 4096 is too large");
  parse_err (nul, sizeof nul - 1, "t:2: not a line of text (a NUL byte, or "
             "a field longer than 255 bytes)");
  TEXT_ERR ("fio version 3 iolog\n-1 f read 0 512\n",
            "t:2: '-1' is not a time in microseconds");
  TEXT_ERR ("  8,0  0  1  0.5  1  Q  R 0 + 8 [x]\n",
            "t:1: not an event of blkparse's default output ('MAJ,MIN CPU "
            "SEQ SEC.NSEC PID ACTION RWBS SECTOR + COUNT')");
  TEXT_ERR ("  8,0  0  1  0.000000500  1  Q  X 0 + 8 [x]\n",
            "t:1: Q: 'X' is not an RWBS field");
}
END_TEST

static Suite *
trace_suite (void)
{
  Suite *s = suite_create ("trace");
  TCase *tc = tcase_create ("parse");

  tcase_add_test (tc, blktrace_big_endian_and_time_order);
  tcase_add_test (tc, blktrace_errors);
  tcase_add_test (tc, iolog2_waits_crlf_and_no_nul);
  tcase_add_test (tc, text_errors);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (trace_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
