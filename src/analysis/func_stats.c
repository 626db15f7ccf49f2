/*
 * func_stats.c - see func_stats.h.
 *
 * Built for the hot loop of `account` (one call per exit record):
 *  - functions are found by a dense id -> index table (ids are small and dense: they count
 *    the functions of the instrumentation map), with a hash map for very large ids;
 *  - the counters one call updates live together in one 64-byte struct per function;
 *    the public fr_func_stat is filled from them when read;
 *  - a function's quantile sketch is up to a few KiB of 64-bit buckets, and consecutive
 *    calls hit different functions' buckets at random: all of them together (1.4 MB on
 *    the benchmark's trace, 296 functions) do not fit in the CPU's L2 cache, and every
 *    increment was a miss. So a call increments a one-byte counter of its bucket instead,
 *    in an array per function over the same window (an eighth of the size, 180 KB there),
 *    which adds 256 to the sketch's bucket when it wraps; the counters still in the bytes
 *    are added to the sketches when the statistics are read, or when a window grows.
 *    (This replaced a queue of (function, bucket) samples applied in batches grouped by
 *    function: three passes over a 2 MiB queue cost more than the misses they saved.)
 * Every accessor first adds the pending counts and refreshes the public structs.
 */
#include "func_stats.h"

#include <stdlib.h>
#include <string.h>
#include "fr_alloc.h"
#include "u64_map.h"

#define DENSE_IDS   (1u << 20)     /* ids below this are found by direct indexing */

struct hot_counters {              /* one cache line */
    uint64_t calls, total, self, min, max;
    uint32_t lo, n;                /* copy of the sketch's bucket window */
    uint8_t *recent;               /* n counts, modulo 256, not yet in the sketch's buckets */
} __attribute__((aligned(64)));

struct fr_func_stats {
    fr_func_stat        *items;    /* public view, refreshed by sync() */
    struct hot_counters *hot;
    size_t               n, cap, cap_hot;
    uint32_t            *index_of; /* id -> index + 1 (0: none), for ids < DENSE_IDS */
    size_t               cap_index;
    fr_u64_map           by_id;    /* larger ids -> index */
    int                  dirty;    /* items not refreshed since the last add */
};

fr_func_stats *fr_func_stats_new(void)
{
    fr_func_stats *fs = fr_xcalloc(1, sizeof *fs);
    fr_u64_map_init(&fs->by_id);
    return fs;
}

void fr_func_stats_free(fr_func_stats *fs)
{
    if (!fs)
        return;
    for (size_t i = 0; i < fs->n; i++) {
        fr_qsketch_free(&fs->items[i].durations);
        free(fs->hot[i].recent);
    }
    free(fs->items);
    free(fs->hot);
    free(fs->index_of);
    fr_u64_map_free(&fs->by_id);
    free(fs);
}

/* Adds function i's one-byte counts to its sketch's buckets and clears them. */
static void add_recent(fr_func_stats *fs, size_t i)
{
    struct hot_counters *h = &fs->hot[i];
    uint64_t *buckets = fs->items[i].durations.buckets;
    if (!h->n)
        return;
    for (uint32_t k = 0; k < h->n; k++)
        buckets[k] += h->recent[k];
    memset(h->recent, 0, h->n);
}

/* Adds the pending counts and fills the public structs from the hot counters. */
static void sync(fr_func_stats *fs)
{
    if (!fs->dirty)
        return;
    fs->dirty = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const struct hot_counters *h = &fs->hot[i];
        fr_func_stat *s = &fs->items[i];
        add_recent(fs, i);
        s->calls = h->calls;
        s->total_ticks = h->total;
        s->self_ticks = h->self;
        s->min_ticks = h->min;
        s->max_ticks = h->max;
        s->durations.count = h->calls;
        s->durations.min = h->min;
        s->durations.max = h->max;
    }
}

/* Function i's sketch window made to cover bucket b, the byte counts with it. */
__attribute__((noinline))
static void widen(fr_func_stats *fs, uint32_t i, uint32_t b)
{
    struct hot_counters *h = &fs->hot[i];
    fr_qsketch *s = &fs->items[i].durations;
    add_recent(fs, i);
    fr_qsketch_grow(s, b);
    free(h->recent);
    h->recent = fr_xcalloc(s->n, 1);
    h->lo = s->lo;
    h->n = s->n;
}

