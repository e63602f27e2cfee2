/*
 * The kernel's copy between the page cache and user memory, by how far the destination lies past
 * the source modulo 4 KiB (the "lead"): reads of a page-cache file into a buffer `lead` bytes past
 * a page boundary, and writes from a buffer `lead` bytes before one, so that in both the
 * destination is `lead` bytes past the source. Then the two ways a read that converts nothing can
 * take around a lead of 16 (where a G1 humongous array lies): through a page-aligned buffer a
 * piece at a time, copied on into place, or a piece at a time landing a cache line further on, at
 * a lead of 64, moved down into place. Every figure takes one pass in turn, REPEATS times over.
 * Prints one JSON object: the median MiB/s of each and the MiB/s of each of its passes, in the
 * order run.
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

/* A figure the program measures: one way of moving the file, a pass at a time. */
struct figure {
    char *memory;
    int write;
    enum way way;
    double rates[REPEATS]; /* MiB/s of each pass, in the order run */
};

/* One pass over the whole file, 4 MiB a call: its MiB/s. */
static double pass_rate(int fd, char *buffer, const struct figure *figure)
{
    double start = seconds();
    for (off_t at = 0; at < FILE_BYTES; at += TRANSFER)
        transfer(fd, figure->memory, buffer, at, figure->write, figure->way);
    return FILE_BYTES / (seconds() - start) / (1 << 20);
}

static double median(const double rates[REPEATS])
{
    double sorted[REPEATS];
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
    int leads = argc - 2;
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
    char *memory = aligned_alloc(PAGE, TRANSFER + 2 * PAGE);
    char *buffer = aligned_alloc(PAGE, PIECE);
    /* A read and a write a lead, then the two ways around a lead of AROUND_LEAD. */
    struct figure *figures = calloc((size_t)(2 * leads + 2), sizeof *figures);
    if (fd < 0 || memory == NULL || buffer == NULL || figures == NULL) {
        perror(argv[1]);
        return 1;
    }
    for (int k = 0; k < leads; k++) {
        int lead = atoi(argv[k + 2]);
        if (lead < 0 || lead >= PAGE) {
            fprintf(stderr, "a lead is 0 to %d bytes: %s\n", PAGE - 1, argv[k + 2]);
            return 2;
        }
        figures[2 * k] = (struct figure){.memory = memory + lead, .write = 0, .way = DIRECT};
        figures[2 * k + 1] = (struct figure){.memory = memory + PAGE - lead, .write = 1, .way = DIRECT};
    }
    struct figure *through_buffer = &figures[2 * leads], *shifted = &figures[2 * leads + 1];
    *through_buffer = (struct figure){.memory = memory + AROUND_LEAD, .write = 0, .way = THROUGH_BUFFER};
    *shifted = (struct figure){.memory = memory + AROUND_LEAD, .write = 0, .way = SHIFTED};
    memset(memory, 1, TRANSFER + 2 * PAGE);
    memset(buffer, 1, PIECE);
    pass_rate(fd, buffer, &figures[1]); /* the file into the page cache */
    /* Pass after pass, every figure in each: a machine whose pace drifts while the program runs
     * moves every figure alike, where figures measured one after another would take the drift
     * for their difference (and passes of one figure, all alike, for a tight interval of it). */
    for (int r = 0; r < REPEATS; r++)
        for (int f = 0; f < 2 * leads + 2; f++)
            figures[f].rates[r] = pass_rate(fd, buffer, &figures[f]);
    printf("{\"transfer_bytes\": %d, \"file_bytes\": %d, \"repeats\": %d, \"leads\": [", TRANSFER, FILE_BYTES,
           REPEATS);
    for (int k = 0; k < leads; k++) {
        const struct figure *read = &figures[2 * k], *write = &figures[2 * k + 1];
        printf("%s{\"lead\": %d, \"read_mib_s\": %.0f, \"write_mib_s\": %.0f", k > 0 ? ", " : "",
               atoi(argv[k + 2]), median(read->rates), median(write->rates));
        print_passes("read_passes_mib_s", read->rates);
        print_passes("write_passes_mib_s", write->rates);
        printf("}");
    }
    printf("], \"piece_bytes\": %d, \"around_lead\": %d, \"around\": {\"through_buffer_read_mib_s\": %.0f, "
           "\"shifted_read_mib_s\": %.0f", PIECE, AROUND_LEAD, median(through_buffer->rates), median(shifted->rates));
    print_passes("through_buffer_read_passes_mib_s", through_buffer->rates);
    print_passes("shifted_read_passes_mib_s", shifted->rates);
    printf("}}\n");
    unlink(argv[1]);
    return 0;
}
