/* nbdkit-raid-plugin: members that are NBD exports.
 *
 * A member string that is an NBD URI (nbd://host:port/export,
 * nbd+unix:///export?socket=PATH, nbds..., nbd+vsock...) is served by
 * this backend, so an array can span machines: any NBD server (nbdkit,
 * qemu-nbd, nbd-server) can hold a member.
 *
 * One libnbd handle per member, opened at config time, carries every
 * member I/O of every nbdkit thread, many at once:
 *
 *   - submit issues nbd_aio_pread/pwrite/zero/trim/flush from the
 *     request's own thread with a completion callback, kicks the reader
 *     thread and returns;
 *   - one reader thread per member (started from .after_fork: threads
 *     do not survive nbdkit's fork into the background) polls the
 *     socket in whatever direction libnbd asks for, plus an eventfd
 *     that submitters write to, and drives the state machine with
 *     nbd_aio_notify_read/write;
 *   - libnbd calls the completion callbacks from whichever thread moved
 *     the state machine, and they call member_io_done.
 *
 * This is the shape of nbdkit's own nbd plugin (plugins/nbd/nbd.c), but
 * completions go straight to member_io_done instead of a semaphore that
 * the request thread waits on.
 *
 * The connection made at config time survives the fork: nbdkit's
 * parent process just exits, which closes its copy of the socket
 * without shutting the connection down, and libnbd starts no thread of
 * its own.  Keeping it (rather than probing and reconnecting after the
 * fork) means the member checked at config time is the member served,
 * and a relative socket=PATH still works after nbdkit's chdir ("/").
 *
 * libnbd runs completion callbacks with the handle's lock held, and
 * that lock is not recursive: a callback must not call nbd_* on the
 * same handle.  So an I/O that needs more than one NBD command (a write
 * split at the server's maximum size, zeroes written because the server
 * has no WRITE_ZEROES, a write followed by a flush because the server
 * has no FUA) never issues its next command from a callback: the
 * callback puts it on the member's todo list and the reader thread
 * issues it.
 *
 * Capabilities the server lacks are emulated:
 *   flush without can_flush    success: the server has no cache to flush
 *   FUA without can_fua        the command, then a flush (if can_flush)
 *   trim without can_trim      success without effect (trim is advisory)
 *   zero without can_zero      writes of zeroes, from one shared buffer
 *   fast zero without support  ENOTSUP at once, nothing written
 *
 * A member whose connection drops (server killed, network gone) fails
 * every I/O in flight and every later one with EIO, and the request
 * path treats it exactly like a file member whose I/O fails.
 *
 * Timeouts (timeout=, m->timeout_ms).  A server that stops answering
 * (stopped, wedged, a network that drops packets without a reset)
 * would otherwise hold its I/Os, and the requests waiting for them,
 * forever:
 *
 *   - The connection is made with nbd_aio_connect_uri and nbd_poll
 *     against a deadline, so that a listener that accepts but never
 *     speaks NBD fails the start with an error naming the member.
 *   - Every I/O handed to libnbd is on the member's in-flight list,
 *     oldest first, until its completion; an I/O split into several
 *     commands goes to the back of the list whenever one of them gets
 *     its reply, so that its time counts from its last reply.  The
 *     reader thread sleeps no longer than the deadline of the
 *     list's first; past it, it shuts the
 *     socket down (shutdown (2), not close: the fd stays libnbd's).
 *     libnbd then reads end-of-file, moves to DEAD and retires every
 *     command it holds through its completion callback, as it does when
 *     a server dies, and those I/Os fail with ETIMEDOUT; so do all later
 *     ones.  Neither the reader nor anything else ever completes an I/O
 *     that libnbd still holds: its buffer is given back only by libnbd's
 *     own callback, after libnbd has let go of the command, so no late
 *     reply can land in a buffer that was freed.
 *   - A block status (extents) waits the same time, then drops the
 *     connection the same way.
 */

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#include <libnbd.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "member.h"
#include "stats.h"

/* -D raid.nbd=1 logs each NBD member's connection, the reader thread
 * starting and stopping, and libnbd's own debug messages.
 */
NBDKIT_DLL_PUBLIC int raid_debug_nbd = 0;

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* The NBD spec asks clients to keep reads and writes to 32M when the
 * server states no maximum; libnbd refuses anything above 64M.
 */
#define DEFAULT_MAX_DATA (32u << 20)
#define LIBNBD_MAX_DATA (64u << 20)

/* Trim and zero carry a 32 bit length on the wire.  A power of two keeps
 * the pieces aligned however the server counts.
 */
#define MAX_EFFECT (UINT32_C (1) << 30)

/* Commands one split I/O keeps in flight at a time, so that zeroing 4G
 * by writing does not queue four thousand writes at once.
 */
#define WINDOW 16

/* How long close waits for the server to acknowledge the disconnect. */
#define CLOSE_TIMEOUT_MS 5000

/* Zeroes for servers without WRITE_ZEROES.  Not const, so that it sits
 * in .bss rather than adding 1M to the plugin file; never written, so
 * every page of it stays the kernel's shared zero page.
 */
static char zero_buf[1 << 20];

struct nbd_req;

struct nbd_priv {
  struct member *m;
  struct nbd_handle *nbd;

  /* What the connection offers, from the handshake. */
  bool can_flush, can_fua, can_trim, can_zero, can_fast_zero;
  bool base_allocation;
  uint64_t max_data;            /* largest read or write per command */

  /* The reader thread, once start has run. */
  bool started;
  pthread_t reader;
  int wake_fd;                  /* eventfd: new commands, todo, stop */
  atomic_bool stopping;

