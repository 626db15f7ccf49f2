/* call_graph.c - see call_graph.h. */
#include "call_graph.h"

#include <stdlib.h>
#include "fr_alloc.h"
#include "func_stats.h"
#include "u64_map.h"

struct fr_call_graph {
    fr_call_edge *edges;
    size_t        n, cap;
    fr_u64_map    by_pair;   /* caller << 32 | callee -> index in edges */
};

fr_call_graph *fr_call_graph_new(void)
{
    fr_call_graph *g = fr_xcalloc(1, sizeof *g);
    fr_u64_map_init(&g->by_pair);
    return g;
}

void fr_call_graph_free(fr_call_graph *g)
{
    if (!g)
        return;
    free(g->edges);
    fr_u64_map_free(&g->by_pair);
    free(g);
}

static uint64_t pair_key(uint32_t caller, uint32_t callee)
{
    return (uint64_t)caller << 32 | callee;
}

void fr_call_graph_add(fr_call_graph *g, const fr_call *c)
{
    if (c->depth == 0)
        return;
    uint32_t caller = c->stack[c->depth - 1];
    uint64_t key = pair_key(caller, c->function_id);
    uint32_t i = fr_u64_map_get(&g->by_pair, key);
    if (i == FR_U64_MAP_NONE) {
        g->edges = fr_xgrow(g->edges, &g->cap, g->n + 1, sizeof *g->edges, 64);
        i = (uint32_t)g->n++;
        g->edges[i] = (fr_call_edge){.caller = caller, .callee = c->function_id};
        fr_u64_map_put(&g->by_pair, key, i);
    }
    fr_call_edge *e = &g->edges[i];
    e->calls++;
    e->total_ticks += fr_call_duration(c);
    e->self_ticks += fr_call_self(c);
}

void fr_call_graph_on_call(const fr_call *call, void *ctx)
{
    fr_call_graph_add(ctx, call);
}

size_t fr_call_graph_count(const fr_call_graph *g)
{
    return g->n;
}

const fr_call_edge *fr_call_graph_at(const fr_call_graph *g, size_t i)
{
    return i < g->n ? &g->edges[i] : NULL;
}

const fr_call_edge *fr_call_graph_find(const fr_call_graph *g, uint32_t caller, uint32_t callee)
{
    uint32_t i = fr_u64_map_get(&g->by_pair, pair_key(caller, callee));
    return i == FR_U64_MAP_NONE ? NULL : &g->edges[i];
}
