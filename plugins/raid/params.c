/* nbdkit-raid-plugin: the parameter table (see params.h).  The array's
 * own keys (level, chunk, copies, read-policy) are the core's, so that
 * the plugin, `raidsim map` and the simulator spell and check them
 * alike; the keys below are the plugin's own.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "params.h"

#define STR_(x) #x
#define STR(x) STR_ (x)

struct raid_params params = {
  .raid = {
    .chunk = RAID_CHUNK_DEFAULT,
    .copies = RAID10_COPIES_DEFAULT,
    .policy = RAID_READ_POLICY_DEFAULT,
  },
  .max_inflight = MAX_INFLIGHT_DEFAULT,
  .timeout_ms = TIMEOUT_DEFAULT_S * 1000,
  .io_mode = FILE_IO_AUTO,
};

static const char *const io_values[] = {
  [FILE_IO_AUTO] = "auto",
  [FILE_IO_URING] = "uring",
  [FILE_IO_THREADS] = "threads",
  [FILE_IO_INLINE] = "inline",
  NULL
};

const char *
params_io_name (enum file_io_mode m)
{
  return io_values[m];
}

static int parse_io (const char *key, const char *value);
static int parse_inflight (const char *key, const char *value);
static int parse_timeout (const char *key, const char *value);
static int parse_stats (const char *key, const char *value);
static int parse_member (const char *key, const char *value);

struct plugin_param {
  struct raid_key d;
  bool repeatable;
  bool seen;
  int (*parse) (const char *key, const char *value);
};

static struct plugin_param plugin_params[] = {
  { .d = { .name = "io", .syntax = "auto|uring|threads|inline",
           .values = io_values,
           .help = "How file and device members do I/O; default auto "
           "(inline for files on tmpfs and ramfs, else io_uring where "
           "the kernel allows)." },
    .parse = parse_io },
  { .d = { .name = "max-inflight", .syntax = "N",
           .help = "Member I/Os in flight per member, 1 to "
           STR (MAX_INFLIGHT_MAX) "; default " STR (MAX_INFLIGHT_DEFAULT)
           "." },
    .parse = parse_inflight },
  { .d = { .name = "timeout", .syntax = "TIME",
           .help = "How long an NBD member may take to connect, or to "
           "answer one I/O, before it fails with ETIMEDOUT: seconds (30 "
           "or 30s) or milliseconds (500ms), up to "
           STR (TIMEOUT_MAX_S) "s; 0 waits forever.  Default "
           STR (TIMEOUT_DEFAULT_S) "s, the SCSI command timeout." },
    .parse = parse_timeout },
  { .d = { .name = "stats", .syntax = "PATH",
           .help = "Write statistics as JSON to PATH at exit and on "
           "SIGUSR1." },
    .parse = parse_stats },
  { .d = { .name = "member", .syntax = "FILE|DEVICE|URI",
           .help = "A member, in layout order; give 2 or more.  URI is an "
           "NBD URI (nbd://, nbd+unix://).  member= may be left out." },
    .repeatable = true, .parse = parse_member },
};

#define NPLUGIN_PARAMS (sizeof plugin_params / sizeof plugin_params[0])

static int
parse_io (const char *key, const char *value)
{
  unsigned i;

  for (i = 0; io_values[i]; ++i)
    if (strcmp (value, io_values[i]) == 0) {
      params.io_mode = i;
      return 0;
    }
  nbdkit_error ("io: '%s' is not one of auto, uring, threads, inline",
                value);
  return -1;
}

static int
parse_inflight (const char *key, const char *value)
{
  char *end;
  unsigned long v;

  errno = 0;
  v = strtoul (value, &end, 10);
  if (errno || end == value || *end || value[0] == '-' ||
      v < 1 || v > MAX_INFLIGHT_MAX) {
    nbdkit_error ("%s: '%s' is not a whole number from 1 to %d",
                  key, value, MAX_INFLIGHT_MAX);
    return -1;
  }
  params.max_inflight = v;
  return 0;
}

/* A whole number of seconds, with an optional "s", or of milliseconds
 * with "ms"; 0 is no timeout.
 */
