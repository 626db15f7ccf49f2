/*
 * metadata.c - the metadata block's events: our own (CLOCK, PROCESS, SUMMARY,
 * THREAD_STATS, see fr_format.h for the payloads) and those of registered sources
 * (function tracing's object and function tables...). Runs at flush; async-signal-safe.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "core/recorder.h"
#include "core/log_writer.h"
#include "core/buffer_pool.h"
#include "core/clock.h"
#include "core/session.h"

#define MAX_SOURCES 32

static struct { fr_meta_source_fn fn; void *ctx; } sources[MAX_SOURCES];
static uint32_t nsources;

int fr_meta_register_source(fr_meta_source_fn fn, void *ctx)
{
    uint32_t n = __atomic_load_n(&nsources, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++)
        if (sources[i].fn == fn && sources[i].ctx == ctx)
            return 0;
    uint32_t i = __atomic_fetch_add(&nsources, 1, __ATOMIC_ACQ_REL);
    if (i >= MAX_SOURCES) {
        __atomic_fetch_sub(&nsources, 1, __ATOMIC_ACQ_REL);
        return -1;
    }
    sources[i].ctx = ctx;
    __atomic_store_n(&sources[i].fn, fn, __ATOMIC_RELEASE);
    return 0;
}

/* ------------------------------------------------------------------ process facts */

struct fr_process_info fr_process;

static size_t read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t n = 0;
    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    return n;
}

void fr_process_info_read(void)
{
    fr_process.pid = (uint32_t)getpid();
    fr_process.ppid = (uint32_t)getppid();
    size_t n = read_file("/proc/self/comm", fr_process.name, sizeof fr_process.name);
    while (n && (fr_process.name[n - 1] == '\n' || fr_process.name[n - 1] == 0))
        n--;
    fr_process.name_len = (uint16_t)n;
    ssize_t e = readlink("/proc/self/exe", fr_process.exe, sizeof fr_process.exe);
    fr_process.exe_len = e > 0 ? (uint16_t)e : 0;
    n = read_file("/proc/self/cmdline", fr_process.cmdline, sizeof fr_process.cmdline);
    while (n && fr_process.cmdline[n - 1] == 0) /* no trailing separator */
        n--;
    fr_process.cmdline_len = (uint16_t)n;
}

/* ------------------------------------------------------------------ our events */

static void emit_clock(struct fr_meta_writer *w)
{
    uint8_t p[40];
    uint32_t version = 1, source = fr_clock.source;
    uint64_t base = 0; /* file timestamps are already relative to the init reading */
    memcpy(p, &version, 4);
    memcpy(p + 4, &source, 4);
    memcpy(p + 8, &fr_clock.ticks_per_second, 8);
    memcpy(p + 16, &base, 8);
    memcpy(p + 24, &fr_clock.realtime_ns, 8);
    memcpy(p + 32, &fr_clock.monotonic_ns, 8);
    fr_meta_emit(w, FR_TE_CLOCK, p, sizeof p);
}

static void emit_process(struct fr_meta_writer *w)
{
    uint8_t ids[8];
    memcpy(ids, &fr_process.pid, 4);
    memcpy(ids + 4, &fr_process.ppid, 4);
    struct iovec v[7] = {
        { ids, 8 },
        { &fr_process.name_len, 2 }, { fr_process.name, fr_process.name_len },
        { &fr_process.exe_len, 2 }, { fr_process.exe, fr_process.exe_len },
        { &fr_process.cmdline_len, 2 }, { fr_process.cmdline, fr_process.cmdline_len },
    };
    fr_meta_emit_iov(w, FR_TE_PROCESS, v, 7);
}

struct totals {
    uint32_t threads;
    uint64_t written, dropped, below;
};

static uint64_t kept_records(uint32_t slot)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < fr_pool.nbuf; i++) {
        struct fr_buffer_desc *b = &fr_pool.bufs[i];
        if (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) != FR_BUF_FREE &&
            __atomic_load_n(&b->thread, __ATOMIC_RELAXED) == slot)
            n += __atomic_load_n(&b->records, __ATOMIC_RELAXED);
    }
    return n;
}

