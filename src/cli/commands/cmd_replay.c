/*
 * cmd_replay.c - `flightrec replay FILE`: the calls of a trace as an indented call view,
 * in the style of `uftrace replay`:
 *
 *     #    TIMESTAMP       DURATION      TID     FUNCTION
 *         0.000001234                [  1234] | main() {
 *         0.000001300       0.215 us [  1234] |   parse();
 *         0.000003344       2.110 us [  1234] | } // main   (written with C comment marks)
 *
 * A stretch off the CPU (FR_TE_SCHED, `record --sched`) is a line of its own where it
 * happened, as uftrace shows it: "linux:schedule();" with its length, inside the call
 * that was running, and "(preempted)" when the thread was runnable.
 * A call with no shown callee is one line, "name();", with its duration; a call with
 * callees opens with "name() {" (at its enter time) and closes with a "}" line naming
 * it, with its duration (a C++ name keeps its own parameter list: "step(int) {"). A call
 * recorded with its first argument (XRay's xray_log_args(1), an FDR CallArgument) shows
 * it in decimal: "compute(42) {", or "step(int) arg=42 {" for a name with a parameter
 * list.
 * Records come in the file's order: one thread's block after another's (the TID
 * column says whose). The timestamp is seconds since the trace's start.
 *
 * Streaming, in bounded memory: per thread, the frames open at each depth and whether
 * their opening line was written. A call's opening line is written when its first shown
 * callee's line is, so that filters which decide at the exit (--time-filter) can drop a
 * call and all it contains without buffering lines.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_cli.h"
#include "call_tracker.h"
#include "cli_options.h"
#include "commands.h"
#include "convert/convert.h"
#include "fr_alloc.h"
#include "text_escape.h"
#include "u64_map.h"

#define MAX_FILTERS 64
#define MAX_INDENT 128   /* levels of indentation at most (two blanks each) */

struct frame {
    uint32_t id;
    uint64_t enter_tsc;
    uint32_t base;        /* depth of the outermost --function match (its indent 0) */
    uint8_t  shown;       /* within the filters (tid, function, depth) */
    uint8_t  opened;      /* its "name() {" line was written */
    uint8_t  has_arg;     /* entered with its first argument */
    uint64_t arg;
};

struct thread {
    int32_t       tid;
    struct frame *frames;
    size_t        cap;
    uint32_t      depth;   /* frames open now (the call tracker's, followed) */
};

struct replay {
    fr_acli      *c;
    FILE         *out;
    /* The converters' buffered writer and name cache (convert.h): stdio's formatting,
     * field by field, was 70% of replay's time (perf, 5 M records). Names escaped once
     * per function (text_escape.h): as a call and plain (a closing line's comment). */
    cv_out        o;
    cv_names      calls, plains;
    uint64_t      max_depth;        /* 0: no limit */
    const fr_record *fed;           /* the record being fed to the tracker (on_enter's arg) */
    int64_t       min_ticks;        /* --time-filter */
    const char   *functions[MAX_FILTERS]; size_t n_functions;
    uint8_t      *fn_match;         /* per function id: 0 unknown, 1 no, 2 yes */
    size_t        fn_match_cap;
    int32_t       tids[MAX_FILTERS]; size_t n_tids;
    struct thread **threads; size_t n_threads, cap_threads;
    fr_u64_map    by_tid;
    struct thread *last;
    uint64_t      lines, lost;
};

static struct thread *thread_of(struct replay *r, int32_t tid)
{
    if (r->last && r->last->tid == tid)
        return r->last;
    uint32_t i = fr_u64_map_get(&r->by_tid, (uint32_t)tid);
    if (i == FR_U64_MAP_NONE) {
        struct thread *t = fr_xcalloc(1, sizeof *t);
        t->tid = tid;
        r->threads = fr_xgrow(r->threads, &r->cap_threads, r->n_threads + 1, sizeof *r->threads, 16);
        i = (uint32_t)r->n_threads++;
        r->threads[i] = t;
        fr_u64_map_put(&r->by_tid, (uint32_t)tid, i);
    }
    return r->last = r->threads[i];
}

static bool tid_selected(const struct replay *r, int32_t tid)
{
    if (!r->n_tids)
        return true;
    for (size_t i = 0; i < r->n_tids; i++)
        if (r->tids[i] == tid)
            return true;
    return false;
}

