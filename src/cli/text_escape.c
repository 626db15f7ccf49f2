/* text_escape.c - see text_escape.h. */
#include "text_escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t fr_utf8_length(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) ||   /* overlong, surrogate */
        (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F))     /* overlong, > U+10FFFF */
        return 0;
    return n;
}

static bool is_plain(unsigned char c, bool frame)
{
    return c >= 0x20 && c < 0x7F && (frame ? c != ';' : c != '\\');
}

static const char *escape(fr_text_buf *b, const char *s, bool frame)
{
    if (!s)
        return "";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (p[i] && is_plain(p[i], frame))
        i++;
    if (!p[i])
        return s;   /* the common case: nothing to do, nothing copied */
    size_t need = i + 4 * strlen(s + i) + 1;   /* at most \xHH per byte */
    if (need > b->cap) {
        char *d = realloc(b->data, need);
        if (!d)
            return "(name not shown: out of memory)";
        b->data = d;
        b->cap = need;
    }
    char *o = b->data;
    memcpy(o, s, i);
    o += i;
    static const char hex[] = "0123456789abcdef";
    while (p[i]) {
        unsigned char c = p[i];
        if (is_plain(c, frame)) {
            *o++ = (char)c;
            i++;
            continue;
        }
        if (frame && c == ';') {
            *o++ = ':';
            i++;
            continue;
        }
        if (frame && (c == '\n' || c == '\r')) {
            *o++ = ' ';
            i++;
            continue;
        }
        if (c == '\\') {
            *o++ = '\\';
            *o++ = '\\';
            i++;
            continue;
        }
        size_t n = c >= 0x80 ? fr_utf8_length(p + i) : 0;
        if (n && !(c == 0xC2 && p[i + 1] <= 0x9F)) {   /* valid UTF-8, not a C1 control */
            memcpy(o, p + i, n);
            o += n;
            i += n;
            continue;
        }
        /* A control, or a byte of a C1 control or of invalid UTF-8: each byte as \xHH. */
        size_t k = n ? n : 1;
        for (size_t j = 0; j < k; j++, i++) {
            *o++ = '\\';
            *o++ = 'x';
            *o++ = hex[p[i] >> 4];
            *o++ = hex[p[i] & 15];
        }
    }
    *o = 0;
    return b->data;
}

const char *fr_text_escape(fr_text_buf *b, const char *s) { return escape(b, s, false); }
const char *fr_text_escape_frame(fr_text_buf *b, const char *s) { return escape(b, s, true); }

void fr_text_buf_free(fr_text_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->cap = 0;
}

static void put(FILE *out, const char *s, bool frame)
{
    fr_text_buf b = {0};
    fputs(escape(&b, s, frame), out);
    fr_text_buf_free(&b);
}

void fr_text_put(FILE *out, const char *s) { put(out, s, false); }
void fr_text_put_frame(FILE *out, const char *s) { put(out, s, true); }
