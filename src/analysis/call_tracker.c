/*
 * call_tracker.c - see call_tracker.h.
 *
 * Each thread has a stack of open frames: the function ids in one array (so that the
 * stack can be handed to callbacks as is, root first) and the rest of each frame in a
 * parallel array. Threads are found through a hash map from tid, with the last thread
 * cached: records come in per-thread blocks, so the map is rarely consulted.
 *
 * Batched mode (fr_call_tracker_new_batched) has a fast path for the common records: an
 * enter, or an exit of the innermost frame, on the cached thread. Enters and exits come
 * in an unpredictable order, and a branch on the kind mispredicted about every other
 * record; the fast path does the work of both kinds and keeps the right one with
 * conditional moves: an enter writes the frame above the top (for an exit, that slot is
 * free), an exit's call is always written to the batch and counted only for an exit.
 * Two guard entries below each stack (ids[-1] never matches a function id, frames[-1]
 * and frames[-2] absorb the reads and the child-time update of a root) remove the
 * depth checks. Anything else takes the general path.
 */
#include "call_tracker.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "fr_alloc.h"
#include "u64_map.h"

struct open_frame {
    uint64_t enter_tsc;
    uint64_t child_ticks;
    uint64_t arg;
    bool     has_arg;
};

#define GUARD 2   /* entries below each stack, see above */

struct thread_state {
    int32_t  tid;
    uint32_t depth;              /* open frames */
    uint32_t fast_limit;         /* the fast path runs while depth < fast_limit */
    size_t   cap;                /* usable entries of ids and frames */
    uint64_t last_tsc;
    uint32_t *ids;               /* ids[0..depth-1]: function ids, root first */
    struct open_frame *frames;
    uint64_t *hashes;            /* steps mode: each open frame's fr_call_path_hash */
};

#define BATCH 512   /* calls handed over at once in batched mode */

struct fr_call_tracker {
    fr_call_fn  on_call;
    fr_enter_fn on_enter;
    fr_calls_fn on_calls;            /* batched mode */
    bool        enters;              /* batched mode: enters in the batch too */
    fr_costs_fn on_costs;            /* costs mode (on_calls is then costs_mode) */
    fr_call_cost *costs;             /* costs mode: BATCH completed calls */
    fr_steps_fn on_steps;            /* steps mode (on_calls is then costs_mode) */
    fr_call_step *steps;             /* steps mode: BATCH enters and completed calls */
    int32_t     steps_tid;           /* steps mode: the thread of the steps batched */
    void       *ctx;
    fr_call    *batch;               /* batched mode: BATCH completed calls */
    size_t      n_batch;
    struct thread_state **threads;   /* in order of first appearance */
    size_t      n_threads, cap_threads;
    fr_u64_map  by_tid;              /* tid -> index in threads */
    struct thread_state *last;       /* cache of the last thread looked up */
    fr_call_tracker_stats stats;
};

fr_call_tracker *fr_call_tracker_new(fr_call_fn on_call, fr_enter_fn on_enter, void *ctx)
{
    fr_call_tracker *t = fr_xcalloc(1, sizeof *t);
    t->on_call = on_call;
    t->on_enter = on_enter;
    t->ctx = ctx;
    fr_u64_map_init(&t->by_tid);
    return t;
}

void fr_call_tracker_free(fr_call_tracker *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_threads; i++) {
        if (t->threads[i]->cap) {
            free(t->threads[i]->ids - GUARD);
            free(t->threads[i]->frames - GUARD);
            free(t->threads[i]->hashes - GUARD);
        }
        free(t->threads[i]);
    }
    free(t->threads);
    free(t->batch);
    free(t->costs);
    free(t->steps);
    fr_u64_map_free(&t->by_tid);
    free(t);
}

fr_call_tracker *fr_call_tracker_new_batched(fr_calls_fn on_calls, void *ctx)
{
    fr_call_tracker *t = fr_call_tracker_new(NULL, NULL, ctx);
    t->on_calls = on_calls;
    /* one spare entry: the fast path writes a call for every record */
    t->batch = fr_xcalloc(BATCH + 1, sizeof *t->batch);
    return t;
}

fr_call_tracker *fr_call_tracker_new_batched_enters(fr_calls_fn on_calls, void *ctx)
{
    fr_call_tracker *t = fr_call_tracker_new_batched(on_calls, ctx);
    t->enters = true;
    return t;
}

/* on_calls of costs and steps modes: never called (flush_batch hands over the costs or
 * steps), but set, so that these modes take every path of batched mode. */
static void costs_mode(const fr_call *calls, size_t n, void *ctx)
{
    (void)calls;
    (void)n;
    (void)ctx;
}

