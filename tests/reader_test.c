/*
 * reader_test.c - the streaming reader (fr_reader), the metadata gatherer (trace_meta)
 * and the CLI's exact time helpers, on traces made by the trace builder or written
 * byte by byte here (older FDR versions, basic mode, malformed files).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fr_reader.h"
#include "trace_builder.h"
#include "trace_meta.h"

/* ------------------------------------------------------------------ helpers */

typedef struct img {
    uint8_t b[4096];
    size_t n;
} img;

static void put(img *m, const void *p, size_t n)
{
    memcpy(m->b + m->n, p, n);
    m->n += n;
}

static void header(img *m, uint16_t version, uint16_t type, uint64_t buffer_size)
{
    struct fr_xray_file_header h = {version, type, 3, 1000, buffer_size, {0}};
    put(m, &h, sizeof h);
}

/* A metadata record: kind, then payload bytes at 1.. */
static void md(img *m, unsigned kind, const void *payload, size_t n)
{
    uint8_t r[16] = {FR_MD_BYTE0(kind)};
    memcpy(r + 1, payload, n);
    put(m, r, 16);
}

static void md_u64(img *m, unsigned kind, uint64_t v) { md(m, kind, &v, 8); }
static void md_i32(img *m, unsigned kind, int32_t v) { md(m, kind, &v, 4); }

static void md_cpu(img *m, uint16_t cpu, uint64_t tsc)
{
    uint8_t p[10];
    memcpy(p, &cpu, 2);
    memcpy(p + 2, &tsc, 8);
    md(m, FR_MD_NEW_CPU_ID, p, 10);
}

static void md_wall(img *m, int64_t sec, int32_t usec)
{
    uint8_t p[12];
    memcpy(p, &sec, 8);
    memcpy(p + 8, &usec, 4);
    md(m, FR_MD_WALLTIME_MARKER, p, 12);
}

static void fn(img *m, uint32_t id, unsigned kind, uint32_t delta)
{
    uint32_t w = fr_function_record_word(id, kind);
    put(m, &w, 4);
    put(m, &delta, 4);
}

typedef struct all {
    fr_record rec[64];
    int n;
    fr_read_status end;
    char err[512];
    char cut[512];   /* fr_reader_truncation's message, "" if none */
    uint64_t cut_at;
} all;

/* Reads every record; payloads are not kept (pointers expire). */
static void read_all(const void *data, size_t size, all *a)
{
    char err[512];
    memset(a, 0, sizeof *a);
    fr_reader *r = fr_reader_open_memory(data, size, "t.xray", err, sizeof err);
    if (!r) {
        a->end = FR_READ_ERROR;
        snprintf(a->err, sizeof a->err, "%s", err);
        return;
    }
    while (a->n < 64 && (a->end = fr_reader_next(r, &a->rec[a->n])) == FR_READ_OK)
        a->n++;
    if (a->end == FR_READ_ERROR)
        snprintf(a->err, sizeof a->err, "%s", fr_reader_error(r));
    const char *cut = fr_reader_truncation(r, &a->cut_at);
    snprintf(a->cut, sizeof a->cut, "%s", cut ? cut : "");
    fr_reader_close(r);
}

static void expect_fn(const fr_record *r, fr_record_kind k, int32_t tid, uint32_t id, uint64_t tsc)
{
    assert_int_equal(r->kind, k);
    assert_int_equal(r->tid, tid);
    assert_int_equal(r->function_id, id);
    assert_int_equal(r->tsc, tsc);
}

/* ------------------------------------------------------------------ builder traces */

