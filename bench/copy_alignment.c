/*
 * The kernel's copy between the page cache and user memory, by how far the destination lies past
 * the source modulo 4 KiB (the "lead"): reads of a page-cache file into a buffer `lead` bytes past
 * a page boundary, and writes from a buffer `lead` bytes before one, so that in both the
 * destination is `lead` bytes past the source. Prints one JSON object: the median MiB/s of each.
 *
 *   copy_alignment FILE [LEAD...]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TRANSFER = 4 << 20, FILE_BYTES = 256 << 20, REPEATS = 9, PAGE = 4096 };

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median MiB/s of REPEATS passes over the whole file, 4 MiB a call. */
static double median_rate(int fd, char *memory, int write)
{
    double times[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        double start = seconds();
        for (off_t at = 0; at < FILE_BYTES; at += TRANSFER) {
            ssize_t done = write ? pwrite(fd, memory, TRANSFER, at) : pread(fd, memory, TRANSFER, at);
            if (done != TRANSFER) {
                perror(write ? "pwrite" : "pread");
                exit(1);
            }
        }
        times[r] = seconds() - start;
    }
    qsort(times, REPEATS, sizeof *times, ascending);
    return FILE_BYTES / times[REPEATS / 2] / (1 << 20);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE LEAD...\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
    char *memory = aligned_alloc(PAGE, TRANSFER + 2 * PAGE);
    if (fd < 0 || memory == NULL) {
        perror(argv[1]);
        return 1;
    }
    memset(memory, 1, TRANSFER + 2 * PAGE);
    median_rate(fd, memory, 1); /* the file into the page cache */
    printf("{\"transfer_bytes\": %d, \"file_bytes\": %d, \"repeats\": %d, \"leads\": [", TRANSFER, FILE_BYTES,
           REPEATS);
    for (int k = 2; k < argc; k++) {
        int lead = atoi(argv[k]);
        if (lead < 0 || lead >= PAGE) {
            fprintf(stderr, "a lead is 0 to %d bytes: %s\n", PAGE - 1, argv[k]);
            return 2;
        }
        double read = median_rate(fd, memory + lead, 0);
        double write = median_rate(fd, memory + PAGE - lead, 1);
        printf("%s{\"lead\": %d, \"read_mib_s\": %.0f, \"write_mib_s\": %.0f}", k > 2 ? ", " : "", lead, read, write);
    }
    printf("]}\n");
    unlink(argv[1]);
    return 0;
}
