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
#include "core/backing_file.h"
#include "core/buffer_pool.h"
#include "core/pool_budget.h"
#include "core/session.h"
#include "core/text_out.h"
#include "core/thread_writer.h"

struct fr_pool fr_pool;

#define LOAD(p)       __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define LOAD_R(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)   __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define STORE_R(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ADD_R(p, v)   __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif
#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18       /* Linux 4.14 */
#endif

/* Pools up to this size are pre-faulted at init: the first touch of a page costs ~12 us
 * here, pre-faulted ~0.6 us. Larger pools are faulted in by the writers as they reach
 * each page (a 1 GiB pre-fault took 3.4 s at start-up, and memory a thread never uses
 * would be paid for anyway). */
#define PREFAULT_MAX (64u << 20)

/* ------------------------------------------------------------------ mapping */

/* Huge pages where the kernel allows them (transparent_hugepage=madvise is the usual
 * default): on this VM, records written into a pre-faulted 4 KiB-page pool cost ~55 ns
 * per call against ~26 ns with 2 MiB pages (bench_functrace, same pool size), the
 * difference being TLB and nested-paging misses. Over-allocating by 2 MiB lets the range
 * start on a huge-page boundary. MADV_WIPEONFORK: a fork child starts with an empty pool
 * (zero pages) instead of a copy of the parent's records. */
static void *map_pool(size_t size, size_t prefault_from, size_t prefault_len)
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
    uint8_t *pf = m + prefault_from;
    if (madvise(pf, prefault_len, MADV_POPULATE_WRITE) != 0)
        for (size_t off = 0; off < prefault_len; off += 4096)   /* older kernels */
            ((volatile uint8_t *)pf)[off] = 0;
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
    /* Descriptors always; the data too when the pool is small. A backing file's pool
     * is reserved and faulted in whole (backing_file.c). */
    int all = data_r <= PREFAULT_MAX;
    void *m = o->backing[0] ? fr_backing_create(o, total, 0, NULL)
                            : map_pool(total, all ? 0 : data_r, all ? total : total - data_r);
    if (m == MAP_FAILED)
        return errno = EIO, -1;
    memset(&fr_pool, 0, sizeof fr_pool);
    fr_pool.backed = o->backing[0] != 0;
    fr_pool.map = m;
    fr_pool.map_size = total;
    fr_pool.data = m;
    fr_pool.buffer_size = o->buffer_size;
    fr_pool.nbuf = o->buffers;
    fr_pool.policy = o->policy;
    fr_pool.stream = o->stream;
    fr_pool.bufs = (struct fr_buffer_desc *)((uint8_t *)m + data_r);
    fr_pool.threads = (struct fr_thread_desc *)((uint8_t *)fr_pool.bufs + l.bufs);
    fr_pool.scratch = (uint32_t *)((uint8_t *)fr_pool.threads + l.threads);
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

void fr_pool_clear(void)
{
    memset(fr_pool.bufs, 0, (size_t)fr_pool.nbuf * sizeof *fr_pool.bufs);
    memset(fr_pool.threads, 0, FR_MAX_THREADS * sizeof *fr_pool.threads);
    fr_pool.nthreads = 0;
    fr_pool.live_threads = 0;
    fr_pool.slot_hint = 0;
    fr_pool.hint = 0;
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
    STORE_R(&d->overwritten_own, 0);
    ADD_R(&fr_pool.recycled_threads, 1);
    for (int c = 0; c < FR_DROP_NCAUSES; c++)
        STORE_R(&d->dropped[c], 0);
    STORE_R(&d->bytes_dropped, 0);
    STORE_R(&d->calls_below_threshold, 0);
    STORE_R(&d->taken_records, 0);
    STORE_R(&d->taken_bytes, 0);
    memset(d->name, 0, sizeof d->name);
}

/* Slots are taken round-robin, so a slot is reused as late as possible: an exited
 * thread keeps its own line in the file until FR_MAX_THREADS threads came after it. */
