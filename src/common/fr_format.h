/*
 * fr_format.h - the bytes of a flightrec trace file.
 *
 * One file format: XRay FDR version 5 (so llvm-xray reads every file we write), plus
 * typed events with type ids of our own (FR_TE_*) that carry what XRay has no record
 * for. Shared by the runtime (writer) and the reader library; nothing here allocates.
 * All multi-byte fields are little-endian and unaligned: read them with memcpy.
 * See ../../shared/design/README.md section 3 for the llvm-xray 14 rules a writer obeys.
 */
#ifndef FLIGHTREC_FR_FORMAT_H
#define FLIGHTREC_FR_FORMAT_H

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

/* ------------------------------------------------------------------ metadata records
 * 16 bytes: byte 0 = (kind << 1) | 1, payload in bytes 1..15. */
#define FR_XRAY_METADATA_SIZE 16
enum fr_xray_metadata_kind {
    FR_MD_NEW_BUFFER        = 0, /* i32 tid */
    FR_MD_END_OF_BUFFER     = 1, /* pre-v2 files only */
    FR_MD_NEW_CPU_ID        = 2, /* u16 cpu, u64 tsc */
    FR_MD_TSC_WRAP          = 3, /* u64 tsc */
    FR_MD_WALLTIME_MARKER   = 4, /* i64 seconds, i32 microseconds */
    FR_MD_CUSTOM_EVENT      = 5, /* i32 size, i32 tsc delta (v5), then `size` payload bytes */
    FR_MD_CALL_ARGUMENT     = 6, /* u64 argument of the preceding enter-with-argument */
    FR_MD_BUFFER_EXTENTS    = 7, /* u64 number of bytes that follow in this block */
    FR_MD_TYPED_EVENT       = 8, /* i32 size, i32 tsc delta, u16 type, then payload */
    FR_MD_PID               = 9, /* i32 pid */
};
#define FR_MD_BYTE0(kind) ((uint8_t)(((kind) << 1) | 1))

/* ------------------------------------------------------------------ function records
 * 8 bytes: u32 = 0 (bit0) | kind << 1 (3 bits) | function id << 4 (28 bits); u32 tsc delta. */
#define FR_XRAY_FUNCTION_RECORD_SIZE 8
enum fr_xray_function_kind {
    FR_FN_ENTER      = 0,
    FR_FN_EXIT       = 1,
    FR_FN_TAIL_EXIT  = 2,
    FR_FN_ENTER_ARG  = 3,
};
#define FR_XRAY_MAX_FUNCTION_ID ((1u << 28) - 1)
static inline uint32_t fr_function_record_word(uint32_t id, unsigned kind)
{
    return (id << 4) | ((uint32_t)kind << 1);
}

/* ------------------------------------------------------------------ flightrec typed events
 * XRay typed events (FR_MD_TYPED_EVENT) whose u16 type is in [FR_TE_FIRST, FR_TE_LAST]
 * are ours. llvm-xray skips them. Payloads are packed, little-endian; strings are a
 * u16 byte count followed by the bytes, no terminator ("str16" below).
 *
 * Placement: the writer puts one *metadata block* first in the file (right after the
 * header), with NewBuffer tid 0, holding CLOCK, PROCESS, SUMMARY, THREAD_STATS,
 * OBJECT and FUNCTION events, so a streaming reader knows names before it meets
 * records. FR_TE_EVENT records appear in the threads' own blocks, where they happened.
 * Readers must accept any of them anywhere, and ignore unknown FR_TE_* types.
 */
#define FR_TE_FIRST         0xF000u
#define FR_TE_LAST          0xF0FFu

#define FR_TE_CLOCK         0xF001u
/* u32 version (1); u32 source (FR_CLOCK_SOURCE_*); u64 ticks_per_second;
 * u64 base_tsc (clock reading at init: deltas in the file start here);
 * i64 realtime_ns at base_tsc; i64 monotonic_ns at base_tsc */
enum { FR_CLOCK_SOURCE_TSC = 0, FR_CLOCK_SOURCE_MONOTONIC = 1 };

#define FR_TE_PROCESS       0xF002u
/* u32 pid; u32 ppid; str16 name (comm); str16 executable path; str16 command line
 * (arguments separated by NUL bytes) */

#define FR_TE_SUMMARY       0xF003u
/* u32 version (1); u32 policy (FR_POLICY_*); u64 buffer_size; u32 buffers;
 * u32 threads; u64 records_written; u64 records_dropped; u64 calls_below_threshold;
 * u64 threshold_ticks */
enum { FR_POLICY_OVERWRITE = 0, FR_POLICY_DISCARD = 1 };

#define FR_TE_THREAD_STATS  0xF004u
/* i32 tid; u64 records_written; u64 records_dropped; u64 bytes_dropped;
 * u64 calls_below_threshold; str16 thread name */

#define FR_TE_OBJECT        0xF005u
/* u32 object index (0 = main executable); u32 first function id; u32 last function id;
 * u64 load bias; str16 path.  Says which loaded object a range of function ids
 * belongs to (each object with an xray_instr_map, or gcc-instrumented code). */

#define FR_TE_FUNCTION      0xF006u
/* u32 function id; u32 object index; u64 runtime address; str16 name (may be empty:
 * then the reader resolves the address through the object's symbols) */

#define FR_TE_EVENT         0xF007u
/* A structured event: tracepoint name NUL-terminated (e.g. "MyProvider_L4K1"), then
 * the EventHeader event bytes exactly as user_events would record them. */

#define FR_TE_LOST          0xF008u
/* u64 records dropped here: written where a thread's history has a gap (discard mode
 * once room returns, or a ring overwrite boundary), so readers can reset call stacks. */

#define FR_TE_BLOCK_START   0xF009u
/* u64 timestamp of the block's real NewCPUId (llvm-xray rejects empty typed events). The writer starts every block with NewCPUId(cpu, tsc 1), this event,
 * then the block's real NewCPUId: `llvm-xray account` visits threads in hash order and
 * rejects any record older than the first one it saw, so every thread's first record
 * must carry the smallest timestamp of the file (file timestamps count from init, and
 * 0 means "unset" to it). The metadata block's events also sit at tsc 1. */

#define FR_TE_DUMP_CAUSE    0xF00Au
/* Why this file was written from a signal or a snapshot rather than by a normal flush:
 * u32 version (1); u32 cause (FR_DUMP_*); i32 signal number (0: none); i32 si_code;
 * i32 tid of the thread that received it; u32 sequence number (snapshots, from 1);
 * u64 faulting address (si_addr of SIGSEGV/SIGBUS/SIGILL/SIGFPE/SIGTRAP, else 0);
 * u64 records a snapshot could not capture consistently (0 for a dump that stopped
 * recording first). In the metadata block. */
enum { FR_DUMP_FATAL_SIGNAL = 1, FR_DUMP_TERMINATION_SIGNAL = 2, FR_DUMP_SNAPSHOT = 3 };

#endif
