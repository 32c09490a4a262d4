/* nbdkit-raid-plugin: spares, and members added, re-added and removed
 * while the array runs.  See spares.h for what they do; here, how.
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
#include <strings.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/mdrules.h"
#include "bitmap.h"
#include "spares.h"
#include "state.h"
#include "superblock.h"
#include "member/probe.h"

enum spare_state {
  SPARE_FREE,                   /* slot unused */
  SPARE_READY,                  /* a spare, waiting for a role */
  SPARE_OLD,                    /* holds what a spare replaced in a
                                 * missing role, or a member left out
                                 * at assembly: closed at unload */
  SPARE_FAULTY,                 /* holds a faulty member that a spare
                                 * (or a replacement, or a re-added
                                 * member) replaced: md lists it as
                                 * faulty until mdadm --remove
                                 * (spares_replaced), closed then or at
                                 * unload */
  SPARE_REPLACING,              /* being rebuilt as a live member's
                                 * replacement (sync/replace.c) */
};

/* The spare slots (there is one array), under a->recovery.lock.  A
 * slot's member has index nmembers + its slot.
 */
static struct {
  struct member spare[RAID_MAX_SPARES];
  struct raid_member_load load[RAID_MAX_SPARES];
  struct mdsb sb[RAID_MAX_SPARES];
  enum spare_state state[RAID_MAX_SPARES];
  unsigned replaced_role[RAID_MAX_SPARES];  /* SPARE_FAULTY: its role */
  bool sb_written[RAID_MAX_SPARES];
  /* Every name a slot was opened with (strdup'd by spare_open), freed
   * only by spares_close.  A takeover swaps names between a role and a
   * slot, and another thread (the statistics, the log) may be reading a
   * role's name meanwhile, so none is freed while the plugin runs; one
   * per add, bounded by what the user adds.
   */
  char **names;
  size_t nnames;
} sp;

/* One add or replace at a time. */
static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;

void
spares_lock_adds (void)
{
  pthread_mutex_lock (&add_lock);
}

void
spares_unlock_adds (void)
{
  pthread_mutex_unlock (&add_lock);
}

/* ---- opening a slot ---------------------------------------------------- */

/* A free slot, or RAID_MAX_SPARES if none; what, for the message. */
static unsigned
free_slot (struct raid_array *a, const char *what, const char *member)
{
  unsigned j;

  pthread_mutex_lock (&a->recovery.lock);
  for (j = 0; j < RAID_MAX_SPARES && sp.state[j] != SPARE_FREE; ++j)
    ;
  pthread_mutex_unlock (&a->recovery.lock);
  if (j == RAID_MAX_SPARES) {
    nbdkit_error ("%s: %s: there are %d spares or replaced members "
                  "already", what, member, RAID_MAX_SPARES);
    errno = ENOSPC;
  }
  return j;
}

static bool
same_member (const struct raid_array *a, const struct member *m,
             const char **other)
{
  unsigned i;

  for (i = 0; i < a->nmembers; ++i)
    if (a->members[i].identity &&
        strcmp (a->members[i].identity, m->identity) == 0) {
      *other = a->members[i].name;
      return true;
    }
  for (i = 0; i < RAID_MAX_SPARES; ++i)
    if (sp.state[i] != SPARE_FREE && &sp.spare[i] != m &&
        sp.spare[i].identity &&
        strcmp (sp.spare[i].identity, m->identity) == 0) {
      *other = sp.spare[i].name;
      return true;
    }
  return false;
}

/* Close a member opened into a spare slot that never became a spare. */
static void
spare_discard (struct member *m)
{
  int e = errno;

  m->ops->close (m);
  stats_destroy (&m->stats);
  free (m->identity);
  free (m->backing);
  memset (m, 0, sizeof *m);     /* its name stays in sp.names */
  errno = e;
}