fr_call_tracker *fr_call_tracker_new_costs(fr_costs_fn on_costs, void *ctx)
{
    fr_call_tracker *t = fr_call_tracker_new_batched(costs_mode, ctx);
    t->on_costs = on_costs;
    t->costs = fr_xcalloc(BATCH + 1, sizeof *t->costs);
    return t;
}

fr_call_tracker *fr_call_tracker_new_steps(fr_steps_fn on_steps, void *ctx)
{
    fr_call_tracker *t = fr_call_tracker_new_batched(costs_mode, ctx);
    t->enters = true;
    t->on_steps = on_steps;
    t->steps = fr_xcalloc(BATCH + 1, sizeof *t->steps);
    return t;
}

static void flush_batch(fr_call_tracker *t)
{
    if (t->n_batch && t->on_costs)
        t->on_costs(t->costs, t->n_batch, t->ctx);
    else if (t->n_batch && t->on_steps)
        t->on_steps(t->steps_tid, t->steps, t->n_batch, t->ctx);
    else if (t->n_batch)
        t->on_calls(t->batch, t->n_batch, t->ctx);
    t->n_batch = 0;
}

/* Steps mode: room in the batch for a step of thread tid (a batch is of one thread). */
static inline fr_call_step *next_step(fr_call_tracker *t, int32_t tid)
{
    if (t->n_batch == BATCH || (t->n_batch && t->steps_tid != tid))
        flush_batch(t);
    t->steps_tid = tid;
    return &t->steps[t->n_batch++];
}

const fr_call_tracker_stats *fr_call_tracker_get_stats(const fr_call_tracker *t)
{
    return &t->stats;
}

static struct thread_state *find_thread(fr_call_tracker *t, int32_t tid)
{
    uint64_t key = (uint32_t)tid;
    uint32_t i = fr_u64_map_get(&t->by_tid, key);
    if (i == FR_U64_MAP_NONE) {
        struct thread_state *th = fr_xcalloc(1, sizeof *th);
        th->tid = tid;
        t->threads = fr_xgrow(t->threads, &t->cap_threads, t->n_threads + 1,
                              sizeof *t->threads, 16);
        i = (uint32_t)t->n_threads++;
        t->threads[i] = th;
        fr_u64_map_put(&t->by_tid, key, i);
        t->stats.threads = (uint32_t)t->n_threads;
    }
    t->last = t->threads[i];
    return t->last;
}

static inline struct thread_state *thread_of(fr_call_tracker *t, int32_t tid)
{
    struct thread_state *th = t->last;
    return th && th->tid == tid ? th : find_thread(t, tid);
}

/* Closes the innermost open frame of th at exit_tsc and reports the call. */
static void close_top(fr_call_tracker *t, struct thread_state *th, uint64_t exit_tsc,
                      unsigned flags)
{
    uint32_t d = th->depth - 1;
    const struct open_frame *f = &th->frames[d];
    if (exit_tsc < f->enter_tsc) /* a clock that went backwards: a call of length 0 */
        exit_tsc = f->enter_tsc;
    uint64_t duration = exit_tsc - f->enter_tsc;
    fr_call c = {
        .tid = th->tid,
        .function_id = th->ids[d],
        .enter_tsc = f->enter_tsc,
        .exit_tsc = exit_tsc,
        .child_ticks = f->child_ticks,
        .depth = d,
        .stack = th->ids,
        .arg = f->arg,
        .has_arg = f->has_arg,
        .flags = flags,
    };
    th->depth = d;
    if (d)
        th->frames[d - 1].child_ticks += duration;
    t->stats.calls++;
    if (t->on_calls) {
        if (t->n_batch == BATCH)
            flush_batch(t);
        c.stack = NULL;
        if (t->on_costs)
            t->costs[t->n_batch++] = (fr_call_cost){
                .function_id = c.function_id,
                .flags = flags,
                .duration = duration,
                .self = c.child_ticks < duration ? duration - c.child_ticks : 0,
            };
        else if (t->on_steps)
            *next_step(t, th->tid) = (fr_call_step){
                .path_hash = th->hashes[d],
                .duration = duration,
                .self = c.child_ticks < duration ? duration - c.child_ticks : 0,
                .function_id = c.function_id,
                .depth = d,
                .flags = flags,
            };
        else
            t->batch[t->n_batch++] = c;
    } else if (t->on_call) {
        t->on_call(&c, t->ctx);
    }
}

