/*
 * sched_marks.h - scheduling marks (sched=1; `flightrec record --sched`): when a recorded
 * thread was off the CPU, from its own context-switch records (sched_marks.c).
 */
#ifndef FLIGHTREC_SCHED_MARKS_H
#define FLIGHTREC_SCHED_MARKS_H

#include <stdint.h>
#include "core/visibility.h"

/* The thread's perf ring (a struct perf_event_mmap_page), NULL while it has none: the
 * record paths test it (one thread-local load) before their record. */
extern __thread void *fr_sched_ring __attribute__((tls_model("initial-exec"))) FR_HIDDEN;

/* One stretch off the CPU, CLOCK_MONOTONIC nanoseconds. */
struct fr_sched_mark {
    uint64_t out_ns, in_ns;
    uint32_t flags;          /* FR_SCHED_PREEMPTED (fr_format.h) */
};

/* At a thread's registration with sched=1: opens its context-switch records. Where the
 * kernel refuses, says so once per process (stderr) and never asks again. */
FR_HIDDEN void fr_sched_thread_start(void);
/* Whether the ring has records not yet read (no system call). */
FR_HIDDEN int fr_sched_pending(void);
/* The next completed stretch off the CPU in the ring: 1, or 0 when there is none left. */
FR_HIDDEN int fr_sched_next(struct fr_sched_mark *m);
/* At thread exit, and in a forked child (the ring was the parent thread's). */
FR_HIDDEN void fr_sched_thread_end(void);

#endif