/* Give m a copy of name, kept in sp.names until spares_close. */
static int
keep_name (struct raid_array *a, struct member *m, const char *name)
{
  char **names;

  pthread_mutex_lock (&a->recovery.lock);
  names = realloc (sp.names, (sp.nnames + 1) * sizeof *names);
  if (names != NULL) {
    sp.names = names;
    m->name = strdup (name);
    if (m->name != NULL)
      sp.names[sp.nnames++] = m->name;
  }
  pthread_mutex_unlock (&a->recovery.lock);
  if (names == NULL || m->name == NULL) {
    nbdkit_error ("spare: %s: %m", name);
    return -1;
  }
  return 0;
}

/* What m holds may be written over: blank, or a member of this array.
 * Returns 0, or -1 with errno set after nbdkit_error.
 */
static int
check_holds (struct raid_array *a, struct member *m, const char *name,
             struct member_md *md)
{
  if (superblock_read (m, md) == -1) {
    errno = EIO;
    return -1;
  }
  if (md->kind == MD_OTHER ||
      (md->kind == MD_V1_2 &&
       (!md->valid ||
        memcmp (md->sb.set_uuid, superblock_ref (a)->set_uuid, 16)))) {
    nbdkit_error ("spare: %s holds md metadata (version %s) of another "
                  "array; refusing to write over it", name,
                  md->version ? md->version : "?");
    errno = EMEDIUMTYPE;
    return -1;
  }
  if (md->kind == MD_NONE &&
      member_check_blank (m, "spare", false, a->conf.force) == -1) {
    if (errno != EMEDIUMTYPE)
      errno = EIO;
    return -1;
  }
  return 0;
}

/* Open name into spare slot j and check it (spare_ready then makes it a
 * spare); *mdout, if not NULL, gets what it holds.  errno is set on
 * failure.
 */
static int
spare_open (struct raid_array *a, unsigned j, const char *name,
            bool started, struct member_md *mdout)
{
  struct member *m = &sp.spare[j];
  struct member_md md;
  const char *other;

  /* A slot used before (a member removed after a spare replaced it)
   * still owns its statistics' shards: nothing reads a free slot's
   * statistics, so they go before member_open makes new ones.
   */
  stats_destroy (&m->stats);
  memset (m, 0, sizeof *m);
  m->index = a->nmembers + j;
  if (keep_name (a, m, name) == -1)
    return -1;
  m->load = &sp.load[j];
  memset (m->load, 0, sizeof *m->load);
  m->io_mode = a->conf.io_mode;
  m->timeout_ms = a->conf.timeout_ms;
  m->max_inflight = a->conf.max_inflight;
  if (m->name[0] == '\0' || strcasecmp (m->name, "missing") == 0) {
    nbdkit_error ("spare: '%s' is not a file, device or NBD URI", name);
    errno = EINVAL;
    goto clear;
  }
  if (member_open (m) == -1) {
    if (errno == 0)
      errno = EIO;
    goto clear;
  }
  if (same_member (a, m, &other)) {
    nbdkit_error ("spare: %s is %s, already in the array", name, other);
    errno = EEXIST;
    goto close;
  }
  if (m->read_only) {
    nbdkit_error ("spare: %s can only be read", name);
    errno = EROFS;
    goto close;
  }
  if (m->min_block > 4096 || (a->align > 1 && m->min_block > a->align)) {
    nbdkit_error ("spare: %s wants blocks of %" PRIu32 " bytes, more than "
                  "the array's %" PRIu32, name, m->min_block, a->align);
    errno = EINVAL;
    goto close;
  }
  if (check_holds (a, m, name, &md) == -1)
    goto close;
  if (started && m->ops->start (m) == -1) {
    nbdkit_error ("spare: %s: starting it failed", name);
    errno = EIO;
    goto close;
  }
  if (mdout)
    *mdout = md;
  return 0;

 close:
  spare_discard (m);
  return -1;
 clear:
  stats_destroy (&m->stats);   /* if member_open made them */
  memset (m, 0, sizeof *m);     /* its name stays in sp.names */
  return -1;
}