__attribute__((noinline))
static void grow_stack(struct thread_state *th)
{
    size_t cap = th->cap ? th->cap * 2 : 64;
    uint32_t *ids = fr_xrealloc(th->cap ? th->ids - GUARD : NULL, (cap + GUARD) * sizeof *ids);
    struct open_frame *frames = fr_xrealloc(th->cap ? th->frames - GUARD : NULL,
                                            (cap + GUARD) * sizeof *frames);
    uint64_t *hashes = fr_xrealloc(th->cap ? th->hashes - GUARD : NULL, (cap + GUARD) * sizeof *hashes);
    /* new frames zeroed: in costs mode the fast path writes only a frame's start and
     * child time, and close_top still copies its arg and has_arg */
    memset(frames + GUARD + th->cap, 0, (cap - th->cap) * sizeof *frames);
    th->ids = ids + GUARD;
    th->frames = frames + GUARD;
    th->hashes = hashes + GUARD;
    th->hashes[-1] = th->hashes[-2] = FR_CALL_PATH_SEED;   /* a root frame's caller */
    th->ids[-1] = th->ids[-2] = UINT32_MAX;   /* above FR_XRAY_MAX_FUNCTION_ID */
    memset(frames, 0, GUARD * sizeof *frames);
    th->cap = cap;
    th->fast_limit = (uint32_t)(cap - 1 < FR_CALL_TRACKER_MAX_DEPTH ? cap - 1
                                                                    : FR_CALL_TRACKER_MAX_DEPTH);
}

static inline void enter(fr_call_tracker *t, struct thread_state *th, const fr_record *rec)
{
    if (th->depth >= FR_CALL_TRACKER_MAX_DEPTH) {
        t->stats.too_deep++;
        return;
    }
    if (th->depth == th->cap)
        grow_stack(th);
    uint32_t d = th->depth++;
    th->ids[d] = rec->function_id;
    th->frames[d] = (struct open_frame){
        .enter_tsc = rec->tsc,
        .arg = rec->arg,
        .has_arg = rec->kind == FR_REC_ENTER_ARG,
    };
    if (th->depth > t->stats.max_depth)
        t->stats.max_depth = th->depth;
    if (t->enters) {
        if (t->n_batch == BATCH)
            flush_batch(t);
        if (t->on_steps) {
            th->hashes[d] = fr_call_path_hash(th->hashes[(int32_t)d - 1], rec->function_id);
            *next_step(t, th->tid) = (fr_call_step){
                .path_hash = th->hashes[d],
                .function_id = rec->function_id,
                .depth = d,
                .flags = FR_CALL_ENTER,
            };
        } else {
            t->batch[t->n_batch++] = (fr_call){
                .tid = th->tid,
                .function_id = rec->function_id,
                .enter_tsc = rec->tsc,
                .depth = d,
                .arg = rec->arg,
                .has_arg = rec->kind == FR_REC_ENTER_ARG,
                .flags = FR_CALL_ENTER,
            };
        }
    }
    if (t->on_enter)
        t->on_enter(th->tid, rec->tsc, th->ids, d, t->ctx);
}

static void leave(fr_call_tracker *t, struct thread_state *th, const fr_record *rec)
{
    unsigned flags = rec->kind == FR_REC_TAIL_EXIT ? FR_CALL_TAIL_EXIT : 0;
    uint32_t id = rec->function_id;
    if (th->depth && th->ids[th->depth - 1] == id) {
        close_top(t, th, rec->tsc, flags);
        return;
    }
    /* Not the innermost frame: look for it deeper (longjmp, unwinding). */
    uint32_t d = th->depth;
    while (d > 0 && th->ids[d - 1] != id)
        d--;
    if (d == 0) {
        t->stats.unmatched_exits++;
        return;
    }
    while (th->depth > d) {
        close_top(t, th, rec->tsc, FR_CALL_CLOSED_BY_UNWIND);
        t->stats.closed_by_unwind++;
    }
    close_top(t, th, rec->tsc, flags);
}

/* Batched mode's fast path (see the top of the file), on a record's fields (from an
 * fr_record or an fr_function_record). Returns 0 if the record needs the general path. */
