/*
 * pb_encode.c - the buffer behind pb_encode.h.
 */
#include "pb_encode.h"

#include <errno.h>
#include <stdlib.h>

#define PB_BUFFER (1u << 20)

void pb_init(pb_buf *b, FILE *file)
{
    b->file = file;
    b->len = 0;
    b->written = 0;
    b->cap = PB_BUFFER;
    b->buf = malloc(b->cap);
    b->failed = b->buf == NULL;
    b->err = b->buf ? 0 : ENOMEM;
    if (!b->buf)
        b->cap = 0;
}

void pb_write_out(pb_buf *b)
{
    if (b->len && fwrite(b->buf, 1, b->len, b->file) != b->len && !b->failed) {
        b->failed = true;
        b->err = errno;
    }
    b->written += b->len;
    b->len = 0;
}

void pb_grow(pb_buf *b, size_t need)
{
    /* Messages may be open: their bytes stay, the buffer grows. */
    size_t cap = b->cap ? b->cap : PB_BUFFER;
    while (cap - b->len < need)
        cap *= 2;
    uint8_t *nb = realloc(b->buf, cap);
    if (!nb) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    b->buf = nb;
    b->cap = cap;
}

void pb_close_long(pb_buf *b, size_t at, size_t n)
{
    size_t extra = 0;
    for (uint64_t v = n >> 7; v; v >>= 7)
        extra++;
    pb_reserve(b, extra);
    memmove(b->buf + at + 1 + extra, b->buf + at + 1, n);
    size_t save = b->len;
    b->len = at;
    pb_varint_unchecked(b, n);
    b->len = save + extra;
}

int pb_finish(pb_buf *b)
{
    pb_write_out(b);
    if ((fflush(b->file) != 0 || ferror(b->file)) && !b->failed) {
        b->failed = true;
        b->err = errno;
    }
    free(b->buf);
    b->buf = NULL;
    b->cap = 0;
    return b->failed ? -(b->err ? b->err : EIO) : 0;
}
