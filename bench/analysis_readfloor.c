/*
 * analysis_readfloor.c - the floor the analyses are measured against: one plain pass over
 * an XRay FDR (version 5) trace such as bench/analysis_gen.c writes, written here from the
 * format alone, without flightrec's reader: read(2) into a 64 KiB window, step over the
 * metadata records (16 bytes; a custom or typed event's payload after its header), and
 * for each function record (8 bytes) add its delta to the thread's clock and sum clock +
 * function id, so that nothing is optimised away. No validation beyond what stepping
 * needs, no tracking, no output but the sum. A pass cannot cost less and still look at
 * every record.
 * usage: analysis_readfloor TRACE
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
    FILE_HEADER = 32,
    METADATA = 16,
    FUNCTION = 8,
    WINDOW = 64 << 10,
    KIND_NEW_CPU_ID = 2,
    KIND_TSC_WRAP = 3,
    KIND_CUSTOM_EVENT = 5,
    KIND_TYPED_EVENT = 8,
};

static uint8_t window[WINDOW + METADATA];

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TRACE\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    uint64_t sum = 0, records = 0, tsc = 0, skip = FILE_HEADER;  /* bytes to step over */
    size_t have = 0;   /* bytes in window[0, have) not yet consumed */
    for (;;) {
        ssize_t got = read(fd, window + have, WINDOW - have);
        if (got < 0) {
            perror("read");
            return 1;
        }
        if (got == 0)
            break;
        have += (size_t)got;
        size_t at = 0;
        if (skip) {   /* the rest of a payload (or the file header) */
            size_t s = skip < have ? (size_t)skip : have;
            at += s;
            skip -= s;
        }
        while (at + METADATA <= have || (at + FUNCTION <= have && !(window[at] & 1))) {
            const uint8_t *r = window + at;
            if (!(r[0] & 1)) {   /* a function record: type bits, id, then the delta */
                uint32_t word, delta;
                memcpy(&word, r, 4);
                memcpy(&delta, r + 4, 4);
                tsc += delta;
                sum += tsc + (word >> 4);
                records++;
                at += FUNCTION;
                continue;
            }
            unsigned kind = r[0] >> 1;
            at += METADATA;
            if (kind == KIND_NEW_CPU_ID || kind == KIND_TSC_WRAP) {   /* the clock's base */
                memcpy(&tsc, r + (kind == KIND_NEW_CPU_ID ? 3 : 1), 8);
            } else if (kind == KIND_CUSTOM_EVENT || kind == KIND_TYPED_EVENT) {
                int32_t size;
                memcpy(&size, r + 1, 4);
                skip = size > 0 ? (uint64_t)size : 0;
                size_t s = skip < have - at ? (size_t)skip : have - at;
                at += s;
                skip -= s;
            }
            records++;
        }
        memmove(window, window + at, have - at);   /* a record cut by the window's end */
        have -= at;
    }
    close(fd);
    printf("%" PRIu64 " records, sum %" PRIu64 "\n", records, sum);
    return 0;
}
