/*
 * core_parse.h - a minimal, strict XRay FDR v5 parser for the core's tests: checks the
 * block grammar and extents, rebuilds absolute timestamps, and collects records per
 * thread. Independent of the reader library on purpose (it checks the writer).
 */
#ifndef CORE_PARSE_H
#define CORE_PARSE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fr_format.h"

struct cp_record {
    int32_t  tid;
    int      kind;      /* 0..3 function kinds, 4 custom, 5 typed or ours (FR_TE_*) */
    uint32_t id;        /* function id */
    uint64_t arg;
    uint64_t tsc;
    uint16_t type;      /* typed */
    uint32_t size;      /* custom/typed payload */
    const uint8_t *data;
    uint16_t cpu;
};

struct cp_trace {
    uint8_t *bytes;
    size_t   size;
    struct fr_xray_file_header hdr;
    struct cp_record *recs;
    size_t   nrecs, cap;
    size_t   nblocks;
    size_t   wraps;         /* TSCWrap records */
    size_t   block_starts;  /* FR_TE_BLOCK_START markers (one per thread block) */
    size_t   typed_ours;    /* FR_TE_* records written as XRay typed events (the legacy
                               encoding: llvm-xray then types every later record) */
    int32_t  block_tids[4096];
    char     error[256];
};

static inline uint64_t cp_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t cp_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t cp_u16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static inline int cp_fail(struct cp_trace *t, size_t off, const char *what)
{
    snprintf(t->error, sizeof t->error, "offset %zu: %s", off, what);
    return -1;
}

static inline void cp_push(struct cp_trace *t, struct cp_record r)
{
    if (t->nrecs == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->recs = realloc(t->recs, t->cap * sizeof *t->recs);
    }
    t->recs[t->nrecs++] = r;
}

