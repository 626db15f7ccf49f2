/*
 * event_enable.c - the `events=` option: which structured events the flight recorder
 * takes. Syntax (documented in flightrec/events.h):
 *   SPEC[;SPEC...]   SPEC = PROVIDER[:LEVEL[:KEYWORDS]],  PROVIDER may be *,
 *   LEVEL 1..255 or * (default 5), KEYWORDS a mask or * (default *); "none": nothing.
 *   ',' separates SPECs as ';' does (the option parser keeps "events=A:4,B:2" as one
 *   value, and a ';' needs quoting in a shell).
 * A provider's own SPEC wins over "*". Parsed at init, never on a hot path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/event_spec.h"
#include "events/events_internal.h"

typedef struct filter_rule {
    char    *provider;   /* NULL: every provider */
    uint8_t  max_level;
    uint64_t keywords;
} filter_rule;

struct fr_event_filter {
    size_t      count;
    filter_rule rules[];
};

void fr_event_filter_free(fr_event_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->count; i++)
        free(f->rules[i].provider);
    free(f);
}

static bool parse_number(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    char text[32];
    if (len == 0 || len >= sizeof text)
        return false;
    memcpy(text, s, len);
    text[len] = 0;
    if (text[0] == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

/* One SPEC into *r; with r NULL, only checked (nothing allocated). */
static bool parse_rule(const char *s, size_t len, filter_rule *r)
{
    filter_rule scratch;
    bool check_only = !r;
    if (check_only)
        r = &scratch;
    const char *end = s + len;
    const char *c1 = memchr(s, ':', len);
    const char *name_end = c1 ? c1 : end;
    if (name_end == s)
        return false;
    r->provider = NULL;
    r->max_level = FR_EH_LEVEL_VERBOSE;
    r->keywords = UINT64_MAX;
    if (!check_only && !(name_end - s == 1 && *s == '*')) {
        r->provider = strndup(s, (size_t)(name_end - s));
        if (!r->provider)
            return false;
    }
    if (!c1)
        return true;
    const char *lvl = c1 + 1;
    const char *c2 = memchr(lvl, ':', (size_t)(end - lvl));
    const char *lvl_end = c2 ? c2 : end;
    uint64_t v;
    if (lvl_end - lvl == 1 && *lvl == '*')
        r->max_level = 255;
    else if (parse_number(lvl, (size_t)(lvl_end - lvl), FR_EH_LEVEL_VERBOSE, &v) && v > 0)
        r->max_level = (uint8_t)v;
    else
        return false;
    if (!c2)
        return true;
    const char *kw = c2 + 1;
    if (end - kw == 1 && *kw == '*')
        r->keywords = UINT64_MAX;
    else if (parse_number(kw, (size_t)(end - kw), UINT64_MAX, &v))
        r->keywords = v;
    else
        return false;
    return true;
}

/* The length of the SPEC at p (up to the next ';' or ',' or the end). */
static size_t rule_length(const char *p, const char *end)
{
    const char *q = p;
    while (q < end && *q != ';' && *q != ',')
        q++;
    return (size_t)(q - p);
}

bool fr_event_spec_valid(const char *spec, size_t len)
{
    if (len == 4 && !memcmp(spec, "none", 4))
        return true;
    const char *end = spec + len;
    for (const char *p = spec; p < end;) {
        size_t n = rule_length(p, end);
        if (n > 0 && !parse_rule(p, n, NULL))
            return false;
        p += n + (p + n < end);
    }
    return true;
}

fr_event_filter *fr_event_filter_parse(const char *spec)
{
    if (!spec)
        spec = "*";
    if (!strcmp(spec, "none"))
        spec = "";
    size_t n = 1;
    for (const char *p = spec; *p; p++)
        n += *p == ';' || *p == ',';
    fr_event_filter *f = calloc(1, sizeof *f + n * sizeof f->rules[0]);
    if (!f)
        return NULL;
    const char *p = spec, *spec_end = spec + strlen(spec);
    while (*p) {
        size_t len = rule_length(p, spec_end);
        bool sep = p + len < spec_end;
        if (len > 0) {
            if (!parse_rule(p, len, &f->rules[f->count])) {
                fprintf(stderr, "flightrec: bad events= rule '%.*s' (want PROVIDER[:LEVEL[:KEYWORDS]], "
                        "LEVEL 1..5 or *); "
                        "no structured events are recorded\n", (int)len, p);
                free(f->rules[f->count].provider);
                fr_event_filter_free(f);
                return NULL;
            }
            f->count++;
        }
        p += len + sep;
    }
    return f;
}

bool fr_event_filter_match(const fr_event_filter *f, const char *provider,
                           uint8_t level, uint64_t keyword)
{
    if (!f)
        return false;
    const filter_rule *chosen = NULL;
    for (size_t i = 0; i < f->count; i++) {
        const filter_rule *r = &f->rules[i];
        if (r->provider && !strcmp(r->provider, provider)) {
            chosen = r;          /* the provider's own rule wins */
            break;
        }
        if (!r->provider && !chosen)
            chosen = r;
    }
    if (!chosen)
        return false;
    return level <= chosen->max_level && (keyword == 0 || (keyword & chosen->keywords) != 0);
}
