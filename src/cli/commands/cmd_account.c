/*
 * cmd_account.c - `flightrec account FILE`: per-function statistics of the calls in a
 * trace (calls, total and self time, min, median, p90, p99, max), sorted, as a table,
 * CSV or JSON. Percentiles come from a quantile sketch (within 0.78%), min and max exact.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_cli.h"
#include "cli_options.h"
#include "text_escape.h"

enum sort_key { BY_CALLS, BY_TOTAL, BY_SELF, BY_MIN, BY_MED, BY_P90, BY_P99, BY_MAX, BY_NAME };
/* The column names; "med" and "name" are the names of earlier versions. */
static const char *const sort_names[] = {"calls", "total", "self", "min", "median", "p90", "p99", "max", "function"};
static const char *const sort_aliases[] = {NULL, NULL, NULL, NULL, "med", NULL, NULL, NULL, "name"};

/* ---------------------------------------------------------------- parse */

struct account_opts {
    enum sort_key key;
    bool          reverse, lines, verbose;
    uint64_t      top;
    const char   *format, *binary, *output;
    fr_acli_opts  acli;     /* --tid */
    int           color;
};

/* --sort: a column's name (or its earlier name). */
static int set_sort(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)o;
    size_t k = 0;
    while (k < sizeof sort_names / sizeof *sort_names && strcmp(value, sort_names[k]) &&
           !(sort_aliases[k] && !strcmp(value, sort_aliases[k])))
        k++;
    if (k == sizeof sort_names / sizeof *sort_names)
        return fr_cli_usage_error(command, "unknown sort key '%s' (a column: calls, total, self, "
                                  "min, median, p90, p99, max, function)", value);
    *(enum sort_key *)field = (enum sort_key)k;
    return 0;
}

