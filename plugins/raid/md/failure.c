/* nbdkit-raid-plugin: md_error (see failure.h). */

#include <stdbool.h>

#include "failure.h"
#include "state.h"
#include "superblock.h"

bool
md_error (struct raid_array *a, unsigned i, const char *op, int err)
{
  if (!md_fail (a, i, op, err))
    return false;
  return superblock_record (a, MD_BIT (i)) == 0;
}
