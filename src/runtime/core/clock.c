/*
 * clock.c - choosing and calibrating the recorder's clock.
 *
 * Where the architecture publishes the counter's frequency (aarch64's cntfrq_el0,
 * fr_arch_counter_hz) it is taken as it is. The x86-64 TSC frequency is not exposed in
 * sysfs on the machines we target, so it is measured against CLOCK_MONOTONIC: two (tsc, monotonic) pairs ~10 ms apart, each pair taken as the
 * tightest of a few tries (the one with the shortest rdtsc..rdtsc bracket). Done once per
 * process; re-inits reuse the value.
 */
#define _GNU_SOURCE
#include "core/clock.h"
#include "fr_format.h"

int fr_clock_use_tsc = 1;
struct fr_clock fr_clock;

static uint64_t calibrated_hz;

/* A (tsc, monotonic ns) pair whose tsc is the midpoint of the tightest bracket. */
static void paired_reading(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        uint64_t a = fr_arch_rdtsc();
        uint64_t n = fr_clock_mono_ns();
        uint64_t b = fr_arch_rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = n;
        }
    }
}

static uint64_t calibrate_tsc(void)
{
    uint64_t t0, n0, t1, n1;
    paired_reading(&t0, &n0);
    struct timespec pause = { 0, 10 * 1000 * 1000 };
    while (nanosleep(&pause, &pause) != 0) {
    }
    paired_reading(&t1, &n1);
    if (n1 <= n0 || t1 <= t0)
        return 0;
    /* Hz = ticks * 1e9 / ns, in 128 bits to avoid overflow. */
    return (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000u / (n1 - n0));
}

void fr_clock_init(enum fr_clock_choice choice)
{
    int tsc_ok = choice != FR_CLOCK_MONO && (choice == FR_CLOCK_TSC || fr_arch_tsc_invariant());
    if (tsc_ok && !calibrated_hz)
        calibrated_hz = fr_arch_counter_hz();
    if (tsc_ok && !calibrated_hz)
        calibrated_hz = calibrate_tsc();
    if (tsc_ok && calibrated_hz) {
        fr_clock_use_tsc = 1;
        fr_clock.source = FR_CLOCK_SOURCE_TSC;
        fr_clock.ticks_per_second = calibrated_hz;
        fr_clock.flags = fr_arch_tsc_invariant()
            ? FR_XRAY_FLAG_CONSTANT_TSC | FR_XRAY_FLAG_NONSTOP_TSC : 0;
    } else {
        fr_clock_use_tsc = 0;
        fr_clock.source = FR_CLOCK_SOURCE_MONOTONIC;
        fr_clock.ticks_per_second = 1000000000u;
        fr_clock.flags = FR_XRAY_FLAG_CONSTANT_TSC | FR_XRAY_FLAG_NONSTOP_TSC;
    }
    struct timespec rt;
    uint64_t mono;
    if (fr_clock_use_tsc)
        paired_reading(&fr_clock.base_tsc, &mono);
    else
        fr_clock.base_tsc = mono = fr_clock_mono_ns();
    clock_gettime(CLOCK_REALTIME, &rt);
    fr_clock.monotonic_ns = (int64_t)mono;
    fr_clock.realtime_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
}

void fr_clock_walltime(uint64_t rel_ticks, int64_t *sec, int32_t *usec)
{
    uint64_t ns = (uint64_t)((unsigned __int128)rel_ticks * 1000000000u / fr_clock.ticks_per_second);
    int64_t t = fr_clock.realtime_ns + (int64_t)ns;
    *sec = t / 1000000000;
    *usec = (int32_t)((t % 1000000000) / 1000);
}

uint64_t fr_clock_us_to_ticks(uint64_t us)
{
    return (uint64_t)((unsigned __int128)us * fr_clock.ticks_per_second / 1000000u);
}

uint64_t fr_clock_mono_to_ticks(uint64_t mono_ns)
{
    __int128 d = (__int128)(int64_t)(mono_ns - (uint64_t)fr_clock.monotonic_ns);
    return fr_clock.base_tsc + (uint64_t)(int64_t)(d * (__int128)fr_clock.ticks_per_second /
                                                   1000000000);
}
