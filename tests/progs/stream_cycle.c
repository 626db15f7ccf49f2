/*
 * stream_cycle.c - stream=1 across the lifecycle calls (tests/crash_stream.sh): three
 * sessions in one process, each streaming to its own file in DIR:
 *   s1.fr: fr_finalize + fr_flush (twice: the second must leave the file alone);
 *   s2.fr: fr_finalize + fr_reset without a flush (the reset writes the end);
 *   s3.fr: two threads record and end (their tids printed: "tids TID TID"), then a
 *          snapshot to snap.fr while a third thread records, then the exit writes the
 *          end: the snapshot must hold every record of the first two (a pool that
 *          holds every record of the session: none dropped, the writer streams them).
 * Two threads record in each session. Prints "s1 N", "s2 N", "s3 N": records made.
 * usage: stream_cycle DIR
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifndef __has_feature
#define __has_feature(x) 0
#endif
#include "flightrec.h"

#define PAIRS 30000
#define SMALL "buffers=16 buffer_size=4k"

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < PAIRS; i++) {
        fr_log_enter(1);
        fr_log_exit(1);
    }
    return NULL;
}

static int stop_background;
static long background_made;

/* Records until told to stop: the snapshot is taken while it runs. */
static void *background(void *arg)
{
    (void)arg;
    long n = 0;
    while (!__atomic_load_n(&stop_background, __ATOMIC_ACQUIRE)) {
        fr_log_enter(2);
        fr_log_exit(2);
        n += 2;
    }
    background_made = n;
    return NULL;
}

static void *worker_tid(void *arg)
{
    *(pid_t *)arg = gettid();
    return worker(NULL);
}

static long record_on_two_threads(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    worker(NULL);
    pthread_join(t, NULL);
    return 4L * PAIRS;
}

static void start(const char *dir, const char *name, const char *pool)
{
    char opts[4200];
    snprintf(opts, sizeof opts, "stream=1 policy=discard %s output=%s/%s", pool, dir, name);
    fr_status s = fr_init(opts);
    if (s != FR_OK) {
        fprintf(stderr, "stream_cycle: fr_init(%s): %s\n", opts, fr_status_string(s));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    const char *dir = argv[1];

    start(dir, "s1.fr", SMALL);
    printf("s1 %ld\n", record_on_two_threads());
    if (fr_finalize() != FR_OK || fr_flush() != FR_OK || fr_flush() != FR_OK)
        return 3;

    start(dir, "s2.fr", SMALL);
    printf("s2 %ld\n", record_on_two_threads());
    if (fr_finalize() != FR_OK || fr_reset() != FR_OK)
        return 4;

    start(dir, "s3.fr", "buffers=64 buffer_size=64k");   /* holds all: no drop */
    pthread_t a, b, c;
    pid_t ta = 0, tb = 0;
    pthread_create(&a, NULL, worker_tid, &ta);
    pthread_create(&b, NULL, worker_tid, &tb);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    long n = 4L * PAIRS;
    printf("tids %d %d\n", (int)ta, (int)tb);
#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
    /* A snapshot's optimistic read of a recording thread's buffer is a race by design
     * (docs/BUFFERS.md, point 8): under TSan it is taken with no thread recording. */
    __atomic_store_n(&stop_background, 1, __ATOMIC_RELEASE);
#endif
    pthread_create(&c, NULL, background, NULL);
    struct timespec ms20 = { 0, 20 * 1000 * 1000 };
    nanosleep(&ms20, NULL);
    char snap[4200];
    snprintf(snap, sizeof snap, "%s/snap.fr", dir);
    if (fr_snapshot(snap) != FR_OK)
        return 5;
    __atomic_store_n(&stop_background, 1, __ATOMIC_RELEASE);
    pthread_join(c, NULL);
    n += background_made;
    printf("s3 %ld\n", n);
    return 0;   /* the exit writes the end of s3.fr */
}
