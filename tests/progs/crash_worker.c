/*
 * crash_worker.c - the worker thread of the crash test programs (crash_worker.h).
 * Built with their XRay flags: worker_step() and the thread's function are traced.
 */
#include <pthread.h>
#include <unistd.h>

#include "crash_worker.h"

volatile int crash_sink;
static int ready[2];

__attribute__((noinline)) void worker_step(int i) { crash_sink += i; }

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < CRASH_WORKER_CALLS; i++)
        worker_step(i);
    char c = 1;
    (void)!write(ready[1], &c, 1);
    for (;;)
        pause();
    return NULL;
}

/* Not traced: main's records are the program's own steps only (the tests count them). */
__attribute__((xray_never_instrument)) int crash_worker_start(void)
{
    if (pipe(ready))
        return -1;
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL))
        return -1;
    char c;
    return read(ready[0], &c, 1) == 1 ? 0 : -1;
}
