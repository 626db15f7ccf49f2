/*
 * tracefs_format.c - parses tracepoint format texts and the tracing-data blob that
 * carries them in perf.data, and renders a classic tracepoint's fields as JSON.
 */
#define _GNU_SOURCE
#include "tracefs_format.h"

#include "reader_error.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fr_tp_format_free(fr_tp_format *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_fields; i++)
        free(f->fields[i].name);
    free(f->fields);
    free(f->system);
    free(f->name);
    free(f->full_name);
    free(f);
}

/* ------------------------------------------------------------------ format text */

/* "KEY:number;" somewhere in [s, end): the number, or -1. */
static long long number_after(const char *s, const char *end, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = s; p + klen <= end; p++) {
        if (memcmp(p, key, klen))
            continue;
        p += klen;
        long long v = 0;
        const char *digits = p;
        while (p < end && *p >= '0' && *p <= '9' && v < 1000000)
            v = v * 10 + (*p++ - '0');
        return p > digits ? v : -1;
    }
    return -1;
}

/* Size of one element of a C type as the kernel spells it, for arrays whose count is
 * not a number and for __data_loc/__rel_loc arrays. */
static unsigned type_elem_size(const char *type)
{
    if (strchr(type, '*'))
        return 8;
    static const struct { const char *word; unsigned size; } sizes[] = {
        {"long long", 8}, {"long", 8}, {"64", 8}, {"double", 8}, {"short", 2}, {"16", 2},
        {"int", 4}, {"32", 4}, {"float", 4}, {"pid_t", 4},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strstr(type, sizes[i].word))
            return sizes[i].size;
    return 1;
}

static bool type_is_char(const char *type)
{
    /* char, const char, signed char: text; unsigned char (u8) buffers are bytes. */
    if (strstr(type, "unsigned"))
        return false;
    const char *c = strstr(type, "char");
    return c && (c == type || !isalnum((unsigned char)c[-1])) && !isalnum((unsigned char)c[4]) &&
           c[4] != '_';
}

/* One "field:DECL;\toffset:N;\tsize:N;\tsigned:N;" line. */
static int parse_field(const char *line, const char *end, fr_tp_field *fd, char *err, size_t errlen)
{
    memset(fd, 0, sizeof *fd);
    const char *decl = line;
    const char *semi = memchr(decl, ';', (size_t)(end - decl));
    if (!semi)
        return fr_errf(err, errlen, "field line without ';'");
    long long offset = number_after(semi, end, "offset:");
    long long size = number_after(semi, end, "size:");
    long long is_signed = number_after(semi, end, "signed:");
    if (offset < 0 || size <= 0 || offset > 0xFFFF || size > 0xFFFF)
        return fr_errf(err, errlen, "field '%.*s': no valid offset and size", (int)(semi - decl), decl);
    /* The declaration: [__data_loc |__rel_loc ]TYPE NAME[COUNT] */
    while (decl < semi && isspace((unsigned char)*decl))
        decl++;
    const char *dend = semi;
    while (dend > decl && isspace((unsigned char)dend[-1]))
        dend--;
    fd->kind = FR_TP_SCALAR;
    if (dend - decl > 11 && !memcmp(decl, "__data_loc ", 11)) {
        fd->kind = FR_TP_DATA_LOC;
        decl += 11;
    } else if (dend - decl > 10 && !memcmp(decl, "__rel_loc ", 10)) {
        fd->kind = FR_TP_REL_LOC;
        decl += 10;
    }
    /* Array suffix on the name: NAME[COUNT] */
    const char *name_end = dend;
    long long count = -1;
    if (name_end > decl && name_end[-1] == ']') {
        const char *open = name_end - 1;
        while (open > decl && *open != '[')
            open--;
        if (*open != '[')
            return fr_errf(err, errlen, "field '%.*s': unbalanced '['", (int)(dend - decl), decl);
        count = number_after(open, name_end, "[");
        name_end = open;
        if (fd->kind == FR_TP_SCALAR)
            fd->kind = FR_TP_ARRAY;
    }
    const char *name = name_end;
    while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
        name--;
    if (name == name_end)
        return fr_errf(err, errlen, "field '%.*s': no name", (int)(dend - decl), decl);
    char type[128];
    size_t tlen = (size_t)(name - decl);
    if (tlen >= sizeof type)
        tlen = sizeof type - 1;
    memcpy(type, decl, tlen);
    type[tlen] = 0;
    fd->name = strndup(name, (size_t)(name_end - name));
    if (!fd->name)
        return fr_errf(err, errlen, "out of memory");
    fd->offset = (uint16_t)offset;
    fd->size = (uint16_t)size;
    fd->is_signed = is_signed > 0;
    fd->is_pointer = strchr(type, '*') != NULL;
    fd->is_char = !fd->is_pointer && type_is_char(type);
    fd->is_common = !strncmp(fd->name, "common_", 7);
    if (fd->kind == FR_TP_SCALAR)
        fd->elem_size = fd->size;
    else if (fd->kind == FR_TP_ARRAY && count > 0 && size % count == 0)
        fd->elem_size = (uint16_t)(size / count);
    else
        fd->elem_size = (uint16_t)type_elem_size(type);
    if (fd->kind != FR_TP_SCALAR && fd->kind != FR_TP_ARRAY && fd->size != 4)
        return fr_errf(err, errlen, "field '%s': a %s of %u bytes (4 expected)", fd->name,
                    fd->kind == FR_TP_DATA_LOC ? "__data_loc" : "__rel_loc", fd->size);
    return 0;
}

