/* analysis_cli.c - see analysis_cli.h. */
#include "analysis_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "fr_alloc.h"
#include "stack_spill.h"
#include "u64_map.h"

int fr_acli_run(fr_acli *c, const char *command, const char *path, const char *binary,
                unsigned what)
{
    return fr_acli_run_opts(c, command, path, binary, what, NULL);
}

/* --exclude-off-cpu: each thread's clock stops while it is off the CPU. A thread's
 * records are fed with their time minus the thread's time off the CPU so far (the sum of
 * its FR_TE_SCHED records), so that a call's duration and self time leave out the
 * stretches off the CPU within it, and its callees' times are measured the same way. */
struct off_cpu {
    fr_u64_map by_tid;      /* tid -> index in off */
    uint64_t  *off;
    size_t     n, cap;
};

static uint64_t *off_cpu_of(struct off_cpu *oc, int32_t tid)
{
    uint32_t i = fr_u64_map_get(&oc->by_tid, (uint64_t)(uint32_t)tid);
    if (i == FR_U64_MAP_NONE) {
        oc->off = fr_xgrow(oc->off, &oc->cap, oc->n + 1, sizeof *oc->off, 16);
        oc->off[oc->n] = 0;
        i = (uint32_t)oc->n++;
        fr_u64_map_put(&oc->by_tid, (uint64_t)(uint32_t)tid, i);
    }
    return &oc->off[i];
}

/* Feeds every record of t (from where it is) to the analysis. Returns how many
 * scheduling marks were taken off (exclude_off_cpu). */
static uint64_t feed_trace(fr_cli_trace *t, fr_analysis *a, bool exclude_off_cpu)
{
    uint64_t marks = 0;
    /* Plain function records (nearly all of a trace) in batches, the rest one by one. */
    enum { FN_BATCH = 1024 };   /* 16 KiB: stays in L1 while the tracker reads it */
    fr_function_record fns[FN_BATCH];
    fr_record rec;
    struct off_cpu oc = {0};
    if (exclude_off_cpu)
        fr_u64_map_init(&oc.by_tid);
    for (;;) {
        int32_t tid;
        const uint8_t *bytes;
        uint64_t tsc;
        size_t n = exclude_off_cpu ? 0 : fr_cli_function_bytes(t, &bytes, &tid, &tsc);
        if (n) {   /* the run of plain function records read where they lie */
            n = fr_analysis_feed_function_bytes(a, tid, bytes, n, &tsc);
            fr_cli_take_functions(t, n, tsc);
            if (n)
                continue;
        }
        n = fr_cli_next_functions(t, fns, FN_BATCH, &tid);
        if (n) {
            uint64_t off = exclude_off_cpu ? *off_cpu_of(&oc, tid) : 0;
            for (size_t i = 0; off && i < n; i++)
                fns[i].tsc -= off;
            fr_analysis_feed_functions(a, tid, fns, n);
            continue;
        }
        if (fr_cli_next(t, &rec) != FR_READ_OK)
            break;
        if (exclude_off_cpu && rec.kind != FR_REC_BLOCK) {
            uint64_t *off = off_cpu_of(&oc, rec.tid);
            rec.tsc -= *off;
            struct fr_te_sched s;
            if (rec.kind == FR_REC_TYPED && rec.event_type == FR_TE_SCHED && rec.size >= sizeof s) {
                memcpy(&s, rec.data, sizeof s);
                *off += s.off_ticks;
                marks++;
            }
        }
        fr_analysis_feed(a, &rec);
    }
    if (exclude_off_cpu) {
        fr_u64_map_free(&oc.by_tid);
        free(oc.off);
    }
    return marks;
}

/* Keeps what names trace t's root frames once it is closed (several traces with thread
 * roots). Returns 0, or FR_EXIT_BAD_INPUT when out of memory. */
static int keep_process(fr_acli *c, const fr_cli_trace *t)
{
    char buf[4200];
    fr_acli_process *p = &c->procs[c->n_procs];
    const fr_trace_meta *m = &t->meta;
    p->frame = strdup(fr_acli_process_frame(m, t->path, buf, sizeof buf));
    p->threads = m->n_thread_stats ? malloc(m->n_thread_stats * sizeof *p->threads) : NULL;
    if (!p->frame || (m->n_thread_stats && !p->threads)) {
        free(p->frame);
        free(p->threads);
        fprintf(stderr, "flightrec %s: out of memory\n", t->command);
        return FR_EXIT_BAD_INPUT;
    }
    if (m->n_thread_stats)
        memcpy(p->threads, m->thread_stats, m->n_thread_stats * sizeof *p->threads);
    p->n_threads = m->n_thread_stats;
    c->n_procs++;
    return 0;
}

