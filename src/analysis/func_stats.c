/* func_stats.c - see func_stats.h. */
#include "func_stats.h"

#include <stdlib.h>
#include "fr_alloc.h"
#include "u64_map.h"

struct fr_func_stats {
    fr_func_stat *items;
    size_t        n, cap;
    fr_u64_map    by_id;     /* function id -> index in items */
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
    for (size_t i = 0; i < fs->n; i++)
        fr_qsketch_free(&fs->items[i].durations);
    free(fs->items);
    fr_u64_map_free(&fs->by_id);
    free(fs);
}

static fr_func_stat *stat_of(fr_func_stats *fs, uint32_t id)
{
    uint32_t i = fr_u64_map_get(&fs->by_id, id);
    if (i != FR_U64_MAP_NONE)
        return &fs->items[i];
    fs->items = fr_xgrow(fs->items, &fs->cap, fs->n + 1, sizeof *fs->items, 64);
    i = (uint32_t)fs->n++;
    fr_func_stat *s = &fs->items[i];
    *s = (fr_func_stat){.function_id = id, .min_ticks = UINT64_MAX};
    fr_qsketch_init(&s->durations);
    fr_u64_map_put(&fs->by_id, id, i);
    return s;
}

void fr_func_stats_add(fr_func_stats *fs, const fr_call *c)
{
    fr_func_stat *s = stat_of(fs, c->function_id);
    uint64_t d = fr_call_duration(c);
    s->calls++;
    s->total_ticks += d;
    s->self_ticks += fr_call_self(c);
    if (d < s->min_ticks) s->min_ticks = d;
    if (d > s->max_ticks) s->max_ticks = d;
    if (c->flags & FR_CALL_CLOSED_BY_UNWIND) s->closed_by_unwind++;
    if (c->flags & FR_CALL_OPEN_AT_END) s->open_at_end++;
    fr_qsketch_add(&s->durations, d);
}

void fr_func_stats_on_call(const fr_call *call, void *ctx)
{
    fr_func_stats_add(ctx, call);
}

size_t fr_func_stats_count(const fr_func_stats *fs)
{
    return fs->n;
}

fr_func_stat *fr_func_stats_at(fr_func_stats *fs, size_t i)
{
    return i < fs->n ? &fs->items[i] : NULL;
}

const fr_func_stat *fr_func_stats_find(const fr_func_stats *fs, uint32_t id)
{
    uint32_t i = fr_u64_map_get(&fs->by_id, id);
    return i == FR_U64_MAP_NONE ? NULL : &fs->items[i];
}
