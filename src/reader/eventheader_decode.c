/*
 * eventheader_decode.c - splits an EventHeader event into its parts (tracepoint name,
 * header, extensions, metadata, payload) and writes the whole event as JSON in the
 * reference decoder's style. The fields themselves are rendered by
 * eventheader_fields.c.
 */
#include "eventheader_decode.h"

#include "reader_error.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader_fields.h"
#include "eventheader_text.h"
#include "flightrec/eventheader.h"

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Parses "L{hex}K{hex}{options}" (what follows the provider's '_'). */
static bool parse_attributes(const char *s, const char *end, fr_eh_event *ev)
{
    if (s >= end || *s++ != 'L')
        return false;
    unsigned level = 0;
    const char *digits = s;
    for (; s < end && hex_digit(*s) >= 0; s++)
        level = level * 16 + (unsigned)hex_digit(*s);
    if (s == digits || s - digits > 2 || s >= end || *s++ != 'K')
        return false;
    uint64_t keyword = 0;
    digits = s;
    for (; s < end && hex_digit(*s) >= 0; s++)
        keyword = keyword * 16 + (uint64_t)hex_digit(*s);
    if (s == digits || s - digits > 16)
        return false;
    /* Options: an uppercase letter, then digits and lowercase letters. */
    ev->group = "";
    ev->group_len = 0;
    while (s < end) {
        if (*s < 'A' || *s > 'Z')
            return false;
        char type = *s++;
        const char *value = s;
        while (s < end && ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z')))
            s++;
        if (type == 'G') {
            ev->group = value;
            ev->group_len = (size_t)(s - value);
        }
    }
    ev->keyword = keyword;
    (void)level; /* the header's level is authoritative */
    return true;
}

static bool parse_tracepoint_name(const char *name, fr_eh_event *ev)
{
    size_t len = strlen(name);
    /* Provider names may contain '_': the attributes start at the last '_' that
     * is followed by a well-formed attribute string. */
    for (size_t i = len; i-- > 0;) {
        if (name[i] == '_' && i > 0 && parse_attributes(name + i + 1, name + len, ev)) {
            ev->provider = name;
            ev->provider_len = i;
            return true;
        }
    }
    return false;
}

int fr_eh_decode(const char *tracepoint_name, const uint8_t *data, size_t size,
                 fr_eh_event *ev, char *err, size_t errlen)
{
    memset(ev, 0, sizeof *ev);
    ev->name = "";
    if (!parse_tracepoint_name(tracepoint_name, ev))
        return fr_errf(err, errlen, "tracepoint name '%s' is not Provider_L<level>K<keyword>",
                    tracepoint_name);
    if (size < FR_EH_HEADER_SIZE)
        return fr_errf(err, errlen, "event of %zu bytes is shorter than the 8-byte header", size);
    ev->flags = data[0];
    ev->version = data[1];
    ev->id = (uint16_t)(data[2] | data[3] << 8);
    ev->tag = (uint16_t)(data[4] | data[5] << 8);
    ev->opcode = data[6];
    ev->level = data[7];
    if (!(ev->flags & FR_EH_FLAG_LITTLE_ENDIAN))
        return fr_errf(err, errlen, "big-endian events (flags 0x%02x) are not supported", ev->flags);

    size_t pos = FR_EH_HEADER_SIZE;
    bool more = ev->flags & FR_EH_FLAG_EXTENSION;
    while (more) {
        if (size - pos < 4)
            return fr_errf(err, errlen, "extension header at byte %zu runs past the event's end", pos);
        size_t ext_size = (size_t)(data[pos] | data[pos + 1] << 8);
        unsigned kind = (unsigned)(data[pos + 2] | data[pos + 3] << 8);
        pos += 4;
        if (size - pos < ext_size)
            return fr_errf(err, errlen, "extension of %zu bytes at byte %zu runs past the event's end",
                        ext_size, pos - 4);
        const uint8_t *ext = data + pos;
        switch (kind & FR_EH_EXT_KIND_MASK) {
        case FR_EH_EXT_METADATA: {
            const uint8_t *nul = memchr(ext, 0, ext_size);
            if (!nul)
                return fr_errf(err, errlen, "event name at byte %zu has no terminating NUL", pos);
            ev->name = (const char *)ext;
            ev->metadata = nul + 1;
            ev->metadata_size = ext_size - (size_t)(nul + 1 - ext);
            break;
        }
        case FR_EH_EXT_ACTIVITY_ID:
            if (ext_size != 16 && ext_size != 32)
                return fr_errf(err, errlen, "activity extension at byte %zu has %zu bytes (16 or 32 expected)",
                            pos - 4, ext_size);
            ev->has_activity = true;
            memcpy(ev->activity, ext, 16);
            if (ext_size == 32) {
                ev->has_related = true;
                memcpy(ev->related, ext + 16, 16);
            }
            break;
        default: /* unknown extensions are skipped */
            break;
        }
        pos += ext_size;
        more = kind & FR_EH_EXT_CHAIN;
    }
    ev->payload = data + pos;
    ev->payload_size = size - pos;
    return 0;
}

int fr_eh_write_fields_json(const fr_eh_event *ev, FILE *out, char *err, size_t errlen)
{
    fr_sb sb = {.floats_marked = true};
    bool need_comma = false;
    int rc = fr_eh_fields_to_json(ev, &sb, &need_comma, err, errlen);
    if (rc == 0 && sb.failed)
        rc = fr_errf(err, errlen, "out of memory");
    if (rc == 0 && sb.len)
        fwrite(sb.data, 1, sb.len, out);
    fr_sb_free(&sb);
    return rc;
}

/* One member of the "meta" object: " name: " for the first, ", name: " after. */
static void meta_member(fr_sb *sb, bool *first, const char *name)
{
    fr_sb_puts(sb, *first ? " \"" : ", \"");
    *first = false;
    fr_sb_puts(sb, name);
    fr_sb_puts(sb, "\": ");
}

static void write_meta(fr_sb *sb, const fr_eh_event *ev, const char *meta_first)
{
    bool first = !meta_first || !*meta_first;
    fr_sb_puts(sb, ", \"meta\": {");
    if (!first)
        fr_sb_puts(sb, meta_first);
    if (ev->id) { meta_member(sb, &first, "id"); fr_sb_u64(sb, ev->id); }
    if (ev->version) { meta_member(sb, &first, "version"); fr_sb_u64(sb, ev->version); }
    if (ev->level) { meta_member(sb, &first, "level"); fr_sb_u64(sb, ev->level); }
    if (ev->keyword) {
        meta_member(sb, &first, "keyword");
        fr_sb_puts(sb, "\"0x");
        fr_sb_hex_upper(sb, ev->keyword);
        fr_sb_putc(sb, '"');
    }
    if (ev->opcode) { meta_member(sb, &first, "opcode"); fr_sb_u64(sb, ev->opcode); }
    if (ev->tag) { meta_member(sb, &first, "tag"); fr_sb_puts(sb, "\"0x"); fr_sb_hex_upper(sb, ev->tag); fr_sb_putc(sb, '"'); }
    if (ev->has_activity) {
        meta_member(sb, &first, "activity");
        fr_sb_putc(sb, '"'); fr_sb_uuid(sb, ev->activity); fr_sb_putc(sb, '"');
    }
    if (ev->has_related) {
        meta_member(sb, &first, "relatedActivity");
        fr_sb_putc(sb, '"'); fr_sb_uuid(sb, ev->related); fr_sb_putc(sb, '"');
    }
    fr_sb_puts(sb, " }");
}

int fr_eh_event_to_json(const fr_eh_event *ev, const char *meta_first, fr_sb *sb, char *err,
                        size_t errlen)
{
    size_t mark = sb->len;
    fr_sb_puts(sb, "{ \"n\": ");
    /* "Provider:EventName", the name without its ";attribute=value" suffixes. */
    size_t name_len = strcspn(ev->name, ";");
    size_t n_len = ev->provider_len + 1 + name_len;
    char small[256];
    char *n = n_len <= sizeof small ? small : malloc(n_len);
    if (n) {
        memcpy(n, ev->provider, ev->provider_len);
        n[ev->provider_len] = ':';
        memcpy(n + ev->provider_len + 1, ev->name, name_len);
        fr_sb_json_text(sb, (const uint8_t *)n, n_len, FR_TEXT_UTF8);
        if (n != small)
            free(n);
    } else {
        sb->failed = true;
    }

    bool need_comma = true;
    int rc = fr_eh_fields_to_json(ev, sb, &need_comma, err, errlen);
    if (rc == 0) {
        write_meta(sb, ev, meta_first);
        fr_sb_puts(sb, " }");
        if (sb->failed)
            rc = fr_errf(err, errlen, "out of memory");
    }
    if (rc < 0 && !sb->failed)
        sb->len = mark;
    return rc;
}

int fr_eh_write_event_json(const fr_eh_event *ev, FILE *out, char *err, size_t errlen)
{
    fr_sb sb = {0};
    int rc = fr_eh_event_to_json(ev, NULL, &sb, err, errlen);
    if (rc == 0)
        fwrite(sb.data, 1, sb.len, out);
    fr_sb_free(&sb);
    return rc;
}
