/*
 * pb_encode.h - the protocol buffers wire format, written by hand (no protobuf runtime):
 * varints, tags, length-delimited fields and nested messages, into one growable buffer
 * that is handed to stdio between top-level messages.
 *
 * Wire format (https://protobuf.dev/programming-guides/encoding/): a field is a varint
 * key (field number << 3 | wire type) and a value; wire type 0 is a varint, 1 a fixed
 * 64-bit, 2 a varint length then that many bytes (strings, bytes, nested messages).
 *
 * Nested messages: pb_open reserves one byte for the length and pb_close writes it,
 * moving the message's bytes up when the length needs more than one byte (messages are
 * small: the few large ones pay one memmove). Offsets, not pointers, are kept, so the
 * buffer may grow while messages are open; it is flushed only by pb_flush_if_full, which
 * the caller calls when no message is open.
 */
#ifndef FLIGHTREC_PB_ENCODE_H
#define FLIGHTREC_PB_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2 };

typedef struct pb_buf {
    FILE    *file;
    uint8_t *buf;
    size_t   len, cap;
    bool     failed;       /* a write failed */
    int      err;          /* errno of the first failed write (ENOMEM: no buffer) */
    uint64_t written;      /* bytes handed to the file so far */
} pb_buf;

void pb_init(pb_buf *b, FILE *file);
void pb_write_out(pb_buf *b);
/* Writes out what is buffered once the buffer is mostly full. No message may be open. */
static inline void pb_flush_if_full(pb_buf *b)
{
    if (b->len >= b->cap / 2)
        pb_write_out(b);
}
/* Writes everything out, frees the buffer; returns 0, or -errno of the first write
 * that failed. */
int  pb_finish(pb_buf *b);
void pb_grow(pb_buf *b, size_t need);

static inline void pb_reserve(pb_buf *b, size_t n)
{
    if (b->cap - b->len < n)
        pb_grow(b, n);
}

/* At most 10 bytes; room must have been reserved. */
static inline void pb_varint_unchecked(pb_buf *b, uint64_t v)
{
    uint8_t *p = b->buf + b->len;
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    b->len = (size_t)(p - b->buf);
}

static inline void pb_varint(pb_buf *b, uint64_t v)
{
    pb_reserve(b, 10);
    pb_varint_unchecked(b, v);
}

static inline void pb_key(pb_buf *b, uint32_t field, unsigned wire)
{
    pb_varint(b, (uint64_t)field << 3 | wire);
}

/* uint32/uint64/int32/int64/bool/enum fields (int32/int64 negative values take 10 bytes,
 * as in protobuf: sign-extended to 64 bits). */
static inline void pb_uint(pb_buf *b, uint32_t field, uint64_t v)
{
    pb_reserve(b, 20);
    pb_varint_unchecked(b, (uint64_t)field << 3 | PB_VARINT);
    pb_varint_unchecked(b, v);
}
static inline void pb_int(pb_buf *b, uint32_t field, int64_t v) { pb_uint(b, field, (uint64_t)v); }

static inline void pb_fixed64(pb_buf *b, uint32_t field, uint64_t v)
{
    pb_reserve(b, 18);
    pb_varint_unchecked(b, (uint64_t)field << 3 | PB_FIXED64);
    for (int i = 0; i < 8; i++)
        b->buf[b->len++] = (uint8_t)(v >> (8 * i));
}

static inline void pb_double(pb_buf *b, uint32_t field, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    pb_fixed64(b, field, v);
}

/* string and bytes fields */
static inline void pb_bytes(pb_buf *b, uint32_t field, const void *p, size_t n)
{
    pb_reserve(b, 20 + n);
    pb_varint_unchecked(b, (uint64_t)field << 3 | PB_LEN);
    pb_varint_unchecked(b, n);
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}
static inline void pb_string(pb_buf *b, uint32_t field, const char *s)
{
    pb_bytes(b, field, s, strlen(s));
}

/* Opens a nested message (or the Trace's packet); returns what pb_close needs. */
static inline size_t pb_open(pb_buf *b, uint32_t field)
{
    pb_reserve(b, 11);
    pb_varint_unchecked(b, (uint64_t)field << 3 | PB_LEN);
    b->buf[b->len] = 0;        /* the length, written by pb_close */
    return b->len++;
}
void pb_close_long(pb_buf *b, size_t at, size_t n);
static inline void pb_close(pb_buf *b, size_t at)
{
    size_t n = b->len - at - 1;
    if (n < 0x80)
        b->buf[at] = (uint8_t)n;
    else
        pb_close_long(b, at, n);
}

#endif
