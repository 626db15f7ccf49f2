/*
 * fr_format.h - the bytes of a flightrec trace file.
 *
 * One file format: XRay FDR version 5 (so llvm-xray reads every file we write: its
 * records are fdr_records.h), plus records of our own (FR_TE_*) that carry what XRay has
 * no record for; how they are laid out in buffers and blocks is fr_block.h. Shared by the runtime (writer) and the reader library; nothing here allocates.
 * All multi-byte fields are little-endian and unaligned: read them with memcpy (or into
 * the packed structs below). docs/FORMAT.md describes every record and payload; this
 * header is the same description in C, with static asserts on every offset.
 */
#ifndef FLIGHTREC_FR_FORMAT_H
#define FLIGHTREC_FR_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include "fdr_records.h"   /* XRay's records: header, metadata, function records */

/* ------------------------------------------------------------------ flightrec records
 * What XRay has no record for (clock, process, drop counts, object and function tables,
 * structured events, gaps) is carried in records of our own, each with a type FR_TE_*
 * and a payload.
 *
 * Encoding ("enveloped"): an XRay custom event (FR_MD_CUSTOM_EVENT, v5:
 * i32 size, i32 tsc delta) whose payload is struct fr_te_envelope (the 10 bytes
 * "flightrec\0", then the u16 FR_TE_* type) followed by the FR_TE payload. Custom events,
 * not typed events: llvm-xray 14's record expander copies a typed event's type into every
 * later record of the same thread ("type: 61449" on every function record), while a
 * custom event leaves the type alone, so function records read "type: 0" as in
 * compiler-rt's files. llvm-xray shows our records as custom events and skips them in
 * its analyses.
 *
 * Legacy encoding (files written before the envelope): an XRay typed event
 * (FR_MD_TYPED_EVENT) whose u16 type is in [FR_TE_FIRST, FR_TE_LAST], payload as below.
 * Readers accept both; a reader treats a custom event as ours only when it begins with
 * the envelope and its type is in [FR_TE_FIRST, FR_TE_LAST], and ignores FR_TE types it
 * does not know.
 *
 * Placement: the writer puts one *metadata block* first in the file (right after the
 * header), with NewBuffer tid 0, holding CLOCK, PROCESS, SUMMARY, THREAD_STATS,
 * OBJECT, BUILD_ID, FUNCTION and (dumps) DUMP_CAUSE records, so a streaming reader knows names before it meets
 * function records. BLOCK_START, LOST and EVENT records appear in the threads' own
 * blocks. Readers must accept any of them anywhere.
 *
 * Payloads are packed, little-endian; "str16" is a u16 byte count followed by the bytes,
 * no terminator. Each payload is a fixed part (the struct below, possibly empty) and a
 * tail (enum fr_te_tail).
 */
#define FR_TE_FIRST         0xF000u
#define FR_TE_LAST          0xF0FFu

#define FR_TE_MAGIC         "flightrec"   /* with its NUL: FR_TE_MAGIC_SIZE bytes */
#define FR_TE_MAGIC_SIZE    10
struct fr_te_envelope {
    char     magic[FR_TE_MAGIC_SIZE];
    uint16_t type;                       /* FR_TE_* */
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_envelope) == 12, "envelope size");
_Static_assert(offsetof(struct fr_te_envelope, type) == 10, "envelope type");

/* A record of ours up to its payload: the custom event's metadata record and the
 * envelope; the whole record is FR_ENVELOPED_SIZE(payload bytes). */
#define FR_ENVELOPED_HEADER_SIZE (FR_XRAY_METADATA_SIZE + sizeof(struct fr_te_envelope))
#define FR_ENVELOPED_SIZE(payload) (FR_ENVELOPED_HEADER_SIZE + (payload))
/* Writes that header for a record of `type` with `size` payload bytes (which follow it)
 * at tsc delta `delta` (0 for every record but the runtime's own events). */
