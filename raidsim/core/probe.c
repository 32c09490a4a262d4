/* raidsim: what a member holds, by libblkid (see probe.h). */

#include <stdio.h>

#include <blkid.h>

#include "raidsim/probe.h"

int
raid_probe_signature (int fd, char *sig, size_t len)
{
  const char *value;
  blkid_probe pr;
  int r;

  sig[0] = '\0';
  pr = blkid_new_probe ();
  if (pr == NULL || blkid_probe_set_device (pr, fd, 0, 0) != 0) {
    if (pr)
      blkid_free_probe (pr);
    return RAID_PROBE_CANNOT;
  }
  blkid_probe_enable_superblocks (pr, 1);
  blkid_probe_set_superblocks_flags (pr, BLKID_SUBLKS_TYPE |
                                     BLKID_SUBLKS_BADCSUM);
  blkid_probe_enable_partitions (pr, 1);
  r = blkid_do_safeprobe (pr);
  if (r == 0) {
    if (blkid_probe_lookup_value (pr, "TYPE", &value, NULL) == 0 ||
        blkid_probe_lookup_value (pr, "PTTYPE", &value, NULL) == 0)
      snprintf (sig, len, "%s", value);
    else
      snprintf (sig, len, "a signature");
  }
  else if (r == -2)
    snprintf (sig, len, "more than one signature");
  blkid_free_probe (pr);
  return r == -1 ? RAID_PROBE_FAILED : 0;
}