static void test_builder_roundtrip(void **state)
{
    (void)state;
    fr_tb *b = fr_tb_new(1000000000);
    fr_tb_function_name(b, 1, "main");
    fr_tb_block(b, 7, 99, 2, 1000);
    fr_tb_enter(b, 1, 1000);
    fr_tb_enter_arg(b, 2, 0xdeadbeefcafeull, 1010);
    fr_tb_custom(b, "abc", 3, 1005);  /* a negative delta is allowed for events */
    fr_tb_typed(b, 9, "xyz!", 4, 1020);
    fr_tb_tail_exit(b, 2, 1030);
    fr_tb_new_cpu(b, 3, 2000);
    fr_tb_exit(b, 1, 1ull << 40);     /* TSCWrap */
    size_t n;
    const uint8_t *p = fr_tb_bytes(b, &n);
    all a;
    read_all(p, n, &a);
    assert_int_equal(a.end, FR_READ_EOF);
    assert_int_equal(a.n, 9);
    assert_int_equal(a.rec[0].kind, FR_REC_BLOCK);  /* metadata block */
    assert_int_equal(a.rec[0].tid, 0);
    assert_int_equal(a.rec[0].offset, 32);
    assert_int_equal(a.rec[1].kind, FR_REC_TYPED);
    assert_int_equal(a.rec[1].event_type, FR_TE_FUNCTION);
    assert_int_equal(a.rec[2].kind, FR_REC_BLOCK);
    assert_int_equal(a.rec[2].tid, 7);
    assert_int_equal(a.rec[2].pid, 99);
    assert_int_equal(a.rec[2].cpu, 2);
    assert_int_equal(a.rec[2].tsc, 1000);
    assert_int_equal(a.rec[2].walltime_sec, 2);
    assert_int_equal(a.rec[2].walltime_usec, 2);
    expect_fn(&a.rec[3], FR_REC_ENTER, 7, 1, 1000);
    expect_fn(&a.rec[4], FR_REC_ENTER_ARG, 7, 2, 1010);
    assert_int_equal(a.rec[4].arg, 0xdeadbeefcafeull);
    assert_int_equal(a.rec[5].kind, FR_REC_CUSTOM);
    assert_int_equal(a.rec[5].tsc, 1005);
    assert_int_equal(a.rec[5].size, 3);
    assert_int_equal(a.rec[6].kind, FR_REC_TYPED);
    assert_int_equal(a.rec[6].event_type, 9);
    assert_int_equal(a.rec[6].tsc, 1020);
    assert_int_equal(a.rec[6].size, 4);
    expect_fn(&a.rec[7], FR_REC_TAIL_EXIT, 7, 2, 1030);
    expect_fn(&a.rec[8], FR_REC_EXIT, 7, 1, 1ull << 40);
    assert_int_equal(a.rec[8].cpu, 3);
    fr_tb_free(b);
}

/* Our records, in the envelope (legacy = 0) or as typed events as files written before
 * it hold them (legacy = 1): read the same. */
static void payload_and_meta(int legacy)
{
    fr_tb *b = fr_tb_new(2000);
    fr_tb_legacy_encoding(b, legacy);
    uint8_t clock[48] = {0};   /* longer than struct fr_te_clock: later versions may grow */
    struct fr_te_clock c = { .version = 1, .source = FR_CLOCK_SOURCE_TSC,
                             .ticks_per_second = 2100000000ull, .base_tsc = 777 };
    memcpy(clock, &c, sizeof c);
    fr_tb_meta_event(b, FR_TE_CLOCK, clock, sizeof clock);
    /* process: pid, ppid, name, exe, "a\0b\0" */
    uint8_t proc[64];
    size_t k = 0;
    uint32_t pid = 5, ppid = 1;
    memcpy(proc + k, &pid, 4); k += 4;
    memcpy(proc + k, &ppid, 4); k += 4;
    uint16_t l = 3; memcpy(proc + k, &l, 2); k += 2; memcpy(proc + k, "cat", 3); k += 3;
    l = 8; memcpy(proc + k, &l, 2); k += 2; memcpy(proc + k, "/bin/cat", 8); k += 8;
    l = 6; memcpy(proc + k, &l, 2); k += 2; memcpy(proc + k, "cat\0-n\0", 6); k += 6;
    fr_tb_meta_event(b, FR_TE_PROCESS, proc, k);
    fr_tb_function_name(b, 4, "four");
    fr_tb_function_name(b, 2, "two");
    fr_tb_meta_event(b, FR_TE_SUMMARY, "short", 5); /* malformed: ignored */
    fr_tb_block(b, 1, 5, 0, 800);
    struct fr_te_lost lost = { .records = 3 };
    fr_tb_ours(b, FR_TE_LOST, &lost, sizeof lost, 801);
    size_t n;
    const uint8_t *p = fr_tb_bytes(b, &n);

    char err[256];
    fr_reader *r = fr_reader_open_memory(p, n, "m.xray", err, sizeof err);
    assert_non_null(r);
    fr_trace_meta m;
    fr_trace_meta_init(&m);
    fr_record rec;
    int ours = 0;
    while (fr_reader_next(r, &rec) == FR_READ_OK)
        ours += fr_trace_meta_feed(&m, &rec);
    fr_trace_meta_finish(&m);
    assert_int_equal(ours, 6);
    assert_true(m.has_clock);
    assert_int_equal(m.ticks_per_second, 2100000000ull);
    assert_int_equal(m.base_tsc, 777);
    assert_true(m.has_process);
    assert_string_equal(m.process_name, "cat");
    assert_string_equal(m.executable, "/bin/cat");
    assert_string_equal(m.command_line, "cat -n");
    assert_false(m.has_summary);
    assert_int_equal(m.lost_markers, 1);
    assert_int_equal(m.n_functions, 2);
    assert_string_equal(fr_trace_meta_function(&m, 2)->name, "two");
    assert_string_equal(fr_trace_meta_function(&m, 4)->name, "four");
    assert_null(fr_trace_meta_function(&m, 3));
    fr_trace_meta_free(&m);
    fr_reader_close(r);
    fr_tb_free(b);
}

