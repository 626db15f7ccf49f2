/*
 * crash_prog.c - a traced program that dies the way it is told (tests/crash_signals.sh).
 * usage: crash_prog MODE [init]
 *   MODE: segv bus ill fpe abort trap term int hup exit (ill: an undefined instruction;
 *   fpe: an integer division by zero, which traps on x86-64 only) | own_segv (installs its own
 *   SIGSEGV handler, which must still run) | own_term (its own SIGTERM handler, which
 *   _exits with status 7) | overflow (unbounded recursion: the stack overflows, the dump
 *   runs on the alternate signal stack) | wait (sleeps until killed)
 *   | churn (8 threads, one after another, each make CHURN_CALLS traced calls and end;
 *   then as segv: their records are in the dump) | fork_segv (fork after the worker
 *   started: the child makes MAIN_CALLS calls and dies as segv, into a trace of its own;
 *   the parent makes the same calls, waits for it, prints "child PID signal N", returns)
 *   init: call fr_init(NULL) in main (after the program's own handler), for runs without
 *   `flightrec record` (FLIGHTREC_OPTIONS without start=1).
 * A worker thread makes exactly CRASH_WORKER_CALLS traced calls, then blocks
 * (crash_worker.c); main makes MAIN_CALLS traced calls, then calls crash_here(), whose
 * entry must be in the trace.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "crash_worker.h"
#include "flightrec.h"

#define MAIN_CALLS   50
#define CHURN_THREADS 8
#define CHURN_CALLS  30

__attribute__((noinline)) void churn_step(int i) { crash_sink += i; }

/* Traced: its entry and exit, and CHURN_CALLS calls: 2 + 2 * CHURN_CALLS records. */
__attribute__((noinline)) void *churn_thread(void *arg)
{
    for (int i = 0; i < CHURN_CALLS; i++)
        churn_step(i);
    return arg;
}

/* Threads that come and go before the crash (not traced itself). */
__attribute__((xray_never_instrument)) static int churn(void)
{
    for (int i = 0; i < CHURN_THREADS; i++) {
        pthread_t th;
        if (pthread_create(&th, NULL, churn_thread, NULL) || pthread_join(th, NULL))
            return -1;
    }
    return 0;
}

__attribute__((noinline)) void main_step(int i) { crash_sink += i; }

static void own_handler(int sig)
{
    static const char msg[] = "crash_prog: own SIGSEGV handler ran\n";
    (void)!write(2, msg, sizeof msg - 1);
    signal(sig, SIG_DFL); /* return: the fault happens again, now fatal */
}

/* A real integer division by zero (UBSan would report it and exit 1 instead). */
__attribute__((noinline, no_sanitize("integer-divide-by-zero"), xray_never_instrument))
static int divide(int a, int b) { return a / b; }

static volatile int never = -1;

__attribute__((noinline)) int recurse(int depth)
{
    if (depth == never)
        return 0;
    volatile char frame[64];
    frame[0] = (char)depth;
    return recurse(depth + 1) + frame[0];   /* not a tail call: every level keeps a frame */
}

static void own_term_handler(int sig)
{
    (void)sig;
    static const char msg[] = "crash_prog: own SIGTERM handler ran\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(7);
}

__attribute__((noinline)) void crash_here(const char *mode)
{
    volatile int zero = 0;
    if (!strcmp(mode, "segv") || !strcmp(mode, "own_segv") || !strcmp(mode, "churn") ||
        !strcmp(mode, "fork_segv")) {
        *(volatile int *)16 = 1;
    } else if (!strcmp(mode, "bus")) {
        FILE *f = tmpfile();                 /* a mapping past the end of its file */
        volatile char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
        p[4096] = 1;
    } else if (!strcmp(mode, "ill")) {
#if defined(__aarch64__)
        __asm__ volatile(".inst 0x00000000");   /* udf #0 (__builtin_trap is brk: SIGTRAP) */
#else
        __builtin_trap();                       /* ud2 */
#endif
    } else if (!strcmp(mode, "fpe")) {
        crash_sink = divide(7, zero);
    } else if (!strcmp(mode, "abort")) {
        abort();
    } else if (!strcmp(mode, "trap")) {
        __builtin_debugtrap();
    } else if (!strcmp(mode, "term") || !strcmp(mode, "own_term")) {
        raise(SIGTERM);
    } else if (!strcmp(mode, "int")) {
        raise(SIGINT);
    } else if (!strcmp(mode, "hup")) {
        raise(SIGHUP);
    } else if (!strcmp(mode, "overflow")) {
        crash_sink = recurse(0);
    } else if (!strcmp(mode, "wait")) {
        (void)!write(1, "ready\n", 6);
        for (;;)
            pause();
    } else if (!strcmp(mode, "exit")) {
        exit(5);
    }
    fprintf(stderr, "crash_prog: still alive after %s\n", mode);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (!strcmp(argv[1], "own_segv")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = own_handler;
        sigaction(SIGSEGV, &sa, NULL);
    }
    if (!strcmp(argv[1], "own_term"))
        signal(SIGTERM, own_term_handler);
    if (argc > 2 && !strcmp(argv[2], "init") && fr_init(NULL) != FR_OK)
        return 3;
    if (crash_worker_start())
        return 4;
    if (!strcmp(argv[1], "churn") && churn())
        return 4;
    pid_t child = -1;
    if (!strcmp(argv[1], "fork_segv") && (child = fork()) < 0)
        return 4;
    for (int i = 0; i < MAIN_CALLS; i++)
        main_step(i);
    if (child > 0) {   /* the parent: reports how its child ended, then returns */
        int st = 0;
        if (waitpid(child, &st, 0) != child)
            return 4;
        printf("child %d signal %d\n", (int)child, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        return 0;
    }
    crash_here(argv[1]);
    return 0;
}
