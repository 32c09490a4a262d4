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
#include "model/modelfile.h"

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
  .sync_speed_min = SYNC_SPEED_MIN_DEFAULT,
  .sync_speed_max = SYNC_SPEED_MAX_DEFAULT,
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

static const char *const metadata_values[] = {
  [METADATA_AUTO] = "auto",
  [METADATA_1_2] = "1.2",
  [METADATA_NONE] = "none",
  NULL
};

const char *
params_metadata_name (enum raid_metadata m)
{
  return metadata_values[m];
}

static int parse_metadata (const char *key, const char *value);
static int parse_io (const char *key, const char *value);
static int parse_inflight (const char *key, const char *value);
static int parse_timeout (const char *key, const char *value);
static int parse_speed (const char *key, const char *value);
static int parse_stats (const char *key, const char *value);
static int parse_control (const char *key, const char *value);
static int parse_member (const char *key, const char *value);
static int parse_model (const char *key, const char *value);
static int parse_spare (const char *key, const char *value);
static int parse_force (const char *key, const char *value);

static const char *const bool_values[] = { "false", "true", NULL };

struct plugin_param {
  struct raid_key d;
  bool repeatable;
  bool seen;
  int (*parse) (const char *key, const char *value);
};

static struct plugin_param plugin_params[] = {
  { .d = { .name = "metadata", .syntax = "auto|1.2|none",
           .values = metadata_values,
           .help = "The members' md metadata.  auto (the default): if "
           "every member has an md v1.2 superblock, assemble the array "
           "from them; if none has md metadata, serve the members "
           "without any (data from offset 0); refuse a mix.  1.2: "
           "require the superblocks.  none: no metadata, and refuse "
           "members that hold md metadata, which it would overwrite." },
    .parse = parse_metadata },
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
  { .d = { .name = "sync-speed-min", .syntax = "KIB",
           .help = "The resync's speed while clients are busy, in KiB/s "
           "(md's speed_limit_min), 1 to 10^9; default "
           STR (SYNC_SPEED_MIN_DEFAULT) "." },
    .parse = parse_speed },
  { .d = { .name = "sync-speed-max", .syntax = "KIB",
           .help = "The resync's speed when clients are idle, in KiB/s "
           "(md's speed_limit_max), 1 to 10^9; default "
           STR (SYNC_SPEED_MAX_DEFAULT) "." },
    .parse = parse_speed },
  { .d = { .name = "stats", .syntax = "PATH",
           .help = "Write statistics as JSON to PATH at exit and on "
           "SIGUSR1." },
    .parse = parse_stats },
  { .d = { .name = "control", .syntax = "PATH",
           .help = "Make a control socket at PATH (mode 0600; only this "
           "user and root may use it), for `raidsim control PATH VERB`: "
           "detail, fail, remove, check, repair, idle, as mdadm --detail, "
           "--fail, --remove and md's sync_action.  A stale socket left "
           "at PATH is replaced; anything else there is refused." },
    .parse = parse_control },
  { .d = { .name = "model", .syntax = "ARRAY.ini",
           .help = "Time the array as a raidsim array file models it: "
           "every member I/O still goes to its member, but a request "
           "completes when the file's RAID layer, controller, links and "
           "devices (the simulator's own models, driven by the monotonic "
           "clock) say.  "
           "The level, chunk and copies come from the file (if given, or "
           "found in md metadata, they must agree), and so must the "
           "member count; a single drive (level = single) is served as "
           "a one-member RAID 1 (or 0).  The plugin can only add "
           "latency: a request "
           "whose real I/O ends after the model's time is counted late "
           "(stats=, and the summary at exit)." },
    .parse = parse_model },
  { .d = { .name = "member", .syntax = "FILE|DEVICE|URI|missing",
           .help = "A member; give 1 or more (one: a one-member RAID 0 "
           "or 1, a single drive).  URI is an NBD URI (nbd://, "
           "nbd+unix://).  With md metadata the order does not matter, "
           "and missing stands for an absent member (RAID 1 and 10); "
           "without, give them in layout order.  member= may be left "
           "out." },
    .repeatable = true, .parse = parse_member },
  { .d = { .name = "spare", .syntax = "FILE|DEVICE|URI",
           .help = "A hot spare (md arrays with copies), up to "
           STR (RAID_MAX_SPARES) "; repeatable.  It gets a superblock with "
           "md's spare role at the first connection, and when a member "
           "fails or is missing it takes over its role and is rebuilt from "
           "the live copies.  It must be blank (no signature libblkid "
           "knows), hold this array's metadata, or force=true be given." },
    .repeatable = true, .parse = parse_spare },
  { .d = { .name = "force", .syntax = "false|true",
           .values = bool_values,
           .help = "true: a spare, or a member that takes a missing one's "
           "place, may hold a signature (a file system, a partition "
           "table): it is written over.  Default false: refused, so that "
           "a typo never overwrites data.  A member of another md array "
           "is refused either way." },
    .parse = parse_force },
};

