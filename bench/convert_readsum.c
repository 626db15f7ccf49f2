/*
 * convert_readsum.c - the floor the converters and analyses are measured against: one
 * read of a trace with the batched reader (fr_reader_next_functions, fr_reader_next for
 * the rest), summing every record's timestamp and function id so that nothing is
 * optimised away. No tracking, no output.
 * usage: convert_readsum TRACE
 */
#include <inttypes.h>
#include <stdio.h>
#include "fr_reader.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TRACE\n", argv[0]);
        return 2;
    }
    char err[512];
    fr_reader *r = fr_reader_open(argv[1], err, sizeof err);
    if (!r) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    fr_function_record fns[1024];
    fr_record rec;
    uint64_t sum = 0, records = 0;
    fr_read_status s;
    for (;;) {
        int32_t tid;
        size_t n = fr_reader_next_functions(r, fns, 1024, &tid);
        for (size_t i = 0; i < n; i++)
            sum += fns[i].tsc + fns[i].function_id;
        records += n;
        if (n)
            continue;
        if ((s = fr_reader_next(r, &rec)) != FR_READ_OK)
            break;
        sum += rec.tsc + rec.function_id;
        records++;
    }
    fr_reader_close(r);
    printf("%" PRIu64 " records, sum %" PRIu64 "\n", records, sum);
    return s == FR_READ_ERROR;
}