static inline __attribute__((always_inline))
int feed_fast(fr_call_tracker *t, unsigned kind, int32_t tid, uint32_t id, uint64_t tsc,
              uint64_t arg)
{
    struct thread_state *th = t->last;
    if (kind > FR_REC_ENTER_ARG || !th || th->tid != tid || th->depth >= th->fast_limit ||
        t->n_batch >= BATCH)
        return 0;
    uint32_t d = th->depth;
    /* Arithmetic, not && or ?:, so that the compiler does not branch on the kind. */
    unsigned is_exit = kind - 1u < 2u;              /* FR_REC_EXIT or FR_REC_TAIL_EXIT */
    unsigned top_differs = th->ids[(int32_t)d - 1] != id;
    /* opaque to the optimiser, which otherwise turns the & back into a branch on is_exit */
    __asm__("" : "+r"(is_exit), "+r"(top_differs));
    if (is_exit & top_differs)                      /* unmatched, unwinding: rare */
        return 0;
    th->last_tsc = tsc;

    /* as an exit: the call of frame d-1 */
    const struct open_frame *f = &th->frames[(int32_t)d - 1];
    uint64_t exit_tsc = tsc < f->enter_tsc ? f->enter_tsc : tsc;
    uint64_t duration = exit_tsc - f->enter_tsc;
    fr_call *c = &t->batch[t->n_batch];
    c->tid = th->tid;
    c->function_id = id;
    c->enter_tsc = f->enter_tsc;
    c->exit_tsc = exit_tsc;
    c->child_ticks = f->child_ticks;
    c->depth = d - 1;
    c->stack = NULL;
    c->arg = f->arg;
    c->has_arg = f->has_arg;
    c->flags = (unsigned)(kind == FR_REC_TAIL_EXIT) * FR_CALL_TAIL_EXIT;
    th->frames[(int32_t)d - 2].child_ticks += duration & (0 - (uint64_t)is_exit);
    t->n_batch += (size_t)is_exit;
    t->stats.calls += (uint64_t)is_exit;

    /* as an enter: frame d */
    th->ids[d] = id;
    th->frames[d] = (struct open_frame){
        .enter_tsc = tsc,
        .arg = arg,
        .has_arg = kind == FR_REC_ENTER_ARG,
    };
    uint32_t depth = d + 1 - 2 * is_exit;
    th->depth = depth;
    t->stats.max_depth = depth > t->stats.max_depth ? depth : t->stats.max_depth;
    return 1;
}

/* Every record the fast path does not take. Out of line, so that the fast path has no
 * registers to save. */
__attribute__((noinline))
static void feed_general(fr_call_tracker *t, const fr_record *rec)
{
    if (t->on_calls && t->n_batch == BATCH)
        flush_batch(t);
    /* Conditional branches rather than a switch: enter/exit alternate unpredictably, and
     * an indirect jump mispredicted on every other record was a third of the time. */
    unsigned kind = rec->kind;
    if (kind <= FR_REC_ENTER_ARG) {
        struct thread_state *th = thread_of(t, rec->tid);
        th->last_tsc = rec->tsc;
        if (kind == FR_REC_ENTER || kind == FR_REC_ENTER_ARG)
            enter(t, th, rec);
        else
            leave(t, th, rec);
    } else if (kind == FR_REC_TYPED && rec->event_type == FR_TE_LOST) {
        /* A gap in this thread's history: the open frames' ends are lost, and what
         * follows may belong to other calls, so start again from an empty stack. */
        struct thread_state *th = thread_of(t, rec->tid);
        th->last_tsc = rec->tsc;
        t->stats.discarded_at_lost += th->depth;
        th->depth = 0;
    }
}

void fr_call_tracker_feed(fr_call_tracker *t, const fr_record *rec)
{
    if (t->on_calls && !t->enters && !t->on_costs && feed_fast(t, rec->kind, rec->tid, rec->function_id, rec->tsc, rec->arg))
        return;
    feed_general(t, rec);
}

/* One record of a batch through the general path (fr_record built from its fields). */
static void feed_function_general(fr_call_tracker *t, int32_t tid, const fr_function_record *f)
{
    fr_record rec = {
        .kind = (fr_record_kind)f->kind,
        .tid = tid,
        .function_id = f->function_id,
        .tsc = f->tsc,
    };
    feed_general(t, &rec);
}

/* The fast path of feed_fast over a whole batch of one thread's records, with the
 * thread's top of stack, the batch fill and the counters in local variables: through
 * the tracker's fields, every store to a frame or a call (which the compiler must assume
 * may alias them) forced them back to memory, and the loop ran out of registers. The
 * locals are written back before any record takes the general path, and at the end. */
