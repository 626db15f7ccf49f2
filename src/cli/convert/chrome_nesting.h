/*
 * chrome_nesting.h - the times of Chrome complete events ("ph":"X") chosen so that a
 * viewer nests the calls as they ran.
 *
 * A viewer rebuilds a thread's call tree from its complete events alone: sorted by ts,
 * the longer first at one ts (equal events in no specified order), each inside the one
 * before it whose interval holds it. On a clock coarser than the calls (aarch64's generic
 * timer at tens of MHz; about 1 us under qemu-user) calls share ticks: a call of no
 * duration and the sibling after it start at one ts, and the viewer puts the first inside
 * the second; a caller and its callee of the same ticks may swap. So, per thread, in the
 * order of the records:
 *  - a call starts at its enter's time, or 1 ns after the thread's previous start when
 *    that time is not later (the clock stood still): starts strictly increase;
 *  - a call ends at its exit's time, or later as its callees need: at least its start,
 *    each callee's end, and 1 ns after each callee's start (a callee of no duration at
 *    its caller's end stays inside).
 * Times move only where the clock did not tell calls apart, by 1 ns for each call that
 * shared the instant (the next tick puts them back on the clock's times); a file whose
 * clock went backwards (damaged) keeps its times. Memory: per thread, the open frames.
 */
#ifndef FLIGHTREC_CHROME_NESTING_H
#define FLIGHTREC_CHROME_NESTING_H

#include <stdint.h>
#include "call_tracker.h"
#include "u64_map.h"

typedef struct cv_nesting {
    struct cv_nesting_thread *threads;
    size_t n_threads, cap_threads;
    fr_u64_map by_tid;            /* tid -> index in threads */
} cv_nesting;

void cv_nesting_init(cv_nesting *n);
void cv_nesting_free(cv_nesting *n);
/* An enter (the call tracker's on_enter) of function_id at depth, at ns on the output's
 * time base. */
void cv_nesting_enter(cv_nesting *n, int32_t tid, uint32_t depth, uint32_t function_id, int64_t ns);
/* A completed call whose enter and exit are at start_ns and end_ns: the times to write,
 * in *start and *end. */
void cv_nesting_call(cv_nesting *n, const fr_call *call, int64_t start_ns, int64_t end_ns,
                     int64_t *start, int64_t *end);

#endif
