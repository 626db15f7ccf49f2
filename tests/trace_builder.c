/*
 * trace_builder.c - synthetic XRay FDR v5 traces for tests (see trace_builder.h).
 *
 * Thread blocks are encoded as they are added (deltas need the previous timestamp); the
 * metadata block is kept as a list of our records and encoded when the file image is
 * built, because its position (first) and its base timestamp (the smallest block start,
 * so that llvm-xray never sees time go backwards) are only known then.
 * Every block follows llvm-xray's grammar: BufferExtents NewBuffer WalltimeMarker Pid
 * NewCPUId records...; walltimes strictly increase (seconds and microseconds) from block
 * to block so llvm-xray keeps blocks of one thread in the order written.
 */
#include "trace_builder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/common/fr_format.h"

typedef struct bytes {
    uint8_t *p;
    size_t   len, cap;
} bytes;

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "trace_builder: out of memory\n");
        abort();
    }
    return q;
}

static void put(bytes *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n)
            cap *= 2;
        b->p = xrealloc(b->p, cap);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void put_u16(bytes *b, uint16_t v) { put(b, &v, 2); }
static void put_u32(bytes *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(bytes *b, uint64_t v) { put(b, &v, 8); }

/* A 16-byte metadata record: kind byte, then `n` payload bytes, zero padded. */
static void put_metadata(bytes *b, unsigned kind, const void *payload, size_t n)
{
    uint8_t rec[FR_XRAY_METADATA_SIZE] = {FR_MD_BYTE0(kind)};
    memcpy(rec + 1, payload, n);
    put(b, rec, sizeof rec);
}

typedef struct block {
    int32_t  tid, pid;
    uint16_t cpu;
    uint64_t start_tsc;
    bytes    records;  /* after the NewCPUId of the preamble */
} block;

struct fr_tb {
    uint64_t ticks_per_second;
    bytes    meta;          /* sequence of: u16 type, u32 size, payload */
    int      has_meta;
    int      legacy;        /* our records as typed events (files before the envelope) */
    block   *blocks;
    size_t   n_blocks;
    uint64_t last_tsc;      /* of the current block */
    bytes    image;
};

fr_tb *fr_tb_new(uint64_t ticks_per_second)
{
    fr_tb *b = xrealloc(NULL, sizeof *b);
    memset(b, 0, sizeof *b);
    b->ticks_per_second = ticks_per_second;
    return b;
}

void fr_tb_free(fr_tb *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n_blocks; i++)
        free(b->blocks[i].records.p);
    free(b->blocks);
    free(b->meta.p);
    free(b->image.p);
    free(b);
}

void fr_tb_meta_event(fr_tb *b, uint16_t type, const void *payload, size_t size)
{
    b->has_meta = 1;
    put_u16(&b->meta, type);
    put_u32(&b->meta, (uint32_t)size);
    put(&b->meta, payload, size);
}

void fr_tb_function_name(fr_tb *b, uint32_t id, const char *name)
{
    size_t n = strlen(name);
    bytes p = {0};
    put_u32(&p, id);
    put_u32(&p, 0);   /* object index: main executable */
    put_u64(&p, 0);   /* runtime address: unknown, the name says it all */
    put_u16(&p, (uint16_t)n);
    put(&p, name, n);
    fr_tb_meta_event(b, FR_TE_FUNCTION, p.p, p.len);
    free(p.p);
}

void fr_tb_block(fr_tb *b, int32_t tid, int32_t pid, uint16_t cpu, uint64_t tsc)
{
    b->blocks = xrealloc(b->blocks, (b->n_blocks + 1) * sizeof *b->blocks);
    block *k = &b->blocks[b->n_blocks++];
    memset(k, 0, sizeof *k);
    k->tid = tid;
    k->pid = pid;
    k->cpu = cpu;
    k->start_tsc = tsc;
    b->last_tsc = tsc;
}

static block *current(fr_tb *b)
{
    if (!b->n_blocks) {
        fprintf(stderr, "trace_builder: a record before fr_tb_block()\n");
        abort();
    }
    return &b->blocks[b->n_blocks - 1];
}

