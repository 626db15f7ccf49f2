/*
 * bench_verdict.h - what every benchmark here shares: the calling thread's CPU time (the
 * clock that a loaded, shared machine does not inflate: time spent waiting for a CPU is
 * not counted) and the line that states a ratio against its target with MET or MISSED.
 * A missed target is printed as MISSED, never as MET.
 */
#ifndef FLIGHTREC_BENCH_VERDICT_H
#define FLIGHTREC_BENCH_VERDICT_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* CLOCK_THREAD_CPUTIME_ID in nanoseconds. */
static inline uint64_t bench_thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

enum bench_goal { BENCH_AT_MOST, BENCH_BELOW, BENCH_AT_LEAST };

static inline int bench_met(double value, enum bench_goal goal, double target)
{
    switch (goal) {
    case BENCH_AT_MOST: return value <= target;
    case BENCH_BELOW: return value < target;
    case BENCH_AT_LEAST: return value >= target;
    }
    return 0;
}

/* "  WHAT: VALUE UNIT (target OP TARGET) MET|MISSED"; returns 1 when met. */
static inline int bench_verdict(const char *what, double value, const char *unit,
                                enum bench_goal goal, double target)
{
    static const char *const op[] = { "<=", "<", ">=" };
    int met = bench_met(value, goal, target);
    printf("  %s: %.2f%s (target %s %.2f%s) %s\n", what, value, unit, op[goal], target, unit,
           met ? "MET" : "MISSED");
    return met;
}

#endif
