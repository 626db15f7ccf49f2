/*
 * buffer_pool.h - the recorder's memory: a fixed number of fixed-size buffers and the
 * descriptors of the buffers and of the threads that own them, in one mapping made at
 * init; and the policy that decides which buffer a thread writes next.
 *
 * The layout holds no pointers, only indices and byte counts, so that the same mapping
 * could be a file-backed MAP_SHARED one (a trace that survives SIGKILL) and so that the
 * writer can run from a fatal-signal handler: nothing here needs malloc or a lock.
 *
 * Each buffer holds raw XRay FDR v5 records and starts with the block preamble
 * (NewBuffer, WalltimeMarker, Pid, NewCPUId: FR_BUFFER_PREAMBLE bytes, fr_block.h), so a
 * buffer is a block's body as is; the writer adds BufferExtents.
 *
 * The protocol (states, who may write what, memory orderings) is docs/BUFFERS.md. In
 * short: a buffer's ownership is ONE atomic word (state, owner slot, generation) changed
 * only by compare-and-swap, so no two threads can ever own one buffer; a buffer in state
 * CURRENT is written by its owner only; its byte count is published (release) when it
 * leaves CURRENT, and whoever takes it next reads that count after an acquiring CAS.
 */
#ifndef FLIGHTREC_BUFFER_POOL_H
#define FLIGHTREC_BUFFER_POOL_H

#include <stddef.h>
#include <stdint.h>
#include "core/buffer_desc.h"
#include "core/chunk_queue.h"
#include "core/options.h"
#include "core/visibility.h"
#include "fr_block.h"   /* FR_BUFFER_PREAMBLE, FR_BUFFER_HEAD_SKIP: a buffer's layout */

struct fr_pool {
    void    *map;
    size_t   map_size;
    uint8_t *data;              /* nbuf * buffer_size bytes */
    size_t   buffer_size;
    uint32_t nbuf;
    uint32_t ndesc;             /* descriptors: nbuf buffers, then small_per per buffer */
    uint32_t small_per;         /* small buffers per buffer (0: none) */
    size_t   small_size;        /* their bytes */
    uint64_t pack;              /* atomic: the buffer small ones come from now, index + 1
                                   (0: none), | the next small one's number << 32 */
    int      policy;
    int      stream;            /* stream=1: FULL buffers go to the file and come back FREE */
    struct fr_buffer_desc *bufs;
    struct fr_thread_desc *threads;
    uint32_t *scratch;          /* nbuf entries: the writer sorts a thread's buffers here */
    uint32_t nthreads;          /* high-water mark of slots ever claimed (atomic) */
    uint32_t live_threads;      /* registered and not exited (atomic) */
    uint32_t slot_next;         /* the next slot to look at, modulo FR_MAX_THREADS:
                                   a ticket counter (atomic) */
    uint32_t fresh;             /* buffers [fresh, nbuf) were never handed out (atomic) */
    struct fr_chunk_queue done_q;   /* complete buffers in the order they completed */
    struct fr_chunk_queue free_q;   /* buffers the stream writer gave back FREE */
    struct fr_queue_cell *done_cells, *free_cells;   /* their cells, in the mapping */
    uint64_t next_seq;          /* atomic */
    uint32_t stuck;             /* threads left inside a record at finalize (atomic) */
    int      backed;            /* the pool is a file's (backing=): a reused buffer is
                                   zeroed first, threads publish their counters at each
                                   buffer change (docs/BACKING.md) */
    /* Threads whose slot was recycled (no records left in the pool), and drops that
     * belong to no slot (thread limit, records after a thread's exit): atomic. */
    uint32_t recycled_threads;
    uint64_t recycled_below;
    uint64_t recycled_bytes;
    uint64_t recycled_streamed;
    uint64_t recycled[FR_DROP_NCAUSES];
};

extern FR_HIDDEN struct fr_pool fr_pool;

/* Maps the pool, after checking it fits in what the process may have (RLIMIT_AS, the
 * cgroup's memory.max, MemAvailable; a refusal says why on stderr). Pre-faults it when
 * small, lets the writers fault it in otherwise. 0 or -1 (errno ENOMEM). */
FR_HIDDEN int  fr_pool_create(const struct fr_options *o);
/* Unmaps the pool, unless a thread was left inside a record (fr_pool.stuck): that
 * mapping is left in place (leaked) because the thread may still write into it. */
FR_HIDDEN void fr_pool_destroy(void);
/* Forgets every buffer and thread (fork child): memory stays mapped. */
FR_HIDDEN void fr_pool_clear(void);

/* Where descriptor idx's bytes are: a buffer's, or a small buffer's inside the buffer
 * it was lent from (descriptor nbuf + buffer * small_per + k: the k-th eighth). */