static int
parse_timeout (const char *key, const char *value)
{
  char *end;
  unsigned long long v, scale = 1000, max_ms = TIMEOUT_MAX_S * 1000ull;

  errno = 0;
  v = strtoull (value, &end, 10);
  if (strcmp (end, "ms") == 0)
    scale = 1;
  else if (strcmp (end, "s") != 0 && *end != '\0')
    end = (char *) value;       /* not a unit we know: bad */
  if (errno || end == value || value[0] < '0' || value[0] > '9' ||
      v > max_ms / scale) {
    nbdkit_error ("%s: '%s' is not a time such as 30s, 30 or 500ms, "
                  "from 0 (no timeout) to %ds", key, value, TIMEOUT_MAX_S);
    return -1;
  }
  params.timeout_ms = v * scale;
  return 0;
}

static int
parse_stats (const char *key, const char *value)
{
  /* Made absolute now: nbdkit changes directory when it daemonizes. */
  params.stats_path = nbdkit_absolute_path (value);
  return params.stats_path ? 0 : -1;
}

static int
parse_member (const char *key, const char *value)
{
  if (params.nmembers == RAID_MAX_MEMBERS) {
    nbdkit_error ("member: at most %d members are supported",
                  RAID_MAX_MEMBERS);
    return -1;
  }
  if (value[0] == '\0') {
    nbdkit_error ("member: empty file name");
    return -1;
  }
  params.member[params.nmembers] = strdup (value);
  if (params.member[params.nmembers] == NULL) {
    nbdkit_error ("strdup: %m");
    return -1;
  }
  params.nmembers++;
  return 0;
}

int
params_config (const char *key, const char *value)
{
  size_t i;
  int r;

  r = raid_settings_parse (&params.raid, key, value);
  if (r == -1) {
    nbdkit_error ("%s", raid_geom_error ());
    return -1;
  }
  if (r == 0)
    return 0;
  for (i = 0; i < NPLUGIN_PARAMS; ++i) {
    struct plugin_param *p = &plugin_params[i];
    if (strcmp (key, p->d.name) != 0)
      continue;
    if (!p->repeatable) {
      if (p->seen) {
        nbdkit_error ("%s: given more than once", key);
        return -1;
      }
      p->seen = true;
    }
    return p->parse (key, value);
  }
  nbdkit_error ("%s: unknown parameter (see nbdkit raid --help)", key);
  return -1;
}

void
params_free (void)
{
  unsigned i;

  for (i = 0; i < params.nmembers; ++i)
    free (params.member[i]);
  free (params.stats_path);
}

/* --help: every key of both tables, in the order a user writes them. */
static char *help_buf;

static int
help_add (size_t *len, const struct raid_key *k)
{
  char *h = raid_key_help (k, 23, 76);
  size_t n;
  char *b;

  if (h == NULL)
    return -1;
  n = strlen (h);
  b = realloc (help_buf, *len + n + 2);
  if (b == NULL) {
    free (h);
    return -1;
  }
  help_buf = b;
  if (*len)
    help_buf[(*len)++] = '\n';
  memcpy (help_buf + *len, h, n + 1);
  *len += n;
  free (h);
  return 0;
}

const char *
params_help_text (void)
{
  size_t len = 0, i;

  if (help_buf)
    return help_buf;
  for (i = 0; i < RAID_KEY_COUNT; ++i)
    if (help_add (&len, &raid_keys[i]) == -1)
      return "(out of memory)";
  for (i = 0; i < NPLUGIN_PARAMS; ++i)
    if (help_add (&len, &plugin_params[i].d) == -1)
      return "(out of memory)";
  return help_buf;
}

static void __attribute__ ((destructor))
params_help_free (void)
{
  free (help_buf);
}