/* TSCWrap carries an absolute timestamp: used when a delta does not fit its field. */
static void put_tsc_wrap(fr_tb *b, uint64_t tsc)
{
    put_metadata(&current(b)->records, FR_MD_TSC_WRAP, &tsc, 8);
    b->last_tsc = tsc;
}

static uint32_t function_delta(fr_tb *b, uint64_t tsc)
{
    if (tsc < b->last_tsc || tsc - b->last_tsc > UINT32_MAX)
        put_tsc_wrap(b, tsc);
    uint32_t d = (uint32_t)(tsc - b->last_tsc);
    b->last_tsc = tsc;
    return d;
}

static int32_t event_delta(fr_tb *b, uint64_t tsc)
{
    int64_t d = (int64_t)(tsc - b->last_tsc);
    if (d < INT32_MIN || d > INT32_MAX) {
        put_tsc_wrap(b, tsc);
        d = 0;
    }
    b->last_tsc = tsc;
    return (int32_t)d;
}

static void function_record(fr_tb *b, uint32_t id, unsigned kind, uint64_t tsc)
{
    uint32_t delta = function_delta(b, tsc);
    bytes *r = &current(b)->records;
    put_u32(r, fr_function_record_word(id & FR_XRAY_MAX_FUNCTION_ID, kind));
    put_u32(r, delta);
}

void fr_tb_enter(fr_tb *b, uint32_t id, uint64_t tsc) { function_record(b, id, FR_FN_ENTER, tsc); }
void fr_tb_exit(fr_tb *b, uint32_t id, uint64_t tsc) { function_record(b, id, FR_FN_EXIT, tsc); }
void fr_tb_tail_exit(fr_tb *b, uint32_t id, uint64_t tsc) { function_record(b, id, FR_FN_TAIL_EXIT, tsc); }

void fr_tb_enter_arg(fr_tb *b, uint32_t id, uint64_t arg, uint64_t tsc)
{
    function_record(b, id, FR_FN_ENTER_ARG, tsc);
    put_metadata(&current(b)->records, FR_MD_CALL_ARGUMENT, &arg, 8);
}

void fr_tb_new_cpu(fr_tb *b, uint16_t cpu, uint64_t tsc)
{
    uint8_t p[10];
    memcpy(p, &cpu, 2);
    memcpy(p + 2, &tsc, 8);
    put_metadata(&current(b)->records, FR_MD_NEW_CPU_ID, p, sizeof p);
    b->last_tsc = tsc;
}

void fr_tb_custom(fr_tb *b, const void *data, size_t size, uint64_t tsc)
{
    int32_t delta = event_delta(b, tsc);
    int32_t sz = (int32_t)size;
    uint8_t p[8];
    memcpy(p, &sz, 4);
    memcpy(p + 4, &delta, 4);
    bytes *r = &current(b)->records;
    put_metadata(r, FR_MD_CUSTOM_EVENT, p, sizeof p);
    put(r, data, size);
}

static void put_typed(bytes *r, uint16_t type, int32_t delta, const void *data, size_t size)
{
    int32_t sz = (int32_t)size;
    uint8_t p[10];
    memcpy(p, &sz, 4);
    memcpy(p + 4, &delta, 4);
    memcpy(p + 8, &type, 2);
    put_metadata(r, FR_MD_TYPED_EVENT, p, sizeof p);
    put(r, data, size);
}

void fr_tb_typed(fr_tb *b, uint16_t type, const void *data, size_t size, uint64_t tsc)
{
    int32_t delta = event_delta(b, tsc);
    put_typed(&current(b)->records, type, delta, data, size);
}

/* One of our records (fr_format.h): a custom event holding the envelope then the
 * payload, or in the legacy encoding a typed event of the FR_TE type. */
static void put_ours(bytes *r, int legacy, uint16_t type, int32_t delta, const void *data,
                     size_t size)
{
    if (legacy) {
        put_typed(r, type, delta, data, size);
        return;
    }
    struct fr_te_envelope e = { .magic = FR_TE_MAGIC, .type = type };
    int32_t sz = (int32_t)(sizeof e + size);
    uint8_t p[8];
    memcpy(p, &sz, 4);
    memcpy(p + 4, &delta, 4);
    put_metadata(r, FR_MD_CUSTOM_EVENT, p, sizeof p);
    put(r, &e, sizeof e);
    put(r, data, size);
}

