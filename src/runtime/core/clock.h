/*
 * clock.h - the recorder's clock: the TSC (ticks at its calibrated frequency) or, where
 * the TSC is not invariant, CLOCK_MONOTONIC in nanoseconds. fr_clock_now() is on the hot
 * path: one predictable branch, then rdtsc.
 */
#ifndef FLIGHTREC_CLOCK_H
#define FLIGHTREC_CLOCK_H

#include <stdint.h>
#include <time.h>
#include "arch/port.h"
#include "core/visibility.h"

enum fr_clock_choice { FR_CLOCK_AUTO = 0, FR_CLOCK_TSC = 1, FR_CLOCK_MONO = 2 };

struct fr_clock {
    uint32_t source;          /* FR_CLOCK_SOURCE_TSC or FR_CLOCK_SOURCE_MONOTONIC */
    uint32_t flags;           /* FR_XRAY_FLAG_CONSTANT_TSC | FR_XRAY_FLAG_NONSTOP_TSC */
    uint64_t ticks_per_second;
    uint64_t base_tsc;        /* reading at init: the file's timestamps are relative to it */
    int64_t  realtime_ns;     /* CLOCK_REALTIME at base_tsc */
    int64_t  monotonic_ns;    /* CLOCK_MONOTONIC at base_tsc */
};

/* Set by fr_clock_init; read on every record. */
extern FR_HIDDEN int fr_clock_use_tsc;
extern FR_HIDDEN struct fr_clock fr_clock;

static inline uint64_t fr_clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t fr_clock_now(void)
{
    if (__builtin_expect(fr_clock_use_tsc, 1))
        return fr_arch_rdtsc();
    return fr_clock_mono_ns();
}

/* Chooses the source, calibrates the TSC (once per process: ~10 ms), sets base_tsc. */
FR_HIDDEN void fr_clock_init(enum fr_clock_choice choice);
/* Ticks -> wall clock of a timestamp relative to base_tsc. */
FR_HIDDEN void fr_clock_walltime(uint64_t rel_ticks, int64_t *sec, int32_t *usec);
FR_HIDDEN uint64_t fr_clock_us_to_ticks(uint64_t us);
/* A CLOCK_MONOTONIC reading (ns) as a clock reading (what fr_clock_now would have read). */
FR_HIDDEN uint64_t fr_clock_mono_to_ticks(uint64_t mono_ns);

#endif
