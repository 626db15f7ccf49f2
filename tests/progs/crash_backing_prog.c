/*
 * crash_backing_prog.c - a traced program that ends without writing its trace, for the
 * backing file tests (tests/crash_backing.py): SIGKILL from outside, or _exit.
 * usage: crash_backing_prog MODE CALLS [init]
 *   kill:   CALLS calls of step(), then last_call(), which prints "ready" and waits to
 *           be killed
 *   _exit:  CALLS calls of step(), then last_call(), which calls _exit(3)
 *   exit:   CALLS calls of step(), then last_call(), then main returns 0 (normal exit)
 *   events: CALLS custom events of 40 bytes (the last byte 0x5a), then last_call() waits
 *   fork:   a child makes CALLS calls of step() and _exits(0); the parent waits for it,
 *           then makes CALLS calls and last_call() waits to be killed
 *   init:   fr_init(NULL) in main (FLIGHTREC_OPTIONS without start=1)
 * A worker thread first makes exactly CRASH_WORKER_CALLS calls of worker_step(), then
 * blocks (crash_worker.c).
 * Records of main's thread with start=1: main's entry, 2 x CALLS, last_call's entry.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "crash_worker.h"
#include "flightrec.h"

static const char *mode;

__attribute__((noinline)) void step(int i) { crash_sink += i; }

__attribute__((noinline)) void last_call(void)
{
    if (!strcmp(mode, "_exit"))
        _exit(3);
    if (!strcmp(mode, "exit"))
        return;
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    mode = argv[1];
    long calls = atol(argv[2]);
    if (argc > 3 && !strcmp(argv[3], "init") && fr_init(NULL) != FR_OK)
        return 4;
    if (crash_worker_start())
        return 5;
    if (!strcmp(mode, "fork")) {
        pid_t pid = fork();
        if (pid == 0) {
            for (long i = 0; i < calls; i++)
                step((int)i);
            _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        printf("child %d\n", (int)pid);
    }
    if (!strcmp(mode, "events")) {
        unsigned char ev[40];
        for (long i = 0; i < calls; i++) {
            memset(ev, (int)(i & 0x7f) | 1, sizeof ev);
            ev[39] = 0x5a;
            fr_log_custom_event(ev, sizeof ev);
        }
    } else {
        for (long i = 0; i < calls; i++)
            step((int)i);
    }
    last_call();
    return 0;
}