static bool function_matches(struct replay *r, uint32_t id)
{
    if (id >= r->fn_match_cap) {
        size_t cap = r->fn_match_cap ? r->fn_match_cap : 1024;
        while (cap <= id)
            cap *= 2;
        r->fn_match = fr_xrealloc(r->fn_match, cap);
        memset(r->fn_match + r->fn_match_cap, 0, cap - r->fn_match_cap);
        r->fn_match_cap = cap;
    }
    if (!r->fn_match[id]) {
        const char *name = fr_acli_name(r->c, id);
        r->fn_match[id] = 1;
        for (size_t i = 0; i < r->n_functions; i++)
            if (!strcmp(name, r->functions[i]))
                r->fn_match[id] = 2;
    }
    return r->fn_match[id] == 2;
}

/* "   1.234 us": the duration in the unit that keeps 1-3 integer digits, as uftrace. */
static void put_duration(struct replay *r, uint64_t ticks)
{
    uint64_t ns = (uint64_t)fr_cli_ticks_to_ns((int64_t)ticks, r->c->ticks_per_second);
    static const char *const units[] = {"us", "ms", " s"};
    uint64_t div = 1000;
    int u = 0;
    while (u < 2 && ns >= div * 1000) {
        div *= 1000;
        u++;
    }
    cv_u64_pad(&r->o, ns / div, 7, ' ');
    cv_putc(&r->o, '.');
    cv_u64_pad(&r->o, ns % div * 1000 / div, 3, '0');
    cv_putc(&r->o, ' ');
    cv_put(&r->o, units[u], 2);
}

/* A line's start: time, duration, thread, indentation. */
static void put_prefix(struct replay *r, uint64_t tsc, const uint64_t *duration, int32_t tid,
                       uint32_t indent)
{
    static const char blanks[2 * MAX_INDENT + 1] = {[0 ... 2 * MAX_INDENT - 1] = ' '};
    cv_out *o = &r->o;
    int64_t ns = fr_cli_ticks_to_ns(fr_cli_rel(&r->c->trace, tsc), r->c->ticks_per_second);
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    cv_putc(o, ns < 0 ? '-' : ' ');
    cv_u64_pad(o, a / 1000000000u, 4, ' ');
    cv_putc(o, '.');
    cv_u64_pad(o, a % 1000000000u, 9, '0');
    cv_putc(o, ' ');
    if (duration)
        put_duration(r, *duration);
    else
        CV_LIT(o, "              ");   /* as wide as a duration */
    CV_LIT(o, " [");
    if (tid < 0) {   /* (a damaged trace's) "%6d" of a negative tid */
        char b[16];
        cv_put(o, b, (size_t)snprintf(b, sizeof b, "%6" PRId32, tid));
    } else {
        cv_u64_pad(o, (uint64_t)tid, 6, ' ');
    }
    CV_LIT(o, "] | ");
    /* Deeper than MAX_INDENT, the depth is written instead of more indentation: a
     * runaway recursion (a stack overflow's trace, 65,536 levels) made 131 KB of blanks
     * a line, 8.6 GB for a 2 MB trace. */
    cv_put(o, blanks, 2 * (indent < MAX_INDENT ? indent : MAX_INDENT));
    if (indent > MAX_INDENT) {
        CV_LIT(o, "[depth ");
        cv_u64(o, indent);
        CV_LIT(o, "] ");
    }
    r->lines++;
}

/* cv_names formats: a function's name escaped (text_escape.h), as a call: "name()",
 * or a C++ name as demangled, which has its parameter list already ("step(int)",
 * "Box<long>::get(long) const"; "step(int)()" read as a call of what step returns; C
 * names and "#ID" have no '('), or plain. */
static char *escaped_name(const char *name, bool call)
{
    fr_text_buf b = {0};
    const char *esc = fr_text_escape(&b, name);
    size_t n = strlen(esc);
    char *s = malloc(n + 3);
    if (s) {
        memcpy(s, esc, n + 1);
        if (call && !strchr(name, '('))
            memcpy(s + n, "()", 3);
    }
    fr_text_buf_free(&b);
    return s;
}
static char *call_name(const char *name, void *ctx) { (void)ctx; return escaped_name(name, true); }

/* A call as its opening or one-line form shows it: "name()", or with the argument
 * "name(42)" (C names) or "step(int) arg=42" (names with their own parameter list). */