static void test_payload_and_meta(void **state)
{
    (void)state;
    payload_and_meta(0);
}

static void test_payload_and_meta_legacy(void **state)
{
    (void)state;
    payload_and_meta(1);
}

/* ------------------------------------------------------------------ older versions */

static void test_v1_end_of_buffer(void **state)
{
    (void)state;
    img m = {0};
    header(&m, 1, FR_XRAY_TYPE_FDR, 128);
    for (int blk = 0; blk < 2; blk++) {
        size_t start = m.n;
        md_i32(&m, FR_MD_NEW_BUFFER, 10 + blk);
        md_wall(&m, 1, 1);
        md_cpu(&m, 0, 100);
        fn(&m, 3, FR_FN_ENTER, 5);
        fn(&m, 3, FR_FN_EXIT, 5);
        md(&m, FR_MD_END_OF_BUFFER, "", 0);
        while (m.n < start + 128)
            m.b[m.n++] = 0xAB; /* garbage in the unused tail */
    }
    all a;
    read_all(m.b, m.n, &a);
    assert_int_equal(a.end, FR_READ_EOF);
    assert_int_equal(a.n, 6);
    expect_fn(&a.rec[1], FR_REC_ENTER, 10, 3, 105);
    expect_fn(&a.rec[2], FR_REC_EXIT, 10, 3, 110);
    assert_int_equal(a.rec[3].kind, FR_REC_BLOCK);
    assert_int_equal(a.rec[3].tid, 11);
    assert_int_equal(a.rec[3].offset, 32 + 128);
}

/* A version 1 buffer size near 2^64 must not wrap the block's end around. */
static void test_v1_huge_buffer_size(void **state)
{
    (void)state;
    img m = {0};
    header(&m, 1, FR_XRAY_TYPE_FDR, UINT64_MAX - 40);
    md_i32(&m, FR_MD_NEW_BUFFER, 1);
    md_wall(&m, 1, 1);
    md_cpu(&m, 0, 100);
    fn(&m, 3, FR_FN_ENTER, 5);
    md(&m, FR_MD_END_OF_BUFFER, "", 0);
    all a;
    read_all(m.b, m.n, &a);
    assert_int_equal(a.end, FR_READ_EOF);
    assert_int_equal(a.n, 2);
}

static void test_v4_custom_event(void **state)
{
    (void)state;
    img m = {0};
    header(&m, 4, FR_XRAY_TYPE_FDR, 4096);
    md_u64(&m, FR_MD_BUFFER_EXTENTS, 16 * 5 + 4);
    md_i32(&m, FR_MD_NEW_BUFFER, 3);
    md_wall(&m, 1, 1);
    md_i32(&m, FR_MD_PID, 4);
    md_cpu(&m, 1, 1000);
    uint8_t ce[14];
    int32_t size = 4;
    uint64_t tsc = 123456;
    uint16_t cpu = 9;
    memcpy(ce, &size, 4);
    memcpy(ce + 4, &tsc, 8);
    memcpy(ce + 12, &cpu, 2);
    md(&m, FR_MD_CUSTOM_EVENT, ce, 14);
    put(&m, "data", 4);
    all a;
    read_all(m.b, m.n, &a);
    assert_int_equal(a.end, FR_READ_EOF);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.rec[1].kind, FR_REC_CUSTOM);
    assert_int_equal(a.rec[1].tsc, 123456);
    assert_int_equal(a.rec[1].cpu, 9);
    assert_int_equal(a.rec[1].size, 4);
    assert_int_equal(a.rec[1].pid, 4);
}

