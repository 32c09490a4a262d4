/* raidsim: the parameter tables' machinery (see param.h): value syntax
 * per type, range checks, reading INI files through libinih, applying a
 * section to a struct, and the reference documentation.
 *
 * libinih does the key = value splitting.  It is fed through our own
 * line reader (ini_parse_stream) because Debian's build does not pass
 * line numbers to the handler, and because the reader is the one place
 * that sees every line: it counts them, strips comments the way each
 * syntax wants, and notices section headers even when the section has
 * no keys (an empty fio job section is a job).  For the same reasons
 * text in memory goes through the same reader (lines.h) rather than
 * libinih's ini_parse_string, so that a config compiled into the
 * program reads exactly as the same file on disk.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "raidsim/error.h"
#include "raidsim/geometry.h"
#include "raidsim/lines.h"
#include "raidsim/param.h"

/* ---- values ---- */

struct unit {
  const char *name;
  uint64_t mult;
};

static const struct unit time_units[] = {
  { "ns", 1 },
  { "us", 1000 },
  { "ms", 1000000 },
  { "s", 1000000000 },
  { NULL, 0 },
};

static const struct unit rate_units[] = {
  { "B/s", 1 },
  { "KB/s", 1000 },
  { "kB/s", 1000 },
  { "MB/s", 1000000 },
  { "GB/s", 1000000000 },
  { "KiB/s", UINT64_C (1) << 10 },
  { "MiB/s", UINT64_C (1) << 20 },
  { "GiB/s", UINT64_C (1) << 30 },
  { NULL, 0 },
};

static int
parse_uint (const char *s, uint64_t *v)
{
  uint64_t r = 0;

  if (!isdigit ((unsigned char) *s))
    return -1;
  for (; isdigit ((unsigned char) *s); ++s) {
    unsigned d = *s - '0';
    if (r > (UINT64_MAX - d) / 10)
      return -1;
    r = r * 10 + d;
  }
  if (*s != '\0')
    return -1;
  *v = r;
  return 0;
}

/* "8.5ms": a decimal number, optional blanks, and one of units.  The
 * fraction is worked in integers and rounded to the nearest base unit,
 * so "0.1us" is exactly 100 ns with no floating-point residue.  A bare
 * "0" needs no unit.
 */
static int
parse_decimal_unit (const char *s, const struct unit *units, uint64_t *v)
{
  unsigned __int128 ip = 0, frac = 0, scale = 1, r;
  const char *p = s;
  const struct unit *u;

  if (!isdigit ((unsigned char) *p))
    return -1;
  for (; isdigit ((unsigned char) *p); ++p) {
    ip = ip * 10 + (*p - '0');
    if (ip > UINT64_MAX)
      return -1;
  }
  if (*p == '.') {
    ++p;
    if (!isdigit ((unsigned char) *p))
      return -1;
    for (; isdigit ((unsigned char) *p); ++p) {
      if (scale < UINT64_C (1000000000000000000)) {
        frac = frac * 10 + (*p - '0');
        scale *= 10;
      }
    }
  }
  while (*p == ' ' || *p == '\t')
    ++p;
  if (*p == '\0') {
    if (ip == 0 && frac == 0) {
      *v = 0;
      return 0;
    }
    return -1;
  }
  for (u = units; u->name; ++u)
    if (strcmp (p, u->name) == 0)
      break;
  if (u->name == NULL)
    return -1;
  r = ip * u->mult + (frac * u->mult + scale / 2) / scale;
  if (r > UINT64_MAX)
    return -1;
  *v = (uint64_t) r;
  return 0;
}

/* "2.5": a decimal number in thousandths, rounded to the nearest. */
static int
parse_ratio (const char *s, uint64_t *v)
{
  unsigned __int128 ip = 0, frac = 0, scale = 1, r;

  if (!isdigit ((unsigned char) *s))
    return -1;
  for (; isdigit ((unsigned char) *s); ++s) {
    ip = ip * 10 + (*s - '0');
    if (ip > UINT64_MAX / RAIDSIM_RATIO_ONE)
      return -1;
  }
  if (*s == '.') {
    ++s;
    if (!isdigit ((unsigned char) *s))
      return -1;
    for (; isdigit ((unsigned char) *s); ++s)
      if (scale < UINT64_C (1000000000000000000)) {
        frac = frac * 10 + (*s - '0');
        scale *= 10;
      }
  }
  if (*s != '\0')
    return -1;
  r = ip * RAIDSIM_RATIO_ONE + (frac * RAIDSIM_RATIO_ONE + scale / 2) / scale;
  *v = (uint64_t) r;
  return 0;
}

