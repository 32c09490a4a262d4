/* raidsim: randomized differential test of nbdkit-raid-plugin.
 *
 * The test builds member files whose every byte it knows, serves them
 * with the plugin under nbdkit, and drives thousands of random reads,
 * writes (some FUA), trims, zeroes, flushes and block status requests at
 * them through libnbd, keeping an in-memory model of what the array must
 * hold.  Every read is compared with the model, and so is every extent
 * the plugin reports as reading zeroes.  A sweep that writes and reads
 * across every member and zone edge comes first, whatever the seed, and
 * a read of the whole array comes last.
 *
 * Then nbdkit is stopped and every byte of every member file is compared
 * with what tests/lib/refmap.c says must be there: each copy of each array
 * byte must equal the model, and each byte that holds no array data
 * (tails past the used area, unused RAID 10 slots) must still hold the
 * junk written before nbdkit started.  Reads alone cannot catch a plugin
 * that writes a member at the array offset instead of the member offset
 * (nbdkit 1.32.5's split plugin does that) when its reads make the
 * matching mistake; the member check does.
 *
 * The layout comes from refmap, not from raidsim/core/geometry.c, so a bug in
 * the geometry that the plugin shares shows up here as well.
 *
 * With --member-via, some or all members are NBD exports instead of
 * paths: each such member file is served by its own
 * `nbdkit -f --exit-with-parent file FILE` on a Unix socket or on
 * 127.0.0.1:PORT, and the plugin gets its URI.  The member files are
 * still the files the test made, so the final check is the same.
 *
 * Requests in flight at the same time never overlap, so the result does
 * not depend on the order in which nbdkit completes them and the model
 * stays exact with any number of connections and requests in flight.
 * The sequence of requests depends only on the seed.
 *
 * Run every configuration:  meson test -C build --suite integration
 * Run one by hand, e.g.:
 *   RAID_PLUGIN=build/plugins/raid/nbdkit-raid-plugin.so \
 *   build/tests/integration/test-differential --level 10 --chunk 64K \
 *     --member-size 16M,16M,16M,16M --connections 4 --depth 32 --seed 42
 * and with members over NBD, e.g. --member-via nbd-tcp or
 *   --member-via nbd-unix,file,nbd-unix,file
 * Exit status: 0 passed, 1 failed, 77 skipped (no nbdkit).
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <libnbd.h>

#include "refmap.h"

#define ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define KiB (UINT64_C (1) << 10)
#define MiB (UINT64_C (1) << 20)

#define MAX_MEMBERS 32
#define MAX_CONNS 64
#define MAX_DEPTH 1024

/* NBD and libnbd refuse reads and writes above 64M; trims and zeroes
 * carry a 32 bit length.
 */
#define MAX_DATA_REQUEST (32 * MiB)
#define MAX_EFFECT_REQUEST UINT64_C (0xffffffff)

/* How long nbdkit may take to start, and to answer when requests are
 * in flight, before we call it hung.
 */
#define START_TIMEOUT_MS 30000
#define HANG_TIMEOUT_MS 20000

/*----------------------------------------------------------------------
 * Options.  Each one is described once, in opts[] below; parsing,
 * defaults, range checks and --help all come from that table.
 */

struct size_list {
  unsigned n;
  uint64_t v[MAX_MEMBERS];
};

struct config {
  uint64_t level;
  uint64_t chunk;
  const char *chunk_str;        /* as given, passed on to the plugin */
  uint64_t copies;              /* 0: not passed, the plugin's default */
  struct size_list member;
  uint64_t conns;
  uint64_t depth;
  uint64_t ops;
  uint64_t seed;
  const char *read_policy;
  const char *io;
  uint64_t max_inflight;        /* 0: not passed */
  const char *member_via;
  uint64_t member_min_block;    /* 0: the servers state no minimum */
  const char *plugin;
  bool keep;
  bool verbose;
  bool nbdkit_verbose;
  bool help;
};

enum opt_type {
  OPT_LEVEL,                    /* 0, 1 or 10 */
  OPT_SIZE,                     /* bytes, with K M G suffixes */
  OPT_SIZE_LIST,                /* comma-separated sizes */
  OPT_UINT,
  OPT_STRING,
  OPT_FLAG,
};

struct opt_desc {
  const char *name;
  int shortopt;
  enum opt_type type;
  size_t offset;                /* into struct config */
  const char *def;              /* parsed like an argument; NULL: unset */
  uint64_t min, max;            /* for OPT_UINT, OPT_SIZE, OPT_SIZE_LIST */
  const char *help;
};

#define CFG(field) offsetof (struct config, field)

static const struct opt_desc opts[] = {
  { "level", 'l', OPT_LEVEL, CFG (level), "0", 0, 10,
    "RAID level: 0, 1 or 10" },
  { "chunk", 'c', OPT_SIZE, CFG (chunk), "128K", 4 * KiB, 64 * MiB,
    "chunk size, a power of two; passed to the plugin as written" },
  { "copies", 'k', OPT_UINT, CFG (copies), NULL, 2, MAX_MEMBERS,
    "RAID 10 copies; unset: not passed, the plugin's default of 2" },
  { "member-size", 'm', OPT_SIZE_LIST, CFG (member), "8M,8M",
    4 * KiB, 1024 * MiB,
    "member file sizes, comma-separated, each a sum like 8M+3K" },
  { "connections", 'C', OPT_UINT, CFG (conns), "1", 1, MAX_CONNS,
    "NBD connections to open on the one socket" },
  { "depth", 'D', OPT_UINT, CFG (depth), "1", 1, MAX_DEPTH,
    "requests in flight in total, over all connections" },
  { "ops", 'n', OPT_UINT, CFG (ops), "5000", 0, 100000000,
    "random requests to issue after the boundary sweep" },
  { "seed", 's', OPT_UINT, CFG (seed), NULL, 0, UINT64_MAX,
    "random seed; unset: taken from the clock (always printed)" },
  { "read-policy", 'r', OPT_STRING, CFG (read_policy), NULL, 0, 0,
    "passed to the plugin: round-robin, least-pending, sequential, first" },
  { "io", 'i', OPT_STRING, CFG (io), NULL, 0, 0,
    "passed to the plugin: auto, uring, threads" },
  { "max-inflight", 'I', OPT_UINT, CFG (max_inflight), NULL, 1, 4096,
    "passed to the plugin: member I/Os in flight per member" },
  { "member-via", 'M', OPT_STRING, CFG (member_via), "file", 0, 0,
    "how the plugin reaches each member: file, nbd-unix or nbd-tcp "
    "(served by nbdkit file), comma-separated, one for all or one "
    "per member" },
  { "member-min-block", 'B', OPT_SIZE, CFG (member_min_block), NULL,
    2, 64 * KiB,
    "NBD members' servers require requests aligned to this (nbdkit's "
    "blocksize-policy filter); the array must advertise it, and the "
    "test's requests are aligned to it" },
  { "plugin", 'p', OPT_STRING, CFG (plugin), NULL, 0, 0,
    "plugin path; default $RAID_PLUGIN, else "
    "../plugins/raid/nbdkit-raid-plugin.so beside this program" },
  { "keep", 'K', OPT_FLAG, CFG (keep), NULL, 0, 0,
    "keep the temporary directory and its member files" },
  { "verbose", 'v', OPT_FLAG, CFG (verbose), NULL, 0, 0,
    "print every request as it is issued" },
  { "nbdkit-verbose", 'V', OPT_FLAG, CFG (nbdkit_verbose), NULL, 0, 0,
    "run nbdkit with -v" },
  { "help", 'h', OPT_FLAG, CFG (help), NULL, 0, 0,
    "print this help" },
};

static struct config cfg;

/*----------------------------------------------------------------------
 * State shared by the whole run.  The test is single threaded: libnbd
 * calls the completion callbacks from inside nbd_aio_notify_*.
 */

static const char *progname = "test-differential";
static struct refmap ref;
static unsigned char *model;    /* what the array must hold, ref.size bytes */
static uint64_t align = 1;      /* every request's offset and length */

/* Temporary files.  Kept in fixed buffers so that the signal handler can
 * remove them without allocating.  The directory name is kept short
 * because the socket path must fit in a sockaddr_un.
 */
#define TMPDIR_MAX 96
#define TMPFILE_MAX (TMPDIR_MAX + 32)
static char tmpdir[TMPDIR_MAX];
static char sockpath[TMPFILE_MAX];
static char pidpath[TMPFILE_MAX];
static char member_path[MAX_MEMBERS][TMPFILE_MAX];
static volatile sig_atomic_t nbdkit_pid = 0;

/* Members reached over NBD: each is served by its own nbdkit. */
enum via { VIA_FILE, VIA_NBD_UNIX, VIA_NBD_TCP };
static const char *const via_names[] = {
  [VIA_FILE] = "file", [VIA_NBD_UNIX] = "nbd-unix", [VIA_NBD_TCP] = "nbd-tcp",
};
static enum via member_via[MAX_MEMBERS];
static char member_sock[MAX_MEMBERS][TMPFILE_MAX];
static char member_pidpath[MAX_MEMBERS][TMPFILE_MAX];
static char member_uri[MAX_MEMBERS][TMPFILE_MAX + 32];
static volatile sig_atomic_t member_pid[MAX_MEMBERS];

