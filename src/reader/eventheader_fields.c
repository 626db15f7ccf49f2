/*
 * eventheader_fields.c - renders an EventHeader event's fields as JSON members, the way
 * the reference decoder (LinuxTracepoints' EventFormatter) does:
 *   - integers as numbers, hex integers as "0x1F" strings, booleans as true/false (other
 *     values as numbers), floats as shortest round-trip numbers ("-nan" for NaN),
 *     characters and strings as JSON strings, binary as "01 02 ff";
 *   - arrays as [ a, b ], structs as { "member": value }, the field tag as ";tag=0x42"
 *     appended to the field's name;
 *   - a counted 8-bit string or binary field with a scalar format (e.g. an int carried as
 *     bytes) is shown as that scalar when its size fits the format, null when it is
 *     empty, and as bytes otherwise.
 */
#include "eventheader_fields.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "flightrec/eventheader.h"

/* Nesting limit: metadata is untrusted input, recursion must stay bounded. */
#define MAX_DEPTH 32

typedef struct field_desc {
    const char *name;
    size_t      name_len;
    uint8_t     encoding;   /* value part, FR_EH_ENC_VALUE_MASK */
    uint8_t     enc_flags;  /* FR_EH_ENC_CARRAY / FR_EH_ENC_VARRAY */
    uint8_t     format;     /* value part, FR_EH_FMT_VALUE_MASK */
    uint16_t    tag;
    uint16_t    carray_len;
} field_desc;

typedef struct walker {
    const fr_eh_event *ev;
    size_t  ppos;           /* read position in ev->payload */
    fr_sb  *sb;
    bool    need_comma;
    int     depth;          /* open JSON containers (0: top level) */
    char   *err;
    size_t  errlen;
} walker;

