/*
 * fuzz_recover.c - libFuzzer target for `flightrec recover` (src/reader/backing_recover.c):
 * any bytes as a backing file must give a trace or a refusal, never a crash, a hang, a
 * leak or a read out of bounds (ASan + UBSan); and a trace it gives must read with our
 * reader to its end without an error.
 *
 * A backing file is 2 MiB and more; an input is a compact view of one: its first 4096
 * bytes are the header, and every read beyond them comes from the rest of the input,
 * cyclically (offset 4096 + k reads input byte 4096 + k mod (size - 4096)), so that
 * descriptors, buffers and metadata anywhere in the file are the fuzzer's bytes. The
 * file's size is the header's map_size plus 4096 x the input's last byte. Inputs whose
 * pool would take more than 16 MiB of reads are skipped (the code is the same, only
 * slower). Seeds: fuzz/recover_seeds.py.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backing_recover.h"
#include "fr_backing.h"
#include "fr_format.h"
#include "fr_reader.h"

typedef struct view {
    const uint8_t *data;
    size_t size;
} view;

static int read_view(void *ctx, uint64_t off, void *buf, size_t len)
{
    const view *v = ctx;
    uint8_t *out = buf;
    for (size_t i = 0; i < len; i++) {
        uint64_t o = off + i;
        out[i] = o < FR_BACKING_HEADER_SIZE ? v->data[o]
                 : v->data[FR_BACKING_HEADER_SIZE + (o - FR_BACKING_HEADER_SIZE) %
                                                     (v->size - FR_BACKING_HEADER_SIZE)];
    }
    return 0;
}

/* stream mode (recover --onto): which buffers count as streamed, and the file's counts,
 * from the input's bytes */
static int fuzz_has_block(void *ctx, int32_t tid, uint64_t first_tsc)
{
    const view *v = ctx;
    return (v->data[v->size - 2] >> ((uint32_t)tid ^ (uint32_t)first_tsc) % 8) & 1;
}
static uint64_t fuzz_count(void *ctx, int32_t tid)
{
    const view *v = ctx;
    return v->data[(uint32_t)tid % v->size] * 1000u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size <= FR_BACKING_HEADER_SIZE)
        return 0;
    struct fr_backing_header h;
    memcpy(&h, data, sizeof h);
    if (h.buffer_size > (1u << 20) || (uint64_t)h.buffers * h.buffer_size > (16u << 20) ||
        h.map_size > (1ull << 40))
        return 0;
    view v = { data, size };
    fr_recover_input in = { .read = read_view, .ctx = &v,
                            .size = h.map_size + 4096ull * data[size - 1] };
    /* one input in four: the end of a streamed file instead of a whole trace; what it
     * writes is then read after a file header and an empty metadata block */
    fr_recover_stream stream = { fuzz_has_block, fuzz_count, fuzz_count, &v,
                                 data[size - 3], (int64_t)data[size - 4] << 20 };
    bool streamed = data[size - 2] % 4 == 0;
    if (streamed)
        in.stream = &stream;
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    if (!f)
        return 0;
    if (streamed) {
        struct fr_xray_file_header fh = { .version = FR_XRAY_VERSION_FDR,
                                          .type = FR_XRAY_TYPE_FDR, .buffer_size = 4096 };
        fwrite(&fh, 1, sizeof fh, f);
    }
    fr_recover_report rep;
    char err[512];
    int rc = fr_recover(&in, f, &rep, err, sizeof err);
    fclose(f);
    if (rc == FR_RECOVER_OK) {
        fr_reader *r = fr_reader_open_memory(out, out_len, "recovered", err, sizeof err);
        if (!r)
            __builtin_trap();   /* recover wrote something our reader does not open */
        fr_record rec;
        int s;
        while ((s = fr_reader_next(r, &rec)) == FR_READ_OK)
            ;
        if (s != FR_READ_EOF || fr_reader_truncation(r, NULL))
            __builtin_trap();   /* ... or does not read to its end */
        fr_reader_close(r);
    }
    free(out);
    return 0;
}
