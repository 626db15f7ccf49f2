/*
 * core_writer.c - writes a trace through the public API for the llvm-xray checks
 * (tests/core_llvm_xray.sh): THREADS threads each making CALLS calls of the shape
 *   f1 { f2 {} f3(arg) { custom event } typed event }
 * usage: core_writer OUTPUT THREADS CALLS [extra options]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "flightrec.h"

static long calls;

static void *worker(void *arg)
{
    (void)arg;
    for (long i = 0; i < calls; i++) {
        fr_log_enter(1);
        fr_log_enter(2);
        fr_log_exit(2);
        fr_log_enter_arg(3, (uint64_t)i);
        fr_log_custom_event("custom", 6);
        fr_log_exit(3);
        fr_log_typed_event(7, "typed!", 6);
        fr_log_exit(1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s OUTPUT THREADS CALLS [options]\n", argv[0]);
        return 2;
    }
    char opts[4096];
    snprintf(opts, sizeof opts, "output=%s %s", argv[1], argc > 4 ? argv[4] : "");
    if (fr_init(opts) != FR_OK)
        return 1;
    int threads = atoi(argv[2]);
    calls = atol(argv[3]);
    pthread_t t[64];
    for (int i = 0; i < threads && i < 64; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    worker(NULL);
    for (int i = 0; i < threads && i < 64; i++)
        pthread_join(t[i], NULL);
    return 0; /* flushed at exit */
}
