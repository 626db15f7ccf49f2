/*
 * convert_stacks.c - the calling-context tree behind folded stacks and the SVG flame
 * graph: one streaming pass of the analysis driver with stack aggregation over each
 * trace, then weights and frame names.
 */
#include <stdlib.h>
#include "analysis.h"
#include "stack_spill.h"
#include "commands.h"
#include "convert.h"
#include "analysis_cli.h"

static void *check_alloc(void *p)
{
    if (!p) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    return p;
}

/* The report, saying which trace when path is not NULL. */
static void report_unmatched_in(const char *path, const fr_call_tracker_stats *s)
{
    if (s->unmatched_exits || s->closed_by_unwind || s->open_at_end)
        fprintf(stderr, "flightrec convert: %s%s%llu exits without their entry dropped, %llu calls closed by a "
                "caller's exit, %llu calls still open at the end (closed at the thread's last record)\n",
                path ? path : "", path ? ": " : "",
                (unsigned long long)s->unmatched_exits, (unsigned long long)s->closed_by_unwind,
                (unsigned long long)s->open_at_end);
}

void cv_report_unmatched(const fr_call_tracker_stats *s)
{
    report_unmatched_in(NULL, s);
}

/* Feeds the rest of job's trace to the analysis: plain function records in batches (no
 * record structure per record), the rest one by one. */
static fr_read_status feed(cv_job *job, fr_analysis *a)
{
    enum { FN_BATCH = 1024 };
    fr_function_record fns[FN_BATCH];
    fr_record rec;
    fr_read_status rs;
    for (;;) {
        int32_t tid;
        size_t n = fr_cli_next_functions(job->trace, fns, FN_BATCH, &tid);
        if (n) {
            fr_analysis_feed_functions(a, tid, fns, n);
            continue;
        }
        if ((rs = cv_next(job, &rec)) != FR_READ_OK)
            return rs;
        fr_analysis_feed(a, &rec);
    }
}

static int by_tid(const void *a, const void *b)
{
    int32_t x = ((const cv_thread_frame *)a)->tid, y = ((const cv_thread_frame *)b)->tid;
    return (x > y) - (x < y);
}

/* After process p was fed (its nodes are [start, p->end)), while its trace is open: its
 * threads' frames, and with eager its function names (the trace's symbols are gone once
 * it is closed). A walk over its nodes, a name lookup per node. */
static void name_process(cv_job *job, cv_stacks *st, cv_stack_process *p, uint32_t start,
                         char *(*format)(const char *, void *), bool eager)
{
    size_t cap = p->n_threads;
    for (uint32_t i = start; i < p->end; i++) {
        uint32_t fid = fr_stack_agg_node(st->agg, i)->function_id;
        if (fr_stack_is_thread(fid)) {
            char buf[96];
            int32_t tid = fr_stack_agg_thread_tid(st->agg, fid);
            bool named = false;   /* (a spilled tree makes its open threads' nodes again) */
            for (size_t k = 0; k < p->n_threads && !named; k++)
                named = p->threads[k].tid == tid;
            if (named)
                continue;
            if (p->n_threads == cap)
                p->threads = check_alloc(realloc(p->threads, (cap = cap ? 2 * cap : 8) * sizeof *p->threads));
            p->threads[p->n_threads++] = (cv_thread_frame){
                tid, check_alloc(format(fr_acli_thread_frame(job->meta, tid, buf, sizeof buf), NULL))};
        } else if (eager && fid < FR_STACK_DEEPER && !fr_stack_is_process(fid)) {
            cv_names_get(&p->names, fid);
        }
    }
    if (p->n_threads > 1)   /* (qsort's array must not be NULL, even empty) */
        qsort(p->threads, p->n_threads, sizeof *p->threads, by_tid);
}

/* The process being fed when the tree is full: its nodes are named (name_process), then
 * written to the spill, and the tree starts again from node 0. */
struct naming {
    cv_job *job;
    cv_stacks *st;
    cv_stack_process *p;
    uint32_t start;
    char *(*format)(const char *, void *);
    bool eager;
};

static void name_then_spill(fr_stack_agg *sa, void *ctx)
{
    struct naming *nm = ctx;
    nm->p->end = (uint32_t)fr_stack_agg_count(sa);
    name_process(nm->job, nm->st, nm->p, nm->start, nm->format, nm->eager);
    nm->start = 0;
    fr_stack_spill_on_full(sa, nm->st->spill);
}

