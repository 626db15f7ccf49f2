/*
 * cmd_replay.c - `flightrec replay FILE`: the calls of a trace as an indented call view,
 * in the style of `uftrace replay`:
 *
 *     #    TIMESTAMP       DURATION      TID     FUNCTION
 *         0.000001234                [  1234] | main() {
 *         0.000001300       0.215 us [  1234] |   parse();
 *         0.000003344       2.110 us [  1234] | } // main   (written with C comment marks)
 *
 * A call with no shown callee is one line, "name();", with its duration; a call with
 * callees opens with "name() {" (at its enter time) and closes with a "}" line naming
 * it, with its duration (a C++ name keeps its own parameter list: "step(int) {").
 * Records come in the file's order: one thread's block after another's (the TID
 * column says whose). The timestamp is seconds since the trace's start.
 *
 * Streaming, in bounded memory: per thread, the frames open at each depth and whether
 * their opening line was written. A call's opening line is written when its first shown
 * callee's line is, so that filters which decide at the exit (--time-filter) can drop a
 * call and all it contains without buffering lines.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_cli.h"
#include "call_tracker.h"
#include "commands.h"
#include "fr_alloc.h"
#include "text_escape.h"
#include "u64_map.h"

static const char usage_text[] =
    "usage: flightrec replay FILE [options]\n"
    "The calls in trace FILE as an indented call view (like `uftrace replay`): start time,\n"
    "duration, thread and the function, indented by call depth.\n"
    "\n"
    "  -D, --depth N          show calls down to depth N (1: only the outermost calls);\n"
    "                         a call whose callees are hidden shows as one line\n"
    "  -F, --function NAME    only calls of NAME and what they call (repeatable), indented\n"
    "                         from NAME\n"
    "  -t, --time-filter DUR  hide calls shorter than DUR (\"250\", \"1.5ms\", \"20us\", \"100ns\";\n"
    "                         no unit: microseconds)\n"
    "  --tid TID              only this thread (repeatable)\n"
    "  --binary BIN           take function names from BIN (else from the trace)\n"
    "  --demangle=MODE        C++ names: full (default), simple (no template arguments\n"
    "                         nor parameter lists: ns::Box::get) or no (mangled)\n"
    "  -o, --output FILE      write to FILE instead of standard output\n"
    "  -h, --help             this text\n"
    "FILE '-' reads the trace from standard input.\n"
    "\n"
    "Records are shown in the file's order, one thread's block after another's. At a gap\n"
    "in a thread's history (records lost), a '--- records lost ---' line: the calls open\n"
    "there are not closed. Deeper than 128 levels a line is indented no further: it says\n"
    "\"[depth N]\" before the function. Exit status: 0 ok, 1 bad input or filters that\n"
    "matched no call, 2 bad usage.\n";

#define MAX_FILTERS 64
#define MAX_INDENT 128   /* levels of indentation at most (two blanks each) */

struct frame {
    uint32_t id;
    uint64_t enter_tsc;
    uint32_t base;        /* depth of the outermost --function match (its indent 0) */
    uint8_t  shown;       /* within the filters (tid, function, depth) */
    uint8_t  opened;      /* its "name() {" line was written */
};

struct thread {
    int32_t       tid;
    struct frame *frames;
    size_t        cap;
};

/* One output line, built in memory and written with one fwrite: stdio's formatting,
 * field by field, was 70% of replay's time (perf, 5 M records). */
struct line {
    char  *p;
    size_t len, cap;
};

/* A function's name as replay shows it, escaped once (text_escape.h): as a call
 * ("name()", or a C++ name as demangled) and plain (a closing line's comment). */
struct shown_name {
    char *call, *plain;
};