static inline uint8_t *fr_pool_buffer(uint32_t idx)
{
    if (idx < fr_pool.nbuf)
        return fr_pool.data + (size_t)idx * fr_pool.buffer_size;
    uint32_t s = idx - fr_pool.nbuf;
    return fr_pool.data + (size_t)(s / fr_pool.small_per) * fr_pool.buffer_size +
           (size_t)(s % fr_pool.small_per) * fr_pool.small_size;
}

/* Bytes descriptor idx can hold. */
static inline size_t fr_pool_capacity(uint32_t idx)
{
    return idx < fr_pool.nbuf ? fr_pool.buffer_size : fr_pool.small_size;
}

/* ---- threads */

/* Claims a slot for a new live thread (lock-free): an unused one, or an exited one that
 * no buffer names any more (its counters are folded into fr_pool.recycled*). The slot
 * index, or -1 when FR_MAX_THREADS slots are live or hold records. */
FR_HIDDEN int  fr_pool_claim_slot(int32_t tid, uint64_t pthread);
/* The thread of `slot` exited: its buffers become RETIRED (their data stays), its
 * live reference is dropped (the slot may be reused once no buffer names it). */
FR_HIDDEN void fr_pool_retire_slot(uint32_t slot);
/* Drops one reference of `slot`. */
FR_HIDDEN void fr_pool_unref_slot(uint32_t slot);

/* Pinning a slot keeps its `live` thread state valid (an exiting thread waits for pins
 * to go before its TLS can be freed). Lock-free and async-signal-safe. fr_pool_pin
 * returns the live thread state or NULL (then nothing is pinned). */
FR_HIDDEN struct fr_thread *fr_pool_pin(uint32_t slot);
FR_HIDDEN void fr_pool_unpin(uint32_t slot);

/* ---- buffers (hand-out runs when a buffer fills, never per record) */

/* What a thread holds: the buffer it writes. */
struct fr_hold {
    int32_t  idx;   /* -1: none */
    uint32_t gen;
};

/* The policy: the buffer `slot` writes next, its current one (if any) being left with
 * `used` bytes and `records` records. Returns 0 with *h set to a CURRENT buffer
 * (possibly the same index, restarted), or -1 with h->idx = -1 (no buffer: drop).
 * A buffer never used or given back first; else, under overwrite, the complete buffer
 * that completed first, whoever wrote it, its records charged to its owner's
 * taken_records. `small`: a small buffer will do (a thread's first). See
 * docs/BUFFERS.md for the rule. */
FR_HIDDEN int fr_pool_next(uint32_t slot, struct fr_hold *h, uint64_t used, uint64_t records,
                           int small);
/* The stream writer wrote buffer idx (generation gen): FREE again, for any thread. */
FR_HIDDEN void fr_pool_give_back(uint32_t idx, uint32_t gen);
/* Leaves the current buffer (CURRENT -> FULL, or RETIRED when `retire`) publishing its
 * byte and record counts. 0, or -1 if the buffer was not (any more) ours in that
 * generation (nothing published). */
FR_HIDDEN int fr_pool_leave(uint32_t slot, struct fr_hold *h, uint64_t used, uint64_t records,
                                 int retire);

/* ---- readers (flush, stats, crash dumps) */

/* For the file writer, after the threads stopped: the complete buffers that hold data
 * (FULL or RETIRED, used >= preamble), sorted by their thread's tid, oldest first, into
 * fr_pool.scratch; and the used thread slots sorted by (tid, slot) after them. Returns
 * how many buffers; *nslots the slots. Once per file: O(n log n) (a process that ran
 * tens of thousands of threads must not cost a scan of the pool per thread). */
FR_HIDDEN uint32_t fr_pool_sort_for_file(uint32_t nthreads, uint32_t *nslots);
/* The run of sorted (buffers or slots) entries of thread `tid`: its first position in
 * a[0, n), *count set; n when none. */
FR_HIDDEN uint32_t fr_pool_buffers_of(const uint32_t *a, uint32_t n, int32_t tid, uint32_t *count);
/* Whether slot s is in use and the first (lowest) slot of its tid among the sorted
 * slots a[0, n): a tid the kernel reused goes out in one block, with its first slot's.
 * Its slots' run in *first, *count. */
FR_HIDDEN int fr_pool_tid_first(const uint32_t *a, uint32_t n, uint32_t s, uint32_t *first,
                                uint32_t *count);

/* Per-thread figures for the metadata: records kept in the pool, drops by cause
 * (taken-by-others counted as overwritten), bytes dropped. */
FR_HIDDEN void fr_pool_thread_figures(uint32_t slot, uint64_t *written,
                                           uint64_t dropped[FR_DROP_NCAUSES], uint64_t *bytes);

#endif
