/*
 * reader_events_trace.c - turns an EventHeader interceptor corpus (.dat: records of
 * u32 size including itself, tracepoint name NUL-terminated, event bytes) into a trace
 * whose thread block holds each event as an FR_TE_EVENT typed record, 10 ticks apart.
 * Usage: reader_events_trace CORPUS.dat OUT.xray
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fr_format.h"
#include "trace_builder.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s CORPUS.dat OUT.xray\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static unsigned char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    fr_tb *b = fr_tb_new(1000000000);
    fr_tb_block(b, 1, 1, 0, 1000);
    uint64_t tsc = 1000;
    int events = 0;
    for (size_t off = 0; off + 4 <= n;) {
        uint32_t size;
        memcpy(&size, buf + off, 4);
        if (size < 4 || size > n - off) {
            fprintf(stderr, "%s: bad record at offset %zu\n", argv[1], off);
            return 1;
        }
        fr_tb_ours(b, FR_TE_EVENT, buf + off + 4, size - 4, tsc += 10);
        events++;
        off += size;
    }
    int rc = fr_tb_write(b, argv[2]);
    fr_tb_free(b);
    printf("%d events\n", events);
    return rc ? 1 : 0;
}
