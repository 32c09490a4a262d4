/* nbdkit-raid-plugin: the control socket.  See control.h for who may
 * use it and what it answers, include/raidsim/controlverbs.h for the
 * verbs; here, how.
 *
 * One listener thread accepts one connection at a time, reads one line
 * (with a receive timeout, so that a client that never finishes its
 * line cannot hold the socket), answers it and closes.  Requests are so
 * rare and short that one at a time is simplest, and it makes every
 * verb run alone: no two fails or removes race each other.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/controlverbs.h"
#include "control.h"
#include "detail.h"
#include "verbs.h"

#define CONTROL_TIMEOUT_S 5     /* to send the request line */

static struct {
  struct raid_array *a;
  char *path;
  int fd;                       /* listening, or -1 */
  int wake[2];                  /* control_stop -> the thread */
  pthread_t thread;
  bool started;
} ctl = { .fd = -1, .wake = { -1, -1 } };

static void
send_all (int fd, const char *s, size_t n)
{
  while (n > 0) {
    ssize_t w = send (fd, s, n, MSG_NOSIGNAL);
    if (w <= 0) {
      if (w == -1 && errno == EINTR)
        continue;
      return;
    }
    s += w;
    n -= w;
  }
}

/* Read one line, at most CONTROL_LINE_MAX bytes with its newline (or
 * up to the end, if the client sends none).  Returns the reply.
 */
static char *
serve_request (int fd)
{
  char line[CONTROL_LINE_MAX + 1];
  size_t len = 0;

  for (;;) {
    ssize_t n = recv (fd, line + len, sizeof line - 1 - len, 0);
    char *nl;

    if (n == -1 && errno == EINTR)
      continue;
    if (n == -1)
      return error_reply ("reading the request: %s",
                          errno == EAGAIN ? "timed out" : strerror (errno));
    line[len + n] = '\0';
    nl = memchr (line + len, '\n', n);
    len += n;
    if (nl) {
      *nl = '\0';
      if (nl > line && nl[-1] == '\r')
        nl[-1] = '\0';
      if (strlen (line) != (size_t) (nl - line))
        return error_reply ("malformed request: a NUL byte");
      break;
    }
    if (len == sizeof line - 1)
      return error_reply ("request too long (at most %d bytes)",
                          CONTROL_LINE_MAX - 1);
    if (n == 0) {
      if (strlen (line) != len)
        return error_reply ("malformed request: a NUL byte");
      break;
    }
  }
  return verbs_handle (ctl.a, line);
}

static void
serve (int fd)
{
  struct ucred cred;
  socklen_t clen = sizeof cred;
  struct timeval tv = { .tv_sec = CONTROL_TIMEOUT_S };
  char *reply;

  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1)
    reply = error_reply ("permission denied: the peer's credentials are "
                         "unknown (%s)", strerror (errno));
  else if (cred.uid != geteuid () && cred.uid != 0) {
    nbdkit_error ("control: refused a request from uid %u (pid %d): only "
                  "uid %u (the server's) and root may use it",
                  (unsigned) cred.uid, (int) cred.pid,
                  (unsigned) geteuid ());
    reply = error_reply ("permission denied: uid %u is neither the "
                         "server's (%u) nor root", (unsigned) cred.uid,
                         (unsigned) geteuid ());
  }
  else
    reply = serve_request (fd);
  if (reply) {
    send_all (fd, reply, strlen (reply));
    send_all (fd, "\n", 1);
  }
  free (reply);
}

static void *
listener (void *arg)
{
  for (;;) {
    struct pollfd p[2] = {
      { .fd = ctl.fd, .events = POLLIN },
      { .fd = ctl.wake[0], .events = POLLIN },
    };
    int fd;

    if (poll (p, 2, -1) == -1) {
      if (errno == EINTR)
        continue;
      nbdkit_error ("control: poll: %m");
      return NULL;
    }
    if (p[1].revents)
      return NULL;
    if (!(p[0].revents & POLLIN))
      continue;
    fd = accept4 (ctl.fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd == -1)
      continue;
    serve (fd);
    close (fd);
  }
}

/* Whether a server answers on the socket at path. */
static bool
socket_live (const struct sockaddr_un *sa)
{
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool live;

  if (fd == -1)
    return true;                /* cannot tell: do not replace it */
  live = connect (fd, (const struct sockaddr *) sa, sizeof *sa) == 0 ||
    errno != ECONNREFUSED;
  close (fd);
  return live;
}

int
control_open (const char *path, struct raid_array *a)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  struct stat st;
  mode_t old;
  int fd, r;

  if (strlen (path) >= sizeof sa.sun_path) {
    nbdkit_error ("control: %s: too long for a Unix socket (at most %zu "
                  "bytes)", path, sizeof sa.sun_path - 1);
    return -1;
  }
  strcpy (sa.sun_path, path);
  /* A socket left by a server that is gone is replaced; anything else
   * is not touched.
   */
  if (lstat (path, &st) == 0) {
    if (!S_ISSOCK (st.st_mode)) {
      nbdkit_error ("control: %s exists and is not a socket: not "
                    "replaced", path);
      return -1;
    }
    if (st.st_uid != geteuid ()) {
      nbdkit_error ("control: %s is a socket of another user (uid %u): "
                    "not replaced", path, (unsigned) st.st_uid);
      return -1;
    }
    if (socket_live (&sa)) {
      nbdkit_error ("control: %s: another server answers on it", path);
      return -1;
    }
    if (unlink (path) == -1) {
      nbdkit_error ("control: removing the stale socket %s: %m", path);
      return -1;
    }
  }
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd == -1) {
    nbdkit_error ("control: socket: %m");
    return -1;
  }
  /* Mode 0600 from the moment it exists: bind under a umask that
   * leaves nothing else, and no connection is possible before listen.
   */
  old = umask (0177);
  r = bind (fd, (struct sockaddr *) &sa, sizeof sa);
  umask (old);
  if (r == -1) {
    nbdkit_error ("control: bind %s: %m", path);
    close (fd);
    return -1;
  }
  if (chmod (path, 0600) == -1 || listen (fd, 8) == -1) {
    nbdkit_error ("control: %s: %m", path);
    close (fd);
    unlink (path);
    return -1;
  }
  ctl.path = strdup (path);
  ctl.fd = fd;
  ctl.a = a;
  return 0;
}

int
control_start (void)
{
  int err;

  if (ctl.fd == -1 || ctl.started)
    return 0;
  if (pipe2 (ctl.wake, O_CLOEXEC) == -1) {
    nbdkit_error ("control: pipe: %m");
    return -1;
  }
  err = pthread_create (&ctl.thread, NULL, listener, NULL);
  if (err) {
    errno = err;
    nbdkit_error ("control: starting its thread: %m");
    return -1;
  }
  ctl.started = true;
  return 0;
}

void
control_stop (void)
{
  if (ctl.started) {
    if (write (ctl.wake[1], "x", 1) != 1)
      nbdkit_error ("control: stopping its thread: %m");
    pthread_join (ctl.thread, NULL);
    ctl.started = false;
  }
  if (ctl.wake[0] >= 0) {
    close (ctl.wake[0]);
    close (ctl.wake[1]);
    ctl.wake[0] = ctl.wake[1] = -1;
  }
  if (ctl.fd >= 0) {
    close (ctl.fd);
    ctl.fd = -1;
    if (ctl.path)
      unlink (ctl.path);
  }
  free (ctl.path);
  ctl.path = NULL;
}
