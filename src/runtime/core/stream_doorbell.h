/*
 * stream_doorbell.h - stream=1: how a thread that leaves a buffer tells the stream writer
 * (stream_writer.h) there is one to write, without waiting for it and, unless it sleeps,
 * without a system call (stream_doorbell.c).
 */
#ifndef FLIGHTREC_STREAM_DOORBELL_H
#define FLIGHTREC_STREAM_DOORBELL_H

#include <stdint.h>
#include "core/visibility.h"

/* Bumped (atomic) each time a buffer is published for the writer; the futex word. */
extern FR_HIDDEN uint32_t fr_stream_word;
/* 1 while the writer sleeps on fr_stream_word (atomic). */
extern FR_HIDDEN uint32_t fr_stream_sleeping;

FR_HIDDEN void fr_stream_wake(void);

/* Buffers published between two wakes of a sleeping writer (a quarter of the pool). */
extern FR_HIDDEN uint32_t fr_stream_batch;

/* After a thread left a buffer (slow path, thread exit): async-signal-safe. The writer is
 * woken once per fr_stream_batch buffers, not per buffer: each wake of a thread that
 * then preempts a recording one costs that thread a context switch and its cache. */
static inline void fr_stream_kick(void)
{
    uint32_t n = __atomic_add_fetch(&fr_stream_word, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&fr_stream_sleeping, __ATOMIC_SEQ_CST) &&
        n % __atomic_load_n(&fr_stream_batch, __ATOMIC_RELAXED) == 0)
        fr_stream_wake();
}

#endif
