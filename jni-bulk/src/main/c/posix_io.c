#include "posix_io.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

size_t kernel_copy_shift(uintptr_t destination, uintptr_t source)
{
    enum { PAGE = 4096, SLOW_LEAD = 32, CACHE_LINE = 64 };
    uintptr_t lead = (destination - source) % PAGE;
    return lead != 0 && lead < SLOW_LEAD ? CACHE_LINE - lead : 0;
}

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

static int64_t monotonic_nanos(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int64_t deadline_after(int64_t nanos_left)
{
    return nanos_left == NO_DEADLINE ? NO_DEADLINE : monotonic_nanos() + nanos_left;
}

bool deadline_passed(int64_t deadline, int64_t k)
{
    return deadline != NO_DEADLINE && k > 0 && k % TRANSFERS_PER_CLOCK_CHECK == 0 && monotonic_nanos() >= deadline;
}
