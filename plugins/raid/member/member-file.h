/* nbdkit-raid-plugin: what the file and block-device backend tells the
 * rest of the plugin: whether io_uring works here (--dump-plugin).  The
 * engine a member uses is its io_mode (member.h), set by io=.
 */
#ifndef RAID_MEMBER_FILE_H
#define RAID_MEMBER_FILE_H

#include <stdbool.h>

/* Can this process set up an io_uring at all? */
extern bool file_probe_uring (void);

#endif