static void basic_rec(img *m, uint16_t rtype, uint8_t cpu, uint8_t kind, int32_t fid,
                      uint64_t tsc_or_arg, uint32_t tid, uint32_t pid)
{
    uint8_t r[32] = {0};
    memcpy(r, &rtype, 2);
    if (rtype == 0) {
        r[2] = cpu;
        r[3] = kind;
        memcpy(r + 4, &fid, 4);
        memcpy(r + 8, &tsc_or_arg, 8);
        memcpy(r + 16, &tid, 4);
        memcpy(r + 20, &pid, 4);
    } else {
        memcpy(r + 4, &fid, 4);
        memcpy(r + 8, &tid, 4);
        memcpy(r + 12, &pid, 4);
        memcpy(r + 16, &tsc_or_arg, 8);
    }
    put(m, r, 32);
}

static void test_basic_mode(void **state)
{
    (void)state;
    img m = {0};
    header(&m, 3, FR_XRAY_TYPE_NAIVE, 0);
    basic_rec(&m, 0, 1, FR_FN_ENTER, 5, 100, 77, 7);
    basic_rec(&m, 0, 1, FR_FN_ENTER_ARG, 6, 110, 77, 7);
    basic_rec(&m, 1, 0, 0, 6, 4242, 77, 7);
    basic_rec(&m, 0, 2, FR_FN_EXIT, 6, 120, 78, 7);
    all a;
    read_all(m.b, m.n, &a);
    assert_int_equal(a.end, FR_READ_EOF);
    assert_int_equal(a.n, 5);
    assert_int_equal(a.rec[0].kind, FR_REC_BLOCK);
    expect_fn(&a.rec[1], FR_REC_ENTER, 77, 5, 100);
    expect_fn(&a.rec[2], FR_REC_ENTER_ARG, 77, 6, 110);
    assert_int_equal(a.rec[2].arg, 4242);
    assert_int_equal(a.rec[3].kind, FR_REC_BLOCK);
    assert_int_equal(a.rec[3].tid, 78);
    expect_fn(&a.rec[4], FR_REC_EXIT, 78, 6, 120);
    assert_int_equal(a.rec[4].cpu, 2);

    m.n -= 5; /* a cut record: the records before it are read, the cut is reported */
    read_all(m.b, m.n, &a);
    assert_int_equal(a.end, FR_READ_EOF);
    assert_int_equal(a.n, 3);   /* tid 78's block record comes with its first record */
    assert_string_equal(a.cut, "t.xray: offset 128: the file ends inside a 32-byte basic-mode "
                               "record");
    assert_int_equal(a.cut_at, 128);
}

/* ------------------------------------------------------------------ malformed input */

static void expect_error(const img *m, const char *msg)
{
    all a;
    read_all(m->b, m->n, &a);
    assert_int_equal(a.end, FR_READ_ERROR);
    assert_string_equal(a.err, msg);
}

static void preamble(img *m, uint64_t extents)
{
    md_u64(m, FR_MD_BUFFER_EXTENTS, extents);
    md_i32(m, FR_MD_NEW_BUFFER, 1);
    md_wall(m, 1, 1);
    md_i32(m, FR_MD_PID, 2);
}

