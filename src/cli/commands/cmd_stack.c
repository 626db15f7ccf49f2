/*
 * cmd_stack.c - `flightrec stack FILE`: the unique call stacks of a trace (root first),
 * each with the number of calls that ran with exactly that stack and their total and
 * self time; as a table, folded stacks ("a;b;c VALUE", flamegraph.pl input) or JSON.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analysis_cli.h"
#include "cli_options.h"
#include "stack_spill.h"
#include "text_escape.h"
#include "commands.h"

/* Sorting: largest key first, then creation order (callers before callees). The keys are
 * copied next to the indexes so that comparisons do not chase nodes through memory. */
struct ranked { uint64_t key; uint32_t node; } __attribute__((packed));

static inline bool before(const struct ranked *a, const struct ranked *b)
{
    return a->key != b->key ? a->key > b->key : a->node < b->node;
}

static void sort_ranked(struct ranked *a, size_t n)
{
    while (n > 16) {                 /* quicksort, median of three, smaller side first */
        struct ranked *x = &a[0], *y = &a[n / 2], *z = &a[n - 1], pivot;
        pivot = before(x, y) ? (before(y, z) ? *y : before(x, z) ? *z : *x)
                             : (before(x, z) ? *x : before(y, z) ? *z : *y);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (before(&a[i], &pivot)) i++;
            while (before(&pivot, &a[j])) j--;
            if (i >= j) break;
            struct ranked t = a[i]; a[i] = a[j]; a[j] = t;
            i++; j--;
        }
        size_t left = j + 1;
        if (left < n - left) {
            sort_ranked(a, left);
            a += left;
            n -= left;
        } else {
            sort_ranked(a + left, n - left);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++) {  /* insertion sort of the small rest */
        struct ranked v = a[i];
        size_t j = i;
        for (; j > 0 && before(&v, &a[j - 1]); j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

/* Heap of the best `top` seen so far, the worst at the root: elements of `size` bytes (at
 * most 64), `first(a, b)` when a ranks before b. */
static void sift_down(void *heap, size_t size, size_t n, size_t i, bool (*first)(const void *, const void *))
{
    char *h = heap, t[64];
    for (;;) {
        size_t w = i, l = 2 * i + 1, r = l + 1;
        if (l < n && first(h + w * size, h + l * size)) w = l;
        if (r < n && first(h + w * size, h + r * size)) w = r;
        if (w == i) return;
        memcpy(t, h + i * size, size);
        memcpy(h + i * size, h + w * size, size);
        memcpy(h + w * size, t, size);
        i = w;
    }
}

static bool ranked_first(const void *a, const void *b)
{
    return before(a, b);
}

/* The nodes with calls, best first: all of them (sorted in place), or only the best
 * `top` (a heap of that size: O(nodes log top) time and O(top) memory); with skip_other,
 * not the "other" nodes. Returns the array (malloc'd) and its length in *n, NULL if out
 * of memory. */
static struct ranked *rank_nodes(const fr_stack_agg *sa, fr_stack_figure k, uint64_t top, bool skip_other,
                                 size_t *n, uint64_t *ranked)
{
    size_t count = fr_stack_agg_count(sa), len = 0;
    size_t cap = top < count ? (size_t)top : count;
    struct ranked *r = malloc((cap ? cap : 1) * sizeof *r);
    *ranked = 0;
    if (!r)
        return NULL;
    for (uint32_t i = 0; i < count; i++) {
        const fr_stack_node *s = fr_stack_agg_node(sa, i);
        if (!s->calls)
            continue;
        struct ranked v = {fr_stack_figure_of(s, k), i};
        if (skip_other && s->function_id == FR_STACK_OTHER)
            continue;
        ++*ranked;
        if (!cap)
            continue;
        if (len < cap) {
            r[len++] = v;
            if (len == cap && cap < count)     /* full: make it a heap, worst on top */
                for (size_t j = cap / 2; j-- > 0;)
                    sift_down(r, sizeof *r, cap, j, ranked_first);
        } else if (before(&v, &r[0])) {
            r[0] = v;
            sift_down(r, sizeof *r, cap, 0, ranked_first);
        }
    }
    sort_ranked(r, len);
    *n = len;
    return r;
}

static bool g_lines;   /* --lines */

/* The frame's name, or with --lines "name (file:line)" when the location is known. */
static const char *frame_label(fr_acli *c, uint32_t id, char *buf, size_t n)
{
    const char *name = fr_acli_name(c, id);
    char loc[4200];
    if (!g_lines || !fr_acli_location(c, id, loc, sizeof loc))
        return name;
    snprintf(buf, n, "%s (%s)", name, loc);
    return buf;
}

/* Writes the stack's function names (ids[0..n-1], root first) separated by sep (or as a
 * JSON array if json). */
static void print_ids(fr_acli *c, FILE *out, const uint32_t *ids, uint32_t n, const char *sep, int json)
{
    static char label[8600];
    int64_t process = -1;   /* the file whose process node is above (several files) */
    if (json)
        putc('[', out);
    for (uint32_t d = 0; d < n; d++) {
        if (d)
            fputs(json ? ", " : sep, out);
        char root[4200];
        if (ids[d] == FR_STACK_OTHER)
            fputs(json ? "\"[other]\"" : "[other]", out);
        else if (ids[d] == FR_STACK_DEEPER)
            fputs(json ? "\"[deeper]\"" : "[deeper]", out);
        else if (fr_stack_is_thread(ids[d]) || fr_stack_is_process(ids[d])) {
            const char *t = fr_acli_root_frame(c, process, ids[d], root, sizeof root);
            if (fr_stack_is_process(ids[d]))
                process = ids[d] & ~FR_STACK_PROCESS;
            if (json)
                fr_acli_json_string(out, t);
            else if (!strcmp(sep, ";"))
                fr_text_put_frame(out, t);
            else
                fr_text_put(out, t);
        }
        else if (json)
            fr_acli_json_string(out, frame_label(c, ids[d], label, sizeof label));
        else if (!strcmp(sep, ";"))   /* folded: ';' and newlines would split the stack */
            fr_text_put_frame(out, frame_label(c, ids[d], label, sizeof label));
        else
            fr_text_put(out, frame_label(c, ids[d], label, sizeof label));
    }
    if (json)
        putc(']', out);
}

/* The stacks to print: nodes of the tree (order), or stacks of a spill (spilled). */
struct spilled_top { uint64_t key, order, calls, total, self; };
struct shown {
    const fr_stack_agg *sa;
    const struct ranked *order;
    fr_stack_spill *spill;
    const struct spilled_top *spilled;
};

/* The k-th stack to print: its figures in *fig, its path in ids (returns its length). */
static uint32_t shown_at(const struct shown *l, size_t k, fr_stack_node *fig, uint32_t *ids, uint32_t cap)
{
    if (!l->spilled) {
        *fig = *fr_stack_agg_node(l->sa, l->order[k].node);
        return fr_stack_agg_path(l->sa, l->order[k].node, ids, cap);
    }
    const struct spilled_top *t = &l->spilled[k];
    *fig = (fr_stack_node){.calls = t->calls, .total_ticks = t->total, .self_ticks = t->self};
    return fr_stack_spill_path(l->spill, t->order, ids, cap);
}

/* ---------------------------------------------------------------- parse */

struct stack_opts {
    fr_stack_figure     key;
    uint64_t     top, max_stacks;   /* top: TOP_DEFAULT until resolved in cmd_stack */
    fr_acli_opts acli;      /* --max-depth, --tid, --thread-root */
    const char  *format, *value, *binary, *output;
    bool         lines, verbose;
    int          color;
};

/* stack's word options say what they take without the "Try ... --help" line. */
static int refuse(const char *command, const char *what, const char *value, const char *list)
{
    fprintf(stderr, "flightrec %s: unknown %s '%s' (%s)\n", command, what, value, list);
    return FR_EXIT_USAGE;
}

static int set_sort(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)o;
    if (!strcmp(value, "total")) *(fr_stack_figure *)field = FR_STACK_BY_TOTAL;
    else if (!strcmp(value, "self")) *(fr_stack_figure *)field = FR_STACK_BY_SELF;
    else if (!strcmp(value, "calls")) *(fr_stack_figure *)field = FR_STACK_BY_CALLS;
    else return refuse(command, "sort key", value, "total, self, calls");
    return 0;
}

static int set_format(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    if (!fr_cli_is_choice(o, value))
        return refuse(command, "format", value, "text, folded, json");
    *(const char **)field = value;
    return 0;
}

static int set_value(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    if (!fr_cli_is_choice(o, value))
        return refuse(command, "value", value, "self, total, calls");
    *(const char **)field = value;
    return 0;
}

/* --top N or --top all. */
static int set_top(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    if (!strcmp(value, "all")) {
        *(uint64_t *)field = UINT64_MAX;
        return 0;
    }
    return fr_cli_set_count(command, o, value, field);
}

static int set_max_stacks(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    if (fr_cli_set_count(command, o, value, field))
        return FR_EXIT_USAGE;
    if (*(uint64_t *)field == 0)
        return fr_cli_usage_error(command, "--max-stacks must be at least 1");
    return 0;
}

static int set_max_depth(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)o;
    return fr_acli_parse_max_depth(command, value, field) ? FR_EXIT_USAGE : 0;
}

static const fr_cli_opt stack_options[] = {
    {.name = "sort", .letter = 's', .arg = " KEY", .set = set_sort,
     .offset = offsetof(struct stack_opts, key),
     .help = "a column: total (default), self or calls; largest first"},
    {.name = "top", .arg = " N", .set = set_top, .offset = offsetof(struct stack_opts, top),
     .help = "only the first N stacks, or all; default: 1000 in text\n"
             "(a note says when there were more), all in folded and json"},
    {.name = "max-stacks", .arg = " N", .set = set_max_stacks,
     .offset = offsetof(struct stack_opts, max_stacks),
     .help = "keep at most N distinct stacks in memory; calls whose stack\n"
             "would be a new one once N exist are counted in an \"[other]\"\n"
             "stack under the deepest known caller (memory bound: 2N+1 stacks)"},
    {.name = "max-depth", .arg = " N", .set = set_max_depth,
     .offset = offsetof(struct stack_opts, acli.max_depth),
     .help = "keep at most N function frames of a stack (default 1024);\n"
             "the calls below the N-th are counted in a \"[deeper]\" frame\n"
             "under it (its calls: all of them; self: theirs; total: the\n"
             "outermost ones'), so a runaway recursion stays N stacks"},
    {.name = "format", .letter = 'f', .arg = " F", .set = set_format,
     .offset = offsetof(struct stack_opts, format), .choices = "text|folded|json",
     .help = "text (default), folded or json"},
    {.name = "value", .arg = " V", .set = set_value, .offset = offsetof(struct stack_opts, value),
     .choices = "self|total|calls",
     .help = "for folded: self (default, nanoseconds), total (nanoseconds)\n"
             "or calls"},
    FR_CLI_OPT_BINARY(struct stack_opts, binary, "take function names from BIN (else from the trace)"),
    FR_CLI_OPT_DEMANGLE(FR_CLI_HELP_DEMANGLE),
    FR_CLI_OPT_FLAG("lines", 0, struct stack_opts, lines,
                    "each frame as \"name (file:line)\", file:line where the\n"
                    "function starts (from the binary's debug information)"),
    FR_CLI_OPT_TIDS(struct stack_opts, acli.tids, " TID[,TID...]", "only these threads (repeatable)"),
    FR_CLI_OPT_FLAG("thread-root", 0, struct stack_opts, acli.thread_roots,
                    "each stack starts with its thread (\"[thread 1234 NAME]\"):\n"
                    "one tree per thread; with several FILEs, under its\n"
                    "process's frame (\"[process PID NAME]\"), as in\n"
                    "`flightrec convert -f folded FILE...`"),
    FR_CLI_OPT_OUTPUT(struct stack_opts, output, " FILE", "write to FILE instead of standard output"),
    FR_CLI_OPT_FLAG("verbose", 'v', struct stack_opts, verbose, FR_CLI_HELP_VERBOSE),
    FR_CLI_OPT_COLOR(struct stack_opts, color, "bold header: auto (default: on a terminal), always, never"),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

const fr_cli_command fr_cmd_stack = {
    .name = "stack",
    .summary = "unique call stacks with counts and time",
    .run = cmd_stack,
    .head = "usage: flightrec stack FILE [FILE...] [options]\n"
            "Unique call stacks in trace FILE with their calls, total and self time.\n"
            "\n",
    .options = stack_options,
    .column = 22,
    .tail = "FILE '-' reads the trace from standard input. Several FILEs (a process and the\n"
            "children it forked: FILE FILE.*) are analysed together: the same stack in\n"
            "several of them is one stack (calls and times added), unless --thread-root.\n"
            "\n"
            "A stack's total is the time of the calls made with exactly that stack; its self time\n"
            "excludes their traced callees, so folded self values add up to the traced time.\n"
            "Exit status: 0 ok, 1 bad input, 2 bad usage.\n",
};

/* ---------------------------------------------------------------- report */

/* The first n ranked stacks in the asked format. */
static void print_stacks(fr_acli *c, FILE *out, const struct stack_opts *o,
                         const struct shown *l, size_t n, uint32_t *ids, uint32_t max_depth)
{
    const char *format = o->format, *value = o->value;
    fr_stack_node fig;
    if (!strcmp(format, "text")) {
        fr_cli_colors co = fr_cli_colors_for(fr_cli_use_color(o->color, out));
        fprintf(out, "%s%10s %10s %10s  %s%s\n", co.bold, "calls", "total", "self",
                "stack (root first)", co.reset);
        for (size_t k = 0; k < n; k++) {
            uint32_t len = shown_at(l, k, &fig, ids, max_depth);
            char total[32], self[32];
            fr_acli_format_duration(c, fig.total_ticks, total, sizeof total);
            fr_acli_format_duration(c, fig.self_ticks, self, sizeof self);
            fprintf(out, "%10" PRIu64 " %10s %10s  ", fig.calls, total, self);
            print_ids(c, out, ids, len, " > ", 0);
            putc('\n', out);
        }
    } else if (!strcmp(format, "folded")) {
        for (size_t k = 0; k < n; k++) {
            uint32_t len = shown_at(l, k, &fig, ids, max_depth);
            uint64_t v = !strcmp(value, "calls") ? fig.calls
                       : (uint64_t)fr_cli_ticks_to_ns((int64_t)(!strcmp(value, "total")
                                                    ? fig.total_ticks : fig.self_ticks), c->ticks_per_second);
            if (!v)
                continue;
            print_ids(c, out, ids, len, ";", 0);
            fprintf(out, " %" PRIu64 "\n", v);
        }
    } else {
        fprintf(out, "{");
        fr_acli_json_header(c, out);
        fprintf(out, ",\n \"stacks\": [");
        for (size_t k = 0; k < n; k++) {
            uint32_t len = shown_at(l, k, &fig, ids, max_depth);
            fprintf(out, "%s\n  {\"stack\": ", k ? "," : "");
            print_ids(c, out, ids, len, NULL, 1);
            fprintf(out, ", \"ids\": [");
            for (uint32_t d = 0; d < len; d++)
                fprintf(out, "%s%" PRIu32, d ? ", " : "", ids[d]);
            char total[48], self[48];
            fprintf(out, "], \"calls\": %" PRIu64 ", \"total_ns\": %s, \"self_ns\": %s"
                         ", \"total_ticks\": %" PRIu64 ", \"self_ticks\": %" PRIu64 "}",
                    fig.calls, fr_acli_ns(c, fig.total_ticks, total, sizeof total),
                    fr_acli_ns(c, fig.self_ticks, self, sizeof self), fig.total_ticks, fig.self_ticks);
        }
        fprintf(out, "\n ]}\n");
    }
}

/* `stack` keeps the stacks it may show, not every distinct one. On a trace where most
 * calls have a stack of their own (tens of millions), a node per stack took gigabytes, and
 * ranking and printing them all took longer than reading the trace. So unless every stack
 * is asked for (folded or json output without --top, --top all, --max-stacks), the tree holds the first
 * BOUNDED_STACKS stacks met, and the calls of any later one are counted in an "other"
 * node under its deepest known caller, as --max-stacks does. The stacks kept have exact
 * figures (a node exists from its stack's first call on). The calls of the stacks that
 * got no node also go into a small count-min sketch by their stack's identity, which
 * bounds the ranked figure of any of those stacks (fr_stack_agg_unkept_bound). When that bound
 * is below the worst stack shown, no stack without a node could have been shown, and
 * the output is exactly the whole tree's (ties are broken by first appearance, and every
 * stack kept came before every stack not kept). When it is not (a stack to show met
 * late in the trace, after the bound was reached, or the sketch too coarse for the
 * figures shown), the trace is read again with no bound: the memory of the whole tree,
 * as before, for the same output.
 * 2^16 stacks: at most 2^17 + 1 nodes with the "other" ones, 4 MiB of nodes, 8 MiB of
 * hash slots (kept at most 1/4 full), 512 KiB of sketch. A trace on standard input cannot
 * be read twice: no bound then. */
#define BOUNDED_STACKS  ((size_t)1 << 16)
#define DEFAULT_TOP     1000
#define TOP_DEFAULT     (UINT64_MAX - 1)   /* --top not given */
#define REREAD          (-1)               /* report: the bound hid a stack to show */

/* A spilled trace (stack_spill.h): the best `top` of every distinct stack with calls,
 * from the merged runs, in a heap as rank_nodes's; ties by the place in the tree's order,
 * which is rank_nodes's node order. */
struct spilled_rank {
    fr_stack_figure key;
    size_t cap, len;
    struct spilled_top *h;
    uint64_t ranked;
};

static bool spilled_first(const void *x, const void *y)
{
    const struct spilled_top *a = x, *b = y;
    return a->key != b->key ? a->key > b->key : a->order < b->order;
}

static int spilled_cmp(const void *x, const void *y)
{
    return spilled_first(x, y) ? -1 : spilled_first(y, x) ? 1 : 0;
}

static void rank_spilled(const fr_spilled_stack *s, void *ctx)
{
    struct spilled_rank *r = ctx;
    if (!s->calls)
        return;
    r->ranked++;
    fr_stack_node fig = {.calls = s->calls, .total_ticks = s->total_ticks, .self_ticks = s->self_ticks};
    struct spilled_top v = {fr_stack_figure_of(&fig, r->key), s->order, s->calls, s->total_ticks, s->self_ticks};
    if (r->len < r->cap) {
        r->h[r->len++] = v;
        if (r->len == r->cap)
            for (size_t j = r->cap / 2; j-- > 0;)
                sift_down(r->h, sizeof *r->h, r->cap, j, spilled_first);
    } else if (r->cap && spilled_first(&v, &r->h[0])) {
        r->h[0] = v;
        sift_down(r->h, sizeof *r->h, r->cap, 0, spilled_first);
    }
}

/* Ranks the stacks and writes them to -o (or stdout); the exit status, or REREAD (nothing
 * written) when the bounded tree cannot tell which stacks to show. */
static int report(fr_acli *c, const struct stack_opts *o, bool bounded, bool default_top,
                  fr_stack_spill *spill)
{
    const fr_stack_agg *sa = c->analysis->stacks;
    size_t n = 0;
    uint64_t ranked;
    uint64_t unkept;
    /* a path: the calls' frames, and a process's and a thread's root nodes */
    uint32_t max_depth = fr_analysis_stats(c->analysis)->max_depth + 2;
    struct ranked *order = NULL;
    struct spilled_rank sr = {o->key, (size_t)o->top, 0, NULL, 0};
    if (spill) {   /* (o->top is small: the stack is spilled only then) */
        sr.h = malloc((sr.cap ? sr.cap : 1) * sizeof *sr.h);
        if (sr.h)
            fr_stack_spill_merge(spill, rank_spilled, &sr);
        if (sr.len)
            qsort(sr.h, sr.len, sizeof *sr.h, spilled_cmp);
        n = sr.len;
        ranked = sr.ranked;
        order = (struct ranked *)sr.h;   /* (only its being NULL is looked at) */
    } else
        order = rank_nodes(sa, o->key, o->top, bounded, &n, &ranked);
    bool unkept_stacks = bounded && fr_stack_agg_unkept_bound(sa, &unkept);
    if (order && unkept_stacks && !(n == o->top && (n == 0 || unkept < order[n - 1].key))) {
        free(order);
        return REREAD;
    }
    if (unkept_stacks && o->verbose)
        fprintf(stderr, "flightrec stack: note: the first %zu distinct stacks kept; the calls of later "
                "ones counted under their callers, none of them could be shown\n", BOUNDED_STACKS);
    uint32_t *ids = malloc(max_depth * sizeof *ids);
    FILE *out = order && ids ? fr_acli_open_output("stack", o->output) : NULL;
    if (!out) {
        if (!order || !ids)
            fprintf(stderr, "flightrec stack: out of memory\n");
        free(order);
        free(ids);
        return FR_EXIT_BAD_INPUT;
    }
    if (!bounded && fr_stack_agg_merged_calls(sa))
        fprintf(stderr, "flightrec stack: --max-stacks %llu: %llu call%s counted in [other] stacks\n",
                (unsigned long long)o->max_stacks, (unsigned long long)fr_stack_agg_merged_calls(sa),
                fr_stack_agg_merged_calls(sa) == 1 ? "" : "s");
    fr_acli_report_deeper(bounded ? fr_stack_agg_cut_calls(sa) : fr_stack_agg_deeper_calls(sa),
                          "stack", o->acli.max_depth);
    if (default_top && (ranked > n || unkept_stacks))
        fprintf(stderr, "flightrec stack: note: the first %d stacks of more (--top N or --top all "
                "shows more)\n", DEFAULT_TOP);
    struct shown shown = {sa, spill ? NULL : order, spill, spill ? sr.h : NULL};
    print_stacks(c, out, o, &shown, n, ids, max_depth);
    int rc = fr_acli_close_output("stack", o->output, out);
    fr_acli_report_unmatched(c);
    free(order);
    free(ids);
    return rc;
}

/* ---------------------------------------------------------------- the command */

/* Whether every FILE can be read a second time (regular files, not standard input). */
static bool rereadable(const fr_cli_operands *files)
{
    for (int i = 0; i < files->n; i++) {
        struct stat st;
        if (!strcmp(files->v[i], "-") || stat(files->v[i], &st) || !S_ISREG(st.st_mode))
            return false;
    }
    return true;
}

/* The second read, without the bound: its messages are the first read's again, so they
 * go nowhere (standard error is pointed at /dev/null meanwhile); a failure says so. */
static int read_again(fr_acli *c, const fr_cli_operands *files, struct stack_opts *o)
{
    fr_acli_done(c);
    o->acli.bound_stacks = 0;
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0)
        dup2(null, 2);
    if (o->acli.spill && saved >= 0)   /* (a failing temporary file is said) */
        fr_stack_spill_say_to(o->acli.spill, saved);
    if (null >= 0)
        close(null);
    int rc = fr_acli_run_files(c, "stack", (const char *const *)files->v, (size_t)files->n, o->binary,
                               FR_ANALYZE_STACKS, &o->acli);
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    if (o->acli.spill)
        fr_stack_spill_say_to(o->acli.spill, 2);
    if (rc)
        fprintf(stderr, "flightrec stack: reading the trace a second time failed (did it change?)\n");
    else if (o->verbose)
        fprintf(stderr, "flightrec stack: note: a stack to show may have come after the first %zu "
                "distinct stacks: the trace was read again, every stack kept\n", BOUNDED_STACKS);
    return rc;
}

/* After a read: the spill, when the tree was spilled (its last run written), else NULL. */
static fr_stack_spill *spilled(fr_acli *c, fr_stack_spill *spill)
{
    if (!spill || !fr_stack_spill_runs(spill))
        return NULL;
    fr_stack_agg_set_full(c->analysis->stacks, 0, NULL, NULL);
    fr_stack_spill_last_run(spill, c->analysis->stacks);
    return spill;
}

int cmd_stack(int argc, char **argv)
{
    struct stack_opts o = {.key = FR_STACK_BY_TOTAL, .top = TOP_DEFAULT, .format = "text",
                           .acli = {.max_depth = FR_ACLI_DEFAULT_MAX_DEPTH},
                           .color = FR_COLOR_AUTO};
    fr_cli_operands files;
    int rc = fr_cli_parse(&fr_cmd_stack, argc, argv, &o, &files);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    if (files.n < 1)
        return fr_cli_usage_error("stack", "no trace FILE given");
    if ((rc = fr_cli_check_color_format("stack", o.color, o.format)))
        return rc;
    /* text and json show every figure of a stack: --value would do nothing there */
    if (o.value && strcmp(o.format, "folded"))
        return fr_cli_usage_error("stack", "--value applies to the folded format, not '%s'", o.format);
    if (!o.value)
        o.value = "self";
    g_lines = o.lines;
    bool default_top = o.top == TOP_DEFAULT;
    if (default_top)
        o.top = !strcmp(o.format, "text") ? DEFAULT_TOP : UINT64_MAX;   /* machines get all */
    bool bounded = !o.max_stacks && o.top <= BOUNDED_STACKS / 4 && rereadable(&files);

    /* Every stack, when the first N are shown from all of them (a second read, or a trace
     * on standard input): the tree spilled to temporary files when it is full
     * (stack_spill.h), so memory does not grow with the stacks. */
    bool spillable = !o.max_stacks && o.top <= BOUNDED_STACKS / 4;
    fr_stack_spill *spill = spillable ? fr_stack_spill_new("stack") : NULL;
    fr_acli c;
    o.acli.max_stacks = o.max_stacks > SIZE_MAX ? SIZE_MAX : (size_t)o.max_stacks;
    o.acli.bound_stacks = bounded ? BOUNDED_STACKS : 0;
    o.acli.bound_figure = o.key;
    o.acli.spill = bounded ? NULL : spill;
    rc = fr_acli_run_files(&c, "stack", (const char *const *)files.v, (size_t)files.n, o.binary,
                           FR_ANALYZE_STACKS, &o.acli);
    if (!rc) {
        c.verbose = o.verbose;
        rc = report(&c, &o, bounded, default_top, spilled(&c, spill));
        o.acli.spill = spill;
        if (rc == REREAD && !(rc = read_again(&c, &files, &o))) {
            c.verbose = o.verbose;
            rc = report(&c, &o, false, default_top, spilled(&c, spill));
        }
    }
    int drc = fr_acli_done(&c);
    fr_stack_spill_free(spill);
    return rc ? rc : drc;
}
