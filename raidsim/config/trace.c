/* raidsim: reading I/O traces (see trace.h for the formats and what
 * becomes of each action).  The parsers work on a buffer and its
 * length, never on a NUL-terminated string, so that a fuzzer can hand
 * them anything.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/error.h"
#include "raidsim/io.h"
#include "raidsim/trace.h"

/* blktrace_api.h */
#define BLK_IO_TRACE_MAGIC 0x65617400u
#define BLK_IO_TRACE_VERSION 0x07u
#define BLK_TRACE_SIZE 48
#define BLK_TC_ACT(a) ((uint32_t) (a) << 16)
#define BLK_TC_READ (1u << 0)
#define BLK_TC_WRITE (1u << 1)
#define BLK_TC_FLUSH (1u << 2)
#define BLK_TC_NOTIFY (1u << 10)
#define BLK_TC_DISCARD (1u << 13)
#define BLK_TA_QUEUE 1u
#define BLK_TA_CGROUP (1u << 8)

#define SECTOR 512

static const char iolog2_magic[] = "fio version 2 iolog";
static const char iolog3_magic[] = "fio version 3 iolog";

const char *
raidsim_trace_format_name (int format)
{
  switch (format) {
  case RAIDSIM_TRACE_IOLOG2: return "fio iolog v2";
  case RAIDSIM_TRACE_IOLOG3: return "fio iolog v3";
  case RAIDSIM_TRACE_BLKPARSE: return "blkparse";
  default: return "blktrace";
  }
}

static uint64_t
gcd64 (uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t r = a % b;

    a = b;
    b = r;
  }
  return a;
}

void
raidsim_trace_clear (struct raidsim_trace *t)
{
  free (t->recs);
  t->recs = NULL;
  t->n = t->cap = 0;
}

void
raidsim_trace_free (struct raidsim_trace *t)
{
  if (t) {
    raidsim_trace_clear (t);
    free (t);
  }
}

/* Parsing state beside the trace: the latest time seen, so that times
 * never go backwards, and the first I/O's, which is time 0.
 */
struct parser {
  struct raidsim_trace *t;
  uint64_t first, latest;       /* ns as in the trace */
  bool any;
  uint64_t devices[16];         /* major,minor seen (block traces) */
};

/* Append an I/O; where names the place for a message. */
static int
add_io (struct parser *p, const char *where, uint32_t line, int dir,
        uint64_t time, uint64_t offset, uint64_t len)
{
  struct raidsim_trace *t = p->t;
  struct raidsim_trace_rec *r;

  if (len == 0) {
    raidsim_set_error ("%s: %s of length 0", where,
                       dir == RAIDSIM_READ ? "read" : "write");
    return -1;
  }
  if (len > RAIDSIM_TRACE_MAX_LEN) {
    raidsim_set_error ("%s: length %" PRIu64 " is too large (at most %"
                       PRIu64 " bytes)", where, len, RAIDSIM_TRACE_MAX_LEN);
    return -1;
  }
  if (offset > UINT64_MAX - len) {
    raidsim_set_error ("%s: offset %" PRIu64 " + length %" PRIu64
                       " is too large", where, offset, len);
    return -1;
  }
  if (!p->any) {
    p->first = p->latest = time;
    p->any = true;
  }
  if (time > p->latest)
    p->latest = time;
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    struct raidsim_trace_rec *nr;

    if (cap > SIZE_MAX / sizeof *nr ||
        (nr = realloc (t->recs, cap * sizeof *nr)) == NULL) {
      raidsim_set_error ("%s: %s", where, strerror (ENOMEM));
      return -1;
    }
    t->recs = nr;
    t->cap = cap;
  }
  r = &t->recs[t->n++];
  r->time = p->latest - p->first;
  r->offset = offset;
  r->len = len;
  r->line = line;
  r->dir = dir;
  if (len > t->max_len)
    t->max_len = len;
  t->gcd = gcd64 (t->gcd, gcd64 (offset, len));
  return 0;
}