static void test_errors(void **state)
{
    (void)state;
    img m = {0};
    put(&m, "GARBAGE!", 8);
    expect_error(&m, "t.xray: offset 8: expected a 32-byte XRay file header, found the end "
                     "of the file");

    m.n = 0;
    header(&m, 6, FR_XRAY_TYPE_FDR, 0);
    expect_error(&m, "t.xray: offset 0: expected FDR file version 1..5, found 6");

    m.n = 0;
    header(&m, 5, FR_XRAY_TYPE_FDR, 0);
    preamble(&m, 56);
    fn(&m, 1, FR_FN_ENTER, 0); /* before NewCPUId */
    expect_error(&m, "t.xray: offset 96: expected a NewCPUId record to end the block's "
                     "preamble, found a function record");

    m.n = 0;
    header(&m, 5, FR_XRAY_TYPE_FDR, 0);
    preamble(&m, 1000);   /* a block cut in its preamble: nothing to return, no error */
    all a;
    read_all(m.b, m.n, &a);
    assert_int_equal(a.end, FR_READ_EOF);
    assert_int_equal(a.n, 0);
    assert_string_equal(a.cut, "t.xray: offset 96: the file ends inside a block's preamble (the "
                               "block that begins at offset 32 should end at offset 1048)");

    m.n = 0;
    header(&m, 5, FR_XRAY_TYPE_FDR, 0);
    preamble(&m, UINT64_MAX - 40);  /* a size no file can have */
    expect_error(&m, "t.xray: offset 32: expected a block of at most 18446744073709551567 bytes, "
                     "BufferExtents says 18446744073709551575");

    m.n = 0;
    header(&m, 5, FR_XRAY_TYPE_FDR, 0);
    preamble(&m, 72);
    md_cpu(&m, 0, 0);
    fn(&m, 1, 5, 0); /* kind 5 */
    expect_error(&m, "t.xray: offset 112: expected a function record kind 0..3, found 5");

    m.n = 0;
    header(&m, 5, FR_XRAY_TYPE_FDR, 0);
    preamble(&m, 64);
    md_cpu(&m, 0, 0);
    put(&m, "\x42", 1); /* a byte after the last block */
    expect_error(&m, "t.xray: offset 112: expected a BufferExtents record (first byte 0x0f) "
                     "to begin a block, found 0x42");

    m.n = 0;
    header(&m, 5, FR_XRAY_TYPE_FDR, 0);
    preamble(&m, 80 + 3);
    md_cpu(&m, 0, 0);
    uint8_t te[10] = {0};
    int32_t size = 100;
    memcpy(te, &size, 4);
    md(&m, FR_MD_TYPED_EVENT, te, 10);
    put(&m, "abc", 3);
    expect_error(&m, "t.xray: offset 112: expected an event of at most 3 bytes (to the end of "
                     "its block), found size 100");
}

static void test_truncated_everywhere(void **state)
{
    (void)state;
    fr_tb *b = fr_tb_new(1000);
    fr_tb_function_name(b, 1, "f");
    fr_tb_block(b, 1, 1, 0, 10);
    fr_tb_enter_arg(b, 1, 5, 10);
    fr_tb_custom(b, "zz", 2, 11);
    fr_tb_exit(b, 1, 12);
    size_t n;
    const uint8_t *p = fr_tb_bytes(b, &n);
    uint8_t *copy = malloc(n);
    int ok = 0;
    all whole;
    read_all(p, n, &whole);
    assert_int_equal(whole.end, FR_READ_EOF);
    for (size_t cut = 0; cut < n; cut++) {
        memcpy(copy, p, cut); /* an exact-size buffer: ASan sees any over-read */
        all a;
        read_all(copy, cut, &a);
        if (cut < 32) {   /* no header: not a trace */
            assert_int_equal(a.end, FR_READ_ERROR);
            assert_non_null(strstr(a.err, "t.xray: offset "));
            continue;
        }
        /* Read up to the cut: a prefix of the whole file's records, then EOF. */
        assert_int_equal(a.end, FR_READ_EOF);
        assert_true(a.n <= whole.n);
        for (int i = 0; i < a.n; i++) {
            assert_int_equal(a.rec[i].kind, whole.rec[i].kind);
            assert_int_equal(a.rec[i].offset, whole.rec[i].offset);
            assert_int_equal(a.rec[i].arg, whole.rec[i].arg);
        }
        if (!a.cut[0]) {
            ok++; /* only at a block boundary: the header and the end of the metadata block */
            /* header; extents, preamble, our FUNCTION record (custom event header,
             * envelope, struct, str16 "f") */
            assert_true(cut == 32 || cut == 32 + 16 + 64 + 16 + sizeof(struct fr_te_envelope) +
                                             sizeof(struct fr_te_function) + 2 + 1);
        } else {
            assert_non_null(strstr(a.cut, "t.xray: offset "));
            assert_true(a.cut_at <= cut);
        }
    }
    assert_int_equal(ok, 2);
    free(copy);
    fr_tb_free(b);
}

/* ------------------------------------------------------------------ batch read */

/* One function record as either read path sees it, and the other records' kinds. */
struct seen { uint32_t kind, id; int32_t tid; uint64_t tsc; };

