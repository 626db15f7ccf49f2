/*
 * functrace_bench.c - cost of tracing a tiny function, one source built several ways
 * (bench/functrace.cmake):
 *   FT_MODE_XRAY_API   clang -fxray-instrument, the XRay API: linked with libflightrec
 *                      (flightrec) or with compiler-rt's XRay runtime (compiler-rt FDR).
 *                      Init: __xray_log_init_mode("xray-fdr", "buffer_size=..:buffer_max=..")
 *                      threshold 0, then __xray_patch() (unless "unpatched").
 *   FT_MODE_PLAIN      no instrumentation; "plain" calls, or "baseline-fresh": each call
 *                      framed by two rdtsc and two 8-byte stores into a pre-faulted
 *                      buffer that holds the whole run (what "patched" costs in memory
 *                      alone: on this VM the first write to fresh memory is slow).
 *   "patched" pre-faults what init mapped in both runtimes (like for like);
 *   "patched-cold" does not (compiler-rt's buffers then fault in the timed loop).
 * Two variants compare two loops in one process, alternating them round by round (min
 * of FT_ROUNDS rounds each), so that both see the same machine:
 *   "floor" (flightrec): the traced call (sleds patched, a small pool reused in a circle)
 *            against its floor: the same function built without sleds, framed by two
 *            rdtsc and two 16-byte stores into a per-thread ring of the same size as
 *            the pool's share of the thread (cache-resident like it). Prints both.
 *   "unpatched" (flightrec, nothing initialised): the function with its sleds as the
 *            compiler left them against the same function built without sleds.
 * usage: functrace_bench VARIANT THREADS [CALLS]   prints "VARIANT THREADS ns_per_call"
 * ("VARIANT THREADS ns ns_of_the_peer" for the two above).
 * ns per call = CPU time of a calling thread's loop (CLOCK_THREAD_CPUTIME_ID: user +
 * system, so page faults count, time spent waiting for a CPU on a loaded machine does
 * not) / calls per thread, averaged over the threads, which run at the same time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef FT_MODE_XRAY_API
/* Like for like: both runtimes' buffers are faulted in before the clock starts. flightrec's
 * init pre-faults its pool; compiler-rt's maps its buffers and leaves them untouched, so
 * the anonymous writable mappings init created are touched here, page by page (read and
 * write back the same byte: nothing changes but the page tables). */
struct region { unsigned long start, end; };

static struct region *anon_regions(size_t *n)
{
    struct region *r = NULL;
    size_t cap = 0;
    *n = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return NULL;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char perms[8];
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &a, &b, perms, &path_at) < 3)
            continue;
        if (perms[0] != 'r' || perms[1] != 'w' || (path_at && line[path_at] && line[path_at] != '\n'))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            r = realloc(r, cap * sizeof *r);
        }
        r[(*n)++] = (struct region){a, b};
    }
    fclose(f);
    return r;
}

static void prefault_new_regions(const struct region *before, size_t nbefore)
{
    size_t n;
    struct region *now = anon_regions(&n);
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < n; i++) {
        int old = 0;
        for (size_t k = 0; k < nbefore && !old; k++)
            old = before[k].start == now[i].start && before[k].end == now[i].end;
        if (old)
            continue;
        for (unsigned long p = now[i].start; p < now[i].end; p += (unsigned long)page) {
            volatile char *c = (volatile char *)p;
            *c = *c;
        }
    }
    free(now);
}
#ifdef FT_COMPILER_RT
#include <stddef.h>
/* compiler-rt's headers are C++; the few declarations this benchmark needs: */
enum XRayPatchingStatus { NOT_INITIALIZED = 0, SUCCESS = 1, ONGOING = 2, FAILED = 3 };
enum XRayLogInitStatus { XRAY_LOG_UNINITIALIZED = 0, XRAY_LOG_INITIALIZED = 2, XRAY_LOG_FINALIZED = 4 };
enum XRayLogInitStatus __xray_log_init_mode(const char *Mode, const char *Config);
int __xray_log_select_mode(const char *Mode);
enum XRayLogInitStatus __xray_log_finalize(void);
enum XRayPatchingStatus __xray_patch(void);
#else
#include <flightrec/xray.h>
#include "flightrec.h"
#endif
#endif

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((noinline, xray_never_instrument))