static void
saw_device (struct parser *p, uint64_t dev)
{
  unsigned i;

  for (i = 0; i < p->t->ndevices && i < 16; ++i)
    if (p->devices[i] == dev)
      return;
  if (p->t->ndevices < 16)
    p->devices[p->t->ndevices] = dev;
  p->t->ndevices++;
}

/* ---- text ---- */

#define MAX_FIELDS 12
#define FIELD_MAX 256

/* One line split on blanks: at most MAX_FIELDS fields (the rest is
 * counted, not kept), each NUL-terminated in its own buffer.
 */
struct fields {
  unsigned n;
  char f[MAX_FIELDS][FIELD_MAX];
};

/* Split [s, e) into fields; false if a field is too long or has a NUL
 * byte (not text).
 */
static bool
split (const char *s, const char *e, struct fields *fl)
{
  fl->n = 0;
  while (s < e) {
    const char *b;
    size_t n;

    while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
      s++;
    if (s == e)
      break;
    b = s;
    while (s < e && *s != ' ' && *s != '\t' && *s != '\r') {
      if (*s == '\0')
        return false;
      s++;
    }
    n = s - b;
    if (fl->n < MAX_FIELDS) {
      if (n >= FIELD_MAX)
        return false;
      memcpy (fl->f[fl->n], b, n);
      fl->f[fl->n][n] = '\0';
    }
    fl->n++;
  }
  return true;
}

/* A whole number in decimal, no sign, no overflow. */
static bool
number (const char *s, uint64_t *v)
{
  uint64_t x = 0;

  if (*s == '\0')
    return false;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9' || x > (UINT64_MAX - (*s - '0')) / 10)
      return false;
    x = x * 10 + (*s - '0');
  }
  *v = x;
  return true;
}

/* fio's iolog actions. */
static int
iolog_line (struct parser *p, int version, const struct fields *fl,
            const char *where, uint32_t line, uint64_t *wait_us)
{
  const unsigned base = version == 3;   /* the timestamp's field */
  const char *act;
  uint64_t ts = 0, offset, len;

  if (fl->n != base + 2 && fl->n != base + 4) {
    raidsim_set_error ("%s: expected '%sFILE ACTION' or '%sFILE ACTION "
                       "OFFSET LENGTH' (fio iolog version %d)", where,
                       base ? "TIME " : "", base ? "TIME " : "", version);
    return -1;
  }
  if (base && !number (fl->f[0], &ts)) {
    raidsim_set_error ("%s: '%s' is not a time in microseconds", where,
                       fl->f[0]);
    return -1;
  }
  if (ts > UINT64_MAX / RAIDSIM_NS_PER_US) {
    raidsim_set_error ("%s: time %" PRIu64 " us is too large", where, ts);
    return -1;
  }
  act = fl->f[base + 1];
  if (fl->n == base + 2) {
    if (strcmp (act, "add") && strcmp (act, "open") && strcmp (act, "close")) {
      raidsim_set_error ("%s: '%s' is not a file action (add, open, close)",
                         where, act);
      return -1;
    }
    return 0;
  }
  if (!number (fl->f[base + 2], &offset)) {
    raidsim_set_error ("%s: offset '%s' is not a whole number", where,
                       fl->f[base + 2]);
    return -1;
  }
  if (!number (fl->f[base + 3], &len) || len > UINT32_MAX) {
    raidsim_set_error ("%s: length '%s' is not a whole number below 2^32",
                       where, fl->f[base + 3]);
    return -1;
  }
  if (strcmp (act, "wait") == 0) {
    if (version == 3) {
      raidsim_set_error ("%s: wait: not allowed in version 3 (timestamps "
                         "take its place)", where);
      return -1;
    }
    if (offset > UINT64_MAX / RAIDSIM_NS_PER_US - *wait_us) {
      raidsim_set_error ("%s: wait: %" PRIu64 " us is too long", where,
                         offset);
      return -1;
    }
    *wait_us += offset;
    p->t->timed = true;
    return 0;
  }
  if (version == 2)
    ts = *wait_us;
  if (strcmp (act, "read") == 0)
    return add_io (p, where, line, RAIDSIM_READ, ts * RAIDSIM_NS_PER_US,
                   offset, len);
  if (strcmp (act, "write") == 0)
    return add_io (p, where, line, RAIDSIM_WRITE, ts * RAIDSIM_NS_PER_US,
                   offset, len);
  if (strcmp (act, "sync") == 0 || strcmp (act, "datasync") == 0) {
    p->t->syncs++;
    return 0;
  }
  if (strcmp (act, "trim") == 0) {
    p->t->trims++;
    return 0;
  }
  raidsim_set_error ("%s: '%s' is not an I/O action (read, write, sync, "
                     "datasync, trim%s)", where, act,
                     version == 2 ? ", wait" : "");
  return -1;
}