static int fail(walker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(walker *w, const char *fmt, ...)
{
    if (w->err && w->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err, w->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ------------------------------------------------------------------ metadata */

static int read_desc(walker *w, size_t *mpos, field_desc *fd)
{
    const uint8_t *m = w->ev->metadata;
    size_t size = w->ev->metadata_size, p = *mpos;
    const uint8_t *nul = memchr(m + p, 0, size - p);
    if (!nul)
        return fail(w, "field name at metadata byte %zu has no terminating NUL", p);
    fd->name = (const char *)m + p;
    fd->name_len = (size_t)(nul - (m + p));
    p = (size_t)(nul - m) + 1;
    if (p >= size)
        return fail(w, "field '%s' has no encoding byte", fd->name);
    uint8_t enc = m[p++];
    uint8_t fmt = 0;
    fd->tag = 0;
    fd->carray_len = 0;
    if (enc & FR_EH_ENC_CHAIN) {
        if (p >= size)
            return fail(w, "field '%s' has no format byte", fd->name);
        fmt = m[p++];
        if (fmt & FR_EH_FMT_CHAIN) {
            if (size - p < 2)
                return fail(w, "field '%s' has no tag", fd->name);
            fd->tag = (uint16_t)(m[p] | m[p + 1] << 8);
            p += 2;
        }
    }
    if (enc & FR_EH_ENC_CARRAY) {
        if (size - p < 2)
            return fail(w, "field '%s' has no array length", fd->name);
        fd->carray_len = (uint16_t)(m[p] | m[p + 1] << 8);
        p += 2;
    }
    fd->encoding = enc & FR_EH_ENC_VALUE_MASK;
    fd->enc_flags = enc & (FR_EH_ENC_CARRAY | FR_EH_ENC_VARRAY);
    fd->format = fmt & FR_EH_FMT_VALUE_MASK;
    if (fd->enc_flags == (FR_EH_ENC_CARRAY | FR_EH_ENC_VARRAY))
        return fail(w, "field '%s' is both a constant and a variable array", fd->name);
    if (fd->encoding == FR_EH_ENC_STRUCT && fd->format == 0)
        return fail(w, "struct field '%s' has no member count", fd->name);
    *mpos = p;
    return 0;
}

/* Moves *mpos past `count` fields (and the members of any structs among them). */
static int skip_descs(walker *w, size_t *mpos, size_t count)
{
    while (count > 0 && *mpos < w->ev->metadata_size) {
        field_desc fd;
        if (read_desc(w, mpos, &fd) < 0)
            return -1;
        count--;
        if (fd.encoding == FR_EH_ENC_STRUCT)
            count += fd.format;
    }
    return 0;
}

/* ------------------------------------------------------------------ payload */

static int take(walker *w, size_t n, const uint8_t **data, const char *what)
{
    if (w->ev->payload_size - w->ppos < n)
        return fail(w, "%s at payload byte %zu needs %zu bytes, %zu left", what, w->ppos, n,
                    w->ev->payload_size - w->ppos);
    *data = w->ev->payload + w->ppos;
    w->ppos += n;
    return 0;
}

static int take_u16(walker *w, uint16_t *v, const char *what)
{
    const uint8_t *d = NULL;
    if (take(w, 2, &d, what) < 0)
        return -1;
    *v = (uint16_t)(d[0] | d[1] << 8);
    return 0;
}

/* Reads one value of fd's encoding: its bytes, without length prefix or terminator. */
static int take_value(walker *w, const field_desc *fd, const uint8_t **data, size_t *size)
{
    static const uint8_t fixed[] = {
        [FR_EH_ENC_VALUE8] = 1, [FR_EH_ENC_VALUE16] = 2, [FR_EH_ENC_VALUE32] = 4,
        [FR_EH_ENC_VALUE64] = 8, [FR_EH_ENC_VALUE128] = 16,
    };
    size_t unit;
    switch (fd->encoding) {
    case FR_EH_ENC_VALUE8: case FR_EH_ENC_VALUE16: case FR_EH_ENC_VALUE32:
    case FR_EH_ENC_VALUE64: case FR_EH_ENC_VALUE128:
        *size = fixed[fd->encoding];
        return take(w, *size, data, fd->name);
    case FR_EH_ENC_ZSTRING8: case FR_EH_ENC_ZSTRING16: case FR_EH_ENC_ZSTRING32: {
        unit = fd->encoding == FR_EH_ENC_ZSTRING8 ? 1 : fd->encoding == FR_EH_ENC_ZSTRING16 ? 2 : 4;
        const uint8_t *p = w->ev->payload + w->ppos;
        size_t left = w->ev->payload_size - w->ppos;
        static const uint8_t zero[4];
        for (size_t n = 0; n + unit <= left; n += unit) {
            if (!memcmp(p + n, zero, unit)) {
                *data = p;
                *size = n;
                w->ppos += n + unit;
                return 0;
            }
        }
        return fail(w, "string '%s' at payload byte %zu has no terminator", fd->name, w->ppos);
    }
    case FR_EH_ENC_STRING16_8: case FR_EH_ENC_STRING16_16: case FR_EH_ENC_STRING16_32:
    case FR_EH_ENC_BINARY16: {
        unit = fd->encoding == FR_EH_ENC_STRING16_16 ? 2 : fd->encoding == FR_EH_ENC_STRING16_32 ? 4 : 1;
        uint16_t count;
        if (take_u16(w, &count, fd->name) < 0)
            return -1;
        *size = (size_t)count * unit;
        return take(w, *size, data, fd->name);
    }
    default:
        return fail(w, "field '%s' has unknown encoding %u", fd->name, fd->encoding);
    }
}

/* ------------------------------------------------------------------ values */

static uint64_t read_le(const uint8_t *d, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | d[i];
    return v;
}

static int64_t sign_extend(uint64_t v, size_t n)
{
    unsigned shift = (unsigned)(64 - 8 * n);
    return shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
}

static void quoted_hex_bytes(fr_sb *sb, const uint8_t *d, size_t n)
{
    fr_sb_putc(sb, '"');
    fr_sb_hex_bytes(sb, d, n);
    fr_sb_putc(sb, '"');
}

/* A scalar of 1, 2, 4, 8 or 16 bytes in the given format. */
static void render_scalar(fr_sb *sb, const uint8_t *d, size_t n, unsigned fmt)
{
    if (n == 16) {
        if (fmt == FR_EH_FMT_UUID) {
            fr_sb_putc(sb, '"'); fr_sb_uuid(sb, d); fr_sb_putc(sb, '"');
        } else if (fmt == FR_EH_FMT_IP_ADDRESS || fmt == FR_EH_FMT_IP_ADDRESS_OLD) {
            fr_sb_putc(sb, '"'); fr_sb_ipv6(sb, d); fr_sb_putc(sb, '"');
        } else {
            quoted_hex_bytes(sb, d, n);
        }
        return;
    }
    uint64_t u = read_le(d, n);
    switch (fmt) {
    case FR_EH_FMT_SIGNED:
        fr_sb_i64(sb, sign_extend(u, n));
        return;
    case FR_EH_FMT_HEX_INT:
        fr_sb_puts(sb, "\"0x");
        fr_sb_hex_upper(sb, u);
        fr_sb_putc(sb, '"');
        return;
    case FR_EH_FMT_BOOLEAN:
        if (n > 4)
            break;
        {
            /* 8- and 16-bit values widen unsigned, 32-bit ones are read signed. */
            int32_t b = n == 4 ? (int32_t)(uint32_t)u : (int32_t)u;
            if (b == 0 || b == 1)
                fr_sb_puts(sb, b ? "true" : "false");
            else
                fr_sb_printf(sb, "%d", b);
        }
        return;
    case FR_EH_FMT_ERRNO:
        if (n != 4)
            break;
        fr_sb_putc(sb, '"'); fr_sb_errno(sb, (int32_t)(uint32_t)u); fr_sb_putc(sb, '"');
        return;
    case FR_EH_FMT_PID:
        if (n != 4)
            break;
        fr_sb_i64(sb, (int32_t)(uint32_t)u);
        return;
    case FR_EH_FMT_TIME:
        if (n != 4 && n != 8)
            break;
        fr_sb_putc(sb, '"'); fr_sb_time(sb, sign_extend(u, n)); fr_sb_putc(sb, '"');
        return;
    case FR_EH_FMT_FLOAT:
        if (n == 4) {
            float f;
            uint32_t bits = (uint32_t)u;
            memcpy(&f, &bits, 4);
            fr_sb_float(sb, f);
            return;
        }
        if (n == 8) {
            double f;
            memcpy(&f, &u, 8);
            fr_sb_double(sb, f);
            return;
        }
        break;
    case FR_EH_FMT_HEX_BYTES:
        quoted_hex_bytes(sb, d, n);
        return;
    case FR_EH_FMT_STRING8:
        if (n != 1)
            break;
        fr_sb_putc(sb, '"'); fr_sb_json_codepoint(sb, (uint32_t)u); fr_sb_putc(sb, '"');
        return;
    case FR_EH_FMT_STRING_UTF:
        if (n == 8)
            break;
        fr_sb_putc(sb, '"'); fr_sb_json_codepoint(sb, (uint32_t)u); fr_sb_putc(sb, '"');
        return;
    case FR_EH_FMT_PORT:
        if (n != 2)
            break;
        fr_sb_printf(sb, "%u", (unsigned)(d[0] << 8 | d[1]));
        return;
    case FR_EH_FMT_IP_ADDRESS:
    case FR_EH_FMT_IP_ADDRESS_OLD:
        if (n != 4)
            break;
        fr_sb_putc(sb, '"'); fr_sb_ipv4(sb, d); fr_sb_putc(sb, '"');
        return;
    default:
        break;
    }
    fr_sb_u64(sb, u);   /* default: unsigned decimal */
}

/* Formats that describe a scalar, and whether a value of n bytes can carry it. */
static bool is_scalar_format(unsigned fmt)
{
    switch (fmt) {
    case FR_EH_FMT_UNSIGNED: case FR_EH_FMT_SIGNED: case FR_EH_FMT_HEX_INT:
    case FR_EH_FMT_ERRNO: case FR_EH_FMT_PID: case FR_EH_FMT_TIME: case FR_EH_FMT_BOOLEAN:
    case FR_EH_FMT_FLOAT: case FR_EH_FMT_UUID: case FR_EH_FMT_PORT:
    case FR_EH_FMT_IP_ADDRESS: case FR_EH_FMT_IP_ADDRESS_OLD:
        return true;
    }
    return false;
}

static bool scalar_size_fits(unsigned fmt, size_t n)
{
    switch (fmt) {
    case FR_EH_FMT_UNSIGNED: case FR_EH_FMT_SIGNED: case FR_EH_FMT_HEX_INT:
        return n == 1 || n == 2 || n == 4 || n == 8;
    case FR_EH_FMT_BOOLEAN:
        return n == 1 || n == 2 || n == 4;
    case FR_EH_FMT_ERRNO: case FR_EH_FMT_PID:
        return n == 4;
    case FR_EH_FMT_TIME: case FR_EH_FMT_FLOAT:
        return n == 4 || n == 8;
    case FR_EH_FMT_UUID:
        return n == 16;
    case FR_EH_FMT_PORT:
        return n == 2;
    case FR_EH_FMT_IP_ADDRESS: case FR_EH_FMT_IP_ADDRESS_OLD:
        return n == 4 || n == 16;
    }
    return false;
}

static void render_value(fr_sb *sb, unsigned enc, unsigned fmt, const uint8_t *d, size_t n)
{
    switch (enc) {
    case FR_EH_ENC_VALUE8: case FR_EH_ENC_VALUE16: case FR_EH_ENC_VALUE32:
    case FR_EH_ENC_VALUE64: case FR_EH_ENC_VALUE128:
        render_scalar(sb, d, n, fmt);
        return;
    case FR_EH_ENC_ZSTRING8: case FR_EH_ENC_STRING16_8: case FR_EH_ENC_BINARY16:
        if (is_scalar_format(fmt)) {
            if (n == 0)
                fr_sb_puts(sb, "null");
            else if (scalar_size_fits(fmt, n))
                render_scalar(sb, d, n, fmt);
            else if (enc == FR_EH_ENC_BINARY16)
                quoted_hex_bytes(sb, d, n);
            else
                fr_sb_json_text(sb, d, n, FR_TEXT_LATIN1);
            return;
        }
        switch (fmt) {
        case FR_EH_FMT_HEX_BYTES:
            quoted_hex_bytes(sb, d, n);
            return;
        case FR_EH_FMT_STRING8:
            fr_sb_json_text(sb, d, n, FR_TEXT_LATIN1);
            return;
        case FR_EH_FMT_STRING_UTF_BOM: case FR_EH_FMT_STRING_XML: case FR_EH_FMT_STRING_JSON:
            fr_sb_json_text_bom(sb, d, n, FR_TEXT_UTF8);
            return;
        case FR_EH_FMT_DEFAULT:
            if (enc == FR_EH_ENC_BINARY16) {
                quoted_hex_bytes(sb, d, n);
                return;
            }
            break;
        }
        fr_sb_json_text(sb, d, n, FR_TEXT_UTF8);
        return;
    case FR_EH_ENC_ZSTRING16: case FR_EH_ENC_STRING16_16:
    case FR_EH_ENC_ZSTRING32: case FR_EH_ENC_STRING16_32: {
        bool wide = enc == FR_EH_ENC_ZSTRING32 || enc == FR_EH_ENC_STRING16_32;
        enum fr_text_kind kind = wide ? FR_TEXT_UTF32LE : FR_TEXT_UTF16LE;
        if (fmt == FR_EH_FMT_HEX_BYTES)
            quoted_hex_bytes(sb, d, n);
        else if (fmt == FR_EH_FMT_STRING_UTF_BOM || fmt == FR_EH_FMT_STRING_XML ||
                 fmt == FR_EH_FMT_STRING_JSON)
            fr_sb_json_text_bom(sb, d, n, kind);
        else
            fr_sb_json_text(sb, d, n, kind);
        return;
    }
    }
}

/* ------------------------------------------------------------------ JSON structure */

/* Before a member or an array element: ", " after a sibling, " " first in a container,
 * nothing first at the top level. */
static void separator(walker *w)
{
    if (w->need_comma)
        fr_sb_puts(w->sb, ", ");
    else if (w->depth > 0)
        fr_sb_putc(w->sb, ' ');
    w->need_comma = true;
}

static void member_name(walker *w, const field_desc *fd)
{
    separator(w);
    fr_sb_json_text(w->sb, (const uint8_t *)fd->name, fd->name_len, FR_TEXT_UTF8);
    if (fd->tag) {   /* put the tag inside the quotes: "name;tag=0x42" */
        w->sb->len--;
        fr_sb_printf(w->sb, ";tag=0x%X\"", fd->tag);
    }
    fr_sb_puts(w->sb, ": ");
}

static void open_container(walker *w, char c)
{
    fr_sb_putc(w->sb, c);
    w->need_comma = false;
    w->depth++;
}

static void close_container(walker *w, char c)
{
    char text[3] = {' ', c, 0};
    fr_sb_puts(w->sb, text);
    w->need_comma = true;
    w->depth--;
}

static int write_fields(walker *w, size_t *mpos, size_t count);

/* Writes the members of one struct value: `count` fields starting at *mpos. */
static int write_struct_value(walker *w, size_t *mpos, size_t count)
{
    if (w->depth >= MAX_DEPTH)
        return fail(w, "structs nested deeper than %d levels", MAX_DEPTH);
    open_container(w, '{');
    if (write_fields(w, mpos, count) < 0)
        return -1;
    close_container(w, '}');
    return 0;
}

static int write_field(walker *w, size_t *mpos)
{
    field_desc fd;
    if (read_desc(w, mpos, &fd) < 0)
        return -1;
    member_name(w, &fd);

    bool is_array = fd.enc_flags != 0;
    uint16_t count = 1;
    if (fd.enc_flags & FR_EH_ENC_CARRAY)
        count = fd.carray_len;
    else if ((fd.enc_flags & FR_EH_ENC_VARRAY) && take_u16(w, &count, fd.name) < 0)
        return -1;
    if (is_array) {
        if (w->depth >= MAX_DEPTH)
            return fail(w, "arrays nested deeper than %d levels", MAX_DEPTH);
        open_container(w, '[');
    }

    if (fd.encoding == FR_EH_ENC_STRUCT) {
        size_t members = *mpos, end = *mpos;
        for (uint16_t i = 0; i < count; i++) {
            if (is_array)
                separator(w);
            end = members;
            if (write_struct_value(w, &end, fd.format) < 0)
                return -1;
        }
        if (count == 0 && skip_descs(w, &end, fd.format) < 0)
            return -1;
        *mpos = end;
    } else {
        for (uint16_t i = 0; i < count; i++) {
            const uint8_t *data = NULL;
            size_t size = 0;
            if (is_array)
                separator(w);
            if (take_value(w, &fd, &data, &size) < 0)
                return -1;
            render_value(w->sb, fd.encoding, fd.format, data, size);
        }
    }

    if (is_array)
        close_container(w, ']');
    return 0;
}

/* Writes up to `count` fields (SIZE_MAX: all), stopping early where the metadata ends
 * (the reference tolerates structs that claim more members than are described). */
static int write_fields(walker *w, size_t *mpos, size_t count)
{
    while (count > 0 && *mpos < w->ev->metadata_size) {
        if (write_field(w, mpos) < 0)
            return -1;
        count--;
    }
    return 0;
}

int fr_eh_fields_to_json(const fr_eh_event *ev, fr_sb *sb, bool *need_comma,
                         char *err, size_t errlen)
{
    walker w = {.ev = ev, .sb = sb, .need_comma = *need_comma, .err = err, .errlen = errlen};
    size_t mpos = 0;
    if (ev->metadata && write_fields(&w, &mpos, SIZE_MAX) < 0)
        return -1;
    *need_comma = w.need_comma;
    return 0;
}
