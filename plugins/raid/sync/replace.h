/* nbdkit-raid-plugin: mdadm --replace OLD --with NEW (replace.c), the
 * live control's "add NEW --replace OLD".
 *
 * NEW, opened and checked as an added member is (md/spares.h), gets a
 * spare's superblock of its own and is rebuilt as the replacement of
 * role r's member, which must be live and in sync, while that member
 * keeps serving: reads go to it, and client writes go to it and to the
 * replacement (io/write.c), one more copy for each piece on role r.  A
 * thread copies role r's member to it in MD_SYNC_REGION steps, each
 * holding its range against client writes.  When the copy is done (and
 * flushed), the replacement takes role r, and the old member is out of
 * the array: faulty, listed (spares_replaced) until removed, as md
 * marks it faulty once its replacement is in sync.  If the old member
 * fails, or a write to the replacement fails, or the server stops
 * first, the replacement is given up and stays a spare.  One
 * replacement at a time, and not while a resync or rebuild runs.
 */
#ifndef RAID_SYNC_REPLACE_H
#define RAID_SYNC_REPLACE_H

#include <stdbool.h>
#include <stdint.h>

struct raid_array;

/* Start replacing role r's member with member.  If role r is failed or
 * missing, this is spares_add (member, true), and returns what it does.
 * Returns 2 once the copy has started, or -1 with errno as spares_add's,
 * EBUSY for a replacement, a rebuild or a resync running.
 */
extern int replace_start (struct raid_array *a, const char *member,
                          unsigned r);

/* raid_unload, before rebuild_stop: give the replacement up and wait
 * for its thread.
 */
extern void replace_stop (struct raid_array *a);

/* For the control socket's detail: the replacement running, if any. */
struct replace_view {
  bool on;
  unsigned role;
  const char *name;
  uint64_t done, total;
};
extern void replace_view (struct raid_array *a, struct replace_view *v);

#endif /* RAID_SYNC_REPLACE_H */
