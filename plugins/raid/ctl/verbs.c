/* nbdkit-raid-plugin: the control socket's verbs (see verbs.h and
 * include/raidsim/controlverbs.h): mdadm --fail, --remove, --add,
 * --replace and sync_action, each calling down into md/ and sync/.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/controlverbs.h"
#include "detail.h"
#include "verbs.h"
#include "md/spares.h"
#include "md/state.h"
#include "md/superblock.h"
#include "sync/replace.h"
#include "sync/scrub.h"

/* Target i of a verb: role i's member, or, for i >= nmembers, the
 * faulty member that a spare replaced in spare slot i - nmembers (NULL
 * if there is none).
 */
static const char *
target_name (struct raid_array *a, unsigned i)
{
  unsigned role;

  if (i < a->nmembers)
    return a->members[i].name;
  return spares_replaced (a, i - a->nmembers, &role);
}

/* MEMBER: a role number, or a member as given on the command line (or
 * its last component, if that names one member only).  Returns the
 * role, or -1.  With replaced_too (remove), a faulty member that a
 * spare replaced may be named too, by its name only (its role is the
 * spare's now): the return is then nmembers + its spare slot.
 */
static int
find_member (struct raid_array *a, const char *arg, bool replaced_too)
{
  unsigned i, n = a->nmembers + (replaced_too ? RAID_MAX_SPARES : 0);
  int found = -1, nfound = 0;
  const char *name;
  char *end;
  unsigned long v;

  if (arg[0] >= '0' && arg[0] <= '9') {
    errno = 0;
    v = strtoul (arg, &end, 10);
    if (errno == 0 && *end == '\0')
      return v < a->nmembers ? (int) v : -1;
  }
  for (i = 0; i < n; ++i)
    if ((name = target_name (a, i)) != NULL && strcmp (name, arg) == 0)
      return i;
  for (i = 0; i < n; ++i)
    if ((name = target_name (a, i)) != NULL &&
        strcmp (detail_short_name (name), detail_short_name (arg)) == 0) {
      found = i;
      nfound++;
    }
  return nfound == 1 ? found : -1;
}

static char *
do_fail (struct raid_array *a, int r)
{
  struct member *m = &a->members[r];
  char msg[512];

  if (strcmp (detail_member_state (a, r), "removed") == 0)
    return error_reply ("fail: member %d (%s) is not in the array", r,
                        m->name);
  if (atomic_load (&m->failed)) {
    snprintf (msg, sizeof msg, "member %d (%s) is faulty already", r,
              m->name);
    return detail_reply (a, msg);
  }
  /* The rule an I/O error follows (md_fail, md/state.h): never the member that
   * holds the last live copy of some chunk; md's raid1_error and
   * raid10_error refuse it too, and mdadm --fail then says "Device or
   * resource busy".
   */
  if (!md_fail (a, r, "fail (control socket)", ECANCELED))
    return error_reply ("fail: member %d (%s) holds the last in-sync copy "
                        "of some of the array, so it is not failed "
                        "(md: Device or resource busy)", r, m->name);
  if (superblock_record (a, MD_BIT (r)) == -1)
    return error_reply ("fail: member %d (%s) has failed, but the "
                        "superblocks could not record it", r, m->name);
  snprintf (msg, sizeof msg, "set member %d (%s) faulty in the array", r,
            m->name);
  return detail_reply (a, msg);
}

static char *do_remove_held (struct raid_array *a, int r);

/* No spare takes the role while it is emptied, and no request is in
 * flight (md_suspend, md/state.h).
 */
static char *
do_remove (struct raid_array *a, int r)
{
  char *reply;

  md_suspend (a);
  reply = do_remove_held (a, r);
  md_resume (a);
  return reply;
}

