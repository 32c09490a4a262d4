/* nbdkit-raid-plugin: the control socket's replies (detail.c), each a
 * JSON object, malloc'd, without a newline: the array's detail, which
 * mdadm --detail shows (members and their states, the faulty members
 * spares replaced, the replacement running, the sync action, the
 * bitmap), with its /proc/mdstat form in "mdstat"; and {"error": ...}.
 */
#ifndef RAID_CTL_DETAIL_H
#define RAID_CTL_DETAIL_H

struct raid_array;

/* The array's detail; message, if not NULL, is added as "message". */
extern char *detail_reply (struct raid_array *a, const char *message);

/* {"error": MESSAGE}, MESSAGE from fmt. */
extern char *error_reply (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));

/* Role r's member's state, in md's words (mdadm --detail): "active
 * sync", "faulty", "spare rebuilding", "removed".
 */
extern const char *detail_member_state (const struct raid_array *a,
                                        unsigned r);

/* What md's /proc/mdstat would call a member: its file's last
 * component; an NBD URI as it is.
 */
extern const char *detail_short_name (const char *name);

#endif /* RAID_CTL_DETAIL_H */