/* The traced function: tiny, never inlined, always instrumented; and its twin built
 * without sleds, for the variants that compare the two in one process. */
__attribute__((noinline, xray_always_instrument)) int tiny(int x)
{
    __asm__ volatile("");
    return x + 1;
}

__attribute__((noinline, xray_never_instrument)) int tiny_plain(int x)
{
    __asm__ volatile("");
    return x + 1;
}

static long calls = 10000000;
static int baseline;   /* 2 fresh memory */
static int paired;     /* 1 "floor", 2 "unpatched": two loops alternated in one process */
static pthread_barrier_t start;

#define FT_ROUNDS 7
/* The floor's ring: 16-byte records (a timestamp and a word), 256 KiB per thread, the
 * share of the "floor" variant's pool (4 buffers of 64 KiB per thread). */
#define FLOOR_RING 16384
struct floor_rec { uint64_t tsc, what; };
static __thread struct floor_rec floor_ring[FLOOR_RING] __attribute__((tls_model("initial-exec")));

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

/* The floor of a traced call: the function without sleds, an rdtsc and a 16-byte store
 * into the thread's ring before and after it. */
NEVER static int loop_floor(long n)
{
    int x = 0;
    unsigned i = 0;
    for (long k = 0; k < n; k++) {
        struct floor_rec *a = &floor_ring[i++ & (FLOOR_RING - 1)];
        a->tsc = rdtsc();
        a->what = 1;
        __asm__ volatile("" ::: "memory");
        x = tiny_plain(x);
        struct floor_rec *b = &floor_ring[i++ & (FLOOR_RING - 1)];
        b->tsc = rdtsc();
        b->what = 2;
        __asm__ volatile("" ::: "memory");
    }
    return x;
}

NEVER static int loop_untraced(long n)
{
    int x = 0;
    for (long k = 0; k < n; k++)
        x = tiny_plain(x);
    return x;
}

NEVER static int loop_baseline_fresh(uint64_t *buf, long n)
{
    int x = 0;
    for (long k = 0; k < n; k++) {
        buf[2 * k] = rdtsc() << 8 | 1;
        x = tiny(x);
        buf[2 * k + 1] = rdtsc() << 8 | 2;
    }
    return x;
}

NEVER static int loop_plain(long n)
{
    int x = 0;
    for (long k = 0; k < n; k++)
        x = tiny(x);
    return x;
}

static int sink;

NEVER static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_seconds[64], peer_seconds[64];

/* Min over FT_ROUNDS rounds of CALLS / FT_ROUNDS calls of LOOP and of PEER, the two
 * alternated (and which goes first alternated too): seconds per round of each. */
NEVER static void paired_rounds(int (*loop)(long), int (*peer)(long), double *best,
                                double *best_peer)
{
    long n = calls / FT_ROUNDS > 0 ? calls / FT_ROUNDS : 1;
    int r = loop(n / 4) + peer(n / 4);   /* warm: registers the thread, caches */
    *best = *best_peer = 1e30;
    for (int k = 0; k < FT_ROUNDS; k++)
        for (int j = 0; j < 2; j++) {
            int first = (j == 0) == (k % 2 == 0);
            double t0 = cpu_now();
            r += first ? loop(n) : peer(n);
            double s = cpu_now() - t0;
            double *b = first ? best : best_peer;
            if (s < *b)
                *b = s;
        }
    __atomic_fetch_add(&sink, r, __ATOMIC_RELAXED);
    *best *= (double)calls / (double)n;   /* scaled to CALLS, as the other variants */
    *best_peer *= (double)calls / (double)n;
}

