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
 *    The calls count is not kept: a call adds one to one bucket, so it is the buckets' sum;
 *  - calls are counted in batches, in two passes (count_calls): the counters, then the
 *    byte counters, so that the latter's misses are under way together (each prefetched
 *    as the first pass finds it: 4-8% less CPU for account, best of 10, five rounds);
 *  - on x86-64 the counting is compiled a second time for CPUs with LZCNT, and each
 *    fr_func_stats takes that copy when the CPU has it (count_calls_of): the bucket index
 *    counts leading zeros, one LZCNT against the baseline's BSR and the arithmetic around
 *    it (3-4% less CPU for account on its benchmark's trace, best of 25 interleaved);
 *  - a function not seen yet, a bucket outside the window and an unmatched call are all
 *    told apart from the common call by one check: index_of's 0 leads to a function whose
 *    window is empty (hot[-1]), and the flags are tested with the window; the loop over
 *    the common calls calls nothing, so its values stay in registers.
 * Every accessor first adds the pending counts and refreshes the public structs.
 */
#include "func_stats.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include "fr_alloc.h"
#include "u64_map.h"

#define DENSE_IDS   (1u << 20)     /* ids below this are found by direct indexing */
#define CHUNK       256            /* calls counted per round of the two passes */

struct hot_counters {              /* one cache line */
    uint64_t total, self, min, max;
    uint32_t lo, n;                /* copy of the sketch's bucket window */
    uint8_t *recent;               /* n counts, modulo 256, not yet in the sketch's buckets */
} __attribute__((aligned(64)));

struct fr_func_stats;
typedef void count_calls_fn(struct fr_func_stats *fs, const fr_call_cost *calls, size_t n);
static count_calls_fn *count_calls_of(void);

struct fr_func_stats {
    count_calls_fn      *count_calls;   /* count_calls_of(): the copy for this CPU */
    fr_func_stat        *items;    /* public view, refreshed by sync() */
    struct hot_counters *hot;      /* hot[i] for items[i]; hot[-1] is the absent function */
    size_t               n, cap, cap_hot;
    uint32_t            *index_of; /* id -> index + 1 (0: none), for ids < cap_index; */
    size_t               cap_index;/* index_of[cap_index] is 0, for every larger id */
    fr_u64_map           by_id;    /* ids >= DENSE_IDS -> index */
    int                  dirty;    /* items not refreshed since the last add */
};

/* hot[-1], the counters index_of's 0 leads to: an empty window, so that the window check
 * sends every call that finds them to the rare path (count_rare). */
static const struct hot_counters absent_function = {.min = UINT64_MAX};

/* Room for cap functions' counters after the absent function's; the n first copied. */
static void grow_hot(fr_func_stats *fs, size_t cap)
{
    /* aligned: a function's counters are one cache line */
    struct hot_counters *h = fr_xaligned_alloc(64, (cap + 1) * sizeof *h);
    h[0] = absent_function;
    if (fs->n)
        memcpy(h + 1, fs->hot, fs->n * sizeof *h);
    if (fs->hot)
        free(fs->hot - 1);
    fs->hot = h + 1;
    fs->cap_hot = cap;
}

fr_func_stats *fr_func_stats_new(void)
{
    fr_func_stats *fs = fr_xcalloc(1, sizeof *fs);
    fs->count_calls = count_calls_of();
    fr_u64_map_init(&fs->by_id);
    grow_hot(fs, 64);
    fs->cap_index = 255;
    fs->index_of = fr_xcalloc(fs->cap_index + 1, sizeof *fs->index_of);
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
    free(fs->hot - 1);
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

/* Adds the pending counts and fills the public structs from the hot counters. A call is
 * counted in exactly one bucket: the calls are the buckets' sum. */
static void sync(fr_func_stats *fs)
{
    if (!fs->dirty)
        return;
    fs->dirty = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const struct hot_counters *h = &fs->hot[i];
        fr_func_stat *s = &fs->items[i];
        add_recent(fs, i);
        uint64_t calls = 0;
        for (uint32_t k = 0; k < s->durations.n; k++)
            calls += s->durations.buckets[k];
        s->calls = calls;
        s->total_ticks = h->total;
        s->self_ticks = h->self;
        s->min_ticks = h->min;
        s->max_ticks = h->max;
        s->durations.count = calls;
        s->durations.min = h->min;
        s->durations.max = h->max;
    }
}

/* Function i's sketch window made to cover bucket b, the byte counts with it. */
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

static uint32_t new_function(fr_func_stats *fs, uint32_t id)
{
    size_t cap_items = fs->cap;
    fs->items = fr_xgrow(fs->items, &cap_items, fs->n + 1, sizeof *fs->items, 64);
    fs->cap = cap_items;
    if (fs->n + 1 > fs->cap_hot)
        grow_hot(fs, fs->cap_hot * 2);
    uint32_t i = (uint32_t)fs->n++;
    fs->items[i] = (fr_func_stat){.function_id = id, .min_ticks = UINT64_MAX};
    fr_qsketch_init(&fs->items[i].durations);
    fs->hot[i] = (struct hot_counters){.min = UINT64_MAX};
    if (id < DENSE_IDS) {
        if (id >= fs->cap_index) {
            /* one entry more than the capacity: index_of[cap_index], always 0 */
            size_t old = fs->cap_index + 1, cap = old;
            fs->index_of = fr_xgrow(fs->index_of, &cap, (size_t)id + 2, sizeof *fs->index_of, 256);
            memset(fs->index_of + old, 0, (cap - old) * sizeof *fs->index_of);
            fs->cap_index = cap - 1;
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

/* The fields of fs that count_common() reads for every call, copied into locals:
 * through fs, each counter store (which may alias them: the project builds with
 * -fno-strict-aliasing, and a byte store may alias anything anyway) made the compiler
 * reload them for every call. Only new_function changes them. */
struct lookup {
    const uint32_t      *index_of;
    size_t               cap_index;
    struct hot_counters *hot;      /* fs->hot - 1: indexed by index_of's values */
};

static inline struct lookup lookup_of(const fr_func_stats *fs)
{
    return (struct lookup){fs->index_of, fs->cap_index, fs->hot - 1};
}

/* Adds the counts of calls[0..n-1] to their byte counters byte[0..n-1] (the second pass,
 * see count_calls); a counter that wraps adds 256 to its sketch bucket. */
static void add_bytes(fr_func_stats *fs, uint8_t *const *byte, const fr_call_cost *calls,
                      size_t n)
{
    for (size_t j = 0; j < n; j++) {
        if (__builtin_expect(++*byte[j] == 0, 0)) {
            uint32_t i = index_of(fs, calls[j].function_id);
            uint32_t k = fr_qsketch_index(calls[j].duration) - fs->hot[i].lo;
            fs->items[i].durations.buckets[k] += 256;
        }
    }
}

/* Counts call c into function h's counters. */
static inline __attribute__((always_inline))
void count_in(struct hot_counters *h, const fr_call_cost *c)
{
    const uint64_t d = c->duration;
    h->total += d;
    h->self += c->self;
    if (d < h->min)
        h->min = d;
    if (d > h->max)
        h->max = d;
}

/* The rare path of count_calls(), for calls[j]: its function is new, its bucket is outside
 * the window, or it was not matched (closed by an unwind, open at the end). Before a
 * window grows (which moves its byte counters), the counts of calls[from..j-1] go to their
 * bytes. Returns the first call whose byte is still to be incremented. */
__attribute__((noinline))
static size_t count_rare(fr_func_stats *fs, uint8_t **byte, const fr_call_cost *calls,
                         size_t from, size_t j)
{
    const fr_call_cost *c = &calls[j];
    const uint32_t b = fr_qsketch_index(c->duration);
    uint32_t i = index_of(fs, c->function_id);
    if (i == FR_U64_MAP_NONE)
        i = new_function(fs, c->function_id);
    struct hot_counters *h = &fs->hot[i];
    if (b - h->lo >= h->n) {
        add_bytes(fs, byte + from, calls + from, j - from);
        from = j;
        widen(fs, i, b);
    }
    count_in(h, c);
    fr_func_stat *s = &fs->items[i];
    s->closed_by_unwind += (c->flags & FR_CALL_CLOSED_BY_UNWIND) != 0;
    s->open_at_end += (c->flags & FR_CALL_OPEN_AT_END) != 0;
    byte[j] = h->recent + (b - h->lo);
    return from;
}

/* Counts calls[j], calls[j+1]... up to the first that takes the rare path (or the end);
 * returns its index. No call in the loop: it keeps its values in registers. */
static inline __attribute__((always_inline))
size_t count_common(const struct lookup lk, uint8_t **byte, const fr_call_cost *calls,
                    size_t j, size_t n)
{
    for (; j < n; j++) {
        const fr_call_cost *c = &calls[j];
        const uint32_t id = c->function_id;
        struct hot_counters *h = &lk.hot[lk.index_of[id < lk.cap_index ? id : lk.cap_index]];
        const uint32_t k = fr_qsketch_index(c->duration) - h->lo;
        if (__builtin_expect(k >= h->n, 0))   /* new function, or outside the window */
            break;
        if (__builtin_expect(c->flags & (FR_CALL_CLOSED_BY_UNWIND | FR_CALL_OPEN_AT_END), 0))
            break;
        count_in(h, c);
        byte[j] = h->recent + k;
        __builtin_prefetch(byte[j], 1, 3);   /* on its way before the second pass */
    }
    return j;
}

/* Counts n (<= CHUNK) calls in two passes. The first updates each call's function
 * counters and notes which byte counter the call increments; the second increments them.
 * The byte counters are the one access per call that misses the L1 cache (the windows of
 * all functions: 180 KB on the benchmark's trace), and among the first pass's ~30
 * instructions a call few of those misses were under way at once; the second pass, a few
 * instructions an increment, has many of them in flight together. */
static inline __attribute__((always_inline))
void count_calls(fr_func_stats *fs, const fr_call_cost *calls, size_t n)
{
    uint8_t *byte[CHUNK];
    size_t from = 0, j = 0;
    fs->dirty = 1;
    for (;;) {
        j = count_common(lookup_of(fs), byte, calls, j, n);
        if (j == n)
            break;
        from = count_rare(fs, byte, calls, from, j++);
    }
    add_bytes(fs, byte + from, calls + from, n - from);
}

static void count_calls_baseline(fr_func_stats *fs, const fr_call_cost *calls, size_t n)
{
    count_calls(fs, calls, n);
}

#if defined(__x86_64__) && !defined(FR_FUNC_STATS_BASELINE)
__attribute__((target("lzcnt")))
static void count_calls_lzcnt(fr_func_stats *fs, const fr_call_cost *calls, size_t n)
{
    count_calls(fs, calls, n);   /* the same code, fr_qsketch_index's clz an LZCNT */
}
#endif

/* The copy of count_calls for this CPU (FR_FUNC_STATS_BASELINE: always the baseline, for
 * the test that checks that copy on a CPU with LZCNT: analysis_aggregate_baseline). */
static count_calls_fn *count_calls_of(void)
{
#if defined(__x86_64__) && !defined(FR_FUNC_STATS_BASELINE)
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5)))   /* ABM: LZCNT */
        return count_calls_lzcnt;
#endif
    return count_calls_baseline;
}

void fr_func_stats_add(fr_func_stats *fs, const fr_call *c)
{
    fr_func_stats_on_calls(c, 1, fs);
}

void fr_func_stats_on_call(const fr_call *call, void *ctx)
{
    fr_func_stats_add(ctx, call);
}

void fr_func_stats_on_calls(const fr_call *calls, size_t n, void *ctx)
{
    fr_call_cost costs[CHUNK];
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        for (size_t j = 0; j < m; j++) {
            const fr_call *c = &calls[i + j];
            costs[j] = (fr_call_cost){c->function_id, c->flags, fr_call_duration(c), fr_call_self(c)};
        }
        fr_func_stats *fs = ctx;
        fs->count_calls(fs, costs, m);
    }
}

void fr_func_stats_on_costs(const fr_call_cost *costs, size_t n, void *ctx)
{
    fr_func_stats *fs = ctx;
    for (size_t i = 0; i < n; i += CHUNK)
        fs->count_calls(fs, costs + i, n - i < CHUNK ? n - i : CHUNK);
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
