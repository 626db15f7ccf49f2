/*
 * events_threads.c - structured events from several threads while the main thread
 * registers and unregisters the provider and starts and stops the recorder: no crash,
 * no data race (run under TSan in CI), spans stay per thread, and the recorder got
 * events from every thread.   usage: events_threads OUTPUT
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(threads_prov, "EventsThreads");

#define THREADS 3
static int stop;   /* atomic: read by the emitters, set by main */

static void *emitter(void *arg)
{
    uint32_t me = (uint32_t)(uintptr_t)arg;
    uint8_t cur[16];
    for (uint32_t i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++) {
        fr_span s;
        FR_SPAN_START(threads_prov, &s, "Iteration", FR_U32("thread", me));
        FR_EVENT(threads_prov, "Work", FR_U32("thread", me), FR_U32("i", i), FR_STR("s", "abc"));
        FR_SPAN_STOP(threads_prov, &s, "Iteration");
        if (fr_activity_current(cur)) {   /* spans are per thread: none is left over */
            fprintf(stderr, "FAIL: thread %u has a current activity after its span\n", me);
            exit(1);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, emitter, (void *)i);
    char options[4200];
    snprintf(options, sizeof options, "output=%s policy=discard buffer_size=262144", argv[1]);
    for (int round = 0; round < 20; round++) {
        if (FR_PROVIDER_REGISTER(threads_prov))
            return 1;
        if (round % 2 == 0)
            fr_provider_unregister(&threads_prov);
    }
    FR_PROVIDER_REGISTER(threads_prov);
    if (fr_init(options) != FR_OK)
        return 1;
    for (int i = 0; i < 2000; i++)   /* let the emitters run a little */
        FR_EVENT(threads_prov, "Main", FR_U32("i", (uint32_t)i));
    fr_provider_unregister(&threads_prov);
    FR_PROVIDER_REGISTER(threads_prov);
    for (volatile int spin = 0; spin < 2000000; spin++)
        ;
    fr_finalize();
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    fr_flush();
    fr_stats st;
    fr_get_stats(&st);
    printf("threads %u, records %llu\n", st.threads, (unsigned long long)st.records_written);
    return st.records_written >= 2000 ? 0 : 1;
}
