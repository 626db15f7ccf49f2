/*
 * fdr_records.h - the records of an XRay FDR log (version 5, and what the reader needs of
 * versions 1..4 and of basic mode): the file header, the 16-byte metadata records with a
 * packed struct for each kind's payload, the 8-byte function record, and the encode and
 * decode helpers every writer and reader goes through, so that no other file spells a
 * record's offset or size.
 *
 * Shared by the runtime (libc only, async-signal-safe: nothing here allocates, locks or
 * calls anything: its copies are __builtin_memcpy of fixed sizes, inlined),
 * the recovery and the reader. Everything is static inline: a writer's machine code is the
 * same as when it spelled the bytes itself. All fields are little-endian and unaligned:
 * a record is read by copying its payload into the packed struct (fr_md_get), never by
 * casting a pointer. docs/FORMAT.md describes the same bytes in prose; flightrec's own
 * records (FR_TE_*) are in fr_format.h, the buffer and block layout in fr_block.h.
 */
#ifndef FLIGHTREC_FDR_RECORDS_H
#define FLIGHTREC_FDR_RECORDS_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ file header */
#define FR_XRAY_HEADER_SIZE      32
#define FR_XRAY_VERSION_FDR      5   /* what we write; readers accept 1..5 */
#define FR_XRAY_TYPE_NAIVE       0   /* compiler-rt "basic" mode */
#define FR_XRAY_TYPE_FDR         1
#define FR_XRAY_FLAG_CONSTANT_TSC 0x1u
#define FR_XRAY_FLAG_NONSTOP_TSC  0x2u

/* u16 version; u16 type; u32 flags; u64 cycle_frequency; u64 buffer_size; u8 pad[8] */
struct fr_xray_file_header {
    uint16_t version;
    uint16_t type;
    uint32_t flags;
    uint64_t cycle_frequency;
    uint64_t buffer_size;
    uint8_t  padding[8];
} __attribute__((packed));
_Static_assert(sizeof(struct fr_xray_file_header) == FR_XRAY_HEADER_SIZE, "header size");
_Static_assert(offsetof(struct fr_xray_file_header, type) == 2, "header type");
_Static_assert(offsetof(struct fr_xray_file_header, flags) == 4, "header flags");
_Static_assert(offsetof(struct fr_xray_file_header, cycle_frequency) == 8, "header frequency");
_Static_assert(offsetof(struct fr_xray_file_header, buffer_size) == 16, "header buffer size");

/* ------------------------------------------------------------------ metadata records
 * 16 bytes: byte 0 = (kind << 1) | 1, the payload from byte 1 (one of the structs below),
 * zero padded. */
#define FR_XRAY_METADATA_SIZE    16
#define FR_MD_PAYLOAD_AT         1   /* where a metadata record's payload starts */
#define FR_MD_PAYLOAD_MAX        (FR_XRAY_METADATA_SIZE - FR_MD_PAYLOAD_AT)
enum fr_xray_metadata_kind {
    FR_MD_NEW_BUFFER        = 0, /* struct fr_md_new_buffer */
    FR_MD_END_OF_BUFFER     = 1, /* no payload; pre-v2 files only */
    FR_MD_NEW_CPU_ID        = 2, /* struct fr_md_new_cpu_id */
    FR_MD_TSC_WRAP          = 3, /* struct fr_md_tsc_wrap */
    FR_MD_WALLTIME_MARKER   = 4, /* struct fr_md_walltime */
    FR_MD_CUSTOM_EVENT      = 5, /* struct fr_md_custom_event (v5; v1..v4: _v4), then
                                    `size` payload bytes */
    FR_MD_CALL_ARGUMENT     = 6, /* struct fr_md_call_argument */
    FR_MD_BUFFER_EXTENTS    = 7, /* struct fr_md_buffer_extents */
    FR_MD_TYPED_EVENT       = 8, /* struct fr_md_typed_event, then `size` payload bytes */
    FR_MD_PID               = 9, /* struct fr_md_pid */
};
#define FR_MD_BYTE0(kind) ((uint8_t)(((kind) << 1) | 1))
/* Byte 0 of any record: bit 0 set for a metadata record, clear for a function record. */
static inline int fr_is_metadata(uint8_t byte0) { return byte0 & 1; }
static inline unsigned fr_md_kind(uint8_t byte0) { return byte0 >> 1; }

