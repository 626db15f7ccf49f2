/*
 * eventheader_text.h - a growable text buffer and the value renderings the EventHeader
 * JSON writer needs (JSON strings from 8/16/32-bit code units, shortest round-trip floats,
 * times, errno names, IP addresses, UUIDs, hex dumps). Internal to the decoder.
 *
 * Text is built in memory first so that a malformed event leaves no partial JSON in the
 * caller's stream. On allocation failure the buffer records it (fr_sb.failed) and further
 * appends do nothing; the caller checks once at the end.
 */
#ifndef FLIGHTREC_EVENTHEADER_TEXT_H
#define FLIGHTREC_EVENTHEADER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fr_sb {
    char  *data;
    size_t len, cap;
    bool   failed;
    /* Floats always written with a '.' or an exponent ("1.0", not "1"): a reader that
     * types numbers by their text (Perfetto's annotations) then keeps them floats. */
    bool   floats_marked;
} fr_sb;

void fr_sb_free(fr_sb *sb);
/* Appends n bytes (the buffer stays NUL-terminated). Inline for the common case, room
 * already there: decode-perf appends a dozen pieces per event. */
void fr_sb_put_slow(fr_sb *sb, const void *bytes, size_t n);
static inline void fr_sb_put(fr_sb *sb, const void *bytes, size_t n)
{
    if (sb->len + n < sb->cap && !sb->failed) {
        memcpy(sb->data + sb->len, bytes, n);
        sb->len += n;
        sb->data[sb->len] = '\0';
    } else {
        fr_sb_put_slow(sb, bytes, n);
    }
}
void fr_sb_putc(fr_sb *sb, char c);
static inline void fr_sb_puts(fr_sb *sb, const char *s) { fr_sb_put(sb, s, strlen(s)); }
void fr_sb_printf(fr_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fr_sb_u64(fr_sb *sb, uint64_t v);      /* decimal */
void fr_sb_i64(fr_sb *sb, int64_t v);
void fr_sb_hex_upper(fr_sb *sb, uint64_t v); /* "1A2B", no prefix */

/* Code point as UTF-8, extended to 31 bits (up to 6 bytes, 7 for values >= 2^31) so that
 * surrogates and values above U+10FFFF are forwarded as found, as the reference decoder
 * does. Inside a JSON string: escapes '"', '\\' and control characters. */
void fr_sb_json_codepoint(fr_sb *sb, uint32_t cp);

/* Quoted JSON strings from code units. */
enum fr_text_kind {
    FR_TEXT_LATIN1,   /* each byte is U+0000..U+00FF */
    FR_TEXT_UTF8,     /* valid sequences as they are, stray bytes as Latin-1 */
    FR_TEXT_UTF16LE, FR_TEXT_UTF16BE,
    FR_TEXT_UTF32LE, FR_TEXT_UTF32BE,
};
void fr_sb_json_text(fr_sb *sb, const uint8_t *data, size_t size, enum fr_text_kind kind);
/* Same, but a leading byte-order mark (UTF-32, UTF-16 or UTF-8, in that order of
 * checking) selects the decoding and is dropped; without one, `fallback` applies. */
void fr_sb_json_text_bom(fr_sb *sb, const uint8_t *data, size_t size, enum fr_text_kind fallback);

/* Unquoted renderings (callers add quotes where JSON needs them). */
void fr_sb_hex_bytes(fr_sb *sb, const uint8_t *data, size_t size);  /* "01 ab ff" */
void fr_sb_uuid(fr_sb *sb, const uint8_t b[16]);                    /* 8-4-4-4-12 */
void fr_sb_ipv4(fr_sb *sb, const uint8_t b[4]);
void fr_sb_ipv6(fr_sb *sb, const uint8_t b[16]);
void fr_sb_time(fr_sb *sb, int64_t seconds);    /* 2024-01-02T03:04:05 or TIME(n) */
void fr_sb_errno(fr_sb *sb, int32_t value);     /* EPERM(1), ERRNO(12345) */
/* Finite: shortest decimal that reads back as the same value (bare JSON number; ".0"
 * added to a whole number when sb->floats_marked); NaN/infinity: a quoted string
 * ("-nan", "inf"). */
void fr_sb_float(fr_sb *sb, float f);
void fr_sb_double(fr_sb *sb, double d);

#endif
