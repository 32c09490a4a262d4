/* nbdkit-raid-plugin: what a member holds, before the plugin writes a
 * superblock to it (see probe.h).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/probe.h"
#include "member.h"
#include "probe.h"

static bool
all_zero (const char *buf, uint64_t len)
{
  return len == 0 || (buf[0] == 0 && memcmp (buf, buf + 1, len - 1) == 0);
}

/* Copy the first and last MiB of m into a sparse memory file of m's
 * size, where libblkid looks for signatures: it cannot read NBD
 * members, and it finds what a file system, a partition table or a
 * RAID puts at either end.
 */
static int
probe_copy (struct member *m, bool *zeros)
{
  const uint64_t edge = UINT64_C (1) << 20;
  uint64_t len = m->size < edge ? m->size : edge;
  char *buf;
  int fd;

  fd = memfd_create ("raid-probe", MFD_CLOEXEC);
  if (fd == -1)
    return -1;
  buf = malloc (len ? len : 1);
  if (buf == NULL || ftruncate (fd, m->size) == -1)
    goto err;
  *zeros = true;
  if (len && (member_read_early (m, buf, len, 0) == -1 ||
              pwrite (fd, buf, len, 0) != (ssize_t) len))
    goto err;
  *zeros &= all_zero (buf, len);
  if (m->size > len &&
      (member_read_early (m, buf, len, m->size - len) == -1 ||
       pwrite (fd, buf, len, m->size - len) != (ssize_t) len))
    goto err;
  if (m->size > len)
    *zeros &= all_zero (buf, len);
  free (buf);
  return fd;
 err:
  free (buf);
  close (fd);
  return -1;
}

int
member_check_blank (struct member *m, const char *what, bool need_zeros,
                    bool force)
{
  bool zeros;
  char sig[64] = "";
  int fd, r;

  fd = probe_copy (m, &zeros);
  if (fd == -1) {
    nbdkit_error ("%s: %s: reading it to look for signatures: %m", what,
                  m->name);
    return -1;
  }
  r = raid_probe_signature (fd, sig, sizeof sig);       /* as raidsim create */
  close (fd);
  if (r == RAID_PROBE_CANNOT) {
    nbdkit_error ("%s: %s: libblkid cannot probe it", what, m->name);
    return -1;
  }
  if (r == RAID_PROBE_FAILED) {
    nbdkit_error ("%s: %s: libblkid failed to probe it", what, m->name);
    return -1;
  }
  if (sig[0] == '\0' && need_zeros && !zeros)
    snprintf (sig, sizeof sig, "data (its first or last MiB is not zeros)");
  if (sig[0] == '\0')
    return 0;
  if (force) {
    nbdkit_error ("%s: %s holds %s; force=true: it is written over",
                  what, m->name, sig);
    return 0;
  }
  nbdkit_error ("%s: %s holds %s, not md metadata of this array; "
                "refusing to write over it (wipe it, or give force=true)",
                what, m->name, sig);
  errno = EMEDIUMTYPE;
  return -1;
}

