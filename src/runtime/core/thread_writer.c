/*
 * thread_writer.c - the record paths (fr_record_* of recorder.h and the public fr_log_*),
 * the slow path that changes buffers, thread registration and thread exit.
 *
 * Policies when the current buffer is full (both documented in include/flightrec.h):
 *  - discard: take a FREE buffer; when none is left the thread drops (and counts) every
 *    further record: the oldest history is kept.
 *  - overwrite: a thread may hold at most its fair share of the pool,
 *    share = max(1, buffers / live threads). Below its share it takes a FREE buffer, or
 *    else the oldest buffer of an exited thread; at its share (or when nothing is free)
 *    it overwrites its own oldest buffer, and a thread above its share (more threads
 *    started since it grew) gives its oldest buffers back to the pool. A thread with no
 *    buffer and nothing free drops records until one is freed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "core/recorder.h"
#include "flightrec.h"
#include "core/thread_writer.h"
#include "core/buffer_pool.h"
#include "core/clock.h"
#include "core/cpu_id.h"
#include "core/session.h"
#include "core/signal_handlers.h"

__thread struct fr_thread fr_tls __attribute__((tls_model("initial-exec")));
uint32_t fr_session;
volatile int fr_recording;

static pthread_key_t exit_key;

#define LIKELY(x)   __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RETRY_AFTER_DROPS 64

/* ------------------------------------------------------------------ record bytes */

static inline void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void put_metadata(uint8_t *p, unsigned kind, const void *payload, size_t len)
{
    uint8_t rec[FR_XRAY_METADATA_SIZE] = { FR_MD_BYTE0(kind) };
    memcpy(rec + 1, payload, len);
    memcpy(p, rec, sizeof rec);
}

static void put_new_cpu(uint8_t *p, uint16_t cpu, uint64_t rel_tsc)
{
    uint8_t pl[10];
    memcpy(pl, &cpu, 2);
    memcpy(pl + 2, &rel_tsc, 8);
    put_metadata(p, FR_MD_NEW_CPU_ID, pl, sizeof pl);
}

/* The four metadata records every buffer starts with (FR_BUFFER_PREAMBLE bytes). */
static void put_preamble(uint8_t *p, int32_t tid, uint16_t cpu, uint64_t tsc)
{
    uint64_t rel = tsc - fr_clock.base_tsc;
    int64_t sec;
    int32_t usec;
    fr_clock_walltime(rel, &sec, &usec);
    uint8_t wt[12];
    memcpy(wt, &sec, 8);
    memcpy(wt + 8, &usec, 4);
    put_metadata(p, FR_MD_NEW_BUFFER, &tid, 4);
    put_metadata(p + 16, FR_MD_WALLTIME_MARKER, wt, sizeof wt);
    put_metadata(p + 32, FR_MD_PID, &fr_pid, 4);
    put_new_cpu(p + 48, cpu, rel);
}

/* ------------------------------------------------------------------ buffers */

static void drop(struct fr_thread *t, size_t bytes)
{
    t->dropped_records++;
    t->dropped_bytes += bytes;
}

static void charge_overwrite(struct fr_thread *t, uint32_t idx)
{
    struct fr_buffer_desc *b = &fr_pool.bufs[idx];
    uint64_t records = __atomic_load_n(&b->records, __ATOMIC_RELAXED);
    uint64_t used = __atomic_load_n(&b->used, __ATOMIC_RELAXED);
    t->dropped_records += records;
    t->overwritten += records;
    t->dropped_bytes += used > FR_BUFFER_PREAMBLE ? used - FR_BUFFER_PREAMBLE : 0;
}

static void leave_current(struct fr_thread *t)
{
    if (t->cur < 0)
        return;
    struct fr_buffer_desc *b = &fr_pool.bufs[t->cur];
    __atomic_store_n(&b->used, (uint64_t)(t->pos - fr_pool_buffer((uint32_t)t->cur)),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&b->records, t->records, __ATOMIC_RELAXED);
    t->cur = -1;
    t->pos = t->end = NULL;
    t->records = 0;
}

static void start_buffer(struct fr_thread *t, int idx, uint64_t tsc, uint32_t cpu)
{
    uint8_t *start = fr_pool_buffer((uint32_t)idx);
    put_preamble(start, t->tid, fr_cpu_number(cpu), tsc);
    t->cur = idx;
    t->pos = start + FR_BUFFER_PREAMBLE;
    t->end = start + fr_pool.buffer_size;
    t->last_tsc = tsc;
    t->cpu = cpu;
    t->records = 0;
    t->enter_run = 0;
}