static uint32_t thread_count(void)
{
    uint32_t n = __atomic_load_n(&fr_pool.nthreads, __ATOMIC_ACQUIRE);
    return n > FR_MAX_THREADS ? FR_MAX_THREADS : n;
}

/* Per-thread figures: kept records, all drops. */
static void thread_figures(uint32_t s, uint64_t *written, uint64_t *dropped, uint64_t *bytes)
{
    struct fr_thread_desc *d = &fr_pool.threads[s];
    *written = kept_records(s);
    *dropped = d->records_dropped + __atomic_load_n(&d->reclaimed_records, __ATOMIC_RELAXED);
    *bytes = d->bytes_dropped + __atomic_load_n(&d->reclaimed_bytes, __ATOMIC_RELAXED);
}

static void totals(struct totals *t)
{
    memset(t, 0, sizeof *t);
    uint32_t n = thread_count();
    for (uint32_t s = 0; s < n; s++) {
        if (__atomic_load_n(&fr_pool.threads[s].state, __ATOMIC_ACQUIRE) == FR_THREAD_UNUSED)
            continue;
        uint64_t wr, dr, by;
        thread_figures(s, &wr, &dr, &by);
        t->threads++;
        t->written += wr;
        t->dropped += dr;
        t->below += fr_pool.threads[s].calls_below_threshold;
    }
    t->dropped += __atomic_load_n(&fr_pool.untracked_drops, __ATOMIC_RELAXED);
}

static void emit_summary(struct fr_meta_writer *w)
{
    struct totals t;
    totals(&t);
    uint8_t p[60];
    uint32_t version = 1, policy = (uint32_t)fr_pool.policy, nbuf = fr_pool.nbuf;
    uint64_t bsize = fr_pool.buffer_size;
    uint64_t thr = fr_opts.threshold_us ? fr_clock_us_to_ticks(fr_opts.threshold_us) : 0;
    memcpy(p, &version, 4);
    memcpy(p + 4, &policy, 4);
    memcpy(p + 8, &bsize, 8);
    memcpy(p + 16, &nbuf, 4);
    memcpy(p + 20, &t.threads, 4);
    memcpy(p + 24, &t.written, 8);
    memcpy(p + 32, &t.dropped, 8);
    memcpy(p + 40, &t.below, 8);
    memcpy(p + 48, &thr, 8);
    fr_meta_emit(w, FR_TE_SUMMARY, p, 56);
}

static void emit_thread_stats(struct fr_meta_writer *w)
{
    uint32_t n = thread_count();
    for (uint32_t s = 0; s < n; s++) {
        struct fr_thread_desc *d = &fr_pool.threads[s];
        if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == FR_THREAD_UNUSED)
            continue;
        uint8_t p[36 + 2];
        uint64_t wr, dr, by;
        thread_figures(s, &wr, &dr, &by);
        uint16_t nl = (uint16_t)strnlen(d->name, sizeof d->name);
        memcpy(p, &d->tid, 4);
        memcpy(p + 4, &wr, 8);
        memcpy(p + 12, &dr, 8);
        memcpy(p + 20, &by, 8);
        memcpy(p + 28, &d->calls_below_threshold, 8);
        memcpy(p + 36, &nl, 2);
        struct iovec v[2] = { { p, sizeof p }, { d->name, nl } };
        fr_meta_emit_iov(w, FR_TE_THREAD_STATS, v, 2);
    }
}

void fr_meta_emit_all(struct fr_meta_writer *w)
{
    emit_clock(w);
    emit_process(w);
    emit_summary(w);
    emit_thread_stats(w);
    uint32_t n = __atomic_load_n(&nsources, __ATOMIC_ACQUIRE);
    if (n > MAX_SOURCES)
        n = MAX_SOURCES;
    for (uint32_t i = 0; i < n; i++) {
        fr_meta_source_fn fn = __atomic_load_n(&sources[i].fn, __ATOMIC_ACQUIRE);
        if (fn)
            fn(w, sources[i].ctx);
    }
}

/* Totals for fr_get_stats and the flush message (exact once finalized). */
void fr_meta_totals(uint64_t *written, uint64_t *dropped, uint64_t *below, uint32_t *threads)
{
    struct totals t;
    totals(&t);
    *written = t.written;
    *dropped = t.dropped;
    *below = t.below;
    *threads = t.threads;
}
