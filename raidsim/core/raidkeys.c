/* raidsim: the keys that describe a RAID array (see raidkeys.h).  The
 * table below is the only place their names, syntax and help are
 * written; the level and policy names come from geometry.h and
 * readpolicy.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/raidkeys.h"
#include "geometry-error.h"

static const char *const level_values[] = {
#define NAME(id, n, name, alias) name,
  RAID_LEVELS (NAME)
#undef NAME
  NULL
};

static const char *const policy_values[] = {
#define NAME(id, name, help) name,
  RAID_READ_POLICIES (NAME)
#undef NAME
  NULL
};

const struct raid_key raid_keys[RAID_KEY_COUNT] = {
  [RAID_KEY_LEVEL] = {
    .name = "level", .syntax = "0|1|10", .values = level_values,
    .help = RAID_KEY_LEVEL_HELP,
  },
  [RAID_KEY_CHUNK] = {
    .name = "chunk", .syntax = "SIZE",
    .help = RAID_KEY_CHUNK_HELP,
  },
  [RAID_KEY_COPIES] = {
    .name = "copies", .syntax = "N",
    .help = RAID_KEY_COPIES_HELP,
  },
  [RAID_KEY_READ_POLICY] = {
    .name = "read-policy", .syntax = "POLICY", .values = policy_values,
    .help = RAID_KEY_READ_POLICY_HELP,
  },
};

void
raid_settings_init (struct raid_settings *s)
{
  *s = (struct raid_settings) {
    .level = RAID_LEVEL_0,
    .chunk = RAID_CHUNK_DEFAULT,
    .copies = RAID10_COPIES_DEFAULT,
    .policy = RAID_READ_POLICY_DEFAULT,
  };
}

static int
parse_chunk (const char *value, uint64_t *chunk)
{
  if (raid_parse_size (value, chunk) == -1) {
    raid_set_error ("chunk: %s", raid_geom_error ());
    return -1;
  }
  if (*chunk < RAID_CHUNK_MIN || *chunk > RAID_CHUNK_MAX ||
      (*chunk & (*chunk - 1)) != 0) {
    raid_set_error ("chunk: '%s' is not a power of two from 4K to 64M",
                    value);
    return -1;
  }
  return 0;
}

int
raid_parse_uint (const char *key, const char *value,
                 unsigned long min, unsigned long max, unsigned long *out)
{
  char *end;
  unsigned long v;

  errno = 0;
  v = strtoul (value, &end, 10);
  if (errno || end == value || *end || value[0] == '-' ||
      v < min || v > max) {
    raid_set_error ("%s: '%s' is not a whole number from %lu to %lu",
                    key, value, min, max);
    return -1;
  }
  *out = v;
  return 0;
}

static int
parse_copies (const char *value, unsigned *copies)
{
  unsigned long v;

  if (raid_parse_uint ("copies", value, 2, RAID_MAX_MEMBERS, &v) == -1)
    return -1;
  *copies = v;
  return 0;
}

int
raid_settings_parse (struct raid_settings *s, const char *key,
                     const char *value)
{
  unsigned i;
  int r = -1;

  for (i = 0; i < RAID_KEY_COUNT; ++i)
    if (strcmp (key, raid_keys[i].name) == 0)
      break;
  if (i == RAID_KEY_COUNT)
    return 1;
  if (s->set[i]) {
    raid_set_error ("%s: given more than once", key);
    return -1;
  }
  switch ((enum raid_key_id) i) {
  case RAID_KEY_LEVEL: r = raid_parse_level (value, &s->level); break;
  case RAID_KEY_CHUNK: r = parse_chunk (value, &s->chunk); break;
  case RAID_KEY_COPIES: r = parse_copies (value, &s->copies); break;
  case RAID_KEY_READ_POLICY:
    r = raid_parse_read_policy (value, &s->policy);
    break;
  case RAID_KEY_COUNT: break;
  }
  if (r == 0)
    s->set[i] = true;
  return r;
}

int
raid_settings_check (const struct raid_settings *s, unsigned nmembers)
{
  if (!s->set[RAID_KEY_LEVEL]) {
    raid_set_error ("level: required (level=0, level=1 or level=10)");
    return -1;
  }
  if (s->set[RAID_KEY_COPIES] && s->level != RAID_LEVEL_10) {
    raid_set_error ("copies: only RAID 10 has a copy count");
    return -1;
  }
  /* One member is a single drive (geometry.c); mdadm's guard against
   * it is raidsim create's (--force), as it is mdadm --create's.
   */
  if (nmembers < 1) {
    raid_set_error ("member: RAID %s needs at least 1 member, got 0",
                    raid_level_name (s->level));
    return -1;
  }
  if (s->level == RAID_LEVEL_10 && s->copies > nmembers) {
    raid_set_error ("copies: %u copies need at least %u members, got %u",
                    s->copies, s->copies, nmembers);
    return -1;
  }
  return 0;
}

/* Append s to buf (len bytes used of cap), word-wrapped at width with
 * continuation lines indented by indent; *col is the current column.
 */
static int
append_wrapped (char **buf, size_t *len, size_t *cap, unsigned *col,
                const char *s, unsigned indent, unsigned width)
{
  while (*s) {
    size_t w = strcspn (s, " ");
    size_t need = *len + w + indent + 3;

    if (need > *cap) {
      size_t ncap = need * 2;
      char *n = realloc (*buf, ncap);
      if (n == NULL)
        return -1;
      *buf = n;
      *cap = ncap;
    }
    if (*col > indent && *col + 1 + w > width) {
      (*buf)[(*len)++] = '\n';
      memset (*buf + *len, ' ', indent);
      *len += indent;
      *col = indent;
    }
    else if (*col > indent) {
      (*buf)[(*len)++] = ' ';
      (*col)++;
    }
    memcpy (*buf + *len, s, w);
    *len += w;
    *col += w;
    s += w;
    while (*s == ' ')
      s++;
  }
  (*buf)[*len] = '\0';
  return 0;
}

char *
raid_key_help (const struct raid_key *k, unsigned indent, unsigned width)
{
  size_t len = 0, cap = 256;
  unsigned col, i;
  char *buf = malloc (cap);
  char head[128];
  int n;

  if (buf == NULL)
    return NULL;
  n = snprintf (head, sizeof head, "%s=%s", k->name, k->syntax);
  if (n < 0 || (size_t) n >= sizeof head)
    n = sizeof head - 1;
  memcpy (buf, head, n);
  len = n;
  col = n;
  /* The help starts in column indent, or on the next line. */
  if (col + 1 > indent) {
    buf[len++] = '\n';
    col = 0;
  }
  memset (buf + len, ' ', indent - col);
  len += indent - col;
  col = indent;
  buf[len] = '\0';
  if (append_wrapped (&buf, &len, &cap, &col, k->help, indent, width) == -1)
    goto nomem;
  if (k->values) {
    if (append_wrapped (&buf, &len, &cap, &col, "One of:", indent,
                        width) == -1)
      goto nomem;
    for (i = 0; k->values[i]; ++i) {
      char v[64];
      snprintf (v, sizeof v, "%s%s", k->values[i],
                k->values[i + 1] ? "," : ".");
      if (append_wrapped (&buf, &len, &cap, &col, v, indent, width) == -1)
        goto nomem;
    }
  }
  return buf;

 nomem:
  free (buf);
  return NULL;
}
