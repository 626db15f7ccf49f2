/*
 * lz.c - an LZ77 compressor with a hash table of recent positions, its decompressor and a
 * CRC-32 check of the round trip. Works on generated English-like text in fixed blocks, so
 * a trace shows one call per block and per emitted token.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demo.h"

#define BLOCK_SIZE  8192
#define HASH_BITS   12
#define MIN_MATCH   4
#define MAX_MATCH   255
#define WINDOW      4095
#define CHAIN_DEPTH 48      /* candidates tried per position: the compressor's real work */

struct lz_out {
    uint8_t *buf;
    size_t len, cap;
};

static const char *const words[] = {
    "the", "flight", "recorder", "keeps", "every", "call", "in", "a", "ring", "of",
    "buffers", "and", "writes", "them", "when", "program", "crashes", "trace", "reader",
    "turns", "records", "into", "answers", "pictures", "function", "thread", "time",
};

DEMO_FN size_t generate_text(uint8_t *dst, size_t size, uint64_t seed)
{
    size_t n = 0;
    while (n + 16 < size) {
        const char *w = words[demo_rand(&seed) % (sizeof words / sizeof words[0])];
        size_t len = strlen(w);
        memcpy(dst + n, w, len);
        n += len;
        dst[n++] = (demo_rand(&seed) % 11) ? ' ' : '\n';
    }
    return n;
}

static inline void out_put(struct lz_out *o, const uint8_t *p, size_t n)
{
    if (o->len + n > o->cap) {
        o->cap = (o->len + n) * 2;
        o->buf = realloc(o->buf, o->cap);
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

static inline uint32_t hash4(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

/* Token format: literal run = 0x00, len, bytes; match = len (>= MIN_MATCH), u16 distance. */
static inline void emit_literals(struct lz_out *o, const uint8_t *p, size_t n)
{
    while (n) {
        uint8_t chunk = n > 255 ? 255 : (uint8_t)n;
        uint8_t head[2] = {0, chunk};
        out_put(o, head, 2);
        out_put(o, p, chunk);
        p += chunk;
        n -= chunk;
    }
}

static inline void emit_match(struct lz_out *o, size_t len, size_t dist)
{
    uint8_t t[3] = {(uint8_t)len, (uint8_t)(dist & 0xFF), (uint8_t)(dist >> 8)};
    out_put(o, t, 3);
}

static inline size_t match_length(const uint8_t *a, const uint8_t *b, size_t max)
{
    size_t n = 0;
    while (n < max && a[n] == b[n])
        n++;
    return n;
}

DEMO_FN void compress_block(struct lz_out *o, const uint8_t *in, size_t size)
{
    int32_t head[1 << HASH_BITS];
    int32_t *prev = malloc(size * sizeof *prev);   /* previous position with the same hash */
    memset(head, 0xFF, sizeof head);
    size_t lit_start = 0, pos = 0;
    while (pos + MIN_MATCH <= size) {
        uint32_t h = hash4(in + pos);
        size_t best_len = 0, best_dist = 0;
        size_t max = size - pos > MAX_MATCH ? MAX_MATCH : size - pos;
        int32_t cand = head[h];
        for (int depth = 0; cand >= 0 && depth < CHAIN_DEPTH && pos - (size_t)cand <= WINDOW; depth++) {
            size_t len = match_length(in + cand, in + pos, max);
            if (len > best_len) {
                best_len = len;
                best_dist = pos - (size_t)cand;
            }
            cand = prev[cand];
        }
        prev[pos] = head[h];
        head[h] = (int32_t)pos;
        if (best_len >= MIN_MATCH) {
            emit_literals(o, in + lit_start, pos - lit_start);
            emit_match(o, best_len, best_dist);
            /* Positions inside the match join the chains too, so later matches find them. */
            for (size_t k = 1; k < best_len && pos + k + MIN_MATCH <= size; k++) {
                uint32_t hk = hash4(in + pos + k);
                prev[pos + k] = head[hk];
                head[hk] = (int32_t)(pos + k);
            }
            pos += best_len;
            lit_start = pos;
        } else {
            pos++;
        }
    }
    emit_literals(o, in + lit_start, size - lit_start);
    free(prev);
}

DEMO_FN size_t decompress_block(const uint8_t *in, size_t size, uint8_t *out)
{
    size_t i = 0, n = 0;
    while (i < size) {
        if (in[i] == 0) {
            size_t len = in[i + 1];
            memcpy(out + n, in + i + 2, len);
            n += len;
            i += 2 + len;
        } else {
            size_t len = in[i], dist = in[i + 1] | (size_t)in[i + 2] << 8;
            for (size_t k = 0; k < len; k++, n++)
                out[n] = out[n - dist];
            i += 3;
        }
    }
    return n;
}

static uint32_t crc_table[256];

DEMO_FN void crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

DEMO_FN uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

DEMO_FN uint64_t compress_roundtrip(const uint8_t *text, size_t size)
{
    struct lz_out o = {0};
    size_t *block_len = malloc((size / BLOCK_SIZE + 1) * sizeof *block_len);
    size_t nblocks = 0;
    for (size_t off = 0; off < size; off += BLOCK_SIZE) {
        size_t before = o.len;
        compress_block(&o, text + off, size - off < BLOCK_SIZE ? size - off : BLOCK_SIZE);
        block_len[nblocks++] = o.len - before;
    }
    uint8_t out[BLOCK_SIZE];
    uint32_t crc_in = crc32_update(0, text, size), crc_out = 0;
    size_t pos = 0;
    for (size_t b = 0; b < nblocks; b++) {
        size_t n = decompress_block(o.buf + pos, block_len[b], out);
        crc_out = crc32_update(crc_out, out, n);
        pos += block_len[b];
    }
    if (crc_in != crc_out) {
        fprintf(stderr, "fr_demo: lz round trip failed\n");
        exit(1);
    }
    uint64_t compressed = o.len;
    FR_EVENT(demo_events, "Compressed", FR_LEVEL(4), FR_U64("input", size), FR_U64("output", compressed),
             FR_U32("blocks", (uint32_t)nblocks), FR_HEX32("crc", crc_in));
    free(o.buf);
    free(block_len);
    return compressed;
}

uint64_t lz_workload(unsigned rounds)
{
    size_t cap = 256 * 1024;
    uint8_t *text = malloc(cap);
    uint64_t total = 0;
    crc32_init();
    for (unsigned r = 0; r < rounds; r++) {
        size_t n = generate_text(text, cap, 0x1234567ull + r);
        total += compress_roundtrip(text, n);
    }
    free(text);
    return total;
}
