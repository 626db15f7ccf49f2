/*
 * buffer_pool.h - the recorder's memory: a fixed number of fixed-size buffers and the
 * descriptors of the buffers and of the threads that own them, in one mapping made (and
 * pre-faulted) at init.
 *
 * The layout holds no pointers, only indices and byte counts, so that the same mapping
 * could be a file-backed MAP_SHARED one (a trace that survives SIGKILL) and so that the
 * writer can run from a fatal-signal handler: nothing here needs malloc or a lock.
 *
 * Each buffer holds raw XRay FDR v5 records and starts with the block preamble
 * (NewBuffer, WalltimeMarker, Pid, NewCPUId: FR_BUFFER_PREAMBLE bytes), so a buffer is a
 * block's body as is; the writer adds BufferExtents.
 *
 * Ownership: a buffer is FREE, OWNED by a live thread (its current buffer or an older one
 * of its ring), or RETIRED (its thread exited; the data is kept for the file). State
 * changes are compare-and-swaps (buffer hand-out is off the per-record path); the other
 * fields of a descriptor are written only by the thread that won it.
 */
#ifndef FLIGHTREC_BUFFER_POOL_H
#define FLIGHTREC_BUFFER_POOL_H

#include <stddef.h>
#include <stdint.h>
#include "core/options.h"
#include "core/visibility.h"

#define FR_BUFFER_PREAMBLE   64  /* NewBuffer + WalltimeMarker + Pid + NewCPUId */
#define FR_BUFFER_HEAD_SKIP  48  /* bytes a later buffer of a thread's block leaves out */
#define FR_MAX_THREADS       4096

enum fr_buffer_state { FR_BUF_FREE = 0, FR_BUF_OWNED = 1, FR_BUF_RETIRED = 2 };
enum fr_thread_state { FR_THREAD_UNUSED = 0, FR_THREAD_LIVE = 1, FR_THREAD_EXITED = 2 };

struct fr_buffer_desc {
    uint32_t state;     /* enum fr_buffer_state (atomic) */
    uint32_t thread;    /* owning thread slot (atomic relaxed: scanned by others) */
    uint64_t seq;       /* global hand-out order: a thread's buffers sort by it */
    uint64_t used;      /* bytes of records, valid once the buffer is left or at finalize */
    uint64_t records;   /* records in [0, used); both atomic relaxed (fr_get_stats reads) */
};

struct fr_thread_desc {
    uint32_t state;     /* enum fr_thread_state (atomic) */
    int32_t  tid;
    struct fr_thread *live;   /* the thread's TLS state while it lives (atomic) */
    uint64_t pthread;         /* pthread_t, for its name at finalize */
    /* Snapshot of the thread's counters (at exit or finalize). */
    uint64_t records_dropped; /* refused (full, nested, too big) + own ring overwrites */
    uint64_t records_overwritten; /* of which own ring overwrites (a gap at the start) */
    uint64_t bytes_dropped;
    uint64_t calls_below_threshold;
    /* Added by other threads reclaiming this (exited) thread's buffers (atomic). */
    uint64_t reclaimed_records;
    uint64_t reclaimed_bytes;
    char     name[16];
};

struct fr_pool {
    void    *map;
    size_t   map_size;
    uint8_t *data;              /* nbuf * buffer_size bytes */
    size_t   buffer_size;
    uint32_t nbuf;
    int      policy;
    struct fr_buffer_desc *bufs;
    struct fr_thread_desc *threads;
    uint32_t *scratch;          /* nbuf entries: the writer sorts a thread's buffers here */
    uint32_t nthreads;          /* slots claimed (atomic) */
    uint32_t live_threads;      /* registered and not exited (atomic) */
    uint64_t next_seq;          /* atomic */
    uint32_t hint;              /* where the next free-buffer scan starts (atomic) */
    uint64_t untracked_drops;   /* records of threads beyond FR_MAX_THREADS (atomic) */
};

extern FR_HIDDEN struct fr_pool fr_pool;

/* Maps and pre-faults everything; 0 or -1 (errno). */
FR_HIDDEN int  fr_pool_create(const struct fr_options *o);
FR_HIDDEN void fr_pool_destroy(void);
/* Forgets every buffer and thread (fork child): memory stays mapped. */
FR_HIDDEN void fr_pool_clear(void);

static inline uint8_t *fr_pool_buffer(uint32_t idx)
{
    return fr_pool.data + (size_t)idx * fr_pool.buffer_size;
}

/* Takes a FREE buffer for thread `slot`; returns its index or -1. */
FR_HIDDEN int fr_pool_take_free(uint32_t slot);
/* Overwrite policy: takes the oldest RETIRED buffer (an exited thread's history),
 * charging its records as dropped to that thread; -1 if none. */
FR_HIDDEN int fr_pool_reclaim_retired(uint32_t slot);
/* The oldest buffer OWNED by `slot`, or -1. */
FR_HIDDEN int fr_pool_oldest_owned(uint32_t slot);
/* Stamps a buffer just taken or recycled as the newest of its owner. */
FR_HIDDEN void fr_pool_stamp(uint32_t idx, uint32_t slot);
/* Every buffer of `slot`: OWNED -> RETIRED (thread exit). */
FR_HIDDEN void fr_pool_retire_thread(uint32_t slot);
/* Buffers that hold data (OWNED or RETIRED) of every thread slot with this tid (one,
 * unless the kernel reused a tid), oldest first, into out[] (fr_pool.scratch is big
 * enough); returns how many. */
FR_HIDDEN uint32_t fr_pool_tid_buffers(int32_t tid, uint32_t *out);

#endif
