/*
 * cmd_graph.c - `flightrec graph FILE`: the call graph of a trace in Graphviz DOT.
 * Nodes are functions (calls, total and self time; the fill darkens with the share of
 * self time), edges go caller -> callee with the number of calls and their total time.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analysis_cli.h"
#include "text_escape.h"
#include "cli_options.h"
#include "commands.h"
#include "u64_map.h"

/* ---------------------------------------------------------------- parse */

struct graph_opts {
    uint64_t     top;
    const char  *format, *binary, *output;
    fr_acli_opts acli;      /* --tid */
    bool         verbose;
};

static const fr_cli_opt graph_options[] = {
    {.name = "top", .arg = " N", .set = fr_cli_set_count, .offset = offsetof(struct graph_opts, top),
     .help = "only the N functions with the most total time (and their\n"
             "edges)"},
    FR_CLI_OPT_FORMAT(struct graph_opts, format, " F", "dot", "unknown format '%s' (dot)",
                      "dot (the only format; accepted for symmetry with the other\n"
                      "commands)"),
    FR_CLI_OPT_BINARY(struct graph_opts, binary, "take function names from BIN (else from the trace)"),
    FR_CLI_OPT_DEMANGLE(FR_CLI_HELP_DEMANGLE),
    FR_CLI_OPT_TIDS(struct graph_opts, acli.tids, " TID[,TID...]", "only these threads (repeatable)"),
    FR_CLI_OPT_OUTPUT(struct graph_opts, output, " FILE", "write to FILE instead of standard output"),
    FR_CLI_OPT_FLAG("verbose", 'v', struct graph_opts, verbose, FR_CLI_HELP_VERBOSE),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

const fr_cli_command fr_cmd_graph = {
    .name = "graph",
    .summary = "call graph in Graphviz DOT",
    .run = cmd_graph,
    .head = "usage: flightrec graph FILE [FILE...] [options]\n"
            "Call graph of trace FILE in Graphviz DOT (render with: dot -Tsvg).\n"
            "\n",
    .options = graph_options,
    .column = 22,
    .tail = "FILE '-' reads the trace from standard input. Several FILEs (a process and the\n"
            "children it forked: FILE FILE.*) are analysed together, their threads side by side.\n"
            "\n"
            "Node: function, calls, total time (sum of call durations), self time and its share of\n"
            "all traced time. Edge caller -> callee: calls made and their total time.\n"
            "Exit status: 0 ok, 1 bad input, 2 bad usage.\n",
};

/* ---------------------------------------------------------------- report */

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

/* The nodes (the `shown` functions of `order`, sorted by total time) and the edges
 * between them, in DOT. */
static void print_graph(fr_acli *c, FILE *out, const size_t *order, size_t shown,
                        uint64_t traced)
{
    fr_func_stats *fs = c->analysis->functions;
    const fr_call_graph *g = c->analysis->graph;
    fprintf(out, "digraph \"flightrec\" {\n"
                 "  graph [label=\"");
    dot_escaped(out, c->trace.path);
    fprintf(out, "\", labelloc=t];\n"
                 "  node [shape=box, style=filled, fontname=\"Helvetica\"];\n"
                 "  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for (size_t k = 0; k < shown; k++) {
        const fr_func_stat *s = fr_func_stats_at(fs, order[k]);
        char total[32], self[32];
        fr_acli_format_duration(c, s->total_ticks, total, sizeof total);
        fr_acli_format_duration(c, s->self_ticks, self, sizeof self);
        double share = traced ? (double)s->self_ticks / (double)traced : 0;
        fprintf(out, "  f%" PRIu32 " [label=\"", s->function_id);
        dot_escaped(out, fr_acli_name(c, s->function_id));
        fprintf(out, "\\n%" PRIu64 " call%s\\ntotal %s\\nself %s (%.1f%%)\", "
                     "fillcolor=\"0.000 %.3f 1.000\"];\n",
                s->calls, s->calls == 1 ? "" : "s", total, self, 100 * share, 0.1 + 0.8 * share);
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
        fr_acli_format_duration(c, e->total_ticks, total, sizeof total);
        double share = traced ? (double)e->total_ticks / (double)traced : 0;
        if (share > 1)
            share = 1;
        fprintf(out, "  f%" PRIu32 " -> f%" PRIu32 " [label=\"%" PRIu64 " call%s\\n%s\", "
                     "penwidth=%.2f];\n",
                e->caller, e->callee, e->calls, e->calls == 1 ? "" : "s", total, 1 + 4 * share);
    }
    fr_u64_map_free(&is_shown);
    fprintf(out, "}\n");
}

/* Sorts the functions, writes the graph to -o (or stdout); the exit status. */
static int report(fr_acli *c, const struct graph_opts *o)
{
    fr_func_stats *fs = c->analysis->functions;
    size_t n = fr_func_stats_count(fs);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    FILE *out = order ? fr_acli_open_output("graph", o->output) : NULL;
    if (!out) {
        if (!order)
            fprintf(stderr, "flightrec graph: out of memory\n");
        free(order);
        return FR_EXIT_BAD_INPUT;
    }
    uint64_t traced = 0;
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        traced += fr_func_stats_at(fs, i)->self_ticks;
    }
    g_fs = fs;
    qsort(order, n, sizeof *order, by_total_desc);
    print_graph(c, out, order, o->top < n ? o->top : n, traced);
    int rc = fr_acli_close_output("graph", o->output, out);
    fr_acli_report_unmatched(c);
    free(order);
    return rc;
}

/* ---------------------------------------------------------------- the command */

int cmd_graph(int argc, char **argv)
{
    struct graph_opts o = {.top = UINT64_MAX};
    fr_cli_operands files;
    int rc = fr_cli_parse(&fr_cmd_graph, argc, argv, &o, &files);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    if (files.n < 1)
        return fr_cli_usage_error("graph", "no trace FILE given");

    fr_acli c;
    rc = fr_acli_run_files(&c, "graph", (const char *const *)files.v, (size_t)files.n, o.binary,
                           FR_ANALYZE_FUNCTIONS | FR_ANALYZE_GRAPH, &o.acli);
    if (!rc) {
        c.verbose = o.verbose;
        rc = report(&c, &o);
    }
    int drc = fr_acli_done(&c);
    return rc ? rc : drc;
}
