/*
 * events_trace_json.c - prints every structured event (FR_TE_EVENT) of a flight recorder
 * trace as one JSON line, "tid<TAB>{event}", read with the reader library and decoded
 * with fr_eh_decode. Exit 1 on unreadable input.
 */
#include <stdio.h>
#include <string.h>

#include "eventheader_decode.h"
#include "fr_reader.h"

int main(int argc, char **argv)
{
    char err[512];
    if (argc != 2) {
        fprintf(stderr, "usage: events_trace_json TRACE\n");
        return 2;
    }
    fr_reader *r = fr_reader_open(argv[1], err, sizeof err);
    if (!r) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    fr_record rec;
    fr_read_status s;
    int rc = 0;
    while ((s = fr_reader_next(r, &rec)) == FR_READ_OK) {
        if (rec.kind != FR_REC_TYPED || rec.event_type != FR_TE_EVENT)
            continue;
        const uint8_t *nul = memchr(rec.data, 0, rec.size);
        fr_eh_event ev;
        if (!nul || fr_eh_decode((const char *)rec.data, nul + 1,
                                 rec.size - (size_t)(nul + 1 - rec.data), &ev, err, sizeof err) < 0) {
            fprintf(stderr, "%s: offset %llu: %s\n", argv[1], (unsigned long long)rec.offset,
                    nul ? err : "no tracepoint name");
            rc = 1;
            continue;
        }
        printf("%d\t", rec.tid);
        if (fr_eh_write_event_json(&ev, stdout, err, sizeof err) < 0) {
            fprintf(stderr, "%s: offset %llu: %s\n", argv[1], (unsigned long long)rec.offset, err);
            rc = 1;
        }
        putchar('\n');
    }
    if (s == FR_READ_ERROR) {
        fprintf(stderr, "%s\n", fr_reader_error(r));
        rc = 1;
    }
    fr_reader_close(r);
    return rc;
}