static char *
do_remove_held (struct raid_array *a, int r)
{
  struct member *m = &a->members[r];
  char msg[512], id[32], *old_id;
  int rc = 0;

  if (m->ops == &missing_ops)
    return error_reply ("remove: role %d is empty already", r);
  if (!atomic_load (&m->failed))
    return error_reply ("remove: member %d (%s) is active in the array: "
                        "fail it first (mdadm --remove refuses it too: "
                        "Device or resource busy)", r, m->name);
  snprintf (id, sizeof id, "missing:%d", r);
  old_id = m->identity;
  if ((m->identity = strdup (id)) == NULL) {
    m->identity = old_id;
    return error_reply ("remove: out of memory");
  }
  snprintf (msg, sizeof msg, "hot removed member %d (%s) from the array",
            r, m->name);
  member_drain (m);
  /* The role is empty from now on, as a member that was missing at
   * start: no superblock names it (0xffff in the role table, as md
   * leaves the slot of a device it removed), and the next update says
   * so, one event on.
   */
  pthread_mutex_lock (&a->meta.lock);
  a->meta.in_array[r] = false;
  if (a->meta.on && a->meta.started)
    rc = superblock_update_locked (a, "a member removed");
  pthread_mutex_unlock (&a->meta.lock);
  m->ops->close (m);
  m->ops = &missing_ops;
  m->engine = "none";
  m->name = "missing";
  free (old_id);
  free (m->backing);
  m->backing = NULL;
  nbdkit_error ("%s", msg);
  if (rc == -1)
    return error_reply ("remove: member %d is removed, but the superblocks "
                        "could not record it", r);
  return detail_reply (a, msg);
}

/* mdadm --remove of a faulty member that a spare replaced, in spare
 * slot j: it holds no role, so no request reaches it any more.
 */
static char *
do_remove_replaced (struct raid_array *a, unsigned j)
{
  char msg[512];
  unsigned role;
  const char *name = spares_replaced (a, j, &role);

  snprintf (msg, sizeof msg, "hot removed %s (faulty, replaced in role "
            "%u) from the array", name, role);
  if (spares_remove_replaced (a, j) == -1) {
    nbdkit_error ("%s", msg);
    return error_reply ("remove: %.400s is removed, but the superblocks "
                        "could not record it", name);
  }
  nbdkit_error ("%s", msg);
  return detail_reply (a, msg);
}

/* mdadm --add; with --replace, a failed or missing role taken now
 * (spares_add, md/spares.h), or, with old, mdadm --replace OLD --with
 * MEMBER (replace_start, sync/replace.h); the log has its reason in
 * full, the answer says it in short.
 */
static char *
do_add (struct raid_array *a, const char *member, bool replace, int old)
{
  char msg[512];
  const char *why;
  int rc = old >= 0 ? replace_start (a, member, old)
    : spares_add (a, member, replace);

  if (rc == 2) {
    snprintf (msg, sizeof msg, "%.400s is rebuilt as the replacement of "
              "member %d, which serves until then", member, old);
    return detail_reply (a, msg);
  }

  if (rc == 1) {
    snprintf (msg, sizeof msg, "re-added %.400s into its role; the chunks "
              "whose bits are set in the write-intent bitmap are rebuilt",
              member);
    return detail_reply (a, msg);
  }
  if (rc == 0) {
    snprintf (msg, sizeof msg, "added %.400s as a spare%s", member,
              md_failed (a) ? "; it takes a failed or missing role "
              "and is rebuilt" : "");
    return detail_reply (a, msg);
  }
  switch (errno) {
  case EINVAL: why = "the array has no md metadata or copies, or the "
      "name is not a member"; break;
  case EROFS: why = "the array is not written (nbdkit -r)"; break;
  case ENOSPC: why = "too many spares already"; break;
  case EEXIST: why = "it is in the array already"; break;
  case EBUSY: why = old >= 0 ? "a replacement, a rebuild or a resync "
      "runs" : "no member is failed or missing to replace"; break;
  case EMEDIUMTYPE: why = "it holds a signature or another array's "
      "metadata (force=true writes over a signature)"; break;
  case EFBIG: why = "it is too small"; break;
  default: why = strerror (errno); break;
  }
  return error_reply ("add: %.256s: %s", member, why);
}

static char *
do_scrub (struct raid_array *a, enum scrub_action act)
{
  const char *why;
  char msg[128];

  if (scrub_start (a, act, &why) == -1)
    return error_reply ("%s: %s", scrub_action_name (act), why);
  snprintf (msg, sizeof msg, "%s started", scrub_action_name (act));
  return detail_reply (a, msg);
}