struct replay {
    fr_acli      *c;
    FILE         *out;
    struct line   line;
    struct shown_name *names; size_t n_names, cap_names;
    fr_u64_map    name_of;          /* function id -> index in names */
    uint64_t      max_depth;        /* 0: no limit */
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

static char *line_room(struct line *l, size_t n)
{
    if (l->len + n > l->cap)
        l->p = fr_xgrow(l->p, &l->cap, l->len + n, 1, 256);
    char *at = l->p + l->len;
    l->len += n;
    return at;
}

static void line_put(struct line *l, const char *s, size_t n)
{
    memcpy(line_room(l, n), s, n);
}

static void line_str(struct line *l, const char *s)
{
    line_put(l, s, strlen(s));
}

/* v in decimal, right-aligned in `width` characters (blanks before), or zero-padded
 * to `width` digits when zeros. */
static void line_u64(struct line *l, uint64_t v, int width, bool zeros)
{
    char d[20];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    char *o = line_room(l, (size_t)(n < width ? width : n));
    for (int i = n; i < width; i++)
        *o++ = zeros ? '0' : ' ';
    while (n)
        *o++ = d[--n];
}

static void line_write(struct replay *r)
{
    fwrite(r->line.p, 1, r->line.len, r->out);
    r->line.len = 0;
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
    line_u64(&r->line, ns / div, 7, false);
    line_put(&r->line, ".", 1);
    line_u64(&r->line, ns % div * 1000 / div, 3, true);
    line_put(&r->line, " ", 1);
    line_put(&r->line, units[u], 2);
}

/* A line's start (the line is empty before): time, duration, thread, indentation. */
static void put_prefix(struct replay *r, uint64_t tsc, const uint64_t *duration, int32_t tid,
                       uint32_t indent)
{
    struct line *l = &r->line;
    int64_t ns = fr_cli_ticks_to_ns(fr_cli_rel(&r->c->trace, tsc), r->c->ticks_per_second);
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    line_put(l, ns < 0 ? "-" : " ", 1);
    line_u64(l, a / 1000000000u, 4, false);
    line_put(l, ".", 1);
    line_u64(l, a % 1000000000u, 9, true);
    line_put(l, " ", 1);
    if (duration)
        put_duration(r, *duration);
    else
        line_put(l, "              ", 14);   /* as wide as a duration */
    line_put(l, " [", 2);
    if (tid < 0) {   /* (a damaged trace's) "%6d" of a negative tid */
        char b[16];
        line_put(l, b, (size_t)snprintf(b, sizeof b, "%6" PRId32, tid));
    } else {
        line_u64(l, (uint64_t)tid, 6, false);
    }
    line_put(l, "] | ", 4);
    /* Deeper than MAX_INDENT, the depth is written instead of more indentation: a
     * runaway recursion (a stack overflow's trace, 65,536 levels) made 131 KB of blanks
     * a line, 8.6 GB for a 2 MB trace. */
    uint32_t blanks = 2 * (indent < MAX_INDENT ? indent : MAX_INDENT);
    memset(line_room(l, blanks), ' ', blanks);
    if (indent > MAX_INDENT) {
        line_put(l, "[depth ", 7);
        line_u64(l, indent, 0, false);
        line_put(l, "] ", 2);
    }
    r->lines++;
}

/* Function id's names as shown (escaped once per function). As a call: "name()", or a
 * C++ name as demangled, which has its parameter list already ("step(int)",
 * "Box<long>::get(long) const"; "step(int)()" read as a call of what step returns). C
 * names and "#ID" have no '('. */
static const struct shown_name *shown_name(struct replay *r, uint32_t id)
{
    uint32_t i = fr_u64_map_get(&r->name_of, id);
    if (i != FR_U64_MAP_NONE)
        return &r->names[i];
    const char *name = fr_acli_name(r->c, id);
    fr_text_buf b = {0};
    const char *esc = fr_text_escape(&b, name);
    size_t n = strlen(esc);
    struct shown_name s = { fr_xrealloc(NULL, n + 3), fr_xrealloc(NULL, n + 1) };
    memcpy(s.plain, esc, n + 1);
    memcpy(s.call, esc, n + 1);
    if (!strchr(name, '('))
        memcpy(s.call + n, "()", 3);
    fr_text_buf_free(&b);
    r->names = fr_xgrow(r->names, &r->cap_names, r->n_names + 1, sizeof *r->names, 64);
    i = (uint32_t)r->n_names++;
    r->names[i] = s;
    fr_u64_map_put(&r->name_of, id, i);
    return &r->names[i];
}

/* Writes the opening lines of the shown frames above depth d not written yet. */
static void open_ancestors(struct replay *r, struct thread *t, uint32_t d)
{
    uint32_t k = d;
    while (k > 0 && t->frames[k - 1].shown && !t->frames[k - 1].opened)
        k--;
    for (; k < d; k++) {
        struct frame *f = &t->frames[k];
        put_prefix(r, f->enter_tsc, NULL, t->tid, k - f->base);
        line_str(&r->line, shown_name(r, f->id)->call);
        line_put(&r->line, " {\n", 3);
        line_write(r);
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
    struct frame *f = &t->frames[d];
    uint64_t ticks = call->exit_tsc - call->enter_tsc;
    if (!f->shown || (!f->opened && (int64_t)ticks < r->min_ticks))
        return;   /* hidden; a call too short has no callee shown (they are shorter) */
    if (!f->opened)
        open_ancestors(r, t, d);
    put_prefix(r, f->opened ? call->exit_tsc : call->enter_tsc, &ticks, call->tid, d - f->base);
    const struct shown_name *name = shown_name(r, call->function_id);
    struct line *l = &r->line;
    if (f->opened) {
        line_put(l, "} /* ", 5);
        line_str(l, name->plain);
        line_put(l, " */", 3);
    } else {
        line_str(l, name->call);
        line_put(l, ";", 1);
    }
    if (call->flags & FR_CALL_CLOSED_BY_UNWIND)
        line_str(l, "   (closed by a caller's exit)");
    else if (call->flags & FR_CALL_OPEN_AT_END)
        line_str(l, "   (still open at the end)");
    line_put(l, "\n", 1);
    line_write(r);
    f->opened = 0;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option options[] = {
        {"depth", required_argument, NULL, 'D'},
        {"function", required_argument, NULL, 'F'},
        {"time-filter", required_argument, NULL, 't'},
        {"tid", required_argument, NULL, 'T'},
        {"binary", required_argument, NULL, 'b'},
        {"demangle", required_argument, NULL, 'N'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    struct replay r = {0};
    const char *binary = NULL, *output = NULL, *time_filter = NULL;
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "D:F:t:o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'D':
            if (fr_acli_parse_count("replay", "--depth", optarg, &r.max_depth))
                return FR_EXIT_USAGE;
            if (!r.max_depth)
                return fr_cli_usage_error("replay", "--depth must be at least 1");
            break;
        case 'F':
            if (r.n_functions == MAX_FILTERS)
                return fr_cli_usage_error("replay", "at most %d --function options", MAX_FILTERS);
            r.functions[r.n_functions++] = optarg;
            break;
        case 't': time_filter = optarg; break;
        case 'T': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > INT32_MAX)
                return fr_cli_usage_error("replay", "--tid '%s': expected a thread id", optarg);
            if (r.n_tids == MAX_FILTERS)
                return fr_cli_usage_error("replay", "at most %d --tid options", MAX_FILTERS);
            r.tids[r.n_tids++] = (int32_t)v;
            break;
        }
        case 'b': binary = optarg; break;
        case 'N':
            if (fr_cli_parse_demangle("replay", optarg))
                return FR_EXIT_USAGE;
            break;
        case 'o': output = optarg; break;
        case 'h': fputs(usage_text, stdout); return FR_EXIT_OK;
        default:
            return fr_cli_usage_error("replay", "bad option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return fr_cli_usage_error("replay", optind < argc ? "one trace FILE only" : "no trace FILE given");
    const char *path = argv[optind];

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
    fr_u64_map_init(&r.name_of);
    fr_call_tracker *tracker = fr_call_tracker_new(on_call, on_enter, &r);
    fprintf(r.out, "#    TIMESTAMP       DURATION      TID     FUNCTION\n");
    fr_record rec;
    while (fr_cli_next(&c.trace, &rec) == FR_READ_OK) {
        fr_call_tracker_feed(tracker, &rec);
        if (rec.kind == FR_REC_TYPED && rec.event_type == FR_TE_LOST && tid_selected(&r, rec.tid)) {
            put_prefix(&r, rec.tsc, NULL, rec.tid, 0);
            line_str(&r.line, "--- records lost ---\n");
            line_write(&r);
            r.lost++;
        }
    }
    fr_call_tracker_finish(tracker);
    const fr_call_tracker_stats *s = fr_call_tracker_get_stats(tracker);
    if (s->unmatched_exits)
        fprintf(stderr, "flightrec replay: %" PRIu64 " exits without their entry not shown\n",
                s->unmatched_exits);
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
    for (size_t i = 0; i < r.n_names; i++) {
        free(r.names[i].call);
        free(r.names[i].plain);
    }
    free(r.names);
    fr_u64_map_free(&r.name_of);
    free(r.line.p);
    int crc = fr_cli_close(&c.trace);
    return rc ? rc : crc;
}
