/* nbdkit-raid-plugin: the array's state (see state.h), and md's rule for
 * failing a member.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/mdrules.h"
#include "state.h"

void
md_state_init (struct raid_array *a)
{
  pthread_rwlockattr_t attr;
  unsigned r;

  /* Writer first: a takeover must not wait for a pause in the load. */
  pthread_rwlockattr_init (&attr);
  pthread_rwlockattr_setkind_np (&attr,
                                 PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init (&a->quiesce, &attr);
  pthread_rwlockattr_destroy (&attr);
  pthread_mutex_init (&a->recovery.lock, NULL);
  pthread_cond_init (&a->recovery.cond, NULL);
  for (r = 0; r < RAID_MAX_MEMBERS; ++r)
    atomic_store (&a->rebuilt[r], UINT64_MAX);
  atomic_store (&a->unsynced, 0);
  atomic_store (&a->in_sync, UINT64_MAX);
  atomic_store (&a->repl.role, -1);
  a->status.action = "idle";
}

uint32_t
md_failed (const struct raid_array *a)
{
  uint32_t failed = 0;
  unsigned i;

  for (i = 0; i < a->nmembers; ++i)
    if (atomic_load (&a->members[i].failed))
      failed |= MD_BIT (i);
  return failed;
}

/* Only arrays with copies fail a member: a RAID 0 has nothing to fall
 * back to, so it returns the error.
 */
bool
md_redundant (const struct raid_array *a)
{
  return raid_geom_copies (a->geom) > 1;
}

bool
md_whole (const struct raid_array *a, uint32_t failed)
{
  return md_enough (a->geom, failed);
}

/* Fail member i after error err on op, as md does, unless the member
 * holds the last live copy of some chunk.  Linux md never fails that
 * member: raid1_error() ignores an error on the last in-sync disk and
 * raid10_error() one that would leave enough() false, "let the next
 * level up know", so that only the request fails.  Here too: a kept
 * member stays in the array, the caller fails its request with EIO, and
 * later requests go on as before.  (Since Linux 5.19 md also marks the
 * array MD_BROKEN then and refuses every later write; this plugin does
 * not, so that one transient error costs one request.)
 *
 * The check and the failure are one step under fail_lock, so that two
 * members failing at once cannot both pass it.
 */
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

bool
md_fail (struct raid_array *a, unsigned i, const char *op, int err)
{
  uint32_t failed;
  unsigned live = 0, j;

  pthread_mutex_lock (&fail_lock);
  failed = md_failed (a);
  if (failed & MD_BIT (i)) {
    pthread_mutex_unlock (&fail_lock);
    return true;
  }
  /* A member being rebuilt is no live copy. */
  if (!md_whole (a, failed | md_unsynced (a) | MD_BIT (i))) {
    pthread_mutex_unlock (&fail_lock);
    nbdkit_error ("member %u (%s): %s: %s; it holds the last live copy "
                  "of some of the array, so it is kept and the request "
                  "fails", i, a->members[i].name, op, member_strerror (err));
    return false;
  }
  atomic_store (&a->members[i].failed, true);
  pthread_mutex_unlock (&fail_lock);
  for (j = 0; j < a->nmembers; ++j)
    if (!atomic_load (&a->members[j].failed))
      live++;
  nbdkit_error ("member %u (%s) failed on %s: %s; array is degraded, "
                "%u of %u members remain", i, a->members[i].name, op,
                member_strerror (err), live, a->nmembers);
  /* A spare may take over; whatever takes the role next is rebuilt in
   * full.
   */
  if (a->can_rebuild) {
    atomic_fetch_and (&a->from_bitmap, ~MD_BIT (i));
    md_wake_recovery (a);
  }
  return true;
}

void
md_wake_recovery (struct raid_array *a)
{
  pthread_mutex_lock (&a->recovery.lock);
  a->recovery.wake = true;
  pthread_cond_broadcast (&a->recovery.cond);
  pthread_mutex_unlock (&a->recovery.lock);
}

uint64_t
md_rebuilt_below (struct raid_array *a, uint32_t set)
{
  uint64_t below = UINT64_MAX;
  unsigned r;

  for (r = 0; r < a->nmembers; ++r)
    if (set & MD_BIT (r)) {
      uint64_t m = md_recovery_offset (a->geom, r,
                                       atomic_load (&a->rebuilt[r]));

      if (m < below)
        below = m;
    }
  return below;
}

void
md_suspend (struct raid_array *a)
{
  if (a->can_rebuild)
    pthread_rwlock_wrlock (&a->quiesce);
}

void
md_resume (struct raid_array *a)
{
  if (a->can_rebuild)
    pthread_rwlock_unlock (&a->quiesce);
}
