/*
 * pool_kill_prog.c - records without end until killed, for pool_kill.py (issue 21: every
 * record made is recovered or counted after a SIGKILL at any moment).
 * usage: pool_kill_prog THREADS PROGRESS   (FLIGHTREC_OPTIONS with start=1 and backing=)
 * Thread i (from 1) writes enter-with-argument records of function i whose arguments
 * are 1, 2, 3, ..., and after each stores its count into slot i of the file PROGRESS
 * (64 little-endian u64, mapped shared: it outlives the kill), so that the records a
 * thread made are known to be that count or one more (killed between the two). Prints
 * "ready" once every thread has recorded, then waits to be killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "flightrec.h"

static pthread_barrier_t started;
static volatile uint64_t *progress;

static void *recorder(void *arg)
{
    uint32_t fn = (uint32_t)(uintptr_t)arg;
    fr_log_enter_arg(fn, 1);
    __atomic_store_n(&progress[fn], 1, __ATOMIC_RELAXED);
    pthread_barrier_wait(&started);
    for (uint64_t k = 2;; k++) {
        fr_log_enter_arg(fn, k);
        __atomic_store_n(&progress[fn], k, __ATOMIC_RELAXED);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[1]) : 0;
    if (n < 1 || n > 63)
        return 2;
    int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, 64 * 8) != 0)
        return 1;
    progress = mmap(NULL, 64 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (progress == MAP_FAILED)
        return 1;
    pthread_barrier_init(&started, NULL, (unsigned)n + 1);
    for (int i = 1; i <= n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, recorder, (void *)(uintptr_t)i) != 0)
            return 1;
    }
    pthread_barrier_wait(&started);
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
