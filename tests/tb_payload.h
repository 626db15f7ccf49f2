/*
 * tb_payload.h - builds the payload of one of our records (FR_TE_*) for the trace builder
 * (tests/trace_builder.h) field by field, little-endian as the runtime writes them:
 *   struct tb_buf b = {.n = 0};
 *   tb_put_u32(&b, pid); tb_put_str16(&b, "name");
 *   fr_tb_meta_event(tb, FR_TE_PROCESS, b.p, b.n);
 * Tests only: a payload larger than the buffer aborts.
 */
#ifndef FLIGHTREC_TEST_TB_PAYLOAD_H
#define FLIGHTREC_TEST_TB_PAYLOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tb_buf { uint8_t p[512]; size_t n; };

static inline void tb_put(struct tb_buf *b, const void *d, size_t n)
{
    if (n > sizeof b->p - b->n) {
        fprintf(stderr, "tb_payload: payload over %zu bytes\n", sizeof b->p);
        abort();
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static inline void tb_put_u16(struct tb_buf *b, uint16_t v) { tb_put(b, &v, 2); }
static inline void tb_put_u32(struct tb_buf *b, uint32_t v) { tb_put(b, &v, 4); }
static inline void tb_put_u64(struct tb_buf *b, uint64_t v) { tb_put(b, &v, 8); }
/* A str16: u16 length, then the bytes (no NUL). */
static inline void tb_put_str16(struct tb_buf *b, const char *s)
{
    tb_put_u16(b, (uint16_t)strlen(s));
    tb_put(b, s, strlen(s));
}
/* Bytes given in hex, two digits each, spaces ignored ("07 00 2a"). */
static inline void tb_put_hex(struct tb_buf *b, const char *hex)
{
    for (const char *h = hex; *h;) {
        if (*h == ' ') {
            h++;
            continue;
        }
        unsigned v;
        if (sscanf(h, "%2x", &v) != 1) {
            fprintf(stderr, "tb_payload: bad hex at '%s'\n", h);
            abort();
        }
        uint8_t byte = (uint8_t)v;
        tb_put(b, &byte, 1);
        h += 2;
    }
}

#endif