/* NewBuffer: the block's thread. */
struct fr_md_new_buffer {
    int32_t tid;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_new_buffer) == 4, "NewBuffer size");

/* NewCPUId: the cpu from here on, and the timestamp the next deltas count from. */
struct fr_md_new_cpu_id {
    uint16_t cpu;
    uint64_t tsc;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_new_cpu_id) == 10, "NewCPUId size");
_Static_assert(offsetof(struct fr_md_new_cpu_id, tsc) == 2, "NewCPUId tsc");

/* TSCWrap: a new delta base (a delta that would not fit in 32 bits). */
struct fr_md_tsc_wrap {
    uint64_t tsc;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_tsc_wrap) == 8, "TSCWrap size");

/* WalltimeMarker: the block's wall-clock time. */
struct fr_md_walltime {
    int64_t seconds;
    int32_t microseconds;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_walltime) == 12, "WalltimeMarker size");
_Static_assert(offsetof(struct fr_md_walltime, microseconds) == 8, "WalltimeMarker usec");

/* CustomEventMarker, version 5: `size` payload bytes follow the record. */
struct fr_md_custom_event {
    int32_t size;
    int32_t tsc_delta;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_custom_event) == 8, "CustomEventMarker size");
_Static_assert(offsetof(struct fr_md_custom_event, tsc_delta) == 4, "CustomEventMarker delta");

/* CustomEventMarker, versions 1..4: an absolute timestamp, no delta; `cpu` from version 4
 * only (before, zero padding). */
struct fr_md_custom_event_v4 {
    int32_t  size;
    uint64_t tsc;
    uint16_t cpu;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_custom_event_v4) == 14, "CustomEventMarker v4 size");
_Static_assert(offsetof(struct fr_md_custom_event_v4, tsc) == 4, "CustomEventMarker v4 tsc");
_Static_assert(offsetof(struct fr_md_custom_event_v4, cpu) == 12, "CustomEventMarker v4 cpu");

/* CallArgument: the argument of the enter-with-argument record right before it. */
struct fr_md_call_argument {
    uint64_t arg;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_call_argument) == 8, "CallArgument size");

/* BufferExtents: the bytes of records that follow in this block. */
struct fr_md_buffer_extents {
    uint64_t size;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_buffer_extents) == 8, "BufferExtents size");

/* TypedEventMarker: `size` payload bytes follow the record. */
struct fr_md_typed_event {
    int32_t  size;
    int32_t  tsc_delta;
    uint16_t type;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_typed_event) == 10, "TypedEventMarker size");
_Static_assert(offsetof(struct fr_md_typed_event, tsc_delta) == 4, "TypedEventMarker delta");
_Static_assert(offsetof(struct fr_md_typed_event, type) == 8, "TypedEventMarker type");

/* Pid: the process of the block. */
struct fr_md_pid {
    int32_t pid;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_md_pid) == 4, "Pid size");

/* Where a payload field sits in its record, for patching one in place (a BufferExtents
 * count, an event's size): FR_MD_FIELD_AT(fr_md_buffer_extents, size) == 1. */
#define FR_MD_FIELD_AT(payload, field) (FR_MD_PAYLOAD_AT + offsetof(struct payload, field))

/* A whole metadata record of `kind` with `len` payload bytes (at most FR_MD_PAYLOAD_MAX),
 * zero padded, at rec[0, FR_XRAY_METADATA_SIZE). */
static inline void fr_md_put(uint8_t *rec, unsigned kind, const void *payload, size_t len)
{
    uint8_t r[FR_XRAY_METADATA_SIZE] = { FR_MD_BYTE0(kind) };
    __builtin_memcpy(r + FR_MD_PAYLOAD_AT, payload, len);
    __builtin_memcpy(rec, r, sizeof r);
}