/* "SEC.NSEC" of blkparse (%5T.%9t) in ns. */
static bool
blk_time (const char *s, uint64_t *ns)
{
  const char *dot = strchr (s, '.');
  char sec[32];
  uint64_t a, b;
  size_t n;

  if (dot == NULL || (n = dot - s) == 0 || n >= sizeof sec ||
      strlen (dot + 1) != 9)
    return false;
  memcpy (sec, s, n);
  sec[n] = '\0';
  if (!number (sec, &a) || !number (dot + 1, &b) ||
      a > (UINT64_MAX - b) / RAIDSIM_NS_PER_S)
    return false;
  *ns = a * RAIDSIM_NS_PER_S + b;
  return true;
}

/* "MAJ,MIN" */
static bool
blk_device (const char *s, uint64_t *dev)
{
  const char *c = strchr (s, ',');
  char maj[32];
  uint64_t a, b;

  if (c == NULL || c == s || (size_t) (c - s) >= sizeof maj)
    return false;
  memcpy (maj, s, c - s);
  maj[c - s] = '\0';
  if (!number (maj, &a) || !number (c + 1, &b) || a > UINT32_MAX ||
      b > UINT32_MAX)
    return false;
  *dev = a << 32 | b;
  return true;
}

/* One line of blkparse's default output.  *done is set at the summary
 * that follows the events.
 */
static int
blkparse_line (struct parser *p, const struct fields *fl, const char *where,
               uint32_t line, bool *done)
{
  uint64_t dev, cpu, seq, ns, pid, sector, count;
  const char *rwbs;

  if (fl->n == 0)
    return 0;
  if (strcmp (fl->f[0], "CPU") == 0 || strncmp (fl->f[0], "CPU", 3) == 0 ||
      strcmp (fl->f[0], "Total") == 0) {
    *done = true;
    return 0;
  }
  if (fl->n < 6 || !blk_device (fl->f[0], &dev) || !number (fl->f[1], &cpu) ||
      !number (fl->f[2], &seq) || !blk_time (fl->f[3], &ns) ||
      !number (fl->f[4], &pid)) {
    raidsim_set_error ("%s: not an event of blkparse's default output "
                       "('MAJ,MIN CPU SEQ SEC.NSEC PID ACTION RWBS SECTOR "
                       "+ COUNT')", where);
    return -1;
  }
  /* Only the queue events are the workload (trace.h). */
  if (strcmp (fl->f[5], "Q") != 0)
    return 0;
  saw_device (p, dev);
  if (fl->n < 7) {
    raidsim_set_error ("%s: Q: no RWBS field", where);
    return -1;
  }
  rwbs = fl->f[6];
  if (strspn (rwbs, "RWDFNSAMEB") != strlen (rwbs)) {
    raidsim_set_error ("%s: Q: '%s' is not an RWBS field", where, rwbs);
    return -1;
  }
  if (strchr (rwbs, 'D')) {
    p->t->trims++;
    return 0;
  }
  /* A flush without data: "Q FWS [proc]" or "Q FWS 0 + 0 [proc]". */
  if (fl->n < 10 || strcmp (fl->f[8], "+") != 0) {
    if (rwbs[0] == 'F' || strchr (rwbs, 'N')) {
      p->t->syncs++;
      return 0;
    }
    raidsim_set_error ("%s: Q %s: expected 'SECTOR + COUNT'", where, rwbs);
    return -1;
  }
  if (!number (fl->f[7], &sector) || !number (fl->f[9], &count) ||
      sector > UINT64_MAX / SECTOR || count > UINT64_MAX / SECTOR) {
    raidsim_set_error ("%s: Q: '%s + %s' is not SECTOR + COUNT", where,
                       fl->f[7], fl->f[9]);
    return -1;
  }
  if (count == 0 && rwbs[0] == 'F') {
    p->t->syncs++;
    return 0;
  }
  if (strchr (rwbs, 'W'))
    return add_io (p, where, line, RAIDSIM_WRITE, ns, sector * SECTOR,
                   count * SECTOR);
  if (strchr (rwbs, 'R'))
    return add_io (p, where, line, RAIDSIM_READ, ns, sector * SECTOR,
                   count * SECTOR);
  /* "N": no data direction (a pure flush, a driver command). */
  p->t->syncs++;
  return 0;
}

