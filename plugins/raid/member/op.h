/* nbdkit-raid-plugin: the operations of member I/O (nbdkit's own), by
 * which member.h's I/O and stats.h's counts are both kept.
 */
#ifndef RAID_MEMBER_OP_H
#define RAID_MEMBER_OP_H

enum member_op {
  MOP_READ,
  MOP_WRITE,
  MOP_ZERO,                     /* may punch holes if MIO_MAY_TRIM */
  MOP_TRIM,
  MOP_FLUSH,
};
#define MOP_COUNT 5

/* "pread", "pwrite", ... by enum member_op, for messages (member.c). */
extern const char *const op_names[MOP_COUNT];

#endif /* RAID_MEMBER_OP_H */
