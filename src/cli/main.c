/* main.c - `flightrec`: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>
#include "commands.h"

#ifndef FLIGHTREC_VERSION
#error "FLIGHTREC_VERSION is set by CMakeLists.txt from project(VERSION)"
#endif

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct subcommand subcommands[] = {
    {"record",     cmd_record,     "run a program with tracing on and write its trace"},
    {"doctor",     cmd_doctor,     "can this program be traced here? (instrumentation, runtime, kernel)"},
    {"info",       cmd_info,       "header, threads, record counts, drops, duration"},
    {"dump",       cmd_dump,       "one line per record"},
    {"account",    cmd_account,    "per-function statistics"},
    {"stack",      cmd_stack,      "unique call stacks with counts and time"},
    {"graph",      cmd_graph,      "call graph in Graphviz DOT"},
    {"replay",     cmd_replay,     "calls as an indented call view (like uftrace replay)"},
    {"convert",    cmd_convert,    "to Perfetto, Chrome JSON, folded stacks, SVG flame graph, YAML"},
    {"decode-dat", cmd_decode_dat, "decode an EventHeader interceptor corpus (.dat) to JSON"},
    {"decode-perf", cmd_decode_perf, "tracepoint samples of a perf.data file (user_events too) as JSON"},
    {"snapshot",   cmd_snapshot,   "make a running traced process write a snapshot"},
    {"recover",    cmd_recover,    "the trace of a killed process, from its backing file"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: flightrec COMMAND [ARGS...]   (flightrec COMMAND --help for more)\n"
                 "       flightrec --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(out, "  %-12s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out, "\nexit status: 0 success, 1 bad input or environment (unreadable trace,\n"
                 "unwritable output, a filter that matched nothing), 2 bad usage;\n"
                 "record: the program's status. Conventions: docs/CLI.md.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return FR_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("flightrec %s\n", FLIGHTREC_VERSION);
        return FR_EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return FR_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(argv[1], subcommands[i].name))
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "flightrec: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return FR_EXIT_USAGE;
}
