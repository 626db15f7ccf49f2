/*
 * func_stats.h - per-function statistics of completed calls (what `flightrec account`
 * prints, and the nodes of `flightrec graph`): calls, total and self time, min, max and a
 * quantile sketch of the durations. Memory grows with the number of functions only.
 *
 * total_ticks is the sum of the calls' durations, as llvm-xray account computes it: the
 * time of a recursive call is counted again at each level that is open around it.
 * self_ticks is each call's duration minus the time spent in its traced callees, so it is
 * never counted twice (the self times of all functions add up to the traced time).
 */
#ifndef FLIGHTREC_FUNC_STATS_H
#define FLIGHTREC_FUNC_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "call_tracker.h"
#include "quantile_sketch.h"

typedef struct fr_func_stat {
    uint32_t   function_id;
    uint64_t   calls;
    uint64_t   total_ticks;
    uint64_t   self_ticks;
    uint64_t   min_ticks, max_ticks;
    uint64_t   closed_by_unwind;   /* calls ended by an exit of a caller (longjmp) */
    uint64_t   open_at_end;        /* calls still open when the trace ended */
    fr_qsketch durations;
} fr_func_stat;

typedef struct fr_func_stats fr_func_stats;

fr_func_stats *fr_func_stats_new(void);
void fr_func_stats_free(fr_func_stats *fs);
void fr_func_stats_add(fr_func_stats *fs, const fr_call *call);
/* fr_call_fn and fr_calls_fn (batched tracker) adapters: ctx is the fr_func_stats. */
void fr_func_stats_on_call(const fr_call *call, void *ctx);
void fr_func_stats_on_calls(const fr_call *calls, size_t n, void *ctx);
/* fr_costs_fn adapter (the tracker's costs mode: fr_call_tracker_new_costs). */
void fr_func_stats_on_costs(const fr_call_cost *costs, size_t n, void *ctx);

/* Functions in order of first completed call; the pointers stay valid until the next add.
 * (Not const: reading first adds the sketch counts still pending, see func_stats.c.) */
size_t fr_func_stats_count(fr_func_stats *fs);
fr_func_stat *fr_func_stats_at(fr_func_stats *fs, size_t i);
/* NULL if the function had no completed call. */
const fr_func_stat *fr_func_stats_find(fr_func_stats *fs, uint32_t function_id);

/* A call's duration and its self time (duration minus traced callees, never negative). */
static inline uint64_t fr_call_duration(const fr_call *c)
{
    return c->exit_tsc - c->enter_tsc;
}
static inline uint64_t fr_call_self(const fr_call *c)
{
    uint64_t d = c->exit_tsc - c->enter_tsc;
    return c->child_ticks < d ? d - c->child_ticks : 0;
}

#endif
