/*
 * call_tracker.c - see call_tracker.h.
 *
 * Each thread has a stack of open frames: the function ids in one array (so that the
 * stack can be handed to callbacks as is, root first) and the rest of each frame in a
 * parallel array. Threads are found through a hash map from tid, with the last thread
 * cached: records come in per-thread blocks, so the map is rarely consulted.
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

struct thread_state {
    int32_t  tid;
    uint32_t depth;              /* open frames */
    size_t   cap;
    uint64_t last_tsc;
    uint32_t *ids;               /* ids[0..depth-1]: function ids, root first */
    struct open_frame *frames;
};

struct fr_call_tracker {
    fr_call_fn  on_call;
    fr_enter_fn on_enter;
    void       *ctx;
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
        free(t->threads[i]->ids);
        free(t->threads[i]->frames);
        free(t->threads[i]);
    }
    free(t->threads);
    fr_u64_map_free(&t->by_tid);
    free(t);
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
    if (t->on_call)
        t->on_call(&c, t->ctx);
}

__attribute__((noinline))
static void grow_stack(struct thread_state *th)
{
    size_t cap = th->cap;
    th->ids = fr_xgrow(th->ids, &cap, th->depth + 1, sizeof *th->ids, 64);
    th->frames = fr_xgrow(th->frames, &th->cap, th->depth + 1, sizeof *th->frames, 64);
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

void fr_call_tracker_feed(fr_call_tracker *t, const fr_record *rec)
{
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

void fr_call_tracker_finish(fr_call_tracker *t)
{
    for (size_t i = 0; i < t->n_threads; i++) {
        struct thread_state *th = t->threads[i];
        while (th->depth) {
            close_top(t, th, th->last_tsc, FR_CALL_OPEN_AT_END);
            t->stats.open_at_end++;
        }
    }
}
