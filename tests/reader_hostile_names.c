/*
 * reader_hostile_names.c OUT - writes a trace whose names try to take over a terminal or
 * forge output lines: function names with ESC sequences, BEL, CR, LF, ';', DEL, a C1
 * control (U+009B, CSI) and invalid UTF-8; a thread name setting the window title; a
 * process name, executable, command line and object path with controls. One thread
 * calls each function once from main. Used by tests/reader_escape.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fr_format.h"
#include "trace_builder.h"

/* The names, by function id (1 is main). Shared with reader_escape.py by order. */
static const char *const names[] = {
    "main", "esc\x1b[31mred\x1b[0m", "bel\a", "cr\rover", "lf\nfake 99", "semi;colon",
    "del\x7f c1\xc2\x9b[2J", "bad\xff utf8 caf\xc3\xa9", "back\\slash",
};

typedef struct { unsigned char b[512]; size_t n; } buf;
static void put(buf *p, const void *d, size_t n) { memcpy(p->b + p->n, d, n); p->n += n; }
static void u32(buf *p, uint32_t v) { put(p, &v, 4); }
static void u64(buf *p, uint64_t v) { put(p, &v, 8); }
static void str16(buf *p, const char *s, size_t n) { uint16_t k = (uint16_t)n; put(p, &k, 2); put(p, s, n); }

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT\n", argv[0]);
        return 2;
    }
    fr_tb *b = fr_tb_new(1000000000);
    buf p = {0};
    u32(&p, 4242);
    u32(&p, 1);
    str16(&p, "proc\x1b[2J", 9);
    str16(&p, "/nonexistent/ex\ne", 17);
    str16(&p, "run\x1b[1m\0arg\r", 12);
    fr_tb_meta_event(b, FR_TE_PROCESS, p.b, p.n);
    p.n = 0;
    u32(&p, 0);
    u32(&p, 1);
    u32(&p, 9);
    u64(&p, 0);
    str16(&p, "/nonexistent/\x1b[1mobj\a", 22);
    fr_tb_meta_event(b, FR_TE_OBJECT, p.b, p.n);
    p.n = 0;
    u32(&p, 11);
    u64(&p, 18);
    u64(&p, 0);
    u64(&p, 0);
    u64(&p, 0);
    str16(&p, "thr\x1b]0;title\a", 13);
    fr_tb_meta_event(b, FR_TE_THREAD_STATS, p.b, p.n);
    for (uint32_t id = 1; id <= sizeof names / sizeof names[0]; id++)
        fr_tb_function_name(b, id, names[id - 1]);
    fr_tb_block(b, 11, 4242, 0, 1000);
    fr_tb_enter(b, 1, 1000);
    uint64_t t = 1100;
    for (uint32_t id = 2; id <= sizeof names / sizeof names[0]; id++, t += 100) {
        fr_tb_enter(b, id, t);
        fr_tb_exit(b, id, t + 10 * id);
    }
    fr_tb_exit(b, 1, t);
    int rc = fr_tb_write(b, argv[1]);
    if (rc)
        perror(argv[1]);
    fr_tb_free(b);
    return rc ? 1 : 0;
}
