/*
 * buffer_pool.c - the mapping that holds every buffer and descriptor, thread slots, and
 * the policy that hands buffers to threads. Hand-out runs when a buffer fills (not per
 * record): it scans the descriptors and claims one with a compare-and-swap on its
 * ownership word; no lock, no system call. docs/BUFFERS.md states the protocol.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/backing_map.h"
#include "core/buffer_pool.h"
#include "core/index_sort.h"
#include "core/pool_budget.h"
#include "core/text_out.h"
#include "core/chunk_queue.h"

struct fr_pool fr_pool;

#define LOAD(p)       __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define LOAD_R(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)   __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define STORE_R(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ADD_R(p, v)   __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18       /* Linux 4.14 */
#endif

/* ------------------------------------------------------------------ mapping */

/* Huge pages where the kernel allows them (transparent_hugepage=madvise is the usual
 * default): on this VM, records written into a pre-faulted 4 KiB-page pool cost ~55 ns
 * per call against ~26 ns with 2 MiB pages (bench_functrace, same pool size), the
 * difference being TLB and nested-paging misses. Over-allocating by 2 MiB lets the range
 * start on a huge-page boundary. MADV_WIPEONFORK: a fork child starts with an empty pool
 * (zero pages) instead of a copy of the parent's records. */
static void *map_pool(size_t size)
{
    const size_t huge = 2u << 20;
    size_t len = size + huge;
    uint8_t *raw = mmap(NULL, len, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return MAP_FAILED;
    uint8_t *m = (uint8_t *)round_up((uintptr_t)raw, huge);
    if (m > raw)
        munmap(raw, (size_t)(m - raw));
    size_t tail = len - (size_t)(m - raw) - size;
    if (tail)
        munmap(m + size, tail);
    madvise(m, size, MADV_HUGEPAGE);    /* advice: harmless where refused */
    madvise(m, size, MADV_WIPEONFORK);
    return m;
}

/* "flightrec: buffer pool of N MiB does not fit: LIMIT leaves M MiB (...)" */
static void say_too_big(uint64_t need, uint64_t room, const char *what)
{
    char msg[256];
    size_t len = 0;
    fr_fmt_str(msg, sizeof msg, &len, "flightrec: buffer pool of ");
    fr_fmt_u64(msg, sizeof msg, &len, need >> 20);
    fr_fmt_str(msg, sizeof msg, &len, " MiB does not fit: ");
    fr_fmt_str(msg, sizeof msg, &len, what);
    fr_fmt_str(msg, sizeof msg, &len, " leaves ");
    fr_fmt_u64(msg, sizeof msg, &len, room >> 20);
    fr_fmt_str(msg, sizeof msg, &len, " MiB (use smaller buffer_size= or buffers=)\n");
    fr_write_stderr(msg, len);
}

int fr_pool_create(const struct fr_options *o)
{
    struct fr_pool_layout l;
    uint64_t room;
    const char *limit;
    if (fr_pool_layout_of(o, &l) != 0)
        return errno = ENOMEM, -1;
    if (fr_pool_budget(l.total, &room, &limit) != 0) {
        say_too_big(l.total, room, limit);
        return errno = ENOMEM, -1;
    }
    size_t data_r = l.data, total = l.total;
    /* Nothing is faulted in here: buffers are handed out from the pool's start
     * (take_fresh) and touched by their writers, so a program that records little costs
     * little whatever the pool's size (a backing file's space is reserved the same way:
     * backing_map.c). */
    void *m = o->backing[0] ? fr_backing_create(o, total, data_r, data_r + l.bufs, l.threads, 0, NULL)
                            : map_pool(total);
    if (m == MAP_FAILED)
        return errno = EIO, -1;
    memset(&fr_pool, 0, sizeof fr_pool);
    fr_pool.backed = o->backing[0] != 0;
    fr_pool.map = m;
    fr_pool.map_size = total;
    fr_pool.data = m;
    fr_pool.buffer_size = o->buffer_size;
    fr_pool.nbuf = o->buffers;
    fr_pool.small_per = fr_pool_small_per(o->buffer_size);
    fr_pool.small_size = fr_pool.small_per ? (o->buffer_size / fr_pool.small_per) & ~(size_t)7 : 0;
    fr_pool.ndesc = o->buffers * (1 + fr_pool.small_per);
    fr_pool.policy = o->policy;
    fr_pool.stream = o->stream;
    fr_pool.bufs = (struct fr_buffer_desc *)((uint8_t *)m + data_r);
    fr_pool.threads = (struct fr_thread_desc *)((uint8_t *)fr_pool.bufs + l.bufs);
    fr_pool.scratch = (uint32_t *)((uint8_t *)fr_pool.threads + l.threads);
    fr_pool.done_cells = (struct fr_queue_cell *)((uint8_t *)fr_pool.scratch + l.scratch);
    fr_pool.free_cells = (struct fr_queue_cell *)((uint8_t *)fr_pool.done_cells + l.done_q);
    fr_queue_init(&fr_pool.done_q, fr_pool.done_cells, l.done_q / sizeof(struct fr_queue_cell));
    fr_queue_init(&fr_pool.free_q, fr_pool.free_cells, l.free_q / sizeof(struct fr_queue_cell));
    return 0;
}

void fr_pool_destroy(void)
{
    /* A thread left inside a record may still store into the pool: its memory stays. */
    if (fr_pool.backed)
        fr_backing_remove();   /* the session ends here: written, or thrown away */
    if (fr_pool.map && !LOAD(&fr_pool.stuck)) {
        if (fr_pool.backed)
            fr_backing_unmap();
        else
            munmap(fr_pool.map, fr_pool.map_size);
    }
    memset(&fr_pool, 0, sizeof fr_pool);
}

/* Zeroes the cells of q that were ever used (the others are zero): an empty queue. */
static void clear_queue(struct fr_chunk_queue *q)
{
    uint64_t used = q->tail > q->mask ? q->mask + 1 : q->tail;
    memset(q->cells, 0, used * sizeof *q->cells);
    fr_queue_init(q, q->cells, q->mask + 1);
}

void fr_pool_clear(void)
{
    clear_queue(&fr_pool.done_q);
    clear_queue(&fr_pool.free_q);
    memset(fr_pool.bufs, 0, (size_t)fr_pool.ndesc * sizeof *fr_pool.bufs);
    memset(fr_pool.threads, 0, FR_MAX_THREADS * sizeof *fr_pool.threads);
    fr_pool.nthreads = 0;
    fr_pool.live_threads = 0;
    fr_pool.slot_next = 0;
    fr_pool.fresh = 0;
    fr_pool.pack = 0;
    fr_pool.next_seq = 0;
    fr_pool.stuck = 0;
    fr_pool.recycled_threads = 0;
    fr_pool.recycled_below = 0;
    fr_pool.recycled_bytes = 0;
    fr_pool.recycled_streamed = 0;
    memset(fr_pool.recycled, 0, sizeof fr_pool.recycled);
}

/* ------------------------------------------------------------------ thread slots */

/* An exited slot no buffer names any more, being reused: its counters join the
 * session's recycled totals (its own THREAD_STATS line is gone, its counts are not). */
static void fold_slot(struct fr_thread_desc *d)
{
    for (int c = 0; c < FR_DROP_NCAUSES; c++)
        ADD_R(&fr_pool.recycled[c], LOAD_R(&d->dropped[c]));
    ADD_R(&fr_pool.recycled[FR_DROP_OVERWRITTEN], LOAD_R(&d->taken_records));
    ADD_R(&fr_pool.recycled_bytes, LOAD_R(&d->bytes_dropped) + LOAD_R(&d->taken_bytes));
    ADD_R(&fr_pool.recycled_below, LOAD_R(&d->calls_below_threshold));
    ADD_R(&fr_pool.recycled_streamed, LOAD_R(&d->streamed));
    STORE_R(&d->streamed, 0);
    ADD_R(&fr_pool.recycled_threads, 1);
    for (int c = 0; c < FR_DROP_NCAUSES; c++)
        STORE_R(&d->dropped[c], 0);
    STORE_R(&d->bytes_dropped, 0);
    STORE_R(&d->calls_below_threshold, 0);
    STORE_R(&d->taken_records, 0);
    STORE_R(&d->taken_bytes, 0);
    memset(d->name, 0, sizeof d->name);
}

_Static_assert(((uint64_t)1 << 32) % FR_MAX_THREADS == 0, "the slot counter's wrap keeps the turn whole");

/* Slot s for a new live thread, if it is unused or exited with no buffer naming it. */
static int take_slot(uint32_t s, int32_t tid, uint64_t pthread)
{
    struct fr_thread_desc *d = &fr_pool.threads[s];
    uint32_t st = LOAD(&d->state);
    /* An EXITED slot with no reference stays so: nobody takes a reference on it. */
    if (st == FR_THREAD_LIVE || (st == FR_THREAD_EXITED && LOAD(&d->refs) != 0))
        return 0;
    /* a backing file's slot pages are reserved as slots are first used (take_fresh) */
    if (fr_pool.backed && st == FR_THREAD_UNUSED &&
        fr_backing_reserve((uint64_t)((uint8_t *)d - fr_pool.data), sizeof *d) != 0)
        return 0;
    if (!__atomic_compare_exchange_n(&d->state, &st, FR_THREAD_LIVE, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return 0;
    if (st == FR_THREAD_EXITED)
        fold_slot(d);
    __atomic_store_n(&d->tid, tid, __ATOMIC_RELAXED);   /* the stream writer reads it (stream_writer.c) */
    d->pthread = pthread;
    STORE_R(&d->refs, 1);
    uint32_t hw = LOAD_R(&fr_pool.nthreads);
    while (hw < s + 1 &&
           !__atomic_compare_exchange_n(&fr_pool.nthreads, &hw, s + 1, 1,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    ADD_R(&fr_pool.live_threads, 1);
    return 1;
}

static int evict_oldest(uint32_t *owner);

/* Slots are taken round-robin, so a slot is reused as late as possible: an exited
 * thread keeps its own line in the file until FR_MAX_THREADS threads came after it.
 * Each slot looked at costs one ticket of a shared counter, so every slot is looked at
 * once per turn of the counter, however many threads claim at the same time (a start
 * stored after the take let two claimers move it backwards, and the next thread took
 * the slot of one that had just exited: its line was gone, tests/core_slots_test.c). The
 * counter wraps at 2^32, a multiple of FR_MAX_THREADS, so the turn stays whole.
 * When every slot is live or names buffers (a program that starts threads faster than
 * the pool forgets them), the overwrite policy frees the oldest complete buffers until
 * an exited thread has none left: the newest history is kept, as for buffers. */
int fr_pool_claim_slot(int32_t tid, uint64_t pthread)
{
    for (uint32_t i = 0; i < FR_MAX_THREADS; i++) {
        uint32_t s = __atomic_fetch_add(&fr_pool.slot_next, 1, __ATOMIC_RELAXED) % FR_MAX_THREADS;
        if (take_slot(s, tid, pthread))
            return (int)s;
    }
    if (fr_pool.policy != FR_POLICY_OVERWRITE)
        return -1;
    uint32_t owner;
    for (uint32_t n = 0; n < fr_pool.ndesc && evict_oldest(&owner) == 0; n++)
        if (LOAD(&fr_pool.threads[owner].state) == FR_THREAD_EXITED &&
            take_slot(owner, tid, pthread))
            return (int)owner;
    return -1;
}

static void ref_slot(uint32_t slot)
{
    ADD_R(&fr_pool.threads[slot].refs, 1);
}

void fr_pool_unref_slot(uint32_t slot)
{
    __atomic_fetch_sub(&fr_pool.threads[slot].refs, 1, __ATOMIC_ACQ_REL);
}

/* The thread's older buffers stay FULL: the policy and every writer treat FULL and
 * RETIRED alike (no scan of the descriptors at each thread's exit). */
void fr_pool_retire_slot(uint32_t slot)
{
    STORE(&fr_pool.threads[slot].state, FR_THREAD_EXITED);
    __atomic_fetch_sub(&fr_pool.live_threads, 1, __ATOMIC_RELAXED);
    fr_pool_unref_slot(slot);
}

struct fr_thread *fr_pool_pin(uint32_t slot)
{
    struct fr_thread_desc *d = &fr_pool.threads[slot];
    __atomic_fetch_add(&d->readers, 1, __ATOMIC_SEQ_CST);
    struct fr_thread *t = __atomic_load_n(&d->live, __ATOMIC_SEQ_CST);
    if (!t)
        __atomic_fetch_sub(&d->readers, 1, __ATOMIC_RELEASE);
    return t;
}

void fr_pool_unpin(uint32_t slot)
{
    __atomic_fetch_sub(&fr_pool.threads[slot].readers, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ buffers */

/* A queue entry: a buffer at a generation. */
static uint64_t entry_of(uint32_t idx, uint32_t gen) { return (uint64_t)gen << 32 | idx; }
static uint32_t entry_idx(uint64_t e) { return (uint32_t)e; }
static uint32_t entry_gen(uint64_t e) { return (uint32_t)(e >> 32); }

static int is_complete(uint32_t st) { return st == FR_BUF_FULL || st == FR_BUF_RETIRED; }

/* A buffer just won (CAS to CURRENT): the newest of its new owner. In a backing file a
 * reused buffer is zeroed (what its previous holder wrote, `used` bytes): the end of
 * the records of a buffer still CURRENT when the process died is where its zeros begin
 * (docs/BACKING.md). Only the new holder writes a buffer's bytes, so this is ours. */
static void stamp(uint32_t idx)
{
    struct fr_buffer_desc *b = &fr_pool.bufs[idx];
    if (fr_pool.backed && FR_OWN_GEN(LOAD_R(&b->own)) > 1) {
        uint64_t used = LOAD_R(&b->used);
        size_t cap = fr_pool_capacity(idx);
        memset(fr_pool_buffer(idx), 0, used && used <= cap ? used : cap);
    }
    STORE_R(&b->seq, ADD_R(&fr_pool.next_seq, 1));
    STORE_R(&b->used, 0);
    STORE_R(&b->records, 0);
}

static uint64_t body_bytes(const struct fr_buffer_desc *b)
{
    uint64_t used = LOAD_R(&b->used);
    return used > FR_BUFFER_PREAMBLE ? used - FR_BUFFER_PREAMBLE : 0;
}

/* CAS buffer idx from word w to CURRENT of `slot`; on success *h is set. */
static int win(uint32_t idx, uint64_t w, uint32_t slot, struct fr_hold *h)
{
    uint32_t gen = FR_OWN_GEN(w) + 1;
    if (!__atomic_compare_exchange_n(&fr_pool.bufs[idx].own, &w, FR_OWN(FR_BUF_CURRENT, slot, gen),
                                     0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return 0;
    h->idx = (int32_t)idx;
    h->gen = gen;
    return 1;
}

/* A FREE buffer won: it names `slot` now. */
static int took_free(uint32_t idx, uint32_t slot)
{
    ref_slot(slot);
    stamp(idx);
    return 0;
}

/* A buffer never handed out before, in index order, so that memory (and a backing
 * file's space) is touched as the pool is first used, from its start. */
static int take_fresh(uint32_t slot, struct fr_hold *h)
{
    if (LOAD_R(&fr_pool.fresh) >= fr_pool.nbuf)
        return -1;
    uint32_t idx = ADD_R(&fr_pool.fresh, 1);
    if (idx >= fr_pool.nbuf)
        return -1;
    /* A backing file's space is reserved as the pool grows into it (backing_map.c):
     * a page the file system cannot give would be a SIGBUS at the next record. */
    if (fr_pool.backed && fr_backing_reserve((size_t)idx * fr_pool.buffer_size,
                                             fr_pool.buffer_size) != 0) {
        STORE_R(&fr_pool.fresh, fr_pool.nbuf);   /* no more fresh buffers */
        return -1;
    }
    uint64_t w = LOAD_R(&fr_pool.bufs[idx].own);
    if (FR_OWN_STATE(w) != FR_BUF_FREE || !win(idx, w, slot, h))
        return -1;   /* cannot happen: a fresh buffer is no one else's */
    return took_free(idx, slot);
}

/* A buffer given back FREE (by the stream writer, freed for a thread slot, or whose
 * small buffers are all free again): from the free queue, else (streaming) found by a
 * scan (an entry not yet published, or a queue that overflowed). Fresh buffers (gen 0)
 * are take_fresh's alone: the scan leaves them. */
static int take_given_back(uint32_t slot, struct fr_hold *h)
{
    uint64_t e;
    while (fr_queue_pop(&fr_pool.free_q, &e) == 0) {
        uint32_t idx = entry_idx(e);
        uint64_t w = LOAD_R(&fr_pool.bufs[idx].own);
        if (idx < fr_pool.nbuf && FR_OWN_STATE(w) == FR_BUF_FREE && FR_OWN_GEN(w) == entry_gen(e) &&
            win(idx, w, slot, h))
            return took_free(idx, slot);
    }
    if (!fr_pool.stream)
        return -1;   /* without the stream writer no entry is stale: the queue never fills */
    uint32_t n = fr_pool.nbuf;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t w = LOAD_R(&fr_pool.bufs[i].own);
        if (FR_OWN_STATE(w) == FR_BUF_FREE && FR_OWN_GEN(w) > 0 && win(i, w, slot, h))
            return took_free(i, slot);
    }
    return -1;
}

/* Whether queue entry e still names a complete buffer at its generation (an entry goes
 * stale when its buffer changes hands another way: the stream writer, a scan); its
 * ownership word in *w. */
static int entry_live(uint64_t e, uint64_t *w)
{
    uint32_t idx = entry_idx(e);
    if (idx >= fr_pool.ndesc)
        return 0;
    *w = LOAD_R(&fr_pool.bufs[idx].own);
    return is_complete(FR_OWN_STATE(*w)) && FR_OWN_GEN(*w) == entry_gen(e) &&
           FR_OWN_SLOT(*w) < FR_MAX_THREADS;
}

/* Buffer idx, complete as word w, won for `slot`: its records are charged to its owner
 * (lost at the start of that thread's history, which may be this thread's own) before
 * anything else, so that a backing file never shows the buffer taken and its records
 * neither there nor counted (docs/BACKING.md: the window is these two stores). */
static void charge(uint32_t idx, uint64_t w)
{
    struct fr_buffer_desc *b = &fr_pool.bufs[idx];
    struct fr_thread_desc *d = &fr_pool.threads[FR_OWN_SLOT(w)];
    ADD_R(&d->taken_records, LOAD_R(&b->records));
    ADD_R(&d->taken_bytes, body_bytes(b));
}

static void took_complete(uint32_t idx, uint64_t w, uint32_t slot)
{
    charge(idx, w);
    uint32_t owner = FR_OWN_SLOT(w);
    if (owner != slot) {
        ref_slot(slot);
        fr_pool_unref_slot(owner);
    }
    stamp(idx);
}

/* A lent buffer's `records` counts its small buffers handed out and not FREE again,
 * plus one while it is the buffer small ones come from (fr_pool.pack): at 0 the buffer
 * is FREE again. */
static void unref_lent(uint32_t parent)
{
    struct fr_buffer_desc *p = &fr_pool.bufs[parent];
    if (__atomic_sub_fetch(&p->records, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    uint64_t w = LOAD(&p->own);
    if (FR_OWN_STATE(w) == FR_BUF_PACK)
        fr_pool_give_back(parent, FR_OWN_GEN(w));
}

static uint32_t parent_of(uint32_t idx) { return (idx - fr_pool.nbuf) / fr_pool.small_per; }

/* A small buffer is FREE again. */
static void small_freed(uint32_t idx)
{
    unref_lent(parent_of(idx));
}

/* The oldest history is being overwritten and a small buffer of the lent buffer that
 * small ones come from now was part of it: that buffer lends no more (the small buffers
 * it has not handed out are given up), so that it comes back whole once those it handed
 * out are gone, instead of idling until seven new threads come. */
static void close_pack(uint32_t parent)
{
    uint64_t p = LOAD(&fr_pool.pack);
    while ((uint32_t)p == parent + 1 && (uint32_t)(p >> 32) < fr_pool.small_per)
        if (__atomic_compare_exchange_n(&fr_pool.pack, &p, 0, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            unref_lent(parent);   /* the reference of "small ones come from it" */
            return;
        }
}

/* Entry e of the completion queue, if its descriptor is still complete at that
 * generation, freed: its records charged to its owner (*owner), a buffer FREE to the
 * free queue, a small one FREE (its buffer freed with the last of them). 1 freed, 0
 * stale. */
static int free_entry(uint64_t e, uint32_t *owner)
{
    uint32_t idx = entry_idx(e);
    uint64_t w;
    if (!entry_live(e, &w) ||
        !__atomic_compare_exchange_n(&fr_pool.bufs[idx].own, &w, FR_OWN(FR_BUF_FREE, 0, entry_gen(e)),
                                     0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return 0;
    charge(idx, w);
    *owner = FR_OWN_SLOT(w);
    if (idx < fr_pool.nbuf) {
        fr_queue_push(&fr_pool.free_q, e);   /* full: take_given_back's scan finds it */
    } else {
        close_pack(parent_of(idx));
        small_freed(idx);
    }
    fr_pool_unref_slot(*owner);
    return 1;
}

/* The complete buffer whose newest record is the oldest in the pool, whoever wrote it:
 * the head of the completion queue. Entries of buffers that changed hands since (the
 * stream writer wrote them) are skipped; a small buffer at the head is freed (its
 * buffer comes back once its seven neighbours have gone the same way, through the free
 * queue). When the queue has nothing usable, a scan takes the oldest complete buffer
 * by hand-out order. */
static int take_oldest(uint32_t slot, struct fr_hold *h)
{
    uint64_t e;
    uint32_t owner;
    while (fr_queue_pop(&fr_pool.done_q, &e) == 0) {
        uint32_t idx = entry_idx(e);
        if (idx >= fr_pool.nbuf) {
            if (free_entry(e, &owner) && take_given_back(slot, h) == 0)
                return 0;
            continue;
        }
        uint64_t w;
        if (entry_live(e, &w) && win(idx, w, slot, h)) {
            took_complete(idx, w, slot);
            return 0;
        }
    }
    for (;;) {
        int best = -1;
        uint64_t best_seq = UINT64_MAX, best_w = 0;
        /* small buffers too: a thread's first is its oldest (taking its second first
         * would leave a gap in its history) */
        for (uint32_t i = 0; i < fr_pool.ndesc; i++) {
            struct fr_buffer_desc *b = &fr_pool.bufs[i];
            uint64_t w = LOAD_R(&b->own);
            if (!is_complete(FR_OWN_STATE(w)) || FR_OWN_SLOT(w) >= FR_MAX_THREADS)
                continue;
            uint64_t seq = LOAD_R(&b->seq);
            if (seq < best_seq) {
                best_seq = seq;
                best = (int)i;
                best_w = w;
            }
        }
        if (best < 0)
            return -1;
        if ((uint32_t)best >= fr_pool.nbuf) {   /* freed: its buffer may come back whole */
            if (free_entry(entry_of((uint32_t)best, FR_OWN_GEN(best_w)), &owner) &&
                take_given_back(slot, h) == 0)
                return 0;
            continue;
        }
        if (win((uint32_t)best, best_w, slot, h)) {
            took_complete((uint32_t)best, best_w, slot);
            return 0;
        }
    }
}

/* Frees the oldest complete buffer or small buffer (for a thread slot:
 * fr_pool_claim_slot); its owner in *owner. 0, or -1 when the completion queue has none. */
static int evict_oldest(uint32_t *owner)
{
    uint64_t e;
    while (fr_queue_pop(&fr_pool.done_q, &e) == 0)
        if (free_entry(e, owner))
            return 0;
    return -1;
}

/* A whole buffer for `slot`: never used, given back, or (overwrite) the oldest. */
static int take_whole(uint32_t slot, struct fr_hold *h)
{
    if (take_fresh(slot, h) == 0 || take_given_back(slot, h) == 0)
        return 0;
    return fr_pool.policy == FR_POLICY_OVERWRITE ? take_oldest(slot, h) : -1;
}

/* A small buffer: the next of the buffer lent to small buffers now; when that one has
 * none left, a whole buffer is taken (as any thread takes one) and lent: PACK, its
 * `records` counting its small buffers not yet FREE again. */
static int take_small(uint32_t slot, struct fr_hold *h)
{
    const uint32_t per = fr_pool.small_per;
    for (int tries = 0; tries < 64; tries++) {
        uint64_t p = LOAD(&fr_pool.pack);
        uint32_t c1 = (uint32_t)p, k = (uint32_t)(p >> 32);
        if (c1 && k < per) {
            if (!__atomic_compare_exchange_n(&fr_pool.pack, &p, (uint64_t)(k + 1) << 32 | c1, 0,
                                             __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                continue;
            /* The word was ours to move: the lent buffer still holds the pack reference,
             * so it cannot be freed under us. Ours counts before it can be freed; the
             * last one takes the pack reference over. */
            if (k + 1 < per)
                ADD_R(&fr_pool.bufs[c1 - 1].records, 1);
            uint32_t idx = fr_pool.nbuf + (c1 - 1) * per + k;
            uint64_t w = LOAD_R(&fr_pool.bufs[idx].own);
            if (FR_OWN_STATE(w) == FR_BUF_FREE && win(idx, w, slot, h))
                return took_free(idx, slot);
            small_freed(idx);   /* cannot happen: a lent buffer's small ones are FREE */
            continue;
        }
        struct fr_hold whole = { -1, 0 };
        if (take_whole(slot, &whole) < 0)
            return -1;
        uint32_t c = (uint32_t)whole.idx;
        struct fr_buffer_desc *b = &fr_pool.bufs[c];
        STORE_R(&b->used, 0);
        STORE_R(&b->records, 2);   /* the pack reference and our small buffer */
        STORE(&b->own, FR_OWN(FR_BUF_PACK, 0, whole.gen));
        fr_pool_unref_slot(slot);
        /* ours is its first small buffer; another thread may have lent one meanwhile */
        if (!__atomic_compare_exchange_n(&fr_pool.pack, &p, (uint64_t)1 << 32 | (c + 1), 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            STORE_R(&b->records, 0);
            fr_pool_give_back(c, whole.gen);
            continue;
        }
        uint32_t idx = fr_pool.nbuf + c * per;
        uint64_t w = LOAD_R(&fr_pool.bufs[idx].own);
        if (FR_OWN_STATE(w) == FR_BUF_FREE && win(idx, w, slot, h))
            return took_free(idx, slot);
        small_freed(idx);
    }
    return -1;
}

/* Buffer idx became complete at generation gen: it joins the order of completion that
 * the overwrite policy takes from. A queue full of stale entries (buffers the stream
 * writer wrote) loses its oldest; a live one popped that way goes back at the tail. A
 * buffer that finds no room is still found by take_oldest's scan. */
static void completed(uint32_t idx, uint32_t gen)
{
    if (fr_pool.policy != FR_POLICY_OVERWRITE)
        return;
    uint64_t e = entry_of(idx, gen), old;
    for (int tries = 0; tries < 8; tries++) {
        if (fr_queue_push(&fr_pool.done_q, e) == 0)
            return;
        uint64_t w;
        if (fr_queue_pop(&fr_pool.done_q, &old) == 0 && entry_live(old, &w))
            fr_queue_push(&fr_pool.done_q, old);   /* no room: the scan finds it */
    }
}

void fr_pool_give_back(uint32_t idx, uint32_t gen)
{
    STORE(&fr_pool.bufs[idx].own, FR_OWN(FR_BUF_FREE, 0, gen));   /* release: our reads came first */
    if (idx >= fr_pool.nbuf)
        small_freed(idx);
    else
        fr_queue_push(&fr_pool.free_q, entry_of(idx, gen));   /* full: take_given_back's scan finds it */
}

int fr_pool_leave(uint32_t slot, struct fr_hold *h, uint64_t used, uint64_t records, int retire)
{
    if (h->idx < 0)
        return -1;
    struct fr_buffer_desc *b = &fr_pool.bufs[h->idx];
    uint64_t w = FR_OWN(FR_BUF_CURRENT, slot, h->gen);
    int ok = LOAD_R(&b->own) == w;
    if (ok) {
        STORE_R(&b->used, used);
        STORE_R(&b->records, records);
        /* release: whoever acquires the word next sees used and records */
        ok = __atomic_compare_exchange_n(&b->own, &w,
                                         FR_OWN(retire ? FR_BUF_RETIRED : FR_BUF_FULL, slot, h->gen),
                                         0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
        if (ok)
            completed((uint32_t)h->idx, h->gen);
    }
    h->idx = -1;
    return ok ? 0 : -1;
}

int fr_pool_next(uint32_t slot, struct fr_hold *h, uint64_t used, uint64_t records, int small)
{
    fr_pool_leave(slot, h, used, records, 0);
    /* Memory that holds nothing first, whatever the policy: no buffer idles while a
     * thread overwrites history. */
    if (small && fr_pool.small_per && take_small(slot, h) == 0)
        return 0;
    return take_whole(slot, h);
}

/* ------------------------------------------------------------------ readers */

static int32_t desc_tid(uint32_t i)
{
    return fr_pool.threads[FR_OWN_SLOT(LOAD(&fr_pool.bufs[i].own))].tid;
}

static int buffer_before(uint32_t a, uint32_t b)
{
    int32_t ta = desc_tid(a), tb = desc_tid(b);
    return ta != tb ? ta < tb : LOAD_R(&fr_pool.bufs[a].seq) < LOAD_R(&fr_pool.bufs[b].seq);
}

static int slot_before(uint32_t a, uint32_t b)
{
    int32_t ta = fr_pool.threads[a].tid, tb = fr_pool.threads[b].tid;
    return ta != tb ? ta < tb : a < b;
}

uint32_t fr_pool_sort_for_file(uint32_t nthreads, uint32_t *nslots)
{
    uint32_t *out = fr_pool.scratch, n = 0;
    for (uint32_t i = 0; i < fr_pool.ndesc; i++) {
        uint64_t w = LOAD(&fr_pool.bufs[i].own);
        if (is_complete(FR_OWN_STATE(w)) && FR_OWN_SLOT(w) < FR_MAX_THREADS &&
            LOAD_R(&fr_pool.bufs[i].used) >= FR_BUFFER_PREAMBLE)
            out[n++] = i;
    }
    fr_index_sort(out, n, buffer_before);
    uint32_t *slots = out + fr_pool.ndesc, m = 0;
    for (uint32_t s = 0; s < nthreads && s < FR_MAX_THREADS; s++)
        if (LOAD(&fr_pool.threads[s].state) != FR_THREAD_UNUSED)
            slots[m++] = s;
    fr_index_sort(slots, m, slot_before);
    *nslots = m;
    return n;
}

/* The first of a[0, n) (sorted by tid through tid_of) with this tid, *count of them. */
static uint32_t run_of(const uint32_t *a, uint32_t n, int32_t tid, uint32_t *count,
                       int32_t (*tid_of)(uint32_t))
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tid_of(a[mid]) < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < n && tid_of(a[end]) == tid)
        end++;
    *count = end - lo;
    return lo;
}

static int32_t slot_tid(uint32_t s) { return fr_pool.threads[s].tid; }

uint32_t fr_pool_buffers_of(const uint32_t *a, uint32_t n, int32_t tid, uint32_t *count)
{
    return run_of(a, n, tid, count, desc_tid);
}

int fr_pool_tid_first(const uint32_t *a, uint32_t n, uint32_t s, uint32_t *first, uint32_t *count)
{
    if (LOAD(&fr_pool.threads[s].state) == FR_THREAD_UNUSED)
        return 0;
    *first = run_of(a, n, fr_pool.threads[s].tid, count, slot_tid);
    return *count && a[*first] == s;
}

void fr_pool_thread_figures(uint32_t slot, uint64_t *written, uint64_t dropped[FR_DROP_NCAUSES],
                            uint64_t *bytes)
{
    struct fr_thread_desc *d = &fr_pool.threads[slot];
    uint64_t n = 0;
    for (uint32_t i = 0; i < fr_pool.ndesc; i++) {
        struct fr_buffer_desc *b = &fr_pool.bufs[i];
        uint64_t w = LOAD(&b->own);
        uint32_t st = FR_OWN_STATE(w);
        if ((st == FR_BUF_FULL || st == FR_BUF_RETIRED || st == FR_BUF_WRITING) &&
            FR_OWN_SLOT(w) == slot && LOAD_R(&b->used) >= FR_BUFFER_PREAMBLE)
            n += LOAD_R(&b->records);
    }
    *written = n + LOAD_R(&d->streamed);
    for (int c = 0; c < FR_DROP_NCAUSES; c++)
        dropped[c] = LOAD_R(&d->dropped[c]);
    dropped[FR_DROP_OVERWRITTEN] += LOAD_R(&d->taken_records);
    *bytes = LOAD_R(&d->bytes_dropped) + LOAD_R(&d->taken_bytes);
}