void fr_tb_ours(fr_tb *b, uint16_t type, const void *data, size_t size, uint64_t tsc)
{
    int32_t delta = event_delta(b, tsc);
    put_ours(&current(b)->records, b->legacy, type, delta, data, size);
}

void fr_tb_legacy_encoding(fr_tb *b, int on)
{
    b->legacy = on;
}

/* BufferExtents (count of what follows) + preamble + records. */
static void put_block(bytes *out, int32_t tid, int32_t pid, uint16_t cpu, uint64_t tsc,
                      uint32_t index, const bytes *records)
{
    uint64_t n = 4 * FR_XRAY_METADATA_SIZE + records->len;
    put_metadata(out, FR_MD_BUFFER_EXTENTS, &n, 8);
    put_metadata(out, FR_MD_NEW_BUFFER, &tid, 4);
    int64_t sec = 1 + (int64_t)index;
    int32_t usec = 1 + (int32_t)index;
    uint8_t w[12];
    memcpy(w, &sec, 8);
    memcpy(w + 8, &usec, 4);
    put_metadata(out, FR_MD_WALLTIME_MARKER, w, sizeof w);
    put_metadata(out, FR_MD_PID, &pid, 4);
    uint8_t c[10];
    memcpy(c, &cpu, 2);
    memcpy(c + 2, &tsc, 8);
    put_metadata(out, FR_MD_NEW_CPU_ID, c, sizeof c);
    put(out, records->p, records->len);
}

const uint8_t *fr_tb_bytes(fr_tb *b, size_t *size)
{
    bytes *img = &b->image;
    img->len = 0;

    uint64_t buffer_size = 4 * FR_XRAY_METADATA_SIZE, base_tsc = UINT64_MAX;
    for (size_t i = 0; i < b->n_blocks; i++) {
        uint64_t n = 4 * FR_XRAY_METADATA_SIZE + b->blocks[i].records.len;
        if (n > buffer_size)
            buffer_size = n;
        if (b->blocks[i].start_tsc < base_tsc)
            base_tsc = b->blocks[i].start_tsc;
    }
    if (!b->n_blocks)
        base_tsc = 0;

    bytes meta = {0};
    for (size_t off = 0; off < b->meta.len;) {
        uint16_t type;
        uint32_t sz;
        memcpy(&type, b->meta.p + off, 2);
        memcpy(&sz, b->meta.p + off + 2, 4);
        put_ours(&meta, b->legacy, type, 0, b->meta.p + off + 6, sz);
        off += 6 + sz;
    }
    if (4 * FR_XRAY_METADATA_SIZE + meta.len > buffer_size)
        buffer_size = 4 * FR_XRAY_METADATA_SIZE + meta.len;

    struct fr_xray_file_header h = {
        .version = FR_XRAY_VERSION_FDR,
        .type = FR_XRAY_TYPE_FDR,
        .flags = FR_XRAY_FLAG_CONSTANT_TSC | FR_XRAY_FLAG_NONSTOP_TSC,
        .cycle_frequency = b->ticks_per_second,
        .buffer_size = buffer_size,
    };
    put(img, &h, sizeof h);

    uint32_t index = 0;
    int32_t meta_pid = b->n_blocks ? b->blocks[0].pid : 0;
    /* llvm-xray rejects a header-only file: with nothing at all, write an empty block. */
    if (b->has_meta || !b->n_blocks)
        put_block(img, 0, meta_pid, 0, base_tsc, index++, &meta);
    free(meta.p);
    for (size_t i = 0; i < b->n_blocks; i++) {
        const block *k = &b->blocks[i];
        put_block(img, k->tid, k->pid, k->cpu, k->start_tsc, index++, &k->records);
    }
    *size = img->len;
    return img->p;
}

int fr_tb_write(fr_tb *b, const char *path)
{
    size_t n;
    const uint8_t *p = fr_tb_bytes(b, &n);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, n, f);
    int saved = errno;
    if (fclose(f) != 0 || w != n) {
        errno = w != n ? saved : errno;
        return -1;
    }
    return 0;
}