  /* Split I/Os whose next commands the reader thread must issue. */
  pthread_mutex_t todo_lock;
  struct nbd_req *todo;

  /* The I/Os libnbd holds, oldest first, linked through q_next and
   * q_prev, for the timeout; and whether the connection was dropped
   * because one of them (or a block status) took too long.
   */
  pthread_mutex_t track_lock;
  struct member_io *track_first, *track_last;
  atomic_bool timed_out;
};

/* An I/O that takes more than one NBD command.  Single-command I/Os, by
 * far the most common, need none of this: their callback gets the
 * member_io itself.
 */
struct nbd_req {
  struct member_io *io;
  struct nbd_priv *np;
  struct nbd_req *next;         /* on np->todo */
  uint64_t cursor;              /* bytes of io issued so far */
  uint64_t step;                /* bytes per command */
  uint32_t cmd_flags;
  bool write_zeroes;            /* MOP_ZERO done as writes of zero_buf */
  bool flush_after;             /* FUA done as a flush at the end */
  bool flush_issued;
  /* Commands in flight, plus one while a thread is issuing.  Whoever
   * takes it to zero decides what happens next, so exactly one thread
   * does.
   */
  atomic_uint refs;
  atomic_int err;               /* the first error, or 0 */
};

static bool
nbdm_claims (const char *name)
{
  static const char *const schemes[] = {
    "nbd://", "nbds://", "nbd+unix://", "nbds+unix://",
    "nbd+vsock://", "nbds+vsock://",
  };
  size_t i;

  for (i = 0; i < sizeof schemes / sizeof schemes[0]; ++i)
    if (strncmp (name, schemes[i], strlen (schemes[i])) == 0)
      return true;
  return false;
}

/* A dropped connection shows up as ENOTCONN (libnbd's verdict on the
 * commands it aborts), or as the socket's own error.  The request path
 * and the client expect EIO from a member that has gone.
 */
static bool
is_connection_error (int err)
{
  return err == ENOTCONN || err == ESHUTDOWN || err == ECONNRESET ||
    err == ECONNABORTED || err == EPIPE || err == ETIMEDOUT;
}

/* ETIMEDOUT once the connection was dropped for taking too long. */
static int
map_error (struct nbd_priv *np, int err)
{
  if (!is_connection_error (err))
    return err;
  return atomic_load (&np->timed_out) ? ETIMEDOUT : EIO;
}

/* The errno for a command libnbd refused to queue.  Not for use in a
 * callback: it calls nbd_aio_is_dead on the handle.
 */
static int
refused_errno (struct nbd_priv *np)
{
  int err = nbd_get_errno ();

  if (nbd_aio_is_dead (np->nbd) || nbd_aio_is_closed (np->nbd))
    return map_error (np, ENOTCONN);
  if (raid_debug_nbd)
    nbdkit_debug ("raid: member %u (%s): %s", np->m->index, np->m->name,
                  nbd_get_error ());
  return err ? map_error (np, err) : EIO;
}

/* Wake the reader thread: libnbd may now want to write, or there is
 * work on the todo list.
 */
static void
kick (struct nbd_priv *np)
{
  uint64_t one = 1;

  if (write (np->wake_fd, &one, sizeof one) == -1 && errno != EAGAIN)
    nbdkit_debug ("raid: member %s: eventfd write: %m", np->m->name);
}

/*----------------------------------------------------------------------
 * Timeouts (see the top of the file).
 */

/* timeout=, as the user would write it, for messages. */
static const char *
timeout_str (unsigned ms, char *buf, size_t n)
{
  if (ms % 1000 == 0)
    snprintf (buf, n, "%us", ms / 1000);
  else
    snprintf (buf, n, "%ums", ms);
  return buf;
}

/* Give up on the connection: shut its socket down, so that libnbd
 * fails everything it holds (through the callbacks) as soon as the
 * reader next drives it.  what says what took too long.  Not for use
 * in a libnbd callback (it calls nbd_aio_get_fd).
 */
static void
drop_hung (struct nbd_priv *np, const char *what)
{
  char t[32];
  int fd;

  if (atomic_exchange (&np->timed_out, true))
    return;
  nbdkit_error ("member %u (%s): %s had no reply within %s (timeout=): "
                "the connection is dropped, and every I/O to this member "
                "fails with ETIMEDOUT from now on", np->m->index,
                np->m->name, what,
                timeout_str (np->m->timeout_ms, t, sizeof t));
  fd = nbd_aio_get_fd (np->nbd);
  if (fd >= 0 && shutdown (fd, SHUT_RDWR) == -1)
    nbdkit_debug ("raid: member %s: shutdown: %m", np->m->name);
  kick (np);
}

/* io is about to be handed to libnbd: it is the newest in flight. */
static void
track_add (struct nbd_priv *np, struct member_io *io)
{
  pthread_mutex_lock (&np->track_lock);
  io->progress_ns = stats_now_ns ();
  io->q_next = NULL;
  io->q_prev = np->track_last;
  if (np->track_last)
    np->track_last->q_next = io;
  else
    np->track_first = io;
  np->track_last = io;
  pthread_mutex_unlock (&np->track_lock);
}

/* libnbd has let go of io (or never took it). */
static void
track_remove (struct nbd_priv *np, struct member_io *io)
{
  pthread_mutex_lock (&np->track_lock);
  if (io->q_prev)
    io->q_prev->q_next = io->q_next;
  else
    np->track_first = io->q_next;
  if (io->q_next)
    io->q_next->q_prev = io->q_prev;
  else
    np->track_last = io->q_prev;
  io->q_next = io->q_prev = NULL;
  pthread_mutex_unlock (&np->track_lock);
}