static const fr_cli_opt account_options[] = {
    {.name = "sort", .letter = 's', .arg = " KEY", .set = set_sort,
     .offset = offsetof(struct account_opts, key),
     .help = "a column: calls, total (default), self, min, median, p90,\n"
             "p99, max or function; numbers sort largest first, names\n"
             "alphabetically"},
    FR_CLI_OPT_FLAG("reverse", 'r', struct account_opts, reverse, "reverse the order"),
    {.name = "top", .arg = " N", .set = fr_cli_set_count,
     .offset = offsetof(struct account_opts, top), .help = "only the first N functions"},
    FR_CLI_OPT_FORMAT(struct account_opts, format, " F", "text|csv|json", "unknown format '%s' (text, csv, json)",
                      "text (default), csv or json"),
    FR_CLI_OPT_BINARY(struct account_opts, binary, "take function names from BIN (else from the trace)"),
    FR_CLI_OPT_DEMANGLE(FR_CLI_HELP_DEMANGLE),
    FR_CLI_OPT_FLAG("lines", 0, struct account_opts, lines,
                    "file:line where each function starts (from the binary's\n"
                    "debug information): after the name (text), file and line\n"
                    "columns (csv) or members (json)"),
    FR_CLI_OPT_TIDS(struct account_opts, acli.tids, " TID[,TID...]", "only these threads (repeatable)"),
    FR_CLI_OPT_FLAG("exclude-off-cpu", 0, struct account_opts, acli.exclude_off_cpu,
                    "leave out of every call's time the time its thread\n"
                    "was off the CPU (scheduling marks: see record --help)"),
    FR_CLI_OPT_OUTPUT(struct account_opts, output, " FILE", "write to FILE instead of standard output"),
    FR_CLI_OPT_FLAG("verbose", 'v', struct account_opts, verbose, FR_CLI_HELP_VERBOSE),
    FR_CLI_OPT_COLOR(struct account_opts, color, "bold header: auto (default: on a terminal), always, never"),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

const fr_cli_command fr_cmd_account = {
    .name = "account",
    .summary = "per-function statistics",
    .run = cmd_account,
    .head = "usage: flightrec account FILE [FILE...] [options]\n"
            "Per-function statistics of the calls in trace FILE.\n"
            "\n",
    .options = account_options,
    .column = 22,
    .tail = "FILE '-' reads the trace from standard input. Several FILEs (a process and the\n"
            "children it forked: FILE FILE.*) are analysed together, their threads side by side.\n"
            "\n"
            "total is the sum of the calls' durations (a recursive call is counted at each level,\n"
            "as llvm-xray account does); self excludes time in traced callees. Percentiles are\n"
            "within 0.78% of the exact value. CSV and JSON times are in nanoseconds.\n"
            "Unmatched records (exits without an enter, calls closed by a longjmp-like exit,\n"
            "calls still open at the end) are counted on standard error and in the JSON.\n"
            "Exit status: 0 ok, 1 bad input, 2 bad usage.\n",
};

/* ---------------------------------------------------------------- report */

struct row {
    uint32_t    id;
    const char *name;
    uint64_t    v[BY_NAME];      /* indexed by sort key: calls, then ticks */
    uint64_t    closed_by_unwind, open_at_end;
};

static enum sort_key g_key;
static int g_reverse;
static bool g_lines;   /* --lines */

static int compare_rows(const void *pa, const void *pb)
{
    const struct row *a = pa, *b = pb;
    int c;
    if (g_key == BY_NAME)
        c = strcmp(a->name, b->name);
    else
        c = a->v[g_key] > b->v[g_key] ? -1 : a->v[g_key] < b->v[g_key];
    if (c == 0) /* stable, readable tie break */
        c = a->id < b->id ? -1 : a->id > b->id;
    return g_reverse ? -c : c;
}

static struct row *make_rows(fr_acli *c, size_t *n)
{
    fr_func_stats *fs = c->analysis->functions;
    *n = fr_func_stats_count(fs);
    struct row *rows = calloc(*n ? *n : 1, sizeof *rows);
    if (!rows)
        return NULL;
    for (size_t i = 0; i < *n; i++) {
        const fr_func_stat *s = fr_func_stats_at(fs, i);
        struct row *r = &rows[i];
        r->id = s->function_id;
        r->name = fr_acli_name(c, s->function_id);
        r->v[BY_CALLS] = s->calls;
        r->v[BY_TOTAL] = s->total_ticks;
        r->v[BY_SELF] = s->self_ticks;
        r->v[BY_MIN] = s->min_ticks;
        r->v[BY_MED] = fr_qsketch_quantile(&s->durations, 0.5);
        r->v[BY_P90] = fr_qsketch_quantile(&s->durations, 0.9);
        r->v[BY_P99] = fr_qsketch_quantile(&s->durations, 0.99);
        r->v[BY_MAX] = s->max_ticks;
        r->closed_by_unwind = s->closed_by_unwind;
        r->open_at_end = s->open_at_end;
    }
    return rows;
}

static void print_text(fr_acli *c, FILE *out, const struct row *rows, size_t n, bool color)
{
    fr_cli_colors k = fr_cli_colors_for(color);
    fprintf(out, "%s%10s %10s %10s %10s %10s %10s %10s %10s  %s%s\n", k.bold, "calls", "total",
            "self", "min", "median", "p90", "p99", "max", "function", k.reset);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%10" PRIu64, rows[i].v[BY_CALLS]);
        for (int k = BY_TOTAL; k <= BY_MAX; k++) {
            char buf[32];
            fr_acli_format_duration(c, rows[i].v[k], buf, sizeof buf);
            fprintf(out, " %10s", buf);
        }
        fputs("  ", out);
        fr_text_put(out, rows[i].name);   /* names come from the trace: no raw controls */
        char loc[4200];
        if (g_lines && fr_acli_location(c, rows[i].id, loc, sizeof loc)) {
            fputs("  (", out);
            fr_text_put(out, loc);
            putc(')', out);
        }
        putc('\n', out);
    }
}

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    putc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', out);
        putc(*s, out);
    }
    putc('"', out);
}

static void print_csv(fr_acli *c, FILE *out, const struct row *rows, size_t n)
{
    fprintf(out, "id,function,calls,total_ns,self_ns,min_ns,median_ns,p90_ns,p99_ns,max_ns,"
                 "closed_by_unwind,open_at_end%s\n", g_lines ? ",file,line" : "");
    fr_text_buf esc = {0};
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%" PRIu32 ",", rows[i].id);
        csv_field(out, fr_text_escape(&esc, rows[i].name));
        fprintf(out, ",%" PRIu64, rows[i].v[BY_CALLS]);
        for (int k = BY_TOTAL; k <= BY_MAX; k++)
        {
            char ns[48];
            fprintf(out, ",%s", fr_acli_ns(c, rows[i].v[k], ns, sizeof ns));
        }
        fprintf(out, ",%" PRIu64 ",%" PRIu64, rows[i].closed_by_unwind, rows[i].open_at_end);
        char loc[4200];
        const char *l = g_lines ? fr_acli_location(c, rows[i].id, loc, sizeof loc) : NULL;
        if (l) {
            char *colon = strrchr(loc, ':');
            *colon = 0;
            putc(',', out);
            csv_field(out, fr_text_escape(&esc, loc));
            fprintf(out, ",%s", colon + 1);
        } else if (g_lines) {
            fputs(",,", out);
        }
        putc('\n', out);
    }
    fr_text_buf_free(&esc);
}