static int
parse_text (struct parser *p, const char *buf, size_t len, int format)
{
  const char *s = buf, *end = buf + len;
  char where[600];
  uint32_t line = 0;
  uint64_t wait_us = 0;
  bool done = false;
  struct fields *fl = malloc (sizeof *fl);

  if (fl == NULL) {
    raidsim_set_error ("%s: %s", p->t->name, strerror (ENOMEM));
    return -1;
  }
  while (s < end && !done) {
    const char *nl = memchr (s, '\n', end - s), *e = nl ? nl : end;

    if (line == UINT32_MAX) {
      raidsim_set_error ("%s: more than %" PRIu32 " lines", p->t->name,
                         UINT32_MAX);
      goto err;
    }
    line++;
    snprintf (where, sizeof where, "%s:%" PRIu32, p->t->name, line);
    if (!split (s, e, fl)) {
      raidsim_set_error ("%s: not a line of text (a NUL byte, or a field "
                         "longer than %d bytes)", where, FIELD_MAX - 1);
      goto err;
    }
    s = nl ? nl + 1 : end;
    if (line == 1 && format != RAIDSIM_TRACE_BLKPARSE)
      continue;                 /* the "fio version N iolog" header */
    if (fl->n == 0)
      continue;
    if (format == RAIDSIM_TRACE_BLKPARSE) {
      if (blkparse_line (p, fl, where, line, &done) == -1)
        goto err;
    }
    else if (iolog_line (p, format == RAIDSIM_TRACE_IOLOG3 ? 3 : 2, fl,
                         where, line, &wait_us) == -1)
      goto err;
  }
  free (fl);
  return 0;

 err:
  free (fl);
  return -1;
}

/* ---- blktrace's binary records ---- */

