/*
 * convert_gen.c - writes the benchmark trace for bench/convert_bench.py: RECORDS function
 * records on 4 threads (one block each), calls nested up to 16 deep over 300 functions,
 * with a function-name table, at 2.1 GHz ticks. Deterministic.
 * Usage: bench_convert_gen OUT [RECORDS]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace_builder.h"

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT [RECORDS]\n", argv[0]);
        return 2;
    }
    uint64_t records = argc > 2 ? strtoull(argv[2], NULL, 10) : 3000000;
    enum { THREADS = 4, FUNCTIONS = 300, MAX_DEPTH = 16 };
    fr_tb *b = fr_tb_new(2100000000ull);
    char name[64];
    for (uint32_t id = 1; id <= FUNCTIONS; id++) {
        snprintf(name, sizeof name, "module%u::function_%u", id % 7, id);
        fr_tb_function_name(b, id, name);
    }
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int t = 0; t < THREADS; t++) {
        uint64_t tsc = 1000000 + (uint64_t)t * 17;
        uint32_t stack[MAX_DEPTH];
        int depth = 0;
        fr_tb_block(b, 100 + t, 4242, (uint16_t)t, tsc);
        for (uint64_t n = 0; n < records / THREADS; n++) {
            tsc += 5 + next_rand(&seed) % 200;
            uint64_t r = next_rand(&seed);
            bool can_enter = depth < MAX_DEPTH && (uint64_t)(records / THREADS - n) > (uint64_t)depth + 1;
            if (depth == 0 || (can_enter && r % 2 == 0)) {
                uint32_t id = 1 + (uint32_t)((r >> 8) % (depth ? FUNCTIONS : 8));
                stack[depth++] = id;
                fr_tb_enter(b, id, tsc);
            } else {
                fr_tb_exit(b, stack[--depth], tsc);
            }
        }
        while (depth)
            fr_tb_exit(b, stack[--depth], tsc += 10);
    }
    int rc = fr_tb_write(b, argv[1]);
    if (rc)
        perror(argv[1]);
    fr_tb_free(b);
    return rc ? 1 : 0;
}