static void print_json(fr_acli *c, FILE *out, const struct row *rows, size_t n)
{
    static const char *const field[] = {"calls", "total", "self", "min", "median", "p90", "p99", "max"};
    fprintf(out, "{");
    fr_acli_json_header(c, out);
    fprintf(out, ",\n \"functions\": [");
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
        fprintf(out, "%s\n  {\"id\": %" PRIu32 ", \"name\": ", i ? "," : "", r->id);
        fr_acli_json_string(out, r->name);
        fprintf(out, ", \"calls\": %" PRIu64, r->v[BY_CALLS]);
        for (int k = BY_TOTAL; k <= BY_MAX; k++)
        {
            char ns[48];
            fprintf(out, ", \"%s_ns\": %s", field[k], fr_acli_ns(c, r->v[k], ns, sizeof ns));
        }
        for (int k = BY_TOTAL; k <= BY_MAX; k++)
            fprintf(out, ", \"%s_ticks\": %" PRIu64, field[k], r->v[k]);
        fprintf(out, ", \"closed_by_unwind\": %" PRIu64 ", \"open_at_end\": %" PRIu64,
                r->closed_by_unwind, r->open_at_end);
        char loc[4200];
        if (g_lines && fr_acli_location(c, r->id, loc, sizeof loc)) {
            char *colon = strrchr(loc, ':');
            *colon = 0;
            fputs(", \"file\": ", out);
            fr_acli_json_string(out, loc);
            fprintf(out, ", \"line\": %s", colon + 1);
        }
        putc('}', out);
    }
    fprintf(out, "\n ]}\n");
}

/* The rows, sorted, in the asked format to -o (or stdout); the exit status. */
static int report(fr_acli *c, const struct account_opts *o)
{
    size_t n;
    struct row *rows = make_rows(c, &n);
    FILE *out = rows ? fr_acli_open_output("account", o->output) : NULL;
    if (!out) {
        if (!rows)
            fprintf(stderr, "flightrec account: out of memory\n");
        free(rows);
        return FR_EXIT_BAD_INPUT;
    }
    qsort(rows, n, sizeof *rows, compare_rows);
    if (o->top < n)
        n = o->top;
    if (!strcmp(o->format, "text"))
        print_text(c, out, rows, n, fr_cli_use_color(o->color, out));
    else if (!strcmp(o->format, "csv"))
        print_csv(c, out, rows, n);
    else
        print_json(c, out, rows, n);
    int rc = fr_acli_close_output("account", o->output, out);
    fr_acli_report_unmatched(c);
    free(rows);
    return rc;
}

/* ---------------------------------------------------------------- the command */

int cmd_account(int argc, char **argv)
{
    struct account_opts o = {.key = BY_TOTAL, .top = UINT64_MAX, .format = "text",
                             .color = FR_COLOR_AUTO};
    fr_cli_operands files;
    int rc = fr_cli_parse(&fr_cmd_account, argc, argv, &o, &files);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    if (files.n < 1)
        return fr_cli_usage_error("account", "no trace FILE given");
    if ((rc = fr_cli_check_color_format("account", o.color, o.format)))
        return rc;
    g_key = o.key;
    g_reverse = o.reverse;
    g_lines = o.lines;

    fr_acli c;
    rc = fr_acli_run_files(&c, "account", (const char *const *)files.v, (size_t)files.n,
                           o.binary, FR_ANALYZE_FUNCTIONS, &o.acli);
    if (!rc) {
        c.verbose = o.verbose;
        rc = report(&c, &o);
    }
    int drc = fr_acli_done(&c);
    return rc ? rc : drc;
}