/* Split line into at most max words; returns the count, or -1 if there
 * are more, or a byte that is not printable ASCII.
 */
static int
split (char *line, char **words, int max)
{
  int n = 0;
  char *p;

  for (p = line; *p; ++p)
    if ((unsigned char) *p < 0x20 || (unsigned char) *p > 0x7e)
      if (*p != '\t')
        return -1;
  for (p = strtok (line, " \t"); p; p = strtok (NULL, " \t")) {
    if (n == max)
      return -1;
    words[n++] = p;
  }
  return n;
}

char *
verbs_handle (struct raid_array *a, const char *line)
{
  char *copy, *w[4], *reply;
  int n, r = -1;
  size_t v;
  const struct control_verb_desc *d;

  if (strlen (line) >= CONTROL_LINE_MAX)
    return error_reply ("request too long (at most %d bytes)",
                        CONTROL_LINE_MAX - 1);
  copy = strdup (line);
  if (copy == NULL)
    return error_reply ("out of memory");
  n = split (copy, w, 4);
  if (n <= 0) {
    free (copy);
    return error_reply ("malformed request: one line of printable words, "
                        "VERB [ARG...], is expected");
  }
  for (v = 0; v < CONTROL_NVERBS; ++v)
    if (strcmp (w[0], control_verbs[v].name) == 0)
      break;
  if (v == CONTROL_NVERBS) {
    char known[256] = "";

    for (v = 0; v < CONTROL_NVERBS; ++v)
      snprintf (known + strlen (known), sizeof known - strlen (known),
                "%s%s", v ? ", " : "", control_verbs[v].name);
    reply = error_reply ("%.64s: unknown verb (%s)", w[0], known);
    free (copy);
    return reply;
  }
  d = &control_verbs[v];
  if ((unsigned) n - 1 < d->min_args || (unsigned) n - 1 > d->max_args) {
    reply = error_reply ("%s: expected %s%s", d->name,
                         d->syntax[0] ? d->syntax : "no argument",
                         d->syntax[0] ? " as arguments" : "");
    free (copy);
    return reply;
  }
  if (v != CV_DETAIL && v != CV_STATUS &&
      !atomic_load (&a->running)) {
    reply = error_reply ("%s: the array is not running yet: it starts "
                         "when the first client connects", d->name);
    free (copy);
    return reply;
  }
  if (v == CV_ADD && n == 4) {
    r = find_member (a, w[3], false);
    if (r == -1) {
      reply = error_reply ("add: --replace %.256s: no such member (a role "
                           "from 0 to %u, or a member as given)", w[3],
                           a->nmembers - 1);
      free (copy);
      return reply;
    }
  }
  if (v == CV_FAIL || v == CV_REMOVE) {
    r = find_member (a, w[1], v == CV_REMOVE);
    if (r == -1) {
      reply = error_reply ("%s: %.256s: no such member (a role from 0 to "
                           "%u, or a member as given)", d->name, w[1],
                           a->nmembers - 1);
      free (copy);
      return reply;
    }
  }
  switch ((enum control_verb) v) {
  case CV_DETAIL: case CV_STATUS:
    reply = detail_reply (a, NULL);
    break;
  case CV_FAIL:
    reply = do_fail (a, r);
    break;
  case CV_REMOVE:
    if ((unsigned) r >= a->nmembers)
      reply = do_remove_replaced (a, r - a->nmembers);
    else
      reply = do_remove (a, r);
    break;
  case CV_ADD:
    if (n >= 3 && strcmp (w[2], "--replace") != 0)
      reply = error_reply ("add: %.64s: the only option is --replace",
                           w[2]);
    else
      reply = do_add (a, w[1], n >= 3, n == 4 ? r : -1);
    break;
  case CV_CHECK:
    reply = do_scrub (a, SCRUB_CHECK);
    break;
  case CV_REPAIR:
    reply = do_scrub (a, SCRUB_REPAIR);
    break;
  case CV_IDLE:
    reply = detail_reply (a, scrub_stop (a) ? "stopped the running check "
                          "or repair" : "no check or repair was running");
    break;
  default:
    reply = error_reply ("internal error");
  }
  free (copy);
  return reply;
}
