/*
 * cmd_account.c - `flightrec account FILE`: per-function statistics of the calls in a
 * trace (calls, total and self time, min, median, p90, p99, max), sorted, as a table,
 * CSV or JSON. Percentiles come from a quantile sketch (within 0.78%), min and max exact.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_cli.h"
#include "text_escape.h"

static const char usage_text[] =
    "usage: flightrec account FILE [FILE...] [options]\n"
    "Per-function statistics of the calls in trace FILE.\n"
    "\n"
    "  -s, --sort KEY      a column: calls, total (default), self, min, median, p90,\n"
    "                      p99, max or function; numbers sort largest first, names\n"
    "                      alphabetically\n"
    "  -r, --reverse       reverse the order\n"
    "  --top N             only the first N functions\n"
    "  -f, --format F      text (default), csv or json\n"
    "  --binary BIN        take function names from BIN (else from the trace)\n"
    "  --demangle=MODE     C++ names: full (default), simple (no template arguments nor\n"
    "                      parameter lists: ns::Box::get) or no (mangled, as linked)\n"
    "  --lines             file:line where each function starts (from the binary's\n"
    "                      debug information): after the name (text), file and line\n"
    "                      columns (csv) or members (json)\n"
    "  --tid TID[,TID...]  only these threads (repeatable)\n"
    "  -o, --output FILE   write to FILE instead of standard output\n"
    "  -v, --verbose       the calls/threads/unmatched summary on standard error even\n"
    "                      when every call matched\n"
    "  --color[=WHEN]      bold header: auto (default: on a terminal), always, never\n"
    "  -h, --help          this text\n"
    "FILE '-' reads the trace from standard input. Several FILEs (a process and the\n"
    "children it forked: FILE FILE.*) are analysed together, their threads side by side.\n"
    "\n"
    "total is the sum of the calls' durations (a recursive call is counted at each level,\n"
    "as llvm-xray account does); self excludes time in traced callees. Percentiles are\n"
    "within 0.78% of the exact value. CSV and JSON times are in nanoseconds.\n"
    "Unmatched records (exits without an enter, calls closed by a longjmp-like exit,\n"
    "calls still open at the end) are counted on standard error and in the JSON.\n"
    "Exit status: 0 ok, 1 bad input, 2 bad usage.\n";

enum sort_key { BY_CALLS, BY_TOTAL, BY_SELF, BY_MIN, BY_MED, BY_P90, BY_P99, BY_MAX, BY_NAME };
/* The column names; "med" and "name" are the names of earlier versions. */
static const char *const sort_names[] = {"calls", "total", "self", "min", "median", "p90", "p99", "max", "function"};
static const char *const sort_aliases[] = {NULL, NULL, NULL, NULL, "med", NULL, NULL, NULL, "name"};

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

int cmd_account(int argc, char **argv)
{
    static const struct option options[] = {
        {"sort", required_argument, NULL, 's'},
        {"reverse", no_argument, NULL, 'r'},
        {"top", required_argument, NULL, 't'},
        {"format", required_argument, NULL, 'f'},
        {"binary", required_argument, NULL, 'b'},
        {"demangle", required_argument, NULL, 'N'},
        {"lines", no_argument, NULL, 'L'},
        {"tid", required_argument, NULL, 'T'},
        {"output", required_argument, NULL, 'o'},
        {"verbose", no_argument, NULL, 'v'},
        {"color", optional_argument, NULL, 'c'},
        {"colour", optional_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *format = "text", *binary = NULL, *output = NULL;
    fr_acli_opts opts = {0};
    uint64_t top = UINT64_MAX;
    bool verbose = false;
    int color = FR_COLOR_AUTO;
    g_key = BY_TOTAL;
    g_reverse = 0;
    g_lines = false;
    optind = 1;
    opterr = 0;   /* our own message for bad options */
    int opt;
    while ((opt = getopt_long(argc, argv, "rs:f:o:vh", options, NULL)) != -1) {
        switch (opt) {
        case 's': {
            size_t k = 0;
            while (k < sizeof sort_names / sizeof *sort_names && strcmp(optarg, sort_names[k]) &&
                   !(sort_aliases[k] && !strcmp(optarg, sort_aliases[k])))
                k++;
            if (k == sizeof sort_names / sizeof *sort_names)
                return fr_cli_usage_error("account", "unknown sort key '%s' (a column: calls, "
                                          "total, self, min, median, p90, p99, max, function)",
                                          optarg);
            g_key = (enum sort_key)k;
            break;
        }
        case 'r': g_reverse = 1; break;
        case 't':
            if (fr_acli_parse_count("account", "--top", optarg, &top))
                return FR_EXIT_USAGE;
            break;
        case 'f': format = optarg; break;
        case 'b': binary = optarg; break;
        case 'N':
            if (fr_cli_parse_demangle("account", optarg))
                return FR_EXIT_USAGE;
            break;
        case 'L': g_lines = true; break;
        case 'T':
            if (fr_cli_parse_tids("account", optarg, &opts.tids))
                return FR_EXIT_USAGE;
            break;
        case 'o': output = optarg; break;
        case 'v': verbose = true; break;
        case 'c':
            if (fr_cli_parse_color("account", optarg, &color))
                return FR_EXIT_USAGE;
            break;
        case 'h': fputs(usage_text, stdout); return FR_EXIT_OK;
        default:
            return fr_cli_usage_error("account", "bad option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json"))
        return fr_cli_usage_error("account", "unknown format '%s' (text, csv, json)", format);
    if (optind >= argc)
        return fr_cli_usage_error("account", "no trace FILE given");
    const char *const *paths = (const char *const *)argv + optind;
    size_t n_paths = (size_t)(argc - optind);

    fr_acli c;
    int rc = fr_acli_run_files(&c, "account", paths, n_paths, binary, FR_ANALYZE_FUNCTIONS, &opts);
    if (rc) {
        fr_acli_done(&c);
        return rc;
    }
    c.verbose = verbose;
    size_t n;
    struct row *rows = make_rows(&c, &n);
    FILE *out = rows ? fr_acli_open_output("account", output) : NULL;
    if (!out) {
        if (!rows)
            fprintf(stderr, "flightrec account: out of memory\n");
        free(rows);
        fr_acli_done(&c);
        return FR_EXIT_BAD_INPUT;
    }
    qsort(rows, n, sizeof *rows, compare_rows);
    if (top < n)
        n = top;
    if (!strcmp(format, "text"))
        print_text(&c, out, rows, n, fr_cli_use_color(color, out));
    else if (!strcmp(format, "csv"))
        print_csv(&c, out, rows, n);
    else
        print_json(&c, out, rows, n);
    rc = fr_acli_close_output("account", output, out);
    fr_acli_report_unmatched(&c);
    free(rows);
    int drc = fr_acli_done(&c);
    return rc ? rc : drc;
}
