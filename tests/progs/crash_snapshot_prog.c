/*
 * crash_snapshot_prog.c - a traced program that keeps recording while snapshots are
 * taken (tests/crash_snapshot.sh). Two threads call traced functions until the file
 * "stop" appears in the working directory; the pid goes to "pid.txt" once main has made
 * READY_CALLS calls, so that the first snapshot, taken as soon as the pid is there, has
 * records to hold however slowly the program runs (a loaded machine, an emulator). At
 * the end, fr_snapshot("api-%n.fr") takes one more snapshot through the API.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "flightrec.h"

static volatile unsigned sink;
static volatile int stop;

__attribute__((noinline)) void tick(int i) { sink += (unsigned)i; }
__attribute__((noinline)) void work(int i) { sink ^= (unsigned)i; }

static void pace(void)
{
    struct timespec ts = { 0, 100 * 1000 };
    nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; !stop; i++) {
        work(i);
        if (i % 200 == 0)
            pace();
    }
    return NULL;
}

#define READY_CALLS 200

static int write_pid(void)
{
    FILE *f = fopen("pid.txt.tmp", "w");
    if (!f)
        return -1;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    return rename("pid.txt.tmp", "pid.txt");
}

int main(void)
{
    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    for (int i = 0;; i++) {
        tick(i);
        if (i == READY_CALLS && write_pid() != 0)
            return 2;
        if (i % 200 == 0) {
            pace();
            if (access("stop", F_OK) == 0)
                break;
        }
    }
    stop = 1;
    pthread_join(th, NULL);
    for (int i = 0; i < 10; i++)
        tick(-1);   /* after the last signal's snapshot: in api-11.fr and the final trace */
    return fr_snapshot("api-%n.fr") == FR_OK ? 0 : 1;
}