size_t fr_acli_stacks_in_memory(void)
{
    const char *e = getenv("FLIGHTREC_STACKS_IN_MEMORY");
    char *end;
    unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
    return e && *e && !*end && v >= 16 && v <= FR_ACLI_STACKS_IN_MEMORY * 64 ? (size_t)v
                                                                          : FR_ACLI_STACKS_IN_MEMORY;
}

static bool same_text(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

int fr_acli_run_opts(fr_acli *c, const char *command, const char *path, const char *binary,
                     unsigned what, const fr_acli_opts *opts)
{
    return fr_acli_run_files(c, command, &path, 1, binary, what, opts);
}

int fr_acli_run_files(fr_acli *c, const char *command, const char *const *paths, size_t n_paths,
                      const char *binary, unsigned what, const fr_acli_opts *opts)
{
    memset(c, 0, sizeof *c);
    int drc = fr_cli_check_distinct(command, paths, n_paths);
    if (drc)
        return drc;
    /* Durations only: no first pass to find the time origin. */
    int rc = fr_cli_open_durations(&c->trace, command, paths[0], binary);
    if (rc)
        return rc;
    /* FR_TE_LOST must reach the call tracker (it resets a thread's stack). */
    c->trace.return_meta = true;
    c->analysis = fr_analysis_new(what);
    if (opts && c->analysis->stacks) {
        if (opts->bound_stacks)
            fr_stack_agg_set_bound(c->analysis->stacks, opts->bound_stacks, opts->bound_figure);
        else
            fr_stack_agg_set_limit(c->analysis->stacks, opts->max_stacks);
        fr_stack_agg_set_max_depth(c->analysis->stacks, opts->max_depth);
        fr_stack_agg_set_thread_roots(c->analysis->stacks, opts->thread_roots);
        if (opts->spill)
            fr_stack_spill_attach(opts->spill, c->analysis->stacks, fr_acli_stacks_in_memory());
    }
    if (opts)
        c->trace.only_tids = opts->tids;
    /* With thread roots, a thread is shown in its process: a root per file, as in
     * `convert -f folded` of several files. */
    bool roots = n_paths > 1 && opts && opts->thread_roots && c->analysis->stacks;
    if (roots) {
        c->procs = calloc(n_paths, sizeof *c->procs);
        if (!c->procs) {
            fprintf(stderr, "flightrec %s: out of memory\n", command);
            return FR_EXIT_BAD_INPUT;
        }
        fr_stack_agg_set_process(c->analysis->stacks, 0);
    }
    bool off = opts && opts->exclude_off_cpu;
    uint64_t marks = feed_trace(&c->trace, c->analysis, off);
    fr_cli_losses_add(&c->lost, &c->trace);
    /* A process's frames still open end with its trace, not in the next one. */
    fr_analysis_finish(c->analysis);
    if (roots && (rc = keep_process(c, &c->trace)) != 0)
        return rc;
    uint64_t tid_records = c->trace.tid_records;
    /* More traces of the same program (a process and its forked children): their threads
     * are other threads of the same analysis. Function ids mean the same functions only
     * in the same executable; durations stay in ticks of one rate. */
    for (size_t i = 1; i < n_paths && !c->trace.failed; i++) {
        fr_cli_trace more;
        rc = fr_cli_open_durations(&more, command, paths[i], binary);
        if (rc)
            return rc;
        int bad = 0;
        if (!same_text(more.meta.executable, c->trace.meta.executable))
            bad = fr_cli_input_error(command, "%s records '%s', %s records '%s': several traces are "
                                     "analysed together only when they come from one program",
                                     paths[i], more.meta.executable ? more.meta.executable : "",
                                     paths[0], c->trace.meta.executable ? c->trace.meta.executable : "");
        else if (more.meta.has_process && c->trace.meta.has_process && more.meta.pid == c->trace.meta.pid)
            bad = fr_cli_input_error(command, "%s and %s both record process %u", paths[i], paths[0],
                                     (unsigned)more.meta.pid);
        else if (more.ticks_per_second != c->trace.ticks_per_second)
            bad = fr_cli_input_error(command, "%s counts time at %llu ticks a second, %s at %llu: "
                                     "their durations cannot be added", paths[i],
                                     (unsigned long long)more.ticks_per_second, paths[0],
                                     (unsigned long long)c->trace.ticks_per_second);
        if (!bad) {
            more.return_meta = true;
            if (opts)
                more.only_tids = opts->tids;
            if (roots)
                fr_stack_agg_set_process(c->analysis->stacks, (uint32_t)i);
            marks += feed_trace(&more, c->analysis, off);
            fr_cli_losses_add(&c->lost, &more);
            fr_analysis_finish(c->analysis);
            if (roots)
                bad = keep_process(c, &more);
            tid_records += more.tid_records;
        }
        int crc = fr_cli_close(&more);
        if (bad || crc)
            return FR_EXIT_BAD_INPUT;
    }
    if (c->trace.failed)
        return FR_EXIT_BAD_INPUT;
    if (opts && (rc = fr_cli_tids_matched(command, &opts->tids, tid_records)) != 0)
        return rc;   /* (nothing written yet) */
    if (off && !marks)
        fprintf(stderr, "flightrec %s: note: --exclude-off-cpu: the trace has no scheduling "
                "marks (record it with 'flightrec record --sched'): times are wall times\n",
                command);

    c->ticks_per_second = c->trace.ticks_per_second;
    if (!c->ticks_per_second) {
        fprintf(stderr, "flightrec %s: warning: %s gives no clock frequency; "
                "times are shown as if 1 tick = 1 ns\n", command, paths[0]);
        c->ticks_per_second = 1000000000;
    }
    return 0;
}

int fr_acli_done(fr_acli *c)
{
    int rc = 0;
    for (size_t i = 0; i < c->n_procs; i++) {
        free(c->procs[i].frame);
        free(c->procs[i].threads);
    }
    free(c->procs);
    fr_analysis_free(c->analysis);
    if (c->trace.reader)
        rc = fr_cli_close(&c->trace);
    memset(c, 0, sizeof *c);
    return rc;
}

const char *fr_acli_name(fr_acli *c, uint32_t function_id)
{
    return fr_cli_name(&c->trace, function_id);
}

const char *fr_acli_location(fr_acli *c, uint32_t function_id, char *buf, size_t n)
{
    const char *file;
    int line;
    if (!c->trace.symbols || !fr_symbols_location(c->trace.symbols, function_id, &file, &line))
        return NULL;
    snprintf(buf, n, "%s:%d", file, line);
    return buf;
}

void fr_acli_format_duration(const fr_acli *c, uint64_t ticks, char *buf, size_t n)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    /* choose the unit and decimals on an approximation, then format exactly */
    double v = (double)ticks * 1e9 / (double)c->ticks_per_second;
    unsigned u = 0;
    while (u < 3 && v >= 999.5) {
        v /= 1000;
        u++;
    }
    int decimals = ticks == 0 ? 0 : v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
    char num[48];
    fr_cli_format_ticks(num, sizeof num, (int64_t)ticks, c->ticks_per_second, 9 - 3 * (int)u,
                        decimals);
    snprintf(buf, n, "%s %s", num, units[u]);
}