static inline __attribute__((always_inline))
void feed_functions_batched(fr_call_tracker *t, int32_t tid, const fr_function_record *recs,
                            size_t n, const bool enters)
{
    size_t i = 0;
    while (i < n) {
        struct thread_state *th = thread_of(t, tid);
        if (th->depth >= th->fast_limit) {          /* deep, or no stack yet */
            feed_function_general(t, tid, &recs[i++]);
            continue;
        }
        if (t->n_batch == BATCH)
            flush_batch(t);
        uint32_t *const ids = th->ids;
        struct open_frame *const frames = th->frames;
        fr_call *const batch = t->batch;
        const uint32_t limit = th->fast_limit;
        uint32_t d = th->depth, max_depth = t->stats.max_depth;
        size_t n_batch = t->n_batch;
        uint64_t calls = t->stats.calls, tsc = th->last_tsc;
        /* a record adds at most one entry: the batch cannot fill before end */
        const size_t end = n - i < BATCH - n_batch ? n : i + (BATCH - n_batch);
        bool stopped = false;
        for (; i < end && d < limit; i++) {
            const unsigned kind = recs[i].kind;
            const uint32_t id = recs[i].function_id;
            unsigned is_exit = kind - 1u < 2u;          /* FR_REC_EXIT or FR_REC_TAIL_EXIT */
            unsigned top_differs = ids[(int32_t)d - 1] != id;
            __asm__("" : "+r"(is_exit), "+r"(top_differs));   /* see feed_fast */
            if (is_exit & top_differs) {                /* unmatched, unwinding: rare */
                stopped = true;
                break;
            }
            tsc = recs[i].tsc;
            /* FR_CALL_TAIL_EXIT for kind FR_REC_TAIL_EXIT (kinds here: 0, 1, 2) */
            const unsigned tail_flag = (kind & FR_REC_TAIL_EXIT) << 1;
            _Static_assert(FR_REC_TAIL_EXIT == 2 && FR_CALL_TAIL_EXIT == 4, "tail_flag");
            /* as an exit: the call of frame d-1 (.stack stays NULL, as calloc left it) */
            const struct open_frame *f = &frames[(int32_t)d - 1];
            uint64_t exit_tsc = tsc < f->enter_tsc ? f->enter_tsc : tsc;
            uint64_t duration = exit_tsc - f->enter_tsc;
            fr_call *c = &batch[n_batch];
            c->tid = tid;
            c->function_id = id;
            c->exit_tsc = exit_tsc;
            c->child_ticks = f->child_ticks;
            c->arg = f->arg;
            c->has_arg = f->has_arg;
            if (enters) {   /* an enter stays in the batch too: its depth, tsc and flag */
                c->enter_tsc = is_exit ? f->enter_tsc : tsc;
                c->depth = d - is_exit;
                c->flags = tail_flag | (1u - is_exit) * FR_CALL_ENTER;
                n_batch++;
            } else {
                c->enter_tsc = f->enter_tsc;
                c->depth = d - 1;
                c->flags = tail_flag;
                n_batch += is_exit;
            }
            frames[(int32_t)d - 2].child_ticks += duration & (0 - (uint64_t)is_exit);
            calls += is_exit;
            /* as an enter (no argument in a batch): frame d */
            ids[d] = id;
            frames[d] = (struct open_frame){.enter_tsc = tsc};
            d = d + 1 - 2 * is_exit;
            max_depth = d > max_depth ? d : max_depth;
        }
        th->depth = d;
        th->last_tsc = tsc;
        t->n_batch = n_batch;
        t->stats.calls = calls;
        t->stats.max_depth = max_depth;
        if (i < n && (stopped || d >= limit))       /* stopped by a record: general path */
            feed_function_general(t, tid, &recs[i++]);
    }
}

/* Costs and steps modes' runs. The thread's state with room on its stack for a run (grown
 * early, when under 64 frames are left, so runs are not cut short near the limit), or NULL
 * when its next record takes the general path (deep, or no stack yet). */
static inline struct thread_state *fast_run_thread(fr_call_tracker *t, int32_t tid)
{
    struct thread_state *th = thread_of(t, tid);
    if (th->fast_limit - th->depth < 64 && th->cap && th->cap < FR_CALL_TRACKER_MAX_DEPTH)
        grow_stack(th);
    return th->depth >= th->fast_limit ? NULL : th;
}

/* A run's length: the records left, bounded by the free batch entries and the depth left
 * below fast_limit (a record adds at most one entry and one frame), so that the loop
 * checks neither per record. */
static inline size_t fast_run_length(const fr_call_tracker *t, const struct thread_state *th,
                                     size_t left)
{
    size_t run = left;
    if (run > BATCH - t->n_batch)
        run = BATCH - t->n_batch;
    if (run > th->fast_limit - th->depth)
        run = th->fast_limit - th->depth;
    return run;
}

