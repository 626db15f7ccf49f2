/*
 * core_slots_test.c - thread slots are taken round-robin, even when threads claim them
 * at the same time: a slot whose thread has exited (and no buffer names) is taken again
 * only after every other slot was looked at (FR_MAX_THREADS claims). Before, each claim
 * started at a shared start that the claimer stored after its take, so two claimers
 * could move it backwards and the next claim took the slot of a thread that had just
 * exited: that thread's own line in the file was gone (crash_stream in CI).
 *
 * Threads claim a slot and retire it at once, as fast as they can; fewer claims than
 * FR_MAX_THREADS in all, so no slot may come twice. ROUNDS rounds, each on a new pool:
 * the old code failed one round in three on a 2-core machine.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "buffer_pool.h"
#include "options.h"

enum { THREADS = 4, CLAIMS = FR_MAX_THREADS / THREADS - 16, ROUNDS = 20 };

static int32_t taken[THREADS][CLAIMS];
static pthread_barrier_t go;

static void *claimer(void *arg)
{
    int32_t *mine = arg;
    pthread_barrier_wait(&go);
    for (int i = 0; i < CLAIMS; i++) {
        int s = fr_pool_claim_slot(gettid(), 0);
        mine[i] = s;
        if (s >= 0)
            fr_pool_retire_slot((uint32_t)s);   /* exited, no buffer: takeable again */
    }
    return NULL;
}

static int one_round(void)
{
    struct fr_options o;
    fr_options_defaults(&o);
    o.buffers = 16;
    if (fr_pool_create(&o) != 0) {
        fprintf(stderr, "fr_pool_create failed\n");
        return 1;
    }
    pthread_barrier_init(&go, NULL, THREADS);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, claimer, taken[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    static uint8_t seen[FR_MAX_THREADS];
    memset(seen, 0, sizeof seen);
    int twice = 0, failed = 0;
    for (int i = 0; i < THREADS; i++)
        for (int k = 0; k < CLAIMS; k++) {
            int32_t s = taken[i][k];
            if (s < 0 || s >= FR_MAX_THREADS)
                failed++;
            else if (seen[s]++)
                twice++;
        }
    fr_pool_destroy();
    if (twice || failed)
        printf("%d claims: %d slots taken twice, %d claims failed\n", THREADS * CLAIMS, twice, failed);
    return twice || failed;
}

int main(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++)
        bad += one_round();
    printf("%d rounds of %d claims by %d threads: %d with a slot taken twice or a claim failed\n",
           ROUNDS, THREADS * CLAIMS, THREADS, bad);
    return bad ? 1 : 0;
}
