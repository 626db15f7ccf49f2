/*
 * fuzz_reader.c - libFuzzer target for the reading side: any bytes given to
 * fr_reader_open_memory + fr_reader_next, every record fed to trace_meta, structured
 * events (FR_TE_EVENT) decoded and rendered as JSON. Must never crash, hang, leak or
 * read out of bounds (built with ASan + UBSan). Symbols are left out: they open the
 * files a trace names, which is not the input's business.
 */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    fr_reader *r = fr_reader_open_memory(data, size, "fuzz", err, sizeof err);
    if (!r)
        return 0;
    fr_trace_meta m;
    fr_trace_meta_init(&m);
    fr_record rec;
    uint64_t last_pos = 0;
    while (fr_reader_next(r, &rec) == FR_READ_OK) {
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
    fr_reader_close(r);
    return 0;
}
