/*
 * func_stats.c - see func_stats.h.
 *
 * Built for the hot loop of `account` (one call per exit record):
 *  - functions are found by a dense id -> index table (ids are small and dense: they count
 *    the functions of the instrumentation map), with a hash map for very large ids;
 *  - the counters one call updates live together in one 64-byte struct per function;
 *    the public fr_func_stat is filled from them when read;
 *  - a function's quantile sketch is a few KiB of buckets, and consecutive calls hit
 *    different functions' buckets at random: incrementing them directly was half the
 *    time of `account` on a large trace, all cache misses. So bucket increments are queued
 *    as (function, bucket) and applied in batches grouped by function (a counting sort),
 *    which walks each function's buckets once per batch. The queue has a fixed size.
 * Every accessor first applies the queue and refreshes the public structs.
 */
#include "func_stats.h"

#include <stdlib.h>
#include <string.h>
#include "fr_alloc.h"
#include "u64_map.h"

#define PENDING_MAX (1u << 18)     /* 2 MiB of queued samples, 1 MiB of sort scratch */
#define DENSE_IDS   (1u << 20)     /* ids below this are found by direct indexing */

struct hot_counters {              /* one cache line */
    uint64_t calls, total, self, min, max;
    uint32_t lo, n;                /* copy of the sketch's bucket window */
    uint64_t closed_by_unwind, open_at_end;
} __attribute__((aligned(64)));

struct pending_sample {
    uint32_t function;   /* index in items */
    uint32_t bucket;     /* sketch bucket index */
};

struct fr_func_stats {
    fr_func_stat        *items;    /* public view, refreshed by sync() */
    struct hot_counters *hot;
    size_t               n, cap, cap_hot;
    uint32_t            *index_of; /* id -> index + 1 (0: none), for ids < DENSE_IDS */
    size_t               cap_index;
    fr_u64_map           by_id;    /* larger ids -> index */
    struct pending_sample *pending;
    uint32_t            *sorted;   /* scratch for apply_pending: buckets grouped by function */
    uint32_t            *starts;   /* scratch: per function, start of its group (n + 1) */
    size_t               n_pending, cap_starts;
    int                  dirty;    /* items not refreshed since the last add */
};

fr_func_stats *fr_func_stats_new(void)
{
    fr_func_stats *fs = fr_xcalloc(1, sizeof *fs);
    fr_u64_map_init(&fs->by_id);
    fs->pending = fr_xcalloc(PENDING_MAX, sizeof *fs->pending);
    fs->sorted = fr_xcalloc(PENDING_MAX, sizeof *fs->sorted);
    return fs;
}

void fr_func_stats_free(fr_func_stats *fs)
{
    if (!fs)
        return;
    for (size_t i = 0; i < fs->n; i++)
        fr_qsketch_free(&fs->items[i].durations);
    free(fs->items);
    free(fs->hot);
    free(fs->index_of);
    free(fs->pending);
    free(fs->sorted);
    free(fs->starts);
    fr_u64_map_free(&fs->by_id);
    free(fs);
}

