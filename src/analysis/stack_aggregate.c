/*
 * stack_aggregate.c - see stack_aggregate.h.
 *
 * Nodes live in one array; a hash map from (parent node, function id) finds a child.
 * Per thread, node_at[d] is the node of the frame open at depth d: written by the enter
 * callback, read when the call completes. It stays right while the frame is open, since
 * only enters at a depth <= d (which need that frame closed first) overwrite it.
 */
#include "stack_aggregate.h"

#include <stdlib.h>
#include "fr_alloc.h"
#include "func_stats.h"
#include "u64_map.h"

struct thread_nodes {
    int32_t   tid;
    uint32_t  known;       /* node_at[0..known-1] were written by enters */
    size_t    cap;
    uint32_t *node_at;
};

struct fr_stack_agg {
    fr_stack_node *nodes;
    size_t         n, cap;
    fr_u64_map     children;     /* (parent + 1) << 32 | function id -> node */
    struct thread_nodes **threads;
    size_t         n_threads, cap_threads;
    fr_u64_map     by_tid;
    struct thread_nodes *last;
};

fr_stack_agg *fr_stack_agg_new(void)
{
    fr_stack_agg *sa = fr_xcalloc(1, sizeof *sa);
    fr_u64_map_init(&sa->children);
    fr_u64_map_init(&sa->by_tid);
    return sa;
}

void fr_stack_agg_free(fr_stack_agg *sa)
{
    if (!sa)
        return;
    for (size_t i = 0; i < sa->n_threads; i++) {
        free(sa->threads[i]->node_at);
        free(sa->threads[i]);
    }
    free(sa->threads);
    free(sa->nodes);
    fr_u64_map_free(&sa->children);
    fr_u64_map_free(&sa->by_tid);
    free(sa);
}

static uint64_t child_key(uint32_t parent, uint32_t function_id)
{
    /* parent + 1 so that FR_STACK_ROOT (UINT32_MAX) becomes 0 */
    return (uint64_t)(uint32_t)(parent + 1) << 32 | function_id;
}

static uint32_t child_of(fr_stack_agg *sa, uint32_t parent, uint32_t function_id)
{
    uint64_t key = child_key(parent, function_id);
    uint32_t i = fr_u64_map_get(&sa->children, key);
    if (i != FR_U64_MAP_NONE)
        return i;
    sa->nodes = fr_xgrow(sa->nodes, &sa->cap, sa->n + 1, sizeof *sa->nodes, 256);
    i = (uint32_t)sa->n++;
    sa->nodes[i] = (fr_stack_node){
        .parent = parent,
        .function_id = function_id,
        .depth = parent == FR_STACK_ROOT ? 0 : sa->nodes[parent].depth + 1,
    };
    fr_u64_map_put(&sa->children, key, i);
    return i;
}

static struct thread_nodes *thread_of(fr_stack_agg *sa, int32_t tid)
{
    if (sa->last && sa->last->tid == tid)
        return sa->last;
    uint64_t key = (uint32_t)tid;
    uint32_t i = fr_u64_map_get(&sa->by_tid, key);
    if (i == FR_U64_MAP_NONE) {
        struct thread_nodes *th = fr_xcalloc(1, sizeof *th);
        th->tid = tid;
        sa->threads = fr_xgrow(sa->threads, &sa->cap_threads, sa->n_threads + 1,
                               sizeof *sa->threads, 16);
        i = (uint32_t)sa->n_threads++;
        sa->threads[i] = th;
        fr_u64_map_put(&sa->by_tid, key, i);
    }
    sa->last = sa->threads[i];
    return sa->last;
}

static uint32_t node_of_stack(fr_stack_agg *sa, const uint32_t *stack, uint32_t depth)
{
    uint32_t node = FR_STACK_ROOT;
    for (uint32_t d = 0; d <= depth; d++)
        node = child_of(sa, node, stack[d]);
    return node;
}

void fr_stack_agg_on_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx)
{
    (void)tsc;
    fr_stack_agg *sa = ctx;
    struct thread_nodes *th = thread_of(sa, tid);
    th->node_at = fr_xgrow(th->node_at, &th->cap, (size_t)depth + 1, sizeof *th->node_at, 64);
    uint32_t parent = depth == 0 ? FR_STACK_ROOT
                    : depth <= th->known ? th->node_at[depth - 1]
                    : node_of_stack(sa, stack, depth - 1);
    th->node_at[depth] = child_of(sa, parent, stack[depth]);
    th->known = depth + 1;
}

void fr_stack_agg_on_call(const fr_call *c, void *ctx)
{
    fr_stack_agg *sa = ctx;
    struct thread_nodes *th = thread_of(sa, c->tid);
    uint32_t node;
    if (c->depth < th->known) {
        node = th->node_at[c->depth];
        /* The deeper entries belong to frames closed by now. */
        th->known = c->depth;
    } else {
        node = node_of_stack(sa, c->stack, c->depth);
    }
    fr_stack_node *s = &sa->nodes[node];
    s->calls++;
    s->total_ticks += fr_call_duration(c);
    s->self_ticks += fr_call_self(c);
}

size_t fr_stack_agg_count(const fr_stack_agg *sa)
{
    return sa->n;
}

const fr_stack_node *fr_stack_agg_node(const fr_stack_agg *sa, uint32_t index)
{
    return index < sa->n ? &sa->nodes[index] : NULL;
}

uint32_t fr_stack_agg_path(const fr_stack_agg *sa, uint32_t index, uint32_t *ids, uint32_t cap)
{
    uint32_t len = sa->nodes[index].depth + 1;
    for (uint32_t i = index; i != FR_STACK_ROOT; i = sa->nodes[i].parent) {
        uint32_t d = sa->nodes[i].depth;
        if (d < cap)
            ids[d] = sa->nodes[i].function_id;
    }
    return len;
}

uint32_t fr_stack_agg_find(const fr_stack_agg *sa, const uint32_t *stack, uint32_t n)
{
    uint32_t node = FR_STACK_ROOT;
    for (uint32_t d = 0; d < n; d++) {
        node = fr_u64_map_get(&sa->children, child_key(node, stack[d]));
        if (node == FR_U64_MAP_NONE)
            return FR_STACK_ROOT;
    }
    return node;
}
