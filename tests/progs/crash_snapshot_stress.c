/*
 * crash_snapshot_stress.c - snapshots taken while two threads record as fast as they
 * can into a tiny pool (overwrite policy), so that buffers are recycled while a snapshot
 * reads them (tests/crash_snapshot.sh checks every file). Writes stress-1.fr ...
 * stress-20.fr with fr_snapshot, then exits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include "flightrec.h"

static volatile unsigned sink;
static volatile int stop;

__attribute__((noinline)) void spin(int i) { sink += (unsigned)i; }

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; !stop; i++)
        spin(i);
    return NULL;
}

int main(void)
{
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    struct timespec ts = { 0, 2 * 1000 * 1000 };
    int failed = 0;
    for (int n = 0; n < 20; n++) {
        nanosleep(&ts, NULL);
        failed |= fr_snapshot("stress-%n.fr") != FR_OK;
    }
    stop = 1;
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    return failed;
}
