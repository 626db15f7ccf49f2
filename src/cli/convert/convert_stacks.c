/*
 * convert_stacks.c - the calling-context tree behind folded stacks and the SVG flame
 * graph: one streaming pass of the analysis driver with stack aggregation, then weights.
 */
#include <stdlib.h>
#include "analysis.h"
#include "commands.h"
#include "convert.h"

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
    fr_record rec;
    fr_read_status rs;
    while ((rs = cv_next(job, &rec)) == FR_READ_OK)
        fr_analysis_feed(st->analysis, &rec);
    fr_analysis_finish(st->analysis);
    cv_report_unmatched(fr_analysis_stats(st->analysis));

    const fr_stack_agg *sa = st->analysis->stacks;
    st->agg = sa;
    st->n = fr_stack_agg_count(sa);
    st->self = calloc(st->n ? st->n : 1, sizeof *st->self);
    st->total = calloc(st->n ? st->n : 1, sizeof *st->total);
    if (!st->self || !st->total) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < st->n; i++) {
        const fr_stack_node *node = fr_stack_agg_node(sa, (uint32_t)i);
        st->self[i] = job->weight == CV_WEIGHT_CALLS ? node->calls
                                                     : (uint64_t)fr_cli_ticks_to_ns((int64_t)node->self_ticks, job->ticks_per_second);
        st->total[i] = st->self[i];
    }
    /* Parents have smaller indexes than their children: one backward sweep sums subtrees. */
    for (size_t i = st->n; i-- > 0;) {
        const fr_stack_node *node = fr_stack_agg_node(sa, (uint32_t)i);
        if (node->parent == FR_STACK_ROOT)
            st->grand_total += st->total[i];
        else
            st->total[node->parent] += st->total[i];
    }
    return rs == FR_READ_ERROR ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
}

void cv_stacks_free(cv_stacks *st)
{
    fr_analysis_free(st->analysis);
    free(st->self);
    free(st->total);
    memset(st, 0, sizeof *st);
}
