/* raidsim: the array file's keys of a degraded array and its background
 * stream (see synckeys.h): their values, and their checks.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/error.h"
#include "raidsim/mdrules.h"
#include "raidsim/synckeys.h"

const struct raidsim_enum raidsim_resync_enums[] = {
  { "no", RAIDSIM_RESYNC_NO },
  { "yes", RAIDSIM_RESYNC_YES },
  { "check", RAIDSIM_RESYNC_CHECK },
  { NULL, 0 },
};

const struct raidsim_enum raidsim_sync_throttle_enums[] = {
  { "min", RAIDSIM_THROTTLE_MIN },
  { "drain", RAIDSIM_THROTTLE_DRAIN },
  { NULL, 0 },
};

const char *
raidsim_sync_action_name (int action)
{
  switch (action) {
  case RAIDSIM_SYNC_RESYNC: return "resync";
  case RAIDSIM_SYNC_CHECK: return "check";
  case RAIDSIM_SYNC_REBUILD: return "rebuild";
  default: return "none";
  }
}

/* ---- the keys ---- */

/* "none", or member indexes below n separated by commas, into *mask.
 * With single, at most one.
 */
static int
parse_members (const char *key, const char *s, unsigned n, bool single,
               uint32_t *mask)
{
  const char *p = s;
  unsigned count = 0;

  *mask = 0;
  if (strcmp (s, "none") == 0)
    return 0;
  for (;;) {
    unsigned long v;
    char *end;

    while (*p == ' ' || *p == '\t')
      p++;
    if (*p < '0' || *p > '9')
      goto bad;
    errno = 0;
    v = strtoul (p, &end, 10);
    if (errno != 0)
      goto bad;
    if (v >= n) {
      raidsim_set_error ("%s: member %lu: the array's members are 0 to %u",
                         key, v, n - 1);
      return -1;
    }
    if (*mask & (UINT32_C (1) << v)) {
      raidsim_set_error ("%s: member %lu is listed twice", key, v);
      return -1;
    }
    *mask |= UINT32_C (1) << v;
    count++;
    for (p = end; *p == ' ' || *p == '\t'; ++p)
      ;
    if (*p == '\0')
      break;
    if (*p != ',')
      goto bad;
    p++;
  }
  if (single && count > 1) {
    raidsim_set_error ("%s: '%s': give one member (md can rebuild several "
                       "at once; this model rebuilds one)", key, s);
    return -1;
  }
  return 0;

 bad:
  raidsim_set_error ("%s: '%s' is not none or a list of member indexes "
                     "such as 0,2", key, s);
  return -1;
}

/* "members 0 and 1" for the members of a piece's copies. */
static void
copy_members (const struct raid_piece *p, char *buf, size_t len)
{
  size_t n;
  unsigned k;

  n = snprintf (buf, len, "member%s", p->ncopies > 1 ? "s" : "");
  for (k = 0; k < p->ncopies && n < len; ++k)
    n += snprintf (buf + n, len - n, "%s%u",
                   k == 0 ? " " : k + 1 == p->ncopies ? " and " : ", ",
                   p->copy[k].member);
}

/* The lowest member of a non-empty set. */
static unsigned
lowest (uint32_t mask)
{
  return __builtin_ctz (mask);
}

int
raidsim_sync_keys_action (uint32_t rebuild, int resync)
{
  if (rebuild)
    return RAIDSIM_SYNC_REBUILD;
  if (resync == RAIDSIM_RESYNC_YES)
    return RAIDSIM_SYNC_RESYNC;
  if (resync == RAIDSIM_RESYNC_CHECK)
    return RAIDSIM_SYNC_CHECK;
  return RAIDSIM_SYNC_NONE;
}

/* Every chunk keeps a live copy, and with a rebuild, a live copy other
 * than the member being rebuilt; a resync needs some chunk with two
 * live copies.  These are md's enough () and the plugin's own rules
 * (raidsim/core/mdrules.c).  The chunk reported is the first that
 * fails either, as a walk from chunk 0 would find it.
 */
static int
check_copies (const struct raidsim_sync_keys *k, const struct raid_geom *g,
              uint32_t failed, uint32_t rebuild)
{
  struct raid_piece p;
  int64_t lost = md_first_lost (g, failed, NULL);
  int64_t unsourced = md_first_lost (g, failed | rebuild, &p);
  char members[256];

  if (unsourced >= 0) {
    copy_members (&p, members, sizeof members);
    if (lost == unsourced)
      raidsim_set_error ("failed: array chunk %" PRId64 " would have no "
                         "live copy (it is on %s); the array cannot run "
                         "with these members failed", lost, members);
    else
      raidsim_set_error ("rebuild: array chunk %" PRId64 " has no live "
                         "copy to rebuild member %u from (it is on %s)",
                         unsourced, lowest (rebuild), members);
    return -1;
  }
  if (k->resync != RAIDSIM_RESYNC_NO && md_most_copies (g, failed) < 2) {
    raidsim_set_error ("resync: no chunk has two live copies, so there is "
                       "nothing to %s", k->resync == RAIDSIM_RESYNC_YES
                       ? "resync" : "check");
    return -1;
  }
  return 0;
}

int
raidsim_sync_keys_check (const struct raidsim_sync_keys *k,
                         const struct raidsim_array_params *ap,
                         uint32_t *failed_mask, uint32_t *rebuild_mask)
{
  uint32_t failed, rebuild;
  unsigned n = k->members;
  int r;

  if (parse_members ("failed", k->failed, n, false, &failed) == -1 ||
      parse_members ("rebuild", k->rebuild, n, true, &rebuild) == -1)
    return -1;
  if (k->speed_limit_max != 0 && k->speed_limit_min > k->speed_limit_max) {
    char lo[64], hi[64];

    raidsim_param_format_value (RAIDSIM_PT_RATE, k->speed_limit_min,
                                lo, sizeof lo);
    raidsim_param_format_value (RAIDSIM_PT_RATE, k->speed_limit_max,
                                hi, sizeof hi);
    raidsim_set_error ("speed_limit_min: %s is above speed_limit_max (%s)",
                       lo, hi);
    return -1;
  }
  if (failed == 0 && rebuild == 0 && k->resync == RAIDSIM_RESYNC_NO) {
    *failed_mask = *rebuild_mask = 0;
    return 0;
  }
  if (k->level == RAIDSIM_LEVEL_SINGLE) {
    raidsim_set_error ("%s: a single drive has no other copy to %s",
                       failed ? "failed" : rebuild ? "rebuild" : "resync",
                       failed ? "run on" : rebuild ? "rebuild from"
                       : "compare");
    return -1;
  }
  if (rebuild & failed) {
    raidsim_set_error ("rebuild: member %u is also listed as failed",
                       lowest (rebuild));
    return -1;
  }
  if (rebuild && k->resync != RAIDSIM_RESYNC_NO) {
    raidsim_set_error ("resync: not while member %u is rebuilt (md does "
                       "one after the other); use one of the two",
                       lowest (rebuild));
    return -1;
  }

  /* The copies, from the geometry the run will use. */
  {
    struct raidsim_array_params p = *ap;
    struct raidsim_array *a;

    p.failed = p.rebuild = 0;
    p.resync = false;
    a = raidsim_array_new (&p);
    if (a == NULL)
      return -1;
    r = check_copies (k, raidsim_array_geom (a), failed, rebuild);
    raidsim_array_free (a);
    if (r == -1)
      return -1;
  }
  *failed_mask = failed;
  *rebuild_mask = rebuild;
  return 0;
}
