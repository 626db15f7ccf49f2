/*
 * metadata.c - the metadata block's records: our own (CLOCK, PROCESS, SUMMARY,
 * THREAD_STATS: fr_format.h's structs, docs/FORMAT.md) and those of registered sources
 * (function tracing's object and function tables...). Runs at flush; async-signal-safe.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include "core/recorder.h"
#include "core/buffer_pool.h"
#include "core/clock.h"
#include "core/session.h"
#include "core/metadata.h"
#include "core/trace_out.h"

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

static fr_meta_site_fn site_lookup;

void fr_meta_register_sites(fr_meta_site_fn fn)
{
    __atomic_store_n(&site_lookup, fn, __ATOMIC_RELEASE);
}

int fr_meta_site(uint32_t id, const void **bytes, uint32_t *size)
{
    fr_meta_site_fn fn = __atomic_load_n(&site_lookup, __ATOMIC_ACQUIRE);
    return fn ? fn(id, bytes, size) : -1;
}

/* ------------------------------------------------------------------ our events */

static void emit_clock(struct fr_meta_writer *w)
{
    struct fr_te_clock c = {
        .version = 1,
        .source = fr_clock.source,
        .ticks_per_second = fr_clock.ticks_per_second,
        .base_tsc = 0, /* file timestamps are already relative to the init reading */
        .realtime_ns = fr_clock.realtime_ns,
        .monotonic_ns = fr_clock.monotonic_ns,
    };
    fr_meta_emit(w, FR_TE_CLOCK, &c, sizeof c);
}

static void emit_process(struct fr_meta_writer *w)
{
    struct fr_te_process p = { .pid = fr_session.process.pid, .ppid = fr_session.process.ppid };
    struct iovec v[7] = {
        { &p, sizeof p },
        { &fr_session.process.name_len, 2 }, { fr_session.process.name, fr_session.process.name_len },
        { &fr_session.process.exe_len, 2 }, { fr_session.process.exe, fr_session.process.exe_len },
        { &fr_session.process.cmdline_len, 2 }, { fr_session.process.cmdline, fr_session.process.cmdline_len },
    };
    fr_meta_emit_iov(w, FR_TE_PROCESS, v, 7);
}

struct totals {
    uint32_t threads;
    uint64_t written, dropped, below;
    uint64_t cause[FR_DROP_NCAUSES];
};

static uint32_t thread_count(void)
{
    uint32_t n = __atomic_load_n(&fr_pool.nthreads, __ATOMIC_ACQUIRE);
    return n > FR_MAX_THREADS ? FR_MAX_THREADS : n;
}

/* Every slot in use, plus the threads whose slot was recycled and the drops of no slot. */
static void totals(struct totals *t)
{
    memset(t, 0, sizeof *t);
    uint32_t n = thread_count();
    for (uint32_t s = 0; s < n; s++) {
        if (__atomic_load_n(&fr_pool.threads[s].state, __ATOMIC_ACQUIRE) == FR_THREAD_UNUSED)
            continue;
        uint64_t wr, by, c[FR_DROP_NCAUSES];
        fr_pool_thread_figures(s, &wr, c, &by);
        t->threads++;
        t->written += wr;
        for (int i = 0; i < FR_DROP_NCAUSES; i++)
            t->cause[i] += c[i];
        t->below += __atomic_load_n(&fr_pool.threads[s].calls_below_threshold, __ATOMIC_RELAXED);
    }
    t->threads += __atomic_load_n(&fr_pool.recycled_threads, __ATOMIC_RELAXED);
    t->written += __atomic_load_n(&fr_pool.recycled_streamed, __ATOMIC_RELAXED);
    t->below += __atomic_load_n(&fr_pool.recycled_below, __ATOMIC_RELAXED);
    for (int i = 0; i < FR_DROP_NCAUSES; i++) {
        t->cause[i] += __atomic_load_n(&fr_pool.recycled[i], __ATOMIC_RELAXED);
        t->dropped += t->cause[i];
    }
}

static void emit_drops(struct fr_meta_writer *w, int32_t tid, const uint64_t cause[FR_DROP_NCAUSES])
{
    struct fr_te_drops p = { .tid = tid, .ncauses = FR_DROP_NCAUSES };
    memcpy(p.cause, cause, sizeof p.cause);
    fr_meta_emit(w, FR_TE_DROPS, &p, sizeof p);
}

