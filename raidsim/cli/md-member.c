/* raidsim: an md member's file or device, and its superblock's 4K.
 * See md-member.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include "md-member.h"

int
md_member_open (struct md_member *m, const char *cmd, const char *path,
                bool writable)
{
  struct stat st;
  int flags = O_CLOEXEC | (writable ? O_RDWR : O_RDONLY);

  memset (m, 0, sizeof *m);
  m->path = path;
  m->fd = -1;
  if (stat (path, &st) == -1) {
    fprintf (stderr, "%s: %s: %s\n", cmd, path, strerror (errno));
    return -1;
  }
  if (S_ISBLK (st.st_mode) && writable)
    flags |= O_EXCL;
  else if (!S_ISREG (st.st_mode) && !S_ISBLK (st.st_mode)) {
    fprintf (stderr, "%s: %s: not a regular file or a block device\n",
             cmd, path);
    return -1;
  }
  m->fd = open (path, flags);
  if (m->fd == -1) {
    fprintf (stderr, "%s: %s: %s%s\n", cmd, path, strerror (errno),
             errno == EBUSY ? " (in use: mounted, or in a running array?)"
             : "");
    return -1;
  }
  if (fstat (m->fd, &st) == -1) {
    fprintf (stderr, "%s: %s: fstat: %s\n", cmd, path, strerror (errno));
    goto err;
  }
  m->is_block = S_ISBLK (st.st_mode);
  if (m->is_block) {
    m->dev = st.st_rdev;
    m->ino = 0;
    if (ioctl (m->fd, BLKGETSIZE64, &m->size) == -1) {
      fprintf (stderr, "%s: %s: BLKGETSIZE64: %s\n", cmd, path,
               strerror (errno));
      goto err;
    }
  }
  else {
    m->dev = st.st_dev;
    m->ino = st.st_ino;
    m->size = st.st_size;
  }
  return 0;

 err:
  close (m->fd);
  m->fd = -1;
  return -1;
}

void
md_member_close (struct md_member *m)
{
  if (m->fd >= 0)
    close (m->fd);
  m->fd = -1;
}

bool
md_member_same (const struct md_member *a, const struct md_member *b)
{
  return a->is_block == b->is_block && a->dev == b->dev && a->ino == b->ino;
}

int
md_member_read_sb (const struct md_member *m, const char *cmd, uint8_t *buf)
{
  ssize_t r;

  if (m->size < MDSB_OFFSET + MDSB_SIZE) {
    fprintf (stderr, "%s: %s: %llu bytes is too small to hold md "
             "metadata\n", cmd, m->path, (unsigned long long) m->size);
    return -1;
  }
  r = pread (m->fd, buf, MDSB_SIZE, MDSB_OFFSET);
  if (r != MDSB_SIZE) {
    fprintf (stderr, "%s: %s: read of the superblock: %s\n", cmd, m->path,
             r == -1 ? strerror (errno) : "short read");
    return -1;
  }
  return 0;
}

int
md_member_write_sb (const struct md_member *m, const char *cmd,
                    const uint8_t *buf)
{
  ssize_t r;

  r = pwrite (m->fd, buf, MDSB_SIZE, MDSB_OFFSET);
  if (r != MDSB_SIZE) {
    fprintf (stderr, "%s: %s: write of the superblock: %s\n", cmd, m->path,
             r == -1 ? strerror (errno) : "short write");
    return -1;
  }
  if (fsync (m->fd) == -1) {
    fprintf (stderr, "%s: %s: fsync: %s\n", cmd, m->path, strerror (errno));
    return -1;
  }
  return 0;
}
