/*
 * thread_writer.h - each thread's recording state (initial-exec TLS) and the record
 * paths that write XRay FDR records into the thread's current buffer.
 *
 * Hot path protocol (the order matters, see lifecycle.c fr_finalize):
 *   1. if busy: a record is being written on this thread (we are in a signal handler
 *      that interrupted it): drop, count, return. Otherwise set busy.
 *   2. if the recorder is not recording: clear busy, return.
 *   3. read the clock and the CPU; if the CPU changed, the delta does not fit, or the
 *      buffer has no room: slow path (metadata record, new buffer, registration).
 *   4. write the record's bytes, then advance pos (a snapshot of pos is always the end
 *      of complete records), clear busy.
 * A signal handler that records between two records just appends to the same chain of
 * deltas, so its records are valid.
 */
#ifndef FLIGHTREC_THREAD_WRITER_H
#define FLIGHTREC_THREAD_WRITER_H

#include <stdint.h>
#include <stddef.h>
#include "core/visibility.h"

struct fr_thread {
    /* hot: touched by every record */
    uint8_t *pos;            /* next byte to write in the current buffer (NULL: none) */
    uint8_t *end;            /* end of the current buffer */
    uint64_t last_tsc;       /* clock reading of the last record: deltas start here */
    uint32_t cpu;            /* raw rseq cpu_id the last NewCPUId was written for */
    uint32_t busy;           /* recursion guard; read by fr_finalize (atomic stores) */
    uint64_t records;        /* records in the current buffer */
    uint32_t enter_run;      /* trailing function-enter records that may be rewound */
    uint32_t rewind_enabled; /* 1 when threshold_us > 0 */
    uint64_t threshold_ticks;
    /* cold */
    int32_t  cur;            /* current buffer index, -1 none */
    int32_t  slot;           /* thread descriptor index, -1 unregistered, -2 untracked */
    uint32_t session;        /* recorder session this state belongs to */
    uint32_t exhausted;      /* discard policy: no buffer left, drop everything */
    uint32_t exited;         /* thread-exit destructor ran: record nothing more */
    uint32_t key_set;        /* pthread_setspecific done (exit destructor armed) */
    uint32_t retry_countdown;/* overwrite: records to drop before asking for a buffer again */
    uint32_t held;           /* buffers this thread owns */
    int32_t  tid;
    uint64_t dropped_records;
    uint64_t overwritten;    /* of dropped_records: lost to own ring overwrites */
    uint64_t dropped_bytes;
    uint64_t nested_drops;   /* records refused by the recursion guard */
    uint64_t below_threshold;
};

extern __thread struct fr_thread fr_tls __attribute__((tls_model("initial-exec"))) FR_HIDDEN;

/* Current recorder session (incremented by each init and in a fork child). */
extern FR_HIDDEN uint32_t fr_session;

/* Lifecycle support (lifecycle.c, fork.c). */
FR_HIDDEN int  fr_writer_setup_key(void);
/* Publishes t's current buffer and counters into the pool descriptors and detaches t
 * from its buffers. Caller holds the registry lock; t is quiescent. */
FR_HIDDEN void fr_writer_snapshot(struct fr_thread *t);
/* Forget the calling thread's buffers (fork child). */
FR_HIDDEN void fr_writer_forget_self(void);

#endif