/* user_events registered by EventHeader writers declare exactly these fields, in this
 * order and with these sizes, after the common ones; the event's bytes start at the
 * first. */
static int eventheader_offset(const fr_tp_format *f)
{
    static const struct { const char *name; uint16_t size; } eh[] = {
        {"eventheader_flags", 1}, {"version", 1}, {"id", 2}, {"tag", 2}, {"opcode", 1}, {"level", 1},
    };
    size_t i = 0;
    while (i < f->n_fields && f->fields[i].is_common)
        i++;
    if (f->n_fields - i != sizeof eh / sizeof eh[0])
        return -1;
    unsigned at = f->fields[i].offset;
    for (size_t k = 0; k < sizeof eh / sizeof eh[0]; k++, i++) {
        const fr_tp_field *fd = &f->fields[i];
        if (strcmp(fd->name, eh[k].name) || fd->size != eh[k].size || fd->offset != at ||
            fd->kind != FR_TP_SCALAR)
            return -1;
        at += fd->size;
    }
    return f->fields[i - 6].offset;
}

static char *line_value(const char *text, const char *end, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if ((size_t)(le - p) >= klen && !memcmp(p, key, klen)) {
            const char *v = p + klen;
            while (v < le && isspace((unsigned char)*v))
                v++;
            const char *ve = le;
            while (ve > v && isspace((unsigned char)ve[-1]))
                ve--;
            return strndup(v, (size_t)(ve - v));
        }
        p = nl ? nl + 1 : end;
    }
    return NULL;
}

