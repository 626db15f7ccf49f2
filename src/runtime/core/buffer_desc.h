/*
 * buffer_desc.h - the pool's descriptors as they lie in its mapping (and in a backing
 * file, fr_backing.h): a buffer's ownership word and counts, a thread slot's state and
 * counters, and the constants that size them. Types only: the pool (buffer_pool.h), its
 * budget (pool_budget.c) and the backing file's layout checks share them.
 */
#ifndef FLIGHTREC_BUFFER_DESC_H
#define FLIGHTREC_BUFFER_DESC_H

#include <stddef.h>
#include <stdint.h>
#include "fr_format.h"   /* FR_DROP_NCAUSES */

#define FR_MAX_THREADS       32768 /* thread slots: live threads, plus exited ones whose
                                     records are still in the pool */
#define FR_CACHE_LINE        64

/* Buffer states (low 8 bits of the ownership word). */
enum fr_buffer_state {
    FR_BUF_FREE    = 0, /* nobody's; holds nothing */
    FR_BUF_CURRENT = 1, /* its owner thread is writing it: only the owner touches it */
    FR_BUF_FULL    = 2, /* an older buffer of a live owner: complete, may be taken */
    FR_BUF_RETIRED = 3, /* its owner exited: complete, kept for the file */
    FR_BUF_WRITING = 4, /* stream=1: the stream writer is appending it to the file; no
                           thread may take it; FREE once written (stream_writer.c) */
    FR_BUF_PACK    = 5, /* a buffer whose space is lent to FR_SMALL_PER_BUFFER small
                           buffers (descriptors of their own); FREE when they all are */
};

/* Small buffers: a thread's first buffer is an eighth of a buffer (its own descriptor,
 * its own preamble), so that a short thread costs what it wrote, not a whole buffer
 * (docs/BUFFERS.md, "Small first buffers"). None when an eighth is below FR_SMALL_MIN. */
#define FR_SMALL_PER_BUFFER 8
#define FR_SMALL_MIN        256

static inline uint32_t fr_pool_small_per(size_t buffer_size)
{
    return ((buffer_size / FR_SMALL_PER_BUFFER) & ~(size_t)7) >= FR_SMALL_MIN ? FR_SMALL_PER_BUFFER : 0;
}

/* Ownership word: state | owner slot << 8 | generation << 32. The generation counts
 * hand-outs of this buffer: a thread holds (index, generation), so a word that changed
 * under it is noticed by a failed compare-and-swap. */
#define FR_OWN(state, slot, gen) ((uint64_t)(state) | (uint64_t)(slot) << 8 | (uint64_t)(gen) << 32)
#define FR_OWN_STATE(w)  ((uint32_t)((w) & 0xff))
#define FR_OWN_SLOT(w)   ((uint32_t)(((w) >> 8) & 0xffffff))
#define FR_OWN_GEN(w)    ((uint32_t)((w) >> 32))

struct fr_buffer_desc {
    uint64_t own;       /* ownership word (atomic, changed by CAS only) */
    uint64_t seq;       /* global hand-out order: a thread's buffers sort by it */
    uint64_t used;      /* bytes of records; published (release on `own`) when the
                           buffer leaves CURRENT, 0 while CURRENT */
    uint64_t records;   /* records in [0, used), same rule */
};

enum fr_thread_state {
    FR_THREAD_UNUSED = 0,  /* free slot */
    FR_THREAD_LIVE   = 1,  /* a running thread */
    FR_THREAD_EXITED = 2,  /* exited; its RETIRED buffers are still in the pool */
};

/* Drop causes: fr_format.h enum fr_drop_cause (FR_TE_DROPS). */

struct fr_thread;
struct fr_thread_desc {
    uint32_t state;        /* enum fr_thread_state (atomic) */
    int32_t  tid;
    uint32_t refs;         /* buffers naming this slot + 1 while the thread lives
                              (atomic); an EXITED slot at 0 may be reused */
    uint32_t readers;      /* fr_pool_pin holders (atomic): `live` stays valid */
    struct fr_thread *live;/* the thread's TLS state while it lives (atomic) */
    uint64_t pthread;      /* pthread_t, for its name at finalize */
    /* The thread's own counters, published at exit or finalize. */
    uint64_t dropped[FR_DROP_NCAUSES];
    uint64_t bytes_dropped;
    uint64_t calls_below_threshold;
    /* Records of this thread's buffers taken by other threads (atomic): lost at the
     * start of its history. */
    uint64_t taken_records;
    uint64_t taken_bytes;
    /* stream=1 (atomic): records of this slot's buffers already in the file. (The stream
     * writer marks each gap with FR_TE_LOST from taken_records, which counts the records
     * of this slot's buffers that any thread, its own included, took to overwrite.) */
    uint64_t streamed;
    uint64_t reserved;          /* 0 (backing files: once overwritten_own, never counted) */
    char     name[16];
};

#endif
