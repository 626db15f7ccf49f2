/*
 * fr_block.h - how flightrec lays XRay records out: the preamble each of the recorder's
 * buffers starts with, and the head of each thread block of a trace file. Every writer of
 * a thread block (the runtime's log_writer.c, stream_writer.c and snapshot.c, and the
 * recovery's backing_recover.c) builds its head with fr_block_head_put, and the buffer
 * layout below is the one the runtime records into (thread_writer.c) and a backing file
 * holds (fr_backing.h). docs/FORMAT.md, "What the runtime writes, and why", says why the
 * head looks as it does. Static inline and async-signal-safe, like fdr_records.h.
 */
#ifndef FLIGHTREC_FR_BLOCK_H
#define FLIGHTREC_FR_BLOCK_H

#include <stddef.h>
#include <stdint.h>
#include "fr_format.h"

/* ------------------------------------------------------------------ a buffer
 * A buffer is a block's body as is: the preamble (NewBuffer, WalltimeMarker, Pid,
 * NewCPUId, at these offsets), then records. A later buffer of a thread joins the
 * thread's block without the first FR_BUFFER_HEAD_SKIP bytes: its NewCPUId (valid
 * anywhere in a block) restarts the delta chain. */
#define FR_PREAMBLE_NEW_BUFFER_AT 0
#define FR_PREAMBLE_WALLTIME_AT   (FR_PREAMBLE_NEW_BUFFER_AT + FR_XRAY_METADATA_SIZE)
#define FR_PREAMBLE_PID_AT        (FR_PREAMBLE_WALLTIME_AT + FR_XRAY_METADATA_SIZE)
#define FR_PREAMBLE_NEW_CPU_AT    (FR_PREAMBLE_PID_AT + FR_XRAY_METADATA_SIZE)
#define FR_BUFFER_PREAMBLE        (FR_PREAMBLE_NEW_CPU_AT + FR_XRAY_METADATA_SIZE)
#define FR_BUFFER_HEAD_SKIP       FR_PREAMBLE_NEW_CPU_AT
_Static_assert(FR_BUFFER_PREAMBLE == 64, "preamble: four metadata records");
_Static_assert(FR_BUFFER_HEAD_SKIP == 48, "a later buffer keeps its NewCPUId");

/* The preamble of a buffer of thread `tid` starting at `tsc` on `cpu`. */
static inline void fr_preamble_put(uint8_t *p, int32_t tid, struct fr_md_walltime walltime,
                                   int32_t pid, uint16_t cpu, uint64_t tsc)
{
    fr_md_put_new_buffer(p + FR_PREAMBLE_NEW_BUFFER_AT, (struct fr_md_new_buffer){ tid });
    fr_md_put_walltime(p + FR_PREAMBLE_WALLTIME_AT, walltime);
    fr_md_put_pid(p + FR_PREAMBLE_PID_AT, (struct fr_md_pid){ pid });
    fr_md_put_new_cpu_id(p + FR_PREAMBLE_NEW_CPU_AT, (struct fr_md_new_cpu_id){ cpu, tsc });
}

/* Whether p[0, FR_BUFFER_PREAMBLE) is a preamble (its four kinds in order) of thread tid. */
static inline int fr_preamble_ok(const uint8_t *p, int32_t tid)
{
    return p[FR_PREAMBLE_NEW_BUFFER_AT] == FR_MD_BYTE0(FR_MD_NEW_BUFFER) &&
           fr_md_get_new_buffer(p + FR_PREAMBLE_NEW_BUFFER_AT).tid == tid &&
           p[FR_PREAMBLE_WALLTIME_AT] == FR_MD_BYTE0(FR_MD_WALLTIME_MARKER) &&
           p[FR_PREAMBLE_PID_AT] == FR_MD_BYTE0(FR_MD_PID) &&
           p[FR_PREAMBLE_NEW_CPU_AT] == FR_MD_BYTE0(FR_MD_NEW_CPU_ID);
}

/* The timestamp a buffer starts at: its preamble's NewCPUId's. */
static inline uint64_t fr_preamble_tsc(const uint8_t *p)
{
    return fr_md_get_new_cpu_id(p + FR_PREAMBLE_NEW_CPU_AT).tsc;
}

/* ------------------------------------------------------------------ a thread block
 * BufferExtents, then the head: the first buffer's NewBuffer, WalltimeMarker and Pid; its
 * NewCPUId with timestamp 1; FR_TE_BLOCK_START (delta 0, so at timestamp 1) carrying the
 * real timestamp; the real NewCPUId. Then the first buffer's records, an FR_TE_LOST
 * first when the thread's history has a gap there, and the later buffers less their
 * FR_BUFFER_HEAD_SKIP bytes. fr_format.h's FR_TE_BLOCK_START says why timestamp 1. */
#define FR_BLOCK_HEAD_SIZE \
    (FR_BUFFER_PREAMBLE + FR_XRAY_METADATA_SIZE + FR_ENVELOPED_SIZE(sizeof(struct fr_te_block_start)))
/* What the head adds to the first buffer's bytes, for the block's BufferExtents. */
#define FR_BLOCK_HEAD_EXTRA (FR_BLOCK_HEAD_SIZE - FR_BUFFER_PREAMBLE)
#define FR_LOST_RECORD_SIZE FR_ENVELOPED_SIZE(sizeof(struct fr_te_lost))

/* The head of a block whose first buffer starts with `preamble`. `walltime`: NULL to keep
 * the buffer's WalltimeMarker, else the one to write instead (a streamed file's blocks
 * carry a sequence there: docs/FORMAT.md); the records' padding bytes are kept as the
 * buffer has them either way. */
static inline void fr_block_head_put(uint8_t head[FR_BLOCK_HEAD_SIZE], const uint8_t *preamble,
                                     const struct fr_md_walltime *walltime)
{
    __builtin_memcpy(head, preamble, FR_BUFFER_HEAD_SKIP);   /* NewBuffer, WalltimeMarker, Pid */
    if (walltime)
        __builtin_memcpy(head + FR_PREAMBLE_WALLTIME_AT + FR_MD_PAYLOAD_AT, walltime,
                         sizeof *walltime);
    const uint8_t *real = preamble + FR_PREAMBLE_NEW_CPU_AT;
    uint8_t *q = head + FR_PREAMBLE_NEW_CPU_AT;
    uint64_t one = 1;
    __builtin_memcpy(q, real, FR_XRAY_METADATA_SIZE);
    __builtin_memcpy(q + FR_MD_FIELD_AT(fr_md_new_cpu_id, tsc), &one, sizeof one);
    q += FR_XRAY_METADATA_SIZE;
    struct fr_te_block_start bs = { .tsc = fr_preamble_tsc(preamble) };
    fr_te_header_put(q, FR_TE_BLOCK_START, sizeof bs, 0);
    q += FR_ENVELOPED_HEADER_SIZE;
    __builtin_memcpy(q, &bs, sizeof bs);
    q += sizeof bs;
    __builtin_memcpy(q, real, FR_XRAY_METADATA_SIZE);
}

#endif
