/* raidsim control: talk to a running raid plugin's control socket
 * (nbdkit raid ... control=PATH), as mdadm talks to md:
 *
 *   raidsim control /tmp/ctl detail        (mdadm --detail, /proc/mdstat)
 *   raidsim control /tmp/ctl fail 1        (mdadm --fail)
 *   raidsim control /tmp/ctl remove b.img  (mdadm --remove)
 *   raidsim control /tmp/ctl check        (echo check > .../sync_action)
 *
 * It sends one line, "VERB ARG...", reads the one JSON line the server
 * answers, and prints the server's message and the array in the form of
 * /proc/mdstat, or the JSON itself with --json.  On the server's error
 * it prints that and exits 1.  The verbs, and this help, come from
 * include/raidsim/controlverbs.h, the table the server checks requests
 * against.
 *
 * Run: build/raidsim/raidsim control SOCKET detail
 */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "raidsim/controlverbs.h"
#include "cmd.h"

#define CMD PROGRAM_NAME " control"
#define REPLY_MAX (1 << 20)

static void
usage (FILE *fp)
{
  size_t i;

  fprintf (fp,
           "usage: %s [--json] SOCKET VERB [ARG...]\n"
           "\n"
           "Send VERB to the control socket of a running nbdkit raid\n"
           "plugin (its control=SOCKET parameter) and print the answer: the\n"
           "array in the form of /proc/mdstat, or JSON with --json.  MEMBER\n"
           "is a role number or a member as given to the plugin.  The exit\n"
           "status is 1 if the server refuses the request (its reason goes\n"
           "to stderr).\n"
           "\n"
           "Verbs:\n", CMD);
  for (i = 0; i < CONTROL_NVERBS; ++i) {
    char left[40];

    snprintf (left, sizeof left, "%s %s", control_verbs[i].name,
              control_verbs[i].syntax);
    fprintf (fp, "  %-26s %s\n  %-26s   (%s)\n", left, control_verbs[i].help,
             "", control_verbs[i].mdadm);
  }
  fprintf (fp,
           "\n"
           "Options:\n"
           "  -j, --json    print the server's JSON answer\n"
           "  -h, --help    show this help\n");
}

/* Send line to the socket at path and read the answer into *reply.
 * Returns 0, or -1 after a message.
 */
static int
exchange (const char *path, const char *line, char **reply)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  size_t len = 0, n = strlen (line);
  char *buf;
  int fd;

  if (strlen (path) >= sizeof sa.sun_path) {
    fprintf (stderr, "%s: %s: too long for a Unix socket\n", CMD, path);
    return -1;
  }
  strcpy (sa.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd == -1 || connect (fd, (struct sockaddr *) &sa, sizeof sa) == -1) {
    fprintf (stderr, "%s: %s: %s\n", CMD, path, strerror (errno));
    if (fd >= 0)
      close (fd);
    return -1;
  }
  while (n > 0) {
    ssize_t w = send (fd, line, n, MSG_NOSIGNAL);

    if (w == -1 && errno == EINTR)
      continue;
    if (w == -1) {
      /* The server may have answered already (and closed), as it does
       * to a peer it refuses: read its answer below.
       */
      break;
    }
    line += w;
    n -= w;
  }
  shutdown (fd, SHUT_WR);
  buf = malloc (REPLY_MAX + 1);
  if (buf == NULL) {
    close (fd);
    return -1;
  }
  for (;;) {
    ssize_t r = recv (fd, buf + len, REPLY_MAX - len, 0);

    if (r == -1 && errno == EINTR)
      continue;
    if (r == -1 && len == 0) {
      fprintf (stderr, "%s: %s: %s\n", CMD, path, strerror (errno));
      free (buf);
      close (fd);
      return -1;
    }
    if (r <= 0 || len + r == REPLY_MAX)
      break;
    len += r;
  }
  close (fd);
  buf[len] = '\0';
  *reply = buf;
  return 0;
}

int
cmd_control (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "help", no_argument, NULL, 'h' },
    { "json", no_argument, NULL, 'j' },
    { NULL, 0, NULL, 0 },
  };
  bool json = false;
  json_object *o, *err, *v;
  char *line = NULL, *reply = NULL;
  size_t len = 0;
  FILE *fp;
  int c, i, status = 1;

  while ((c = getopt_long (argc, argv, "+hj", longopts, NULL)) != -1) {
    switch (c) {
    case 'h':
      usage (stdout);
      return 0;
    case 'j':
      json = true;
      break;
    default:
      usage (stderr);
      return 1;
    }
  }
  if (argc - optind < 2) {
    fprintf (stderr, "%s: name the socket and a verb (%s --help)\n", CMD,
             CMD);
    return 1;
  }
  /* The request line: the verb and its arguments; --json may come
   * after them too.
   */
  fp = open_memstream (&line, &len);
  if (fp == NULL)
    return 1;
  for (i = optind + 1; i < argc; ++i) {
    if (strcmp (argv[i], "--json") == 0 || strcmp (argv[i], "-j") == 0) {
      json = true;
      continue;
    }
    fprintf (fp, "%s%s", i > optind + 1 ? " " : "", argv[i]);
  }
  fputc ('\n', fp);
  fclose (fp);

  if (exchange (argv[optind], line, &reply) == -1)
    goto out;
  o = json_tokener_parse (reply);
  if (o == NULL || !json_object_is_type (o, json_type_object)) {
    fprintf (stderr, "%s: %s: the server's answer is not JSON: %.200s\n",
             CMD, argv[optind], reply);
    json_object_put (o);
    goto out;
  }
  if (json_object_object_get_ex (o, "error", &err)) {
    fprintf (stderr, "%s: %s\n", CMD, json_object_get_string (err));
    if (json)
      printf ("%s\n", json_object_to_json_string_ext
              (o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  }
  else {
    if (json)
      printf ("%s\n", json_object_to_json_string_ext
              (o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    else {
      if (json_object_object_get_ex (o, "message", &v))
        printf ("%s\n", json_object_get_string (v));
      if (json_object_object_get_ex (o, "mdstat", &v))
        printf ("%s\n", json_object_get_string (v));
    }
    status = 0;
  }
  json_object_put (o);
 out:
  free (line);
  free (reply);
  return status;
}