NEVER static void *worker(void *arg)
{
    long index = (long)arg;
    uint64_t *fresh = NULL;
    if (baseline == 2) {   /* pre-faulted before the clock starts, as the recorder's pool */
        fresh = mmap(NULL, (size_t)calls * 16, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_NORESERVE, -1, 0);
        if (fresh == MAP_FAILED)
            abort();
    }
    pthread_barrier_wait(&start);
    if (paired) {
        paired_rounds(loop_plain, paired == 1 ? loop_floor : loop_untraced,
                      &cpu_seconds[index], &peer_seconds[index]);
        return NULL;
    }
    double t0 = cpu_now();
    int r = baseline == 2 ? loop_baseline_fresh(fresh, calls) : loop_plain(calls);
    cpu_seconds[index] = cpu_now() - t0;
    __atomic_fetch_add(&sink, r, __ATOMIC_RELAXED);
    return NULL;
}

NEVER int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s VARIANT THREADS [CALLS]\n", argv[0]);
        return 2;
    }
    const char *variant = argv[1];
    int threads = atoi(argv[2]);
    if (argc > 3)
        calls = atol(argv[3]);
    if (threads < 1 || threads > 64 || calls < 1)
        return 2;
    baseline = !strcmp(variant, "baseline-fresh") ? 2 : 0;
#ifdef FT_MODE_XRAY_API
    paired = !strcmp(variant, "floor") ? 1 : !strcmp(variant, "unpatched") ? 2 : 0;
#endif
#ifdef FT_MODE_XRAY_API
    /* "patched-cold": as "patched" but what init mapped is not touched before the clock
     * starts, so compiler-rt's buffers (mmap'ed at init, never touched) fault in inside
     * the timed loop while flightrec's pool was pre-faulted by its init: not like for
     * like, kept as an extra row to show what faulting costs. */
    const char *label = variant;
    int cold = !strcmp(variant, "patched-cold");
    if (cold)
        variant = "patched";
    size_t nbefore = 0;
    struct region *before = cold ? NULL : anon_regions(&nbefore);
    if (!strcmp(variant, "floor")) {
#ifdef FT_COMPILER_RT
        fprintf(stderr, "floor: flightrec only\n");
        return 2;
#else
        /* flightrec's own start (patches every sled): a small pool reused in a circle
         * (policy overwrite), cache-resident like the floor's ring. (XRay's FDR mode
         * would drop once its buffers are used, as compiler-rt's does.) */
        char opts[160];
        snprintf(opts, sizeof opts, "policy=overwrite buffer_size=64k buffers=%d "
                 "output=/dev/null", 4 * threads);
        if (fr_init(opts) != FR_OK) {
            fprintf(stderr, "floor: fr_init failed\n");
            return 1;
        }
#endif
    } else if (strcmp(variant, "unpatched")) {
        /* "patched": room for every record of the run, in both runtimes, so nothing is
         * dropped and compiler-rt never runs out of buffers (both then also pay for
         * touching fresh memory). */
        char config[256];
        long records = 2 * calls * threads + 4096;
        long buffers = records * 8 / (1 << 20) + 2 * threads + 8;
        snprintf(config, sizeof config, "buffer_size=1048576:buffer_max=%ld:"
                 "func_duration_threshold_us=0:no_file_flush=true", buffers);
        /* compiler-rt 14 fails init_mode unless the mode was selected first */
        __xray_log_select_mode("xray-fdr");
        if (__xray_log_init_mode("xray-fdr", config) != XRAY_LOG_INITIALIZED ||
            __xray_patch() != SUCCESS) {
            fprintf(stderr, "%s: cannot initialise XRay FDR\n", variant);
            return 1;
        }
    }
    if (!cold)
        prefault_new_regions(before, nbefore);
    free(before);
#endif
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    pthread_t t[64];
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    pthread_barrier_wait(&start);
    double total = 0, total_peer = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total += cpu_seconds[i];
        total_peer += peer_seconds[i];
    }
#ifdef FT_MODE_XRAY_API
#ifndef FT_COMPILER_RT
    if (!strcmp(variant, "floor"))
        fr_finalize();
    else
#endif
    if (strcmp(variant, "unpatched"))
        __xray_log_finalize();
#endif
#ifdef FT_MODE_XRAY_API
    variant = label;
#endif
    if (paired)
        printf("%s %d %.2f %.2f\n", variant, threads, total / threads * 1e9 / (double)calls,
               total_peer / threads * 1e9 / (double)calls);
    else
        printf("%s %d %.2f\n", variant, threads, total / threads * 1e9 / (double)calls);
    return 0;
}