static struct nbd_handle *conn[MAX_CONNS];

/* Set once a request that changes data has failed: the model no longer
 * says what the array holds, so the final member check would only
 * produce noise.
 */
static bool model_inexact = false;
static bool failed = false;
/* Set when a request goes wrong: issuing more would only bury the first
 * report.
 */
static bool stop_issuing = false;

/*----------------------------------------------------------------------
 * Random numbers.  xorshift64* for the request stream, and a stateless
 * splitmix64 hash for the junk, so that the junk at any member offset
 * can be recomputed at the end without having been kept.
 */

static uint64_t rng_state;

static uint64_t
splitmix64 (uint64_t x)
{
  x += UINT64_C (0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * UINT64_C (0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C (0x94D049BB133111EB);
  return x ^ (x >> 31);
}

static uint64_t
rnd (void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C (2685821657736338717);
}

/* Inclusive range. */
static uint64_t
rnd_range (uint64_t lo, uint64_t hi)
{
  if (hi <= lo)
    return lo;
  if (hi - lo == UINT64_MAX)
    return rnd ();
  return lo + rnd () % (hi - lo + 1);
}

static void
fill_random (unsigned char *buf, uint64_t len)
{
  uint64_t i;

  for (i = 0; i < len; i += 8) {
    uint64_t w = rnd ();
    memcpy (buf + i, &w, MIN (8, len - i));
  }
}

/* The junk that member m holds at every byte outside the array. */
static void
fill_junk (unsigned m, unsigned char *buf, uint64_t len)
{
  uint64_t key = splitmix64 (cfg.seed ^ ((uint64_t) (m + 1) << 48));
  uint64_t i;

  for (i = 0; i < len; i += 8) {
    uint64_t w = splitmix64 (key + i / 8);
    memcpy (buf + i, &w, MIN (8, len - i));
  }
}

/*----------------------------------------------------------------------
 * Errors and cleanup.
 */

static void
remove_temp_files (void)
{
  unsigned i;

  if (tmpdir[0] == '\0' || cfg.keep)
    return;
  for (i = 0; i < MAX_MEMBERS; ++i) {
    if (member_path[i][0])
      unlink (member_path[i]);
    if (member_sock[i][0])
      unlink (member_sock[i]);
    if (member_pidpath[i][0])
      unlink (member_pidpath[i]);
  }
  if (sockpath[0])
    unlink (sockpath);
  if (pidpath[0])
    unlink (pidpath);
  rmdir (tmpdir);
}

/* Async-signal-safe: meson kills a test that overruns its timeout with
 * SIGTERM, and the member files can be large.
 */
static void
on_signal (int sig)
{
  unsigned i;

  if (nbdkit_pid > 0)
    kill (nbdkit_pid, SIGTERM);
  for (i = 0; i < MAX_MEMBERS; ++i)
    if (member_pid[i] > 0)
      kill (member_pid[i], SIGTERM);
  remove_temp_files ();
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
stop_nbdkit_now (void)
{
  pid_t pid = nbdkit_pid;
  unsigned i;

  if (pid > 0) {
    nbdkit_pid = 0;
    kill (pid, SIGTERM);
    waitpid (pid, NULL, 0);
  }
  for (i = 0; i < MAX_MEMBERS; ++i)
    if ((pid = member_pid[i]) > 0) {
      member_pid[i] = 0;
      kill (pid, SIGTERM);
      waitpid (pid, NULL, 0);
    }
}

/* Fatal error: the run cannot go on.  Safe to call from a completion
 * callback because it neither returns nor touches the nbd handles.
 */
static void __attribute__ ((noreturn, format (printf, 1, 2)))
die (const char *fs, ...)
{
  va_list args;

  fprintf (stderr, "%s: FAIL: ", progname);
  va_start (args, fs);
  vfprintf (stderr, fs, args);
  va_end (args);
  fputc ('\n', stderr);
  fprintf (stderr, "%s: FAIL (seed %" PRIu64 ")\n", progname, cfg.seed);
  stop_nbdkit_now ();
  remove_temp_files ();
  exit (EXIT_FAILURE);
}

/* A failed check: report it, and let the run finish what it can. */
static void __attribute__ ((format (printf, 1, 2)))
fail (const char *fs, ...)
{
  va_list args;

  fprintf (stderr, "%s: FAIL: ", progname);
  va_start (args, fs);
  vfprintf (stderr, fs, args);
  va_end (args);
  fputc ('\n', stderr);
  failed = true;
}

static void *
xmalloc (size_t n)
{
  void *p = malloc (n ? n : 1);

  if (p == NULL)
    die ("malloc: %zu bytes: %m", n);
  return p;
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*----------------------------------------------------------------------
 * Option parsing.
 */

/* A size: terms joined by '+', each a number with an optional K, M, G
 * suffix (powers of 1024), so that unequal members with odd tails are
 * easy to write: 8M+3K.
 */
static int
parse_size (const char *s, uint64_t *bytes)
{
  uint64_t total = 0;

  for (;;) {
    char *end;
    unsigned long long v;
    unsigned shift = 0;

    if (*s < '0' || *s > '9')
      return -1;
    errno = 0;
    v = strtoull (s, &end, 10);
    if (errno != 0)
      return -1;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (v > (UINT64_MAX >> shift) || total + (v << shift) < total)
      return -1;
    total += v << shift;
    if (*end == '\0')
      break;
    if (*end != '+')
      return -1;
    s = end + 1;
  }
  *bytes = total;
  return 0;
}

/* The inverse of parse_size, so that the sizes printed can be pasted
 * back: 16778450 is 16M+1234.
 */
static void
size_to_string (uint64_t v, char *buf, size_t len)
{
  uint64_t m = v / MiB, k = v % MiB / KiB, b = v % KiB;
  int n = 0;

  buf[0] = '\0';
  if (m)
    n += snprintf (buf + n, len - n, "%" PRIu64 "M", m);
  if (k && n < (int) len)
    n += snprintf (buf + n, len - n, "%s%" PRIu64 "K", n ? "+" : "", k);
  if ((b || v == 0) && n < (int) len)
    snprintf (buf + n, len - n, "%s%" PRIu64, n ? "+" : "", b);
}

static void
usage (FILE *fp)
{
  size_t i;

  fprintf (fp,
           "Usage: %s [OPTIONS]\n"
           "Randomized differential test of nbdkit-raid-plugin against an\n"
           "in-memory model and the reference layout in tests/lib/refmap.c.\n\n",
           progname);
  for (i = 0; i < ARRAY_SIZE (opts); ++i) {
    const struct opt_desc *o = &opts[i];
    const char *arg = NULL;
    char name[64];

    switch (o->type) {
    case OPT_LEVEL: arg = "LEVEL"; break;
    case OPT_SIZE: arg = "SIZE"; break;
    case OPT_SIZE_LIST: arg = "SIZE,SIZE,..."; break;
    case OPT_UINT: arg = "N"; break;
    case OPT_STRING: arg = "STRING"; break;
    case OPT_FLAG: break;
    }
    snprintf (name, sizeof name, "--%s%s%s", o->name,
              arg ? " " : "", arg ? arg : "");
    fprintf (fp, "  -%c, %-28s %s", o->shortopt, name, o->help);
    if (o->def)
      fprintf (fp, " [%s]", o->def);
    fputc ('\n', fp);
  }
}

static int
parse_opt (const struct opt_desc *o, const char *arg)
{
  char *field = (char *) &cfg + o->offset;
  uint64_t v;

  switch (o->type) {
  case OPT_LEVEL:
    if (strcmp (arg, "0") != 0 && strcmp (arg, "1") != 0 &&
        strcmp (arg, "10") != 0)
      goto bad;
    *(uint64_t *) field = strtoull (arg, NULL, 10);
    return 0;

  case OPT_SIZE:
    if (parse_size (arg, &v) == -1 || v < o->min || v > o->max)
      goto bad;
    *(uint64_t *) field = v;
    if (o->offset == CFG (chunk))
      cfg.chunk_str = arg;
    return 0;

  case OPT_SIZE_LIST: {
    struct size_list *l = (struct size_list *) field;
    char *copy = strdup (arg), *tok, *saveptr = NULL;

    if (copy == NULL)
      die ("strdup: %m");
    l->n = 0;
    for (tok = strtok_r (copy, ",", &saveptr); tok != NULL;
         tok = strtok_r (NULL, ",", &saveptr)) {
      if (l->n == MAX_MEMBERS || parse_size (tok, &v) == -1 ||
          v < o->min || v > o->max) {
        free (copy);
        goto bad;
      }
      l->v[l->n++] = v;
    }
    free (copy);
    if (l->n == 0)
      goto bad;
    return 0;
  }

  case OPT_UINT: {
    char *end;

    if (*arg < '0' || *arg > '9')
      goto bad;
    errno = 0;
    v = strtoull (arg, &end, 0);
    if (errno != 0 || *end != '\0' || v < o->min || v > o->max)
      goto bad;
    *(uint64_t *) field = v;
    return 0;
  }

  case OPT_STRING:
    *(const char **) field = arg;
    return 0;

  case OPT_FLAG:
    *(bool *) field = true;
    return 0;
  }

 bad:
  fprintf (stderr, "%s: --%s: invalid value '%s'", progname, o->name, arg);
  if (o->type == OPT_UINT || o->type == OPT_SIZE ||
      o->type == OPT_SIZE_LIST)
    fprintf (stderr, " (range %" PRIu64 " to %" PRIu64 ")", o->min, o->max);
  if (o->type == OPT_SIZE_LIST)
    fprintf (stderr, " (at most %d members)", MAX_MEMBERS);
  fputc ('\n', stderr);
  return -1;
}

static void
parse_options (int argc, char *argv[], bool *seed_given)
{
  struct option long_opts[ARRAY_SIZE (opts) + 1];
  char short_opts[ARRAY_SIZE (opts) * 2 + 1], *sp = short_opts;
  bool given[ARRAY_SIZE (opts)] = { false };
  size_t i;
  int c;

  for (i = 0; i < ARRAY_SIZE (opts); ++i) {
    long_opts[i] = (struct option) {
      .name = opts[i].name,
      .has_arg = opts[i].type == OPT_FLAG ? no_argument : required_argument,
      .flag = NULL,
      .val = opts[i].shortopt,
    };
    *sp++ = opts[i].shortopt;
    if (opts[i].type != OPT_FLAG)
      *sp++ = ':';
  }
  long_opts[i] = (struct option) { 0 };
  *sp = '\0';

  while ((c = getopt_long (argc, argv, short_opts, long_opts, NULL)) != -1) {
    for (i = 0; i < ARRAY_SIZE (opts); ++i)
      if (opts[i].shortopt == c)
        break;
    if (i == ARRAY_SIZE (opts)) {
      usage (stderr);
      exit (EXIT_FAILURE);
    }
    if (parse_opt (&opts[i], optarg) == -1)
      exit (EXIT_FAILURE);
    given[i] = true;
  }
  if (optind != argc) {
    fprintf (stderr, "%s: unexpected argument '%s'\n", progname,
             argv[optind]);
    exit (EXIT_FAILURE);
  }

  /* Defaults last, so that an option given replaces its default rather
   * than adding to it.
   */
  for (i = 0; i < ARRAY_SIZE (opts); ++i) {
    if (!given[i] && opts[i].def && parse_opt (&opts[i], opts[i].def) == -1)
      abort ();                 /* a bad default in opts[] */
    if (opts[i].offset == CFG (seed))
      *seed_given = given[i];
  }

  if (cfg.help) {
    usage (stdout);
    exit (EXIT_SUCCESS);
  }
  if ((cfg.chunk & (cfg.chunk - 1)) != 0) {
    fprintf (stderr, "%s: --chunk: %" PRIu64 " is not a power of two\n",
             progname, cfg.chunk);
    exit (EXIT_FAILURE);
  }
  if ((cfg.member_min_block & (cfg.member_min_block - 1)) != 0) {
    fprintf (stderr, "%s: --member-min-block: %" PRIu64 " is not a power "
             "of two\n", progname, cfg.member_min_block);
    exit (EXIT_FAILURE);
  }
  if (cfg.copies && cfg.level != 10) {
    fprintf (stderr, "%s: --copies is only for RAID 10\n", progname);
    exit (EXIT_FAILURE);
  }
}

/*----------------------------------------------------------------------
 * Finding nbdkit and the plugin.
 */

static char *
find_in_path (const char *name)
{
  const char *path = getenv ("PATH");
  char *copy, *dir, *saveptr = NULL;

  if (path == NULL)
    path = "/usr/local/bin:/usr/bin:/bin";
  copy = strdup (path);
  if (copy == NULL)
    die ("strdup: %m");
  for (dir = strtok_r (copy, ":", &saveptr); dir != NULL;
       dir = strtok_r (NULL, ":", &saveptr)) {
    char *full;

    if (asprintf (&full, "%s/%s", dir, name) == -1)
      die ("asprintf: %m");
    if (access (full, X_OK) == 0) {
      free (copy);
      return full;
    }
    free (full);
  }
  free (copy);
  return NULL;
}

/* meson sets RAID_PLUGIN.  When the test is run by hand without it, the
 * plugin built in the same tree sits at a known place relative to us.
 */
static char *
find_plugin (void)
{
  const char *env = getenv ("RAID_PLUGIN");
  char self[PATH_MAX], *slash, *path;
  ssize_t n;

  if (cfg.plugin)
    return strdup (cfg.plugin);
  if (env && *env)
    return strdup (env);
  n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n == -1)
    return NULL;
  self[n] = '\0';
  slash = strrchr (self, '/');
  if (slash == NULL)
    return NULL;
  *slash = '\0';
  if (asprintf (&path, "%s/../plugins/raid/nbdkit-raid-plugin.so", self)
      == -1)
    return NULL;
  return path;
}

/*----------------------------------------------------------------------
 * The layout as runs of bytes.  A run is array bytes that one copy keeps
 * contiguously on one member: a whole chunk on RAID 0 and 10, the whole
 * array on RAID 1.
 */

typedef void (*run_fn) (uint64_t aoff, uint64_t moff, uint64_t len,
                        unsigned copy, void *opaque);

static void
for_each_run_on_member (unsigned member, run_fn f, void *opaque)
{
  uint64_t piece = ref.level == 1 ? ref.size : ref.chunk;
  uint64_t off;
  unsigned k;

  for (off = 0; off < ref.size; off += piece) {
    uint64_t len = MIN (piece, ref.size - off);

    for (k = 0; k < ref.copies; ++k) {
      unsigned m;
      uint64_t moff;

      refmap_locate (&ref, off, k, &m, &moff);
      if (m == member)
        f (off, moff, len, k, opaque);
    }
  }
}

static void
overlay_run (uint64_t aoff, uint64_t moff, uint64_t len, unsigned copy,
             void *opaque)
{
  unsigned char *image = opaque;

  memcpy (image + moff, model + aoff, len);
}

/* What member m must hold: junk, with the model's bytes laid over it
 * wherever the layout puts a copy of the array.
 */
static void
build_member_image (unsigned m, unsigned char *image)
{
  fill_junk (m, image, cfg.member.v[m]);
  for_each_run_on_member (m, overlay_run, image);
}

struct owner {
  uint64_t moff;                /* the member offset we look for */
  bool found;
  uint64_t aoff;
  unsigned copy;
};

static void
find_owner_run (uint64_t aoff, uint64_t moff, uint64_t len, unsigned copy,
                void *opaque)
{
  struct owner *o = opaque;

  if (!o->found && o->moff >= moff && o->moff < moff + len) {
    o->found = true;
    o->aoff = aoff + (o->moff - moff);
    o->copy = copy;
  }
}

/*----------------------------------------------------------------------
 * Member files.
 */

static void
write_all (int fd, const unsigned char *buf, uint64_t len, const char *path)
{
  uint64_t done = 0;

  while (done < len) {
    ssize_t r = pwrite (fd, buf + done, MIN (len - done, 64 * MiB), done);
    if (r == -1)
      die ("pwrite: %s: %m", path);
    done += r;
  }
}

static void
read_all (int fd, unsigned char *buf, uint64_t len, const char *path)
{
  uint64_t done = 0;

  while (done < len) {
    ssize_t r = pread (fd, buf + done, MIN (len - done, 64 * MiB), done);
    if (r == -1)
      die ("pread: %s: %m", path);
    if (r == 0)
      die ("pread: %s: unexpected end of file at %" PRIu64, path, done);
    done += r;
  }
}

static void
create_members (void)
{
  uint64_t largest = 0;
  unsigned char *image;
  unsigned m;

  for (m = 0; m < cfg.member.n; ++m)
    largest = MAX (largest, cfg.member.v[m]);
  image = xmalloc (largest);
  for (m = 0; m < cfg.member.n; ++m) {
    int fd;

    snprintf (member_path[m], sizeof member_path[m], "%s/m%u.img",
              tmpdir, m);
    fd = open (member_path[m], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd == -1)
      die ("open: %s: %m", member_path[m]);
    build_member_image (m, image);
    write_all (fd, image, cfg.member.v[m], member_path[m]);
    if (close (fd) == -1)
      die ("close: %s: %m", member_path[m]);
  }
  free (image);
}

/* The last check: every byte of every member.  Returns the bytes
 * compared.
 */
static uint64_t
check_members (void)
{
  uint64_t largest = 0, checked = 0;
  unsigned char *want, *got;
  unsigned m;

  for (m = 0; m < cfg.member.n; ++m)
    largest = MAX (largest, cfg.member.v[m]);
  want = xmalloc (largest);
  got = xmalloc (largest);

  for (m = 0; m < cfg.member.n; ++m) {
    uint64_t size = cfg.member.v[m], i, j, nbad = 0;
    struct stat st;
    int fd;

    fd = open (member_path[m], O_RDONLY | O_CLOEXEC);
    if (fd == -1)
      die ("open: %s: %m", member_path[m]);
    if (fstat (fd, &st) == -1)
      die ("fstat: %s: %m", member_path[m]);
    /* A write at the wrong offset past the end grows the file. */
    if ((uint64_t) st.st_size != size)
      fail ("member %u (%s): size changed from %" PRIu64 " to %" PRIu64
            " bytes", m, member_path[m], size, (uint64_t) st.st_size);
    read_all (fd, got, size, member_path[m]);
    close (fd);
    build_member_image (m, want);
    checked += size;

    if (memcmp (want, got, size) == 0)
      continue;

    for (i = 0; want[i] == got[i]; ++i)
      ;
    for (j = i; j < size; ++j)
      nbad += want[j] != got[j];
    {
      struct owner o = { .moff = i };
      uint64_t run;

      for (run = 1; i + run < size && want[i + run] != got[i + run]; ++run)
        ;
      for_each_run_on_member (m, find_owner_run, &o);
      if (o.found)
        fail ("member %u (%s) offset %" PRIu64 ": expected 0x%02x, found "
              "0x%02x; this is array offset %" PRIu64 " (copy %u); "
              "a run of %" PRIu64 " differing bytes starts here, "
              "%" PRIu64 " differ in this member",
              m, member_path[m], i, want[i], got[i], o.aoff, o.copy,
              run, nbad);
      else
        fail ("member %u (%s) offset %" PRIu64 ": expected 0x%02x, found "
              "0x%02x; this byte holds no array data and must keep its "
              "initial junk; a run of %" PRIu64 " differing bytes starts "
              "here, %" PRIu64 " differ in this member",
              m, member_path[m], i, want[i], got[i], run, nbad);
      /* The signature of split.c's bug: the member was written at the
       * array offset, so it holds the array's bytes at that offset.
       */
      if (run >= 8 && i + run <= ref.size &&
          memcmp (got + i, model + i, run) == 0)
        fprintf (stderr, "%s: hint: those %" PRIu64 " bytes equal the "
                 "array's bytes at array offset %" PRIu64 ": the member "
                 "seems to have been written at the array offset instead "
                 "of the member offset\n", progname, run, i);
    }
  }
  free (want);
  free (got);
  return checked;
}

/*----------------------------------------------------------------------
 * nbdkit.
 */

static void
start_nbdkit (const char *nbdkit, const char *plugin)
{
  const char *argv[32 + MAX_MEMBERS];
  char *param[6 + MAX_MEMBERS];
  size_t nparam = 0;
  double deadline;
  unsigned m;
  size_t n = 0, i;
  pid_t pid;

  argv[n++] = nbdkit;
  argv[n++] = "-U";
  argv[n++] = sockpath;
  argv[n++] = "-f";
  argv[n++] = "--exit-with-parent";
  argv[n++] = "-P";
  argv[n++] = pidpath;
  if (cfg.nbdkit_verbose)
    argv[n++] = "-v";
  argv[n++] = plugin;
  if (asprintf (&param[nparam++], "level=%" PRIu64, cfg.level) == -1 ||
      asprintf (&param[nparam++], "chunk=%s", cfg.chunk_str) == -1 ||
      (cfg.copies &&
       asprintf (&param[nparam++], "copies=%" PRIu64, cfg.copies) == -1) ||
      (cfg.read_policy &&
       asprintf (&param[nparam++], "read-policy=%s", cfg.read_policy) == -1) ||
      (cfg.io && asprintf (&param[nparam++], "io=%s", cfg.io) == -1) ||
      (cfg.max_inflight &&
       asprintf (&param[nparam++], "max-inflight=%" PRIu64,
                 cfg.max_inflight) == -1))
    die ("asprintf: %m");
  for (m = 0; m < cfg.member.n; ++m)
    if (asprintf (&param[nparam++], "member=%s",
                  member_via[m] == VIA_FILE ? member_path[m]
                                            : member_uri[m]) == -1)
      die ("asprintf: %m");
  for (i = 0; i < nparam; ++i)
    argv[n++] = param[i];
  argv[n] = NULL;

  printf ("%s: running:", progname);
  for (i = 0; i < n; ++i)
    printf (" %s", argv[i]);
  printf ("\n");
  fflush (stdout);

  pid = fork ();
  if (pid == -1)
    die ("fork: %m");
  if (pid == 0) {
    execv (nbdkit, (char **) argv);
    perror (nbdkit);
    _exit (126);
  }
  nbdkit_pid = pid;
  for (i = 0; i < nparam; ++i)
    free (param[i]);

  /* nbdkit writes the PID file only once it listens on the socket. */
  deadline = now () + START_TIMEOUT_MS / 1000.0;
  for (;;) {
    struct stat st;
    int status;

    if (stat (pidpath, &st) == 0 && st.st_size > 0 &&
        stat (sockpath, &st) == 0 && S_ISSOCK (st.st_mode))
      break;
    if (waitpid (pid, &status, WNOHANG) == pid) {
      nbdkit_pid = 0;
      if (WIFEXITED (status))
        die ("nbdkit exited with status %d before serving; "
             "see its messages above", WEXITSTATUS (status));
      die ("nbdkit was killed by signal %d before serving",
           WTERMSIG (status));
    }
    if (now () > deadline)
      die ("nbdkit did not create %s within %d s", sockpath,
           START_TIMEOUT_MS / 1000);
    usleep (10000);
  }
}

/* Stop nbdkit and make sure it went cleanly: a crash while unloading
 * the plugin is a plugin bug too.
 */
static void
stop_nbdkit (void)
{
  pid_t pid = nbdkit_pid;
  int status;

  nbdkit_pid = 0;
  if (kill (pid, SIGTERM) == -1)
    die ("kill: nbdkit: %m");
  if (waitpid (pid, &status, 0) == -1)
    die ("waitpid: nbdkit: %m");
  if (WIFSIGNALED (status))
    fail ("nbdkit was killed by signal %d while shutting down",
          WTERMSIG (status));
  else if (WEXITSTATUS (status) != 0)
    fail ("nbdkit exited with status %d", WEXITSTATUS (status));
}

/*----------------------------------------------------------------------
 * Members over NBD.
 */

/* --member-via: one word for every member, or one per member. */
static void
parse_member_via (void)
{
  char *copy = strdup (cfg.member_via), *tok, *saveptr = NULL;
  unsigned n = 0, m;

  if (copy == NULL)
    die ("strdup: %m");
  for (tok = strtok_r (copy, ",", &saveptr); tok != NULL;
       tok = strtok_r (NULL, ",", &saveptr)) {
    size_t v;

    for (v = 0; v < ARRAY_SIZE (via_names); ++v)
      if (strcmp (tok, via_names[v]) == 0)
        break;
    if (v == ARRAY_SIZE (via_names) || n == MAX_MEMBERS) {
      fprintf (stderr, "%s: --member-via: '%s' is not file, nbd-unix or "
               "nbd-tcp\n", progname, tok);
      exit (EXIT_FAILURE);
    }
    member_via[n++] = v;
  }
  free (copy);
  if (n != 1 && n != cfg.member.n) {
    fprintf (stderr, "%s: --member-via: give one word for all members or "
             "one for each of the %u members, not %u\n", progname,
             cfg.member.n, n);
    exit (EXIT_FAILURE);
  }
  for (m = n; m < cfg.member.n; ++m)
    member_via[m] = member_via[0];
  if (cfg.member_min_block) {
    for (m = 0; m < cfg.member.n && member_via[m] == VIA_FILE; ++m)
      ;
    if (m == cfg.member.n) {
      fprintf (stderr, "%s: --member-min-block needs a member reached "
               "over NBD (--member-via)\n", progname);
      exit (EXIT_FAILURE);
    }
  }
}

static bool
any_nbd_member (void)
{
  unsigned m;

  for (m = 0; m < cfg.member.n; ++m)
    if (member_via[m] != VIA_FILE)
      return true;
  return false;
}

/* A TCP port that was free a moment ago.  Another program may take it
 * before nbdkit does; start_member_server then tries another.
 */
static unsigned
free_port (void)
{
  struct sockaddr_in sin = {
    .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK),
  };
  socklen_t len = sizeof sin;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd == -1)
    die ("socket: %m");
  if (bind (fd, (struct sockaddr *) &sin, sizeof sin) == -1 ||
      getsockname (fd, (struct sockaddr *) &sin, &len) == -1)
    die ("bind: 127.0.0.1: %m");
  close (fd);
  return ntohs (sin.sin_port);
}

/* Serve member m's file with nbdkit's file plugin.  Returns false if
 * nbdkit exited before serving (a TCP port taken meanwhile).
 */
static bool
start_member_server (const char *nbdkit, unsigned m)
{
  const char *argv[24];
  char port[16], file[TMPFILE_MAX + 8], minimum[40];
  double deadline;
  size_t n = 0;
  pid_t pid;

  snprintf (member_pidpath[m], sizeof member_pidpath[m], "%s/m%u.pid",
            tmpdir, m);
  unlink (member_pidpath[m]);
  argv[n++] = nbdkit;
  argv[n++] = "-f";
  argv[n++] = "--exit-with-parent";
  argv[n++] = "-P";
  argv[n++] = member_pidpath[m];
  if (member_via[m] == VIA_NBD_UNIX) {
    snprintf (member_sock[m], sizeof member_sock[m], "%s/m%u.sock",
              tmpdir, m);
    snprintf (member_uri[m], sizeof member_uri[m],
              "nbd+unix:///?socket=%s", member_sock[m]);
    argv[n++] = "-U";
    argv[n++] = member_sock[m];
  }
  else {
    snprintf (port, sizeof port, "%u", free_port ());
    snprintf (member_uri[m], sizeof member_uri[m], "nbd://127.0.0.1:%s",
              port);
    argv[n++] = "-i";
    argv[n++] = "127.0.0.1";
    argv[n++] = "-p";
    argv[n++] = port;
  }
  if (cfg.nbdkit_verbose)
    argv[n++] = "-v";
  if (cfg.member_min_block)
    argv[n++] = "--filter=blocksize-policy";
  argv[n++] = "file";
  snprintf (file, sizeof file, "file=%s", member_path[m]);
  argv[n++] = file;
  if (cfg.member_min_block) {
    /* "error": an unaligned request fails with EINVAL rather than being
     * fixed up, so a misaligned member I/O cannot go unnoticed.
     */
    snprintf (minimum, sizeof minimum, "blocksize-minimum=%" PRIu64,
              cfg.member_min_block);
    argv[n++] = minimum;
    argv[n++] = "blocksize-error-policy=error";
  }
  argv[n] = NULL;

  pid = fork ();
  if (pid == -1)
    die ("fork: %m");
  if (pid == 0) {
    execv (nbdkit, (char **) argv);
    perror (nbdkit);
    _exit (126);
  }
  member_pid[m] = pid;

  /* nbdkit writes the PID file once it listens. */
  deadline = now () + START_TIMEOUT_MS / 1000.0;
  for (;;) {
    struct stat st;
    int status;

    if (stat (member_pidpath[m], &st) == 0 && st.st_size > 0)
      return true;
    if (waitpid (pid, &status, WNOHANG) == pid) {
      member_pid[m] = 0;
      return false;
    }
    if (now () > deadline)
      die ("member %u: nbdkit file did not start within %d s", m,
           START_TIMEOUT_MS / 1000);
    usleep (10000);
  }
}

static void
start_member_servers (const char *nbdkit)
{
  unsigned m, tries;

  for (m = 0; m < cfg.member.n; ++m) {
    if (member_via[m] == VIA_FILE)
      continue;
    for (tries = 0; !start_member_server (nbdkit, m); ++tries)
      if (member_via[m] != VIA_NBD_TCP || tries == 4)
        die ("member %u: nbdkit file %s exited before serving; see its "
             "messages above", m, member_path[m]);
    printf ("%s: member %u is %s, served by nbdkit file %s\n",
            progname, m, member_uri[m], member_path[m]);
  }
}

/* After the plugin's nbdkit: the member servers must go cleanly too. */
static void
stop_member_servers (void)
{
  unsigned m;

  for (m = 0; m < cfg.member.n; ++m) {
    pid_t pid = member_pid[m];
    int status;

    if (pid <= 0)
      continue;
    member_pid[m] = 0;
    if (kill (pid, SIGTERM) == -1 || waitpid (pid, &status, 0) == -1)
      die ("member %u: stopping nbdkit: %m", m);
    if (WIFSIGNALED (status))
      fail ("member %u: nbdkit file was killed by signal %d", m,
            WTERMSIG (status));
    else if (WEXITSTATUS (status) != 0)
      fail ("member %u: nbdkit file exited with status %d", m,
            WEXITSTATUS (status));
  }
}

/*----------------------------------------------------------------------
 * Requests.
 */

/* OP_EXTENTS is NBD block status: it changes nothing, and every extent
 * it reports as reading zero must be zero in the model.
 */
enum op_type {
  OP_READ, OP_WRITE, OP_TRIM, OP_ZERO, OP_FLUSH, OP_EXTENTS, NR_OP_TYPES
};

static const char *op_name[NR_OP_TYPES] = {
  "read", "write", "trim", "zero", "flush", "extents",
};

static bool
changes_data (enum op_type type)
{
  return type == OP_WRITE || type == OP_TRIM || type == OP_ZERO;
}

/* What the server supports, from the handshake. */
static bool can_op[NR_OP_TYPES] = { true, true };
static bool can_fua;
static bool can_fast_zero;

struct req {
  bool busy;
  enum op_type type;
  uint32_t flags;
  unsigned conn;
  uint64_t seq;                 /* request number, for messages */
  uint64_t offset, len;
  unsigned char *buf;
};

static struct req slot[MAX_DEPTH];
static unsigned in_flight;
static uint64_t next_seq;

/* Every request that changed data, so that a failed read can say which
 * requests last touched the byte that is wrong.
 */
struct logged {
  uint64_t seq;
  enum op_type type;
  uint32_t flags;
  unsigned conn;
  uint64_t offset, len;
};
static struct logged *wlog;
static size_t wlog_len, wlog_cap;

static struct {
  uint64_t ops[NR_OP_TYPES];
  uint64_t fua;
  uint64_t fast_zero, fast_zero_refused;
  uint64_t bytes[NR_OP_TYPES];
  uint64_t read_checked;
  uint64_t zero_extent_checked;
} stats;

static void
format_req (const struct req *r, char *buf, size_t len)
{
  snprintf (buf, len, "request #%" PRIu64 " on connection %u: %s%s%s%s%s "
            "offset %" PRIu64 " length %" PRIu64,
            r->seq, r->conn, op_name[r->type],
            r->flags & LIBNBD_CMD_FLAG_FUA ? " fua" : "",
            r->flags & LIBNBD_CMD_FLAG_NO_HOLE ? " no-hole" : "",
            r->flags & LIBNBD_CMD_FLAG_REQ_ONE ? " req-one" : "",
            r->flags & LIBNBD_CMD_FLAG_FAST_ZERO ? " fast-zero" : "",
            r->offset, r->len);
}

static void
log_write (const struct req *r)
{
  if (wlog_len == wlog_cap) {
    wlog_cap = wlog_cap ? wlog_cap * 2 : 1024;
    wlog = realloc (wlog, wlog_cap * sizeof *wlog);
    if (wlog == NULL)
      die ("realloc: %m");
  }
  wlog[wlog_len++] = (struct logged) {
    .seq = r->seq, .type = r->type, .flags = r->flags, .conn = r->conn,
    .offset = r->offset, .len = r->len,
  };
}

static void
explain_byte (uint64_t aoff)
{
  unsigned k, shown = 0;
  size_t i;

  for (k = 0; k < ref.copies; ++k) {
    unsigned m;
    uint64_t moff;

    refmap_locate (&ref, aoff, k, &m, &moff);
    fprintf (stderr, "%s:   array offset %" PRIu64 " copy %u lives on "
             "member %u at offset %" PRIu64 "\n", progname, aoff, k, m, moff);
  }
  for (i = wlog_len; i > 0 && shown < 3; --i) {
    const struct logged *l = &wlog[i - 1];

    if (aoff >= l->offset && aoff < l->offset + l->len) {
      fprintf (stderr, "%s:   %s by request #%" PRIu64
               " on connection %u: %s%s offset %" PRIu64 " length %"
               PRIu64 "\n", progname,
               shown == 0 ? "last changed" : "before that, changed",
               l->seq, l->conn, op_name[l->type],
               l->flags & LIBNBD_CMD_FLAG_FUA ? " fua" : "",
               l->offset, l->len);
      shown++;
    }
  }
  if (shown == 0)
    fprintf (stderr, "%s:   no request changed it: it should still hold "
             "its initial content\n", progname);
}

/* libnbd calls this from nbd_aio_notify_* when the reply arrives.  No
 * request in flight overlaps this one, so the model for its range is
 * exactly what the server must have now.
 */
static int
complete (void *opaque, int *error)
{
  struct req *r = opaque;
  char desc[256];

  /* A server may refuse a fast zero when it cannot zero quickly.  We
   * hold the plugin to refusing before it changes anything, which it
   * can since all members support the same operations; the reads and
   * the member check then prove the range was left alone.
   */
  if (*error == ENOTSUP && (r->flags & LIBNBD_CMD_FLAG_FAST_ZERO)) {
    stats.fast_zero_refused++;
    goto done;
  }
  if (*error) {
    format_req (r, desc, sizeof desc);
    fail ("%s: server error: %s", desc, strerror (*error));
    stop_issuing = true;
    if (changes_data (r->type))
      model_inexact = true;
  }
  else {
    switch (r->type) {
    case OP_READ:
      if (memcmp (r->buf, model + r->offset, r->len) != 0) {
        uint64_t i;

        for (i = 0; r->buf[i] == model[r->offset + i]; ++i)
          ;
        format_req (r, desc, sizeof desc);
        fail ("%s: first difference at array offset %" PRIu64
              " (byte %" PRIu64 " of the read): expected 0x%02x, "
              "read 0x%02x", desc, r->offset + i, i,
              model[r->offset + i], r->buf[i]);
        explain_byte (r->offset + i);
        stop_issuing = true;
      }
      stats.read_checked += r->len;
      break;
    case OP_WRITE:
      memcpy (model + r->offset, r->buf, r->len);
      log_write (r);
      break;
    case OP_TRIM:
    case OP_ZERO:
      /* Trim punches holes in the member files, which read back as
       * zeroes.
       */
      memset (model + r->offset, 0, r->len);
      log_write (r);
      break;
    case OP_FLUSH:
    case OP_EXTENTS:            /* checked in extent_cb */
    case NR_OP_TYPES:
      break;
    }
  }

 done:
  free (r->buf);
  r->buf = NULL;
  r->busy = false;
  in_flight--;
  return 1;                     /* retire the command */
}

/* libnbd calls this with the extents of a block status request before
 * its completion.  Only the requested range is checked: extents past it
 * may cover bytes that another request is changing.
 */
static int
extent_cb (void *opaque, const char *metacontext, uint64_t offset,
           uint32_t *entries, size_t nr_entries, int *error)
{
  struct req *r = opaque;
  uint64_t pos = offset, end = r->offset + r->len;
  char desc[256];
  size_t i;

  if (strcmp (metacontext, LIBNBD_CONTEXT_BASE_ALLOCATION) != 0 || *error)
    return 0;
  if (offset != r->offset || nr_entries == 0) {
    format_req (r, desc, sizeof desc);
    fail ("%s: extents start at %" PRIu64 " with %zu entries",
          desc, offset, nr_entries / 2);
    stop_issuing = true;
    return 0;
  }
  for (i = 0; i + 1 < nr_entries && pos < end; i += 2) {
    uint64_t len = entries[i], from = pos, to = MIN (pos + len, end), j;

    if (len == 0) {
      format_req (r, desc, sizeof desc);
      fail ("%s: empty extent at %" PRIu64, desc, pos);
      stop_issuing = true;
      return 0;
    }
    pos += len;
    if ((entries[i + 1] & LIBNBD_STATE_ZERO) == 0)
      continue;
    for (j = from; j < to; ++j)
      if (model[j] != 0) {
        format_req (r, desc, sizeof desc);
        fail ("%s: the extent %" PRIu64 "+%" PRIu64 " is reported to read "
              "as zeroes, but array offset %" PRIu64 " must hold 0x%02x",
              desc, from, len, j, model[j]);
        explain_byte (j);
        stop_issuing = true;
        return 0;
      }
    stats.zero_extent_checked += to - from;
  }
  return 0;
}

static void
report_in_flight (void)
{
  unsigned i;
  char desc[256];

  for (i = 0; i < cfg.depth; ++i)
    if (slot[i].busy) {
      format_req (&slot[i], desc, sizeof desc);
      fprintf (stderr, "%s:   in flight: %s\n", progname, desc);
    }
}

/* Wait for at least one event on any connection and let libnbd handle
 * it, which runs the completion callbacks.  This is nbd_poll for
 * several handles.
 */
static void
run_once (void)
{
  struct pollfd fds[MAX_CONNS];
  unsigned i;
  int r;

  for (i = 0; i < cfg.conns; ++i) {
    unsigned dir = nbd_aio_get_direction (conn[i]);

    fds[i].fd = nbd_aio_get_fd (conn[i]);
    if (fds[i].fd == -1)
      die ("connection %u: %s", i, nbd_get_error ());
    fds[i].events = 0;
    fds[i].revents = 0;
    if (dir & LIBNBD_AIO_DIRECTION_READ)
      fds[i].events |= POLLIN;
    if (dir & LIBNBD_AIO_DIRECTION_WRITE)
      fds[i].events |= POLLOUT;
  }

  r = poll (fds, cfg.conns, HANG_TIMEOUT_MS);
  if (r == -1) {
    if (errno == EINTR)
      return;
    die ("poll: %m");
  }
  if (r == 0) {
    fprintf (stderr, "%s: no reply from nbdkit for %d s with %u requests "
             "in flight:\n", progname, HANG_TIMEOUT_MS / 1000, in_flight);
    report_in_flight ();
    die ("nbdkit hangs");
  }

  for (i = 0; i < cfg.conns; ++i) {
    int rr = 0;

    if (fds[i].revents & (POLLIN | POLLHUP))
      rr = nbd_aio_notify_read (conn[i]);
    else if (fds[i].revents & POLLOUT)
      rr = nbd_aio_notify_write (conn[i]);
    else if (fds[i].revents & (POLLERR | POLLNVAL))
      die ("connection %u: the server closed the socket", i);
    if (rr == -1 || nbd_aio_is_dead (conn[i])) {
      report_in_flight ();
      die ("connection %u: %s", i, nbd_get_error ());
    }
  }
}

static bool
overlaps_in_flight (uint64_t offset, uint64_t len)
{
  unsigned i;

  if (len == 0)
    return false;
  for (i = 0; i < cfg.depth; ++i)
    if (slot[i].busy && slot[i].len &&
        offset < slot[i].offset + slot[i].len &&
        slot[i].offset < offset + len)
      return true;
  return false;
}

/* Issue one request, first waiting until there is room in the queue and
 * nothing in flight overlaps it.  buf is owned by the request.
 */
static void
issue (enum op_type type, uint32_t flags, unsigned c,
       uint64_t offset, uint64_t len, unsigned char *buf)
{
  nbd_completion_callback cb;
  struct req *r = NULL;
  unsigned i;
  int64_t cookie = -1;
  char desc[256];

  while (in_flight >= cfg.depth || overlaps_in_flight (offset, len))
    run_once ();
  /* A failure seen while waiting ends the run here. */
  if (stop_issuing) {
    free (buf);
    return;
  }

  for (i = 0; i < cfg.depth; ++i)
    if (!slot[i].busy) {
      r = &slot[i];
      break;
    }
  *r = (struct req) {
    .busy = true, .type = type, .flags = flags, .conn = c,
    .seq = next_seq++, .offset = offset, .len = len, .buf = buf,
  };
  in_flight++;
  stats.ops[type]++;
  stats.bytes[type] += len;
  if (flags & LIBNBD_CMD_FLAG_FUA)
    stats.fua++;
  if (flags & LIBNBD_CMD_FLAG_FAST_ZERO)
    stats.fast_zero++;
  if (cfg.verbose) {
    format_req (r, desc, sizeof desc);
    printf ("%s\n", desc);
  }

  cb = (nbd_completion_callback) { .callback = complete, .user_data = r };
  switch (type) {
  case OP_READ:
    cookie = nbd_aio_pread (conn[c], buf, len, offset, cb, flags);
    break;
  case OP_WRITE:
    cookie = nbd_aio_pwrite (conn[c], buf, len, offset, cb, flags);
    break;
  case OP_TRIM:
    cookie = nbd_aio_trim (conn[c], len, offset, cb, flags);
    break;
  case OP_ZERO:
    cookie = nbd_aio_zero (conn[c], len, offset, cb, flags);
    break;
  case OP_FLUSH:
    cookie = nbd_aio_flush (conn[c], cb, flags);
    break;
  case OP_EXTENTS:
    cookie = nbd_aio_block_status (conn[c], len, offset,
                                   (nbd_extent_callback) {
                                     .callback = extent_cb, .user_data = r },
                                   cb, flags);
    break;
  case NR_OP_TYPES:
    abort ();
  }
  if (cookie == -1) {
    format_req (r, desc, sizeof desc);
    die ("%s: %s", desc, nbd_get_error ());
  }
}

static void
drain (void)
{
  while (in_flight > 0)
    run_once ();
}

/*----------------------------------------------------------------------
 * Choosing requests.  Bugs live at edges, so offsets and lengths are
 * drawn mostly from the layout's boundaries and from sizes that sit on
 * either side of them.
 */

/* Array offsets where a stripe row starts for some copy (the next chunk
 * goes back to the first member), and RAID 0 zone starts.
 */
static uint64_t *rowpt, *zonept;
static size_t nrowpt, nzonept;

static void
find_boundaries (void)
{
  uint64_t c, prev_start = 0, prev_width = 0;

  rowpt = xmalloc ((ref.nchunks + 1) * sizeof *rowpt);
  zonept = xmalloc ((ref.nchunks + 1) * sizeof *zonept);
  for (c = 1; c < ref.nchunks; ++c) {
    bool new_row = false;
    unsigned k;

    for (k = 0; k < ref.copies; ++k)
      if (ref.mchunk[c * ref.copies + k] !=
          ref.mchunk[(c - 1) * ref.copies + k])
        new_row = true;
    if (!new_row)
      continue;
    rowpt[nrowpt++] = c * ref.chunk;
    /* A RAID 0 zone starts where the rows get narrower. */
    if (ref.level == 0) {
      uint64_t width = c - prev_start;

      if (prev_width && width != prev_width)
        zonept[nzonept++] = prev_start * ref.chunk;
      prev_width = width;
      prev_start = c;
    }
  }
  if (ref.level == 0 && prev_width && ref.nchunks - prev_start != prev_width)
    zonept[nzonept++] = prev_start * ref.chunk;
}

static uint64_t
pick_point (void)
{
  switch (rnd () % 12) {
  case 0:
    return 0;
  case 1: case 2:
    return ref.size;
  case 3: case 4: case 5:
    return ref.chunk * rnd_range (0, ref.size / ref.chunk);
  case 6: case 7:
    if (nrowpt)
      return rowpt[rnd () % nrowpt];
    /* fallthrough */
  case 8: case 9:
    if (nzonept)
      return zonept[rnd () % nzonept];
    /* fallthrough */
  default:
    return rnd_range (0, ref.size);
  }
}

static uint64_t
pick_len (uint64_t max)
{
  uint64_t chunk = ref.chunk;
  uint64_t stripe = chunk * MAX (1, ref.nmembers / ref.copies);
  uint64_t len;

  switch (rnd () % 18) {
  case 0: len = 1; break;
  case 1: len = 511; break;
  case 2: len = 512; break;
  case 3: len = 4096; break;
  case 4: len = rnd () % 2 ? 4095 : 4097; break;
  case 5: len = chunk - 1; break;
  case 6: len = chunk; break;
  case 7: len = chunk + 1; break;
  case 8: len = rnd_range (2, 6) * chunk + rnd_range (0, 2) - 1; break;
  case 9: len = stripe; break;
  case 10: len = rnd () % 2 ? stripe + 1 : stripe - 1; break;
  case 11: len = rnd_range (1, 65536); break;
  case 12: case 13: len = rnd_range (1, 4 * chunk); break;
  case 14: case 15: len = rnd_range (1, 4096); break;
  case 16: len = rnd_range (1, 2 * stripe); break;
  default: len = rnd_range (1, max); break;
  }
  return MAX (1, MIN (len, max));
}

/* Widen a range to the array's minimum block size.  ref.size is a
 * multiple of it, so the result still fits.
 */
static void
align_range (uint64_t *offset, uint64_t *len)
{
  uint64_t start = *offset & ~(align - 1);
  uint64_t end = (*offset + *len + align - 1) & ~(align - 1);

  *offset = start;
  *len = end - start;
}

static void
pick_range (enum op_type type, uint64_t *offset, uint64_t *len)
{
  uint64_t max = type == OP_READ || type == OP_WRITE
    ? MAX_DATA_REQUEST : MAX_EFFECT_REQUEST;
  uint64_t l, p;
  int64_t off;

  /* Big requests are legal but slow; keep them rare. */
  if (rnd () % 16 != 0)
    max = MIN (max, MAX (8 * ref.chunk, 4 * MiB));
  max = MIN (max, ref.size);
  /* Room for align_range to widen it. */
  if (align > 1)
    max = max > 2 * align ? max - 2 * align : align;
  l = pick_len (max);

  switch (rnd () % 8) {
  case 0: case 1: case 2: case 3:
    p = pick_point ();
    switch (rnd () % 6) {
    case 0: off = p; break;
    case 1: off = (int64_t) p - 1; break;
    case 2: off = p + 1; break;
    case 3: off = (int64_t) p - (int64_t) (l / 2); break;   /* straddle */
    case 4: off = (int64_t) p - (int64_t) l; break;         /* end at it */
    default: off = (int64_t) p - (int64_t) rnd_range (1, l); break;
    }
    break;
  case 4: case 5:
    off = rnd_range (0, ref.size) & ~(rnd () % 2 ? UINT64_C (4095) : 511);
    break;
  default:
    off = rnd_range (0, ref.size - 1);
    break;
  }
  if (off < 0)
    off = 0;
  if ((uint64_t) off > ref.size - l)
    off = rnd () % 2 ? ref.size - l : rnd_range (0, ref.size - l);
  *offset = off;
  *len = l;
  align_range (offset, len);
}

static unsigned char *
data_for (enum op_type type, uint64_t len)
{
  unsigned char *buf;

  if (type != OP_READ && type != OP_WRITE)
    return NULL;
  buf = xmalloc (len);
  if (type == OP_WRITE) {
    /* Now and then all zeroes, in case the plugin treats those
     * specially.
     */
    if (rnd () % 20 == 0)
      memset (buf, 0, len);
    else
      fill_random (buf, len);
  }
  return buf;
}

static void
random_request (void)
{
  static const unsigned weight[NR_OP_TYPES] = {
    [OP_READ] = 36, [OP_WRITE] = 32, [OP_TRIM] = 10,
    [OP_ZERO] = 14, [OP_FLUSH] = 8, [OP_EXTENTS] = 6,
  };
  unsigned total = 0, pick, t;
  enum op_type type = OP_READ;
  uint32_t flags = 0;
  uint64_t offset = 0, len = 0;
  unsigned c;

  for (t = 0; t < NR_OP_TYPES; ++t)
    if (can_op[t])
      total += weight[t];
  pick = rnd () % total;
  for (t = 0; t < NR_OP_TYPES; ++t) {
    if (!can_op[t])
      continue;
    if (pick < weight[t]) {
      type = t;
      break;
    }
    pick -= weight[t];
  }

  c = rnd () % cfg.conns;
  if (type != OP_FLUSH)
    pick_range (type, &offset, &len);
  if (can_fua && changes_data (type) && rnd () % 8 == 0)
    flags |= LIBNBD_CMD_FLAG_FUA;
  if (type == OP_ZERO && rnd () % 3 == 0)
    flags |= LIBNBD_CMD_FLAG_NO_HOLE;
  else if (type == OP_ZERO && can_fast_zero && rnd () % 4 == 0)
    flags |= LIBNBD_CMD_FLAG_FAST_ZERO;
  if (type == OP_EXTENTS && rnd () % 4 == 0)
    flags |= LIBNBD_CMD_FLAG_REQ_ONE;
  issue (type, flags, c, offset, len, data_for (type, len));
}

/* Before the random requests: a write and a read straddling each member
 * and zone edge, so that every one is hit whatever the seed.
 */
static void
boundary_sweep (void)
{
  uint64_t pts[4 * MAX_MEMBERS + 16];
  size_t n = 0, i;
  uint64_t c;

  for (i = 0; i < nzonept; ++i)
    pts[n++] = zonept[i];
  /* The first chunk edge on each member, the first rows and the last. */
  for (c = 1; c <= MIN (ref.nchunks, 2 * ref.nmembers); ++c)
    pts[n++] = c * ref.chunk;
  for (i = 0; i < MIN (nrowpt, 4); ++i)
    pts[n++] = rowpt[i];
  if (nrowpt)
    pts[n++] = rowpt[nrowpt - 1];
  pts[n++] = ref.size;
  if (ref.level == 1)
    pts[n++] = ref.size / 2;

  for (i = 0; i < n && !stop_issuing; ++i) {
    uint64_t p = pts[i], before, after, off, len;
    unsigned conn_w = rnd () % cfg.conns, conn_r = rnd () % cfg.conns;

    if (p == 0 || p > ref.size)
      continue;
    before = rnd_range (1, MIN (p, ref.chunk + 1));
    after = rnd_range (p < ref.size ? 1 : 0,
                       MIN (ref.size - p, ref.chunk + 1));
    off = p - before;
    len = before + after;
    align_range (&off, &len);
    issue (OP_WRITE, 0, conn_w, off, len, data_for (OP_WRITE, len));
    off = p - MIN (p, before + 1);
    len = MIN (ref.size - off, (p - off) + after + 1);
    align_range (&off, &len);
    issue (OP_READ, 0, conn_r, off, len, data_for (OP_READ, len));
  }
}

/* After the random requests: read the whole array back. */
static void
read_back (void)
{
  uint64_t off, n = 0;
  uint64_t step = MIN (4 * MiB, ref.size);

  for (off = 0; off < ref.size; off += step) {
    uint64_t len = MIN (step, ref.size - off);

    issue (OP_READ, 0, n++ % cfg.conns, off, len, data_for (OP_READ, len));
  }
}

/*----------------------------------------------------------------------
 * Connections.
 */

/* The array must advertise its members' minimum block size (1 for
 * members that state none), and the test then keeps to it.
 */
static void
check_block_size (void)
{
  int64_t minimum = nbd_get_block_size (conn[0], LIBNBD_SIZE_MINIMUM);
  uint64_t want = MAX (cfg.member_min_block, 1);

  if (minimum == -1)
    die ("nbd_get_block_size: %s", nbd_get_error ());
  if ((uint64_t) MAX (minimum, 1) != want)
    fail ("the export advertises a minimum block size of %" PRId64
          ", expected %" PRIu64, minimum, want);
  align = want;
}

static void
connect_all (void)
{
  unsigned i;

  for (i = 0; i < cfg.conns; ++i) {
    int64_t size;

    conn[i] = nbd_create ();
    if (conn[i] == NULL)
      die ("nbd_create: %s", nbd_get_error ());
    if (nbd_add_meta_context (conn[i], LIBNBD_CONTEXT_BASE_ALLOCATION) == -1)
      die ("connection %u: %s", i, nbd_get_error ());
    if (nbd_connect_unix (conn[i], sockpath) == -1)
      die ("connection %u: %s", i, nbd_get_error ());
    size = nbd_get_size (conn[i]);
    if (size == -1)
      die ("connection %u: %s", i, nbd_get_error ());
    /* Every later check assumes the reference size. */
    if ((uint64_t) size != ref.size)
      die ("connection %u: the export has %" PRId64 " bytes, the "
           "reference layout has %" PRIu64, i, size, ref.size);
  }

  /* The plugin must advertise these.  A missing one is a failure, but
   * the run goes on without it to find out what else is wrong.
   */
  if (nbd_can_trim (conn[0]) == 1)
    can_op[OP_TRIM] = true;
  else
    fail ("the export does not advertise trim");
  if (nbd_can_zero (conn[0]) == 1)
    can_op[OP_ZERO] = true;
  else
    fail ("the export does not advertise zero");
  if (nbd_can_flush (conn[0]) == 1)
    can_op[OP_FLUSH] = true;
  else
    fail ("the export does not advertise flush");
  if (nbd_can_fua (conn[0]) == 1)
    can_fua = true;
  else
    fail ("the export does not advertise FUA");
  /* Without multi-conn a client may not assume that one connection sees
   * what another wrote and flushed.
   */
  if (cfg.conns > 1 && nbd_can_multi_conn (conn[0]) != 1)
    fail ("the export does not advertise multi-conn");
  /* Fast zero and block status are optional in NBD: without them we
   * just don't ask.
   */
  can_fast_zero = nbd_can_fast_zero (conn[0]) == 1;
  check_block_size ();
  can_op[OP_EXTENTS] =
    nbd_can_meta_context (conn[0], LIBNBD_CONTEXT_BASE_ALLOCATION) == 1;
  if (nbd_is_read_only (conn[0]) == 1)
    die ("the export is read-only");
}

static void
disconnect_all (void)
{
  unsigned i;

  for (i = 0; i < cfg.conns; ++i) {
    if (nbd_shutdown (conn[i], 0) == -1)
      fail ("connection %u: %s", i, nbd_get_error ());
    nbd_close (conn[i]);
    conn[i] = NULL;
  }
}

/*----------------------------------------------------------------------
 * Main.
 */

int
main (int argc, char *argv[])
{
  bool seed_given = false;
  char *nbdkit, *plugin;
  const char *tmp;
  double t0;
  uint64_t sweep_end, random_end, member_bytes = 0, i;
  char sizes[MAX_MEMBERS * 24] = "";
  unsigned m;

  /* Progress on stdout and failures on stderr stay in order in the
   * meson log.
   */
  setvbuf (stdout, NULL, _IOLBF, 0);
  parse_options (argc, argv, &seed_given);
  parse_member_via ();
  if (!seed_given) {
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    cfg.seed = splitmix64 (ts.tv_sec ^ ((uint64_t) ts.tv_nsec << 20) ^
                           getpid ());
  }
  /* xorshift must not start at zero, whatever the seed. */
  rng_state = splitmix64 (cfg.seed) | 1;

  if (refmap_init (&ref, cfg.level, cfg.chunk,
                   cfg.copies ? cfg.copies : 2, 0,
                   cfg.member.n, cfg.member.v) == -1)
    die ("these members make no RAID %" PRIu64 " array with chunk %s "
         "(too few, or smaller than a chunk)", cfg.level, cfg.chunk_str);
  if (ref.size == 0)
    die ("the array would be empty");

  for (m = 0; m < cfg.member.n; ++m) {
    char s[24];

    size_to_string (cfg.member.v[m], s, sizeof s);
    if (m)
      strcat (sizes, ",");
    strcat (sizes, s);
  }
  printf ("%s: RAID %" PRIu64 " chunk %s copies %u members %s "
          "(array %" PRIu64 " bytes) connections %" PRIu64 " depth %" PRIu64
          " ops %" PRIu64 " read-policy %s seed %" PRIu64 "\n",
          progname, cfg.level, cfg.chunk_str, ref.copies, sizes, ref.size,
          cfg.conns, cfg.depth, cfg.ops,
          cfg.read_policy ? cfg.read_policy : "(default)", cfg.seed);
  if (any_nbd_member ()) {
    printf ("%s: members via", progname);
    for (m = 0; m < cfg.member.n; ++m)
      printf ("%s%s", m ? "," : " ", via_names[member_via[m]]);
    printf ("\n");
  }
  fflush (stdout);

  if (getenv ("NBDKIT") && *getenv ("NBDKIT"))
    nbdkit = strdup (getenv ("NBDKIT"));
  else
    nbdkit = find_in_path ("nbdkit");
  if (nbdkit == NULL || access (nbdkit, X_OK) != 0) {
    printf ("%s: SKIP: nbdkit not found in $PATH\n", progname);
    exit (77);
  }
  plugin = find_plugin ();
  if (plugin == NULL)
    die ("cannot work out where the plugin is; set RAID_PLUGIN");
  if (access (plugin, R_OK) != 0)
    die ("plugin %s: %m (set RAID_PLUGIN or --plugin)", plugin);

  signal (SIGPIPE, SIG_IGN);
  signal (SIGTERM, on_signal);
  signal (SIGINT, on_signal);
  signal (SIGHUP, on_signal);

  tmp = getenv ("TMPDIR");
  if (tmp == NULL || *tmp == '\0')
    tmp = "/var/tmp";
  if (snprintf (tmpdir, sizeof tmpdir, "%s/raidsim-diff-XXXXXX", tmp)
      >= (int) sizeof tmpdir) {
    tmpdir[0] = '\0';
    die ("TMPDIR is too long for a Unix socket path: %s", tmp);
  }
  if (mkdtemp (tmpdir) == NULL) {
    tmpdir[0] = '\0';
    die ("mkdtemp: %s/raidsim-diff-XXXXXX: %m", tmp);
  }
  snprintf (sockpath, sizeof sockpath, "%s/sock", tmpdir);
  snprintf (pidpath, sizeof pidpath, "%s/pid", tmpdir);

  t0 = now ();
  model = xmalloc (ref.size);
  fill_random (model, ref.size);
  create_members ();

  start_member_servers (nbdkit);
  start_nbdkit (nbdkit, plugin);
  connect_all ();

  find_boundaries ();
  if (nzonept) {
    printf ("%s: RAID 0 zones start at array offsets 0", progname);
    for (i = 0; i < nzonept; ++i)
      printf (", %" PRIu64, zonept[i]);
    printf ("\n");
  }
  boundary_sweep ();
  sweep_end = next_seq;
  for (i = 0; i < cfg.ops && !stop_issuing; ++i)
    random_request ();
  random_end = next_seq;
  if (!stop_issuing)
    read_back ();
  drain ();

  disconnect_all ();
  stop_nbdkit ();
  stop_member_servers ();

  if (model_inexact)
    fprintf (stderr, "%s: a request that changes data failed, so the "
             "member files are not checked\n", progname);
  else
    member_bytes = check_members ();

  printf ("%s: %s: %" PRIu64 " requests (%" PRIu64 " sweep, %" PRIu64
          " random, %" PRIu64 " read-back): read %" PRIu64 " write %" PRIu64
          " trim %" PRIu64 " zero %" PRIu64 " flush %" PRIu64 " extents %"
          PRIu64 " fua %" PRIu64 " fast-zero %" PRIu64 " (refused %" PRIu64
          "); %" PRIu64 " bytes read and checked, %"
          PRIu64 " zero-extent bytes checked, %" PRIu64
          " member bytes checked; %.1f s\n",
          progname, failed ? "FAIL" : "PASS", next_seq, sweep_end,
          random_end - sweep_end, next_seq - random_end, stats.ops[OP_READ], stats.ops[OP_WRITE],
          stats.ops[OP_TRIM], stats.ops[OP_ZERO], stats.ops[OP_FLUSH],
          stats.ops[OP_EXTENTS], stats.fua, stats.fast_zero,
          stats.fast_zero_refused, stats.read_checked,
          stats.zero_extent_checked, member_bytes, now () - t0);
  if (failed)
    printf ("%s: reproduce with --seed %" PRIu64 "\n", progname, cfg.seed);

  if (cfg.keep)
    printf ("%s: member files kept in %s\n", progname, tmpdir);
  remove_temp_files ();
  refmap_free (&ref);
  free (model);
  free (rowpt);
  free (zonept);
  free (wlog);
  free (nbdkit);
  free (plugin);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
