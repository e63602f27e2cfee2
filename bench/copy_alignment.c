/*
 * The kernel's copy between the page cache and user memory, by how far the destination lies past
 * the source modulo 4 KiB (the "lead"): reads of a page-cache file into a buffer `lead` bytes past
 * a page boundary, and writes from a buffer `lead` bytes before one, so that in both the
 * destination is `lead` bytes past the source. Then the two ways a read that converts nothing can
 * take around a lead of 16 (where a G1 humongous array lies): through a page-aligned buffer a
 * piece at a time, copied on into place, or a piece at a time landing a cache line further on, at
 * a lead of 64, moved down into place. Prints one JSON object: the median MiB/s of each and the
 * MiB/s of each of its passes, in the order run.
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

enum { TRANSFER = 4 << 20, FILE_BYTES = 256 << 20, REPEATS = 9, PAGE = 4096, PIECE = 1 << 20, AROUND_LEAD = 16,
       CACHE_LINE = 64 };

enum way { DIRECT, THROUGH_BUFFER, SHIFTED };

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

static void transfer(int fd, char *memory, char *buffer, off_t at, int write, enum way way)
{
    ssize_t done = TRANSFER;
    if (way == DIRECT)
        done = write ? pwrite(fd, memory, TRANSFER, at) : pread(fd, memory, TRANSFER, at);
    for (size_t piece = 0; way != DIRECT && piece < TRANSFER && done == TRANSFER; piece += PIECE) {
        /* The shifted way's last piece has no room after it: its last cache line comes through the buffer. */
        size_t shifted = way == SHIFTED ? (piece + PIECE < TRANSFER ? PIECE : PIECE - CACHE_LINE) : 0;
        char *landing = memory + piece + CACHE_LINE - AROUND_LEAD;
        if (shifted > 0 && pread(fd, landing, shifted, at + (off_t)piece) == (ssize_t)shifted)
            memmove(memory + piece, landing, shifted);
        else if (shifted > 0)
            done = -1;
        size_t rest = PIECE - shifted;
        if (rest > 0 && pread(fd, buffer, rest, at + (off_t)(piece + shifted)) == (ssize_t)rest)
            memcpy(memory + piece + shifted, buffer, rest);
        else if (rest > 0)
            done = -1;
    }
    if (done != TRANSFER) {
        perror(write ? "pwrite" : "pread");
        exit(1);
    }
}

/* The MiB/s of each of REPEATS passes over the whole file, 4 MiB a call, into rates in the order
 * run; returns their median. */
static double pass_rates(int fd, char *memory, char *buffer, int write, enum way way, double rates[REPEATS])
{
    double sorted[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        double start = seconds();
        for (off_t at = 0; at < FILE_BYTES; at += TRANSFER)
            transfer(fd, memory, buffer, at, write, way);
        rates[r] = FILE_BYTES / (seconds() - start) / (1 << 20);
    }
    /* Sorted apart, so that the passes print in the order run: a drift shows there. */
    memcpy(sorted, rates, sizeof sorted);
    qsort(sorted, REPEATS, sizeof *sorted, ascending);
    return sorted[REPEATS / 2];
}

/* Every pass, not the median alone: a ratio's 95% interval resamples them (bench/copy_alignment.py).
 * Rounded as the median is; REPEATS being odd, the median of the printed passes is the printed median. */
static void print_passes(const char *key, const double rates[REPEATS])
{
    printf(", \"%s\": [", key);
    for (int r = 0; r < REPEATS; r++)
        printf("%s%.0f", r > 0 ? ", " : "", rates[r]);
    printf("]");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE LEAD...\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
    char *memory = aligned_alloc(PAGE, TRANSFER + 2 * PAGE);
    char *buffer = aligned_alloc(PAGE, PIECE);
    if (fd < 0 || memory == NULL || buffer == NULL) {
        perror(argv[1]);
        return 1;
    }
    memset(memory, 1, TRANSFER + 2 * PAGE);
    memset(buffer, 1, PIECE);
    double reads[REPEATS], writes[REPEATS];
    pass_rates(fd, memory, buffer, 1, DIRECT, writes); /* the file into the page cache */
    printf("{\"transfer_bytes\": %d, \"file_bytes\": %d, \"repeats\": %d, \"leads\": [", TRANSFER, FILE_BYTES,
           REPEATS);
    for (int k = 2; k < argc; k++) {
        int lead = atoi(argv[k]);
        if (lead < 0 || lead >= PAGE) {
            fprintf(stderr, "a lead is 0 to %d bytes: %s\n", PAGE - 1, argv[k]);
            return 2;
        }
        double read = pass_rates(fd, memory + lead, buffer, 0, DIRECT, reads);
        double write = pass_rates(fd, memory + PAGE - lead, buffer, 1, DIRECT, writes);
        printf("%s{\"lead\": %d, \"read_mib_s\": %.0f, \"write_mib_s\": %.0f", k > 2 ? ", " : "", lead, read, write);
        print_passes("read_passes_mib_s", reads);
        print_passes("write_passes_mib_s", writes);
        printf("}");
    }
    /* One after the other, in this order: as arguments of one printf their order would be the compiler's. */
    double through_buffer_reads[REPEATS], shifted_reads[REPEATS];
    double through_buffer = pass_rates(fd, memory + AROUND_LEAD, buffer, 0, THROUGH_BUFFER, through_buffer_reads);
    double shifted = pass_rates(fd, memory + AROUND_LEAD, buffer, 0, SHIFTED, shifted_reads);
    printf("], \"piece_bytes\": %d, \"around_lead\": %d, \"around\": {\"through_buffer_read_mib_s\": %.0f, "
           "\"shifted_read_mib_s\": %.0f", PIECE, AROUND_LEAD, through_buffer, shifted);
    print_passes("through_buffer_read_passes_mib_s", through_buffer_reads);
    print_passes("shifted_read_passes_mib_s", shifted_reads);
    printf("}}\n");
    unlink(argv[1]);
    return 0;
}