fr_tp_format *fr_tp_format_parse(const char *system, const char *text, size_t len,
                                 char *err, size_t errlen)
{
    const char *end = text + len;
    fr_tp_format *f = calloc(1, sizeof *f);
    if (!f) {
        fr_errf(err, errlen, "out of memory");
        return NULL;
    }
    f->eventheader_offset = -1;
    f->system = strdup(system);
    f->name = line_value(text, end, "name:");
    char *id = line_value(text, end, "ID:");
    char *endp = NULL;
    unsigned long long idv = id ? strtoull(id, &endp, 10) : 0;
    bool id_ok = id && *id && endp && !*endp;
    free(id);
    if (!f->system || !f->name || !*f->name || !id_ok) {
        fr_errf(err, errlen, "event format of system '%s' without a name or a numeric ID", system);
        fr_tp_format_free(f);
        return NULL;
    }
    f->id = idv;
    if (asprintf(&f->full_name, "%s:%s", f->system, f->name) < 0) {
        f->full_name = NULL;
        fr_errf(err, errlen, "out of memory");
        fr_tp_format_free(f);
        return NULL;
    }
    size_t cap = 0;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *s = p;
        while (s < le && isspace((unsigned char)*s))
            s++;
        const char *decl = NULL;
        if ((size_t)(le - s) > 6 && !memcmp(s, "field:", 6))
            decl = s + 6;
        else if ((size_t)(le - s) > 14 && !memcmp(s, "field special:", 14))
            decl = s + 14;
        if (decl) {
            if (f->n_fields == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                fr_tp_field *nf = ncap <= 4096 ? realloc(f->fields, ncap * sizeof *nf) : NULL;
                if (!nf) {
                    fr_errf(err, errlen, "%s: too many fields", f->full_name);
                    fr_tp_format_free(f);
                    return NULL;
                }
                f->fields = nf;
                cap = ncap;
            }
            char why[200];
            if (parse_field(decl, le, &f->fields[f->n_fields], why, sizeof why) < 0) {
                free(f->fields[f->n_fields].name);
                fr_errf(err, errlen, "%s: %s", f->full_name, why);
                fr_tp_format_free(f);
                return NULL;
            }
            f->n_fields++;
        }
        p = nl ? nl + 1 : end;
    }
    f->eventheader_offset = eventheader_offset(f);
    return f;
}

/* ------------------------------------------------------------------ rendering */

static uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static void put_number(fr_sb *sb, const uint8_t *p, unsigned n, bool is_signed, bool pointer)
{
    uint64_t v = load_le(p, n);
    if (pointer) {
        fr_sb_puts(sb, "\"0x");
        fr_sb_hex_upper(sb, v);
        fr_sb_putc(sb, '"');
    } else if (is_signed) {
        unsigned shift = 64 - 8 * n;
        fr_sb_i64(sb, (int64_t)(v << shift) >> shift);
    } else {
        fr_sb_u64(sb, v);
    }
}

/* Text up to its first NUL, or bytes as numbers, or (an element size that is no integer
 * size) a hex dump. */
static void put_elements(fr_sb *sb, const fr_tp_field *fd, const uint8_t *p, size_t n)
{
    if (fd->is_char) {
        const uint8_t *nul = memchr(p, 0, n);
        fr_sb_json_text(sb, p, nul ? (size_t)(nul - p) : n, FR_TEXT_UTF8);
        return;
    }
    unsigned es = fd->elem_size;
    if (es != 1 && es != 2 && es != 4 && es != 8) {
        fr_sb_putc(sb, '"');
        fr_sb_hex_bytes(sb, p, n);
        fr_sb_putc(sb, '"');
        return;
    }
    fr_sb_puts(sb, "[");
    for (size_t i = 0; i + es <= n; i += es) {
        fr_sb_puts(sb, i ? ", " : " ");
        put_number(sb, p + i, es, fd->is_signed, fd->is_pointer);
    }
    fr_sb_puts(sb, n >= es ? " ]" : "]");
}

