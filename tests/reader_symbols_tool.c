/*
 * reader_symbols_tool.c - prints what fr_symbols resolves, for tests/reader_symbols.py.
 * Usage: reader_symbols_tool BIN [ADDR]
 *   "ID NAME FILE:LINE" for ids 1.. of BIN's xray_instr_map (--binary style), then, with
 *   ADDR (a function's link-time address in BIN), the trace-table path: an object 0 at
 *   BIN with a load bias, a nameless FR_TE_FUNCTION at ADDR + bias, and a named one:
 *   "meta 1000 NAME" and "meta 1001 NAME".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    fr_symbols *s = fr_symbols_new();
    char err[512];
    if (fr_symbols_load_binary(s, argv[1], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (uint32_t id = 1; id < 10000; id++) {
        const char *name = fr_symbols_name(s, id), *file;
        int line;
        if (name[0] == '#')
            break;
        if (fr_symbols_location(s, id, &file, &line))
            printf("%u %s %s:%d\n", id, name, file, line);
        else
            printf("%u %s ?\n", id, name);
    }
    fr_symbols_free(s);
    if (argc < 3)
        return 0;

    uint64_t addr = strtoull(argv[2], NULL, 0), bias = 0x7f0000000000ull;
    fr_trace_meta m;
    fr_trace_meta_init(&m);
    fr_meta_object obj = {.index = 0, .first_id = 1000, .last_id = 1001, .load_bias = bias, .path = argv[1]};
    fr_meta_function fns[2] = {{1000, 0, addr + bias, ""}, {1001, 0, 0, "given"}};
    m.objects = &obj;
    m.n_objects = 1;
    m.functions = fns;
    m.n_functions = 2;
    s = fr_symbols_new();
    fr_symbols_add_trace_meta(s, &m);
    printf("meta 1000 %s\n", fr_symbols_name(s, 1000));
    printf("meta 1001 %s\n", fr_symbols_name(s, 1001));
    printf("meta 1002 %s\n", fr_symbols_name(s, 1002));
    fr_symbols_free(s);
    return 0;
}
