/*
 * xray_modes_bench.c - compiler-rt's logging modes, flightrec's implementation against
 * compiler-rt's: the same source built twice (xray_modes.cmake). One run: MODE
 * (xray-basic, xray-profiling) THREADS CALLS; each thread calls a tiny traced function
 * CALLS times with the mode initialised and the sleds patched; prints
 * "MODE THREADS NS_PER_CALL".
 *   xray-basic: func_duration_threshold_us=5 (compiler-rt's default): every call is
 *     logged and taken back at its exit (a short call), so the run measures the handler,
 *     not the disk; the log holds the long calls only.
 *   xray-profiling: no_flush=true; the call trie of each thread.
 * ns per call: each calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID; a loaded machine
 * does not inflate it as it does the wall clock) / CALLS, averaged over the threads.
 */
#include <flightrec/xray.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NEVER __attribute__((xray_never_instrument))
static volatile long sink;
static long calls;

__attribute__((noinline, xray_always_instrument)) long tiny(long x)
{
    sink += x;
    return x + 1;
}

NEVER static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_seconds[64];

NEVER static void *worker(void *arg)
{
    long index = (long)arg;
    long s = 0;
    double t0 = thread_cpu_now();
    for (long i = 0; i < calls; i++)
        s += tiny(i);
    cpu_seconds[index] = thread_cpu_now() - t0;
    sink += s;
    return NULL;
}

NEVER int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s xray-basic|xray-profiling THREADS CALLS\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int threads = atoi(argv[2]);
    calls = atol(argv[3]);
    if (threads < 1 || threads > 64 || calls < 1)
        return 2;
    const char *config = !strcmp(mode, "xray-basic") ? "func_duration_threshold_us=5"
                                                    : "no_flush=true";
    if (__xray_log_select_mode(mode) != XRAY_REGISTRATION_OK ||
        __xray_log_init_mode(mode, config) != XRAY_LOG_INITIALIZED) {
        fprintf(stderr, "%s: cannot initialise %s\n", argv[0], mode);
        return 1;
    }
    __xray_patch();
    pthread_t t[64];
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    double total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total += cpu_seconds[i] / threads;
    }
    __xray_unpatch();
    __xray_log_finalize();
    __xray_log_flushLog();
    printf("%s %d %.2f\n", mode, threads, total * 1e9 / (double)calls);
    return 0;
}