/* fio's multiplier suffixes with kb_base=1024, its default: "k" and "kb"
 * are 1024 while "kib" is 1000, the reverse of IEC, which fio keeps for
 * old job files (fio's HOWTO, "Parameter types").  fio silently treats
 * an unknown suffix as 1; we refuse it instead, since a typo in a job
 * file should not change the job.
 */
static int
parse_fio_int (const char *s, uint64_t *v)
{
  static const struct { const char *name; unsigned pow; uint64_t base; }
  suffixes[] = {
    { "", 0, 1 },
    { "k", 1, 1024 }, { "kb", 1, 1024 }, { "kib", 1, 1000 },
    { "m", 2, 1024 }, { "mb", 2, 1024 }, { "mib", 2, 1000 },
    { "g", 3, 1024 }, { "gb", 3, 1024 }, { "gib", 3, 1000 },
    { "t", 4, 1024 }, { "tb", 4, 1024 }, { "tib", 4, 1000 },
    { "p", 5, 1024 }, { "pb", 5, 1024 }, { "pib", 5, 1000 },
  };
  unsigned __int128 r = 0;
  const char *p = s;
  unsigned i, k;

  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    char *end;
    unsigned long long x;

    if (!isxdigit ((unsigned char) p[2]))
      return -1;
    errno = 0;
    x = strtoull (p + 2, &end, 16);
    if (errno != 0 || *end != '\0')
      return -1;
    *v = x;
    return 0;
  }
  if (!isdigit ((unsigned char) *p))
    return -1;
  for (; isdigit ((unsigned char) *p); ++p) {
    r = r * 10 + (*p - '0');
    if (r > UINT64_MAX)
      return -1;
  }
  for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; ++i) {
    if (strcasecmp (p, suffixes[i].name) == 0) {
      for (k = 0; k < suffixes[i].pow; ++k) {
        r *= suffixes[i].base;
        if (r > UINT64_MAX)
          return -1;
      }
      *v = (uint64_t) r;
      return 0;
    }
  }
  return -1;
}

/* fio's time syntax (parse.c, get_mult_time): an integer and an
 * optional case-insensitive unit; seconds when there is none.
 */
static int
parse_fio_time (const char *s, uint64_t *v)
{
  static const struct unit units[] = {
    { "", 1000000000 },
    { "us", 1000 }, { "usec", 1000 },
    { "ms", 1000000 }, { "msec", 1000000 },
    { "s", 1000000000 },
    { "m", UINT64_C (60) * 1000000000 },
    { "h", UINT64_C (3600) * 1000000000 },
    { "d", UINT64_C (86400) * 1000000000 },
    { NULL, 0 },
  };
  unsigned __int128 r = 0;
  const char *p = s;
  const struct unit *u;

  if (!isdigit ((unsigned char) *p))
    return -1;
  for (; isdigit ((unsigned char) *p); ++p) {
    r = r * 10 + (*p - '0');
    if (r > UINT64_MAX)
      return -1;
  }
  for (u = units; u->name; ++u) {
    if (strcasecmp (p, u->name) == 0) {
      r *= u->mult;
      if (r > UINT64_MAX)
        return -1;
      *v = (uint64_t) r;
      return 0;
    }
  }
  return -1;
}

static int
parse_bool (const char *s, bool *b)
{
  static const char *const yes[] = { "1", "true", "yes", "on", NULL };
  static const char *const no[] = { "0", "false", "no", "off", NULL };
  unsigned i;

  for (i = 0; yes[i]; ++i)
    if (strcasecmp (s, yes[i]) == 0) {
      *b = true;
      return 0;
    }
  for (i = 0; no[i]; ++i)
    if (strcasecmp (s, no[i]) == 0) {
      *b = false;
      return 0;
    }
  return -1;
}

static bool
is_numeric (enum raidsim_ptype t)
{
  switch (t) {
  case RAIDSIM_PT_UINT: case RAIDSIM_PT_SIZE: case RAIDSIM_PT_TIME:
  case RAIDSIM_PT_RATE: case RAIDSIM_PT_FIO_INT: case RAIDSIM_PT_FIO_TIME:
  case RAIDSIM_PT_RATIO:
    return true;
  default:
    return false;
  }
}