static inline void fr_te_header_put(uint8_t hdr[FR_ENVELOPED_HEADER_SIZE], uint16_t type, size_t size,
                                    int32_t delta)
{
    fr_md_put_custom_event(hdr, (struct fr_md_custom_event){
        .size = (int32_t)(sizeof(struct fr_te_envelope) + size), .tsc_delta = delta });
    struct fr_te_envelope e = { .magic = FR_TE_MAGIC, .type = type };
    __builtin_memcpy(hdr + FR_XRAY_METADATA_SIZE, &e, sizeof e);
}

/* FR_TE_CLOCK: how to turn file timestamps into time. */
struct fr_te_clock {
    uint32_t version;           /* 1 */
    uint32_t source;            /* FR_CLOCK_SOURCE_* */
    uint64_t ticks_per_second;
    uint64_t base_tsc;          /* clock reading at init: file timestamps count from here */
    int64_t  realtime_ns;       /* CLOCK_REALTIME at base_tsc */
    int64_t  monotonic_ns;      /* CLOCK_MONOTONIC at base_tsc */
} __attribute__((packed));
enum { FR_CLOCK_SOURCE_TSC = 0, FR_CLOCK_SOURCE_MONOTONIC = 1 };
_Static_assert(sizeof(struct fr_te_clock) == 40, "clock size");
_Static_assert(offsetof(struct fr_te_clock, source) == 4, "clock source");
_Static_assert(offsetof(struct fr_te_clock, ticks_per_second) == 8, "clock frequency");
_Static_assert(offsetof(struct fr_te_clock, base_tsc) == 16, "clock base");
_Static_assert(offsetof(struct fr_te_clock, realtime_ns) == 24, "clock realtime");
_Static_assert(offsetof(struct fr_te_clock, monotonic_ns) == 32, "clock monotonic");

/* FR_TE_PROCESS: then str16 name (comm); str16 executable path; str16 command line
 * (arguments separated by NUL bytes). */
struct fr_te_process {
    uint32_t pid;
    uint32_t ppid;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_process) == 8, "process size");
_Static_assert(offsetof(struct fr_te_process, ppid) == 4, "process ppid");

/* FR_TE_SUMMARY: the recording's configuration and totals. */
struct fr_te_summary {
    uint32_t version;           /* 1 */
    uint32_t policy;            /* FR_POLICY_* */
    uint64_t buffer_size;
    uint32_t buffers;
    uint32_t threads;
    uint64_t records_written;
    uint64_t records_dropped;
    uint64_t calls_below_threshold;
    uint64_t threshold_ticks;
} __attribute__((packed));
enum { FR_POLICY_OVERWRITE = 0, FR_POLICY_DISCARD = 1 };
_Static_assert(sizeof(struct fr_te_summary) == 56, "summary size");
_Static_assert(offsetof(struct fr_te_summary, policy) == 4, "summary policy");
_Static_assert(offsetof(struct fr_te_summary, buffer_size) == 8, "summary buffer size");
_Static_assert(offsetof(struct fr_te_summary, buffers) == 16, "summary buffers");
_Static_assert(offsetof(struct fr_te_summary, threads) == 20, "summary threads");
_Static_assert(offsetof(struct fr_te_summary, records_written) == 24, "summary written");
_Static_assert(offsetof(struct fr_te_summary, records_dropped) == 32, "summary dropped");
_Static_assert(offsetof(struct fr_te_summary, calls_below_threshold) == 40, "summary below");
_Static_assert(offsetof(struct fr_te_summary, threshold_ticks) == 48, "summary threshold");

/* FR_TE_THREAD_STATS: one per thread; then str16 thread name. */
struct fr_te_thread_stats {
    int32_t  tid;
    uint64_t records_written;
    uint64_t records_dropped;
    uint64_t bytes_dropped;
    uint64_t calls_below_threshold;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_thread_stats) == 36, "thread stats size");