/* 0 or -1 (t->error says why). */
static inline int cp_load(struct cp_trace *t, const char *path)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cp_fail(t, 0, "cannot open");
    fseek(f, 0, SEEK_END);
    t->size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    t->bytes = malloc(t->size + 1);
    if (fread(t->bytes, 1, t->size, f) != t->size) {
        fclose(f);
        return cp_fail(t, 0, "short read");
    }
    fclose(f);
    if (t->size < 32)
        return cp_fail(t, 0, "no header");
    memcpy(&t->hdr, t->bytes, 32);
    if (t->hdr.version != 5 || t->hdr.type != 1)
        return cp_fail(t, 0, "not FDR v5");
    size_t off = 32;
    if (off == t->size)
        return cp_fail(t, off, "header only");
    while (off < t->size) {
        const uint8_t *p = t->bytes + off;
        if (t->size - off < 16 || p[0] != FR_MD_BYTE0(FR_MD_BUFFER_EXTENTS))
            return cp_fail(t, off, "expected BufferExtents");
        uint64_t n = cp_u64(p + 1);
        off += 16;
        if (n > t->size - off)
            return cp_fail(t, off, "extents past the end");
        size_t end = off + n;
        if (n < 64 || t->bytes[off] != FR_MD_BYTE0(FR_MD_NEW_BUFFER) ||
            t->bytes[off + 16] != FR_MD_BYTE0(FR_MD_WALLTIME_MARKER) ||
            t->bytes[off + 32] != FR_MD_BYTE0(FR_MD_PID) ||
            t->bytes[off + 48] != FR_MD_BYTE0(FR_MD_NEW_CPU_ID))
            return cp_fail(t, off, "bad block preamble");
        int32_t tid = (int32_t)cp_u32(t->bytes + off + 1);
        if (t->nblocks < 4096)
            t->block_tids[t->nblocks] = tid;
        t->nblocks++;
        uint16_t cpu = cp_u16(t->bytes + off + 49);
        uint64_t tsc = cp_u64(t->bytes + off + 51);
        off += 64;
        while (off < end) {
            p = t->bytes + off;
            if (!(p[0] & 1)) {
                if (end - off < 8)
                    return cp_fail(t, off, "truncated function record");
                uint32_t w = cp_u32(p);
                tsc += cp_u32(p + 4);
                struct cp_record r = { .tid = tid, .kind = (int)((w >> 1) & 7), .id = w >> 4,
                                       .tsc = tsc, .cpu = cpu };
                off += 8;
                if (r.kind == FR_FN_ENTER_ARG) {
                    if (end - off < 16 || t->bytes[off] != FR_MD_BYTE0(FR_MD_CALL_ARGUMENT))
                        return cp_fail(t, off, "enter-arg without CallArgument");
                    r.arg = cp_u64(t->bytes + off + 1);
                    off += 16;
                }
                if (r.kind > 3)
                    return cp_fail(t, off - 8, "bad function kind");
                cp_push(t, r);
                continue;
            }
            if (end - off < 16)
                return cp_fail(t, off, "truncated metadata record");
            unsigned kind = p[0] >> 1;
            switch (kind) {
            case FR_MD_NEW_CPU_ID:
                cpu = cp_u16(p + 1);
                tsc = cp_u64(p + 3);
                off += 16;
                break;
            case FR_MD_TSC_WRAP:
                tsc = cp_u64(p + 1);
                t->wraps++;
                off += 16;
                break;
            case FR_MD_CUSTOM_EVENT:
            case FR_MD_TYPED_EVENT: {
                uint32_t size = cp_u32(p + 1);
                int32_t delta = (int32_t)cp_u32(p + 5);
                if (size > end - off - 16)
                    return cp_fail(t, off, "event past block end");
                tsc += (uint64_t)(int64_t)delta;
                struct cp_record r = { .tid = tid, .kind = kind == FR_MD_CUSTOM_EVENT ? 4 : 5,
                                       .tsc = tsc, .size = size, .data = p + 16, .cpu = cpu,
                                       .type = kind == FR_MD_TYPED_EVENT ? cp_u16(p + 9) : 0 };
                off += 16 + size;
                uint16_t ours = r.kind == 4 ? fr_te_enveloped_type(r.data, r.size) : 0;
                if (ours) { /* one of our records (fr_format.h): kind 5, its FR_TE type */
                    r.kind = 5;
                    r.type = ours;
                    r.data += sizeof(struct fr_te_envelope);
                    r.size -= (uint32_t)sizeof(struct fr_te_envelope);
                } else if (r.kind == 5 && r.type >= FR_TE_FIRST && r.type <= FR_TE_LAST) {
                    t->typed_ours++;
                }
                if (r.kind == 5 && r.type == FR_TE_BLOCK_START) {
                    t->block_starts++; /* writer artifact (see fr_format.h) */
                    break;
                }
                cp_push(t, r);
                break;
            }
            default:
                return cp_fail(t, off, "unexpected metadata record");
            }
        }
        if (off != end)
            return cp_fail(t, off, "record crosses block end");
    }
    return 0;
}

static inline void cp_free(struct cp_trace *t)
{
    free(t->bytes);
    free(t->recs);
    memset(t, 0, sizeof *t);
}

/* Number of records of `kind` (-1: any) of thread `tid` (0: any non-metadata thread). */
static inline size_t cp_count(const struct cp_trace *t, int32_t tid, int kind)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nrecs; i++)
        if ((tid == 0 ? t->recs[i].tid != 0 : t->recs[i].tid == tid) &&
            (kind < 0 || t->recs[i].kind == kind))
            n++;
    return n;
}

/* The first typed event of `type` in the file, or NULL. */
static inline const struct cp_record *cp_find_typed(const struct cp_trace *t, uint16_t type)
{
    for (size_t i = 0; i < t->nrecs; i++)
        if (t->recs[i].kind == 5 && t->recs[i].type == type)
            return &t->recs[i];
    return NULL;
}

#endif