/* Overwrite policy: which buffer comes next (see the rule at the top). */
static int next_overwrite_buffer(struct fr_thread *t)
{
    uint32_t live = __atomic_load_n(&fr_pool.live_threads, __ATOMIC_RELAXED);
    uint32_t share = live ? fr_pool.nbuf / live : fr_pool.nbuf;
    if (share < 1)
        share = 1;
    uint32_t slot = (uint32_t)t->slot;
    int idx = -1;
    if (t->held < share) {
        idx = fr_pool_take_free(slot);
        if (idx < 0)
            idx = fr_pool_reclaim_retired(slot);
        if (idx >= 0)
            t->held++;
    }
    /* Above the share: hand the oldest back (their records are lost) until at it. */
    while (t->held > share && t->held > 1) {
        int old = fr_pool_oldest_owned(slot);
        if (old < 0 || old == idx)
            break;
        charge_overwrite(t, (uint32_t)old);
        __atomic_store_n(&fr_pool.bufs[old].state, FR_BUF_FREE, __ATOMIC_RELEASE);
        t->held--;
    }
    if (idx < 0 && t->held > 0) {
        idx = fr_pool_oldest_owned(slot);
        if (idx >= 0) {
            charge_overwrite(t, (uint32_t)idx);
            fr_pool_stamp((uint32_t)idx, slot);
        }
    }
    return idx;
}

/* Leaves the current buffer and starts another; 0 or -1 (no buffer: caller drops). */
static int switch_buffer(struct fr_thread *t, uint64_t tsc, uint32_t cpu)
{
    leave_current(t);
    int idx;
    if (fr_pool.policy == FR_POLICY_DISCARD) {
        idx = fr_pool_take_free((uint32_t)t->slot);
        if (idx < 0) {
            t->exhausted = 1;
            return -1;
        }
        t->held++;
    } else {
        idx = next_overwrite_buffer(t);
        if (idx < 0) {
            t->retry_countdown = RETRY_AFTER_DROPS;
            return -1;
        }
    }
    start_buffer(t, idx, tsc, cpu);
    return 0;
}

/* ------------------------------------------------------------------ registration */

static void reset_thread_state(struct fr_thread *t)
{
    uint32_t busy = t->busy, key_set = t->key_set;
    memset(t, 0, sizeof *t);
    t->busy = busy;
    t->key_set = key_set;
    t->cur = -1;
    t->slot = -1;
    t->session = fr_session;
    t->threshold_ticks = fr_opts.threshold_us ? fr_clock_us_to_ticks(fr_opts.threshold_us) : 0;
    t->rewind_enabled = t->threshold_ticks != 0;
}

/* Claims a thread descriptor (lock-free). 0, or -1 when the recorder stopped meanwhile
 * or there is no descriptor left. */
static int register_thread(struct fr_thread *t)
{
    uint32_t slot = __atomic_fetch_add(&fr_pool.nthreads, 1, __ATOMIC_RELAXED);
    if (slot >= FR_MAX_THREADS) {
        t->slot = -2;
        return -1;
    }
    struct fr_thread_desc *d = &fr_pool.threads[slot];
    t->tid = (int32_t)gettid();
    t->slot = (int32_t)slot;
    d->tid = t->tid;
    d->pthread = (uint64_t)pthread_self();
    __atomic_fetch_add(&fr_pool.live_threads, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&d->state, FR_THREAD_LIVE, __ATOMIC_RELEASE);
    /* Dekker with fr_finalize: publish ourselves, then look at fr_recording again.
     * Either finalize sees us (and waits for busy to clear) or we see it stopped. */
    __atomic_store_n(&d->live, t, __ATOMIC_SEQ_CST);
    if (!t->key_set) {
        pthread_setspecific(exit_key, t);
        t->key_set = 1;
        fr_signals_thread_start(); /* crash_dump: this thread's alternate signal stack */
    }
    if (!__atomic_load_n(&fr_recording, __ATOMIC_SEQ_CST))
        return -1;
    return 0;
}

