/* raidsim tests: run an exact list of NBD requests against one export.
 *
 * Reads requests from standard input, one per line:
 *
 *   r OFFSET LENGTH     read
 *   w OFFSET LENGTH     write (a fixed pattern)
 *   z OFFSET LENGTH     write zeroes
 *   t OFFSET LENGTH     trim
 *   f                   flush
 *   p PATH              pause: wait until every request sent so far has
 *                       completed, create PATH.ready, then wait until
 *                       PATH exists before going on
 *
 * and sends them in that order over one libnbd connection, keeping up to
 * --depth of them in flight.  A pause lets a test look at the server
 * while the connection is open and a known set of requests is done.  Nothing else goes to the server: no block
 * status, no probing reads, so a test knows every request the server
 * got.  Exits 0 if every request succeeded, 1 if any failed (each
 * failure is printed), 2 on bad usage or input.
 *
 * --unaligned lets requests off the server's minimum block size go out
 * (libnbd refuses them by default).
 *
 * --stamp SEED fills each write with a byte of its own, 1 + (SEED + the
 * request's index, from 0) mod 255, instead of one pattern for all, so
 * that overlapping writes in flight together leave a trace of which
 * one landed last (tests/integration/test-overlap.sh).
 *
 * --acked FILE appends a line "OFFSET LENGTH BYTE" to FILE for every
 * write the server has acknowledged, as soon as it is (BYTE: the
 * write's stamp with --stamp, else 0), so that a test that kills the
 * server knows which writes must read back afterwards
 * (tests/integration/test-resync.sh).
 *
 * --kill-after N:PID sends SIGKILL to PID (the server) from the
 * completion of the Nth acknowledged write, while the other requests
 * (up to --depth) are still in flight: a crash at an exact point of a
 * load, which a test script polling the acked file could only approach
 * (at 100,000 writes a second, thousands land while a shell wakes up).
 *
 * Used by tests/integration/test-stats.sh and tests/integration/test-nbd-minblock.sh, which works out from the geometry what
 * member I/O these requests must cause and compares that with the
 * plugin's statistics.
 *
 * Run: printf 'r 0 4096\nw 65536 4096\n' |
 *        build/tests/lib/nbd-io --depth 8 'nbd+unix:///?socket=raid.sock'
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <libnbd.h>

#define MAX_LENGTH (32u << 20)   /* nbdkit's largest request */

struct request {
  char op;
  uint64_t offset;
  uint32_t length;
  char *path;                   /* 'p' only */
  char *stamped;                /* 'w' with --stamp: its own data */
};

static unsigned failures;
static FILE *acked;
static uint64_t nacked, kill_after;
static pid_t kill_pid;

static int
done (void *user_data, int *error)
{
  struct request *r = user_data;

  if (*error) {
    fprintf (stderr, "nbd-io: %c %" PRIu64 " %" PRIu32 ": %s\n",
             r->op, r->offset, r->length, strerror (*error));
    failures++;
  }
  else if (acked && r->op == 'w') {
    fprintf (acked, "%" PRIu64 " %" PRIu32 " %u\n", r->offset, r->length,
             r->stamped ? (unsigned char) r->stamped[0] : 0);
    fflush (acked);
  }
  if (!*error && r->op == 'w' && ++nacked == kill_after && kill_pid > 0)
    kill (kill_pid, SIGKILL);
  /* The data of a stamped write is done with once it is retired. */
  free (r->stamped);
  r->stamped = NULL;
  return 1;                     /* retire the command */
}

/* Parse standard input; returns the requests and sets *n. */
static struct request *
read_requests (size_t *n)
{
  struct request *reqs = NULL;
  size_t cap = 0, lineno = 0;
  char line[256];

  *n = 0;
  while (fgets (line, sizeof line, stdin)) {
    struct request r = { 0 };
    char op;
    int fields;

    lineno++;
    if (line[0] == '\n' || line[0] == '#')
      continue;
    fields = sscanf (line, " %c %" SCNu64 " %" SCNu32, &op, &r.offset,
                     &r.length);
    r.op = op;
    if (fields == 1 && op == 'p') {
      char path[sizeof line];
      if (sscanf (line, " p %s", path) != 1 ||
          (r.path = strdup (path)) == NULL) {
        fprintf (stderr, "nbd-io: stdin line %zu: bad pause: %s",
                 lineno, line);
        exit (2);
      }
    }
    else if (fields < 1 || strchr ("rwztf", op) == NULL ||
        (op != 'f' && (fields != 3 || r.length == 0 ||
                       r.length > MAX_LENGTH))) {
      fprintf (stderr, "nbd-io: stdin line %zu: bad request: %s",
               lineno, line);
      exit (2);
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 1024;
      reqs = realloc (reqs, cap * sizeof *reqs);
      if (reqs == NULL) {
        perror ("nbd-io: realloc");
        exit (2);
      }
    }
    reqs[(*n)++] = r;
  }
  return reqs;
}

/* The 'p' request: called with nothing in flight. */
static void
pause_at (const char *path)
{
  const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
  char *ready;
  FILE *fp;

  if (asprintf (&ready, "%s.ready", path) == -1 ||
      (fp = fopen (ready, "w")) == NULL || fclose (fp) == EOF) {
    perror ("nbd-io: pause");
    exit (1);
  }
  while (access (path, F_OK) == -1)
    nanosleep (&tick, NULL);
  free (ready);
}

