/* sha1.c - SHA-1 (FIPS 180-4), only for ETW-style provider ids; not for security. */
#include <string.h>

#include "events/events_internal.h"

static uint32_t rol(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

static void sha1_block(uint32_t h[5], const uint8_t *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20)      { f = (b & c) | (~b & d);          k = 0x5A827999; }
        else if (i < 40) { f = b ^ c ^ d;                   k = 0x6ED9EBA1; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC; }
        else             { f = b ^ c ^ d;                   k = 0xCA62C1D6; }
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d; d = c; c = rol(b, 30); b = a; a = t;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
}

void fr_sha1_init(fr_sha1_ctx *c)
{
    static const uint32_t init[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    memcpy(c->h, init, sizeof init);
    c->total = 0;
    c->used = 0;
}

void fr_sha1_update(fr_sha1_ctx *c, const void *data, size_t size)
{
    const uint8_t *p = data;
    c->total += size;
    while (size > 0) {
        size_t n = 64 - c->used < size ? 64 - c->used : size;
        memcpy(c->block + c->used, p, n);
        c->used += n;
        p += n;
        size -= n;
        if (c->used == 64) {
            sha1_block(c->h, c->block);
            c->used = 0;
        }
    }
}

void fr_sha1_final(fr_sha1_ctx *c, uint8_t digest[20])
{
    uint64_t bits = c->total * 8;
    uint8_t pad = 0x80;
    fr_sha1_update(c, &pad, 1);
    pad = 0;
    while (c->used != 56)
        fr_sha1_update(c, &pad, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (56 - 8 * i));
    fr_sha1_update(c, len, 8);
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (uint8_t)(c->h[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        digest[4 * i + 3] = (uint8_t)c->h[i];
    }
}

void fr_sha1(const void *data, size_t size, uint8_t digest[20])
{
    fr_sha1_ctx c;
    fr_sha1_init(&c);
    fr_sha1_update(&c, data, size);
    fr_sha1_final(&c, digest);
}
