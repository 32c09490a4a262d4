/* nbdkit-raid-plugin: the control socket's protocol but the socket
 * (verbs.c): one request line in, one reply out.  The verbs are
 * include/raidsim/controlverbs.h's; those that change the array (fail,
 * remove, add, check, repair, idle) wait until the first client
 * connection has started it, as md's only act on a running array.
 */
#ifndef RAID_CTL_VERBS_H
#define RAID_CTL_VERBS_H

struct raid_array;

/* One request line (without its newline) in, one reply out (a JSON
 * object, malloc'd, without a newline).  A request that is malformed,
 * too long (CONTROL_LINE_MAX), of an unknown verb or of the wrong
 * arguments gets {"error": ...} and changes nothing.
 */
extern char *verbs_handle (struct raid_array *a, const char *line);

#endif /* RAID_CTL_VERBS_H */
