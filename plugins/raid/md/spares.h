/* nbdkit-raid-plugin: spares, and members added, re-added and removed
 * while the array runs (spares.c): mdadm --add, --re-add and --remove,
 * and md's hot spares (remove_and_add_spares).
 *
 *   - a hot spare (spare=, or spares_add): a member whose superblock
 *     gives it the spare role (0xffff), written if it was blank.  When a
 *     member fails (an I/O error, a timeout) or is missing, a spare
 *     takes over its role (spares_take, from the rebuild's thread) and
 *     is rebuilt in full (sync/rebuild.h);
 *   - a member of this array added while serving into its own role,
 *     when that role is failed or empty and the write-intent bitmap
 *     still marks every write it missed (md_readd,
 *     raidsim/core/mdrules.c): re-added, as mdadm --re-add, with its
 *     own superblock, and only the chunks whose bits are set are
 *     rebuilt.  Otherwise it becomes a spare with a superblock of its
 *     own, as md's hot-add of a member too old for the bitmap;
 *   - a member given must be blank (no signature libblkid knows, no md
 *     metadata: member/probe.h), or hold this array's superblock: one
 *     holding a file system, a partition table or any other signature
 *     is refused unless force= is given, so that a typo never
 *     overwrites data; a member of another md array always is;
 *   - a faulty member that a spare, a re-add or a replacement took the
 *     role of stays listed as faulty, out of any role, until it is
 *     removed (md's "(F)" in /proc/mdstat), as md keeps it.
 *
 * A spare taking over.  A member's struct stays in its role's place in
 * a->members[], since the geometry, the read state and every bitmask
 * name members by role; what moves is its backend (member_swap_backend):
 * the failed member's goes to the spare's slot, the spare's to the
 * role.  That happens only with every client request held out (the
 * quiesce lock for writing) and under meta.lock, so that no member I/O
 * is in flight on either and no superblock update runs meanwhile.
 *
 * The slots are guarded by a->recovery.lock (state.h).
 */
#ifndef RAID_MD_SPARES_H
#define RAID_MD_SPARES_H

#include <stdbool.h>

#define RAID_MAX_SPARES 8

struct raid_array;
struct member;

/* After assembly: whether members can be rebuilt (md metadata and
 * copies), and the spares given with spare= (names[0 .. n - 1]) opened
 * and checked.  Returns 0, or -1 after nbdkit_error ("spare: ...").
 */
extern int spares_config (struct raid_array *a, char *const *names,
                          unsigned n);
/* raid_after_fork: start the spares' backends. */
extern int spares_after_fork (struct raid_array *a);
/* raid_preconnect, before superblock_start: nbdkit -r holds the spares
 * read-only too.
 */
extern void spares_preconnect (struct raid_array *a, bool readonly);
/* Before the rebuild's thread starts, with meta.lock held: write the
 * superblocks of the spares given at start.  Returns 0, or -1 after
 * nbdkit_error.
 */
extern int spares_write_sbs_locked (struct raid_array *a);
/* raid_unload, after the members: close the spares. */
extern void spares_close (struct raid_array *a);

/* The rebuild's thread.  spares_ready_locked, with a->recovery.lock
 * held: whether a spare waits for a role.  spares_take: ready spares
 * take over the roles without a live member (failed, missing), every
 * client request held out; returns how many did.
 */
extern bool spares_ready_locked (struct raid_array *a);
extern unsigned spares_take (struct raid_array *a);

/* Add a member while the array is served, from any thread: the live
 * control's "add" (mdadm --add, --re-add).  member is a file, device or
 * NBD URI.  replace_now: it must take over a failed or missing role
 * now; if no role is failed or missing it is not added (EBUSY).
 *
 * Returns 0 once the member is a spare (the takeover and the rebuild go
 * on in the background), 1 once it is re-added into its role (the
 * rebuild goes on in the background), or -1 with errno set after one
 * nbdkit_error line: EINVAL (an array without md metadata or copies, or
 * a bad name), EROFS (nbdkit -r, or not started yet: no client has
 * connected), ENOSPC (RAID_MAX_SPARES spares already), EEXIST (the
 * member is already in the array or a spare), EBUSY (replace_now and
 * nothing to replace), EMEDIUMTYPE (a signature, or a member of another
 * array), EFBIG (too small), or the errno of opening or writing it.
 */
extern int spares_add (struct raid_array *a, const char *member,
                       bool replace_now);

/* The faulty members out of any role (md lists them until mdadm
 * --remove: "(F)" in /proc/mdstat, "faulty" with RaidDevice "-" in
 * mdadm --detail).  For spare slot j: its name as given, and in *role
 * the role it had; NULL if slot j holds none.  From the control
 * socket's thread, which alone removes them.
 */
extern const char *spares_replaced (struct raid_array *a, unsigned j,
                                    unsigned *role);
/* mdadm --remove of such a member (the control socket's remove): it is
 * closed, its slot freed, and the superblocks updated (one event on, as
 * md's hot remove).  Returns 0, or -1 if the update failed (the member
 * is removed all the same).
 */
extern int spares_remove_replaced (struct raid_array *a, unsigned j);

/* For a replacement (sync/replace.c, mdadm --replace).  One add or
 * replace at a time: spares_lock_adds, spares_unlock_adds.
 * spares_open_replacement, adds held: member opened and checked as
 * spares_add's, with a spare's superblock of its own (a restart in the
 * middle finds a spare), never taken by spares_take; returns it, its
 * slot in *slot, or NULL with errno set after nbdkit_error.  Then,
 * with the quiesce lock for writing, meta.lock and a->recovery.lock
 * held: spares_replacement_done_locked puts it in role r, and the
 * member it replaced in its slot, faulty; spares_replacement_undo_locked
 * makes it a spare again.
 */
extern void spares_lock_adds (void);
extern void spares_unlock_adds (void);
extern struct member *spares_open_replacement (struct raid_array *a,
                                               const char *member,
                                               unsigned *slot);
extern void spares_replacement_done_locked (struct raid_array *a,
                                            unsigned slot, unsigned r);
extern void spares_replacement_undo_locked (struct raid_array *a,
                                            unsigned slot);

#endif /* RAID_MD_SPARES_H */