_Static_assert(offsetof(struct fr_te_thread_stats, records_written) == 4, "stats written");
_Static_assert(offsetof(struct fr_te_thread_stats, records_dropped) == 12, "stats dropped");
_Static_assert(offsetof(struct fr_te_thread_stats, bytes_dropped) == 20, "stats bytes");
_Static_assert(offsetof(struct fr_te_thread_stats, calls_below_threshold) == 28, "stats below");

/* FR_TE_OBJECT: which loaded object a range of function ids belongs to (each object with
 * an xray_instr_map, or gcc-instrumented code); then str16 path. */
struct fr_te_object {
    uint32_t index;             /* 0 = the main executable */
    uint32_t first_id;
    uint32_t last_id;
    uint64_t load_bias;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_object) == 20, "object size");
_Static_assert(offsetof(struct fr_te_object, first_id) == 4, "object first id");
_Static_assert(offsetof(struct fr_te_object, last_id) == 8, "object last id");
_Static_assert(offsetof(struct fr_te_object, load_bias) == 12, "object bias");

/* FR_TE_BUILD_ID: the GNU build-id note of an FR_TE_OBJECT (after it, for objects that
 * have one); then str16 of the id's raw bytes (1 to FR_BUILD_ID_MAX). A reader compares
 * it with a --binary's own note: strip keeps the note, so a stripped copy of the traced
 * program is recognised, and a rebuilt one is told apart. */
#define FR_BUILD_ID_MAX 64
struct fr_te_build_id {
    uint32_t object;            /* FR_TE_OBJECT index */
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_build_id) == 4, "build id size");

/* FR_TE_SCHED: the thread was off the CPU (sched=1, `flightrec record --sched`): switched
 * out at the record's time minus off_ticks, back in at the record's time. Written by the
 * thread at its first record after it ran again, so it lies in the thread's history in
 * time order. */
#define FR_SCHED_PREEMPTED 0x1u   /* switched out while runnable (preempted), not blocked */
struct fr_te_sched {
    uint64_t off_ticks;         /* time off the CPU, in the file's ticks */
    uint32_t flags;             /* FR_SCHED_* */
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_sched) == 12, "sched size");

/* FR_TE_FUNCTION: then str16 name (may be empty: the reader then resolves the address
 * through the object's symbols). */
struct fr_te_function {
    uint32_t id;
    uint32_t object;            /* FR_TE_OBJECT index */
    uint64_t address;           /* at run time */
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_function) == 16, "function size");
_Static_assert(offsetof(struct fr_te_function, object) == 4, "function object");
_Static_assert(offsetof(struct fr_te_function, address) == 8, "function address");

/* FR_TE_EVENT: a structured event. No fixed part: the tracepoint name NUL-terminated
 * (e.g. "MyProvider_L4K1"), then the EventHeader event bytes exactly as user_events
 * would record them. */

/* FR_TE_EVENT_SITE: the static part of a structured event's call site, once per file (in
 * the metadata block), for the compact events of FR_TE_EVENT_RUN. Then, as FR_TE_EVENT's
 * payload: the tracepoint name NUL-terminated, then the EventHeader bytes every event of
 * the site starts with (8-byte header, metadata extension). Site ids count from 1 and are
 * at most FR_EVENT_SITE_MAX; the first record of an id wins. */
#define FR_EVENT_SITE_MAX 65535u
struct fr_te_event_site {
    uint32_t site;
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_event_site) == 4, "event site size");

/* FR_TE_EVENT_RUN: consecutive structured events of one thread, compact. No fixed part;
 * the payload is a sequence of entries, each three LEB128 varints then bytes:
 *   site << 1 | activity   site id (FR_TE_EVENT_SITE); activity: the bytes begin with the
 *                          EventHeader activity extension (4-byte block header, 16 or 32
 *                          bytes of ids) of this event
 *   delta                  ticks from the previous entry (the first: from the record's
 *                          own timestamp); the record's timestamp is the base of the
 *                          next XRay record's delta, as for any event
 *   size                   bytes that follow: [activity extension] field values
 * The event is the site's bytes with the activity extension (if any) after the 8-byte
 * header and the values after the metadata: FR_TE_EVENT's payload, byte for byte. The
 * runtime appends to the thread's last record while it is a run (docs/FORMAT.md). */
