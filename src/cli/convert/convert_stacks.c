/*
 * convert_stacks.c - the calling-context tree behind folded stacks and the SVG flame
 * graph: one streaming pass of the analysis driver with stack aggregation, then weights.
 */
#include <stdlib.h>
#include "analysis.h"
#include "commands.h"
#include "convert.h"
#include "analysis_cli.h"

void cv_report_unmatched(const fr_call_tracker_stats *s)
{
    if (s->unmatched_exits || s->closed_by_unwind || s->open_at_end)
        fprintf(stderr, "flightrec convert: %llu exits without their entry dropped, %llu calls closed by a "
                "caller's exit, %llu calls still open at the end (closed at the thread's last record)\n",
                (unsigned long long)s->unmatched_exits, (unsigned long long)s->closed_by_unwind,
                (unsigned long long)s->open_at_end);
}

int cv_stacks_build(cv_job *job, cv_stacks *st)
{
    memset(st, 0, sizeof *st);
    st->analysis = fr_analysis_new(FR_ANALYZE_STACKS);
    fr_stack_agg_set_limit(st->analysis->stacks, job->max_stacks);
    fr_stack_agg_set_thread_roots(st->analysis->stacks, job->thread_roots);
    /* Plain function records in batches (no record structure per record), the rest one
     * by one. */
    enum { FN_BATCH = 1024 };
    fr_function_record fns[FN_BATCH];
    fr_record rec;
    fr_read_status rs;
    for (;;) {
        int32_t tid;
        size_t n = fr_cli_next_functions(job->trace, fns, FN_BATCH, &tid);
        if (n) {
            fr_analysis_feed_functions(st->analysis, tid, fns, n);
            continue;
        }
        if ((rs = cv_next(job, &rec)) != FR_READ_OK)
            break;
        fr_analysis_feed(st->analysis, &rec);
    }
    fr_analysis_finish(st->analysis);
    cv_report_unmatched(fr_analysis_stats(st->analysis));
    st->agg = st->analysis->stacks;
    st->n = fr_stack_agg_count(st->agg);
    uint64_t merged = fr_stack_agg_merged_calls(st->agg);
    if (merged)
        fprintf(stderr, "flightrec convert: --max-stacks %zu: %llu calls counted in [other] stacks\n",
                job->max_stacks, (unsigned long long)merged);
    return rs == FR_READ_ERROR ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
}

uint64_t cv_stack_weight(const cv_job *job, const cv_stacks *st, uint32_t node)
{
    const fr_stack_node *s = fr_stack_agg_node(st->agg, node);
    return job->weight == CV_WEIGHT_CALLS ? s->calls
         : (uint64_t)cv_clock_ns(&job->clock, (int64_t)s->self_ticks);
}

const char *cv_stack_frame_name(const cv_job *job, cv_names *names, uint32_t function_id,
                                char *buf, size_t n)
{
    if (function_id == FR_STACK_OTHER)
        return "[other]";
    if (fr_stack_is_thread(function_id))
        return fr_acli_thread_frame(job->meta, (int32_t)(function_id & ~FR_STACK_THREAD), buf, n);
    return cv_names_get(names, function_id);
}

void cv_stacks_free(cv_stacks *st)
{
    fr_analysis_free(st->analysis);
    memset(st, 0, sizeof *st);
}