int fr_tp_fields_to_json(const fr_tp_format *f, const uint8_t *raw, size_t size, fr_sb *sb,
                         char *err, size_t errlen)
{
    for (size_t i = 0; i < f->n_fields; i++) {
        const fr_tp_field *fd = &f->fields[i];
        if (fd->is_common)
            continue;
        if ((size_t)fd->offset + fd->size > size)
            return fr_errf(err, errlen, "%s: field '%s' at bytes %u..%u is past the event's %zu bytes",
                        f->full_name, fd->name, fd->offset, fd->offset + fd->size, size);
        fr_sb_puts(sb, ", ");
        fr_sb_json_text(sb, (const uint8_t *)fd->name, strlen(fd->name), FR_TEXT_UTF8);
        fr_sb_puts(sb, ": ");
        const uint8_t *p = raw + fd->offset;
        switch (fd->kind) {
        case FR_TP_SCALAR:
            if (fd->size == 1 || fd->size == 2 || fd->size == 4 || fd->size == 8) {
                put_number(sb, p, fd->size, fd->is_signed, fd->is_pointer);
            } else {
                fr_sb_putc(sb, '"');
                fr_sb_hex_bytes(sb, p, fd->size);
                fr_sb_putc(sb, '"');
            }
            break;
        case FR_TP_ARRAY:
            put_elements(sb, fd, p, fd->size);
            break;
        case FR_TP_DATA_LOC:
        case FR_TP_REL_LOC: {
            uint32_t loc = (uint32_t)load_le(p, 4);
            size_t at = loc & 0xFFFF, len = loc >> 16;
            if (fd->kind == FR_TP_REL_LOC)
                at += (size_t)fd->offset + fd->size;
            if (at > size || len > size - at)
                return fr_errf(err, errlen, "%s: field '%s' points at bytes %zu..%zu, past the event's "
                            "%zu bytes", f->full_name, fd->name, at, at + len, size);
            put_elements(sb, fd, raw + at, len);
            break;
        }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ tracing data */

typedef struct td_reader {
    fr_tp_read_fn read;
    void    *ctx;
    uint64_t pos, size;
    char    *err;
    size_t   errlen;
} td_reader;

static int td_read(td_reader *r, void *buf, size_t n, const char *what)
{
    if (n > r->size - r->pos)
        return fr_errf(r->err, r->errlen, "tracing data byte %llu: %s of %zu bytes runs past its "
                    "%llu bytes", (unsigned long long)r->pos, what, n,
                    (unsigned long long)r->size);
    size_t got = r->read(r->ctx, buf, n);
    if (got != n)
        return fr_errf(r->err, r->errlen, "tracing data byte %llu: the file ends inside %s",
                    (unsigned long long)(r->pos + got), what);
    r->pos += n;
    return 0;
}

static int td_skip(td_reader *r, uint64_t n, const char *what)
{
    char scratch[4096];
    if (n > r->size - r->pos)
        return fr_errf(r->err, r->errlen, "tracing data byte %llu: %s of %llu bytes runs past its "
                    "%llu bytes", (unsigned long long)r->pos, what, (unsigned long long)n,
                    (unsigned long long)r->size);
    while (n) {
        size_t k = n < sizeof scratch ? (size_t)n : sizeof scratch;
        if (td_read(r, scratch, k, what) < 0)
            return -1;
        n -= k;
    }
    return 0;
}

static int td_u32(td_reader *r, uint32_t *v, const char *what)
{
    uint8_t b[4];
    if (td_read(r, b, 4, what) < 0)
        return -1;
    *v = (uint32_t)load_le(b, 4);
    return 0;
}

static int td_u64(td_reader *r, uint64_t *v, const char *what)
{
    uint8_t b[8];
    if (td_read(r, b, 8, what) < 0)
        return -1;
    *v = load_le(b, 8);
    return 0;
}

/* A NUL-terminated string of at most cap-1 bytes. */
static int td_string(td_reader *r, char *buf, size_t cap, const char *what)
{
    for (size_t i = 0; i < cap; i++) {
        if (td_read(r, buf + i, 1, what) < 0)
            return -1;
        if (!buf[i])
            return 0;
    }
    return fr_errf(r->err, r->errlen, "tracing data byte %llu: %s longer than %zu bytes",
                (unsigned long long)r->pos, what, cap - 1);
}

/* One named header file: "header_page\0" (or "header_event\0"), u64 size, its text. */
static int td_header_file(td_reader *r, const char *name)
{
    char got[16];
    size_t n = strlen(name) + 1;
    uint64_t at = r->pos;
    if (td_read(r, got, n, name) < 0)
        return -1;
    if (memcmp(got, name, n))
        return fr_errf(r->err, r->errlen, "tracing data byte %llu: '%s' expected",
                    (unsigned long long)at, name);
    uint64_t size;
    return td_u64(r, &size, name) < 0 ? -1 : td_skip(r, size, name);
}

/* Format texts are a few KiB; anything near this is not one. */
#define FR_TP_FORMAT_MAX (1u << 20)
#define FR_TP_SYSTEM_MAX 256

int fr_tp_tracing_data_parse(fr_tp_read_fn read, void *read_ctx, uint64_t size,
                             fr_tp_found_fn found, void *found_ctx, char *err, size_t errlen)
{
    td_reader r = {read, read_ctx, 0, size, err, errlen};
    static const uint8_t magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
    uint8_t m[10];
    if (td_read(&r, m, sizeof m, "the magic") < 0)
        return -1;
    if (memcmp(m, magic, sizeof m))
        return fr_errf(err, errlen, "tracing data byte 0: not tracing data (no \\027\\010Dtracing magic)");
    char version[16];
    if (td_string(&r, version, sizeof version, "the version") < 0)
        return -1;
    uint8_t endian_long[2];
    uint32_t page_size;
    if (td_read(&r, endian_long, 2, "the byte order") < 0 || td_u32(&r, &page_size, "the page size") < 0)
        return -1;
    if (endian_long[0])
        return fr_errf(err, errlen, "tracing data byte %llu: big-endian tracing data is not supported",
                    (unsigned long long)r.pos - 6);
    if (td_header_file(&r, "header_page") < 0 || td_header_file(&r, "header_event") < 0)
        return -1;
    uint32_t n_ftrace;
    if (td_u32(&r, &n_ftrace, "the count of ftrace formats") < 0)
        return -1;
    for (uint32_t i = 0; i < n_ftrace; i++) {
        uint64_t n;
        if (td_u64(&r, &n, "an ftrace format's size") < 0 || td_skip(&r, n, "an ftrace format") < 0)
            return -1;
    }
    uint32_t n_systems;
    if (td_u32(&r, &n_systems, "the count of event systems") < 0)
        return -1;
    for (uint32_t s = 0; s < n_systems; s++) {
        char system[FR_TP_SYSTEM_MAX];
        uint32_t n_events;
        if (td_string(&r, system, sizeof system, "a system name") < 0 ||
            td_u32(&r, &n_events, "a system's count of events") < 0)
            return -1;
        for (uint32_t e = 0; e < n_events; e++) {
            uint64_t n;
            if (td_u64(&r, &n, "an event format's size") < 0)
                return -1;
            uint64_t at = r.pos;
            if (n > FR_TP_FORMAT_MAX)
                return fr_errf(err, errlen, "tracing data byte %llu: an event format of %llu bytes "
                            "(at most %u expected)", (unsigned long long)at - 8,
                            (unsigned long long)n, FR_TP_FORMAT_MAX);
            char *text = malloc(n ? (size_t)n : 1);
            if (!text)
                return fr_errf(err, errlen, "out of memory");
            if (td_read(&r, text, (size_t)n, "an event format") < 0) {
                free(text);
                return -1;
            }
            char why[300];
            fr_tp_format *f = fr_tp_format_parse(system, text, (size_t)n, why, sizeof why);
            free(text);
            if (!f)
                return fr_errf(err, errlen, "tracing data byte %llu: %s", (unsigned long long)at, why);
            if (found(found_ctx, f) < 0)
                return fr_errf(err, errlen, "tracing data byte %llu: too many event formats",
                            (unsigned long long)at);
        }
    }
    return 0;
}