/* What a record of each kind does in costs mode's loop, looked up by the low four bits of
 * its XRay word (the metadata bit, then the kind: fr_fn_is_plain), or by a decoded
 * record's kind & 3 shifted as in the word: the moves of the stack's top (ids and frames)
 * and of the batch's end, in bytes, the mask that adds an exit's duration to its caller's
 * child time, the call's flags, and when the record takes the general path. Loads from
 * this table replace the arithmetic on the kind. A decoded batch holds kinds 0..2
 * (fr_reader_next_functions), and a kind outside 0..3 is taken as kind & 3 (a step of one
 * frame, never out of the stack's bounds); FR_REC_ENTER_ARG is left to the general path.
 * In the raw bytes (fr_call_tracker_feed_function_bytes), COSTS_RARE ends the run: an
 * enter with an argument, metadata or a bad kind is the reader's to read. */
enum { COSTS_RARE_IF_TOP_DIFFERS = 1, COSTS_RARE = 2 };
struct costs_step {
    ptrdiff_t id_bytes, frame_bytes, cost_bytes;
    uint64_t  exit_mask;
    uint32_t  flags;
    uint32_t  rare;           /* COSTS_RARE_IF_TOP_DIFFERS (an exit) or COSTS_RARE */
} __attribute__((aligned(64)));   /* found by a shift of the word's bits */
#define COSTS_PUSH {sizeof(uint32_t), sizeof(struct open_frame), 0, 0, 0, 0}
#define COSTS_POP(flag) {-(ptrdiff_t)sizeof(uint32_t), -(ptrdiff_t)sizeof(struct open_frame), \
                         sizeof(fr_call_cost), ~0ull, flag, COSTS_RARE_IF_TOP_DIFFERS}
#define COSTS_OTHER {.rare = COSTS_RARE}
#define COSTS_CLASS(kind) ((unsigned)(kind) << 1)   /* a plain record's low four bits */
_Static_assert(FR_REC_ENTER == FR_FN_ENTER && FR_REC_EXIT == FR_FN_EXIT &&
               FR_REC_TAIL_EXIT == FR_FN_TAIL_EXIT && FR_REC_ENTER_ARG == FR_FN_ENTER_ARG,
               "a decoded kind is the word's");
static const struct costs_step costs_steps[16] = {
    COSTS_PUSH, COSTS_OTHER, COSTS_POP(0), COSTS_OTHER,
    COSTS_POP(FR_CALL_TAIL_EXIT), COSTS_OTHER, COSTS_OTHER, COSTS_OTHER,
    COSTS_OTHER, COSTS_OTHER, COSTS_OTHER, COSTS_OTHER,
    COSTS_OTHER, COSTS_OTHER, COSTS_OTHER, COSTS_OTHER,
};
_Static_assert(COSTS_CLASS(FR_FN_EXIT) == 2 && COSTS_CLASS(FR_FN_TAIL_EXIT) == 4, "costs_steps");
#undef COSTS_PUSH
#undef COSTS_POP
#undef COSTS_OTHER

/* Moves pointer p by a number of bytes (a step of the tables above). */
#define COSTS_MOVE(p, bytes) ((p) = (void *)((char *)(p) + (bytes)))

/* Record i of costs mode's input: decoded records (fr_function_record), or, raw, the
 * 8-byte XRay function records (the clock *tsc before it, moved past it). Sets its class
 * (costs_steps' index), id and timestamp. */
static inline __attribute__((always_inline))
void costs_record(const void *in, size_t i, const bool raw, uint64_t tsc, unsigned *cls,
                  uint32_t *id, uint64_t *rec_tsc)
{
    if (raw) {
        const uint8_t *p = (const uint8_t *)in + i * FR_XRAY_FUNCTION_RECORD_SIZE;
        const uint32_t word = fr_fn_get_word(p);
        *cls = word & 15;
        *id = fr_fn_id(word);
        *rec_tsc = tsc + fr_fn_get_delta(p);
    } else {
        const fr_function_record *r = (const fr_function_record *)in + i;
        *cls = COSTS_CLASS(r->kind & 3);
        *id = r->function_id;
        *rec_tsc = r->tsc;
    }
}

/* Costs mode's loop (account, ~20 M records a run): the loop above reduced to what a
 * completed call's costs need, with as few values live as there are registers (the
 * shared loop, inlined three times, kept its pointers and counters on the stack and
 * reloaded them every record). A record moves the depth by one and adds at most one
 * call, so each run is bounded beforehand by the free batch entries and the depth left
 * below fast_limit: no check of either per record. The calls made are the entries
 * added, the thread's last time the last record's. Raw, the records are read from the
 * trace's bytes (no decoded copy in between), *tsc is the clock before and after them,
 * and the loop ends at the first record that is not a plain function record: returns
 * how many records it took (all n when not raw). */
