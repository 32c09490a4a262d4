/* raidsim: fuzzing the trace readers (raidsim/config/trace.c, see
 * include/raidsim/trace.h): fio iolog versions 2 and 3, blkparse text
 * and blktrace's binary records, told apart by their first bytes.
 *
 * The input is one whole trace, given to raidsim_trace_parse_buffer as
 * it is (binary records may hold NULs).  A trace that parses must keep
 * the promises of trace.h: times that never go backwards, lengths from
 * 1 to RAIDSIM_TRACE_MAX_LEN, max_len the largest, gcd dividing every
 * offset and length; and raidsim_trace_check against arrays of three
 * sizes must agree with the records.
 *
 * Run: build/tests/fuzz/fuzz-trace tests/fuzz/corpus/trace
 */

#include "raidsim/error.h"
#include "raidsim/trace.h"
#include "fuzz.h"

static const uint64_t array_sizes[] = {
  UINT64_C (1) << 20, UINT64_C (1) << 30, UINT64_C (1) << 44,
};

void
fuzz_one (const uint8_t *data, size_t size)
{
  struct raidsim_trace t;
  uint64_t max_len = 0, end = 0;
  size_t i;
  unsigned s;

  if (raidsim_trace_parse_buffer ((const char *) data, size, "fuzz", &t)
      == -1) {
    if (getenv ("FUZZ_VERBOSE"))
      fprintf (stderr, "  trace: %s\n", raidsim_error ());
    return;
  }
  if (getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "  trace: %s, %zu I/Os\n",
             raidsim_trace_format_name (t.format), t.n);
  FUZZ_ASSERT (t.n <= t.cap);
  for (i = 0; i < t.n; ++i) {
    const struct raidsim_trace_rec *r = &t.recs[i];

    FUZZ_ASSERT (r->len >= 1 && r->len <= RAIDSIM_TRACE_MAX_LEN);
    FUZZ_ASSERT (i == 0 || r->time >= t.recs[i - 1].time);
    FUZZ_ASSERT (t.gcd && r->offset % t.gcd == 0 && r->len % t.gcd == 0);
    FUZZ_ASSERT (r->offset <= UINT64_MAX - r->len);
    if (r->len > max_len)
      max_len = r->len;
    if (r->offset + r->len > end)
      end = r->offset + r->len;
  }
  FUZZ_ASSERT (t.n == 0 || t.max_len == max_len);
  for (s = 0; s < sizeof array_sizes / sizeof array_sizes[0]; ++s)
    FUZZ_ASSERT ((raidsim_trace_check (&t, array_sizes[s]) == 0)
                 == (end <= array_sizes[s]));
  raidsim_trace_clear (&t);
}