const char *fr_acli_ns(const fr_acli *c, uint64_t ticks, char *buf, size_t n)
{
    return fr_cli_format_ticks(buf, n, (int64_t)ticks, c->ticks_per_second, 9, 3);
}

/* The plural ending of a count's noun: "1 call", "2 calls", "0 calls". */
static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

void fr_acli_report_unmatched(const fr_acli *c)
{
    const fr_call_tracker_stats *s = fr_analysis_stats(c->analysis);
    /* Only news is reported: a line of zeros after every analysis is noise (issue 13),
     * unless -v asked for it. */
    if (c->verbose || s->unmatched_exits || s->closed_by_unwind || s->open_at_end ||
        s->discarded_at_lost)
        fprintf(stderr,
            "flightrec %s: %" PRIu64 " call%s in %" PRIu32 " thread%s; unmatched: %" PRIu64
            " exit%s without an enter (dropped), %" PRIu64 " call%s closed by an unwind, %" PRIu64
            " call%s open at the end, %" PRIu64 " call%s cut by lost records\n",
            c->trace.command, s->calls, plural(s->calls), s->threads, plural(s->threads),
            s->unmatched_exits, plural(s->unmatched_exits), s->closed_by_unwind,
            plural(s->closed_by_unwind), s->open_at_end, plural(s->open_at_end),
            s->discarded_at_lost, plural(s->discarded_at_lost));
    if (s->too_deep)
        fprintf(stderr, "flightrec %s: warning: %" PRIu64 " call%s deeper than %u frames ignored\n",
                c->trace.command, s->too_deep, plural(s->too_deep), FR_CALL_TRACKER_MAX_DEPTH);
    fr_cli_losses_note(&c->lost, c->trace.command);
}

