/*
 * format_codec_test.c - the record codec (src/common/fdr_records.h, fr_format.h,
 * fr_block.h) against byte vectors written from docs/FORMAT.md's tables, not from the
 * code: a buffer's preamble, the head of a thread block (as every writer builds it), the
 * envelope of our records, a function record; and each metadata kind's decoder reading
 * back what its encoder wrote.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "fr_block.h"

static int failures;

static void expect_bytes(const char *what, const uint8_t *got, const uint8_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            printf("FAIL %s: byte %zu is 0x%02x, expected 0x%02x\n", what, i, got[i], want[i]);
            failures++;
            return;
        }
}

static void expect(const char *what, int ok)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

/* Little-endian bytes of x into p. */
#define LE(p, x, n) do { for (int i_ = 0; i_ < (n); i_++) (p)[i_] = (uint8_t)((uint64_t)(x) >> (8 * i_)); } while (0)

/* A metadata record from FORMAT.md's table: byte 0 (kind << 1) | 1, payload from byte 1. */
static void md(uint8_t rec[16], unsigned kind)
{
    memset(rec, 0, 16);
    rec[0] = (uint8_t)(kind << 1 | 1);
}

enum { TID = 0x01020304, PID = 0x31323334, CPU = 0x4142 };
static const int64_t SEC = 0x1112131415161718;
static const int32_t USEC = 0x21222324;
static const uint64_t TSC = 0x5152535455565758;

static void preamble_vector(uint8_t want[64])
{
    md(want, 0);           /* NewBuffer: i32 tid */
    LE(want + 1, TID, 4);
    md(want + 16, 4);      /* WalltimeMarker: i64 seconds, i32 microseconds */
    LE(want + 17, SEC, 8);
    LE(want + 25, USEC, 4);
    md(want + 32, 9);      /* Pid: i32 */
    LE(want + 33, PID, 4);
    md(want + 48, 2);      /* NewCPUId: u16 cpu, u64 timestamp */
    LE(want + 49, CPU, 2);
    LE(want + 51, TSC, 8);
}

static void test_preamble(void)
{
    uint8_t want[64], got[FR_BUFFER_PREAMBLE];
    preamble_vector(want);
    memset(got, 0xee, sizeof got);
    fr_preamble_put(got, TID, (struct fr_md_walltime){ SEC, USEC }, PID, CPU, TSC);
    expect("preamble size", FR_BUFFER_PREAMBLE == 64 && FR_BUFFER_HEAD_SKIP == 48);
    expect_bytes("preamble", got, want, 64);
    expect("preamble recognised", fr_preamble_ok(got, TID));
    expect("preamble of another tid", !fr_preamble_ok(got, TID + 1));
    expect("preamble tsc", fr_preamble_tsc(got) == TSC);
    got[32] = (uint8_t)(FR_MD_TSC_WRAP << 1 | 1);
    expect("preamble without its Pid", !fr_preamble_ok(got, TID));
}

/* NewBuffer, WalltimeMarker (wt_sec/wt_usec), Pid; NewCPUId(cpu, 1); a custom event of
 * 20 bytes at delta 0 holding "flightrec\0", u16 0xF009 (BLOCK_START), u64 tsc; the real
 * NewCPUId. */
static void head_vector(uint8_t want[116], int64_t wt_sec, int32_t wt_usec)
{
    uint8_t pre[64];
    preamble_vector(pre);
    memcpy(want, pre, 48);
    LE(want + 17, wt_sec, 8);
    LE(want + 25, wt_usec, 4);
    md(want + 48, 2);
    LE(want + 49, CPU, 2);
    LE(want + 51, 1, 8);
    md(want + 64, 5);
    LE(want + 65, 20, 4);
    LE(want + 69, 0, 4);
    memcpy(want + 80, "flightrec", 10);
    LE(want + 90, 0xF009, 2);
    LE(want + 92, TSC, 8);
    memcpy(want + 100, pre + 48, 16);
}

static void test_block_head(void)
{
    uint8_t pre[FR_BUFFER_PREAMBLE], want[116], got[FR_BLOCK_HEAD_SIZE];
    fr_preamble_put(pre, TID, (struct fr_md_walltime){ SEC, USEC }, PID, CPU, TSC);
    expect("block head size", FR_BLOCK_HEAD_SIZE == 116 && FR_BLOCK_HEAD_EXTRA == 52);
    head_vector(want, SEC, USEC);
    fr_block_head_put(got, pre, NULL);
    expect_bytes("block head", got, want, sizeof want);
    /* a streamed block's WalltimeMarker carries the block's sequence number instead */
    head_vector(want, 77, 5);
    struct fr_md_walltime seq = { 77, 5 };
    fr_block_head_put(got, pre, &seq);
    expect_bytes("block head with a walltime", got, want, sizeof want);
}

