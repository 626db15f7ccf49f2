/* main.c - `flightrec`: dispatch to a subcommand (command_list.c lists them). */
#include <stdio.h>
#include <string.h>
#include "cli_options.h"
#include "commands.h"

#ifndef FLIGHTREC_VERSION
#error "FLIGHTREC_VERSION is set by CMakeLists.txt from project(VERSION)"
#endif

static void usage(FILE *out)
{
    fprintf(out, "usage: flightrec COMMAND [ARGS...]   (flightrec COMMAND --help for more)\n"
                 "       flightrec --version\n\ncommands:\n");
    for (const fr_cli_command *const *c = fr_cli_commands; *c; c++)
        fprintf(out, "  %-12s %s\n", (*c)->name, (*c)->summary);
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
    for (const fr_cli_command *const *c = fr_cli_commands; *c; c++)
        if (!strcmp(argv[1], (*c)->name))
            return (*c)->run(argc - 1, argv + 1);
    fprintf(stderr, "flightrec: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return FR_EXIT_USAGE;
}