#define FR_EVENT_RUN_VARINT_MAX 10   /* bytes of a u64 LEB128 */
static inline size_t fr_varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}
/* Reads a varint from [p, end): bytes used, or 0 if it does not end in time or is longer
 * than 10 bytes or overflows 64 bits. */
static inline size_t fr_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < FR_EVENT_RUN_VARINT_MAX && p + i < end; i++) {
        if (i == 9 && p[i] > 1)
            return 0;
        x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

/* One entry of an event run at [p, end): its key, time delta and payload size varints,
 * then the payload (fr_record_event_entry writes it). Returns the entry's bytes, payload
 * included, or 0 when it does not end by `end` (torn or damaged); the header's bytes are
 * the result less *size. The one parse of the entry layout for the runtime's and the
 * reader's counts and the reader's decoding. */
static inline size_t fr_run_entry_get(const uint8_t *p, const uint8_t *end, uint64_t *key,
                                      uint64_t *delta, uint64_t *size)
{
    size_t a = fr_varint_get(p, end, key);
    size_t b = a ? fr_varint_get(p + a, end, delta) : 0;
    size_t c = b ? fr_varint_get(p + a + b, end, size) : 0;
    if (!c || *size > (uint64_t)(end - (p + a + b + c)))
        return 0;
    return a + b + c + (size_t)*size;
}

/* FR_TE_LOST: written where a thread's history has a gap (a ring overwrite boundary),
 * so readers can reset call stacks. */
struct fr_te_lost {
    uint64_t records;           /* records dropped here */
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_lost) == 8, "lost size");

/* FR_TE_BLOCK_START: the writer starts every thread block with NewCPUId(cpu, tsc 1), this
 * record (delta 0, so at tsc 1), then the block's real NewCPUId. `llvm-xray account`
 * visits threads in hash order and rejects any record older than the first one it saw,
 * so every thread's first record must carry the smallest timestamp of the file (file
 * timestamps count from init, and 0 means "unset" to it). The metadata block's records
 * also sit at tsc 1. */
struct fr_te_block_start {
    uint64_t tsc;               /* timestamp of the block's real NewCPUId */
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_block_start) == 8, "block start size");

/* FR_TE_DUMP_CAUSE: why this file was written from a signal or a snapshot rather than by
 * a normal flush. In the metadata block. */
struct fr_te_dump_cause {
    uint32_t version;           /* 1 */
    uint32_t cause;             /* FR_DUMP_* */
    int32_t  signal;            /* signal number, 0: none */
    int32_t  si_code;
    int32_t  tid;               /* thread that received it */
    uint32_t seq;               /* snapshots: sequence number, from 1 */
    uint64_t address;           /* si_addr of SIGSEGV/SIGBUS/SIGILL/SIGFPE/SIGTRAP, else 0 */
    uint64_t inconsistent;      /* records a snapshot could not capture consistently (0 for
                                   a dump that stopped recording first) */
} __attribute__((packed));
enum { FR_DUMP_FATAL_SIGNAL = 1, FR_DUMP_TERMINATION_SIGNAL = 2, FR_DUMP_SNAPSHOT = 3,
       FR_DUMP_RECOVERED = 4 /* `flightrec recover` from a backing file (docs/BACKING.md) */ };
_Static_assert(sizeof(struct fr_te_dump_cause) == 40, "dump cause size");
_Static_assert(offsetof(struct fr_te_dump_cause, cause) == 4, "dump cause cause");
_Static_assert(offsetof(struct fr_te_dump_cause, signal) == 8, "dump cause signal");
_Static_assert(offsetof(struct fr_te_dump_cause, si_code) == 12, "dump cause code");
_Static_assert(offsetof(struct fr_te_dump_cause, tid) == 16, "dump cause tid");
_Static_assert(offsetof(struct fr_te_dump_cause, seq) == 20, "dump cause seq");
_Static_assert(offsetof(struct fr_te_dump_cause, address) == 24, "dump cause address");
_Static_assert(offsetof(struct fr_te_dump_cause, inconsistent) == 32, "dump cause inconsistent");