static uint32_t
get32 (const unsigned char *b, bool swap)
{
  return swap ? (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 |
    (uint32_t) b[2] << 8 | b[3]
    : (uint32_t) b[3] << 24 | (uint32_t) b[2] << 16 |
    (uint32_t) b[1] << 8 | b[0];
}

static uint64_t
get64 (const unsigned char *b, bool swap)
{
  return swap ? (uint64_t) get32 (b, swap) << 32 | get32 (b + 4, swap)
    : (uint64_t) get32 (b + 4, swap) << 32 | get32 (b, swap);
}

static uint16_t
get16 (const unsigned char *b, bool swap)
{
  return swap ? (uint16_t) (b[0] << 8 | b[1]) : (uint16_t) (b[1] << 8 | b[0]);
}

/* Whether b (4 bytes) is blktrace's magic, and in which byte order
 * (read as little-endian, or swapped: big-endian).
 */
static bool
blk_magic (const unsigned char *b, bool *swap)
{
  if ((get32 (b, false) & 0xffffff00u) == BLK_IO_TRACE_MAGIC) {
    *swap = false;
    return true;
  }
  if ((get32 (b, true) & 0xffffff00u) == BLK_IO_TRACE_MAGIC) {
    *swap = true;
    return true;
  }
  return false;
}

static int
parse_binary (struct parser *p, const unsigned char *buf, size_t len)
{
  size_t off = 0;
  uint32_t ev = 0;
  bool swap = false;
  char where[600];

  blk_magic (buf, &swap);
  while (off < len) {
    const unsigned char *b = buf + off;
    uint32_t magic, bytes, action, device, code;
    uint64_t time, sector;
    uint16_t pdu;

    if (ev == UINT32_MAX) {
      raidsim_set_error ("%s: more than %" PRIu32 " events", p->t->name,
                         UINT32_MAX);
      return -1;
    }
    ev++;
    snprintf (where, sizeof where, "%s: event %" PRIu32 " (byte %zu)",
              p->t->name, ev, off);
    if (len - off < BLK_TRACE_SIZE) {
      raidsim_set_error ("%s: truncated: %zu bytes of a %d-byte "
                         "blk_io_trace", where, len - off, BLK_TRACE_SIZE);
      return -1;
    }
    magic = get32 (b, swap);
    if ((magic & 0xffffff00u) != BLK_IO_TRACE_MAGIC) {
      raidsim_set_error ("%s: bad magic 0x%08" PRIx32 " (not 0x%08x)", where,
                         magic, BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION);
      return -1;
    }
    if ((magic & 0xff) != BLK_IO_TRACE_VERSION) {
      raidsim_set_error ("%s: blktrace version %" PRIu32 " (only %u is "
                         "read)", where, magic & 0xff, BLK_IO_TRACE_VERSION);
      return -1;
    }
    time = get64 (b + 8, swap);
    sector = get64 (b + 16, swap);
    bytes = get32 (b + 24, swap);
    action = get32 (b + 28, swap);
    device = get32 (b + 36, swap);
    pdu = get16 (b + 46, swap);
    if (len - off - BLK_TRACE_SIZE < pdu) {
      raidsim_set_error ("%s: truncated: its payload of %u bytes runs past "
                         "the end", where, pdu);
      return -1;
    }
    off += BLK_TRACE_SIZE + pdu;
    code = action & 0xffff & ~BLK_TA_CGROUP;
    if ((action & BLK_TC_ACT (BLK_TC_NOTIFY)) || code != BLK_TA_QUEUE)
      continue;
    saw_device (p, device);
    if (action & BLK_TC_ACT (BLK_TC_DISCARD)) {
      p->t->trims++;
      continue;
    }
    if (bytes == 0) {
      if (!(action & BLK_TC_ACT (BLK_TC_FLUSH | BLK_TC_WRITE |
                                 BLK_TC_READ))) {
        raidsim_set_error ("%s: a queue event of 0 bytes that is not a "
                           "flush", where);
        return -1;
      }
      p->t->syncs++;
      continue;
    }
    if (sector > UINT64_MAX / SECTOR) {
      raidsim_set_error ("%s: sector %" PRIu64 " is too large", where,
                         sector);
      return -1;
    }
    if (add_io (p, where, ev,
                action & BLK_TC_ACT (BLK_TC_WRITE) ? RAIDSIM_WRITE
                : RAIDSIM_READ, time, sector * SECTOR, bytes) == -1)
      return -1;
  }
  return 0;
}

/* ---- entry points ---- */

int
raidsim_trace_parse_buffer (const char *buf, size_t len, const char *name,
                            struct raidsim_trace *t)
{
  struct parser p = { .t = t };
  bool swap = false;
  int r;

  memset (t, 0, sizeof *t);
  snprintf (t->name, sizeof t->name, "%s", name);
  if (len >= 4 && blk_magic ((const unsigned char *) buf, &swap)) {
    t->format = RAIDSIM_TRACE_BLKTRACE;
    t->timed = true;
    r = parse_binary (&p, (const unsigned char *) buf, len);
  }
  else {
    size_t l2 = sizeof iolog2_magic - 1;

    if (len >= l2 && memcmp (buf, iolog2_magic, l2) == 0)
      t->format = RAIDSIM_TRACE_IOLOG2;
    else if (len >= l2 && memcmp (buf, iolog3_magic, l2) == 0) {
      t->format = RAIDSIM_TRACE_IOLOG3;
      t->timed = true;
    }
    else {
      t->format = RAIDSIM_TRACE_BLKPARSE;
      t->timed = true;
    }
    /* The header is the whole first line. */
    if (t->format != RAIDSIM_TRACE_BLKPARSE) {
      const char *nl = memchr (buf, '\n', len);
      size_t n = nl ? (size_t) (nl - buf) : len;

      while (n > l2 && (buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
      if (n != l2) {
        raidsim_set_error ("%s:1: the header is not '%s'", name,
                           t->format == RAIDSIM_TRACE_IOLOG2 ? iolog2_magic
                           : iolog3_magic);
        raidsim_trace_clear (t);
        return -1;
      }
    }
    r = parse_text (&p, buf, len, t->format);
  }
  if (r == 0 && t->n == 0) {
    raidsim_set_error ("%s: no reads or writes to replay (%s)", name,
                       raidsim_trace_format_name (t->format));
    r = -1;
  }
  if (r == -1)
    raidsim_trace_clear (t);
  return r;
}

struct raidsim_trace *
raidsim_trace_load (const char *path)
{
  struct raidsim_trace *t = NULL;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  FILE *fp = fopen (path, "rb");

  if (fp == NULL) {
    raidsim_set_error ("%s: %s", path, strerror (errno));
    return NULL;
  }
  for (;;) {
    size_t got;

    if (len == cap) {
      char *nb;

      cap = cap ? cap * 2 : 65536;
      if ((nb = realloc (buf, cap)) == NULL) {
        raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
        goto out;
      }
      buf = nb;
    }
    got = fread (buf + len, 1, cap - len, fp);
    len += got;
    if (got == 0)
      break;
  }
  if (ferror (fp)) {
    raidsim_set_error ("%s: read error", path);
    goto out;
  }
  t = malloc (sizeof *t);
  if (t == NULL) {
    raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
    goto out;
  }
  if (raidsim_trace_parse_buffer (buf, len, path, t) == -1) {
    free (t);
    t = NULL;
  }
 out:
  fclose (fp);
  free (buf);
  return t;
}

int
raidsim_trace_check (const struct raidsim_trace *t, uint64_t array_size)
{
  size_t i;

  for (i = 0; i < t->n; ++i) {
    const struct raidsim_trace_rec *r = &t->recs[i];

    if (r->offset + r->len > array_size) {
      if (t->format == RAIDSIM_TRACE_BLKTRACE)
        raidsim_set_error ("%s: event %" PRIu32 ": %s of %" PRIu64
                           " bytes at %" PRIu64 " runs past the end of the "
                           "array (%" PRIu64 " bytes)", t->name, r->line,
                           r->dir == RAIDSIM_READ ? "read" : "write",
                           r->len, r->offset, array_size);
      else
        raidsim_set_error ("%s:%" PRIu32 ": %s of %" PRIu64 " bytes at %"
                           PRIu64 " runs past the end of the array (%"
                           PRIu64 " bytes)", t->name, r->line,
                           r->dir == RAIDSIM_READ ? "read" : "write",
                           r->len, r->offset, array_size);
      return -1;
    }
  }
  return 0;
}
