/*
 * fuzz_cli.c - libFuzzer target for the commands themselves: any bytes written to a
 * file and read by one of the commands that read traces, chosen by the input's last
 * byte, with its options (info, dump, account, stack with the bounded tree and a depth
 * limit, graph, replay with filters, convert to every format). fuzz_reader and
 * fuzz_analysis cover the reader and the analyses; this covers what the commands add on
 * top: the time origin's prescan, names, the converters' own loops (Perfetto's slices,
 * Chrome's events, the flame graph's layout, llvm-xray's YAML), replay's view, dump's
 * filters. A command must never crash, hang, leak, read out of bounds or exit() behind
 * the caller's back; it may refuse the input (exit status 1).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "commands.h"

#define INPUT "fuzz_cli_input.xray"
#define OUTPUT "fuzz_cli_output"

typedef int (*command_fn)(int, char **);

static const struct {
    command_fn fn;
    const char *args[12];   /* after the command's name; INPUT and "-o OUTPUT" are added */
} runs[] = {
    {cmd_info, {"info", NULL}},
    {cmd_info, {"info", "--json", NULL}},
    {cmd_dump, {"dump", "--meta", NULL}},
    {cmd_dump, {"dump", "--json", "--function", "2", "--from", "1us", NULL}},
    {cmd_account, {"account", "-f", "json", NULL}},
    {cmd_account, {"account", "--demangle=simple", "--tid", "1", NULL}},
    {cmd_stack, {"stack", NULL}},
    {cmd_stack, {"stack", "-f", "folded", "--thread-root", "--max-stacks", "5", "--max-depth", "3", NULL}},
    {cmd_stack, {"stack", "-f", "json", "--lines", NULL}},
    {cmd_graph, {"graph", NULL}},
    {cmd_replay, {"replay", NULL}},
    {cmd_replay, {"replay", "--depth", "2", "--time-filter", "1ns", "--function", "#1", NULL}},
    {cmd_convert, {"convert", "-f", "chrome", NULL}},
    {cmd_convert, {"convert", "-f", "perfetto", NULL}},
    {cmd_convert, {"convert", "-f", "folded", "--weight", "calls", "--max-depth", "4", NULL}},
    {cmd_convert, {"convert", "-f", "svg", "--thread-root", NULL}},
    {cmd_convert, {"convert", "-f", "yaml", NULL}},
};
#define N_RUNS (sizeof runs / sizeof runs[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    FILE *f = fopen(INPUT, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
        perror(INPUT);
        abort();
    }
    size_t k = data[size - 1] % N_RUNS;
    char *argv[20];
    int argc = 0;
    for (const char *const *a = runs[k].args; *a; a++)
        argv[argc++] = (char *)*a;
    argv[argc++] = (char *)INPUT;
    argv[argc++] = (char *)"-o";
    argv[argc++] = (char *)OUTPUT;
    argv[argc] = NULL;
    fr_cli_parse_demangle("fuzz_cli", "full");   /* (the one option that outlives a run) */
    int rc = runs[k].fn(argc, argv);
    /* A perf.data (its magic first) goes to convert's perfetto and chrome only: for the
     * other formats convert calls it bad usage (2) by design, as it would for a user. */
    bool perf_data = size >= 8 && !memcmp(data, "PERFILE2", 8);
    if (rc == 2 && perf_data && runs[k].fn == cmd_convert)
        return 0;
    if (rc != 0 && rc != 1) {   /* 2 would be bad usage: this table's fault */
        fprintf(stderr, "fuzz_cli: %s exited %d\n", argv[0], rc);
        abort();
    }
    return 0;
}