/* Give the spare opened in slot j its superblock (meta.lock held while
 * serving): a member of this array (a spare from before, or a stale
 * member) is a spare again, with a slot of its own, since there is no
 * bitmap and it is rebuilt in full whatever it holds.
 */
static int
spare_ready (struct raid_array *a, unsigned j)
{
  if (superblock_new (a, superblock_ref (a), &sp.spare[j], MDSB_ROLE_SPARE,
                      &sp.sb[j]) == -1) {
    nbdkit_error ("spare: %s cannot be a spare", sp.spare[j].name);
    return -1;
  }
  sp.sb_written[j] = false;
  pthread_mutex_lock (&a->recovery.lock);
  sp.state[j] = SPARE_READY;
  pthread_mutex_unlock (&a->recovery.lock);
  return 0;
}

/* Write spare j's superblock, with meta.lock held. */
static int
spare_write_sb_locked (struct raid_array *a, unsigned j)
{
  if (superblock_write_spare_locked (a, &sp.spare[j], &sp.sb[j]) == -1)
    return -1;
  sp.sb_written[j] = true;
  return 0;
}

/* A spare opened in slot j, made ready and written, and then in state
 * state, all under meta.lock (no takeover sees it in between); on
 * failure the slot is free again.
 */
static int
spare_ready_written (struct raid_array *a, unsigned j, enum spare_state state)
{
  int r;

  pthread_mutex_lock (&a->meta.lock);
  r = spare_ready (a, j);
  if (r == 0)
    r = spare_write_sb_locked (a, j);
  pthread_mutex_lock (&a->recovery.lock);
  sp.state[j] = r == 0 ? state : SPARE_FREE;
  pthread_mutex_unlock (&a->recovery.lock);
  if (r == -1)
    spare_discard (&sp.spare[j]);
  pthread_mutex_unlock (&a->meta.lock);
  return r;
}

/* ---- at config time and at the start ------------------------------------ */

int
spares_config (struct raid_array *a, char *const *names, unsigned n)
{
  unsigned j;

  a->can_rebuild = a->meta.on && raid_geom_copies (a->geom) > 1;
  if (n > 0 && !a->can_rebuild) {
    nbdkit_error ("spare: spares need an array with md metadata and "
                  "copies (RAID 1 or 10)");
    return -1;
  }
  for (j = 0; j < n; ++j)
    if (spare_open (a, j, names[j], false, NULL) == -1 ||
        spare_ready (a, j) == -1)
      return -1;
  return 0;
}

int
spares_after_fork (struct raid_array *a)
{
  unsigned j;

  for (j = 0; j < RAID_MAX_SPARES; ++j)
    if (sp.state[j] == SPARE_READY &&
        sp.spare[j].ops->start (&sp.spare[j]) == -1)
      return -1;
  return 0;
}

void
spares_preconnect (struct raid_array *a, bool readonly)
{
  unsigned j;

  if (!readonly)
    return;
  for (j = 0; j < RAID_MAX_SPARES; ++j)
    if (sp.state[j] == SPARE_READY) {
      atomic_store (&sp.spare[j].no_writes, true);
      if (sp.spare[j].ops->drop_write)
        sp.spare[j].ops->drop_write (&sp.spare[j]);
    }
}

int
spares_write_sbs_locked (struct raid_array *a)
{
  unsigned j;

  for (j = 0; j < RAID_MAX_SPARES; ++j)
    if (sp.state[j] == SPARE_READY && !sp.sb_written[j] &&
        spare_write_sb_locked (a, j) == -1)
      return -1;
  return 0;
}

void
spares_close (struct raid_array *a)
{
  unsigned j;

  for (j = 0; j < RAID_MAX_SPARES; ++j) {
    struct member *m = &sp.spare[j];

    /* A free slot may still own the shards of a member removed from
     * it (spare_open frees them when the slot is used again).
     */
    stats_destroy (&m->stats);
    if (sp.state[j] == SPARE_FREE)
      continue;
    if (m->ops)
      m->ops->close (m);
    free (m->identity);
    free (m->backing);
    sp.state[j] = SPARE_FREE;
  }
  /* The names last: a slot's and a role's may be among them. */
  for (size_t i = 0; i < sp.nnames; ++i)
    free (sp.names[i]);
  free (sp.names);
  sp.names = NULL;
  sp.nnames = 0;
}

