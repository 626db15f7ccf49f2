/*
 * reader_tb_big.c - writes a trace of N function records (4 threads, nested calls) for
 * the memory test: reading it must take the same memory whatever N is.
 * Usage: reader_tb_big OUT N
 */
#include <stdio.h>
#include <stdlib.h>
#include "trace_builder.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s OUT N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[2]);
    fr_tb *b = fr_tb_new(2100000000);
    fr_tb_function_name(b, 1, "outer");
    fr_tb_function_name(b, 2, "inner");
    uint64_t t = 1000;
    for (int th = 0; th < 4; th++) {
        fr_tb_block(b, 100 + th, 1, (uint16_t)th, t);
        for (long i = 0; i < n / 32; i++) { /* 8 records per outer call, 4 threads */
            fr_tb_enter(b, 1, t += 10);
            for (int k = 0; k < 3; k++) {
                fr_tb_enter(b, 2, t += 5);
                fr_tb_exit(b, 2, t += 7);
            }
            fr_tb_exit(b, 1, t += 3);
        }
    }
    int rc = fr_tb_write(b, argv[1]);
    if (rc)
        perror(argv[1]);
    fr_tb_free(b);
    return rc ? 1 : 0;
}
