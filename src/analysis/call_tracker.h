/*
 * call_tracker.h - turns a stream of enter/exit records into completed calls, per thread,
 * with the call stack at each call. Shared by account, stack, graph and convert.
 *
 * Unmatched records are handled the way a user expects and counted:
 *  - an exit whose function is not on the stack (history cut by a ring overwrite, or a
 *    thread started mid-call) is dropped: FR_CALLS_UNMATCHED_EXIT;
 *  - an exit of a function deeper in the stack (longjmp, exceptions unwinding untraced
 *    frames) closes the frames above it at that time: FR_CALL_CLOSED_BY_UNWIND;
 *  - frames still open at the end are closed at the thread's last timestamp:
 *    FR_CALL_OPEN_AT_END;
 *  - an FR_TE_LOST record (a gap in the thread's history) discards the thread's open
 *    frames, whose ends are lost (counted in discarded_at_lost, not reported as calls);
 *  - enters deeper than FR_CALL_TRACKER_MAX_DEPTH are ignored (counted in too_deep).
 * Memory: per thread, a stack of open frames (bounded by FR_CALL_TRACKER_MAX_DEPTH);
 * nothing per record.
 */
#ifndef FLIGHTREC_CALL_TRACKER_H
#define FLIGHTREC_CALL_TRACKER_H

#include <stddef.h>
#include <stdint.h>
#include "fr_reader.h"

enum fr_call_flags {
    FR_CALL_CLOSED_BY_UNWIND = 1u << 0,
    FR_CALL_OPEN_AT_END      = 1u << 1,
    FR_CALL_TAIL_EXIT        = 1u << 2,
    FR_CALL_ENTER            = 1u << 3,   /* not a call: an enter (batched enters mode) */
};

typedef struct fr_call {
    int32_t  tid;
    uint32_t function_id;
    uint64_t enter_tsc, exit_tsc;
    uint64_t child_ticks;         /* time spent in traced callees */
    uint32_t depth;               /* 0 = root */
    const uint32_t *stack;        /* depth+1 function ids, root first, this call last */
    uint64_t arg;                 /* argument if entered with one */
    unsigned has_arg : 1;
    unsigned flags;               /* enum fr_call_flags */
} fr_call;

typedef struct fr_call_tracker_stats {
    uint64_t calls;
    uint64_t unmatched_exits;
    uint64_t closed_by_unwind;
    uint64_t open_at_end;
    uint32_t threads;
    uint32_t max_depth;         /* most frames open at once on one thread */
    uint64_t discarded_at_lost; /* open frames dropped by FR_TE_LOST */
    uint64_t too_deep;          /* enters ignored beyond FR_CALL_TRACKER_MAX_DEPTH */
} fr_call_tracker_stats;

/* Deep enough for any real stack: a stack overflow's trace is one recursion as deep as
 * the thread's stack holds (8 MiB of 32-byte frames: 262,144; at 65,536 account counted
 * a quarter of such a crash dump's calls). The per-thread stack of open frames grows on
 * demand: 44 bytes a frame in the tracker, 46 MB for a thread this deep. */
#define FR_CALL_TRACKER_MAX_DEPTH (1u << 20)

/* Called when a call completes (at its exit), innermost first. */
typedef void (*fr_call_fn)(const fr_call *call, void *ctx);
/* Optional: called at each enter, with the stack including the new frame: stack[depth]
 * is the function entered, depth its depth (0 = root), as in fr_call. */
typedef void (*fr_enter_fn)(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx);

typedef struct fr_call_tracker fr_call_tracker;
fr_call_tracker *fr_call_tracker_new(fr_call_fn on_call, fr_enter_fn on_enter, void *ctx);

/* Batched mode, for consumers that need no stack (per-function statistics): completed
 * calls are handed over in arrays, in completion order, with .stack == NULL (.depth is
 * set); the last ones at fr_call_tracker_finish. About twice as fast on large traces
 * (see call_tracker.c). Same matching rules and statistics as above. */
typedef void (*fr_calls_fn)(const fr_call *calls, size_t n, void *ctx);
fr_call_tracker *fr_call_tracker_new_batched(fr_calls_fn on_calls, void *ctx);
/* Costs mode, for per-function statistics (account): completed calls as batches of the
 * little they need, in completion order, the last ones at fr_call_tracker_finish. */
