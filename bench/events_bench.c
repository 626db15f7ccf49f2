/*
 * events_bench.c - cost of structured events, ns per event, against the floor measured in
 * the same run: one rdtsc plus a 16-byte thread-local store (the least a timestamped
 * record can cost on this machine).
 *
 *   disabled   FR_EVENT whose call site is off (registered, no sink wants it):
 *              one load and one branch; target < 1 ns
 *   typed      the core's fr_log_typed_event with a payload of the same size, for
 *              comparison: what the recorder itself costs
 *   enabled    FR_EVENT with two integer fields and a short string, into the flight
 *              recorder (a compact entry of an FR_TE_EVENT_RUN: site id, time delta,
 *              the values; the site's metadata is in the file once); target < 2x floor
 *
 * usage: events_bench [iterations]   (best of 5 rounds each)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(bench_on, "BenchOn");
FR_PROVIDER_DEFINE(bench_off, "BenchOff");

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct slot { uint64_t tsc, value; };
static __thread struct slot ring[1024];
static __thread unsigned ring_pos;

__attribute__((noinline)) static void floor_loop(long n)
{
    for (long i = 0; i < n; i++) {
        struct slot *s = &ring[ring_pos++ & 1023];
        s->tsc = rdtsc();
        s->value = (uint64_t)i;
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void empty_loop(long n)
{
    for (long i = 0; i < n; i++)
        __asm__ volatile("" ::: "memory");
}

/* The core's own cost for a typed event of the same size (62 bytes of payload). */
__attribute__((noinline)) static void typed_loop(long n)
{
    static const uint8_t payload[62];
    for (long i = 0; i < n; i++)
        fr_log_typed_event(0x1234, payload, sizeof payload);
}

__attribute__((noinline)) static void disabled_loop(long n)
{
    for (long i = 0; i < n; i++) {
        FR_EVENT(bench_off, "Off", FR_U32("a", (uint32_t)i), FR_U64("b", (uint64_t)i * 3),
                 FR_STR("s", "short"));
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void enabled_loop(long n)
{
    for (long i = 0; i < n; i++) {
        FR_EVENT(bench_on, "On", FR_U32("a", (uint32_t)i), FR_U64("b", (uint64_t)i * 3),
                 FR_STR("s", "short"));
    }
}

static double best_ns_per_call(void (*loop)(long), long n)
{
    double best = 1e30;
    loop(n / 10);   /* warm up: pages, caches, branch predictors */
    for (int round = 0; round < 5; round++) {
        double t0 = now_ns();
        loop(n);
        double ns = (now_ns() - t0) / (double)n;
        if (ns < best)
            best = ns;
    }
    return best;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    /* Overwrite mode: the ring never fills, every event is recorded. */
    if (fr_init("output=/dev/null policy=overwrite buffer_size=1048576 buffers=8 "
                "events=BenchOn:5") != FR_OK) {
        fprintf(stderr, "fr_init failed\n");
        return 1;
    }
    FR_PROVIDER_REGISTER(bench_on);
    FR_PROVIDER_REGISTER(bench_off);

    double floor_ns = best_ns_per_call(floor_loop, n);
    double loop_ns = best_ns_per_call(empty_loop, n * 20);
    double disabled_ns = best_ns_per_call(disabled_loop, n * 20);
    double typed_ns = best_ns_per_call(typed_loop, n);
    double enabled_ns = best_ns_per_call(enabled_loop, n);
    fr_stats st;
    fr_finalize();
    fr_get_stats(&st);

    printf("floor (rdtsc + 16-byte TLS store): %6.2f ns\n", floor_ns);
    printf("disabled event:                    %6.2f ns   (%.2f ns net of the %.2f ns loop; "
           "target < 1 ns)\n", disabled_ns, disabled_ns - loop_ns, loop_ns);
    printf("core typed event, 62-byte payload: %6.2f ns   = %.2fx floor (the recorder's part)\n",
           typed_ns, typed_ns / floor_ns);
    printf("enabled event -> flight recorder:  %6.2f ns   = %.2fx floor (target < 2x)\n",
           enabled_ns, enabled_ns / floor_ns);
    printf("records written %llu, dropped %llu\n", (unsigned long long)st.records_written,
           (unsigned long long)st.records_dropped);
    return 0;
}