/* FR_TE_DROPS: records dropped, by cause, of thread `tid` (0: the whole session,
 * including threads whose slot was reused and drops that belong to no thread). For a
 * session, records asked for = records_written + the sum of `cause` +
 * 2 x calls_below_threshold (FR_TE_SUMMARY). `ncauses` says how many entries are
 * meaningful (FR_DROP_NCAUSES when written); readers ignore causes they do not know. */
enum fr_drop_cause {
    FR_DROP_OVERWRITTEN  = 0, /* overwrite policy: older records replaced by newer ones */
    FR_DROP_FULL         = 1, /* no buffer to write into (discard policy: pool full) */
    FR_DROP_TOO_LARGE    = 2, /* an event larger than a buffer */
    FR_DROP_NESTED       = 3, /* made by a signal handler that interrupted a record */
    FR_DROP_THREAD_LIMIT = 4, /* more live threads than thread slots */
    FR_DROP_INVALID      = 5, /* empty event, or a program's event that looks like ours */
    FR_DROP_AFTER_EXIT   = 6, /* made by a thread after its exit began (TLS destructors) */
    FR_DROP_UNFINISHED   = 7, /* in the buffer of a thread still inside a record when
                                 recording stopped (that buffer is not written) */
    FR_DROP_STREAM_BEHIND = 8, /* stream=1, discard policy: every buffer was waiting for
                                  the stream writer (the disk slower than the program) */
    FR_DROP_NCAUSES      = 9
};
/* Each cause's name in messages (the runtime's stderr line, `flightrec info`) and its key
 * in JSON (`flightrec info --json`). */
struct fr_drop_cause_names { const char *text, *key; };
static inline struct fr_drop_cause_names fr_drop_cause_name(unsigned cause)
{
    static const struct fr_drop_cause_names names[FR_DROP_NCAUSES] = {
        [FR_DROP_OVERWRITTEN]  = {"overwritten by newer records", "overwritten"},
        [FR_DROP_FULL]         = {"no free buffer", "full"},
        [FR_DROP_TOO_LARGE]    = {"larger than a buffer", "too_large"},
        [FR_DROP_NESTED]       = {"nested in a signal handler", "nested"},
        [FR_DROP_THREAD_LIMIT] = {"beyond the thread limit", "thread_limit"},
        [FR_DROP_INVALID]      = {"invalid event", "invalid"},
        [FR_DROP_AFTER_EXIT]   = {"after thread exit", "after_exit"},
        [FR_DROP_UNFINISHED]   = {"thread inside a record at stop", "unfinished"},
        [FR_DROP_STREAM_BEHIND] = {"stream writer behind", "stream_behind"},
    };
    static const struct fr_drop_cause_names unknown = {"unknown cause", "unknown"};
    return cause < FR_DROP_NCAUSES ? names[cause] : unknown;
}
struct fr_te_drops {
    int32_t  tid;
    uint32_t ncauses;
    uint64_t cause[FR_DROP_NCAUSES];
} __attribute__((packed));
_Static_assert(sizeof(struct fr_te_drops) == 80, "drops size");
_Static_assert(offsetof(struct fr_te_drops, cause) == 8, "drops causes");

/* What follows a payload's fixed part. */
enum fr_te_tail {
    FR_TE_TAIL_NONE,            /* nothing: the payload is the struct */
    FR_TE_TAIL_STR16,           /* one str16 */
    FR_TE_TAIL_3_STR16,         /* three str16 */
    FR_TE_TAIL_EVENT,           /* NUL-terminated tracepoint name, then EventHeader bytes */
    FR_TE_TAIL_EVENT_RUN,       /* compact events (FR_TE_EVENT_RUN) */
};