typedef struct fr_call_cost {
    uint32_t function_id;
    uint32_t flags;          /* enum fr_call_flags */
    uint64_t duration;       /* exit - enter, ticks (fr_call_duration) */
    uint64_t self;           /* duration minus traced callees, never negative (fr_call_self) */
} fr_call_cost;
typedef void (*fr_costs_fn)(const fr_call_cost *costs, size_t n, void *ctx);
fr_call_tracker *fr_call_tracker_new_costs(fr_costs_fn on_costs, void *ctx);
/* The hash of a call path (root first), from its caller's path hash (FR_CALL_PATH_SEED
 * for a root frame) and its function id: what the steps mode hands over with each frame,
 * for a consumer that keys data by call path (the stack aggregation places its nodes in a
 * hash table by it, and so knows where a frame's node is before finding its parent's). */
#define FR_CALL_PATH_SEED 0x243F6A8885A308D3ull
static inline uint64_t fr_call_path_hash(uint64_t parent_hash, uint32_t function_id)
{
    uint64_t h = ((parent_hash << 23 | parent_hash >> 41) ^ function_id) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}
/* Steps mode, for the stack aggregation: each enter and each completed call in record
 * order (an open frame's enter before anything of the frames above it), as the little
 * a calling-context tree needs, in batches of one thread each (the last ones at
 * fr_call_tracker_finish). 40 bytes a step where the batched modes write an fr_call of 64. */
typedef struct fr_call_step {
    uint64_t path_hash;      /* fr_call_path_hash of the frame's path (root ... function) */
    uint64_t duration;       /* a call's fr_call_duration; an enter's means nothing */
    uint64_t self;           /* a call's fr_call_self; an enter's means nothing */
    uint32_t function_id;
    uint32_t depth;          /* the frame's depth, 0 = root */
    uint32_t flags;          /* FR_CALL_ENTER for an enter, else the call's enum fr_call_flags */
} fr_call_step;
typedef void (*fr_steps_fn)(int32_t tid, const fr_call_step *steps, size_t n, void *ctx);
fr_call_tracker *fr_call_tracker_new_steps(fr_steps_fn on_steps, void *ctx);
/* Batched mode that also hands over each enter, in record order among the calls, as an
 * fr_call with flags FR_CALL_ENTER: .tid, .function_id, .depth (the new frame's, 0 =
 * root), .enter_tsc, .arg and .has_arg are set, the other fields mean nothing. For
 * consumers that need each call's stack, or its begin, without a callback per record
 * (the stack aggregation, Perfetto's slices): an open frame's enter is always in an
 * earlier batch entry than any enter or call of the frames above it. */
fr_call_tracker *fr_call_tracker_new_batched_enters(fr_calls_fn on_calls, void *ctx);
/* Feed every record; non-function records are ignored (FR_TE_LOST resets the thread). */
void fr_call_tracker_feed(fr_call_tracker *t, const fr_record *rec);
/* Same as feeding each of recs[0..n-1] as an fr_record of thread tid (the batch read of
 * fr_reader_next_functions): the hot loop of account, without a full record per call. */
void fr_call_tracker_feed_functions(fr_call_tracker *t, int32_t tid,
                                    const fr_function_record *recs, size_t n);
/* Same as fr_call_tracker_feed_functions over the records of recs[0..n-1] (8-byte XRay
 * function records, as fr_reader_function_bytes gives them, of thread tid, *tsc the
 * clock before the first) up to the first that is not a plain function record
 * (fr_fn_is_plain): returns how many it took, *tsc then the clock after the last. Costs
 * mode decodes them in its own loop (account's: no decoded copy of each record). */
size_t fr_call_tracker_feed_function_bytes(fr_call_tracker *t, int32_t tid, const uint8_t *recs,
                                           size_t n, uint64_t *tsc);
/* Batched modes: delivers what is batched so far now (for a consumer that writes other
 * records of the trace in order between the calls). */
void fr_call_tracker_flush(fr_call_tracker *t);
/* Closes every open frame at its thread's last timestamp (and delivers the last batch). */
void fr_call_tracker_finish(fr_call_tracker *t);
const fr_call_tracker_stats *fr_call_tracker_get_stats(const fr_call_tracker *t);
void fr_call_tracker_free(fr_call_tracker *t);

#endif
