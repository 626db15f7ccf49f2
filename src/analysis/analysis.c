/* analysis.c - see analysis.h. */
#include "analysis.h"

#include <stdlib.h>
#include "fr_alloc.h"

static void on_call(const fr_call *c, void *ctx)
{
    fr_analysis *a = ctx;
    if (a->functions)
        fr_func_stats_add(a->functions, c);
    if (a->graph)
        fr_call_graph_add(a->graph, c);
    if (a->stacks)
        fr_stack_agg_on_call(c, a->stacks);
}

static void on_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx)
{
    fr_analysis *a = ctx;
    fr_stack_agg_on_enter(tid, tsc, stack, depth, a->stacks);
}

fr_analysis *fr_analysis_new(unsigned what)
{
    fr_analysis *a = fr_xcalloc(1, sizeof *a);
    if (what & FR_ANALYZE_FUNCTIONS)
        a->functions = fr_func_stats_new();
    if (what & FR_ANALYZE_GRAPH)
        a->graph = fr_call_graph_new();
    if (what & FR_ANALYZE_STACKS)
        a->stacks = fr_stack_agg_new();
    if (what == FR_ANALYZE_FUNCTIONS)   /* account: no stacks needed, batched calls */
        a->tracker = fr_call_tracker_new_costs(fr_func_stats_on_costs, a->functions);
    else if (what == FR_ANALYZE_STACKS) /* stack, folded, svg: batched enters and calls */
        a->tracker = fr_call_tracker_new_steps(fr_stack_agg_on_steps, a->stacks);
    else  /* only the stack aggregation needs to see enters */
        a->tracker = fr_call_tracker_new(on_call, a->stacks ? on_enter : NULL, a);
    return a;
}

void fr_analysis_finish(fr_analysis *a)
{
    fr_call_tracker_finish(a->tracker);
}

const fr_call_tracker_stats *fr_analysis_stats(const fr_analysis *a)
{
    return fr_call_tracker_get_stats(a->tracker);
}

void fr_analysis_free(fr_analysis *a)
{
    if (!a)
        return;
    fr_call_tracker_free(a->tracker);
    fr_func_stats_free(a->functions);
    fr_call_graph_free(a->graph);
    fr_stack_agg_free(a->stacks);
    free(a);
}
