/*
 * analysis.h - one pass over a trace feeding a call tracker into the aggregations a
 * command asks for (per-function statistics, call graph edges, unique stacks), so that
 * account, stack, graph and convert share one loop and one set of numbers.
 *
 *     fr_analysis *a = fr_analysis_new(FR_ANALYZE_FUNCTIONS | FR_ANALYZE_GRAPH);
 *     while (fr_reader_next(r, &rec) == FR_READ_OK) fr_analysis_feed(a, &rec);
 *     fr_analysis_finish(a);   // closes frames still open
 *     ... a->functions, a->graph, fr_call_tracker_get_stats(a->tracker) ...
 */
#ifndef FLIGHTREC_ANALYSIS_H
#define FLIGHTREC_ANALYSIS_H

#include "call_graph.h"
#include "call_tracker.h"
#include "func_stats.h"
#include "stack_aggregate.h"

enum fr_analyze_what {
    FR_ANALYZE_FUNCTIONS = 1u << 0,
    FR_ANALYZE_GRAPH     = 1u << 1,
    FR_ANALYZE_STACKS    = 1u << 2,
};

typedef struct fr_analysis {
    fr_call_tracker *tracker;
    fr_func_stats   *functions;  /* NULL unless FR_ANALYZE_FUNCTIONS */
    fr_call_graph   *graph;      /* NULL unless FR_ANALYZE_GRAPH */
    fr_stack_agg    *stacks;     /* NULL unless FR_ANALYZE_STACKS */
} fr_analysis;

fr_analysis *fr_analysis_new(unsigned what);
static inline void fr_analysis_feed(fr_analysis *a, const fr_record *rec)
{
    fr_call_tracker_feed(a->tracker, rec);
}
/* A batch from fr_reader_next_functions / fr_cli_next_functions, all of thread tid. */
static inline void fr_analysis_feed_functions(fr_analysis *a, int32_t tid,
                                              const fr_function_record *recs, size_t n)
{
    fr_call_tracker_feed_functions(a->tracker, tid, recs, n);
}
/* The raw form (fr_reader_function_bytes): see fr_call_tracker_feed_function_bytes. */
static inline size_t fr_analysis_feed_function_bytes(fr_analysis *a, int32_t tid,
                                                     const uint8_t *recs, size_t n, uint64_t *tsc)
{
    return fr_call_tracker_feed_function_bytes(a->tracker, tid, recs, n, tsc);
}
void fr_analysis_finish(fr_analysis *a);
const fr_call_tracker_stats *fr_analysis_stats(const fr_analysis *a);
void fr_analysis_free(fr_analysis *a);

#endif
