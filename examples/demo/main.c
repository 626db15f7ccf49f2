/*
 * main.c - fr_demo: runs the interpreter on two threads, the compressor and the
 * sort-and-hash workload on one thread each, and prints a checksum per worker.
 * Run it under `flightrec record -- fr_demo` to trace it; without that it just runs.
 *   fr_demo [SCALE]   SCALE multiplies the rounds of every worker (default 1).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "demo.h"
#include "flightrec.h"

FR_PROVIDER_DEFINE(demo_events, "FlightrecDemo");

/* Weak so the demo still links and runs while the library lacks the lifecycle calls. */
#pragma weak fr_get_state

struct worker {
    const char *name;
    uint64_t (*run)(unsigned rounds);
    unsigned rounds;
    pthread_t thread;
    uint64_t result;
    double seconds;
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    pthread_setname_np(pthread_self(), w->name);
    double start = now_seconds();
    fr_span span;
    FR_SPAN_START(demo_events, &span, "Worker", FR_LEVEL(4), FR_STR("name", w->name),
                  FR_U32("rounds", w->rounds));
    w->result = w->run(w->rounds);
    w->seconds = now_seconds() - start;
    FR_SPAN_STOP(demo_events, &span, "Worker", FR_LEVEL(4), FR_U64("checksum", w->result),
                 FR_DOUBLE("seconds", w->seconds));
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned scale = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
    if (scale == 0)
        scale = 1;
    FR_PROVIDER_REGISTER(demo_events);
    struct worker workers[] = {
        {"interp-1", interp_workload, 6 * scale, 0, 0, 0},
        {"interp-2", interp_workload, 6 * scale, 0, 0, 0},
        {"compress", lz_workload, 24 * scale, 0, 0, 0},
        {"sort-hash", sorthash_workload, 8 * scale, 0, 0, 0},
    };
    size_t n = sizeof workers / sizeof workers[0];
    for (size_t i = 0; i < n; i++)
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) {
            perror("fr_demo: pthread_create");
            return 1;
        }
    for (size_t i = 0; i < n; i++) {
        pthread_join(workers[i].thread, NULL);
        printf("%-10s %3u rounds %7.3f s  checksum %llu\n", workers[i].name, workers[i].rounds,
               workers[i].seconds, (unsigned long long)workers[i].result);
    }
    /* Says whether this run was traced (and referencing the library keeps it linked). */
    if (fr_get_state && fr_get_state() == FR_STATE_INITIALIZED)
        printf("fr_demo: tracing on: the trace is written when the program exits\n");
    else
        printf("fr_demo: tracing off (trace it with: flightrec record -- fr_demo)\n");
    return 0;
}