/* Reads everything from r into out (at most max): with batches of up to `batch` plain
 * function records if batch > 0 (the rest through fr_reader_next), else one by one. */
static size_t read_seen(fr_reader *r, size_t batch, struct seen *out, size_t max)
{
    size_t n = 0;
    fr_function_record fns[700];
    fr_record rec;
    unsigned step = 0;
    for (;;) {
        if (batch) {
            int32_t tid;
            size_t want = 1 + (step++ * 7919u) % batch;   /* varied batch sizes */
            size_t k = fr_reader_next_functions(r, fns, want, &tid);
            assert_true(k <= want);
            for (size_t i = 0; i < k; i++) {
                assert_true(n < max);
                out[n++] = (struct seen){fns[i].kind, fns[i].function_id, tid, fns[i].tsc};
            }
            if (k)
                continue;
        }
        fr_read_status s = fr_reader_next(r, &rec);
        assert_int_not_equal(s, FR_READ_ERROR);
        if (s != FR_READ_OK)
            return n;
        assert_true(n < max);
        out[n++] = (struct seen){rec.kind, rec.function_id, rec.tid, rec.tsc};
    }
}

/* fr_reader_next_functions returns exactly the records fr_reader_next would, from memory
 * and from a file several windows long (runs cut by the window's end), across blocks,
 * threads, arguments, events, CPU changes and TSC wraps. */
static void test_batch_matches_next(void **state)
{
    (void)state;
    fr_tb *b = fr_tb_new(1000000000);
    uint64_t tsc = 1000;
    for (int blk = 0; blk < 6; blk++) {
        fr_tb_block(b, 10 + blk % 2, 99, (uint16_t)blk, tsc);
        for (uint32_t i = 0; i < 30000; i++) {
            tsc += 1 + i % 13;
            uint32_t id = 1 + i % 50;
            switch (i % 101) {
            case 7: fr_tb_enter_arg(b, id, i, tsc); break;
            case 19: fr_tb_custom(b, "ab", 2, tsc); break;
            case 33: fr_tb_new_cpu(b, (uint16_t)(i % 4), tsc); break;
            case 55: tsc += 1ull << 33; fr_tb_exit(b, id, tsc); break;   /* TSCWrap */
            default:
                if (i % 3 == 0) fr_tb_tail_exit(b, id, tsc);
                else if (i % 2) fr_tb_enter(b, id, tsc);
                else fr_tb_exit(b, id, tsc);
            }
        }
    }
    size_t size;
    const uint8_t *bytes = fr_tb_bytes(b, &size);
    assert_true(size > 4 * 256 * 1024);
    enum { MAX = 200000 };
    static struct seen one[MAX], batched[MAX];
    char err[512];

    fr_reader *r = fr_reader_open_memory(bytes, size, "t.xray", err, sizeof err);
    assert_non_null(r);
    size_t n1 = read_seen(r, 0, one, MAX);
    fr_reader_close(r);
    assert_true(n1 > 6 * 29000);   /* NewCPUId records are not returned */

    char path[] = "/tmp/reader_test_batch_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, size), (ssize_t)size);
    close(fd);
    for (int from_file = 0; from_file < 2; from_file++) {
        r = from_file ? fr_reader_open(path, err, sizeof err)
                      : fr_reader_open_memory(bytes, size, "t.xray", err, sizeof err);
        assert_non_null(r);
        size_t n2 = read_seen(r, 700, batched, MAX);
        fr_reader_close(r);
        assert_int_equal(n1, n2);
        for (size_t i = 0; i < n1; i++) {
            assert_int_equal(one[i].kind, batched[i].kind);
            assert_int_equal(one[i].id, batched[i].id);
            assert_int_equal(one[i].tid, batched[i].tid);
            assert_int_equal(one[i].tsc, batched[i].tsc);
        }
    }
    unlink(path);
    fr_tb_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_roundtrip),
        cmocka_unit_test(test_payload_and_meta),
        cmocka_unit_test(test_payload_and_meta_legacy),
        cmocka_unit_test(test_v1_end_of_buffer),
        cmocka_unit_test(test_v1_huge_buffer_size),
        cmocka_unit_test(test_v4_custom_event),
        cmocka_unit_test(test_basic_mode),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_batch_matches_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
