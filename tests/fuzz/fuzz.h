/* raidsim: what every fuzzing harness provides (tests/fuzz/).
 *
 * A harness is one small file, fuzz-NAME.c, that defines fuzz_one: feed
 * one input, of any bytes, to one parser and use whatever it returns, so
 * that a bug shows as a crash, a sanitizer report or an abort().  The
 * shared driver (driver.c) calls it: under AFL++ (built with afl-cc) in
 * persistent mode, many inputs per process; in the normal build once per
 * file named on the command line, which is how the test suite replays
 * tests/fuzz/corpus/NAME/ and tests/fuzz/crashes/NAME/.
 *
 * fuzz_one must not keep state from one input to the next, must free
 * what it allocates, and must not write files.  docs/fuzzing.md says how
 * to add a parser.
 */
#ifndef RAIDSIM_FUZZ_H
#define RAIDSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern void fuzz_one (const uint8_t *data, size_t size);

/* data as a C string: a malloc'd copy with a NUL after it (an input may
 * hold NULs of its own; the parser then sees the text up to the first).
 */
static inline char *
fuzz_text (const uint8_t *data, size_t size)
{
  char *s = malloc (size + 1);

  if (s == NULL)
    abort ();
  if (size)
    __builtin_memcpy (s, data, size);
  s[size] = '\0';
  return s;
}

/* A stream that throws away what is written, for the functions that
 * print what they parsed: their formatting is exercised too.
 */
extern FILE *fuzz_null (void);

/* An invariant of the parser's contract: abort () with where, so that
 * AFL++ counts it as a crash and a replay fails.
 */
#define FUZZ_ASSERT(cond)                                               \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf (stderr, "%s:%d: fuzz: %s\n", __FILE__, __LINE__, #cond); \
      abort ();                                                         \
    }                                                                   \
  } while (0)

#endif /* RAIDSIM_FUZZ_H */
