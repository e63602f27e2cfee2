/* Positioned whole-buffer I/O: the retry loops that pread(2) and pwrite(2) leave to their callers. */
#ifndef JIOBENCH_POSIX_IO_H
#define JIOBENCH_POSIX_IO_H

#include <sys/types.h>

/* Writes all size bytes of buf at offset, going on after short writes and EINTR.
 * Returns 0, or -1 with errno set. */
int pwrite_fully(int fd, const void *buf, size_t size, off_t offset);

/* Reads size bytes at offset into buf, going on after short reads and EINTR; stops early only at
 * end of file. Returns the number of bytes read, or -1 with errno set. */
ssize_t pread_fully(int fd, void *buf, size_t size, off_t offset);

#endif
