/*
 * cmd_graph.c - `flightrec graph FILE`: the call graph of a trace in Graphviz DOT.
 * Nodes are functions (calls, total and self time; the fill darkens with the share of
 * self time), edges go caller -> callee with the number of calls and their total time.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_cli.h"
#include "text_escape.h"
#include "commands.h"
#include "u64_map.h"

static const char usage_text[] =
    "usage: flightrec graph FILE [FILE...] [options]\n"
    "Call graph of trace FILE in Graphviz DOT (render with: dot -Tsvg).\n"
    "\n"
    "  --top N             only the N functions with the most total time (and their\n"
    "                      edges)\n"
    "  -f, --format F      dot (the only format; accepted for symmetry with the other\n"
    "                      commands)\n"
    "  --binary BIN        take function names from BIN (else from the trace)\n"
    "  --demangle=MODE     C++ names: full (default), simple (no template arguments nor\n"
    "                      parameter lists: ns::Box::get) or no (mangled, as linked)\n"
    "  --tid TID[,TID...]  only these threads (repeatable)\n"
    "  -o, --output FILE   write to FILE instead of standard output\n"
    "  -v, --verbose       the calls/threads/unmatched summary on standard error even\n"
    "                      when every call matched\n"
    "  -h, --help          this text\n"
    "FILE '-' reads the trace from standard input. Several FILEs (a process and the\n"
    "children it forked: FILE FILE.*) are analysed together, their threads side by side.\n"
    "\n"
    "Node: function, calls, total time (sum of call durations), self time and its share of\n"
    "all traced time. Edge caller -> callee: calls made and their total time.\n"
    "Exit status: 0 ok, 1 bad input, 2 bad usage.\n";

/* A DOT quoted string's contents: terminal controls escaped (text_escape.h), then
 * quotes and backslashes for DOT. */
static void dot_escaped(FILE *out, const char *raw)
{
    fr_text_buf esc = {0};
    const char *s = fr_text_escape(&esc, raw);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putc('\\', out);
        putc(*s, out);
    }
    fr_text_buf_free(&esc);
}

static fr_func_stats *g_fs;
static int by_total_desc(const void *pa, const void *pb)
{
    const fr_func_stat *a = fr_func_stats_at(g_fs, *(const size_t *)pa);
    const fr_func_stat *b = fr_func_stats_at(g_fs, *(const size_t *)pb);
    if (a->total_ticks != b->total_ticks)
        return a->total_ticks > b->total_ticks ? -1 : 1;
    return a->function_id < b->function_id ? -1 : a->function_id > b->function_id;
}

