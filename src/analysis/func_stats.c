/*
 * func_stats.c - see func_stats.h.
 *
 * The counters of a function live in one small struct (hot in cache), but its quantile
 * sketch is a few KiB of buckets, and consecutive calls hit different functions' buckets
 * at random: incrementing them directly was half the time of `account` on a large trace,
 * all cache misses. So the bucket increments are queued (function, bucket) and applied
 * in batches grouped by function (a counting sort), which walks each function's buckets
 * once per batch. The queue has a fixed size; every accessor applies it first.
 */
#include "func_stats.h"

#include <stdlib.h>
#include <string.h>
#include "fr_alloc.h"
#include "u64_map.h"

#define PENDING_MAX 16384

struct pending_sample {
    uint32_t function;   /* index in items */
    uint32_t bucket;     /* sketch bucket index (fr_qsketch_reserve) */
};

struct fr_func_stats {
    fr_func_stat *items;
    size_t        n, cap;
    fr_u64_map    by_id;     /* function id -> index in items */
    struct pending_sample *pending;
    uint32_t     *sorted;    /* scratch for apply_pending: buckets grouped by function */
    uint32_t     *starts;    /* scratch: per function, start of its group (n + 1) */
    size_t        n_pending, cap_starts;
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
    for (size_t f = 0; f < fs->n; f++) {
        fr_qsketch *s = &fs->items[f].durations;
        for (uint32_t k = begin; k < start[f]; k++)
            fr_qsketch_bump(s, fs->sorted[k]);
        begin = start[f];
    }
    fs->n_pending = 0;
}

static fr_func_stat *stat_of(fr_func_stats *fs, uint32_t id, uint32_t *index)
{
    uint32_t i = fr_u64_map_get(&fs->by_id, id);
    if (i == FR_U64_MAP_NONE) {
        fs->items = fr_xgrow(fs->items, &fs->cap, fs->n + 1, sizeof *fs->items, 64);
        i = (uint32_t)fs->n++;
        fr_func_stat *s = &fs->items[i];
        *s = (fr_func_stat){.function_id = id, .min_ticks = UINT64_MAX};
        fr_qsketch_init(&s->durations);
        fr_u64_map_put(&fs->by_id, id, i);
    }
    *index = i;
    return &fs->items[i];
}

void fr_func_stats_add(fr_func_stats *fs, const fr_call *c)
{
    uint32_t index;
    fr_func_stat *s = stat_of(fs, c->function_id, &index);
    uint64_t d = fr_call_duration(c);
    s->calls++;
    s->total_ticks += d;
    s->self_ticks += fr_call_self(c);
    if (d < s->min_ticks) s->min_ticks = d;
    if (d > s->max_ticks) s->max_ticks = d;
    if (c->flags & FR_CALL_CLOSED_BY_UNWIND) s->closed_by_unwind++;
    if (c->flags & FR_CALL_OPEN_AT_END) s->open_at_end++;
    if (fs->n_pending == PENDING_MAX)
        apply_pending(fs);
    fs->pending[fs->n_pending++] = (struct pending_sample){
        .function = index,
        .bucket = fr_qsketch_reserve(&s->durations, d),
    };
}

void fr_func_stats_on_call(const fr_call *call, void *ctx)
{
    fr_func_stats_add(ctx, call);
}

size_t fr_func_stats_count(fr_func_stats *fs)
{
    return fs->n;
}

fr_func_stat *fr_func_stats_at(fr_func_stats *fs, size_t i)
{
    apply_pending(fs);
    return i < fs->n ? &fs->items[i] : NULL;
}

const fr_func_stat *fr_func_stats_find(fr_func_stats *fs, uint32_t id)
{
    apply_pending(fs);
    uint32_t i = fr_u64_map_get(&fs->by_id, id);
    return i == FR_U64_MAP_NONE ? NULL : &fs->items[i];
}