/* ---- taking a role ------------------------------------------------------ */

/* Slot j's member takes role r, whose member goes to slot j: listed as
 * faulty until removed if it was in the array, as in md (a missing
 * role's placeholder, or a member left out at assembly, never was).
 * With the quiesce lock for writing, meta.lock and a->recovery.lock
 * held.  The new member's superblock is sb, its role in its own slot.
 */
static void
put_in_role_locked (struct raid_array *a, unsigned j, unsigned r,
                    const struct mdsb *sb)
{
  struct member *m = &a->members[r];

  sp.state[j] = a->meta.in_array[r] && m->ops != &missing_ops
    ? SPARE_FAULTY : SPARE_OLD;
  sp.replaced_role[j] = r;
  member_swap_backend (m, &sp.spare[j]);
  atomic_store (&sp.spare[j].failed, true);
  a->meta.sb[r] = *sb;
  a->meta.sb[r].dev_roles[a->meta.sb[r].dev_number] = r;
  a->meta.in_array[r] = true;
}

/* Role r's member is to be rebuilt from array offset 0 (from the bitmap
 * if from_bitmap): out of sync, and no longer failed.
 */
static void
rebuild_role (struct raid_array *a, unsigned r, bool from_bitmap)
{
  atomic_store (&a->rebuilt[r], 0);
  if (from_bitmap)
    atomic_fetch_or (&a->from_bitmap, MD_BIT (r));
  atomic_fetch_or (&a->unsynced, MD_BIT (r));
  atomic_store (&a->members[r].failed, false);
  atomic_fetch_and (&a->meta.recorded, ~MD_BIT (r));
}

bool
spares_ready_locked (struct raid_array *a)
{
  unsigned j;

  for (j = 0; j < RAID_MAX_SPARES; ++j)
    if (sp.state[j] == SPARE_READY)
      return true;
  return false;
}

unsigned
spares_take (struct raid_array *a)
{
  unsigned r, j, n = 0;
  bool any;

  pthread_mutex_lock (&a->recovery.lock);
  any = spares_ready_locked (a);
  pthread_mutex_unlock (&a->recovery.lock);
  if (!any || md_failed (a) == 0)
    return 0;

  pthread_rwlock_wrlock (&a->quiesce);
  pthread_mutex_lock (&a->meta.lock);
  pthread_mutex_lock (&a->recovery.lock);
  for (r = 0; r < a->nmembers; ++r) {
    struct member *m = &a->members[r];
    char *old;

    if (!atomic_load (&m->failed))
      continue;
    for (j = 0; j < RAID_MAX_SPARES && sp.state[j] != SPARE_READY; ++j)
      ;
    if (j == RAID_MAX_SPARES)
      break;
    old = m->name;
    put_in_role_locked (a, j, r, &sp.sb[j]);
    a->meta.sb[r].feature_map |= MDSB_FEATURE_RECOVERY_OFFSET;
    a->meta.sb[r].recovery_offset = 0;
    rebuild_role (a, r, false);
    nbdkit_error ("spare %s takes over role %u from %s (member %u); it is "
                  "rebuilt from the live copies", m->name, r, old, r);
    n++;
  }
  pthread_mutex_unlock (&a->recovery.lock);
  if (n > 0 && superblock_update_locked (a, "a spare takes over") == -1)
    nbdkit_error ("spare: the superblocks could not record the takeover");
  pthread_mutex_unlock (&a->meta.lock);
  pthread_rwlock_unlock (&a->quiesce);
  return n;
}

/* ---- add, re-add --------------------------------------------------------- */

