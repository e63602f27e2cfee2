#include "posix_io.h"

#include <errno.h>
#include <unistd.h>

int pwrite_fully(int fd, const void *buf, size_t size, off_t offset)
{
    const char *next = buf;
    while (size > 0) {
        ssize_t written = pwrite(fd, next, size, offset);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (written == 0) {
            /* No progress on a non-empty write would loop for ever; report it as the device's fault. */
            errno = EIO;
            return -1;
        }
        next += written;
        size -= (size_t)written;
        offset += written;
    }
    return 0;
}

ssize_t pread_fully(int fd, void *buf, size_t size, off_t offset)
{
    char *next = buf;
    size_t done = 0;
    while (done < size) {
        ssize_t got = pread(fd, next + done, size - done, offset + (off_t)done);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (got == 0)
            break;
        done += (size_t)got;
    }
    return (ssize_t)done;
}