static void
usage (void)
{
  fprintf (stderr, "usage: nbd-io [--depth N] [--unaligned] [--stamp SEED] "
           "[--acked FILE] [--kill-after N:PID] URI < REQUESTS\n");
  exit (2);
}

int
main (int argc, char *argv[])
{
  static const struct option long_opts[] = {
    { "depth", required_argument, NULL, 'd' },
    { "unaligned", no_argument, NULL, 'u' },
    { "stamp", required_argument, NULL, 's' },
    { "acked", required_argument, NULL, 'a' },
    { "kill-after", required_argument, NULL, 'k' },
    { "help", no_argument, NULL, 'h' },
    { NULL },
  };
  struct nbd_handle *nbd;
  struct request *reqs;
  size_t n, next = 0;
  unsigned depth = 1;
  bool unaligned = false, stamp = false;
  unsigned seed = 0;
  char *rbuf, *wbuf;
  int c;

  while ((c = getopt_long (argc, argv, "d:us:a:k:h", long_opts, NULL)) != -1) {
    switch (c) {
    case 'd':
      depth = strtoul (optarg, NULL, 10);
      if (depth < 1 || depth > 1024)
        usage ();
      break;
    case 'u':
      unaligned = true;
      break;
    case 's':
      stamp = true;
      seed = strtoul (optarg, NULL, 10);
      break;
    case 'a':
      acked = fopen (optarg, "a");
      if (acked == NULL) {
        perror (optarg);
        exit (2);
      }
      break;
    case 'k': {
      unsigned long long nth;
      long pid;
      if (sscanf (optarg, "%llu:%ld", &nth, &pid) != 2 || nth == 0 ||
          pid <= 1)
        usage ();
      kill_after = nth;
      kill_pid = pid;
      break;
    }
    default:
      usage ();
    }
  }
  if (optind != argc - 1)
    usage ();

  reqs = read_requests (&n);
  /* All reads share one buffer and all writes another: the data does
   * not matter here, only which requests reach the server.
   */
  rbuf = malloc (MAX_LENGTH);
  wbuf = malloc (MAX_LENGTH);
  if (rbuf == NULL || wbuf == NULL) {
    perror ("nbd-io: malloc");
    exit (2);
  }
  memset (wbuf, 0x5a, MAX_LENGTH);

  nbd = nbd_create ();
  /* --unaligned: send requests off the server's minimum block size
   * instead of having libnbd refuse them here, to see what the server
   * does with them.
   */
  if (nbd != NULL && unaligned &&
      nbd_set_strict_mode (nbd, nbd_get_strict_mode (nbd)
                           & ~LIBNBD_STRICT_ALIGN) == -1) {
    fprintf (stderr, "nbd-io: %s\n", nbd_get_error ());
    exit (1);
  }
  if (nbd == NULL || nbd_connect_uri (nbd, argv[optind]) == -1) {
    fprintf (stderr, "nbd-io: %s\n", nbd_get_error ());
    exit (1);
  }

  while (next < n || nbd_aio_in_flight (nbd) > 0) {
    while (next < n && (unsigned) nbd_aio_in_flight (nbd) < depth) {
      struct request *r = &reqs[next];
      nbd_completion_callback cb = { .callback = done, .user_data = r };
      int64_t cookie = -1;

      if (r->op == 'p') {
        if (nbd_aio_in_flight (nbd) > 0)
          break;                /* drain first */
        pause_at (r->path);
        next++;
        continue;
      }
      next++;
      switch (r->op) {
      case 'r':
        cookie = nbd_aio_pread (nbd, rbuf, r->length, r->offset, cb, 0);
        break;
      case 'w':
        if (stamp) {
          if ((r->stamped = malloc (r->length)) == NULL) {
            perror ("nbd-io: malloc");
            exit (2);
          }
          memset (r->stamped, 1 + (seed + next - 1) % 255, r->length);
        }
        cookie = nbd_aio_pwrite (nbd, stamp ? r->stamped : wbuf, r->length,
                                 r->offset, cb, 0);
        break;
      case 'z':
        cookie = nbd_aio_zero (nbd, r->length, r->offset, cb, 0);
        break;
      case 't':
        cookie = nbd_aio_trim (nbd, r->length, r->offset, cb, 0);
        break;
      case 'f':
        cookie = nbd_aio_flush (nbd, cb, 0);
        break;
      }
      if (cookie == -1) {
        fprintf (stderr, "nbd-io: %s\n", nbd_get_error ());
        exit (1);
      }
    }
    if (nbd_aio_in_flight (nbd) > 0 && nbd_poll (nbd, -1) == -1) {
      fprintf (stderr, "nbd-io: %s\n", nbd_get_error ());
      exit (1);
    }
  }

  if (nbd_shutdown (nbd, 0) == -1) {
    fprintf (stderr, "nbd-io: %s\n", nbd_get_error ());
    exit (1);
  }
  nbd_close (nbd);
  for (size_t i = 0; i < n; ++i)
    free (reqs[i].path);
  free (reqs);
  free (rbuf);
  free (wbuf);
  return failures ? 1 : 0;
}
