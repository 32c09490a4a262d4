/* raidsim: the copy choice, shared by the nbdkit plugin and the
 * simulator: which copy of a piece a RAID 1 or RAID 10 read goes to.
 *
 * Both programs keep one struct raid_read_state per array, tell it
 * about every member I/O they issue and every one that completes
 * (raid_load_issue, raid_load_done), and ask raid_read_choose for every
 * piece of a read.  So long as both issue and complete the same member
 * I/O in the same order, they choose the same copies: the simulator
 * predicts the plugin's member I/O exactly (tests/unit/test-copy-choice.c
 * checks it).
 *
 * The state is atomic because the plugin's requests run in many threads
 * at once and choose while others issue and complete.  Updates of one
 * member's load must not race each other: the plugin makes them under
 * that member's slot lock (member.c), and the simulator has one thread.
 */
#ifndef RAIDSIM_READPOLICY_H
#define RAIDSIM_READPOLICY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "raidsim/geometry.h"

/* The policies, each once: its enum value, its name (the plugin's
 * read-policy= value, the simulator's read-policy key) and what it does.
 * The order is the enum's, and the order --help lists them in.
 */
#define RAID_READ_POLICIES(X)                                           \
  X (RAID_READ_ROUND_ROBIN, "round-robin",                              \
     "the copies in turn, by one counter for the whole array")          \
  X (RAID_READ_LEAST_PENDING, "least-pending",                          \
     "the copy whose member has the fewest I/Os in flight (md's "       \
     "choice for non-rotational members); the default")                 \
  X (RAID_READ_SEQUENTIAL, "sequential",                                \
     "the copy whose member's last I/O ended nearest to where this "    \
     "one starts, so that a stream stays on one member (md's choice "   \
     "for disks)")                                                      \
  X (RAID_READ_FIRST, "first",                                          \
     "the first copy in layout order that can be read")

enum raid_read_policy {
#define RAID_READ_ENUM(id, name, help) id,
  RAID_READ_POLICIES (RAID_READ_ENUM)
#undef RAID_READ_ENUM
  RAID_READ_POLICY_COUNT
};

#define RAID_READ_POLICY_DEFAULT RAID_READ_LEAST_PENDING

extern const char *raid_read_policy_name (enum raid_read_policy p);
extern const char *raid_read_policy_help (enum raid_read_policy p);
/* Returns 0, or -1 with raid_geom_error () naming the value and listing
 * the policies.
 */
extern int raid_parse_read_policy (const char *s, enum raid_read_policy *p);

/* What the policies look at, per member.  pending counts member I/Os
 * issued and not yet complete, of any kind; head is the member offset
 * just past the last read or write issued.  The head moves when an I/O
 * is issued, as md's head_position does when it chooses, so that the
 * next request of a stream already sees it.
 */
struct raid_member_load {
  atomic_uint pending;
  atomic_uint_fast64_t head;
};

struct raid_read_state {
  struct raid_member_load member[RAID_MAX_MEMBERS];
  atomic_uint_fast64_t rr;      /* round-robin's counter */
};

extern void raid_read_state_init (struct raid_read_state *st);

/* An I/O of length bytes at member offset offset was issued to member
 * m; moves_head is true for reads and writes (not flush, trim, zero).
 */
extern void raid_load_issue (struct raid_member_load *m, bool moves_head,
                             uint64_t offset, uint64_t length);
/* An I/O of member m completed, successfully or not. */
extern void raid_load_done (struct raid_member_load *m);

/* Which of the ncopies copies of a piece to read.
 *
 * 1. Only copies whose bit is clear in skip are candidates (the caller
 *    sets the bits of copies on failed members and copies this request
 *    has already tried).
 * 2. A single candidate is chosen without looking further.
 * 3. Otherwise the policy chooses among the candidates; ties go to the
 *    earlier copy in layout order.  Round-robin advances the array's
 *    counter by one.
 *
 * A request chooses a copy for every piece before it issues any member
 * I/O, so its own pieces do not count as pending: they stay on one copy
 * where the counts allow, and go to that member as one run.
 *
 * Returns the copy's index, or -1 if no candidate remains.
 */
extern int raid_read_choose (enum raid_read_policy policy,
                             struct raid_read_state *st,
                             const struct raid_copy *copy, unsigned ncopies,
                             uint32_t skip);

#endif /* RAIDSIM_READPOLICY_H */
