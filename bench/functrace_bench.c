/*
 * functrace_bench.c - cost of tracing a tiny function, one source built several ways
 * (bench/functrace.cmake):
 *   FT_MODE_XRAY_API   clang -fxray-instrument, the XRay API: linked with libflightrec
 *                      (flightrec) or with compiler-rt's XRay runtime (compiler-rt FDR).
 *                      Init: __xray_log_init_mode("xray-fdr", "buffer_size=..:buffer_max=..")
 *                      threshold 0, then __xray_patch() (unless "unpatched"); variant
 *                      "ring": flightrec with a small pool reused in a circle.
 *   FT_MODE_PLAIN      no instrumentation; "plain" calls, or "baseline": each call
 *                      framed by what a minimal recorder must do: two rdtsc and two
 *                      8-byte stores into a thread-local ring (cache-resident);
 *                      "baseline-fresh": the same into a pre-faulted buffer that holds
 *                      the whole run (what "patched" costs in memory alone: on this VM
 *                      the first write to fresh memory is slow even when pre-faulted).
 *   "patched" pre-faults what init mapped in both runtimes (like for like);
 *   "patched-cold" does not (compiler-rt's buffers then fault in the timed loop).
 * usage: functrace_bench VARIANT THREADS [CALLS]   prints "VARIANT THREADS ns_per_call".
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
#endif
#endif

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((noinline, xray_never_instrument))

/* The traced function: tiny, never inlined, always instrumented. */
__attribute__((noinline, xray_always_instrument)) int tiny(int x)
{
    __asm__ volatile("");
    return x + 1;
}

static long calls = 10000000;
static int baseline;   /* 1 ring, 2 fresh memory */
static pthread_barrier_t start;

/* The peer "minimal recorder": rdtsc + 8-byte store before and after the call. */
static __thread uint64_t ring[8192] __attribute__((tls_model("initial-exec")));

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

NEVER static int loop_baseline(long n)
{
    int x = 0;
    unsigned i = 0;
    for (long k = 0; k < n; k++) {
        ring[i++ & 8191] = rdtsc() << 8 | 1;
        x = tiny(x);
        ring[i++ & 8191] = rdtsc() << 8 | 2;
    }
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

static double cpu_seconds[64];

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
    double t0 = cpu_now();
    int r = baseline == 2 ? loop_baseline_fresh(fresh, calls)
          : baseline ? loop_baseline(calls) : loop_plain(calls);
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
    baseline = !strcmp(variant, "baseline") ? 1 : !strcmp(variant, "baseline-fresh") ? 2 : 0;
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
    if (strcmp(variant, "unpatched")) {
        /* "patched": room for every record of the run, in both runtimes, so nothing is
         * dropped and compiler-rt never runs out of buffers (both then also pay for
         * touching fresh memory). "ring" (flightrec only, policy overwrite): a small
         * pool reused in a circle, cache-resident like the baseline's ring. */
        char config[256];
        long records = 2 * calls * threads + 4096;
        long buffers = records * 8 / (1 << 20) + 2 * threads + 8;
        if (!strcmp(variant, "ring"))
            snprintf(config, sizeof config, "buffer_size=65536:buffer_max=%d:"
                     "func_duration_threshold_us=0:no_file_flush=true", 4 * threads);
        else
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
    double total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total += cpu_seconds[i];
    }
#ifdef FT_MODE_XRAY_API
    if (strcmp(variant, "unpatched"))
        __xray_log_finalize();
#endif
#ifdef FT_MODE_XRAY_API
    variant = label;
#endif
    printf("%s %d %.2f\n", variant, threads, total / threads * 1e9 / (double)calls);
    return 0;
}