static inline __attribute__((always_inline))
size_t feed_costs(fr_call_tracker *t, int32_t tid, const void *in, size_t n, uint64_t *tsc_io,
                  const bool raw)
{
    size_t i = 0;
    uint64_t tsc = raw ? *tsc_io : 0;
    if (raw && n && !fr_fn_is_plain(fr_fn_get_word(in)))
        return 0;   /* not a record of the thread's yet: it is not looked up (created) */
    while (i < n) {
        unsigned cls;
        uint32_t id;
        uint64_t rec_tsc;
        struct thread_state *th = fast_run_thread(t, tid);
        if (th) {
            if (t->n_batch == BATCH)
                flush_batch(t);
            struct open_frame *const frames = th->frames;
            const uint32_t d0 = th->depth;
            /* the stack's top as pointers: one past the innermost frame and its id */
            uint32_t *id_top = th->ids + d0;
            struct open_frame *top = frames + d0;
            struct open_frame *highest = frames + (t->stats.max_depth > d0 ? t->stats.max_depth : d0);
            fr_call_cost *const first = t->costs + t->n_batch;
            fr_call_cost *k = first;
            const size_t end = i + fast_run_length(t, th, n - i), start = i;
            for (; i < end; i++) {
                costs_record(in, i, raw, tsc, &cls, &id, &rec_tsc);
                /* unmatched, unwinding, an argument, not a function record: rare */
                const struct costs_step *step = &costs_steps[cls];
                if (((unsigned)(id_top[-1] != id) | COSTS_RARE) & step->rare)
                    break;
                tsc = rec_tsc;
                /* as an exit: the costs of frame d-1's call (a clock gone back: length 0) */
                const struct open_frame *f = &top[-1];
                const uint64_t enter_tsc = f->enter_tsc, child = f->child_ticks;
                const uint64_t duration = tsc < enter_tsc ? 0 : tsc - enter_tsc;
                k->function_id = id;
                k->flags = step->flags;
                k->duration = duration;
                k->self = child < duration ? duration - child : 0;
                COSTS_MOVE(k, step->cost_bytes);
                top[-2].child_ticks += duration & step->exit_mask;
                /* as an enter: frame d (arg and has_arg unused: these calls never show them) */
                *id_top = id;
                top->enter_tsc = tsc;
                top->child_ticks = 0;
                COSTS_MOVE(id_top, step->id_bytes);
                COSTS_MOVE(top, step->frame_bytes);
                highest = top > highest ? top : highest;
            }
            const size_t calls = (size_t)(k - first);
            th->depth = (uint32_t)(top - frames);
            if (i > start)
                th->last_tsc = raw ? tsc : ((const fr_function_record *)in)[i - 1].tsc;
            t->n_batch += calls;
            t->stats.calls += calls;
            t->stats.max_depth = (uint32_t)(highest - frames);
            if (i == end)
                continue;
        } else {                                    /* deep, or no stack yet */
            costs_record(in, i, raw, tsc, &cls, &id, &rec_tsc);
        }
        /* record i: the general path, or the end of a raw run */
        if (raw && (costs_steps[cls].rare & COSTS_RARE))
            break;
        feed_function_general(t, tid, raw ? &(fr_function_record){rec_tsc, id, cls >> 1}
                                          : (const fr_function_record *)in + i);
        tsc = rec_tsc;
        i++;
    }
    if (raw)
        *tsc_io = tsc;
    return i;
}

static void feed_functions_costs(fr_call_tracker *t, int32_t tid, const fr_function_record *recs,
                                 size_t n)
{
    feed_costs(t, tid, recs, n, NULL, false);
}

size_t fr_call_tracker_feed_function_bytes(fr_call_tracker *t, int32_t tid, const uint8_t *recs,
                                           size_t n, uint64_t *tsc)
{
    if (t->on_costs && !t->on_steps)
        return feed_costs(t, tid, recs, n, tsc, true);
    /* the other modes: decoded, in batches */
    fr_function_record batch[256];
    size_t i = 0;
    while (i < n) {
        size_t m = 0;
        for (; m < 256 && i + m < n; m++) {
            const uint8_t *p = recs + (i + m) * FR_XRAY_FUNCTION_RECORD_SIZE;
            const uint32_t word = fr_fn_get_word(p);
            if (!fr_fn_is_plain(word))
                break;
            *tsc += fr_fn_get_delta(p);
            batch[m] = (fr_function_record){*tsc, fr_fn_id(word), fr_fn_kind(word)};
        }
        fr_call_tracker_feed_functions(t, tid, batch, m);
        i += m;
        if (m < 256)
            break;
    }
    return i;
}

/* Steps mode's loop (the stack aggregation's): the fast path of feed_functions_batched,
 * writing a step for every record (an enter or a call) with its frame's path hash. Its own
 * loop, as costs mode's, so that it keeps its values in registers. */