void fr_acli_json_header(const fr_acli *c, FILE *out)
{
    const fr_call_tracker_stats *s = fr_analysis_stats(c->analysis);
    fprintf(out, "\"trace\": ");
    fr_acli_json_string(out, c->trace.path);
    fprintf(out,
            ", \"ticks_per_second\": %" PRIu64 ", \"calls\": %" PRIu64 ", \"threads\": %" PRIu32
            ", \"max_depth\": %" PRIu32
            ", \"unmatched\": {\"exits_without_enter\": %" PRIu64 ", \"closed_by_unwind\": %" PRIu64
            ", \"open_at_end\": %" PRIu64 ", \"cut_by_lost_records\": %" PRIu64
            ", \"too_deep\": %" PRIu64 "}, \"records_lost\": %" PRIu64,
            c->ticks_per_second, s->calls, s->threads, s->max_depth, s->unmatched_exits,
            s->closed_by_unwind, s->open_at_end, s->discarded_at_lost, s->too_deep,
            c->lost.records);
}

void fr_acli_json_string(FILE *out, const char *s)
{
    fr_cli_json_string(out, s);
}

FILE *fr_acli_open_output(const char *command, const char *path)
{
    return fr_cli_open_output(command, path);
}

int fr_acli_close_output(const char *command, const char *path, FILE *out)
{
    return fr_cli_close_output(command, path, out);
}

int fr_acli_parse_count(const char *command, const char *option, const char *arg, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = arg && *arg >= '0' && *arg <= '9' ? strtoull(arg, &end, 10) : 0;
    if (!arg || *arg < '0' || *arg > '9' || errno || *end) {
        fr_cli_usage_error(command, "%s needs a non-negative number, not '%s'", option,
                           arg ? arg : "");
        return -1;
    }
    *out = v;
    return 0;
}

void fr_acli_report_deeper(uint64_t deeper, const char *command, uint32_t max_depth)
{
    if (deeper)
        fprintf(stderr, "flightrec %s: note: --max-depth %u: %llu call%s deeper than %u frame%s "
                "counted in [deeper] frames\n", command, (unsigned)max_depth,
                (unsigned long long)deeper, plural(deeper), (unsigned)max_depth, plural(max_depth));
}

int fr_acli_parse_max_depth(const char *command, const char *arg, uint32_t *out)
{
    uint64_t v;
    if (fr_acli_parse_count(command, "--max-depth", arg, &v))
        return -1;
    if (v == 0 || v > UINT32_MAX) {
        fr_cli_usage_error(command, "--max-depth '%s': expected a count of frames from 1 to %u",
                           arg, (unsigned)UINT32_MAX);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static const char *thread_frame(const fr_meta_thread *threads, size_t n_threads, int32_t tid,
                                char *buf, size_t n)
{
    for (size_t i = 0; i < n_threads; i++) {
        const fr_meta_thread *th = &threads[i];
        if (th->tid == tid && th->name[0]) {
            snprintf(buf, n, "[thread %d %.*s]", (int)tid, (int)strnlen(th->name, sizeof th->name),
                     th->name);
            return buf;
        }
    }
    snprintf(buf, n, "[thread %d]", (int)tid);
    return buf;
}

const char *fr_acli_thread_frame(const fr_trace_meta *m, int32_t tid, char *buf, size_t n)
{
    return thread_frame(m->thread_stats, m->n_thread_stats, tid, buf, n);
}

const char *fr_acli_process_frame(const fr_trace_meta *m, const char *path, char *buf, size_t n)
{
    if (!m->has_process)
        snprintf(buf, n, "[trace %s]", path);
    else if (m->process_name && m->process_name[0])
        snprintf(buf, n, "[process %u %s]", (unsigned)m->pid, m->process_name);
    else
        snprintf(buf, n, "[process %u]", (unsigned)m->pid);
    return buf;
}

const char *fr_acli_root_frame(const fr_acli *c, int64_t process, uint32_t function_id,
                               char *buf, size_t n)
{
    const fr_acli_process *p = process >= 0 && (uint64_t)process < c->n_procs ? &c->procs[process] : NULL;
    if (fr_stack_is_process(function_id)) {
        uint32_t k = function_id & ~FR_STACK_PROCESS;
        if (k < c->n_procs)
            return c->procs[k].frame;
        snprintf(buf, n, "[process]");
        return buf;
    }
    int32_t tid = fr_stack_agg_thread_tid(c->analysis->stacks, function_id);
    return p ? thread_frame(p->threads, p->n_threads, tid, buf, n)
             : fr_acli_thread_frame(&c->trace.meta, tid, buf, n);
}
