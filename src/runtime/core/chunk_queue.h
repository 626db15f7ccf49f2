/*
 * chunk_queue.h - a bounded first-in-first-out queue of 64-bit values (a buffer's index
 * and generation) that any number of threads push and pop without a lock, in memory the
 * caller provides (a part of the pool's one mapping: no allocation, no pointer inside).
 *
 * The pool keeps two: the buffers that were given back FREE (the stream writer's), and
 * the buffers that became complete (FULL or RETIRED), in the order they completed, so
 * that the overwrite policy takes the one whose newest record is the oldest in the pool
 * in O(1) instead of scanning every descriptor (buffer_pool.c, docs/BUFFERS.md).
 *
 * Each cell carries a sequence number that says whose turn it is (the cell is free for
 * the push at position p when seq == p, holds a value for the pop at p when
 * seq == p + 1); a push or pop claims its position with a compare-and-swap on the
 * shared tail or head, then publishes the cell with a release store. A thread stopped
 * between the two (preempted, or interrupted by a signal handler that pushes or pops
 * itself) makes the cell look not yet filled: a pop then answers "empty" for now, never
 * a wrong value, and the caller falls back on a scan of the descriptors. Entries may be
 * stale (the buffer changed hands by another way since): the popper checks the
 * buffer's ownership word before using one.
 */
#ifndef FLIGHTREC_CHUNK_QUEUE_H
#define FLIGHTREC_CHUNK_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include "core/visibility.h"

struct fr_queue_cell {
    uint64_t seq;     /* atomic: the turn, see above, minus the cell's index */
    uint64_t value;
};

struct fr_chunk_queue {
    uint64_t head;    /* atomic: next position to pop */
    uint64_t pad0[7]; /* head and tail on their own cache lines */
    uint64_t tail;    /* atomic: next position to push */
    uint64_t pad1[7];
    uint64_t mask;    /* cells - 1 (cells: a power of two) */
    struct fr_queue_cell *cells;
};

/* Cells a queue needs to hold `n` entries: the next power of two >= n (at least 2).
 * Inline: the command sizes the pool with it too (pool_budget.c). */
static inline uint64_t fr_queue_cells_for(uint64_t n)
{
    uint64_t c = 2;
    while (c < n)
        c <<= 1;
    return c;
}
/* Makes q empty over `cells` cells (a power of two) at `mem`, which must be zeroed
 * (as a new mapping is). Not concurrent. */
FR_HIDDEN void fr_queue_init(struct fr_chunk_queue *q, struct fr_queue_cell *mem, uint64_t cells);
/* 0, or -1 when the queue is full. Lock-free, async-signal-safe. */
FR_HIDDEN int fr_queue_push(struct fr_chunk_queue *q, uint64_t value);
/* 0 with *value, or -1 when empty (or the next cell is still being filled). */
FR_HIDDEN int fr_queue_pop(struct fr_chunk_queue *q, uint64_t *value);

#endif
