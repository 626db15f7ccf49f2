/*
 * fuzz_reader.c - libFuzzer target for the reading side: any bytes given to
 * fr_reader_open_memory + fr_reader_next, every record fed to trace_meta, structured
 * events (FR_TE_EVENT) decoded and rendered as JSON. Must never crash, hang, leak or
 * read out of bounds (built with ASan + UBSan). The bytes are then read a second time
 * with the batched reader (fr_reader_next_functions, batch sizes taken from the input,
 * fr_reader_next for what it leaves): the same records must come, in the same order,
 * with the same end (status, truncation offset, position). Symbols are left out: they open the
 * files a trace names, which is not the input's business.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "eventheader_decode.h"
#include "fr_reader.h"
#include "trace_meta.h"

static FILE *sink(void)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    return devnull;
}

static void decode_event(const fr_record *r)
{
    const uint8_t *nul = memchr(r->data, 0, r->size);
    if (!nul)
        return;
    fr_eh_event ev;
    char err[256];
    size_t n = (size_t)(nul - r->data);
    if (fr_eh_decode((const char *)r->data, nul + 1, r->size - n - 1, &ev, err, sizeof err) == 0 &&
        sink())
        fr_eh_write_event_json(&ev, sink(), err, sizeof err);
}

/* What a read returned: a hash over every record's kind, thread, id, time and offset
 * (FNV-1a over the fields), the count, and how it ended. */
typedef struct digest {
    uint64_t hash, count, end_pos, cut_at;
    int status;
    bool cut;
} digest;

static void mix(digest *d, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        d->hash = (d->hash ^ (v & 0xFF)) * 0x100000001B3ull;
}

static void add(digest *d, uint32_t kind, int32_t tid, uint32_t id, uint64_t tsc, uint64_t off)
{
    mix(d, kind);
    mix(d, (uint32_t)tid);
    mix(d, id);
    mix(d, tsc);
    mix(d, off);
    d->count++;
}

static void finish(digest *d, fr_reader *r, int status)
{
    d->status = status;
    d->end_pos = fr_reader_position(r);
    d->cut = fr_reader_truncation(r, &d->cut_at) != NULL;
}

/* The second read: batches of 1..64 records (sizes from the input's last bytes), and
 * fr_reader_next in between. */
static digest read_batched(const uint8_t *data, size_t size)
{
    digest d = {0xCBF29CE484222325ull, 0, 0, 0, 0, false};
    char err[512];
    fr_reader *r = fr_reader_open_memory(data, size, "fuzz", err, sizeof err);
    if (!r)
        __builtin_trap();   /* it opened the first time */
    fr_function_record fns[64];
    fr_record rec;
    size_t turn = 0;
    for (;;) {
        size_t max = size ? 1 + data[size - 1 - turn++ % size] % 64 : 64;
        uint64_t pos = fr_reader_position(r);
        int32_t tid = 0;
        size_t n = fr_reader_next_functions(r, fns, max, &tid);
        if (n > max)
            __builtin_trap();
        for (size_t i = 0; i < n; i++)
            add(&d, fns[i].kind, tid, fns[i].function_id, fns[i].tsc, pos + 8 * i);
        if (n)
            continue;
        int s = fr_reader_next(r, &rec);
        if (s != FR_READ_OK) {
            finish(&d, r, s);
            break;
        }
        add(&d, rec.kind, rec.tid, rec.function_id, rec.tsc, rec.offset);
    }
    fr_reader_close(r);
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    digest one = {0xCBF29CE484222325ull, 0, 0, 0, 0, false};
    char err[512];
    fr_reader *r = fr_reader_open_memory(data, size, "fuzz", err, sizeof err);
    if (!r)
        return 0;
    fr_trace_meta m;
    fr_trace_meta_init(&m);
    fr_record rec;
    uint64_t last_pos = 0;
    int status;
    while ((status = fr_reader_next(r, &rec)) == FR_READ_OK) {
        add(&one, rec.kind, rec.tid, rec.function_id, rec.tsc, rec.offset);
        /* Progress: every record moves forward or is an announced block. */
        uint64_t pos = fr_reader_position(r);
        if (pos < last_pos)
            __builtin_trap();
        last_pos = pos;
        if (rec.kind == FR_REC_TYPED && rec.event_type == FR_TE_EVENT)
            decode_event(&rec);
        else
            fr_trace_meta_feed(&m, &rec);
    }
    fr_trace_meta_finish(&m);
    for (size_t i = 0; i < m.n_functions; i++)
        fr_trace_meta_function(&m, m.functions[i].id);
    fr_trace_meta_free(&m);
    finish(&one, r, status);
    fr_reader_close(r);

    digest two = read_batched(data, size);
    if (one.hash != two.hash || one.count != two.count || one.status != two.status ||
        one.end_pos != two.end_pos || one.cut != two.cut || one.cut_at != two.cut_at)
        __builtin_trap();
    return 0;
}
