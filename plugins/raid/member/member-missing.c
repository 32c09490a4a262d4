/* nbdkit-raid-plugin: the member that is not there.
 *
 * The word "missing" in place of a member, as mdadm spells it, starts an
 * md array without that member (assemble.c: RAID 1 and RAID 10 only, and
 * only if every chunk keeps a live copy).  The member has a place in the
 * array, so that the geometry and every table by member stay as they
 * are, but it is failed from the start: member.c completes every I/O on
 * it with EIO before any backend sees it, and the request path never
 * reads it, writes it or asks it about holes.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "member.h"

static bool
missing_claims (const char *name)
{
  return strcasecmp (name, "missing") == 0;
}

/* Each missing member is its own: two of them are not the same member
 * given twice.
 */
static int
missing_open (struct member *m)
{
  char id[32];

  snprintf (id, sizeof id, "missing:%u", m->index);
  m->identity = strdup (id);
  if (m->identity == NULL) {
    nbdkit_error ("strdup: %m");
    return -1;
  }
  m->size = 0;
  atomic_store (&m->failed, true);
  return 0;
}

static int
missing_start (struct member *m)
{
  m->engine = "none";
  return 0;
}

static int
missing_submit (struct member *m, struct member_io *io)
{
  errno = EIO;
  return -1;
}

static int
missing_hole (struct member *m, uint64_t member_offset, uint64_t limit,
              uint64_t *end)
{
  errno = EIO;
  return -1;
}

static int
missing_read_early (struct member *m, void *buf, uint64_t length,
                    uint64_t member_offset)
{
  errno = EIO;
  return -1;
}

static void
missing_close (struct member *m)
{
}

const struct member_ops missing_ops = {
  .name = "missing",
  .vectored = true,
  .claims = missing_claims,
  .open = missing_open,
  .start = missing_start,
  .submit = missing_submit,
  .hole = missing_hole,
  .close = missing_close,
  .read_early = missing_read_early,
};