/* One command of io got its reply: its time starts again, so it goes
 * to the back of the list, where every other I/O started earlier.
 */
static void
track_touch (struct nbd_priv *np, struct member_io *io)
{
  pthread_mutex_lock (&np->track_lock);
  io->progress_ns = stats_now_ns ();
  if (np->track_last != io) {
    if (io->q_prev)
      io->q_prev->q_next = io->q_next;
    else
      np->track_first = io->q_next;
    io->q_next->q_prev = io->q_prev;
    io->q_next = NULL;
    io->q_prev = np->track_last;
    np->track_last->q_next = io;
    np->track_last = io;
  }
  pthread_mutex_unlock (&np->track_lock);
}

/* The reader's check: drop the connection if the oldest I/O in flight
 * is past its deadline.  Returns how many milliseconds the reader may
 * sleep before it must look again, or -1 for as long as it likes.
 */
static int
check_deadline (struct nbd_priv *np)
{
  uint64_t limit = (uint64_t) np->m->timeout_ms * 1000000, now, age;
  struct member_io *oldest;
  int left = -1;

  if (limit == 0 || atomic_load (&np->timed_out))
    return -1;
  now = stats_now_ns ();
  pthread_mutex_lock (&np->track_lock);
  /* The list holds only I/Os that are not done, and an io is not freed
   * before it is done: reading it under the lock is safe.
   */
  oldest = np->track_first;
  if (oldest) {
    age = now > oldest->progress_ns ? now - oldest->progress_ns : 0;
    if (age < limit)
      left = (limit - age + 999999) / 1000000;
  }
  pthread_mutex_unlock (&np->track_lock);
  if (oldest && left == -1) {
    drop_hung (np, "an I/O");
    return -1;
  }
  return left;
}

/* Connect and shake hands, within timeout_ms if it is not 0.  Returns
 * 0, or -1 after an error naming the member.
 */
static int
connect_member (struct member *m, struct nbd_priv *np)
{
  uint64_t deadline = 0;
  char t[32];

  if (nbd_aio_connect_uri (np->nbd, m->name) == -1) {
    nbdkit_error ("member: %s: %s", m->name, nbd_get_error ());
    return -1;
  }
  if (m->timeout_ms)
    deadline = stats_now_ns () + (uint64_t) m->timeout_ms * 1000000;
  while (nbd_aio_is_connecting (np->nbd)) {
    int wait = -1;

    if (deadline) {
      uint64_t now = stats_now_ns ();
      const char *state = nbd_connection_state (np->nbd);

      if (now >= deadline) {
        timeout_str (m->timeout_ms, t, sizeof t);
        if (state && strncmp (state, "CONNECT", 7) == 0)
          nbdkit_error ("member: %s: could not connect within %s "
                        "(timeout=)", m->name, t);
        else
          nbdkit_error ("member: %s: connected, but no NBD handshake "
                        "within %s (timeout=): is an NBD server "
                        "listening there?", m->name, t);
        return -1;
      }
      wait = (deadline - now + 999999) / 1000000;
    }
    if (nbd_poll (np->nbd, wait) == -1) {
      nbdkit_error ("member: %s: %s", m->name, nbd_get_error ());
      return -1;
    }
  }
  if (!nbd_aio_is_ready (np->nbd)) {
    nbdkit_error ("member: %s: the NBD handshake failed (%s)", m->name,
                  nbd_connection_state (np->nbd));
    return -1;
  }
  return 0;
}

/*----------------------------------------------------------------------
 * Identity: the same export must not be given twice, however it is
 * spelled (localhost or 127.0.0.1, a relative or absolute socket path).
 */

/* The socket=PATH parameter of an nbd+unix URI, percent-decoded. */
static char *
uri_socket_param (const char *uri)
{
  const char *q = strchr (uri, '?');
  char *out, *o;

  while (q != NULL) {
    const char *p = q + 1, *end = p + strcspn (p, "&;#");

    if (strncmp (p, "socket=", 7) == 0) {
      p += 7;
      out = o = malloc (end - p + 1);
      if (out == NULL)
        return NULL;
      while (p < end) {
        unsigned v;
        if (*p == '%' && end - p >= 3 && sscanf (p + 1, "%2x", &v) == 1) {
          *o++ = v;
          p += 3;
        }
        else
          *o++ = *p++;
      }
      *o = '\0';
      return out;
    }
    q = *end == '&' || *end == ';' ? end : NULL;
  }
  return NULL;
}

/* "nbd:TRANSPORT:ADDRESS/EXPORT", where ADDRESS is the peer as the
 * kernel sees it (a numeric TCP address, a socket file's device and
 * inode, a vsock CID), never the spelling in the URI.
 */
