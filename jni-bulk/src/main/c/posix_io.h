/* Positioned whole-buffer I/O: the retry loops that pread(2) and pwrite(2) leave to their callers. */
#ifndef JIOBENCH_POSIX_IO_H
#define JIOBENCH_POSIX_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Writes all size bytes of buf at offset, going on after short writes and EINTR.
 * Returns 0, or -1 with errno set. */
int pwrite_fully(int fd, const void *buf, size_t size, off_t offset);

/* Reads size bytes at offset into buf, going on after short reads and EINTR; stops early only at
 * end of file. Returns the number of bytes read, or -1 with errno set. */
ssize_t pread_fully(int fd, void *buf, size_t size, off_t offset);

/*
 * Whether the kernel's copy between the page cache and user memory, from source to destination,
 * runs at its slow pace: 0 where it does not, else how many bytes further on the destination would
 * have to lie for it not to (a cache line past the source). Linux copies with `rep movsb` on x86 processors with fast string
 * moves, and on AMD EPYC that copy slows sharply when the destination lies
 * 1 to 31 bytes past the source modulo 4 KiB (bench/copy-alignment.sh measures it). The
 * page cache's side of a file offset sits at that offset modulo 4 KiB. A G1 humongous array starts
 * 16 bytes past a 4 KiB boundary, so a read of a page-aligned offset straight into it is the slow
 * case.
 */
size_t kernel_copy_shift(uintptr_t destination, uintptr_t source);

/* The phase's deadline as the native loops see it: CLOCK_MONOTONIC, which System.nanoTime reads on
 * Linux. A look at the clock costs about as much as a 1-byte pwrite into the page cache, so the
 * loops look every TRANSFERS_PER_CLOCK_CHECK transfers: 64 of the slowest transfers (network file
 * systems) still end within milliseconds. */
#define TRANSFERS_PER_CLOCK_CHECK 64
#define NO_DEADLINE INT64_MAX

/* The time nanos_left from now, or NO_DEADLINE for nanos_left NO_DEADLINE. */
int64_t deadline_after(int64_t nanos_left);

/* Whether transfer k of a loop (k > 0, a multiple of TRANSFERS_PER_CLOCK_CHECK) finds the deadline passed. */
bool deadline_passed(int64_t deadline, int64_t k);

#endif