#define NPLUGIN_PARAMS (sizeof plugin_params / sizeof plugin_params[0])

static int
parse_metadata (const char *key, const char *value)
{
  unsigned i;

  for (i = 0; metadata_values[i]; ++i)
    if (strcmp (value, metadata_values[i]) == 0) {
      params.metadata = i;
      return 0;
    }
  nbdkit_error ("metadata: '%s' is not one of auto, 1.2, none", value);
  return -1;
}

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
  unsigned long v;

  if (raid_parse_uint (key, value, 1, MAX_INFLIGHT_MAX, &v) == -1) {
    nbdkit_error ("%s", raid_geom_error ());
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
parse_speed (const char *key, const char *value)
{
  unsigned long v;

  if (raid_parse_uint (key, value, 1, 1000000000, &v) == -1) {
    nbdkit_error ("%s: '%s' is not a speed in KiB/s from 1 to 1000000000",
                  key, value);
    return -1;
  }
  if (strcmp (key, "sync-speed-min") == 0)
    params.sync_speed_min = v;
  else
    params.sync_speed_max = v;
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
parse_control (const char *key, const char *value)
{
  /* Absolute, as stats=: nbdkit changes directory when it daemonizes. */
  params.control_path = nbdkit_absolute_path (value);
  return params.control_path ? 0 : -1;
}

/* Append value to list[*n] (at most max): the member= and spare= keys,
 * what ("member", "spare") naming them in the errors.
 */
static int
add_name (const char *what, const char *value, char **list, unsigned *n,
          unsigned max)
{
  if (*n == max) {
    nbdkit_error ("%s: at most %u %ss are supported", what, max, what);
    return -1;
  }
  if (value[0] == '\0') {
    nbdkit_error ("%s: empty file name", what);
    return -1;
  }
  list[*n] = strdup (value);
  if (list[*n] == NULL) {
    nbdkit_error ("strdup: %m");
    return -1;
  }
  (*n)++;
  return 0;
}

static int
parse_member (const char *key, const char *value)
{
  return add_name ("member", value, params.member, &params.nmembers,
                   RAID_MAX_MEMBERS);
}

static int
parse_spare (const char *key, const char *value)
{
  return add_name ("spare", value, params.spare, &params.nspares,
                   RAID_MAX_SPARES);
}

static int
parse_force (const char *key, const char *value)
{
  if (strcmp (value, "true") == 0)
    params.force = true;
  else if (strcmp (value, "false") == 0)
    params.force = false;
  else {
    nbdkit_error ("force: '%s' is not one of false, true", value);
    return -1;
  }
  return 0;
}

static int
parse_model (const char *key, const char *value)
{
  return modelfile_load (value);
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
  for (i = 0; i < params.nspares; ++i)
    free (params.spare[i]);
  free (params.stats_path);
  free (params.control_path);
}

/* --dump-plugin: every key of both tables, as raid_param_KEY=SYNTAX and,
 * for keys with a list of values, raid_param_KEY_values=V1,V2,...; the
 * man-page check (tests/integration/test-pod-params.sh) reads these.
 */
static void
dump_key (const struct raid_key *k)
{
  size_t i;

  printf ("raid_param_%s=%s\n", k->name, k->syntax);
  if (k->values == NULL)
    return;
  printf ("raid_param_%s_values=", k->name);
  for (i = 0; k->values[i]; ++i)
    printf ("%s%s", i ? "," : "", k->values[i]);
  printf ("\n");
}

void
params_dump (void)
{
  size_t i;

  for (i = 0; i < RAID_KEY_COUNT; ++i)
    dump_key (&raid_keys[i]);
  for (i = 0; i < NPLUGIN_PARAMS; ++i)
    dump_key (&plugin_params[i].d);
}

/* The plugin's help for the core keys whose meaning it extends: with
 * md metadata, level, chunk and copies come from the superblocks
 * (assemble.c), so level is no longer always required.  The name,
 * syntax and values stay the core's.
 */
static const char *const core_help[RAID_KEY_COUNT] = {
  [RAID_KEY_LEVEL] = "RAID level: 0 stripes, 1 mirrors every member, 10 "
  "is md's near layout (also raid0, raid1, raid10).  Required without md "
  "metadata; with it, from the superblocks, and if given must agree.",
  [RAID_KEY_CHUNK] = "Chunk (stripe unit) of RAID 0 and 10, a power of "
  "two from 4K to 64M; default 128K.  With md metadata, from the "
  "superblocks, and if given must agree.",
  [RAID_KEY_COPIES] = "RAID 10 near copies of every chunk, 2 to the "
  "member count; default 2.  With md metadata, from the superblocks, and "
  "if given must agree.",
};

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
  for (i = 0; i < RAID_KEY_COUNT; ++i) {
    struct raid_key k = raid_keys[i];

    if (core_help[i])
      k.help = core_help[i];
    if (help_add (&len, &k) == -1)
      return "(out of memory)";
  }
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