/* mdadm --re-add while serving: the member opened into spare slot j
 * holds a superblock of this array whose role r is failed or empty now,
 * and the bitmap still marks every write it missed (md_readd,
 * raidsim/core/mdrules.c): it takes role r back, with its own
 * superblock (dev_number, device UUID), and only the chunks whose bits
 * are set are rebuilt.  Every client request is held out meanwhile, as
 * for a spare taking over.  md is what it holds.  Returns 1 if it did,
 * 0 if the member is to be a spare instead (logged).
 */
static int
try_readd (struct raid_array *a, unsigned j, const struct member_md *mdp)
{
  struct member *spm = &sp.spare[j], *m;
  const struct member_md md = *mdp;
  const char *why, *old;
  struct md_array_view view = {
    .n = a->nmembers, .failed = md_failed (a),
    .events = a->meta.events, .sb = a->meta.sb, .in_array = a->meta.in_array,
  };
  unsigned r, i;
  int ret = 0;

  if (md.kind != MD_V1_2 || !md.valid)
    return 0;                   /* blank: a spare */
  bitmap_readd_view (a, &view.bitmap);
  switch (md_readd (&view, &md.sb, &r, &why, &i)) {
  case MD_READD:
    break;
  case MD_READD_WAS_SPARE:
    return 0;                   /* a spare of this array before */
  case MD_READD_ROLE_LIVE:
    nbdkit_error ("add: %s held role %u, which a live member holds now: "
                  "it is added as a spare", spm->name, r);
    return 0;
  case MD_READD_AHEAD:
    nbdkit_error ("add: %s: events %" PRIu64 " are ahead of the array's %"
                  PRIu64 ": it is added as a spare and rebuilt in full",
                  spm->name, md.sb.events, a->meta.events);
    return 0;
  case MD_READD_NO_BITMAP:
    nbdkit_error ("add: %s held role %u, but %s (events %" PRIu64
                  ", events_cleared %" PRIu64 "): it is added as a spare "
                  "and rebuilt in full (md's hot-add)", spm->name, r, why,
                  md.sb.events, view.bitmap.events_cleared);
    return 0;
  case MD_READD_DEV_TAKEN:
    nbdkit_error ("add: %s: its device number %" PRIu32 " is member "
                  "%u's now: it is added as a spare", spm->name,
                  md.sb.dev_number, i);
    return 0;
  }

  pthread_rwlock_wrlock (&a->quiesce);
  pthread_mutex_lock (&a->meta.lock);
  pthread_mutex_lock (&a->recovery.lock);
  m = &a->members[r];
  /* A spare may have taken the role meanwhile. */
  if (atomic_load (&m->failed) && sp.state[j] == SPARE_FREE) {
    old = m->name;
    put_in_role_locked (a, j, r, &md.sb);
    superblock_use_slot (a, md.sb.dev_number);
    a->meta.sb[r].feature_map |= MDSB_FEATURE_RECOVERY_OFFSET |
      MDSB_FEATURE_RECOVERY_BITMAP;
    a->meta.sb[r].recovery_offset = 0;
    rebuild_role (a, r, true);
    nbdkit_error ("add: %s is re-added as member %u (md's --re-add; it "
                  "replaces %s): events %" PRIu64 ", not older than the "
                  "write-intent bitmap's events_cleared %" PRIu64 ": only "
                  "the chunks whose bits are set are rebuilt", m->name, r,
                  old, md.sb.events, bitmap_events_cleared (a));
    ret = 1;
  }
  pthread_mutex_unlock (&a->recovery.lock);
  if (ret == 1 && superblock_update_locked (a, "a member re-added") == -1)
    nbdkit_error ("add: the superblocks could not record the re-add");
  pthread_mutex_unlock (&a->meta.lock);
  pthread_rwlock_unlock (&a->quiesce);
  return ret;
}