static void put_call(struct replay *r, uint32_t id, bool has_arg, uint64_t arg)
{
    cv_out *o = &r->o;
    const char *call = cv_names_get(&r->calls, id);
    if (!has_arg) {
        cv_puts(o, call);
        return;
    }
    size_t n = strlen(call);
    if (n >= 2 && call[n - 2] == '(' && call[n - 1] == ')' &&
        !strchr(cv_names_get(&r->plains, id), '(')) {
        cv_put(o, call, n - 1);
        cv_u64(o, arg);
        cv_putc(o, ')');
    } else {
        cv_puts(o, call);
        CV_LIT(o, " arg=");
        cv_u64(o, arg);
    }
}
static char *plain_name(const char *name, void *ctx) { (void)ctx; return escaped_name(name, false); }

/* Writes the opening lines of the shown frames above depth d not written yet. */
static void open_ancestors(struct replay *r, struct thread *t, uint32_t d)
{
    uint32_t k = d;
    while (k > 0 && t->frames[k - 1].shown && !t->frames[k - 1].opened)
        k--;
    for (; k < d; k++) {
        struct frame *f = &t->frames[k];
        put_prefix(r, f->enter_tsc, NULL, t->tid, k - f->base);
        put_call(r, f->id, f->has_arg, f->arg);
        CV_LIT(&r->o, " {\n");
        f->opened = 1;
    }
}

static void on_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx)
{
    struct replay *r = ctx;
    struct thread *t = thread_of(r, tid);
    if (depth >= t->cap)
        t->frames = fr_xgrow(t->frames, &t->cap, (size_t)depth + 1, sizeof *t->frames, 64);
    struct frame *f = &t->frames[depth];
    const struct frame *up = depth ? &t->frames[depth - 1] : NULL;
    f->id = stack[depth];
    f->enter_tsc = tsc;
    f->opened = 0;
    t->depth = depth + 1;
    f->has_arg = r->fed && r->fed->kind == FR_REC_ENTER_ARG;
    f->arg = f->has_arg ? r->fed->arg : 0;
    bool inside = r->n_functions == 0 || (up && up->shown);
    if (inside) {
        f->base = up && r->n_functions ? up->base : 0;
    } else if (function_matches(r, f->id)) {
        inside = true;
        f->base = depth;
    }
    f->shown = inside && tid_selected(r, tid) &&
               (!r->max_depth || depth - f->base < r->max_depth);
}

static void on_call(const fr_call *call, void *ctx)
{
    struct replay *r = ctx;
    struct thread *t = thread_of(r, call->tid);
    uint32_t d = call->depth;
    if (d >= t->cap)
        return;
    t->depth = d;   /* calls complete innermost first: the last one leaves d open */
    struct frame *f = &t->frames[d];
    uint64_t ticks = call->exit_tsc - call->enter_tsc;
    if (!f->shown || (!f->opened && (int64_t)ticks < r->min_ticks))
        return;   /* hidden; a call too short has no callee shown (they are shorter) */
    if (!f->opened)
        open_ancestors(r, t, d);
    put_prefix(r, f->opened ? call->exit_tsc : call->enter_tsc, &ticks, call->tid, d - f->base);
    cv_out *o = &r->o;
    if (f->opened) {
        CV_LIT(o, "} /* ");
        cv_puts(o, cv_names_get(&r->plains, call->function_id));
        CV_LIT(o, " */");
    } else {
        put_call(r, call->function_id, call->has_arg, call->arg);
        cv_putc(o, ';');
    }
    if (call->flags & FR_CALL_CLOSED_BY_UNWIND)
        CV_LIT(o, "   (closed by a caller's exit)");
    else if (call->flags & FR_CALL_OPEN_AT_END)
        CV_LIT(o, "   (still open at the end)");
    cv_putc(o, '\n');
    f->opened = 0;
}

/* A scheduling mark: a line "linux:schedule();" at its switch out, with the time off the
 * CPU, in the call running then (shown under the same filters as a callee of it). */
static void on_sched(struct replay *r, const fr_record *rec)
{
    struct fr_te_sched s;
    if (rec->size < sizeof s)
        return;
    memcpy(&s, rec->data, sizeof s);
    struct thread *t = thread_of(r, rec->tid);
    uint32_t d = t->depth < t->cap ? t->depth : 0;
    const struct frame *up = d ? &t->frames[d - 1] : NULL;
    uint32_t base = up ? up->base : 0;
    if ((r->n_functions && !(up && up->shown)) || (up && !up->shown) ||
        (r->max_depth && d - base >= r->max_depth) || (int64_t)s.off_ticks < r->min_ticks)
        return;
    open_ancestors(r, t, d);
    uint64_t off = s.off_ticks;
    put_prefix(r, rec->tsc - off, &off, rec->tid, d - base);
    CV_LIT(&r->o, "linux:schedule();");
    if (s.flags & FR_SCHED_PREEMPTED)
        CV_LIT(&r->o, "   (preempted)");
    cv_putc(&r->o, '\n');
}