int fr_pool_claim_slot(int32_t tid, uint64_t pthread)
{
    uint32_t start = LOAD_R(&fr_pool.slot_hint);
    for (uint32_t i = 0; i < FR_MAX_THREADS; i++) {
        uint32_t s = (start + i) % FR_MAX_THREADS;
        struct fr_thread_desc *d = &fr_pool.threads[s];
        uint32_t st = LOAD(&d->state);
        /* An EXITED slot with no reference stays so: nobody takes a reference on it. */
        if (st == FR_THREAD_LIVE || (st == FR_THREAD_EXITED && LOAD(&d->refs) != 0))
            continue;
        if (!__atomic_compare_exchange_n(&d->state, &st, FR_THREAD_LIVE, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            continue;
        if (st == FR_THREAD_EXITED)
            fold_slot(d);
        __atomic_store_n(&d->tid, tid, __ATOMIC_RELAXED);   /* the stream writer reads it (stream_writer.c) */
        d->pthread = pthread;
        STORE_R(&d->refs, 1);
        STORE_R(&fr_pool.slot_hint, s + 1);
        uint32_t hw = LOAD_R(&fr_pool.nthreads);
        while (hw < s + 1 &&
               !__atomic_compare_exchange_n(&fr_pool.nthreads, &hw, s + 1, 1,
                                            __ATOMIC_RELEASE, __ATOMIC_RELAXED))
            ;
        ADD_R(&fr_pool.live_threads, 1);
        return (int)s;
    }
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

void fr_pool_retire_slot(uint32_t slot)
{
    for (uint32_t i = 0; i < fr_pool.nbuf; i++) {
        struct fr_buffer_desc *b = &fr_pool.bufs[i];
        uint64_t w = LOAD(&b->own);
        /* A thief may take a FULL buffer meanwhile: then the CAS fails and it is not ours. */
        while (FR_OWN_STATE(w) == FR_BUF_FULL && FR_OWN_SLOT(w) == slot &&
               !__atomic_compare_exchange_n(&b->own, &w, FR_OWN(FR_BUF_RETIRED, slot, FR_OWN_GEN(w)),
                                            0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            ;
    }
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

/* A buffer just won (CAS to CURRENT): the newest of its new owner. In a backing file a
 * reused buffer is zeroed (what its previous holder wrote, `used` bytes): the end of
 * the records of a buffer still CURRENT when the process died is where its zeros begin
 * (docs/BACKING.md). Only the new holder writes a buffer's bytes, so this is ours. */
static void stamp(uint32_t idx)
{
    struct fr_buffer_desc *b = &fr_pool.bufs[idx];
    if (fr_pool.backed && FR_OWN_GEN(LOAD_R(&b->own)) > 1) {
        uint64_t used = LOAD_R(&b->used);
        memset(fr_pool_buffer(idx), 0, used && used <= fr_pool.buffer_size ? used : fr_pool.buffer_size);
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

/* A FREE buffer. */
static int take_free(uint32_t slot, struct fr_hold *h)
{
    uint32_t n = fr_pool.nbuf;
    uint32_t start = LOAD_R(&fr_pool.hint) % n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = (start + i) % n;
        uint64_t w = LOAD_R(&fr_pool.bufs[idx].own);
        if (FR_OWN_STATE(w) == FR_BUF_FREE && win(idx, w, slot, h)) {
            STORE_R(&fr_pool.hint, idx + 1);
            ref_slot(slot);
            stamp(idx);
            return 0;
        }
    }
    return -1;
}

/* The oldest buffer that another thread can spare: a RETIRED one (its thread exited),
 * or a FULL one of a thread holding more than its share (an idle thread must not pin
 * the pool). Oldest by hand-out order, so the pool keeps the newest history whoever
 * wrote it. Its records are charged to its owner as lost at the start of its history. */
static int take_other(uint32_t slot, struct fr_hold *h, uint32_t share)
{
    for (;;) {
        int best = -1;
        uint64_t best_seq = UINT64_MAX, best_w = 0;
        for (uint32_t i = 0; i < fr_pool.nbuf; i++) {
            struct fr_buffer_desc *b = &fr_pool.bufs[i];
            uint64_t w = LOAD_R(&b->own);
            uint32_t st = FR_OWN_STATE(w);
            if ((st != FR_BUF_FULL && st != FR_BUF_RETIRED) || FR_OWN_SLOT(w) == slot)
                continue;
            if (st == FR_BUF_FULL && LOAD_R(&fr_pool.threads[FR_OWN_SLOT(w)].refs) <= share + 1)
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
        if (!win((uint32_t)best, best_w, slot, h))
            continue;   /* changed meanwhile: look again */
        struct fr_buffer_desc *b = &fr_pool.bufs[best];
        uint32_t owner = FR_OWN_SLOT(best_w);
        struct fr_thread_desc *d = &fr_pool.threads[owner];
        ADD_R(&d->taken_records, LOAD_R(&b->records));
        ADD_R(&d->taken_bytes, body_bytes(b));
        ref_slot(slot);
        stamp((uint32_t)best);
        fr_pool_unref_slot(owner);
        return 0;
    }
}

/* The oldest FULL buffer of `slot` other than `except`: its word in *w; -1 if none. */
static int own_oldest_full(uint32_t slot, int32_t except, uint64_t *wout)
{
    int best = -1;
    uint64_t best_seq = UINT64_MAX;
    for (uint32_t i = 0; i < fr_pool.nbuf; i++) {
        struct fr_buffer_desc *b = &fr_pool.bufs[i];
        uint64_t w = LOAD_R(&b->own);
        if ((int32_t)i == except || FR_OWN_STATE(w) != FR_BUF_FULL || FR_OWN_SLOT(w) != slot)
            continue;
        if (LOAD_R(&b->seq) < best_seq) {
            best_seq = LOAD_R(&b->seq);
            best = (int)i;
            *wout = w;
        }
    }
    return best;
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
    }
    h->idx = -1;
    return ok ? 0 : -1;
}

int fr_pool_next(uint32_t slot, struct fr_hold *h, uint64_t used, uint64_t records,
                 uint64_t *overwritten, uint64_t *overwritten_bytes)
{
    fr_pool_leave(slot, h, used, records, 0);
    if (fr_pool.policy == FR_POLICY_DISCARD)
        return take_free(slot, h);
    uint32_t live = LOAD_R(&fr_pool.live_threads);
    uint32_t share = live ? fr_pool.nbuf / live : fr_pool.nbuf;
    if (share < 1)
        share = 1;
    struct fr_thread_desc *d = &fr_pool.threads[slot];
    int got = -1;
    /* refs - 1 = buffers this (live) thread holds, the one just left included. */
    /* Streaming, the pool is a queue to the file: any FREE buffer first, whatever the
     * share (the share decides only whose unwritten buffers are overwritten). */
    int below = LOAD_R(&d->refs) - 1 < share;
    if (below || fr_pool.stream) {
        got = take_free(slot, h);
        if (got < 0 && below)
            got = take_other(slot, h, share);
    }
    /* Above the share (more threads started since this one grew): hand the oldest back.
     * Not when streaming: the stream writer gives them back once they are in the file. */
    while (!fr_pool.stream && LOAD_R(&d->refs) - 1 > share) {
        uint64_t w;
        int old = own_oldest_full(slot, h->idx, &w);
        if (old < 0)
            break;
        if (!__atomic_compare_exchange_n(&fr_pool.bufs[old].own, &w,
                                         FR_OWN(FR_BUF_FREE, 0, FR_OWN_GEN(w)), 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            continue;   /* taken by a thief: it charged us */
        struct fr_buffer_desc *b = &fr_pool.bufs[old];
        *overwritten += LOAD_R(&b->records);
        *overwritten_bytes += body_bytes(b);
        fr_pool_unref_slot(slot);
    }
    /* At the share: overwrite our own oldest (possibly the one just left). */
    while (got < 0) {
        uint64_t w;
        int old = own_oldest_full(slot, -1, &w);
        if (old < 0)
            break;
        if (!win((uint32_t)old, w, slot, h))
            continue;
        struct fr_buffer_desc *b = &fr_pool.bufs[old];
        *overwritten += LOAD_R(&b->records);
        *overwritten_bytes += body_bytes(b);
        ADD_R(&d->overwritten_own, LOAD_R(&b->records));
        stamp((uint32_t)old);
        got = 0;
    }
    return got;
}

/* ------------------------------------------------------------------ readers */

int fr_pool_view(uint32_t idx, struct fr_buffer_view *v)
{
    struct fr_buffer_desc *b = &fr_pool.bufs[idx];
    uint64_t w = LOAD(&b->own);
    uint32_t st = FR_OWN_STATE(w), slot = FR_OWN_SLOT(w);
    memset(v, 0, sizeof *v);
    v->index = idx;
    v->state = st;
    if (st == FR_BUF_FREE || slot >= FR_MAX_THREADS)
        return 0;
    v->slot = slot;
    v->tid = fr_pool.threads[slot].tid;
    v->seq = LOAD_R(&b->seq);
    if (st == FR_BUF_CURRENT) {
        struct fr_thread *t = fr_pool_pin(slot);
        if (t) {
            fr_writer_position(t, idx, FR_OWN_GEN(w), &v->used, &v->records);
            fr_pool_unpin(slot);
        }
    } else {
        v->used = LOAD_R(&b->used);
        v->records = LOAD_R(&b->records);
    }
    return v->used >= FR_BUFFER_PREAMBLE;
}

uint32_t fr_pool_tid_buffers(int32_t tid, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < fr_pool.nbuf; i++) {
        struct fr_buffer_desc *b = &fr_pool.bufs[i];
        uint64_t w = LOAD(&b->own);
        uint32_t st = FR_OWN_STATE(w);
        if (st != FR_BUF_FULL && st != FR_BUF_RETIRED)
            continue;
        if (fr_pool.threads[FR_OWN_SLOT(w)].tid != tid || LOAD_R(&b->used) < FR_BUFFER_PREAMBLE)
            continue;
        /* insertion sort by seq: a thread holds few buffers */
        uint32_t j = n++;
        while (j > 0 && fr_pool.bufs[out[j - 1]].seq > b->seq) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = i;
    }
    return n;
}

void fr_pool_thread_figures(uint32_t slot, uint64_t *written, uint64_t dropped[FR_DROP_NCAUSES],
                            uint64_t *bytes)
{
    struct fr_thread_desc *d = &fr_pool.threads[slot];
    uint64_t n = 0;
    for (uint32_t i = 0; i < fr_pool.nbuf; i++) {
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