static void apply_pending(fr_func_stats *fs)
{
    size_t n = fs->n_pending;
    if (!n)
        return;
    fs->starts = fr_xgrow(fs->starts, &fs->cap_starts, fs->n + 1, sizeof *fs->starts, 64);
    uint32_t *start = fs->starts;
    memset(start, 0, (fs->n + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++)
        start[fs->pending[i].function + 1]++;
    for (size_t f = 0; f < fs->n; f++)
        start[f + 1] += start[f];
    /* start[f] is now where function f's group begins; fill, advancing it */
    for (size_t i = 0; i < n; i++)
        fs->sorted[start[fs->pending[i].function]++] = fs->pending[i].bucket;
    /* start[f] is now where group f ends = where group f+1 begins */
    uint32_t begin = 0;
    const uint32_t *sorted = fs->sorted;
    for (size_t f = 0; f < fs->n; f++) {
        /* fr_qsketch_bump's work, with the window in locals: through the sketch, every
         * counter store made the compiler reload the window (they might alias). */
        const fr_qsketch *s = &fs->items[f].durations;
        uint64_t *const buckets = s->buckets;
        const uint32_t lo = s->lo, end = start[f];
        for (uint32_t k = begin; k < end; k++)
            buckets[sorted[k] - lo]++;
        begin = end;
    }
    fs->n_pending = 0;
}

/* Applies the queue and fills the public structs from the hot counters. */
static void sync(fr_func_stats *fs)
{
    if (!fs->dirty)
        return;
    fs->dirty = 0;
    apply_pending(fs);
    for (size_t i = 0; i < fs->n; i++) {
        const struct hot_counters *h = &fs->hot[i];
        fr_func_stat *s = &fs->items[i];
        s->calls = h->calls;
        s->total_ticks = h->total;
        s->self_ticks = h->self;
        s->min_ticks = h->min;
        s->max_ticks = h->max;
        s->closed_by_unwind = h->closed_by_unwind;
        s->open_at_end = h->open_at_end;
        s->durations.count = h->calls;
        s->durations.min = h->min;
        s->durations.max = h->max;
    }
}

static uint32_t new_function(fr_func_stats *fs, uint32_t id)
{
    size_t cap_items = fs->cap;
    fs->items = fr_xgrow(fs->items, &cap_items, fs->n + 1, sizeof *fs->items, 64);
    fs->cap = cap_items;
    if (fs->n + 1 > fs->cap_hot) {
        /* aligned: a function's counters are one cache line */
        size_t cap = fs->cap_hot ? fs->cap_hot * 2 : 64;
        struct hot_counters *h = fr_xaligned_alloc(64, cap * sizeof *h);
        if (fs->n)
            memcpy(h, fs->hot, fs->n * sizeof *h);
        free(fs->hot);
        fs->hot = h;
        fs->cap_hot = cap;
    }
    uint32_t i = (uint32_t)fs->n++;
    fs->items[i] = (fr_func_stat){.function_id = id, .min_ticks = UINT64_MAX};
    fr_qsketch_init(&fs->items[i].durations);
    fs->hot[i] = (struct hot_counters){.min = UINT64_MAX};
    if (id < DENSE_IDS) {
        if (id >= fs->cap_index) {
            size_t old = fs->cap_index;
            fs->index_of = fr_xgrow(fs->index_of, &fs->cap_index, (size_t)id + 1,
                                    sizeof *fs->index_of, 256);
            memset(fs->index_of + old, 0, (fs->cap_index - old) * sizeof *fs->index_of);
        }
        fs->index_of[id] = i + 1;
    } else {
        fr_u64_map_put(&fs->by_id, id, i);
    }
    return i;
}

static inline uint32_t index_of(const fr_func_stats *fs, uint32_t id)
{
    if (id < fs->cap_index)
        return fs->index_of[id] - 1;          /* FR_U64_MAP_NONE when absent */
    return id < DENSE_IDS ? FR_U64_MAP_NONE : fr_u64_map_get(&fs->by_id, id);
}

/* Updates the counters of c's function; returns the function's index and, in *bucket,
 * the sketch bucket to queue (the caller queues it). */
static inline __attribute__((always_inline))
uint32_t count(fr_func_stats *fs, uint32_t function_id, uint64_t d, uint64_t self,
               unsigned flags, uint32_t *bucket)
{
    uint32_t i = index_of(fs, function_id);
    if (i == FR_U64_MAP_NONE)
        i = new_function(fs, function_id);
    struct hot_counters *h = &fs->hot[i];
    h->calls++;
    h->total += d;
    h->self += self;
    h->min = d < h->min ? d : h->min;
    h->max = d > h->max ? d : h->max;
    if (flags & (FR_CALL_CLOSED_BY_UNWIND | FR_CALL_OPEN_AT_END)) {
        h->closed_by_unwind += (flags & FR_CALL_CLOSED_BY_UNWIND) != 0;
        h->open_at_end += (flags & FR_CALL_OPEN_AT_END) != 0;
    }
    uint32_t b = fr_qsketch_index(d);
    if (b - h->lo >= h->n) {                  /* outside the bucket window: widen it */
        fr_qsketch *s = &fs->items[i].durations;
        fr_qsketch_grow(s, b);
        h->lo = s->lo;
        h->n = s->n;
    }
    *bucket = b;
    return i;
}

static inline __attribute__((always_inline))
uint32_t count_call(fr_func_stats *fs, const fr_call *c, uint32_t *bucket)
{
    return count(fs, c->function_id, fr_call_duration(c), fr_call_self(c), c->flags, bucket);
}

static void add_call(fr_func_stats *fs, const fr_call *c)
{
    fs->dirty = 1;
    uint32_t b, i = count_call(fs, c, &b);
    if (fs->n_pending == PENDING_MAX)
        apply_pending(fs);
    fs->pending[fs->n_pending++] = (struct pending_sample){.function = i, .bucket = b};
}

void fr_func_stats_add(fr_func_stats *fs, const fr_call *c)
{
    add_call(fs, c);
}

void fr_func_stats_on_call(const fr_call *call, void *ctx)
{
    add_call(ctx, call);
}

void fr_func_stats_on_calls(const fr_call *calls, size_t n, void *ctx)
{
    /* add_call over the batch, with the queue's fill in a local: stored through fs, the
     * 64-bit counter stores (which may alias it) made the compiler reload it per call. */
    fr_func_stats *fs = ctx;
    fs->dirty = 1;
    size_t i = 0;
    while (i < n) {
        if (fs->n_pending == PENDING_MAX)
            apply_pending(fs);
        struct pending_sample *const pending = fs->pending;  /* fixed: allocated once */
        size_t np = fs->n_pending;
        size_t end = n - i < PENDING_MAX - np ? n : i + (PENDING_MAX - np);
        for (; i < end; i++) {
            uint32_t b, f = count_call(fs, &calls[i], &b);
            pending[np++] = (struct pending_sample){.function = f, .bucket = b};
        }
        fs->n_pending = np;
    }
}

void fr_func_stats_on_costs(const fr_call_cost *costs, size_t n, void *ctx)
{
    /* fr_func_stats_on_calls, on the tracker's costs mode */
    fr_func_stats *fs = ctx;
    fs->dirty = 1;
    size_t i = 0;
    while (i < n) {
        if (fs->n_pending == PENDING_MAX)
            apply_pending(fs);
        struct pending_sample *const pending = fs->pending;
        size_t np = fs->n_pending;
        size_t end = n - i < PENDING_MAX - np ? n : i + (PENDING_MAX - np);
        for (; i < end; i++) {
            const fr_call_cost *k = &costs[i];
            uint32_t b, f = count(fs, k->function_id, k->duration, k->self, k->flags, &b);
            pending[np++] = (struct pending_sample){.function = f, .bucket = b};
        }
        fs->n_pending = np;
    }
}

size_t fr_func_stats_count(fr_func_stats *fs)
{
    return fs->n;
}

fr_func_stat *fr_func_stats_at(fr_func_stats *fs, size_t i)
{
    sync(fs);
    return i < fs->n ? &fs->items[i] : NULL;
}

const fr_func_stat *fr_func_stats_find(fr_func_stats *fs, uint32_t id)
{
    sync(fs);
    uint32_t i = index_of(fs, id);
    return i == FR_U64_MAP_NONE ? NULL : &fs->items[i];
}