/* What a value of each type looks like, for error messages. */
static const char *
syntax_hint (enum raidsim_ptype t)
{
  switch (t) {
  case RAIDSIM_PT_UINT: return "a whole number";
  case RAIDSIM_PT_SIZE:
    return "a size: a number with an optional K, M, G or T suffix";
  case RAIDSIM_PT_TIME: return "a time: a number and a unit, ns, us, ms or s";
  case RAIDSIM_PT_RATE:
    return "a rate: a number and a unit, B/s, KB/s, MB/s, GB/s, KiB/s, "
      "MiB/s or GiB/s, or 0 for unlimited";
  case RAIDSIM_PT_BOOL: return "a boolean: true or false";
  case RAIDSIM_PT_ENUM: return "one of the listed names";
  case RAIDSIM_PT_STRING: return "a non-empty string";
  case RAIDSIM_PT_FIO_INT:
    return "an integer with an optional fio suffix (k, m, g, t, p)";
  case RAIDSIM_PT_FIO_TIME:
    return "an integer with an optional fio time unit (us, ms, s, m, h, d)";
  case RAIDSIM_PT_RATIO: return "a decimal number such as 2.5";
  }
  return "?";
}

int
raidsim_param_parse (const struct raidsim_param *p, const char *value,
                     void *field)
{
  uint64_t v = 0;
  int r = -1;

  switch (p->type) {
  case RAIDSIM_PT_UINT: r = parse_uint (value, &v); break;
  case RAIDSIM_PT_SIZE: r = raid_parse_size (value, &v); break;
  case RAIDSIM_PT_TIME: r = parse_decimal_unit (value, time_units, &v); break;
  case RAIDSIM_PT_RATE:
    if (strcmp (value, "unlimited") == 0) {
      v = 0;
      r = 0;
    }
    else
      r = parse_decimal_unit (value, rate_units, &v);
    break;
  case RAIDSIM_PT_FIO_INT: r = parse_fio_int (value, &v); break;
  case RAIDSIM_PT_FIO_TIME: r = parse_fio_time (value, &v); break;
  case RAIDSIM_PT_RATIO: r = parse_ratio (value, &v); break;

  case RAIDSIM_PT_BOOL:
    if (parse_bool (value, (bool *) field) == 0)
      return 0;
    break;

  case RAIDSIM_PT_ENUM: {
    const struct raidsim_enum *e;
    char names[256] = "";
    size_t len = 0;

    for (e = p->enums; e->name; ++e)
      if (strcmp (value, e->name) == 0) {
        *(int *) field = e->value;
        return 0;
      }
    for (e = p->enums; e->name; ++e)
      len += snprintf (names + len, len < sizeof names ? sizeof names - len : 0,
                       "%s%s", e == p->enums ? "" : ", ", e->name);
    raidsim_set_error ("%s: '%s' is not one of %s", p->name, value, names);
    return -1;
  }

  case RAIDSIM_PT_STRING:
    if (value[0] == '\0')
      break;
    if (strlen (value) >= RAIDSIM_STR_MAX) {
      raidsim_set_error ("%s: value is longer than %d characters",
                         p->name, RAIDSIM_STR_MAX - 1);
      return -1;
    }
    strcpy (field, value);
    return 0;
  }

  if (r == -1) {
    raidsim_set_error ("%s: '%s' is not %s", p->name, value,
                       syntax_hint (p->type));
    return -1;
  }

  if (is_numeric (p->type)) {
    char lim[64];

    if (v < p->min) {
      raidsim_param_format_value (p->type, p->min, lim, sizeof lim);
      raidsim_set_error ("%s: %s is below the minimum, %s",
                         p->name, value, lim);
      return -1;
    }
    if (p->max != 0 && v > p->max) {
      raidsim_param_format_value (p->type, p->max, lim, sizeof lim);
      raidsim_set_error ("%s: %s is above the maximum, %s",
                         p->name, value, lim);
      return -1;
    }
    *(uint64_t *) field = v;
  }
  return 0;
}

/* The largest unit in which v is a whole number. */
static void
format_units (uint64_t v, const struct unit *units, size_t nunits,
              char *buf, size_t len)
{
  size_t i;

  if (v == 0) {
    snprintf (buf, len, "0");
    return;
  }
  for (i = nunits; i-- > 0; )
    if (v % units[i].mult == 0) {
      snprintf (buf, len, "%" PRIu64 "%s", v / units[i].mult, units[i].name);
      return;
    }
  snprintf (buf, len, "%" PRIu64, v);
}