/* Thread exit (pthread key destructor): hand the buffers back with their data. */
static void thread_exit(void *arg)
{
    struct fr_thread *t = arg;
    __atomic_store_n(&t->busy, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&fr_registry_lock);
    if (t->session == fr_session && t->slot >= 0 && fr_pool.map) {
        struct fr_thread_desc *d = &fr_pool.threads[t->slot];
        fr_writer_snapshot(t);
        fr_pool_retire_thread((uint32_t)t->slot);
        prctl(PR_GET_NAME, d->name, 0, 0, 0);
        d->name[15] = 0;
        __atomic_store_n(&d->live, NULL, __ATOMIC_RELEASE);
        __atomic_store_n(&d->state, FR_THREAD_EXITED, __ATOMIC_RELEASE);
        __atomic_fetch_sub(&fr_pool.live_threads, 1, __ATOMIC_RELAXED);
    }
    t->pos = t->end = NULL;
    t->exited = 1;
    pthread_mutex_unlock(&fr_registry_lock);
    __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

int fr_writer_setup_key(void)
{
    return pthread_key_create(&exit_key, thread_exit);
}

void fr_writer_snapshot(struct fr_thread *t)
{
    if (t->slot < 0)
        return;
    struct fr_thread_desc *d = &fr_pool.threads[t->slot];
    leave_current(t);
    d->records_dropped = t->dropped_records + t->nested_drops;
    d->records_overwritten = t->overwritten;
    d->bytes_dropped = t->dropped_bytes;
    d->calls_below_threshold = t->below_threshold;
}

void fr_writer_forget_self(void)
{
    struct fr_thread *t = &fr_tls;
    t->pos = t->end = NULL;
    t->cur = -1;
    t->slot = -1;
    t->session = 0; /* stale: the next record registers in the child's session */
}

/* ------------------------------------------------------------------ slow path */

/* Makes room for a record of `need` bytes at (tsc, cpu): registers the thread, starts
 * a buffer, writes NewCPUId or TSCWrap as needed. `max_delta` is the largest delta the
 * record can carry. Returns where to write, or NULL if the record is dropped (counted). */
static uint8_t *reserve_slow(struct fr_thread *t, uint64_t tsc, uint32_t cpu, size_t need,
                             uint64_t max_delta)
{
    if (UNLIKELY(t->session != fr_session))
        reset_thread_state(t);
    if (UNLIKELY(t->exited | t->exhausted) || need > fr_pool.buffer_size - FR_BUFFER_PREAMBLE) {
        if (t->slot == -2)
            __atomic_fetch_add(&fr_pool.untracked_drops, 1, __ATOMIC_RELAXED);
        drop(t, need);
        return NULL;
    }
    if (t->slot < 0) {
        if (t->slot == -2 || register_thread(t) < 0) {
            if (t->slot == -2)
                __atomic_fetch_add(&fr_pool.untracked_drops, 1, __ATOMIC_RELAXED);
            drop(t, need);
            return NULL;
        }
    }
    if (t->cur < 0) {
        if (t->retry_countdown && --t->retry_countdown) {
            drop(t, need);
            return NULL;
        }
        if (switch_buffer(t, tsc, cpu) < 0) {
            drop(t, need);
            return NULL;
        }
    }
    size_t extra = (cpu != t->cpu || tsc - t->last_tsc > max_delta) ? FR_XRAY_METADATA_SIZE : 0;
    if ((size_t)(t->end - t->pos) < need + extra) {
        if (switch_buffer(t, tsc, cpu) < 0) {
            drop(t, need);
            return NULL;
        }
        return t->pos;
    }
    if (cpu != t->cpu) {
        put_new_cpu(t->pos, fr_cpu_number(cpu), tsc - fr_clock.base_tsc);
        t->pos += FR_XRAY_METADATA_SIZE;
        t->cpu = cpu;
        t->last_tsc = tsc;
        t->enter_run = 0;
    } else if (tsc - t->last_tsc > max_delta) {
        uint64_t rel = tsc - fr_clock.base_tsc;
        put_metadata(t->pos, FR_MD_TSC_WRAP, &rel, 8);
        t->pos += FR_XRAY_METADATA_SIZE;
        t->last_tsc = tsc;
        t->enter_run = 0;
    }
    return t->pos;
}

/* Room for `need` bytes: inline check, else the slow path. */
static inline uint8_t *reserve(struct fr_thread *t, uint64_t tsc, uint32_t cpu, size_t need,
                               uint64_t max_delta)
{
    uint8_t *p = t->pos;
    if (LIKELY(cpu == t->cpu && tsc - t->last_tsc <= max_delta &&
               (uintptr_t)t->end - (uintptr_t)p >= need))
        return p;
    return reserve_slow(t, tsc, cpu, need, max_delta);
}

static inline int guard_enter(struct fr_thread *t)
{
    if (UNLIKELY(t->busy)) {
        t->nested_drops++;
        return 0;
    }
    __atomic_store_n(&t->busy, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (UNLIKELY(!__atomic_load_n(&fr_recording, __ATOMIC_ACQUIRE))) {
        __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
        return 0;
    }
    return 1;
}

static inline void guard_leave(struct fr_thread *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* threshold_us: an exit right after its own enter, sooner than the threshold, removes
 * the enter instead of being written (the call leaves no record). Nested short calls
 * unwind one by one, as in compiler-rt's FDR mode. */
static inline int try_rewind(struct fr_thread *t, uint32_t id, uint64_t tsc)
{
    uint64_t w;
    memcpy(&w, t->pos - 8, 8);
    if ((uint32_t)w != fr_function_record_word(id, FR_FN_ENTER) ||
        tsc - t->last_tsc >= t->threshold_ticks)
        return 0;
    t->pos -= 8;
    t->last_tsc -= w >> 32;
    t->records--;
    t->enter_run--;
    t->below_threshold++;
    return 1;
}

/* Writes a function record at p (room already reserved) and advances the thread's
 * state. `run` is the count of rewindable enters before this record: the threshold
 * rewind may cancel an exit against them, and a record after a buffer or CPU change
 * starts a new run. */
static inline __attribute__((always_inline)) void
put_function(struct fr_thread *t, uint8_t *p, uint32_t id, unsigned kind, uint64_t tsc,
             uint32_t run)
{
    put_u64(p, fr_function_record_word(id, kind) | (tsc - t->last_tsc) << 32);
    t->pos = p + 8;
    t->last_tsc = tsc;
    t->records++;
    t->enter_run = kind == FR_FN_ENTER ? run + t->rewind_enabled : 0;
}

/* Function record through the slow path; also clears the guard (so that the hot path
 * reaches it by a tail call and needs no saved registers). */
static __attribute__((noinline)) void function_slow(uint32_t id, unsigned kind, uint64_t tsc,
                                                     uint32_t cpu)
{
    struct fr_thread *t = &fr_tls;
    uint8_t *p = reserve_slow(t, tsc, cpu, FR_XRAY_FUNCTION_RECORD_SIZE, UINT32_MAX);
    if (p)
        put_function(t, p, id, kind, tsc, 0);
    guard_leave(t);
}

/* An exit that may cancel its short call (threshold_us); room is already checked. */
static __attribute__((noinline)) void function_exit_rewind(uint32_t id, unsigned kind, uint64_t tsc)
{
    struct fr_thread *t = &fr_tls;
    if (!try_rewind(t, id, tsc))
        put_function(t, t->pos, id, kind, tsc, 0);   /* an exit: ends the run */
    guard_leave(t);
}

/* Without a usable TSC: the same record with the CLOCK_MONOTONIC reading. */
static __attribute__((noinline)) void function_monotonic(uint32_t id, unsigned kind)
{
    struct fr_thread *t = &fr_tls;
    uint64_t tsc = fr_clock_now();
    uint32_t cpu = fr_cpu_raw();
    uint8_t *p = reserve(t, tsc, cpu, FR_XRAY_FUNCTION_RECORD_SIZE, UINT32_MAX);
    if (p) {
        if (kind != FR_FN_ENTER && t->enter_run && try_rewind(t, id, tsc)) {
            guard_leave(t);
            return;
        }
        put_function(t, p, id, kind, tsc, t->enter_run);
    }
    guard_leave(t);
}

/* ------------------------------------------------------------------ record paths */

void fr_record_function(uint32_t id, unsigned kind)
{
    struct fr_thread *t = &fr_tls;
    if (!guard_enter(t))
        return;
    id &= FR_XRAY_MAX_FUNCTION_ID;
    if (UNLIKELY(!fr_clock_use_tsc))
        return function_monotonic(id, kind);
    uint64_t tsc = fr_arch_rdtsc();
    uint32_t cpu = fr_cpu_raw();
    uint8_t *p = t->pos;
    uint64_t delta = tsc - t->last_tsc;
    if (UNLIKELY((cpu != t->cpu) | (delta > UINT32_MAX) | ((uintptr_t)t->end - (uintptr_t)p < 8)))
        return function_slow(id, kind, tsc, cpu);
    if (UNLIKELY(kind != FR_FN_ENTER && t->enter_run))
        return function_exit_rewind(id, kind, tsc);
    put_function(t, p, id, kind, tsc, t->enter_run);
    guard_leave(t);
}

void fr_record_function_arg(uint32_t id, uint64_t arg)
{
    struct fr_thread *t = &fr_tls;
    if (!guard_enter(t))
        return;
    uint64_t tsc = fr_clock_now();
    uint32_t cpu = fr_cpu_raw();
    uint8_t *p = reserve(t, tsc, cpu, 8 + FR_XRAY_METADATA_SIZE, UINT32_MAX);
    if (p) {
        id &= FR_XRAY_MAX_FUNCTION_ID;
        put_u64(p, fr_function_record_word(id, FR_FN_ENTER_ARG) | (tsc - t->last_tsc) << 32);
        put_metadata(p + 8, FR_MD_CALL_ARGUMENT, &arg, 8);
        t->pos = p + 8 + FR_XRAY_METADATA_SIZE;
        t->last_tsc = tsc;
        t->records++;
        t->enter_run = 0;
    }
    guard_leave(t);
}

/* Custom (kind 5) and typed (kind 8) events: a 16-byte header then the payload (`prefix`,
 * then the iovecs). Their delta is a signed 32-bit field, hence INT32_MAX. */
static void record_event(int typed, uint16_t type, const void *prefix, size_t prefix_len,
                         const struct iovec *iov, int iovcnt)
{
    struct fr_thread *t = &fr_tls;
    if (!guard_enter(t))
        return;
    size_t size = prefix_len;
    for (int i = 0; i < iovcnt; i++)
        size += iov[i].iov_len;
    uint64_t tsc = fr_clock_now();
    uint32_t cpu = fr_cpu_raw();
    /* llvm-xray rejects empty events: they are dropped (and counted). */
    uint8_t *p = size && size <= INT32_MAX ? reserve(t, tsc, cpu, FR_XRAY_METADATA_SIZE + size, INT32_MAX)
                                   : NULL;
    if (p) {
        uint8_t hdr[FR_XRAY_METADATA_SIZE] = { FR_MD_BYTE0(typed ? FR_MD_TYPED_EVENT : FR_MD_CUSTOM_EVENT) };
        int32_t sz = (int32_t)size, delta = (int32_t)(tsc - t->last_tsc);
        memcpy(hdr + 1, &sz, 4);
        memcpy(hdr + 5, &delta, 4);
        if (typed)
            memcpy(hdr + 9, &type, 2);
        memcpy(p, hdr, sizeof hdr);
        uint8_t *q = p + sizeof hdr;
        if (prefix_len)
            memcpy(q, prefix, prefix_len);
        q += prefix_len;
        for (int i = 0; i < iovcnt; i++) {
            if (iov[i].iov_len)
                memcpy(q, iov[i].iov_base, iov[i].iov_len);
            q += iov[i].iov_len;
        }
        t->pos = q;
        t->last_tsc = tsc;
        t->records++;
        t->enter_run = 0;
    } else if (size == 0 || size > INT32_MAX) {
        drop(t, size);
    }
    guard_leave(t);
}

void fr_record_custom(const void *data, size_t size)
{
    struct iovec v = { (void *)data, size };
    record_event(0, 0, NULL, 0, &v, 1);
}

void fr_record_typed(uint16_t type, const void *data, size_t size)
{
    struct iovec v = { (void *)data, size };
    record_event(1, type, NULL, 0, &v, 1);
}

void fr_record_typed_iov(uint16_t type, const struct iovec *iov, int iovcnt)
{
    record_event(1, type, NULL, 0, iov, iovcnt);
}

/* Our records are custom events with the envelope first (fr_format.h): a typed event
 * would give every later function record of the thread its type in llvm-xray. */
void fr_record_ours_iov(uint16_t type, const struct iovec *iov, int iovcnt)
{
    struct fr_te_envelope e = { .magic = FR_TE_MAGIC, .type = type };
    record_event(0, 0, &e, sizeof e, iov, iovcnt);
}

/* ------------------------------------------------------------------ public API */

void fr_log_enter(uint32_t function_id) { fr_record_function(function_id, FR_FN_ENTER); }
void fr_log_exit(uint32_t function_id) { fr_record_function(function_id, FR_FN_EXIT); }
void fr_log_tail_exit(uint32_t function_id) { fr_record_function(function_id, FR_FN_TAIL_EXIT); }
void fr_log_enter_arg(uint32_t function_id, uint64_t arg) { fr_record_function_arg(function_id, arg); }
void fr_log_custom_event(const void *data, size_t size) { fr_record_custom(data, size); }
void fr_log_typed_event(uint16_t type, const void *data, size_t size) { fr_record_typed(type, data, size); }