static char *
make_identity (struct nbd_priv *np)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  char addr[NI_MAXHOST + NI_MAXSERV + 64];
  char *export = NULL, *id = NULL;
  int fd;

  fd = nbd_aio_get_fd (np->nbd);
  if (fd == -1 || getpeername (fd, (struct sockaddr *) &ss, &len) == -1) {
    /* Fall back on the URI as written. */
    snprintf (addr, sizeof addr, "uri:%s", np->m->name);
    goto out;
  }

  switch (ss.ss_family) {
  case AF_INET6: {
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &ss;

    /* ::ffff:127.0.0.1 and 127.0.0.1 are the same peer. */
    if (IN6_IS_ADDR_V4MAPPED (&s6->sin6_addr)) {
      struct sockaddr_in s4 = {
        .sin_family = AF_INET, .sin_port = s6->sin6_port,
      };
      memcpy (&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
      memcpy (&ss, &s4, sizeof s4);
      len = sizeof s4;
    }
  }
    /* fallthrough */
  case AF_INET: {
    char host[NI_MAXHOST], serv[NI_MAXSERV];

    if (getnameinfo ((struct sockaddr *) &ss, len, host, sizeof host,
                     serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
      snprintf (addr, sizeof addr, "uri:%s", np->m->name);
    else
      snprintf (addr, sizeof addr, "tcp:[%s]:%s", host, serv);
    break;
  }

  case AF_UNIX: {
    char *path = uri_socket_param (np->m->name);
    struct stat st;

    if (path && stat (path, &st) == 0)
      snprintf (addr, sizeof addr, "unix:%ju:%ju",
                (uintmax_t) st.st_dev, (uintmax_t) st.st_ino);
    else {
      struct sockaddr_un *sun = (struct sockaddr_un *) &ss;
      snprintf (addr, sizeof addr, "unix:%.*s",
                (int) sizeof sun->sun_path, sun->sun_path);
    }
    free (path);
    break;
  }

  case AF_VSOCK: {
    struct sockaddr_vm *svm = (struct sockaddr_vm *) &ss;

    snprintf (addr, sizeof addr, "vsock:%u:%u", svm->svm_cid, svm->svm_port);
    break;
  }

  default:
    snprintf (addr, sizeof addr, "uri:%s", np->m->name);
    break;
  }

 out:
  export = nbd_get_export_name (np->nbd);
  if (asprintf (&id, "nbd:%s/%s", addr, export ? export : "") == -1)
    id = NULL;
  free (export);
  return id;
}

/*----------------------------------------------------------------------
 * Opening and closing.
 */

static int
debug_cb (void *user_data, const char *context, const char *msg)
{
  struct nbd_priv *np = user_data;

  /* Called with the handle lock held: nbdkit_debug only. */
  nbdkit_debug ("raid: member %u: libnbd: %s: %s", np->m->index, context,
                msg);
  return 0;
}

/* Read a capability: 1 yes, 0 no, -1 error (which we take as no). */
static bool
cap (int r)
{
  return r == 1;
}

static int
nbdm_open (struct member *m)
{
  struct nbd_priv *np;
  int64_t size, minimum, maximum;
  char name[32];

  np = calloc (1, sizeof *np);
  if (np == NULL) {
    nbdkit_error ("calloc: %m");
    return -1;
  }
  m->priv = np;
  np->m = m;
  np->wake_fd = -1;
  pthread_mutex_init (&np->todo_lock, NULL);
  pthread_mutex_init (&np->track_lock, NULL);

  np->nbd = nbd_create ();
  if (np->nbd == NULL) {
    nbdkit_error ("member: %s: %s", m->name, nbd_get_error ());
    return -1;
  }
  snprintf (name, sizeof name, "raid-member-%u", m->index);
  nbd_set_handle_name (np->nbd, name);
  if (raid_debug_nbd) {
    nbd_set_debug_callback (np->nbd, (nbd_debug_callback) {
        .callback = debug_cb, .user_data = np });
    nbd_set_debug (np->nbd, true);
  }
  if (!nbd_supports_uri (np->nbd)) {
    nbdkit_error ("member: %s: this libnbd was built without NBD URI "
                  "support", m->name);
    return -1;
  }
  /* Whoever runs nbdkit wrote the URI, so its tls-certificates= and
   * tls-psk-file= may name local files.
   */
  if (nbd_set_uri_allow_local_file (np->nbd, true) == -1 ||
      nbd_add_meta_context (np->nbd, LIBNBD_CONTEXT_BASE_ALLOCATION) == -1) {
    nbdkit_error ("member: %s: %s", m->name, nbd_get_error ());
    return -1;
  }
  if (connect_member (m, np) == -1)
    return -1;

  size = nbd_get_size (np->nbd);
  if (size == -1) {
    nbdkit_error ("member: %s: %s", m->name, nbd_get_error ());
    return -1;
  }
  m->size = size;
  m->read_only = cap (nbd_is_read_only (np->nbd));
  if (m->read_only)
    member_warning (m, "its server exports it read-only, so the whole "
                    "array is served read-only");
  np->can_flush = cap (nbd_can_flush (np->nbd));
  np->can_fua = cap (nbd_can_fua (np->nbd));
  np->can_trim = cap (nbd_can_trim (np->nbd));
  np->can_zero = cap (nbd_can_zero (np->nbd));
  np->can_fast_zero = np->can_zero && cap (nbd_can_fast_zero (np->nbd));
  np->base_allocation =
    cap (nbd_can_meta_context (np->nbd, LIBNBD_CONTEXT_BASE_ALLOCATION));
  /* The member's own capabilities, for the array to weigh; this
   * backend emulates whichever are missing.
   */
  m->can_flush = np->can_flush;
  m->can_fua = np->can_fua;
  m->can_trim = np->can_trim;
  m->can_zero = np->can_zero;
  /* A mirror whose copies disagree about fast zero could zero one copy
   * and refuse on the other: have the array refuse up front instead.
   */
  atomic_store (&m->no_fast_zero, !np->can_fast_zero);

  /* A server that wants aligned requests gets them: the array
   * advertises the largest minimum of its members and refuses requests
   * not aligned to it (raid.c), and since chunks are multiples of it
   * every member I/O is aligned too.  The NBD protocol only allows
   * powers of two up to 64K, so anything else is a broken server.
   */
  minimum = nbd_get_block_size (np->nbd, LIBNBD_SIZE_MINIMUM);
  if (minimum > 1) {
    if (minimum > 65536 || (minimum & (minimum - 1)) != 0) {
      nbdkit_error ("member: %s: the server's minimum block size %" PRId64
                    " is not a power of two up to 64K", m->name, minimum);
      return -1;
    }
    if (m->size % minimum != 0) {
      nbdkit_error ("member: %s: the export's size %" PRIu64 " is not a "
                    "multiple of its minimum block size %" PRId64,
                    m->name, m->size, minimum);
      return -1;
    }
    m->min_block = minimum;
  }
  maximum = nbd_get_block_size (np->nbd, LIBNBD_SIZE_MAXIMUM);
  np->max_data = maximum > 0 ? MIN ((uint64_t) maximum, LIBNBD_MAX_DATA)
                             : DEFAULT_MAX_DATA;

  m->identity = make_identity (np);
  if (m->identity == NULL) {
    nbdkit_error ("member: %s: %m", m->name);
    return -1;
  }

  nbdkit_debug ("raid: member %u: %s: NBD export of %" PRIu64 " bytes%s, "
                "flush %d, fua %d, trim %d, zero %d, fast zero %d, "
                "base:allocation %d, min block %" PRIu32
                ", max request %" PRIu64 ", identity %s",
                m->index, m->name, m->size,
                m->read_only ? " (read-only)" : "", np->can_flush,
                np->can_fua, np->can_trim, np->can_zero, np->can_fast_zero,
                np->base_allocation, m->min_block, np->max_data,
                m->identity);
  return 0;
}

static void *reader (void *arg);

/* From .after_fork: the reader thread cannot be started earlier. */
static int
nbdm_start (struct member *m)
{
  struct nbd_priv *np = m->priv;
  int err;

  m->engine = "nbd";
  np->wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (np->wake_fd == -1) {
    nbdkit_error ("member: %s: eventfd: %m", m->name);
    return -1;
  }
  err = pthread_create (&np->reader, NULL, reader, np);
  if (err) {
    errno = err;
    nbdkit_error ("member: %s: pthread_create: %m", m->name);
    return -1;
  }
  /* A connection lost since config time is reported by the reader,
   * and the member then fails like one that drops later.
   */
  np->started = true;
  return 0;
}

static void
nbdm_close (struct member *m)
{
  struct nbd_priv *np = m->priv;

  if (np == NULL)
    return;
  if (np->nbd) {
    if (np->started) {
      /* The reader sends the disconnect and sees the server close.
       * stopping first: the server may hang up before
       * nbd_aio_disconnect returns, and the reader must not take that
       * for a lost connection.
       */
      atomic_store (&np->stopping, true);
      if (nbd_aio_is_ready (np->nbd) &&
          nbd_aio_disconnect (np->nbd, 0) == -1)
        nbdkit_debug ("raid: member %s: %s", m->name, nbd_get_error ());
      kick (np);
      pthread_join (np->reader, NULL);
    }
    else if (nbd_aio_is_ready (np->nbd))
      /* No reader thread: a synchronous polite goodbye. */
      nbd_shutdown (np->nbd, 0);
    nbd_close (np->nbd);
  }
  if (np->wake_fd >= 0)
    close (np->wake_fd);
  pthread_mutex_destroy (&np->todo_lock);
  pthread_mutex_destroy (&np->track_lock);
  free (np);
  m->priv = NULL;
}

/*----------------------------------------------------------------------
 * I/O.
 */

/* Completion of a single-command I/O.  Runs with the handle lock held,
 * in the reader thread or in whichever thread moved the state machine.
 */
static int
single_done (void *user_data, int *error)
{
  struct member_io *io = user_data;
  struct nbd_priv *np = io->member->priv;

  track_remove (np, io);
  member_io_done (io, map_error (np, *error));
  return 1;                     /* retire the command */
}

static void
finish (struct nbd_req *req)
{
  struct member_io *io = req->io;
  struct nbd_priv *np = req->np;
  int err = atomic_load (&req->err);

  err = map_error (np, err);
  free (req);
  track_remove (np, io);
  member_io_done (io, err);
}

static void
set_error (struct nbd_req *req, int err)
{
  int zero = 0;

  atomic_compare_exchange_strong (&req->err, &zero, err ? err : EIO);
}

static bool
more_to_issue (struct nbd_req *req)
{
  if (atomic_load (&req->err))
    return false;
  return req->cursor < req->io->length ||
    (req->flush_after && !req->flush_issued);
}

static void
enqueue (struct nbd_req *req)
{
  struct nbd_priv *np = req->np;

  pthread_mutex_lock (&np->todo_lock);
  req->next = np->todo;
  np->todo = req;
  pthread_mutex_unlock (&np->todo_lock);
  kick (np);
}

/* Completion of one command of a split I/O.  Runs with the handle lock
 * held, so it may not issue the next command itself.
 */
static int
piece_done (void *user_data, int *error)
{
  struct nbd_req *req = user_data;

  if (*error)
    set_error (req, *error);
  else
    track_touch (req->np, req->io);
  if (atomic_fetch_sub (&req->refs, 1) == 1) {
    if (!more_to_issue (req))
      finish (req);
    else {
      atomic_store (&req->refs, 1);
      enqueue (req);
    }
  }
  return 1;
}

static int64_t
issue_piece (struct nbd_req *req, uint64_t off, uint64_t n)
{
  struct member_io *io = req->io;
  struct nbd_handle *nbd = req->np->nbd;
  nbd_completion_callback cb = { .callback = piece_done, .user_data = req };
  uint64_t member_offset = io->offset + off;

  switch (io->op) {
  case MOP_READ:
    return nbd_aio_pread (nbd, (char *) io->buf + off, n, member_offset,
                          cb, 0);
  case MOP_WRITE:
    return nbd_aio_pwrite (nbd, (const char *) io->buf + off, n,
                           member_offset, cb, req->cmd_flags);
  case MOP_ZERO:
    if (req->write_zeroes)
      return nbd_aio_pwrite (nbd, zero_buf, n, member_offset, cb,
                             req->cmd_flags);
    return nbd_aio_zero (nbd, n, member_offset, cb, req->cmd_flags);
  case MOP_TRIM:
    return nbd_aio_trim (nbd, n, member_offset, cb, req->cmd_flags);
  case MOP_FLUSH:
    break;
  }
  abort ();
}

/* Issue the next window of commands of req.  The caller holds one of
 * req's refs; not for use inside a libnbd callback.
 */
static void
advance (struct nbd_req *req)
{
  struct nbd_priv *np = req->np;

  for (;;) {
    unsigned issued = 0;

    while (!atomic_load (&req->err) && issued < WINDOW) {
      int64_t cookie;

      if (req->cursor < req->io->length) {
        uint64_t n = MIN (req->step, req->io->length - req->cursor);

        atomic_fetch_add (&req->refs, 1);
        cookie = issue_piece (req, req->cursor, n);
        if (cookie == -1) {
          atomic_fetch_sub (&req->refs, 1);
          set_error (req, refused_errno (np));
          break;
        }
        req->cursor += n;
      }
      /* The flush that stands in for FUA goes out only once every
       * write it covers has completed: only our own ref is left.
       */
      else if (req->flush_after && !req->flush_issued &&
               atomic_load (&req->refs) == 1) {
        atomic_fetch_add (&req->refs, 1);
        cookie = nbd_aio_flush (np->nbd, (nbd_completion_callback) {
            .callback = piece_done, .user_data = req }, 0);
        if (cookie == -1) {
          atomic_fetch_sub (&req->refs, 1);
          set_error (req, refused_errno (np));
          break;
        }
        req->flush_issued = true;
      }
      else
        break;
      issued++;
    }
    if (issued)
      kick (np);
    if (atomic_fetch_sub (&req->refs, 1) != 1)
      return;                   /* the last completion carries on */
    /* Everything issued so far has completed. */
    if (!more_to_issue (req)) {
      finish (req);
      return;
    }
    atomic_store (&req->refs, 1);
  }
}

/* One NBD command for the whole I/O: the common case. */
static int
submit_single (struct nbd_priv *np, struct member_io *io, uint32_t flags)
{
  nbd_completion_callback cb = { .callback = single_done, .user_data = io };
  int64_t cookie = -1;

  track_add (np, io);
  switch (io->op) {
  case MOP_READ:
    cookie = nbd_aio_pread (np->nbd, io->buf, io->length, io->offset, cb, 0);
    break;
  case MOP_WRITE:
    cookie = nbd_aio_pwrite (np->nbd, io->buf, io->length, io->offset, cb,
                             flags);
    break;
  case MOP_ZERO:
    cookie = nbd_aio_zero (np->nbd, io->length, io->offset, cb, flags);
    break;
  case MOP_TRIM:
    cookie = nbd_aio_trim (np->nbd, io->length, io->offset, cb, flags);
    break;
  case MOP_FLUSH:
    cookie = nbd_aio_flush (np->nbd, cb, 0);
    break;
  }
  /* From here on io may already be complete and gone: the callback can
   * run before nbd_aio_* returns.
   */
  if (cookie == -1) {
    int err = refused_errno (np);

    track_remove (np, io);
    errno = err;
    return -1;
  }
  kick (np);
  return 0;
}

static int
nbdm_submit (struct member *m, struct member_io *io)
{
  struct nbd_priv *np = m->priv;
  bool fua = io->flags & MIO_FUA;
  bool write_zeroes = false, flush_after = false;
  uint64_t step = MAX_EFFECT;
  uint32_t flags = 0;
  struct nbd_req *req;

  switch (io->op) {
  case MOP_READ:
    step = np->max_data;
    fua = false;
    break;
  case MOP_WRITE:
    step = np->max_data;
    break;
  case MOP_ZERO:
    if (io->flags & MIO_FAST) {
      /* The client asked to be told rather than wait for a slow zero. */
      if (!np->can_fast_zero) {
        member_io_done (io, ENOTSUP);
        return 0;
      }
      flags |= LIBNBD_CMD_FLAG_FAST_ZERO;
    }
    if (!np->can_zero) {
      write_zeroes = true;
      step = MIN (np->max_data, sizeof zero_buf);
    }
    else if (!(io->flags & MIO_MAY_TRIM))
      flags |= LIBNBD_CMD_FLAG_NO_HOLE;
    break;
  case MOP_TRIM:
    /* Trim is advisory: data that stays is allowed, and nothing changed
     * means nothing to make durable.
     */
    if (!np->can_trim) {
      member_io_done (io, 0);
      return 0;
    }
    break;
  case MOP_FLUSH:
    if (!np->can_flush) {
      member_io_done (io, 0);
      return 0;
    }
    return submit_single (np, io, 0);
  }

  if (io->length == 0) {        /* libnbd refuses empty commands */
    member_io_done (io, 0);
    return 0;
  }
  if (fua) {
    if (np->can_fua)
      flags |= LIBNBD_CMD_FLAG_FUA;
    else
      /* Without a flush either, the server offers no durability
       * control at all: its writes are as durable as they get.
       */
      flush_after = np->can_flush;
  }

  if (io->length <= step && !write_zeroes && !flush_after)
    return submit_single (np, io, flags);

  req = calloc (1, sizeof *req);
  if (req == NULL)
    return -1;
  req->io = io;
  req->np = np;
  req->step = step;
  req->cmd_flags = write_zeroes ? flags & LIBNBD_CMD_FLAG_FUA : flags;
  req->write_zeroes = write_zeroes;
  req->flush_after = flush_after;
  atomic_init (&req->refs, 1);
  atomic_init (&req->err, 0);
  io->backend_priv = req;
  track_add (np, io);
  advance (req);
  return 0;
}

/*----------------------------------------------------------------------
 * The reader thread.
 */

static void *
reader (void *arg)
{
  struct nbd_priv *np = arg;
  bool logged_lost = false;
  struct timespec deadline = { 0 };

  if (raid_debug_nbd)
    nbdkit_debug ("raid: member %u: reader thread started", np->m->index);

  for (;;) {
    struct nbd_req *list, *next;
    struct pollfd fds[2] = { { .fd = np->wake_fd, .events = POLLIN } };
    nfds_t nfds = 1;
    int timeout = -1, r;
    bool alive, stopping = atomic_load (&np->stopping);

    /* Commands that completions could not issue themselves.  With the
     * connection gone they fail at once, which finishes their I/O.
     */
    pthread_mutex_lock (&np->todo_lock);
    list = np->todo;
    np->todo = NULL;
    pthread_mutex_unlock (&np->todo_lock);
    for (; list != NULL; list = next) {
      next = list->next;
      advance (list);
    }

    /* libnbd has already failed every command in flight with ENOTCONN
     * when it moved to DEAD; say once why the member's I/O fails now.
     */
    alive = !nbd_aio_is_dead (np->nbd) && !nbd_aio_is_closed (np->nbd);
    if (atomic_load (&np->timed_out))
      logged_lost = true;       /* drop_hung said why */
    if (!alive && !logged_lost && !stopping) {
      logged_lost = true;
      nbdkit_error ("member %u (%s): the NBD connection is lost; every "
                    "I/O to it fails from now on", np->m->index,
                    np->m->name);
    }

    /* Stopping: close has sent NBD_CMD_DISC; wait (a while) for the
     * server to hang up, so that it sees a clean disconnect.
     */
    if (stopping) {
      struct timespec now;

      if (!alive)
        break;
      clock_gettime (CLOCK_MONOTONIC, &now);
      if (deadline.tv_sec == 0) {
        deadline = now;
        deadline.tv_sec += CLOSE_TIMEOUT_MS / 1000;
      }
      timeout = (deadline.tv_sec - now.tv_sec) * 1000 +
        (deadline.tv_nsec - now.tv_nsec) / 1000000;
      if (timeout <= 0) {
        nbdkit_debug ("raid: member %s: the server did not hang up after "
                      "the disconnect", np->m->name);
        break;
      }
    }

    /* Sleep no longer than the oldest I/O's deadline. */
    if (alive && !stopping) {
      int left = check_deadline (np);

      if (left >= 0 && (timeout < 0 || left < timeout))
        timeout = left;
    }

    if (alive) {
      unsigned dir = nbd_aio_get_direction (np->nbd);
      int fd = nbd_aio_get_fd (np->nbd);

      /* With no direction, POLLHUP would wake us for nothing, forever. */
      if (fd >= 0 && dir != 0) {
        fds[1].fd = fd;
        fds[1].events = 0;
        if (dir & LIBNBD_AIO_DIRECTION_READ)
          fds[1].events |= POLLIN;
        if (dir & LIBNBD_AIO_DIRECTION_WRITE)
          fds[1].events |= POLLOUT;
        nfds = 2;
      }
    }

    r = poll (fds, nfds, timeout);
    if (r == -1) {
      if (errno != EINTR)
        nbdkit_error ("member %s: poll: %m", np->m->name);
      continue;
    }

    if (nfds == 2 && fds[1].revents) {
      unsigned dir = nbd_aio_get_direction (np->nbd);

      r = 0;
      if ((dir & LIBNBD_AIO_DIRECTION_READ) &&
          (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
        r = nbd_aio_notify_read (np->nbd);
      else if ((dir & LIBNBD_AIO_DIRECTION_WRITE) &&
               (fds[1].revents & (POLLOUT | POLLHUP | POLLERR)))
        r = nbd_aio_notify_write (np->nbd);
      if (r == -1 && atomic_load (&np->timed_out))
        logged_lost = true;
      if (r == -1 && !logged_lost && !atomic_load (&np->stopping)) {
        logged_lost = true;
        nbdkit_error ("member %u (%s): the NBD connection is lost: %s; "
                      "every I/O to it fails from now on", np->m->index,
                      np->m->name, nbd_get_error ());
      }
    }
    if (fds[0].revents & POLLIN) {
      uint64_t v;
      if (read (np->wake_fd, &v, sizeof v) == -1 && errno != EAGAIN)
        nbdkit_debug ("raid: member %s: eventfd read: %m", np->m->name);
    }
  }

  if (raid_debug_nbd)
    nbdkit_debug ("raid: member %u: reader thread exits (%s)", np->m->index,
                  nbd_connection_state (np->nbd));
  return NULL;
}

/*----------------------------------------------------------------------
 * Extents.
 */

struct status_wait {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool done, have;
  int err;
  uint64_t offset;
  bool hole;
  uint64_t end;
};

/* A member byte is a hole for the array only where it reads as zeroes
 * too: HOLE alone would leave its contents unspecified.
 */
static bool
is_hole (uint32_t flags)
{
  return (flags & (LIBNBD_STATE_HOLE | LIBNBD_STATE_ZERO)) ==
    (LIBNBD_STATE_HOLE | LIBNBD_STATE_ZERO);
}

static int
status_extent (void *user_data, const char *metacontext, uint64_t offset,
               uint32_t *entries, size_t nr_entries, int *error)
{
  struct status_wait *w = user_data;
  uint64_t end = offset;
  size_t i;
  bool hole;

  if (strcmp (metacontext, LIBNBD_CONTEXT_BASE_ALLOCATION) != 0 ||
      *error || w->have || nr_entries < 2 || offset != w->offset)
    return 0;
  hole = is_hole (entries[1]);
  /* Runs of the same state may come as several extents. */
  for (i = 0; i + 1 < nr_entries && is_hole (entries[i + 1]) == hole; i += 2)
    end += entries[i];
  w->have = true;
  w->hole = hole;
  w->end = end;
  return 0;
}

static int
status_done (void *user_data, int *error)
{
  struct status_wait *w = user_data;

  /* The waiter may free w the moment it sees done: signal under the
   * lock and touch nothing after.
   */
  pthread_mutex_lock (&w->lock);
  w->err = *error;
  w->done = true;
  pthread_cond_signal (&w->cond);
  pthread_mutex_unlock (&w->lock);
  return 1;
}

/* Block status is asynchronous like everything else: the synchronous
 * nbd_block_status would hold the handle lock while it waits, stalling
 * every other member I/O behind it.
 */
static int
nbdm_hole (struct member *m, uint64_t member_offset, uint64_t limit,
          uint64_t *end)
{
  struct nbd_priv *np = m->priv;
  struct status_wait w = { .offset = member_offset };
  pthread_condattr_t ca;
  uint64_t count;
  int64_t cookie;
  int hole = 0;

  *end = limit;
  if (!np->base_allocation || member_offset >= limit ||
      member_offset >= m->size)
    return 0;
  count = MIN (limit, m->size) - member_offset;
  count = MIN (count, MAX_EFFECT);

  pthread_mutex_init (&w.lock, NULL);
  pthread_condattr_init (&ca);
  pthread_condattr_setclock (&ca, CLOCK_MONOTONIC);
  pthread_cond_init (&w.cond, &ca);
  pthread_condattr_destroy (&ca);
  if (np->started) {
    cookie = nbd_aio_block_status (np->nbd, count, member_offset,
                                   (nbd_extent_callback) {
                                     .callback = status_extent,
                                     .user_data = &w },
                                   (nbd_completion_callback) {
                                     .callback = status_done,
                                     .user_data = &w },
                                   0);
    if (cookie != -1) {
      struct timespec deadline;
      bool dropped = m->timeout_ms == 0;

      kick (np);
      clock_gettime (CLOCK_MONOTONIC, &deadline);
      deadline.tv_sec += m->timeout_ms / 1000;
      deadline.tv_nsec += (m->timeout_ms % 1000) * 1000000L;
      if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
      }
      /* w is on this stack: wait for libnbd's callback even past the
       * deadline, which only makes libnbd give the command up.
       */
      pthread_mutex_lock (&w.lock);
      while (!w.done) {
        if (dropped)
          pthread_cond_wait (&w.cond, &w.lock);
        else if (pthread_cond_timedwait (&w.cond, &w.lock, &deadline) ==
                 ETIMEDOUT && !w.done) {
          pthread_mutex_unlock (&w.lock);
          drop_hung (np, "a block status request");
          dropped = true;
          pthread_mutex_lock (&w.lock);
        }
      }
      pthread_mutex_unlock (&w.lock);
    }
    else
      w.err = EIO;
  }
  else {
    /* No reader thread yet, so no one else drives the handle. */
    if (nbd_block_status (np->nbd, count, member_offset,
                          (nbd_extent_callback) {
                            .callback = status_extent, .user_data = &w },
                          0) == -1)
      w.err = EIO;
  }
  pthread_cond_destroy (&w.cond);
  pthread_mutex_destroy (&w.lock);

  /* A member whose connection is gone cannot answer.  A live server
   * that fails block status (one that wants aligned requests refuses
   * a one-byte query, say) or says nothing useful is taken to hold
   * data, which is never wrong: reads there still work.
   */
  if (nbd_aio_is_dead (np->nbd) || nbd_aio_is_closed (np->nbd)) {
    errno = EIO;
    return -1;
  }
  if (w.err == 0 && w.have && w.end > member_offset) {
    hole = w.hole;
    if (w.end < limit)
      *end = w.end;
  }
  return hole;
}

/* Before start no reader thread drives the handle, so libnbd's own
 * synchronous read can: the md superblock at config time (md/superblock.c).
 */
static int
nbdm_read_early (struct member *m, void *buf, uint64_t length,
                 uint64_t member_offset)
{
  struct nbd_priv *np = m->priv;

  if (nbd_pread (np->nbd, buf, length, member_offset, 0) == -1) {
    errno = nbd_get_errno () ? nbd_get_errno () : EIO;
    return -1;
  }
  return 0;
}

static void
nbdm_moved (struct member *m)
{
  struct nbd_priv *np = m->priv;

  np->m = m;
}

const struct member_ops nbd_ops = {
  .name = "nbd",
  /* libnbd takes one buffer per command: member.c bounces runs. */
  .vectored = false,
  .claims = nbdm_claims,
  .open = nbdm_open,
  .start = nbdm_start,
  .submit = nbdm_submit,
  .hole = nbdm_hole,
  .close = nbdm_close,
  .read_early = nbdm_read_early,
  .moved = nbdm_moved,
};
