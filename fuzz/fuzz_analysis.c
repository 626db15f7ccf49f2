/*
 * fuzz_analysis.c - libFuzzer target for the analyses: any bytes read as a trace (batched
 * reader, raw records as account reads them, and fr_reader_next mixed, batch sizes from
 * the input) and fed through the call tracker into every analysis: per-function statistics on the batched tracker (account's
 * path), and functions + call graph + stacks on the tracker with callbacks (stack's,
 * graph's and convert's path), the stack tree bounded by a limit taken from the input,
 * and the stack tree alone on the batched tracker with enters (stack's and folded's path).
 * Must never crash, hang, leak or read out of bounds (ASan + UBSan), and the two
 * trackers must agree: same calls and unmatched counts, per-function calls and times
 * equal, the stack tree's calls and self times adding up to the same totals, a parent
 * before its children, at most 2 * limit + 1 stacks, every node found again from its
 * path, and both stack trees equal node for node.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "fr_reader.h"

static void feed_all(const uint8_t *data, size_t size, fr_analysis **as, size_t n_as)
{
    char err[512];
    fr_reader *r = fr_reader_open_memory(data, size, "fuzz", err, sizeof err);
    if (!r)
        return;
    fr_function_record fns[64];
    fr_record rec;
    size_t turn = 0;
    for (;;) {
        size_t max = 1 + data[size - 1 - turn++ % size] % 64;
        int32_t tid = 0;
        const uint8_t *at;
        uint64_t tsc0;
        size_t avail = max & 1 ? fr_reader_function_bytes(r, &at, &tid, &tsc0) : 0;
        if (avail) {   /* account's path on odd turns: the raw records, up to max of them */
            size_t took = 0;
            uint64_t end_tsc = tsc0;
            for (size_t k = 0; k < n_as; k++) {
                uint64_t tsc = tsc0;
                size_t m = fr_analysis_feed_function_bytes(as[k], tid, at, avail < max ? avail : max, &tsc);
                if (k == 0) {
                    took = m;
                    end_tsc = tsc;
                } else if (m != took || tsc != end_tsc) {
                    abort();   /* every mode takes the same records */
                }
            }
            fr_reader_take_functions(r, took, end_tsc);
            if (took)
                continue;
        }
        size_t n = fr_reader_next_functions(r, fns, max, &tid);
        if (n) {
            for (size_t k = 0; k < n_as; k++)
                fr_analysis_feed_functions(as[k], tid, fns, n);
            continue;
        }
        if (fr_reader_next(r, &rec) != FR_READ_OK)
            break;
        for (size_t k = 0; k < n_as; k++)
            fr_analysis_feed(as[k], &rec);
    }
    fr_reader_close(r);
    for (size_t k = 0; k < n_as; k++)
        fr_analysis_finish(as[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 33)
        return 0;
    fr_analysis *batched = fr_analysis_new(FR_ANALYZE_FUNCTIONS);
    fr_analysis *full = fr_analysis_new(FR_ANALYZE_FUNCTIONS | FR_ANALYZE_GRAPH | FR_ANALYZE_STACKS);
    size_t limit = data[size - 1] % 8 == 0 ? 0 : 1 + data[size - 2] % 64;
    fr_stack_agg_set_limit(full->stacks, limit);
    /* stack's own path: the tracker's batches with enters into the stack tree */
    fr_analysis *stacks = fr_analysis_new(FR_ANALYZE_STACKS);
    fr_stack_agg_set_limit(stacks->stacks, limit);
    fr_analysis *as[3] = {batched, full, stacks};
    feed_all(data, size, as, 3);

    const fr_call_tracker_stats *a = fr_analysis_stats(batched), *b = fr_analysis_stats(full);
    if (a->calls != b->calls || a->unmatched_exits != b->unmatched_exits ||
        a->closed_by_unwind != b->closed_by_unwind || a->open_at_end != b->open_at_end ||
        a->discarded_at_lost != b->discarded_at_lost || a->too_deep != b->too_deep ||
        a->max_depth != b->max_depth || a->threads != b->threads)
        __builtin_trap();

    /* per-function statistics: the same on both paths, adding up to the calls */
    size_t nf = fr_func_stats_count(batched->functions);
    if (nf != fr_func_stats_count(full->functions))
        __builtin_trap();
    uint64_t calls = 0, self = 0;
    for (size_t i = 0; i < nf; i++) {
        const fr_func_stat *x = fr_func_stats_at(batched->functions, i);
        const fr_func_stat *y = fr_func_stats_find(full->functions, x->function_id);
        if (!y || x->calls != y->calls || x->total_ticks != y->total_ticks ||
            x->self_ticks != y->self_ticks || x->min_ticks != y->min_ticks ||
            x->max_ticks != y->max_ticks)
            __builtin_trap();
        calls += x->calls;
        self += x->self_ticks;
    }
    if (calls != a->calls)
        __builtin_trap();

    /* the stack tree */
    const fr_stack_agg *sa = full->stacks;
    size_t n = fr_stack_agg_count(sa);
    if (limit && n > 2 * limit + 1)
        __builtin_trap();
    uint64_t stack_calls = 0, stack_self = 0;
    uint32_t path[64];
    for (uint32_t i = 0; i < n; i++) {
        const fr_stack_node *s = fr_stack_agg_node(sa, i);
        if (s->parent != FR_STACK_ROOT && s->parent >= i)
            __builtin_trap();
        stack_calls += s->calls;
        stack_self += s->self_ticks;
        uint32_t len = fr_stack_agg_path(sa, i, path, 64);
        if (len <= 64 && fr_stack_agg_find(sa, path, len) != i)
            __builtin_trap();
    }
    if (stack_calls != a->calls || stack_self != self)
        __builtin_trap();
    /* ... and the same tree, node for node, from the batched path */
    if (fr_stack_agg_count(stacks->stacks) != n ||
        fr_stack_agg_merged_calls(stacks->stacks) != fr_stack_agg_merged_calls(sa))
        __builtin_trap();
    for (uint32_t i = 0; i < n; i++) {
        const fr_stack_node *x = fr_stack_agg_node(sa, i), *y = fr_stack_agg_node(stacks->stacks, i);
        if (x->parent != y->parent || x->function_id != y->function_id || x->calls != y->calls ||
            x->total_ticks != y->total_ticks || x->self_ticks != y->self_ticks)
            __builtin_trap();
    }

    /* call graph: one edge per (caller, callee), calls of non-root calls only */
    uint64_t edge_calls = 0;
    for (size_t i = 0; i < fr_call_graph_count(full->graph); i++)
        edge_calls += fr_call_graph_at(full->graph, i)->calls;
    if (edge_calls > a->calls)
        __builtin_trap();

    fr_analysis_free(batched);
    fr_analysis_free(full);
    fr_analysis_free(stacks);
    return 0;
}