/* A process's root frame (fr_acli_process_frame: the same as `stack --thread-root`'s). */
static char *process_frame(const cv_job *job, char *(*format)(const char *, void *))
{
    char buf[4200];
    return check_alloc(format(fr_acli_process_frame(job->meta, job->in_path, buf, sizeof buf), NULL));
}

int cv_stacks_build(cv_job *job, cv_stacks *st, char *(*format)(const char *, void *))
{
    memset(st, 0, sizeof *st);
    bool several = job->n_inputs > 1;
    size_t n_in = several ? job->n_inputs : 1;
    /* Several inputs: none twice (cmd_convert.c checked, fr_cli_check_distinct). */
    int rc = 0;
    fr_cli_losses lost = {0};   /* a flame graph of part of the run says so */
    st->procs = check_alloc(calloc(n_in, sizeof *st->procs));
    uint32_t *pids = several ? check_alloc(calloc(n_in, sizeof *pids)) : NULL;
    st->analysis = fr_analysis_new(FR_ANALYZE_STACKS);
    st->agg = st->analysis->stacks;
    fr_stack_agg_set_limit(st->analysis->stacks, job->max_stacks);
    fr_stack_agg_set_max_depth(st->analysis->stacks, job->max_depth);
    fr_stack_agg_set_thread_roots(st->analysis->stacks, job->thread_roots);
    /* every stack is written: a tree too big for memory goes to disk (no --max-stacks) */
    struct naming nm = {job, st, NULL, 0, format, several};
    if (!job->max_stacks) {
        st->spill = fr_stack_spill_new("convert");
        fr_stack_agg_set_full(st->analysis->stacks, fr_acli_stacks_in_memory(), name_then_spill, &nm);
    }
    for (size_t k = 0; k < n_in; k++) {
        fr_cli_trace trace;
        if (several) {
            /* (a trace that cannot be opened was closed by cv_open_input) */
            int orc = cv_open_input(job, &trace, job->inputs[k]);
            /* two traces of one pid would have the same root frame */
            for (size_t j = 0; !orc && job->meta->has_process && j < k; j++)
                if (pids[j] == job->meta->pid) {
                    orc = fr_cli_input_error("convert", "%s and %s both record process %u",
                                             job->inputs[k], job->inputs[j], (unsigned)pids[j]);
                    fr_cli_close(&trace);
                }
            if (orc) {           /* nothing is written: the caller opens no output */
                free(pids);
                cv_stacks_free(st);
                job->trace = NULL;
                return orc;
            }
            pids[k] = job->meta->has_process ? job->meta->pid : 0;   /* 0: no process's */
            fr_stack_agg_set_process(st->analysis->stacks, (uint32_t)k);
        }
        cv_stack_process *p = &st->procs[k];
        uint32_t start = k ? st->procs[k - 1].end : 0;
        nm.p = p;
        nm.start = start;
        p->clock = job->clock;
        cv_names_init(&p->names, job->symbols, format, NULL);
        if (several)
            p->frame = process_frame(job, format);
        fr_call_tracker_stats before = *fr_analysis_stats(st->analysis);
        if (feed(job, st->analysis) == FR_READ_ERROR)
            rc = FR_EXIT_BAD_INPUT;
        fr_cli_losses_add(&lost, job->trace);
        /* a process's frames still open end with its trace, not in the next one */
        fr_analysis_finish(st->analysis);
        if (several) {   /* which trace had unmatched records */
            const fr_call_tracker_stats *now = fr_analysis_stats(st->analysis);
            fr_call_tracker_stats d = {
                .unmatched_exits = now->unmatched_exits - before.unmatched_exits,
                .closed_by_unwind = now->closed_by_unwind - before.closed_by_unwind,
                .open_at_end = now->open_at_end - before.open_at_end};
            report_unmatched_in(job->in_path, &d);
        }
        p->end = (uint32_t)fr_stack_agg_count(st->agg);
        st->n_procs = k + 1;
        name_process(job, st, p, nm.start, format, several);
        if (several) {
            p->names.symbols = NULL;
            int crc = cv_close_input(job, &trace);
            if (!rc)
                rc = crc;
            job->trace = NULL;
            job->meta = NULL;
            job->symbols = NULL;
            job->info = NULL;
        }
    }
    free(pids);
    if (st->spill) {
        fr_stack_agg_set_full(st->analysis->stacks, 0, NULL, NULL);
        if (fr_stack_spill_runs(st->spill))
            fr_stack_spill_last_run(st->spill, st->analysis->stacks);
        else {   /* the tree held every stack: no file */
            fr_stack_spill_free(st->spill);
            st->spill = NULL;
        }
    }
    if (several)
        job->in_path = job->inputs[0];   /* (the svg's title names it) */
    if (!several)
        cv_report_unmatched(fr_analysis_stats(st->analysis));
    fr_cli_losses_note(&lost, "convert");
    st->n = fr_stack_agg_count(st->agg);
    uint64_t merged = fr_stack_agg_merged_calls(st->agg);
    if (merged)
        fprintf(stderr, "flightrec convert: --max-stacks %zu: %llu calls counted in [other] stacks\n",
                job->max_stacks, (unsigned long long)merged);
    fr_acli_report_deeper(fr_stack_agg_deeper_calls(st->agg), "convert", job->max_depth);
    return rc;
}