static void feed_functions_steps(fr_call_tracker *t, int32_t tid, const fr_function_record *recs,
                                 size_t n)
{
    size_t i = 0;
    while (i < n) {
        struct thread_state *th = fast_run_thread(t, tid);
        if (!th) {                                  /* deep, or no stack yet */
            feed_function_general(t, tid, &recs[i++]);
            continue;
        }
        if (t->n_batch == BATCH || (t->n_batch && t->steps_tid != tid))
            flush_batch(t);                         /* a batch is of one thread */
        t->steps_tid = tid;
        uint32_t *const ids = th->ids;
        uint64_t *const hashes = th->hashes;
        struct open_frame *const frames = th->frames;
        const uint32_t d0 = th->depth;
        uint32_t d = d0, max_depth = t->stats.max_depth;
        fr_call_step *const first = t->steps + t->n_batch;
        fr_call_step *k = first;
        const size_t run = fast_run_length(t, th, n - i);
        const fr_function_record *r = recs + i, *const end = r + run;
        bool stopped = false;
        for (; r < end; r++) {
            const unsigned kind = r->kind;
            const uint32_t id = r->function_id;
            const uint64_t tsc = r->tsc;
            unsigned is_exit = kind - 1u < 2u;          /* FR_REC_EXIT or FR_REC_TAIL_EXIT */
            unsigned top_differs = ids[(int32_t)d - 1] != id;
            __asm__("" : "+r"(is_exit), "+r"(top_differs));   /* see feed_fast */
            if (is_exit & top_differs) {                /* unmatched, unwinding: rare */
                stopped = true;
                break;
            }
            /* as an exit: the call of frame d-1 (a clock gone back: length 0) */
            const struct open_frame *f = &frames[(int32_t)d - 1];
            const uint64_t enter_tsc = f->enter_tsc, child = f->child_ticks;
            const uint64_t duration = tsc < enter_tsc ? 0 : tsc - enter_tsc;
            const uint64_t below = hashes[(int32_t)d - 1], h = fr_call_path_hash(below, id);
            k->path_hash = is_exit ? below : h;        /* frame d-1's path, or d's */
            k->duration = duration;
            k->self = child < duration ? duration - child : 0;
            k->function_id = id;
            k->depth = d - is_exit;
            k->flags = is_exit ? (kind & FR_REC_TAIL_EXIT) << 1 : FR_CALL_ENTER;
            _Static_assert(FR_REC_TAIL_EXIT == 2 && FR_CALL_TAIL_EXIT == 4, "tail flag");
            k++;
            frames[(int32_t)d - 2].child_ticks += duration & (0 - (uint64_t)is_exit);
            /* as an enter: frame d (no argument in a batch; steps never show one) */
            ids[d] = id;
            hashes[d] = h;
            frames[d].enter_tsc = tsc;
            frames[d].child_ticks = 0;
            d = d + 1 - 2 * is_exit;
            max_depth = d > max_depth ? d : max_depth;
        }
        const size_t done = (size_t)(k - first);
        th->depth = d;
        if (done)
            th->last_tsc = r[-1].tsc;
        t->n_batch += done;
        /* enters - calls = d - d0, enters + calls = done */
        t->stats.calls += (uint64_t)(((int64_t)done - ((int64_t)d - (int64_t)d0)) / 2);
        t->stats.max_depth = max_depth;
        i += done;
        if (stopped)                                /* that record: general path */
            feed_function_general(t, tid, &recs[i++]);
    }
}

void fr_call_tracker_feed_functions(fr_call_tracker *t, int32_t tid,
                                    const fr_function_record *recs, size_t n)
{
    if (t->on_calls) {
        if (t->on_steps)
            feed_functions_steps(t, tid, recs, n);
        else if (t->enters)
            feed_functions_batched(t, tid, recs, n, true);
        else if (t->on_costs)
            feed_functions_costs(t, tid, recs, n);
        else
            feed_functions_batched(t, tid, recs, n, false);
        return;
    }
    for (size_t i = 0; i < n; i++)
        feed_function_general(t, tid, &recs[i]);
}

void fr_call_tracker_flush(fr_call_tracker *t)
{
    if (t->on_calls)
        flush_batch(t);
}

void fr_call_tracker_finish(fr_call_tracker *t)
{
    for (size_t i = 0; i < t->n_threads; i++) {
        struct thread_state *th = t->threads[i];
        while (th->depth) {
            close_top(t, th, th->last_tsc, FR_CALL_OPEN_AT_END);
            t->stats.open_at_end++;
        }
    }
    if (t->on_calls)
        flush_batch(t);
}
