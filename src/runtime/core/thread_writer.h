/*
 * thread_writer.h - each thread's recording state (initial-exec TLS) and the record
 * paths that write XRay FDR records into the thread's current buffer.
 *
 * Hot path protocol (the order matters; docs/BUFFERS.md has the whole protocol):
 *   1. if busy: a record is being written on this thread (we are in a signal handler
 *      that interrupted it): drop, count, return. Otherwise set busy.
 *   2. read fr_recording (the session number while recording, 0 when stopped): 0 ->
 *      clear busy, return.
 *   3. read the clock and the CPU; if the session is not the thread state's, the CPU
 *      changed, the delta does not fit, or the buffer has less room than the record
 *      (a signed test: a detached state, pos > end, never passes): slow path (metadata
 *      record, new buffer, registration).
 *   4. write the record's bytes, then advance pos (a snapshot of pos is always the end
 *      of complete records), clear busy.
 * A signal handler that records between two records just appends to the same chain of
 * deltas, so its records are valid. The trampolines' fast path follows the same protocol
 * for function records (core/fast_record.h: which fields, which checks, which order).
 */
#ifndef FLIGHTREC_THREAD_WRITER_H
#define FLIGHTREC_THREAD_WRITER_H

#include <stdint.h>
#include <stddef.h>
#include "core/buffer_pool.h"
#include "core/visibility.h"

struct fr_thread {
    /* hot: touched by every record; the first cache line */
    uint8_t *pos;            /* next byte to write in the current buffer (NULL: none) */
    uint8_t *end;            /* end of the current buffer (NULL: none) */
    uint64_t last_tsc;       /* clock reading of the last record: deltas start here */
    uint32_t cpu;            /* raw rseq cpu_id the last NewCPUId was written for */
    uint32_t busy;           /* recursion guard; read by the finalizer (atomic stores) */
    uint32_t session;        /* recorder session this state belongs to (vs fr_recording) */
    uint32_t enter_run;      /* trailing function-enter records that may be rewound */
    uint64_t records;        /* records in the current buffer */
    uint64_t threshold_ticks;
    uint32_t rewind_enabled; /* 1 when threshold_us > 0 */
    uint32_t fast_session;   /* session when the trampolines' fast path may write this
                              * thread's function records, else 0 (fast_record.h) */
    /* cold */
    int32_t  slot;           /* thread descriptor index, -1 unregistered, -2 no slot */
    struct fr_hold hold;     /* the current buffer (index, generation) */
    uint32_t exhausted;      /* discard policy: no buffer left, drop everything */
    uint32_t had_buffer;     /* the thread had its first (small) buffer this session */
    uint32_t retry_countdown;/* records to drop before asking for a buffer/slot again */
    int32_t  tid;
    uint64_t dropped[FR_DROP_NCAUSES];
    uint64_t dropped_bytes;
    uint64_t below_threshold;
    /* the open event run (FR_TE_EVENT_RUN): its header, the end of its last entry (the run
     * is open while that is pos), that entry's clock reading. NULL when none. */
    uint8_t *run_hdr;
    uint8_t *run_end;
    uint64_t run_tsc;
    /* Kept across reset_thread_state, from key_set to the end (and busy, above). */
    uint32_t key_set;        /* pthread_setspecific done (exit destructor armed) */
    uint32_t exited;         /* thread-exit destructor ran: record nothing more */
    /* max_depth: open calls of this thread (recorded or not) in session depth_session;
     * kept, as reset_thread_state runs after the first record counted it */
    uint32_t call_depth;
    uint32_t depth_session;
    /* Records a signal handler dropped because it interrupted one of this thread's
     * (FR_DROP_NESTED), in session nested_session: kept apart from dropped[], since a
     * handler may count one while the interrupted record resets the state of an earlier
     * session (its first record of a session). */
    uint32_t nested_session;
    uint64_t nested_drops;
} __attribute__((aligned(FR_CACHE_LINE)));

/* A thread's records dropped for `cause` in its session (read by another thread too:
 * relaxed loads; FR_DROP_NESTED from nested_drops, see there). */
static inline uint64_t fr_thread_dropped(const struct fr_thread *t, int cause)
{
    if (cause != FR_DROP_NESTED)
        return __atomic_load_n(&t->dropped[cause], __ATOMIC_RELAXED);
    return __atomic_load_n(&t->nested_session, __ATOMIC_RELAXED) ==
                   __atomic_load_n(&t->session, __ATOMIC_RELAXED)
               ? __atomic_load_n(&t->nested_drops, __ATOMIC_RELAXED) : 0;
}

extern __thread struct fr_thread fr_tls __attribute__((tls_model("initial-exec"))) FR_HIDDEN;

/* Lifecycle support (lifecycle.c, fork.c, crash dumps). */
FR_HIDDEN int fr_writer_setup_key(void);

/* Starts a session: the session number + 1 (never 0), returned. */
FR_HIDDEN uint32_t fr_writer_new_session(void);

/* Stops every thread's writing into the pool and publishes each live thread's current
 * buffer and counters into the pool descriptors, so that the pool alone describes the
 * trace (log_writer.c). Call after fr_recording was set to 0 and every thread passed a
 * full barrier (membarrier). Lock-free and async-signal-safe (it may run in a
 * fatal-signal handler, on a thread that was inside a record: that thread's position is
 * the end of its whole records). A thread still inside a record after `max_yields`
 * sched_yield()s is left alone: its current buffer is not written (its records are
 * counted FR_DROP_UNFINISHED) and the pool is kept mapped at reset. Returns how many
 * threads were left so. */
FR_HIDDEN uint32_t fr_writer_stop_threads(uint32_t max_yields);

/* Waits until no thread is inside its exit work (fr_reset, after a new session number
 * made later exits leave the pool alone). */
FR_HIDDEN void fr_writer_wait_exits(void);

/* Forget the calling thread's buffers (fork child). */
FR_HIDDEN void fr_writer_forget_self(void);
/* Fork child: no other thread exists any more. */
FR_HIDDEN void fr_writer_after_fork(void);

/* Records dropped that belong to no thread slot (thread limit, after a thread's exit):
 * counted in fr_pool.recycled. */
static inline void fr_writer_drop_unowned(int cause)
{
    __atomic_fetch_add(&fr_pool.recycled[cause], 1, __ATOMIC_RELAXED);
}

#endif
