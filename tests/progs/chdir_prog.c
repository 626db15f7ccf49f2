/*
 * chdir_prog.c - a program for tests/core_relative_output.sh: recording starts from
 * FLIGHTREC_OPTIONS (start=1 with a relative output=, snapshot_output=, backing=); it
 * makes 1000 enter/exit pairs, changes its working directory to DIR (as a daemon does),
 * takes a snapshot (fr_snapshot(NULL)), makes 1000 more, and then exits, or with
 * "crash" dies of SIGSEGV (crash_dump=1 writes the trace).
 * usage: chdir_prog DIR [crash]
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "flightrec.h"

static void pairs(int n)
{
    for (int i = 0; i < n; i++) {
        fr_log_enter(1 + (uint32_t)(i & 3));
        fr_log_exit(1 + (uint32_t)(i & 3));
    }
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    pairs(1000);
    if (chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    if (fr_snapshot(NULL) != FR_OK)
        fprintf(stderr, "snapshot failed\n");
    pairs(1000);
    if (argc > 2 && !strcmp(argv[2], "crash"))
        raise(SIGSEGV);
    return 0;
}