int
spares_add (struct raid_array *a, const char *member, bool replace_now)
{
  struct member_md md;
  unsigned j;
  int r = -1;

  if (!a->can_rebuild) {
    nbdkit_error ("add: %s: the array has no md metadata or no copies; "
                  "nothing can be rebuilt", member);
    errno = EINVAL;
    return -1;
  }
  if (!a->recovery.running) {
    nbdkit_error ("add: %s: the array is not written (nbdkit -r, or no "
                  "client has connected yet)", member);
    errno = EROFS;
    return -1;
  }
  if (replace_now && md_failed (a) == 0) {
    nbdkit_error ("add: %s: no member is failed or missing to replace",
                  member);
    errno = EBUSY;
    return -1;
  }
  /* One add at a time; the slow part (opening, probing) holds no lock
   * that requests or the walk need.
   */
  spares_lock_adds ();
  j = free_slot (a, "add", member);
  if (j == RAID_MAX_SPARES)
    goto out;
  r = spare_open (a, j, member, true, &md);
  if (r == 0 && try_readd (a, j, &md) == 1) {
    md_wake_recovery (a);
    r = 1;
    goto out;
  }
  if (r == 0)
    r = spare_ready_written (a, j, SPARE_READY);
  if (r == 0) {
    nbdkit_error ("add: %s is a spare of the array", member);
    md_wake_recovery (a);
  }
 out:
  spares_unlock_adds ();
  return r;
}

/* ---- replaced members, and a replacement ---------------------------------- */

const char *
spares_replaced (struct raid_array *a, unsigned j, unsigned *role)
{
  const char *name = NULL;

  pthread_mutex_lock (&a->recovery.lock);
  if (sp.state[j] == SPARE_FAULTY) {
    name = sp.spare[j].name;
    *role = sp.replaced_role[j];
  }
  pthread_mutex_unlock (&a->recovery.lock);
  return name;
}

int
spares_remove_replaced (struct raid_array *a, unsigned j)
{
  struct member *m = &sp.spare[j];
  int rc = 0;

  /* Nothing addresses it since the takeover (which held every request
   * out); drained all the same before it is closed.
   */
  member_drain (m);
  m->ops->close (m);
  m->ops = NULL;
  free (m->identity);
  m->identity = NULL;
  free (m->backing);
  m->backing = NULL;
  /* Its name stays: spares_close frees it (sp.names). */
  pthread_mutex_lock (&a->meta.lock);
  pthread_mutex_lock (&a->recovery.lock);
  sp.state[j] = SPARE_FREE;
  pthread_mutex_unlock (&a->recovery.lock);
  if (a->meta.started)
    rc = superblock_update_locked (a, "a member removed");
  pthread_mutex_unlock (&a->meta.lock);
  return rc;
}

struct member *
spares_open_replacement (struct raid_array *a, const char *member,
                         unsigned *slot)
{
  unsigned j = free_slot (a, "replace", member);

  if (j == RAID_MAX_SPARES || spare_open (a, j, member, true, NULL) == -1)
    return NULL;
  /* Its own superblock, as a spare's, until it takes the role: a
   * restart in the middle finds a spare (md's would say replacement).
   * Nothing takes it meanwhile: it is never SPARE_READY.
   */
  if (spare_ready_written (a, j, SPARE_REPLACING) == -1)
    return NULL;
  *slot = j;
  return &sp.spare[j];
}

void
spares_replacement_done_locked (struct raid_array *a, unsigned slot,
                                unsigned r)
{
  member_swap_backend (&a->members[r], &sp.spare[slot]);
  /* md marks the member it replaced faulty; it is listed so until
   * removed.
   */
  sp.state[slot] = SPARE_FAULTY;
  sp.replaced_role[slot] = r;
  atomic_store (&sp.spare[slot].failed, true);
  a->meta.sb[r] = sp.sb[slot];
  a->meta.sb[r].dev_roles[a->meta.sb[r].dev_number] = r;
  a->meta.sb[r].feature_map &= ~MDSB_FEATURE_RECOVERY_OFFSET;
  a->meta.sb[r].recovery_offset = 0;
  a->meta.in_array[r] = true;
}

void
spares_replacement_undo_locked (struct raid_array *a, unsigned slot)
{
  sp.state[slot] = SPARE_READY;
}