/* The process whose nodes include node: the first whose end is past it. */
static cv_stack_process *process_of(const cv_stacks *st, uint32_t node)
{
    size_t lo = 0, hi = st->n_procs - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st->procs[mid].end > node)
            hi = mid;
        else
            lo = mid + 1;
    }
    return &st->procs[lo];
}

uint64_t cv_stack_weight(const cv_job *job, const cv_stacks *st, uint32_t node)
{
    const fr_stack_node *s = fr_stack_agg_node(st->agg, node);
    if (job->weight == CV_WEIGHT_CALLS)
        return s->calls;
    return (uint64_t)cv_clock_ns(&process_of(st, node)->clock, (int64_t)s->self_ticks);
}

static const char *frame_name_in(cv_stacks *st, cv_stack_process *p, uint32_t fid);

const char *cv_stack_frame_name(cv_stacks *st, uint32_t node)
{
    return frame_name_in(st, process_of(st, node), fr_stack_agg_node(st->agg, node)->function_id);
}

/* A spilled stack's process: its first frame's, with several traces. */
static cv_stack_process *process_of_path(const cv_stacks *st, const uint32_t *path)
{
    return fr_stack_is_process(path[0]) ? &st->procs[path[0] & ~FR_STACK_PROCESS] : &st->procs[0];
}

const char *cv_stack_frame_name_of(cv_stacks *st, const uint32_t *path, uint32_t function_id)
{
    return frame_name_in(st, process_of_path(st, path), function_id);
}

uint64_t cv_spilled_weight(const cv_job *job, const cv_stacks *st, const uint32_t *path,
                           uint64_t calls, uint64_t self_ticks)
{
    if (job->weight == CV_WEIGHT_CALLS)
        return calls;
    return (uint64_t)cv_clock_ns(&process_of_path(st, path)->clock, (int64_t)self_ticks);
}

static const char *frame_name_in(cv_stacks *st, cv_stack_process *p, uint32_t fid)
{
    if (fid == FR_STACK_OTHER)
        return "[other]";
    if (fid == FR_STACK_DEEPER)
        return "[deeper]";
    if (fr_stack_is_process(fid))
        return p->frame ? p->frame : "[process]";   /* (a node of one only with several) */
    if (fr_stack_is_thread(fid)) {
        cv_thread_frame key = {fr_stack_agg_thread_tid(st->agg, fid), NULL};
        const cv_thread_frame *t = p->n_threads ? bsearch(&key, p->threads, p->n_threads, sizeof key,
                                                          by_tid) : NULL;
        return t ? t->frame : "[thread]";   /* (every thread node was named) */
    }
    return cv_names_get(&p->names, fid);
}

int cv_stacks_build_for_output(cv_job *job, cv_stacks *st,
                               char *(*format)(const char *, void *), int *build_rc)
{
    *build_rc = cv_stacks_build(job, st, format);
    if (!st->analysis)
        return *build_rc ? *build_rc : FR_EXIT_BAD_INPUT;   /* an input could not be opened */
    int orc = cv_open_output(job);
    if (orc)
        cv_stacks_free(st);
    return orc;
}

void cv_stacks_free(cv_stacks *st)
{
    for (size_t k = 0; k < st->n_procs; k++) {
        cv_stack_process *p = &st->procs[k];
        free(p->frame);
        cv_names_free(&p->names);
        for (size_t i = 0; i < p->n_threads; i++)
            free(p->threads[i].frame);
        free(p->threads);
    }
    free(st->procs);
    fr_stack_spill_free(st->spill);
    fr_analysis_free(st->analysis);
    memset(st, 0, sizeof *st);
}
