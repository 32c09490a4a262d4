/* nbdkit-raid-plugin: the file and block-device backend's engine
 * choice, set by the io= parameter and reported by --dump-plugin.
 */
#ifndef RAID_MEMBER_FILE_H
#define RAID_MEMBER_FILE_H

enum file_io_mode {
  FILE_IO_AUTO,                 /* io_uring if it works, else threads */
  FILE_IO_URING,
  FILE_IO_THREADS,
};

extern enum file_io_mode file_io_mode;  /* asked for */


#include <stdbool.h>

/* Can this process set up an io_uring at all? */
extern bool file_probe_uring (void);

#endif