/* Every FR_TE type, once: X(NAME, value, "name", fixed part size, tail). The constants
 * FR_TE_<NAME>, the names (dump, info, the reader's messages) and the payload sizes all
 * come from this list, so a type cannot be added without a name and a struct. */
#define FR_TE_TYPES(X)                                                                   \
    X(CLOCK,        0xF001u, "clock",        sizeof(struct fr_te_clock),        FR_TE_TAIL_NONE)    \
    X(PROCESS,      0xF002u, "process",      sizeof(struct fr_te_process),      FR_TE_TAIL_3_STR16) \
    X(SUMMARY,      0xF003u, "summary",      sizeof(struct fr_te_summary),      FR_TE_TAIL_NONE)    \
    X(THREAD_STATS, 0xF004u, "thread-stats", sizeof(struct fr_te_thread_stats), FR_TE_TAIL_STR16)   \
    X(OBJECT,       0xF005u, "object",       sizeof(struct fr_te_object),       FR_TE_TAIL_STR16)   \
    X(FUNCTION,     0xF006u, "function",     sizeof(struct fr_te_function),     FR_TE_TAIL_STR16)   \
    X(EVENT,        0xF007u, "event",        0,                                 FR_TE_TAIL_EVENT)   \
    X(LOST,         0xF008u, "lost",         sizeof(struct fr_te_lost),         FR_TE_TAIL_NONE)    \
    X(BLOCK_START,  0xF009u, "block-start",  sizeof(struct fr_te_block_start),  FR_TE_TAIL_NONE)    \
    X(DUMP_CAUSE,   0xF00Au, "dump-cause",   sizeof(struct fr_te_dump_cause),   FR_TE_TAIL_NONE)    \
    X(DROPS,        0xF010u, "drops",        sizeof(struct fr_te_drops),        FR_TE_TAIL_NONE)    \
    X(EVENT_SITE,   0xF011u, "event-site",   sizeof(struct fr_te_event_site),   FR_TE_TAIL_EVENT)   \
    X(EVENT_RUN,    0xF012u, "event-run",    0,                                 FR_TE_TAIL_EVENT_RUN) \
    X(BUILD_ID,     0xF013u, "build-id",     sizeof(struct fr_te_build_id),     FR_TE_TAIL_STR16)   \
    X(SCHED,        0xF01Cu, "sched",        sizeof(struct fr_te_sched),        FR_TE_TAIL_NONE)

enum fr_te_type {
#define FR_TE_ENUM_(n, v, s, size, tail) FR_TE_##n = v,
    FR_TE_TYPES(FR_TE_ENUM_)
#undef FR_TE_ENUM_
};

struct fr_te_desc {
    uint16_t      type;
    const char   *name;
    uint32_t      fixed_size;
    enum fr_te_tail tail;
};

/* The description of an FR_TE type, or NULL for a type we do not know. */
static inline const struct fr_te_desc *fr_te_describe(unsigned type)
{
    static const struct fr_te_desc table[] = {
#define FR_TE_DESC_(n, v, s, size, tail) { v, s, (uint32_t)(size), tail },
        FR_TE_TYPES(FR_TE_DESC_)
#undef FR_TE_DESC_
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].type == type)
            return &table[i];
    return NULL;
}

/* The name of an FR_TE type ("block-start"), or NULL. */
static inline const char *fr_te_name(unsigned type)
{
    const struct fr_te_desc *d = fr_te_describe(type);
    return d ? d->name : NULL;
}

/* The FR_TE type a custom event's payload carries, or 0 if the payload is not ours. */
static inline uint16_t fr_te_enveloped_type(const void *payload, size_t size)
{
    struct fr_te_envelope e;
    if (size < sizeof e)
        return 0;
    __builtin_memcpy(&e, payload, sizeof e);
    if (__builtin_memcmp(e.magic, FR_TE_MAGIC, FR_TE_MAGIC_SIZE) != 0 ||
        e.type < FR_TE_FIRST || e.type > FR_TE_LAST)
        return 0;
    return e.type;
}



#endif