void
raidsim_param_format_value (enum raidsim_ptype t, uint64_t v,
                            char *buf, size_t len)
{
  static const struct unit size_units[] = {
    { "", 1 }, { "K", UINT64_C (1) << 10 }, { "M", UINT64_C (1) << 20 },
    { "G", UINT64_C (1) << 30 }, { "T", UINT64_C (1) << 40 },
  };
  static const struct unit fio_units[] = {
    { "", 1 }, { "k", UINT64_C (1) << 10 }, { "m", UINT64_C (1) << 20 },
    { "g", UINT64_C (1) << 30 }, { "t", UINT64_C (1) << 40 },
  };
  static const struct unit rate_fmt[] = {
    { "B/s", 1 }, { "KB/s", 1000 }, { "MB/s", 1000000 },
    { "GB/s", 1000000000 },
  };
  static const struct unit fio_time_fmt[] = {
    { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
  };

  switch (t) {
  case RAIDSIM_PT_SIZE: format_units (v, size_units, 5, buf, len); break;
  case RAIDSIM_PT_TIME: format_units (v, time_units, 4, buf, len); break;
  case RAIDSIM_PT_RATE: format_units (v, rate_fmt, 4, buf, len); break;
  case RAIDSIM_PT_FIO_INT: format_units (v, fio_units, 5, buf, len); break;
  case RAIDSIM_PT_FIO_TIME:
    if (v % 1000 == 0)
      format_units (v, fio_time_fmt, 3, buf, len);
    else
      snprintf (buf, len, "%" PRIu64 "ns", v);
    break;
  case RAIDSIM_PT_RATIO: {
    /* The shortest decimal that is exact: 2500 is "2.5". */
    uint64_t f = v % RAIDSIM_RATIO_ONE;
    int digits = 3;

    if (f == 0) {
      snprintf (buf, len, "%" PRIu64, v / RAIDSIM_RATIO_ONE);
      break;
    }
    while (f % 10 == 0) {
      f /= 10;
      digits--;
    }
    snprintf (buf, len, "%" PRIu64 ".%0*" PRIu64, v / RAIDSIM_RATIO_ONE,
              digits, f);
    break;
  }
  default:
    snprintf (buf, len, "%" PRIu64, v);
  }
}

void
raidsim_param_format (const struct raidsim_param *p, const void *field,
                      char *buf, size_t len)
{
  const struct raidsim_enum *e;

  switch (p->type) {
  case RAIDSIM_PT_BOOL:
    snprintf (buf, len, "%s", *(const bool *) field ? "true" : "false");
    break;
  case RAIDSIM_PT_ENUM:
    for (e = p->enums; e->name; ++e)
      if (e->value == *(const int *) field) {
        snprintf (buf, len, "%s", e->name);
        return;
      }
    snprintf (buf, len, "?");
    break;
  case RAIDSIM_PT_STRING:
    snprintf (buf, len, "%s", (const char *) field);
    break;
  default:
    raidsim_param_format_value (p->type, *(const uint64_t *) field, buf, len);
  }
}

const char *
raidsim_param_unit (const struct raidsim_param *p)
{
  if (p->unit)
    return p->unit;
  switch (p->type) {
  case RAIDSIM_PT_SIZE: return "bytes";
  case RAIDSIM_PT_TIME: return "ns";
  case RAIDSIM_PT_FIO_TIME: return "s";
  case RAIDSIM_PT_RATE: return "bytes/s";
  default: return "";
  }
}

/* ---- reading INI files ---- */

struct reader {
  struct raidsim_lines lines;   /* a file's, or text's in memory */
  enum raidsim_ini_syntax syntax;
  struct raidsim_ini *ini;
  int cur_section;              /* -1 before the first header */
  unsigned err_line;            /* 0: no error yet */
  char err[1024];
  bool nomem;
  int read_errno;               /* a read error's, or 0 */
};

static void __attribute__ ((format (printf, 2, 3)))
reader_error (struct reader *r, const char *fs, ...)
{
  va_list args;
  int n;

  /* Lines are read in order, so the first error is the earliest. */
  if (r->err_line != 0)
    return;
  r->err_line = r->lines.lineno;
  n = snprintf (r->err, sizeof r->err, "%s:%u: ", r->ini->path,
                r->lines.lineno);
  va_start (args, fs);
  vsnprintf (r->err + n, sizeof r->err - n, fs, args);
  va_end (args);
}

static void *
grow (void *array, unsigned n, size_t size)
{
  /* Double at powers of two: n entries never need more than 2n slots. */
  if (n == 0 || (n & (n - 1)) == 0) {
    void *p = realloc (array, (n ? 2 * n : 4) * size);
    return p;
  }
  return array;
}

static int
add_entry (struct reader *r, const char *key, const char *value)
{
  struct raidsim_ini *ini = r->ini;
  struct raidsim_ini_entry *e, *entries;

  entries = grow (ini->entries, ini->nentries, sizeof *entries);
  if (entries == NULL)
    goto nomem;
  ini->entries = entries;
  e = &entries[ini->nentries];
  e->section = r->cur_section;
  e->line = r->lines.lineno;
  e->used = false;
  e->key = strdup (key);
  e->value = value ? strdup (value) : NULL;
  if (e->key == NULL || (value && e->value == NULL)) {
    free (e->key);
    free (e->value);
    goto nomem;
  }
  ini->nentries++;
  return 0;

 nomem:
  r->nomem = true;
  return -1;
}

static int
add_section (struct reader *r, const char *name)
{
  struct raidsim_ini *ini = r->ini;
  struct raidsim_ini_section *s;

  s = grow (ini->sections, ini->nsections, sizeof *s);
  if (s == NULL) {
    r->nomem = true;
    return -1;
  }
  ini->sections = s;
  s[ini->nsections].name = strdup (name);
  if (s[ini->nsections].name == NULL) {
    r->nomem = true;
    return -1;
  }
  s[ini->nsections].line = r->lines.lineno;
  r->cur_section = ini->nsections++;
  return 0;
}

static char *
trim (char *s)
{
  char *end;

  while (isspace ((unsigned char) *s))
    s++;
  end = s + strlen (s);
  while (end > s && isspace ((unsigned char) end[-1]))
    *--end = '\0';
  return s;
}

/* Cut a line at its comment.  fio cuts at the first ';' or '#' wherever
 * it is (parse.c, strip_blank_end); our configs only where one starts
 * the line or follows a blank, as libinih does for ';'.
 */
static void
strip_comment (char *s, enum raidsim_ini_syntax syntax)
{
  char *p;

  for (p = s; *p; ++p) {
    if (*p != ';' && *p != '#')
      continue;
    if (syntax == RAIDSIM_INI_FIO || p == s || isspace ((unsigned char) p[-1])) {
      *p = '\0';
      return;
    }
  }
}

/* libinih's line source.  Returns the cleaned line, or "" for a line we
 * have dealt with ourselves, so that libinih only ever sees blank lines,
 * section headers and key = value.
 */
static char *
read_line (char *str, int num, void *stream)
{
  struct reader *r = stream;
  ssize_t n;
  char *s, *eq;

  n = raidsim_lines_next (&r->lines);
  if (n < 0) {
    if (n == -2)
      r->read_errno = errno;
    return NULL;
  }
  s = r->lines.line;
  /* A UTF-8 byte order mark, as libinih allows. */
  if (r->lines.lineno == 1 && strncmp (s, "\xef\xbb\xbf", 3) == 0)
    s += 3;
  strip_comment (s, r->syntax);
  /* Leading blanks are stripped too, which also turns off libinih's
   * continuation lines: fio has none, and a stray indent in a config
   * should not glue a line onto the key above it.
   */
  s = trim (s);
  str[0] = '\0';

  if (*s == '\0')
    return str;

  if (*s == '[') {
    char *end = strchr (s, ']');

    if (end == NULL) {
      reader_error (r, "'%s': a section header needs a closing ']'", s);
      return str;
    }
    if (*trim (end + 1) != '\0') {
      reader_error (r, "'%s': text after the section header", s);
      return str;
    }
    *end = '\0';
    if (*trim (s + 1) == '\0') {
      reader_error (r, "'[]': empty section name");
      return str;
    }
    add_section (r, trim (s + 1));
    return str;
  }

  eq = strchr (s, '=');
  if (eq == NULL) {
    if (r->syntax == RAIDSIM_INI_FIO) {
      /* fio allows options without a value ("time_based"); keep it so
       * the option table can say whether we support it.
       */
      if (r->cur_section < 0)
        reader_error (r, "%s: option outside a job section", s);
      else
        add_entry (r, s, NULL);
    }
    else
      reader_error (r, "'%s': expected KEY = VALUE", s);
    return str;
  }
  if (eq == s) {
    reader_error (r, "'%s': missing key before '='", s);
    return str;
  }

  /* libinih reads at most num - 1 bytes, newline included. */
  if (strlen (s) + 2 > (size_t) num) {
    reader_error (r, "line is longer than %d characters", num - 2);
    return str;
  }
  /* libinih strips blanks around the key and the value itself. */
  snprintf (str, num, "%s\n", s);
  return str;
}

static int
handle_kv (void *user, const char *section, const char *name,
           const char *value)
{
  struct reader *r = user;

  if (r->cur_section < 0) {
    if (r->syntax == RAIDSIM_INI_FIO)
      reader_error (r, "%s: option outside a job section", name);
    else
      reader_error (r, "%s: key outside any [section]", name);
    return 1;
  }
  add_entry (r, name, value);
  return 1;
}

void
raidsim_ini_free (struct raidsim_ini *ini)
{
  unsigned i;

  if (ini == NULL)
    return;
  for (i = 0; i < ini->nentries; ++i) {
    free (ini->entries[i].key);
    free (ini->entries[i].value);
  }
  for (i = 0; i < ini->nsections; ++i)
    free (ini->sections[i].name);
  free (ini->entries);
  free (ini->sections);
  free (ini->path);
  free (ini);
}

/* Read r's lines into a new struct raidsim_ini called name. */
static struct raidsim_ini *
load (struct reader *r, const char *name)
{
  int ret;

  r->cur_section = -1;
  r->ini = calloc (1, sizeof *r->ini);
  if (r->ini)
    r->ini->syntax = r->syntax;
  if (r->ini == NULL || (r->ini->path = strdup (name)) == NULL) {
    raidsim_set_error ("%s: %s", name, strerror (ENOMEM));
    free (r->ini);
    return NULL;
  }

  ret = ini_parse_stream (read_line, r, handle_kv, r);
  raidsim_lines_free (&r->lines);

  if (r->nomem || ret == -2 || r->read_errno) {
    raidsim_set_error ("%s: %s", name,
                       strerror (r->read_errno ? r->read_errno : ENOMEM));
    goto err;
  }
  /* A line libinih rejects that our reader let through. */
  if (ret > 0 && (r->err_line == 0 || (unsigned) ret < r->err_line)) {
    raidsim_set_error ("%s:%d: syntax error: expected [SECTION] or "
                       "KEY = VALUE", name, ret);
    goto err;
  }
  if (r->err_line != 0) {
    raidsim_set_error ("%s", r->err);
    goto err;
  }
  return r->ini;

 err:
  raidsim_ini_free (r->ini);
  return NULL;
}

struct raidsim_ini *
raidsim_ini_load (const char *path, enum raidsim_ini_syntax syntax)
{
  struct reader r = { .syntax = syntax };
  struct raidsim_ini *ini;

  r.lines.fp = fopen (path, "r");
  if (r.lines.fp == NULL) {
    raidsim_set_error ("%s: %s", path, strerror (errno));
    return NULL;
  }
  ini = load (&r, path);
  fclose (r.lines.fp);
  return ini;
}

struct raidsim_ini *
raidsim_ini_load_text (const char *name, const char *text,
                       enum raidsim_ini_syntax syntax)
{
  struct reader r = { .syntax = syntax, .lines.text = text };

  return load (&r, name);
}

int
raidsim_ini_find_section (const struct raidsim_ini *ini, const char *name)
{
  unsigned i;

  for (i = 0; i < ini->nsections; ++i)
    if (strcmp (ini->sections[i].name, name) == 0)
      return i;
  return -1;
}

struct raidsim_ini_entry *
raidsim_ini_get (const struct raidsim_ini *ini, unsigned sec, const char *key)
{
  unsigned i;

  for (i = 0; i < ini->nentries; ++i)
    if (ini->entries[i].section == sec &&
        strcmp (ini->entries[i].key, key) == 0)
      return &ini->entries[i];
  return NULL;
}

/* ---- applying a section ---- */

/* Whether key names parameter p, by its name or its old spelling. */
static bool
key_is (const struct raidsim_param *p, const char *key)
{
  return strcmp (p->name, key) == 0 ||
    (p->old_name && strcmp (p->old_name, key) == 0);
}

static unsigned
table_size (const struct raidsim_param *t)
{
  unsigned n = 0;

  while (t[n].name)
    n++;
  return n;
}

void
raidsim_params_defaults (const struct raidsim_param *table, void *base)
{
  const struct raidsim_param *p;

  for (p = table; p->name; ++p) {
    void *field = (char *) base + p->offset;

    /* No default, or an empty string (an option that is not set). */
    if (p->def == NULL || (p->type == RAIDSIM_PT_STRING && !*p->def)) {
      switch (p->type) {
      case RAIDSIM_PT_BOOL: *(bool *) field = false; break;
      case RAIDSIM_PT_ENUM: *(int *) field = p->enums[0].value; break;
      case RAIDSIM_PT_STRING: *(char *) field = '\0'; break;
      default: *(uint64_t *) field = 0;
      }
    }
    else if (raidsim_param_parse (p, p->def, field) == -1) {
      /* A default that its own table rejects is a bug in the table,
       * which the config tests catch.
       */
      fprintf (stderr, "raidsim: bad default in parameter table: %s\n",
               raidsim_error ());
      abort ();
    }
  }
}

int
raidsim_params_apply (struct raidsim_ini *ini, unsigned sec,
                      unsigned ntables,
                      const struct raidsim_param *const *tables,
                      void *const *bases, unsigned *const *lines,
                      bool defaults)
{
  unsigned seen[8][64];         /* line that set each parameter, or 0 */
  unsigned t, i, k;

  if (ntables > 8)
    abort ();
  memset (seen, 0, sizeof seen);
  for (t = 0; t < ntables; ++t)
    if (table_size (tables[t]) > 64)
      abort ();

  if (defaults)
    for (t = 0; t < ntables; ++t)
      raidsim_params_defaults (tables[t], bases[t]);

  for (i = 0; i < ini->nentries; ++i) {
    struct raidsim_ini_entry *e = &ini->entries[i];
    const struct raidsim_param *p = NULL;
    struct raidsim_param as_written;

    if (e->section != sec)
      continue;
    for (t = 0; t < ntables && p == NULL; ++t)
      for (k = 0; tables[t][k].name; ++k)
        if (key_is (&tables[t][k], e->key)) {
          p = &tables[t][k];
          break;
        }
    if (p == NULL) {
      if (ini->syntax == RAIDSIM_INI_FIO)
        raidsim_set_error ("%s:%u: %s: fio option not in raidsim's subset "
                           "(see 'raidsim help config')",
                           ini->path, e->line, e->key);
      else
        raidsim_set_error ("%s:%u: %s: unknown key in [%s] "
                           "(see 'raidsim help config')",
                           ini->path, e->line, e->key,
                           ini->sections[sec].name);
      return -1;
    }
    t--;                        /* the loop stepped past p's table */
    if (e->value == NULL && p->type != RAIDSIM_PT_BOOL) {
      raidsim_set_error ("%s:%u: %s: needs a value (%s = VALUE)",
                         ini->path, e->line, e->key, e->key);
      return -1;
    }
    /* fio lets a later line override an earlier one; in our own
     * configs a repeated key is a mistake.
     */
    if (seen[t][k] != 0 && ini->syntax != RAIDSIM_INI_FIO) {
      raidsim_set_error ("%s:%u: %s: set twice in [%s] (first on line %u)",
                         ini->path, e->line, e->key,
                         ini->sections[sec].name, seen[t][k]);
      return -1;
    }
    /* A bare flag (fio's `time_based`) means true.  The message names
     * the key as the file spells it, an old spelling too.
     */
    as_written = *p;
    as_written.name = e->key;
    if (raidsim_param_parse (&as_written, e->value ? e->value : "1",
                             (char *) bases[t] + p->offset) == -1) {
      raidsim_set_error ("%s:%u: %s", ini->path, e->line, raidsim_error ());
      return -1;
    }
    seen[t][k] = e->line;
    e->used = true;
  }

  for (t = 0; t < ntables; ++t) {
    for (k = 0; tables[t][k].name; ++k) {
      if (defaults && tables[t][k].def == NULL && seen[t][k] == 0) {
        raidsim_set_error ("%s:%u: %s: required key is missing from [%s]",
                           ini->path, ini->sections[sec].line,
                           tables[t][k].name, ini->sections[sec].name);
        return -1;
      }
      if (lines && lines[t] && seen[t][k] != 0)
        lines[t][k] = seen[t][k];
    }
  }
  return 0;
}

/* ---- documentation ---- */

static void
type_doc (const struct raidsim_param *p, char *buf, size_t len)
{
  const struct raidsim_enum *e;
  size_t n = 0;

  switch (p->type) {
  case RAIDSIM_PT_UINT: snprintf (buf, len, "integer"); break;
  case RAIDSIM_PT_SIZE: snprintf (buf, len, "size (K, M, G, T = 1024^n)"); break;
  case RAIDSIM_PT_TIME: snprintf (buf, len, "time (ns, us, ms, s)"); break;
  case RAIDSIM_PT_RATE:
    snprintf (buf, len,
              "rate (B/s, KB/s, MB/s, GB/s = 1000^n; KiB/s, MiB/s, GiB/s)");
    break;
  case RAIDSIM_PT_BOOL: snprintf (buf, len, "boolean"); break;
  case RAIDSIM_PT_STRING: snprintf (buf, len, "string"); break;
  case RAIDSIM_PT_FIO_INT:
    snprintf (buf, len, "fio integer (k, m, g = 1024^n)");
    break;
  case RAIDSIM_PT_FIO_TIME:
    /* Its unit is the one a bare number has (fio's thinktime: us). */
    snprintf (buf, len, "fio time (default unit %s)", raidsim_param_unit (p));
    break;
  case RAIDSIM_PT_RATIO: snprintf (buf, len, "decimal number"); break;
  case RAIDSIM_PT_ENUM:
    n = snprintf (buf, len, "one of ");
    for (e = p->enums; e->name && n < len; ++e)
      n += snprintf (buf + n, len - n, "%s%s", e == p->enums ? "" : ", ",
                     e->name);
    break;
  }
}

static void
range_doc (const struct raidsim_param *p, char *buf, size_t len)
{
  char lo[32], hi[32];

  if (!is_numeric (p->type)) {
    snprintf (buf, len, "%s", "");
    return;
  }
  raidsim_param_format_value (p->type, p->min, lo, sizeof lo);
  if (p->max == 0)
    snprintf (buf, len, ">= %s", lo);
  else {
    raidsim_param_format_value (p->type, p->max, hi, sizeof hi);
    snprintf (buf, len, "%s to %s", lo, hi);
  }
}

/* Help text for a terminal: words filled to 78 columns after indent. */
static void
print_wrapped (FILE *fp, unsigned indent, const char *text)
{
  const unsigned width = 78;
  unsigned col = 0;

  while (*text) {
    size_t word;

    while (*text == ' ')
      text++;
    word = strcspn (text, " ");
    if (word == 0)
      break;
    if (col > 0 && col + 1 + word > width) {
      fputc ('\n', fp);
      col = 0;
    }
    if (col == 0)
      col = fprintf (fp, "%*s", (int) indent, "");
    else
      col += fprintf (fp, " ");
    col += fprintf (fp, "%.*s", (int) word, text);
    text += word;
  }
  fputc ('\n', fp);
}

void
raidsim_params_doc (FILE *fp, const struct raidsim_param *table,
                    bool markdown)
{
  const struct raidsim_param *p;

  if (markdown) {
    fprintf (fp, "| key | type | unit | default | range | description |\n");
    fprintf (fp, "| --- | --- | --- | --- | --- | --- |\n");
  }
  for (p = table; p->name; ++p) {
    char type[256], range[80];
    const char *unit = raidsim_param_unit (p);

    type_doc (p, type, sizeof type);
    range_doc (p, range, sizeof range);
    if (markdown) {
      fprintf (fp, "| `%s` | %s | %s | %s%s%s | %s | %s",
               p->name, type, unit,
               p->def && *p->def ? "`" : "",
               !p->def ? "required" : *p->def ? p->def : "none",
               p->def && *p->def ? "`" : "", range, p->help);
      if (p->old_name)
        fprintf (fp, " The old spelling `%s` is still read.", p->old_name);
      fprintf (fp, " |\n");
    }
    else {
      fprintf (fp, "  %s = %s\n", p->name, type);
      fprintf (fp, "      default: %s",
               !p->def ? "(required)" : *p->def ? p->def : "(none)");
      if (*range)
        fprintf (fp, "; range: %s", range);
      if (*unit)
        fprintf (fp, "; unit: %s", unit);
      fprintf (fp, "\n");
      print_wrapped (fp, 6, p->help);
      if (p->old_name)
        fprintf (fp, "      The old spelling %s is still read.\n",
                 p->old_name);
    }
  }
}
