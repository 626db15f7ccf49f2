/*
 * stream_cycle.c - stream=1 across the lifecycle calls (tests/crash_stream.sh): three
 * sessions in one process, each streaming to its own file in DIR:
 *   s1.fr: fr_finalize + fr_flush (twice: the second must leave the file alone);
 *   s2.fr: fr_finalize + fr_reset without a flush (the reset writes the end);
 *   s3.fr: a snapshot to snap.fr while streaming, then the exit writes the end.
 * Two threads record in each session. Prints "s1 N", "s2 N", "s3 N": records made.
 * usage: stream_cycle DIR
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "flightrec.h"

#define PAIRS 30000

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < PAIRS; i++) {
        fr_log_enter(1);
        fr_log_exit(1);
    }
    return NULL;
}

static long record_on_two_threads(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    worker(NULL);
    pthread_join(t, NULL);
    return 4L * PAIRS;
}

static void start(const char *dir, const char *name)
{
    char opts[4200];
    snprintf(opts, sizeof opts, "stream=1 policy=discard buffers=16 buffer_size=4k output=%s/%s",
             dir, name);
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

    start(dir, "s1.fr");
    printf("s1 %ld\n", record_on_two_threads());
    if (fr_finalize() != FR_OK || fr_flush() != FR_OK || fr_flush() != FR_OK)
        return 3;

    start(dir, "s2.fr");
    printf("s2 %ld\n", record_on_two_threads());
    if (fr_finalize() != FR_OK || fr_reset() != FR_OK)
        return 4;

    start(dir, "s3.fr");
    long n = record_on_two_threads();
    char snap[4200];
    snprintf(snap, sizeof snap, "%s/snap.fr", dir);
    if (fr_snapshot(snap) != FR_OK)
        return 5;
    n += record_on_two_threads();
    printf("s3 %ld\n", n);
    return 0;   /* the exit writes the end of s3.fr */
}
