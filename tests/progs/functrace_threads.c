/*
 * functrace_threads.c - patch and unpatch while other threads run the patched code, then
 * count exactly. Built with clang -fxray-instrument -fnoxray-link-deps; run under TSan
 * too (label concurrency). Exit status 0 when every check passes.
 */
#include <flightrec/xray.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument, noinline))

enum { THREADS = 4, CALLS = 20000, TOGGLES = 200, MAXID = 64 };
static unsigned long counts[MAXID][3];
static int phase;               /* 0: toggling, 1: counted run */
static pthread_barrier_t ready, go;
static long sink;

NEVER static void handler(int32_t id, XRayEntryType kind)
{
    if (id > 0 && id < MAXID && kind <= TAIL)
        __atomic_fetch_add(&counts[id][kind], 1, __ATOMIC_RELAXED);
}

NOINLINE long leaf(long x) { __asm__ volatile(""); return x * 7 + 1; }
NOINLINE double leaf_fp(double x) { __asm__ volatile(""); return x * 0.5; }
NOINLINE long middle(long x) { long r = leaf(x); __asm__ volatile("" : "+r"(r)); return r + (long)leaf_fp((double)x); }

NEVER static void *worker(void *arg)
{
    (void)arg;
    long acc = 0;
    while (!__atomic_load_n(&phase, __ATOMIC_ACQUIRE)) {
        acc += middle(acc & 1023);
        if (leaf_fp(4.0) != 2.0)
            abort();   /* a torn patch would corrupt values or crash */
    }
    /* A frame entered while patched and left while unpatched stays open on the runtime's
       shadow stack; the next entry at the same stack slot closes it with an exit (every
       entry a handler sees gets an exit: docs/FUNCTRACE.md). One call of each traced
       function from the same frames, now that everything is patched, closes those before
       main resets the counts, so the counted run below sees only its own calls. */
    acc += middle(acc & 1023);
    if (leaf_fp(4.0) != 2.0)
        abort();
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&go);
    for (int i = 0; i < CALLS; i++)
        acc += middle(i);
    __atomic_fetch_add(&sink, acc, __ATOMIC_RELAXED);
    return NULL;
}

NEVER static int32_t id_of(void *fn)
{
    for (size_t id = 1; id <= __xray_max_function_id(); id++)
        if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
            return (int32_t)id;
    return -1;
}

NEVER int main(void)
{
    int32_t id_leaf = id_of((void *)leaf), id_mid = id_of((void *)middle);
    if (id_leaf <= 0 || id_mid <= 0 || id_leaf >= MAXID || id_mid >= MAXID) {
        fprintf(stderr, "FAIL: ids %d %d\n", id_leaf, id_mid);
        return 1;
    }
    __xray_set_handler(handler);
    pthread_barrier_init(&ready, NULL, THREADS + 1);
    pthread_barrier_init(&go, NULL, THREADS + 1);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    int failed = 0;
    for (int i = 0; i < TOGGLES; i++) {
        XRayPatchingStatus a = (i & 1) ? __xray_unpatch() : __xray_patch();
        XRayPatchingStatus b = (i & 2) ? __xray_unpatch_function(id_leaf)
                                       : __xray_patch_function(id_leaf);
        if (a != SUCCESS || b != SUCCESS)
            failed++;
    }
    if (__xray_patch() != SUCCESS)
        failed++;
    __atomic_store_n(&phase, 1, __ATOMIC_RELEASE);
    pthread_barrier_wait(&ready);
    for (int i = 0; i < MAXID; i++)
        for (int k = 0; k < 3; k++)
            __atomic_store_n(&counts[i][k], 0, __ATOMIC_RELAXED);
    pthread_barrier_wait(&go);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    __xray_unpatch();
    unsigned long want = (unsigned long)THREADS * CALLS;
    if (counts[id_mid][ENTRY] != want || counts[id_mid][EXIT] != want ||
        counts[id_leaf][ENTRY] != want || counts[id_leaf][EXIT] != want) {
        fprintf(stderr, "FAIL: middle %lu/%lu leaf %lu/%lu, want %lu\n", counts[id_mid][ENTRY],
                counts[id_mid][EXIT], counts[id_leaf][ENTRY], counts[id_leaf][EXIT], want);
        failed++;
    }
    if (failed)
        fprintf(stderr, "FAIL: %d\n", failed);
    else
        printf("functrace_threads: %d toggles under %d threads, exact counts after\n", TOGGLES,
               THREADS);
    return failed != 0;
}