static void test_envelope_and_function(void)
{
    uint8_t want[28], got[FR_ENVELOPED_HEADER_SIZE];
    md(want, 5);
    LE(want + 1, 12 + 8, 4);            /* size: envelope + payload */
    LE(want + 5, (uint32_t)-3, 4);      /* delta */
    memcpy(want + 16, "flightrec", 10);
    LE(want + 26, 0xF008, 2);           /* LOST */
    fr_te_header_put(got, FR_TE_LOST, 8, -3);
    expect("enveloped header size", FR_ENVELOPED_HEADER_SIZE == 28 && FR_LOST_RECORD_SIZE == 36);
    expect_bytes("enveloped header", got, want, sizeof want);
    expect("enveloped header's size field", fr_md_get_event_size(got) == 20);

    /* enter with argument, id 0x0ABCDEF, delta 0x12345: u32 kind << 1 | id << 4, u32 delta */
    uint64_t v = FR_FN_RECORD_U64(0x0ABCDEFu, FR_FN_ENTER_ARG, (uint64_t)0x12345);
    uint8_t fn[8], fwant[8];
    memcpy(fn, &v, 8);
    LE(fwant, 0x0ABCDEFu << 4 | 3u << 1, 4);
    LE(fwant + 4, 0x12345, 4);
    expect_bytes("function record", fn, fwant, 8);
    struct fr_fn_record r = fr_fn_get(fn);
    expect("function record decoded", !fr_is_metadata(fn[0]) && fr_fn_kind(r.word) == FR_FN_ENTER_ARG &&
                                      fr_fn_id(r.word) == 0x0ABCDEFu && r.tsc_delta == 0x12345);
}

static void test_round_trips(void)
{
    uint8_t rec[FR_XRAY_METADATA_SIZE];
    fr_md_put_tsc_wrap(rec, (struct fr_md_tsc_wrap){ TSC });
    expect("TSCWrap", rec[0] == 7 && fr_md_kind(rec[0]) == FR_MD_TSC_WRAP && fr_md_get_tsc_wrap(rec).tsc == TSC);
    fr_md_put_call_argument(rec, (struct fr_md_call_argument){ 0xfeedfacecafebeefull });
    expect("CallArgument", rec[0] == 13 && fr_md_get_call_argument(rec).arg == 0xfeedfacecafebeefull);
    fr_md_put_buffer_extents(rec, (struct fr_md_buffer_extents){ 4096 });
    expect("BufferExtents", rec[0] == 15 && fr_md_get_buffer_extents(rec).size == 4096 &&
                            FR_MD_FIELD_AT(fr_md_buffer_extents, size) == 1);
    fr_md_put_typed_event(rec, (struct fr_md_typed_event){ 6, -1, 0x1234 });
    struct fr_md_typed_event te = fr_md_get_typed_event(rec);
    expect("TypedEventMarker", rec[0] == 17 && te.size == 6 && te.tsc_delta == -1 && te.type == 0x1234 &&
                               rec[9] == 0x34 && rec[10] == 0x12);
    fr_md_set_event_size(rec, 99);
    expect("event size in place", fr_md_get_event_size(rec) == 99 && rec[1] == 99);
    fr_md_put_custom_event_v4(rec, (struct fr_md_custom_event_v4){ 6, TSC, 3 });
    expect("CustomEventMarker v4", fr_md_get_custom_event_v4(rec).tsc == TSC && rec[13] == 3 &&
                                   fr_md_get_event_size(rec) == 6);
    fr_md_put_pid(rec, (struct fr_md_pid){ PID });
    expect("Pid", rec[0] == 19 && fr_md_get_pid(rec).pid == PID);
    for (int i = 5; i < 16; i++)
        expect("Pid zero padded", rec[i] == 0);
}

int main(void)
{
    test_preamble();
    test_block_head();
    test_envelope_and_function();
    test_round_trips();
    printf("%s\n", failures ? "FAILED" : "all codec checks passed");
    return failures != 0;
}
