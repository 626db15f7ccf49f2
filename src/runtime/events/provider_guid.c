/*
 * provider_guid.c - the provider id ETW derives from a provider name, so that events a
 * program writes on Linux can be matched with its Windows (TraceLogging/EventSource)
 * events: SHA-1 over a fixed 16-byte namespace followed by the upper-cased name in
 * UTF-16 big-endian (no terminator); the first 16 bytes of the digest, with the version
 * nibble of byte 7 set to 5, are the GUID in memory order (Data1..Data3 little-endian).
 * Upper-casing covers ASCII only; other characters are kept as they are.
 */
#include <stdio.h>
#include <string.h>

#include "events/events_internal.h"

static const uint8_t guid_namespace[16] = {
    0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8,
    0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB,
};

/* Next code point of a UTF-8 string (invalid bytes are taken as Latin-1). */
static uint32_t next_code_point(const unsigned char **s)
{
    const unsigned char *p = *s;
    uint32_t cp = *p++;
    unsigned extra = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : cp >= 0xC0 ? 1 : 0;
    if (extra) {
        uint32_t v = cp & (0x3F >> extra);
        unsigned i;
        for (i = 0; i < extra && (p[i] & 0xC0) == 0x80; i++)
            v = v << 6 | (p[i] & 0x3F);
        if (i == extra) {
            cp = v;
            p += extra;
        }
    }
    *s = p;
    return cp;
}

static void put_utf16be(fr_sha1_ctx *c, uint32_t unit)
{
    uint8_t b[2] = {(uint8_t)(unit >> 8), (uint8_t)unit};
    fr_sha1_update(c, b, 2);
}

void fr_provider_guid(const char *name, uint8_t guid[16])
{
    fr_sha1_ctx c;
    fr_sha1_init(&c);
    fr_sha1_update(&c, guid_namespace, sizeof guid_namespace);
    const unsigned char *s = (const unsigned char *)name;
    while (*s) {
        uint32_t cp = next_code_point(&s);
        if (cp >= 'a' && cp <= 'z')
            cp -= 'a' - 'A';
        if (cp >= 0x10000) {
            cp -= 0x10000;
            put_utf16be(&c, 0xD800 + (cp >> 10));
            put_utf16be(&c, 0xDC00 + (cp & 0x3FF));
        } else {
            put_utf16be(&c, cp);
        }
    }
    uint8_t digest[20];
    fr_sha1_final(&c, digest);
    memcpy(guid, digest, 16);
    guid[7] = (uint8_t)((guid[7] & 0x0F) | 0x50);
}

void fr_provider_guid_string(const char *name, char text[37])
{
    uint8_t g[16];
    fr_provider_guid(name, g);
    snprintf(text, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6],
             g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}