/* Where a record's `written` count lands: after its header and envelope. */
static uint64_t written_at(const struct fr_meta_writer *w, size_t field)
{
    return w->out->offset + FR_ENVELOPED_SIZE(field);
}

static void emit_summary(struct fr_meta_writer *w)
{
    struct totals t;
    if (w->figures) {   /* a snapshot's own counts */
        struct fr_meta_figures f;
        w->figures->get(FR_META_TOTALS, &f,
                        written_at(w, offsetof(struct fr_te_summary, records_written)),
                        w->figures->ctx);
        memset(&t, 0, sizeof t);
        t.threads = f.threads;
        t.written = f.written;
        t.below = f.below;
        for (int i = 0; i < FR_DROP_NCAUSES; i++) {
            t.cause[i] = f.dropped[i];
            t.dropped += f.dropped[i];
        }
    } else {
        totals(&t);
    }
    struct fr_te_summary p = {
        .version = 1,
        .policy = (uint32_t)fr_pool.policy,
        .buffer_size = fr_pool.buffer_size,
        .buffers = fr_pool.nbuf,
        .threads = t.threads,
        .records_written = t.written,
        .records_dropped = t.dropped,
        .calls_below_threshold = t.below,
        .threshold_ticks = fr_session.opts.threshold_us ? fr_clock_us_to_ticks(fr_session.opts.threshold_us) : 0,
    };
    fr_meta_emit(w, FR_TE_SUMMARY, &p, sizeof p);
    emit_drops(w, 0, t.cause);
}

static void emit_thread_stats(struct fr_meta_writer *w)
{
    uint32_t n = thread_count();
    for (uint32_t s = 0; s < n; s++) {
        struct fr_thread_desc *d = &fr_pool.threads[s];
        if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == FR_THREAD_UNUSED)
            continue;
        struct fr_te_thread_stats p = { .tid = d->tid,
                                        .calls_below_threshold = d->calls_below_threshold };
        uint64_t wr, dr, by;
        uint64_t c[FR_DROP_NCAUSES];
        if (w->figures) {   /* a snapshot's own counts */
            struct fr_meta_figures f;
            w->figures->get(s, &f,
                            written_at(w, offsetof(struct fr_te_thread_stats, records_written)),
                            w->figures->ctx);
            p.calls_below_threshold = f.below;
            wr = f.written;
            by = f.bytes;
            dr = 0;
            for (int i = 0; i < FR_DROP_NCAUSES; i++)
                dr += c[i] = f.dropped[i];
        } else {   /* one reading for THREAD_STATS and DROPS: they agree */
            fr_pool_thread_figures(s, &wr, c, &by);
            dr = 0;
            for (int i = 0; i < FR_DROP_NCAUSES; i++)
                dr += c[i];
        }
        p.records_written = wr;
        p.records_dropped = dr;
        p.bytes_dropped = by;
        fr_meta_emit_str16(w, FR_TE_THREAD_STATS, &p, sizeof p, d->name, sizeof d->name);
        emit_drops(w, d->tid, c);
    }
}

static void emit_sources(struct fr_meta_writer *w)
{
    uint32_t n = __atomic_load_n(&nsources, __ATOMIC_ACQUIRE);
    if (n > MAX_SOURCES)
        n = MAX_SOURCES;
    for (uint32_t i = 0; i < n; i++) {
        fr_meta_source_fn fn = __atomic_load_n(&sources[i].fn, __ATOMIC_ACQUIRE);
        if (fn)
            fn(w, sources[i].ctx);
    }
}

/* What is known at the start, without totals: a streamed file's first metadata block
 * (stream_writer.c), and a backing file's metadata (backing_meta.c, where the recovering
 * side adds the totals it counts). */
void fr_meta_emit_start(struct fr_meta_writer *w)
{
    emit_clock(w);
    emit_process(w);
    emit_sources(w);
}

void fr_meta_emit_all(struct fr_meta_writer *w)
{
    emit_clock(w);
    emit_process(w);
    emit_summary(w);
    emit_thread_stats(w);
    emit_sources(w);
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

void fr_meta_drop_causes(uint64_t cause[FR_DROP_NCAUSES])
{
    struct totals t;
    totals(&t);
    memcpy(cause, t.cause, sizeof t.cause);
}
