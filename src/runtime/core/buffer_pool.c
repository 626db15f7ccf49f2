/*
 * buffer_pool.c - the mapping that holds every buffer and descriptor, thread slots, and
 * the policy that hands buffers to threads. Hand-out runs when a buffer fills (not per
 * record): it scans the descriptors and claims one with a compare-and-swap on its
 * ownership word; no lock, no system call. docs/BUFFERS.md states the protocol.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "core/backing_file.h"
#include "core/buffer_pool.h"
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

/* ------------------------------------------------------------------ memory budget */

/* Reads a small file into buf (NUL-terminated); bytes read or -1. No stdio, no malloc. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = 0;
    return n;
}

static uint64_t parse_u64(const char *s, const char **end)
{
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (uint64_t)(*s++ - '0');
    if (end)
        *end = s;
    return v;
}

/* Bytes a memory cgroup still allows: the smallest limit - usage from the cgroup of
 * this process up to the hierarchy's root. `line` is the cgroup path (after the second
 * colon of its /proc/self/cgroup line). UINT64_MAX when unlimited or unknown. */
static uint64_t cgroup_path_room(const char *cgpath, const char *base, const char *limit_file,
                                 const char *usage_file)
{
    char dir[1200];
    size_t blen = strlen(base), len = blen;
    memcpy(dir, base, blen);
    for (const char *p = cgpath; *p && *p != '\n' && len < 1000; p++)
        dir[len++] = *p;
    while (len > blen && dir[len - 1] == '/')
        len--;
    uint64_t room = UINT64_MAX;
    for (;;) {
        char f[1300], v[64];
        size_t n = len;
        memcpy(f, dir, n);
        f[n++] = '/';
        memcpy(f + n, limit_file, strlen(limit_file) + 1);
        /* "max" (v2) or a number near 2^63 (v1) mean no limit */
        if (read_small(f, v, sizeof v) > 0 && v[0] >= '0' && v[0] <= '9') {
            uint64_t max = parse_u64(v, NULL), cur = 0;
            memcpy(f + n, usage_file, strlen(usage_file) + 1);
            if (read_small(f, v, sizeof v) > 0)
                cur = parse_u64(v, NULL);
            uint64_t r = max > cur ? max - cur : 0;
            if (max < (1ull << 62) && r < room)
                room = r;
        }
        if (len <= blen)
            break;
        while (len > blen && dir[len - 1] != '/')
            len--;
        if (len > blen)
            len--;   /* drop the slash */
    }
    return room;
}

/* Bytes the memory cgroup of this process (v2, or v1's memory controller) still allows. */
static uint64_t cgroup_room(void)
{
    char buf[4096];
    if (read_small("/proc/self/cgroup", buf, sizeof buf) <= 0)
        return UINT64_MAX;
    uint64_t room = UINT64_MAX, r;
    const char *v2 = strstr(buf, "0::");
    if (v2 && (v2 == buf || v2[-1] == '\n')) {
        r = cgroup_path_room(v2 + 3, "/sys/fs/cgroup", "memory.max", "memory.current");
        if (r < room)
            room = r;
    }
    const char *v1 = strstr(buf, ":memory:");
    if (v1) {
        r = cgroup_path_room(v1 + 8, "/sys/fs/cgroup/memory", "memory.limit_in_bytes",
                             "memory.usage_in_bytes");
        if (r < room)
            room = r;
    }
    return room;
}

/* MemAvailable of /proc/meminfo in bytes, or UINT64_MAX. */
static uint64_t mem_available(void)
{
    char buf[4096];
    if (read_small("/proc/meminfo", buf, sizeof buf) <= 0)
        return UINT64_MAX;
    const char *p = strstr(buf, "MemAvailable:");
    if (!p)
        return UINT64_MAX;
    p += 13;
    while (*p == ' ')
        p++;
    return parse_u64(p, NULL) * 1024;
}

/* Address space left under RLIMIT_AS, or UINT64_MAX. */
static uint64_t as_room(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    char buf[128];
    uint64_t vsize = 0;
    if (read_small("/proc/self/statm", buf, sizeof buf) > 0)
        vsize = parse_u64(buf, NULL) * (uint64_t)sysconf(_SC_PAGESIZE);
    return rl.rlim_cur > vsize ? rl.rlim_cur - vsize : 0;
}

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

/* The pool may take at most 7/8 of what the process can still get (the program needs
 * the rest); returns 0 or -1 (said why on stderr). */
static int check_budget(uint64_t need)
{
    struct { uint64_t room; const char *what; } lim[3] = {
        { as_room(), "RLIMIT_AS (ulimit -v)" },
        { cgroup_room(), "the memory cgroup's limit" },
        { mem_available(), "MemAvailable" },
    };
    for (int i = 0; i < 3; i++)
        if (lim[i].room != UINT64_MAX && need > lim[i].room - lim[i].room / 8) {
            say_too_big(need, lim[i].room, lim[i].what);
            return -1;
        }
    return 0;
}

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

int fr_pool_create(const struct fr_options *o)
{
    size_t page = 4096;
    size_t data = (size_t)o->buffers * o->buffer_size;
    if (o->buffers && data / o->buffers != o->buffer_size)
        return errno = ENOMEM, -1;
    size_t bufs = round_up((size_t)o->buffers * sizeof(struct fr_buffer_desc), page);
    size_t thr = round_up(FR_MAX_THREADS * sizeof(struct fr_thread_desc), page);
    size_t scratch = round_up((size_t)o->buffers * sizeof(uint32_t), page);
    size_t data_r = round_up(data, page);
    size_t total = data_r + bufs + thr + scratch;
    if (total < data || check_budget(total) != 0)
        return errno = ENOMEM, -1;
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
    fr_pool.threads = (struct fr_thread_desc *)((uint8_t *)fr_pool.bufs + bufs);
    fr_pool.scratch = (uint32_t *)((uint8_t *)fr_pool.threads + thr);
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