/* ---------------------------------------------------------------- parse */

struct replay_opts {
    struct replay r;        /* --depth, --function, --tid */
    const char   *binary, *output, *time_filter;
};

static int set_depth(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    struct replay *r = field;
    if (fr_cli_set_count(command, o, value, &r->max_depth))
        return FR_EXIT_USAGE;
    if (!r->max_depth)
        return fr_cli_usage_error(command, "--depth must be at least 1");
    return 0;
}

static int set_function(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)o;
    struct replay *r = field;
    if (r->n_functions == MAX_FILTERS)
        return fr_cli_usage_error(command, "at most %d --function options", MAX_FILTERS);
    r->functions[r->n_functions++] = value;
    return 0;
}

static int set_tid(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)o;
    struct replay *r = field;
    char *end;
    long v = strtol(value, &end, 10);
    if (!*value || *end || v < 1 || v > INT32_MAX)
        return fr_cli_usage_error(command, "--tid '%s': expected a thread id", value);
    if (r->n_tids == MAX_FILTERS)
        return fr_cli_usage_error(command, "at most %d --tid options", MAX_FILTERS);
    r->tids[r->n_tids++] = (int32_t)v;
    return 0;
}

static const fr_cli_opt replay_options[] = {
    {.name = "depth", .letter = 'D', .arg = " N", .set = set_depth,
     .offset = offsetof(struct replay_opts, r),
     .help = "show calls down to depth N (1: only the outermost calls);\n"
             "a call whose callees are hidden shows as one line"},
    {.name = "function", .letter = 'F', .arg = " NAME", .set = set_function,
     .offset = offsetof(struct replay_opts, r),
     .help = "only calls of NAME and what they call (repeatable), indented\n"
             "from NAME"},
    {.name = "time-filter", .letter = 't', .arg = " DUR", .set = fr_cli_set_string,
     .offset = offsetof(struct replay_opts, time_filter),
     .help = "hide calls shorter than DUR (\"250\", \"1.5ms\", \"20us\", \"100ns\";\n"
             "no unit: microseconds)"},
    {.name = "tid", .arg = " TID", .set = set_tid, .offset = offsetof(struct replay_opts, r),
     .help = "only this thread (repeatable)"},
    FR_CLI_OPT_BINARY(struct replay_opts, binary, "take function names from BIN (else from the trace)"),
    FR_CLI_OPT_DEMANGLE("C++ names: full (default), simple (no template arguments\n"
                        "nor parameter lists: ns::Box::get) or no (mangled)"),
    FR_CLI_OPT_OUTPUT(struct replay_opts, output, " FILE", "write to FILE instead of standard output"),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

const fr_cli_command fr_cmd_replay = {
    .name = "replay",
    .summary = "calls as an indented call view (like uftrace replay)",
    .run = cmd_replay,
    .head = "usage: flightrec replay FILE [options]\n"
            "The calls in trace FILE as an indented call view (like `uftrace replay`): start time,\n"
            "duration, thread and the function, indented by call depth.\n"
            "\n",
    .options = replay_options,
    .column = 25,
    .tail = "FILE '-' reads the trace from standard input.\n"
            "\n"
            "Records are shown in the file's order, one thread's block after another's. At a gap\n"
            "in a thread's history (records lost), a '--- records lost ---' line: the calls open\n"
            "there are not closed. Deeper than 128 levels a line is indented no further: it says\n"
            "\"[depth N]\" before the function. Exit status: 0 ok, 1 bad input or filters that\n"
            "matched no call, 2 bad usage.\n",
};

/* ---------------------------------------------------------------- run */

int cmd_replay(int argc, char **argv)
{
    struct replay_opts opts = {0};
    fr_cli_operands files;
    int prc = fr_cli_parse(&fr_cmd_replay, argc, argv, &opts, &files);
    if (prc)
        return prc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : prc;
    if (files.n != 1)
        return fr_cli_usage_error("replay", files.n ? "one trace FILE only" : "no trace FILE given");
    struct replay r = opts.r;
    const char *binary = opts.binary, *output = opts.output, *time_filter = opts.time_filter;
    const char *path = files.v[0];

    fr_acli c;
    memset(&c, 0, sizeof c);
    r.c = &c;
    int rc = fr_cli_open(&c.trace, "replay", path, binary);
    if (rc)
        return rc;
    c.trace.return_meta = true;   /* FR_TE_LOST resets the stacks */
    c.ticks_per_second = c.trace.ticks_per_second ? c.trace.ticks_per_second : 1000000000;
    if (time_filter) {
        int64_t ticks;
        if (fr_cli_parse_duration(time_filter, c.ticks_per_second, &ticks) || ticks < 0) {
            fr_cli_close(&c.trace);
            return fr_cli_usage_error("replay", "--time-filter '%s': expected a duration such as "
                                      "250, 1.5ms, 20us or 100ns", time_filter);
        }
        r.min_ticks = ticks;
    }
    r.out = fr_acli_open_output("replay", output);
    if (!r.out) {
        fr_cli_close(&c.trace);
        return FR_EXIT_BAD_INPUT;
    }
    fr_u64_map_init(&r.by_tid);
    cv_out_init(&r.o, r.out);
    cv_names_init(&r.calls, c.trace.symbols, call_name, NULL);
    cv_names_init(&r.plains, c.trace.symbols, plain_name, NULL);
    fr_call_tracker *tracker = fr_call_tracker_new(on_call, on_enter, &r);
    CV_LIT(&r.o, "#    TIMESTAMP       DURATION      TID     FUNCTION\n");
    fr_record rec;
    while (fr_cli_next(&c.trace, &rec) == FR_READ_OK) {
        /* Other threads are not shown, nor counted ("exits without their entry"), as
         * account --tid counts only the selected threads. */
        if (!tid_selected(&r, rec.tid))
            continue;
        r.fed = &rec;
        fr_call_tracker_feed(tracker, &rec);
        r.fed = NULL;
        if (rec.kind == FR_REC_TYPED && rec.event_type == FR_TE_LOST) {
            put_prefix(&r, rec.tsc, NULL, rec.tid, 0);
            CV_LIT(&r.o, "--- records lost ---\n");
            r.lost++;
            thread_of(&r, rec.tid)->depth = 0;   /* the tracker forgot the thread's stack */
        } else if (rec.kind == FR_REC_TYPED && rec.event_type == FR_TE_SCHED) {
            on_sched(&r, &rec);
        }
    }
    fr_call_tracker_finish(tracker);
    const fr_call_tracker_stats *s = fr_call_tracker_get_stats(tracker);
    if (s->unmatched_exits)
        fprintf(stderr, "flightrec replay: %" PRIu64 " exits without their entry not shown\n",
                s->unmatched_exits);
    cv_out_finish(&r.o);   /* (a failed write leaves r.out's error flag: reported below) */
    rc = fr_acli_close_output("replay", output, r.out);
    bool filtered = r.n_functions || r.n_tids || r.max_depth || r.min_ticks;
    if (r.lines == 0 && filtered && !c.trace.failed && rc == FR_EXIT_OK) {
        /* as dump's filters (docs/CLI.md): nothing shown is an error, the warning says
         * which filters */
        fprintf(stderr, "flightrec replay: warning: no call matched");
        if (r.max_depth)
            fprintf(stderr, " --depth %" PRIu64, r.max_depth);
        for (size_t i = 0; i < r.n_functions; i++)
            fprintf(stderr, " --function %s", r.functions[i]);
        if (time_filter)
            fprintf(stderr, " --time-filter %s", time_filter);
        for (size_t i = 0; i < r.n_tids; i++)
            fprintf(stderr, " --tid %d", (int)r.tids[i]);
        fputc('\n', stderr);
        rc = FR_EXIT_BAD_INPUT;
    }
    fr_call_tracker_free(tracker);
    for (size_t i = 0; i < r.n_threads; i++) {
        free(r.threads[i]->frames);
        free(r.threads[i]);
    }
    free(r.threads);
    free(r.fn_match);
    fr_u64_map_free(&r.by_tid);
    cv_names_free(&r.calls);
    cv_names_free(&r.plains);
    int crc = fr_cli_close(&c.trace);
    return rc ? rc : crc;
}