int cmd_graph(int argc, char **argv)
{
    static const struct option options[] = {
        {"top", required_argument, NULL, 't'},
        {"binary", required_argument, NULL, 'b'},
        {"demangle", required_argument, NULL, 'N'},
        {"tid", required_argument, NULL, 'T'},
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *binary = NULL, *output = NULL;
    fr_acli_opts opts = {0};
    bool verbose = false;
    uint64_t top = UINT64_MAX;
    optind = 1;
    opterr = 0;   /* our own message for bad options */
    int opt;
    while ((opt = getopt_long(argc, argv, "f:o:vh", options, NULL)) != -1) {
        switch (opt) {
        case 't':
            if (fr_acli_parse_count("graph", "--top", optarg, &top))
                return FR_EXIT_USAGE;
            break;
        case 'b': binary = optarg; break;
        case 'N':
            if (fr_cli_parse_demangle("graph", optarg))
                return FR_EXIT_USAGE;
            break;
        case 'T':
            if (fr_cli_parse_tids("graph", optarg, &opts.tids))
                return FR_EXIT_USAGE;
            break;
        case 'o': output = optarg; break;
        case 'f':
            if (strcmp(optarg, "dot"))
                return fr_cli_usage_error("graph", "unknown format '%s' (dot)", optarg);
            break;
        case 'v': verbose = true; break;
        case 'h': fputs(usage_text, stdout); return FR_EXIT_OK;
        default:
            return fr_cli_usage_error("graph", "bad option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return fr_cli_usage_error("graph", "no trace FILE given");
    const char *const *paths = (const char *const *)argv + optind;
    size_t n_paths = (size_t)(argc - optind);

    fr_acli c;
    int rc = fr_acli_run_files(&c, "graph", paths, n_paths, binary, FR_ANALYZE_FUNCTIONS | FR_ANALYZE_GRAPH, &opts);
    if (rc) {
        fr_acli_done(&c);
        return rc;
    }
    c.verbose = verbose;
    fr_func_stats *fs = c.analysis->functions;
    const fr_call_graph *g = c.analysis->graph;
    size_t n = fr_func_stats_count(fs);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    FILE *out = order ? fr_acli_open_output("graph", output) : NULL;
    if (!out) {
        if (!order)
            fprintf(stderr, "flightrec graph: out of memory\n");
        free(order);
        fr_acli_done(&c);
        return FR_EXIT_BAD_INPUT;
    }
    uint64_t traced = 0;
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        traced += fr_func_stats_at(fs, i)->self_ticks;
    }
    g_fs = fs;
    qsort(order, n, sizeof *order, by_total_desc);
    size_t shown = top < n ? top : n;

    fprintf(out, "digraph \"flightrec\" {\n"
                 "  graph [label=\"");
    dot_escaped(out, c.trace.path);
    fprintf(out, "\", labelloc=t];\n"
                 "  node [shape=box, style=filled, fontname=\"Helvetica\"];\n"
                 "  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for (size_t k = 0; k < shown; k++) {
        const fr_func_stat *s = fr_func_stats_at(fs, order[k]);
        char total[32], self[32];
        fr_acli_format_duration(&c, s->total_ticks, total, sizeof total);
        fr_acli_format_duration(&c, s->self_ticks, self, sizeof self);
        double share = traced ? (double)s->self_ticks / (double)traced : 0;
        fprintf(out, "  f%" PRIu32 " [label=\"", s->function_id);
        dot_escaped(out, fr_acli_name(&c, s->function_id));
        fprintf(out, "\\n%" PRIu64 " calls\\ntotal %s\\nself %s (%.1f%%)\", "
                     "fillcolor=\"0.000 %.3f 1.000\"];\n",
                s->calls, total, self, 100 * share, 0.1 + 0.8 * share);
    }
    /* Edges between shown functions only. */
    fr_u64_map is_shown;
    fr_u64_map_init(&is_shown);
    for (size_t k = 0; k < shown; k++)
        fr_u64_map_put(&is_shown, fr_func_stats_at(fs, order[k])->function_id, 1);
    for (size_t i = 0; i < fr_call_graph_count(g); i++) {
        const fr_call_edge *e = fr_call_graph_at(g, i);
        if (fr_u64_map_get(&is_shown, e->caller) == FR_U64_MAP_NONE ||
            fr_u64_map_get(&is_shown, e->callee) == FR_U64_MAP_NONE)
            continue;
        char total[32];
        fr_acli_format_duration(&c, e->total_ticks, total, sizeof total);
        double share = traced ? (double)e->total_ticks / (double)traced : 0;
        if (share > 1)
            share = 1;
        fprintf(out, "  f%" PRIu32 " -> f%" PRIu32 " [label=\"%" PRIu64 " calls\\n%s\", "
                     "penwidth=%.2f];\n",
                e->caller, e->callee, e->calls, total, 1 + 4 * share);
    }
    fr_u64_map_free(&is_shown);
    fprintf(out, "}\n");
    rc = fr_acli_close_output("graph", output, out);
    fr_acli_report_unmatched(&c);
    free(order);
    int drc = fr_acli_done(&c);
    return rc ? rc : drc;
}