/* The `len` payload bytes of the metadata record at rec (its struct's size). */
static inline void fr_md_get(const uint8_t *rec, void *payload, size_t len)
{
    __builtin_memcpy(payload, rec + FR_MD_PAYLOAD_AT, len);
}

/* Typed encoders and decoders of each payload: fr_md_put_<name>(rec, value) writes the
 * whole record; fr_md_get_<name>(rec) returns the payload of a record of that kind. */
#define FR_MD_PAYLOADS(X)                                          \
    X(new_buffer,     FR_MD_NEW_BUFFER)                            \
    X(new_cpu_id,     FR_MD_NEW_CPU_ID)                            \
    X(tsc_wrap,       FR_MD_TSC_WRAP)                              \
    X(walltime,       FR_MD_WALLTIME_MARKER)                       \
    X(custom_event,   FR_MD_CUSTOM_EVENT)                          \
    X(custom_event_v4, FR_MD_CUSTOM_EVENT)                         \
    X(call_argument,  FR_MD_CALL_ARGUMENT)                         \
    X(buffer_extents, FR_MD_BUFFER_EXTENTS)                        \
    X(typed_event,    FR_MD_TYPED_EVENT)                           \
    X(pid,            FR_MD_PID)
#define FR_MD_CODEC_(name, kind)                                                      \
    _Static_assert(sizeof(struct fr_md_##name) <= FR_MD_PAYLOAD_MAX, #name " fits");  \
    static inline void fr_md_put_##name(uint8_t *rec, struct fr_md_##name v)          \
    {                                                                                 \
        fr_md_put(rec, kind, &v, sizeof v);                                           \
    }                                                                                 \
    static inline struct fr_md_##name fr_md_get_##name(const uint8_t *rec)            \
    {                                                                                 \
        struct fr_md_##name v;                                                        \
        fr_md_get(rec, &v, sizeof v);                                                 \
        return v;                                                                     \
    }
FR_MD_PAYLOADS(FR_MD_CODEC_)
#undef FR_MD_CODEC_

/* The size of a custom or typed event's payload (which follows the record): the same
 * field of every version's event records, read to skip an event, written in place to
 * grow one (the runtime's event runs) or to cut one back. */
#define FR_MD_EVENT_SIZE_AT FR_MD_FIELD_AT(fr_md_custom_event, size)
_Static_assert(offsetof(struct fr_md_typed_event, size) == offsetof(struct fr_md_custom_event, size) &&
               offsetof(struct fr_md_custom_event_v4, size) == offsetof(struct fr_md_custom_event, size),
               "every event record has its size first");
static inline int32_t fr_md_get_event_size(const uint8_t *rec)
{
    int32_t n;
    __builtin_memcpy(&n, rec + FR_MD_EVENT_SIZE_AT, sizeof n);
    return n;
}
static inline void fr_md_set_event_size(uint8_t *rec, int32_t n)
{
    __builtin_memcpy(rec + FR_MD_EVENT_SIZE_AT, &n, sizeof n);
}

/* ------------------------------------------------------------------ function records
 * 8 bytes: u32 = 0 (bit0) | kind << 1 (3 bits) | function id << 4 (28 bits); u32 tsc delta. */
#define FR_XRAY_FUNCTION_RECORD_SIZE 8
enum fr_xray_function_kind {
    FR_FN_ENTER      = 0,
    FR_FN_EXIT       = 1,
    FR_FN_TAIL_EXIT  = 2,
    FR_FN_ENTER_ARG  = 3,   /* a CallArgument record follows */
};
#define FR_XRAY_MAX_FUNCTION_ID ((1u << 28) - 1)
struct fr_fn_record {
    uint32_t word;          /* fr_function_record_word */
    uint32_t tsc_delta;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_fn_record) == FR_XRAY_FUNCTION_RECORD_SIZE, "function record size");
_Static_assert(offsetof(struct fr_fn_record, tsc_delta) == 4, "function record delta");
/* An enter with argument and its CallArgument, as a writer reserves them. */
#define FR_XRAY_ENTER_ARG_SIZE (FR_XRAY_FUNCTION_RECORD_SIZE + FR_XRAY_METADATA_SIZE)

static inline uint32_t fr_function_record_word(uint32_t id, unsigned kind)
{
    return (id << 4) | ((uint32_t)kind << 1);
}
static inline unsigned fr_fn_kind(uint32_t word) { return (word >> 1) & 7; }
static inline uint32_t fr_fn_id(uint32_t word) { return word >> 4; }
/* A plain function record: not metadata, and an enter, exit or tail exit (an enter with an
 * argument has a CallArgument after it; kinds above it are invalid). */
static inline int fr_fn_is_plain(uint32_t word)
{
    return !(word & 1) && fr_fn_kind(word) <= FR_FN_TAIL_EXIT;
}
/* The record as one little-endian u64 (word, then a delta that fits in 32 bits): what
 * the runtime's hot path stores. A macro, so that the record functions compile to the
 * same instructions as the expression written out. */
#define FR_FN_RECORD_U64(id, kind, delta) (fr_function_record_word(id, kind) | (delta) << 32)
static inline struct fr_fn_record fr_fn_get(const uint8_t *rec)
{
    struct fr_fn_record v;
    __builtin_memcpy(&v, rec, sizeof v);
    return v;
}
/* Each field alone, for the reader's loops over function records (two 4-byte loads, as
 * the record is laid out). */
static inline uint32_t fr_fn_get_word(const uint8_t *rec)
{
    uint32_t v;
    __builtin_memcpy(&v, rec + offsetof(struct fr_fn_record, word), sizeof v);
    return v;
}
static inline uint32_t fr_fn_get_delta(const uint8_t *rec)
{
    uint32_t v;
    __builtin_memcpy(&v, rec + offsetof(struct fr_fn_record, tsc_delta), sizeof v);
    return v;
}

/* ------------------------------------------------------------------ basic mode
 * compiler-rt's "naive" log (header type 0, versions 1..3): 32-byte records with an
 * absolute timestamp, read but never written by the runtime's FDR writer. An argument
 * record (record_type 1) follows an enter-with-argument record of the same function. */
#define FR_BASIC_RECORD_SIZE 32
enum { FR_BASIC_FUNCTION = 0, FR_BASIC_ARGUMENT = 1 };
struct fr_basic_record {
    uint16_t record_type;   /* FR_BASIC_FUNCTION */
    uint8_t  cpu;
    uint8_t  kind;          /* enum fr_xray_function_kind */
    int32_t  function_id;
    uint64_t tsc;
    uint32_t tid;
    uint32_t pid;
    uint8_t  padding[8];
} __attribute__((packed));
_Static_assert(sizeof(struct fr_basic_record) == FR_BASIC_RECORD_SIZE, "basic record size");
_Static_assert(offsetof(struct fr_basic_record, cpu) == 2, "basic record cpu");
_Static_assert(offsetof(struct fr_basic_record, kind) == 3, "basic record kind");
_Static_assert(offsetof(struct fr_basic_record, function_id) == 4, "basic record id");
_Static_assert(offsetof(struct fr_basic_record, tsc) == 8, "basic record tsc");
_Static_assert(offsetof(struct fr_basic_record, tid) == 16, "basic record tid");
_Static_assert(offsetof(struct fr_basic_record, pid) == 20, "basic record pid");
struct fr_basic_argument {
    uint16_t record_type;   /* FR_BASIC_ARGUMENT */
    uint8_t  padding0[2];
    int32_t  function_id;
    uint32_t tid;
    uint32_t pid;
    uint64_t arg;
    uint8_t  padding[8];
} __attribute__((packed));
_Static_assert(sizeof(struct fr_basic_argument) == FR_BASIC_RECORD_SIZE, "basic argument size");
_Static_assert(offsetof(struct fr_basic_argument, function_id) == 4, "basic argument id");
_Static_assert(offsetof(struct fr_basic_argument, tid) == 8, "basic argument tid");
_Static_assert(offsetof(struct fr_basic_argument, pid) == 12, "basic argument pid");
_Static_assert(offsetof(struct fr_basic_argument, arg) == 16, "basic argument arg");

#endif