__attribute__((noinline))
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

/* The fields of fs that count() reads for every call, copied into locals by the loops:
 * through fs, each counter store (which may alias them: the project builds with
 * -fno-strict-aliasing, and a byte store may alias anything anyway) made the compiler
 * reload them for every call. Only new_function changes them. */
struct lookup {
    const uint32_t      *index_of;
    size_t               cap_index;
    struct hot_counters *hot;
};

static inline struct lookup lookup_of(const fr_func_stats *fs)
{
    return (struct lookup){fs->index_of, fs->cap_index, fs->hot};
}

/* The index of function_id when the dense table does not have it (a large id, or a
 * function's first call). Out of line, like every rare path of count(): inlined, they
 * took the registers of the hot loop. */
__attribute__((noinline))
static uint32_t index_or_add(fr_func_stats *fs, uint32_t function_id)
{
    uint32_t i = index_of(fs, function_id);
    return i == FR_U64_MAP_NONE ? new_function(fs, function_id) : i;
}

__attribute__((noinline))
static void count_unmatched(fr_func_stats *fs, uint32_t i, unsigned flags)
{
    fs->items[i].closed_by_unwind += (flags & FR_CALL_CLOSED_BY_UNWIND) != 0;
    fs->items[i].open_at_end += (flags & FR_CALL_OPEN_AT_END) != 0;
}

/* Counts one completed call of function_id: duration d, self time self. */
static inline __attribute__((always_inline))
void count(fr_func_stats *fs, struct lookup *lk, uint32_t function_id, uint64_t d,
           uint64_t self, unsigned flags)
{
    uint32_t i = FR_U64_MAP_NONE;
    if (__builtin_expect(function_id < lk->cap_index, 1))
        i = lk->index_of[function_id] - 1;
    if (__builtin_expect(i == FR_U64_MAP_NONE, 0)) {
        i = index_or_add(fs, function_id);
        *lk = lookup_of(fs);
    }
    struct hot_counters *h = &lk->hot[i];
    h->calls++;
    h->total += d;
    h->self += self;
    h->min = d < h->min ? d : h->min;
    h->max = d > h->max ? d : h->max;
    if (__builtin_expect(flags & (FR_CALL_CLOSED_BY_UNWIND | FR_CALL_OPEN_AT_END), 0))
        count_unmatched(fs, i, flags);
    uint32_t k = fr_qsketch_index(d) - h->lo;
    if (__builtin_expect(k >= h->n, 0)) {     /* outside the bucket window: widen it */
        widen(fs, i, k + h->lo);
        k = fr_qsketch_index(d) - h->lo;
    }
    if (__builtin_expect(++h->recent[k] == 0, 0))
        fs->items[i].durations.buckets[k] += 256;
}

void fr_func_stats_add(fr_func_stats *fs, const fr_call *c)
{
    fs->dirty = 1;
    struct lookup lk = lookup_of(fs);
    count(fs, &lk, c->function_id, fr_call_duration(c), fr_call_self(c), c->flags);
}

void fr_func_stats_on_call(const fr_call *call, void *ctx)
{
    fr_func_stats_add(ctx, call);
}

/* The loop of both batch adapters: exactly one of calls and costs is given (inlined with
 * the other NULL, each adapter gets a loop over its own type). */
static inline __attribute__((always_inline))
void count_batch(fr_func_stats *fs, const fr_call *calls, const fr_call_cost *costs, size_t n)
{
    fs->dirty = 1;
    struct lookup lk = lookup_of(fs);
    for (size_t i = 0; i < n; i++) {
        if (calls)
            count(fs, &lk, calls[i].function_id, fr_call_duration(&calls[i]),
                  fr_call_self(&calls[i]), calls[i].flags);
        else
            count(fs, &lk, costs[i].function_id, costs[i].duration, costs[i].self,
                  costs[i].flags);
    }
}

void fr_func_stats_on_calls(const fr_call *calls, size_t n, void *ctx)
{
    count_batch(ctx, calls, NULL, n);
}

void fr_func_stats_on_costs(const fr_call_cost *costs, size_t n, void *ctx)
{
    count_batch(ctx, NULL, costs, n);
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
