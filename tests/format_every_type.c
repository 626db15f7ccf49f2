/*
 * format_every_type.c - writes a trace holding one record of every FR_TE type of
 * fr_format.h's list (FR_TE_TYPES), each with a payload of its struct's size and its
 * tail, for tests/format_types.py.
 * usage: format_every_type OUTPUT [legacy]   (legacy: as typed events, the old encoding)
 * Prints the number of types written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fr_format.h"
#include "trace_builder.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTPUT [legacy]\n", argv[0]);
        return 2;
    }
    fr_tb *b = fr_tb_new(1000000000);
    fr_tb_legacy_encoding(b, argc > 2 && !strcmp(argv[2], "legacy"));
    static const struct { uint16_t type; uint32_t fixed; enum fr_te_tail tail; } types[] = {
#define ENTRY(n, v, s, size, tail) { v, (uint32_t)(size), tail },
        FR_TE_TYPES(ENTRY)
#undef ENTRY
    };
    size_t n = sizeof types / sizeof types[0];
    for (size_t i = 0; i < n; i++) {
        uint8_t p[256] = {0};
        size_t len = types[i].fixed;
        static const uint8_t str16[] = { 1, 0, 'x' };
        switch (types[i].tail) {
        case FR_TE_TAIL_NONE:
            break;
        case FR_TE_TAIL_STR16:
            memcpy(p + len, str16, 3);
            len += 3;
            break;
        case FR_TE_TAIL_3_STR16:
            for (int k = 0; k < 3; k++, len += 3)
                memcpy(p + len, str16, 3);
            break;
        case FR_TE_TAIL_EVENT:
            memcpy(p + len, "P_L1K1", 7);  /* tracepoint name, then no event bytes */
            len += 7;
            break;
        case FR_TE_TAIL_EVENT_RUN:
            /* one event of site 7, whose FR_TE_EVENT_SITE the file lacks: the reader
             * returns it as an event-run record (metadata missing), never decoded */
            p[len++] = 7 << 1;
            p[len++] = 0;
            p[len++] = 1;
            p[len++] = 0x2a;
            break;
        }
        fr_tb_meta_event(b, types[i].type, p, len);
    }
    fr_tb_block(b, 1, 1, 0, 100);
    fr_tb_enter(b, 1, 100);
    fr_tb_exit(b, 1, 200);
    if (fr_tb_write(b, argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    fr_tb_free(b);
    printf("%zu\n", n);
    return 0;
}
