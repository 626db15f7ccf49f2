/*
 * chrome_nesting.c - the times of Chrome complete events such that a viewer nests the
 * calls as they ran (see chrome_nesting.h for the rules and why).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "chrome_nesting.h"

/* An open call, at its depth. */
struct frame {
    int64_t real_start;   /* its enter's time */
    int64_t start;        /* the time written */
    int64_t min_end;      /* the earliest end that holds its callees */
    uint32_t function_id;
};

struct cv_nesting_thread {
    struct frame *frames;  /* frames[depth] */
    size_t cap;
    int64_t last_real, last_start;  /* the previous enter's time and the start written */
    bool entered;
};

static void *oom_check(void *p)
{
    if (!p) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    return p;
}

void cv_nesting_init(cv_nesting *n)
{
    *n = (cv_nesting){0};
    fr_u64_map_init(&n->by_tid);
}

void cv_nesting_free(cv_nesting *n)
{
    for (size_t i = 0; i < n->n_threads; i++)
        free(n->threads[i].frames);
    free(n->threads);
    fr_u64_map_free(&n->by_tid);
    *n = (cv_nesting){0};
}

static struct cv_nesting_thread *thread_of(cv_nesting *n, int32_t tid)
{
    uint32_t i = fr_u64_map_get(&n->by_tid, (uint32_t)tid);
    if (i != FR_U64_MAP_NONE)
        return &n->threads[i];
    if (n->n_threads == n->cap_threads) {
        n->cap_threads = n->cap_threads ? 2 * n->cap_threads : 16;
        n->threads = oom_check(realloc(n->threads, n->cap_threads * sizeof *n->threads));
    }
    n->threads[n->n_threads] = (struct cv_nesting_thread){0};
    fr_u64_map_put(&n->by_tid, (uint32_t)tid, (uint32_t)n->n_threads);
    return &n->threads[n->n_threads++];
}

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
/* 1 ns later, but never past the range (a damaged file's times reach its ends). */
static inline int64_t next_ns(int64_t t) { return t < INT64_MAX ? t + 1 : t; }

void cv_nesting_enter(cv_nesting *n, int32_t tid, uint32_t depth, uint32_t function_id, int64_t ns)
{
    struct cv_nesting_thread *th = thread_of(n, tid);
    if (depth >= th->cap) {
        size_t cap = th->cap ? 2 * th->cap : 64;
        while (cap <= depth)
            cap *= 2;
        th->frames = oom_check(realloc(th->frames, cap * sizeof *th->frames));
        th->cap = cap;
    }
    int64_t start = ns;
    /* The clock stood still since the previous enter (not backwards: a damaged file's
     * times are left alone): 1 ns after the previous start. */
    if (th->entered && ns >= th->last_real && ns <= th->last_start)
        start = next_ns(th->last_start);
    th->entered = true;
    th->last_real = ns;
    th->last_start = start;
    th->frames[depth] = (struct frame){ns, start, start, function_id};
    if (depth > 0)   /* the caller ends after this start */
        th->frames[depth - 1].min_end = max64(th->frames[depth - 1].min_end, next_ns(start));
}

void cv_nesting_call(cv_nesting *n, const fr_call *call, int64_t start_ns, int64_t end_ns,
                     int64_t *start, int64_t *end)
{
    *start = start_ns;
    *end = end_ns;
    struct cv_nesting_thread *th = thread_of(n, call->tid);
    if (call->depth >= th->cap)
        return;
    struct frame *f = &th->frames[call->depth];
    if (f->function_id != call->function_id || f->real_start != start_ns)
        return;   /* not an enter seen here: the times as they are */
    *start = f->start;
    if (end_ns >= start_ns)
        *end = max64(end_ns, f->min_end);
    if (call->depth > 0)
        th->frames[call->depth - 1].min_end = max64(th->frames[call->depth - 1].min_end, *end);
}
