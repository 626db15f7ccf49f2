/* eventheader_text.c - text buffer and value renderings for the EventHeader decoder. */
#define _GNU_SOURCE
#include "eventheader_text.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void fr_sb_free(fr_sb *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

static bool sb_reserve(fr_sb *sb, size_t extra)
{
    if (sb->failed)
        return false;
    if (sb->len + extra + 1 <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p) {
        sb->failed = true;
        return false;
    }
    sb->data = p;
    sb->cap = cap;
    return true;
}

void fr_sb_put_slow(fr_sb *sb, const void *bytes, size_t n)
{
    if (!sb_reserve(sb, n))
        return;
    memcpy(sb->data + sb->len, bytes, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void fr_sb_putc(fr_sb *sb, char c) { fr_sb_put(sb, &c, 1); }

/* Decimal digits without printf: numbers are most of what the decoders write, and
 * vsnprintf was a third of decode-perf's time. */
void fr_sb_u64(fr_sb *sb, uint64_t v)
{
    char tmp[20];
    size_t n = sizeof tmp;
    do {
        tmp[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    fr_sb_put(sb, tmp + n, sizeof tmp - n);
}

void fr_sb_hex_upper(fr_sb *sb, uint64_t v)
{
    static const char digits[] = "0123456789ABCDEF";
    char tmp[16];
    size_t n = sizeof tmp;
    do {
        tmp[--n] = digits[v & 15];
        v >>= 4;
    } while (v);
    fr_sb_put(sb, tmp + n, sizeof tmp - n);
}

void fr_sb_i64(fr_sb *sb, int64_t v)
{
    if (v < 0) {
        fr_sb_putc(sb, '-');
        fr_sb_u64(sb, 0 - (uint64_t)v);
    } else {
        fr_sb_u64(sb, (uint64_t)v);
    }
}

void fr_sb_printf(fr_sb *sb, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        fr_sb_put(sb, small, (size_t)n);
        return;
    }
    if (!sb_reserve(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

/* ------------------------------------------------------------------ characters */

static void put_utf8_extended(fr_sb *sb, uint32_t cp)
{
    uint8_t out[7];
    size_t n;
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        n = 1;
    } else {
        /* Number of continuation bytes, then the lead byte's marker bits. */
        unsigned cont = cp < 0x800 ? 1 : cp < 0x10000 ? 2 : cp < 0x200000 ? 3
                      : cp < 0x4000000 ? 4 : cp < 0x80000000u ? 5 : 6;
        static const uint8_t lead_mark[7] = {0, 0xC0, 0xE0, 0xF0, 0xF8, 0xFC, 0xFE};
        n = cont + 1;
        for (unsigned i = cont; i > 0; i--) {
            out[i] = (uint8_t)(0x80 | (cp & 0x3F));
            cp >>= 6;
        }
        out[0] = (uint8_t)(lead_mark[cont] | cp);
    }
    fr_sb_put(sb, out, n);
}

void fr_sb_json_codepoint(fr_sb *sb, uint32_t cp)
{
    if (cp >= 0x20 && cp != '"' && cp != '\\') {
        put_utf8_extended(sb, cp);
        return;
    }
    switch (cp) {
    case '"':  fr_sb_puts(sb, "\\\""); break;
    case '\\': fr_sb_puts(sb, "\\\\"); break;
    case '\b': fr_sb_puts(sb, "\\b"); break;
    case '\f': fr_sb_puts(sb, "\\f"); break;
    case '\n': fr_sb_puts(sb, "\\n"); break;
    case '\r': fr_sb_puts(sb, "\\r"); break;
    case '\t': fr_sb_puts(sb, "\\t"); break;
    default:   fr_sb_printf(sb, "\\u%04x", cp); break;
    }
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), or 0 if it is not one. */
static size_t utf8_sequence(const uint8_t *p, size_t n, uint32_t *cp)
{
    uint8_t b = p[0];
    size_t len;
    uint32_t v, min;
    if (b < 0x80) { *cp = b; return 1; }
    else if ((b & 0xE0) == 0xC0) { len = 2; v = b & 0x1F; min = 0x80; }
    else if ((b & 0xF0) == 0xE0) { len = 3; v = b & 0x0F; min = 0x800; }
    else if ((b & 0xF8) == 0xF0) { len = 4; v = b & 0x07; min = 0x10000; }
    else return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static uint32_t rd16(const uint8_t *p, bool be) { return be ? (uint32_t)(p[0] << 8 | p[1]) : (uint32_t)(p[1] << 8 | p[0]); }
static uint32_t rd32(const uint8_t *p, bool be)
{
    return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
              : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

void fr_sb_json_text(fr_sb *sb, const uint8_t *data, size_t size, enum fr_text_kind kind)
{
    fr_sb_putc(sb, '"');
    size_t i = 0;
    switch (kind) {
    case FR_TEXT_LATIN1:
        for (; i < size; i++)
            fr_sb_json_codepoint(sb, data[i]);
        break;
    case FR_TEXT_UTF8:
        while (i < size) {
            /* A run of printable ASCII needs no escape: copied at once. */
            size_t run = i;
            while (run < size && data[run] >= 0x20 && data[run] < 0x7F && data[run] != '"' &&
                   data[run] != '\\')
                run++;
            if (run > i) {
                fr_sb_put(sb, data + i, run - i);
                i = run;
                continue;
            }
            uint32_t cp;
            size_t len = utf8_sequence(data + i, size - i, &cp);
            if (len == 0) { cp = data[i]; len = 1; }   /* stray byte: Latin-1 */
            fr_sb_json_codepoint(sb, cp);
            i += len;
        }
        break;
    case FR_TEXT_UTF16LE:
    case FR_TEXT_UTF16BE: {
        bool be = kind == FR_TEXT_UTF16BE;
        for (; i + 2 <= size; i += 2) {
            uint32_t u = rd16(data + i, be);
            if (u >= 0xD800 && u < 0xDC00 && i + 4 <= size) {
                uint32_t lo = rd16(data + i + 2, be);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    i += 2;
                }
            }
            fr_sb_json_codepoint(sb, u);   /* a lone surrogate is forwarded as found */
        }
        break;
    }
    case FR_TEXT_UTF32LE:
    case FR_TEXT_UTF32BE:
        for (; i + 4 <= size; i += 4)
            fr_sb_json_codepoint(sb, rd32(data + i, kind == FR_TEXT_UTF32BE));
        break;
    }
    fr_sb_putc(sb, '"');
}

void fr_sb_json_text_bom(fr_sb *sb, const uint8_t *data, size_t size, enum fr_text_kind fallback)
{
    if (size >= 4 && !memcmp(data, "\xFF\xFE\0\0", 4))
        fr_sb_json_text(sb, data + 4, size - 4, FR_TEXT_UTF32LE);
    else if (size >= 4 && !memcmp(data, "\0\0\xFE\xFF", 4))
        fr_sb_json_text(sb, data + 4, size - 4, FR_TEXT_UTF32BE);
    else if (size >= 2 && !memcmp(data, "\xFF\xFE", 2))
        fr_sb_json_text(sb, data + 2, size - 2, FR_TEXT_UTF16LE);
    else if (size >= 2 && !memcmp(data, "\xFE\xFF", 2))
        fr_sb_json_text(sb, data + 2, size - 2, FR_TEXT_UTF16BE);
    else if (size >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3))
        fr_sb_json_text(sb, data + 3, size - 3, FR_TEXT_UTF8);
    else
        fr_sb_json_text(sb, data, size, fallback);
}

/* ------------------------------------------------------------------ values */

void fr_sb_hex_bytes(fr_sb *sb, const uint8_t *data, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < size; i++) {
        char t[3] = {' ', digits[data[i] >> 4], digits[data[i] & 15]};
        if (i == 0)
            fr_sb_put(sb, t + 1, 2);
        else
            fr_sb_put(sb, t, 3);
    }
}

void fr_sb_uuid(fr_sb *sb, const uint8_t b[16])
{
    static const char digits[] = "0123456789abcdef";
    char t[36];
    size_t n = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            t[n++] = '-';
        t[n++] = digits[b[i] >> 4];
        t[n++] = digits[b[i] & 15];
    }
    fr_sb_put(sb, t, n);
}

void fr_sb_ipv4(fr_sb *sb, const uint8_t b[4])
{
    fr_sb_printf(sb, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
}

void fr_sb_ipv6(fr_sb *sb, const uint8_t b[16])
{
    char text[INET6_ADDRSTRLEN];
    if (inet_ntop(AF_INET6, b, text, sizeof text))
        fr_sb_puts(sb, text);
}

void fr_sb_time(fr_sb *sb, int64_t seconds)
{
    struct tm tm;
    time_t t = (time_t)seconds;
    if (gmtime_r(&t, &tm))
        fr_sb_printf(sb, "%04lld-%02d-%02dT%02d:%02d:%02d", (long long)tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    else
        fr_sb_printf(sb, "TIME(%lld)", (long long)seconds);
}

void fr_sb_errno(fr_sb *sb, int32_t value)
{
    const char *name = value > 0 ? strerrorname_np(value) : NULL;
    fr_sb_printf(sb, "%s(%d)", name ? name : "ERRNO", value);
}

/* After a finite float's text: ".0" when it reads as an integer and floats are marked. */
static void mark_float(fr_sb *sb, const char *text)
{
    if (sb->floats_marked && !strpbrk(text, ".e"))
        fr_sb_puts(sb, ".0");
}

void fr_sb_float(fr_sb *sb, float f)
{
    char text[48];
    if (!isfinite(f)) {
        snprintf(text, sizeof text, "\"%g\"", (double)f);
        fr_sb_puts(sb, text);
        return;
    }
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(text, sizeof text, "%.*g", prec, (double)f);
        if (strtof(text, NULL) == f)
            break;
    }
    fr_sb_puts(sb, text);
    mark_float(sb, text);
}

void fr_sb_double(fr_sb *sb, double d)
{
    char text[48];
    if (!isfinite(d)) {
        snprintf(text, sizeof text, "\"%g\"", d);
        fr_sb_puts(sb, text);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(text, sizeof text, "%.*g", prec, d);
        if (strtod(text, NULL) == d)
            break;
    }
    fr_sb_puts(sb, text);
    mark_float(sb, text);
}
