/*
 * analysis_tracker_test.c - call_tracker on hand-made record streams: nesting, several
 * threads, recursion, unmatched exits, longjmp-like exits of deeper frames, tail exits,
 * FR_TE_LOST resets and frames left open at the end. Expected calls are written out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "call_tracker.h"
#include "func_stats.h"   /* fr_call_duration */

#define MAX_CALLS 64

struct seen_call {
    int32_t tid;
    uint32_t id, depth, flags;
    uint64_t enter, exit, child;
    uint32_t stack[8];
    int has_arg;
    uint64_t arg;
};

struct log {
    struct seen_call calls[MAX_CALLS];
    int n;
    int enters;
    uint32_t last_enter_stack[8];
    uint32_t last_enter_depth;
};

static void on_call(const fr_call *c, void *ctx)
{
    struct log *l = ctx;
    assert_true(l->n < MAX_CALLS);
    struct seen_call *s = &l->calls[l->n++];
    s->tid = c->tid;
    s->id = c->function_id;
    s->depth = c->depth;
    s->flags = c->flags;
    s->enter = c->enter_tsc;
    s->exit = c->exit_tsc;
    s->child = c->child_ticks;
    s->has_arg = c->has_arg;
    s->arg = c->arg;
    assert_int_equal(c->stack[c->depth], c->function_id);
    for (uint32_t i = 0; i <= c->depth && i < 8; i++)
        s->stack[i] = c->stack[i];
}

static void on_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx)
{
    (void)tid;
    (void)tsc;
    struct log *l = ctx;
    l->enters++;
    l->last_enter_depth = depth;
    for (uint32_t i = 0; i <= depth && i < 8; i++)
        l->last_enter_stack[i] = stack[i];
}

static fr_record rec(fr_record_kind kind, int32_t tid, uint32_t id, uint64_t tsc)
{
    return (fr_record){.kind = kind, .tid = tid, .function_id = id, .tsc = tsc};
}
#define ENTER(tid, id, tsc) feed(t, rec(FR_REC_ENTER, tid, id, tsc))
#define EXIT(tid, id, tsc)  feed(t, rec(FR_REC_EXIT, tid, id, tsc))

static void feed(fr_call_tracker *t, fr_record r)
{
    fr_call_tracker_feed(t, &r);
}

static void check_call(const struct seen_call *s, int32_t tid, uint32_t id, uint64_t enter,
                       uint64_t exit, uint64_t child, uint32_t depth, unsigned flags)
{
    assert_int_equal(s->tid, tid);
    assert_int_equal(s->id, id);
    assert_int_equal(s->enter, enter);
    assert_int_equal(s->exit, exit);
    assert_int_equal(s->child, child);
    assert_int_equal(s->depth, depth);
    assert_int_equal(s->flags, flags);
}

/* ---- the hand-made streams: one table row a case, records in and calls out ---- */

/* Records of a stream. */
#define E(tid_, id_, tsc_) {.kind = FR_REC_ENTER, .tid = (tid_), .function_id = (id_), .tsc = (tsc_)}
#define X(tid_, id_, tsc_) {.kind = FR_REC_EXIT, .tid = (tid_), .function_id = (id_), .tsc = (tsc_)}
#define T(tid_, id_, tsc_) {.kind = FR_REC_TAIL_EXIT, .tid = (tid_), .function_id = (id_), .tsc = (tsc_)}

/* A call the tracker must report, in order (the fields of check_call). */
struct want_call {
    int32_t tid;
    uint32_t id;
    uint64_t enter, exit, child;
    uint32_t depth;
    unsigned flags;
};
#define CALL(tid_, id_, enter_, exit_, child_, depth_, flags_) \
    {.tid = (tid_), .id = (id_), .enter = (enter_), .exit = (exit_), .child = (child_), \
     .depth = (depth_), .flags = (flags_)}

/* The statistics a case checks, each by name; the others are left to other cases. */
enum stat { CALLS, UNMATCHED_EXITS, CLOSED_BY_UNWIND, OPEN_AT_END, THREADS, MAX_DEPTH,
            DISCARDED_AT_LOST };
struct want_stat {
    enum stat stat;
    uint64_t value;
};

static uint64_t stat_value(const fr_call_tracker_stats *st, enum stat which)
{
    switch (which) {
    case CALLS: return st->calls;
    case UNMATCHED_EXITS: return st->unmatched_exits;
    case CLOSED_BY_UNWIND: return st->closed_by_unwind;
    case OPEN_AT_END: return st->open_at_end;
    case THREADS: return st->threads;
    case MAX_DEPTH: return st->max_depth;
    case DISCARDED_AT_LOST: return st->discarded_at_lost;
    }
    fail_msg("unknown statistic %d", (int)which);
    return 0;
}

#define COUNT(type, ...) (sizeof((const type[]){__VA_ARGS__}) / sizeof(type))

struct tracker_case {
    const char *name;
    const fr_record *records;
    size_t n_records;
    const struct want_call *calls;
    size_t n_calls;
    const struct want_stat *stats;
    size_t n_stats;
    /* more than the table says: run with on_enter, or checks of the log afterwards */
    int with_on_enter;
    void (*also)(const struct log *l);
};
#define RECORDS(...) .records = (const fr_record[]){__VA_ARGS__}, \
                     .n_records = COUNT(fr_record, __VA_ARGS__)
#define CALLS_(...)  .calls = (const struct want_call[]){__VA_ARGS__}, \
                     .n_calls = COUNT(struct want_call, __VA_ARGS__)
#define STATS(...)   .stats = (const struct want_stat[]){__VA_ARGS__}, \
                     .n_stats = COUNT(struct want_stat, __VA_ARGS__)

/* on_enter sees the stack of the last enter (7,2,150): 1 -> 3 -> 2; the call it opens
 * reports the same stack. */
static void nested_also(const struct log *l)
{
    assert_int_equal(l->enters, 4);
    assert_int_equal(l->last_enter_depth, 2);
    assert_int_equal(l->last_enter_stack[0], 1);
    assert_int_equal(l->last_enter_stack[1], 3);
    assert_int_equal(l->last_enter_stack[2], 2);
    assert_int_equal(l->calls[1].stack[0], 1);
    assert_int_equal(l->calls[1].stack[1], 3);
}

static void enter_arg_also(const struct log *l)
{
    assert_true(l->calls[0].has_arg);
    assert_int_equal(l->calls[0].arg, 0xdeadbeef);
}

static const struct tracker_case cases[] = {
    {.name = "nested calls",
     RECORDS(E(7, 1, 100), E(7, 2, 110), X(7, 2, 130), E(7, 3, 140), E(7, 2, 150),
             X(7, 2, 155), X(7, 3, 170), X(7, 1, 200)),
     CALLS_(CALL(7, 2, 110, 130, 0, 1, 0), CALL(7, 2, 150, 155, 0, 2, 0),
            CALL(7, 3, 140, 170, 5, 1, 0), CALL(7, 1, 100, 200, 20 + 30, 0, 0)),
     STATS({CALLS, 4}, {UNMATCHED_EXITS, 0}, {THREADS, 1}, {MAX_DEPTH, 3}),
     .with_on_enter = 1, .also = nested_also},
    {.name = "threads interleaved",
     RECORDS(E(1, 10, 0),
             E(2, 10, 5),   /* same function, other thread */
             E(1, 11, 10), X(2, 10, 50), X(1, 11, 20), X(1, 10, 40)),
     CALLS_(CALL(2, 10, 5, 50, 0, 0, 0), CALL(1, 11, 10, 20, 0, 1, 0),
            CALL(1, 10, 0, 40, 10, 0, 0)),
     STATS({THREADS, 2})},
    {.name = "recursion",
     RECORDS(E(1, 5, 0), E(1, 5, 10), E(1, 5, 20), X(1, 5, 25), X(1, 5, 40), X(1, 5, 100)),
     CALLS_(CALL(1, 5, 20, 25, 0, 2, 0), CALL(1, 5, 10, 40, 5, 1, 0),
            CALL(1, 5, 0, 100, 30, 0, 0)),
     },
    {.name = "unmatched exit dropped",
     RECORDS(X(1, 9, 5),    /* thread started mid-call: nothing open */
             E(1, 1, 10),
             X(1, 9, 15),   /* not on the stack */
             X(1, 1, 20),
             X(1, 1, 30)),  /* already closed */
     CALLS_(CALL(1, 1, 10, 20, 0, 0, 0)),
     STATS({UNMATCHED_EXITS, 3}, {CALLS, 1})},
    /* main -> setjmp_caller -> a -> b, then b longjmps back: the next exit is of
     * setjmp_caller. */
    {.name = "longjmp closes the frames above",
     RECORDS(E(3, 1, 0), E(3, 2, 10), E(3, 3, 20), E(3, 4, 30),
             X(3, 2, 70),   /* closes 4 and 3 at 70, then 2 normally */
             X(3, 1, 100)),
     CALLS_(CALL(3, 4, 30, 70, 0, 3, FR_CALL_CLOSED_BY_UNWIND),
            CALL(3, 3, 20, 70, 40, 2, FR_CALL_CLOSED_BY_UNWIND),
            CALL(3, 2, 10, 70, 50, 1, 0), CALL(3, 1, 0, 100, 60, 0, 0)),
     STATS({CLOSED_BY_UNWIND, 2}, {UNMATCHED_EXITS, 0})},
    {.name = "open frames closed at the end",
     RECORDS(E(1, 1, 0), E(1, 2, 10), E(2, 3, 5),
             X(1, 2, 30),   /* thread 1's last timestamp */
             E(2, 4, 50)),  /* thread 2's last timestamp */
     CALLS_(CALL(1, 2, 10, 30, 0, 1, 0), CALL(1, 1, 0, 30, 20, 0, FR_CALL_OPEN_AT_END),
            CALL(2, 4, 50, 50, 0, 1, FR_CALL_OPEN_AT_END),
            CALL(2, 3, 5, 50, 0, 0, FR_CALL_OPEN_AT_END)),
     STATS({OPEN_AT_END, 3})},
    /* f tail-calls g: enter f, tail-exit f, enter g, exit g. */
    {.name = "tail exit",
     RECORDS(E(1, 1, 0), E(1, 2, 10), T(1, 2, 20), E(1, 3, 20), X(1, 3, 35), X(1, 1, 40)),
     CALLS_(CALL(1, 2, 10, 20, 0, 1, FR_CALL_TAIL_EXIT), CALL(1, 3, 20, 35, 0, 1, 0),
            CALL(1, 1, 0, 40, 25, 0, 0)),
     },
    {.name = "lost records reset the thread",
     RECORDS(E(1, 1, 0), E(1, 2, 10), E(2, 5, 10),
             {.kind = FR_REC_TYPED, .tid = 1, .event_type = FR_TE_LOST, .tsc = 20},
             X(1, 2, 30),   /* its enter is before the gap: unmatched now */
             E(1, 3, 40), X(1, 3, 45),
             X(2, 5, 60)),  /* thread 2 is not affected */
     CALLS_(CALL(1, 3, 40, 45, 0, 0, 0), CALL(2, 5, 10, 60, 0, 0, 0)),
     STATS({DISCARDED_AT_LOST, 2}, {UNMATCHED_EXITS, 1})},
    {.name = "enter with argument, other records ignored",
     RECORDS({.kind = FR_REC_ENTER_ARG, .tid = 1, .function_id = 4, .tsc = 10, .arg = 0xdeadbeef},
             {.kind = FR_REC_BLOCK, .tid = 1, .tsc = 11},
             {.kind = FR_REC_CUSTOM, .tid = 1, .tsc = 12},
             {.kind = FR_REC_TYPED, .tid = 1, .event_type = FR_TE_EVENT, .tsc = 13},
             X(1, 4, 20)),
     CALLS_(CALL(1, 4, 10, 20, 0, 0, 0)),
     .also = enter_arg_also},
    {.name = "a clock going backwards gives zero length",
     RECORDS(E(1, 1, 100), E(1, 2, 110), X(1, 2, 90), X(1, 1, 120)),
     CALLS_(CALL(1, 2, 110, 110, 0, 1, 0), CALL(1, 1, 100, 120, 0, 0, 0)),
     },
};

static void test_hand_made_streams(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const struct tracker_case *k = &cases[c];
        print_message("case: %s\n", k->name);
        struct log l = {0};
        fr_call_tracker *t = fr_call_tracker_new(on_call, k->with_on_enter ? on_enter : NULL, &l);
        for (size_t i = 0; i < k->n_records; i++)
            fr_call_tracker_feed(t, &k->records[i]);
        fr_call_tracker_finish(t);
        assert_int_equal(l.n, k->n_calls);
        for (size_t i = 0; i < k->n_calls; i++) {
            const struct want_call *w = &k->calls[i];
            check_call(&l.calls[i], w->tid, w->id, w->enter, w->exit, w->child, w->depth, w->flags);
        }
        const fr_call_tracker_stats *st = fr_call_tracker_get_stats(t);
        for (size_t i = 0; i < k->n_stats; i++)
            assert_int_equal(stat_value(st, k->stats[i].stat), k->stats[i].value);
        if (k->also)
            k->also(&l);
        fr_call_tracker_free(t);
    }
}

static int count_calls;
static void count_on_call(const fr_call *c, void *ctx)
{
    (void)c;
    (void)ctx;
    count_calls++;
}

static void count_batch(const fr_call *c, size_t n, void *ctx)
{
    (void)c;
    (void)ctx;
    count_calls += (int)n;
}

/* Enters beyond FR_CALL_TRACKER_MAX_DEPTH are ignored and counted, through each way of
 * feeding a tracker: record by record in callback mode, record by record in batched mode
 * (whose fast path must stop at the bound too), and as fr_function_record runs through
 * fr_call_tracker_feed_functions (whose loop has its own bound check). */
enum feeding { CALLBACKS, BATCHED, FUNCTION_RUNS };

static void test_depth_is_bounded(void **state)
{
    (void)state;
    enum { N = FR_CALL_TRACKER_MAX_DEPTH + 10 };
    static fr_function_record enters[N];
    uint64_t tsc = 0;
    for (enum feeding how = CALLBACKS; how <= FUNCTION_RUNS; how++) {
        print_message("feeding: %d\n", (int)how);
        count_calls = 0;
        fr_call_tracker *t = how == CALLBACKS ? fr_call_tracker_new(count_on_call, NULL, NULL)
                                              : fr_call_tracker_new_batched(count_batch, NULL);
        if (how == FUNCTION_RUNS) {
            for (uint32_t i = 0; i < N; i++)
                enters[i] = (fr_function_record){.tsc = tsc++, .function_id = 1 + (i & 7),
                                                 .kind = FR_REC_ENTER};
            fr_call_tracker_feed_functions(t, 1, enters, N);
        } else {
            for (uint32_t i = 0; i < N; i++)
                ENTER(1, 1 + (i & 7), tsc++);
        }
        const fr_call_tracker_stats *st = fr_call_tracker_get_stats(t);
        assert_int_equal(st->too_deep, 10);
        assert_int_equal(st->max_depth, FR_CALL_TRACKER_MAX_DEPTH);
        fr_call_tracker_finish(t);
        assert_int_equal(count_calls, FR_CALL_TRACKER_MAX_DEPTH);
        fr_call_tracker_free(t);
    }
}

static void test_many_threads(void **state)
{
    (void)state;
    count_calls = 0;
    fr_call_tracker *t = fr_call_tracker_new(count_on_call, NULL, NULL);
    for (int32_t tid = 1; tid <= 1000; tid++)
        ENTER(tid * 7919, 1, tid);
    for (int32_t tid = 1000; tid >= 1; tid--)
        EXIT(tid * 7919, 1, 5000);
    assert_int_equal(count_calls, 1000);
    assert_int_equal(fr_call_tracker_get_stats(t)->threads, 1000);
    assert_int_equal(fr_call_tracker_get_stats(t)->unmatched_exits, 0);
    fr_call_tracker_free(t);
}

/* Batched mode must report exactly the calls of callback mode (minus the stack), in the
 * same order, on a long pseudo-random stream with every unusual case: unmatched exits,
 * exits of deeper frames, tail exits, arguments, lost-record resets, clocks going back,
 * several threads, and a batch boundary crossed many times. */
static fr_call seen_calls[200000];
static size_t n_seen;
/* calls and enters in the order of the callbacks, for the batched enters mode */
static fr_call seen_events[200000];
static uint64_t seen_paths[200000];   /* each event's fr_call_path_hash, from its stack */
static size_t n_events;
static uint64_t path_of(const uint32_t *stack, uint32_t depth)
{
    uint64_t h = FR_CALL_PATH_SEED;
    for (uint32_t d = 0; d <= depth; d++)
        h = fr_call_path_hash(h, stack[d]);
    return h;
}
static void collect_one(const fr_call *c, void *ctx)
{
    (void)ctx;
    assert_true(n_seen < 200000 && n_events < 200000);
    seen_calls[n_seen++] = *c;
    seen_paths[n_events] = path_of(c->stack, c->depth);
    seen_events[n_events++] = *c;
}
static void collect_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx)
{
    (void)ctx;
    assert_true(n_events < 200000);
    seen_paths[n_events] = path_of(stack, depth);
    seen_events[n_events++] = (fr_call){.tid = tid, .function_id = stack[depth], .enter_tsc = tsc,
                                        .depth = depth, .flags = FR_CALL_ENTER};
}
/* Checks a batch of the enters mode against seen_events; ctx: the count checked so far. */
static void check_events(const fr_call *calls, size_t n, void *ctx)
{
    size_t *checked = ctx;
    for (size_t i = 0; i < n; i++, (*checked)++) {
        assert_true(*checked < n_events);
        const fr_call *a = &seen_events[*checked], *b = &calls[i];
        assert_null(b->stack);
        assert_int_equal(a->tid, b->tid);
        assert_int_equal(a->function_id, b->function_id);
        assert_int_equal(a->enter_tsc, b->enter_tsc);
        assert_int_equal(a->depth, b->depth);
        assert_int_equal(a->flags, b->flags);
        if (a->flags & FR_CALL_ENTER)
            continue;
        assert_int_equal(a->exit_tsc, b->exit_tsc);
        assert_int_equal(a->child_ticks, b->child_ticks);
        assert_int_equal(a->has_arg, b->has_arg);
        if (a->has_arg)
            assert_int_equal(a->arg, b->arg);
    }
}
static size_t n_checked;      /* default counter of check_batch (ctx NULL) */
static void check_batch(const fr_call *calls, size_t n, void *ctx)
{
    size_t *checked = ctx ? ctx : &n_checked;
    for (size_t i = 0; i < n; i++, (*checked)++) {
        const fr_call *a = &seen_calls[*checked], *b = &calls[i];
        assert_true(*checked < n_seen);
        assert_null(b->stack);
        assert_int_equal(a->tid, b->tid);
        assert_int_equal(a->function_id, b->function_id);
        assert_int_equal(a->enter_tsc, b->enter_tsc);
        assert_int_equal(a->exit_tsc, b->exit_tsc);
        assert_int_equal(a->child_ticks, b->child_ticks);
        assert_int_equal(a->depth, b->depth);
        assert_int_equal(a->flags, b->flags);
        assert_int_equal(a->has_arg, b->has_arg);
        if (a->has_arg)
            assert_int_equal(a->arg, b->arg);
    }
}

/* Checks a batch of the costs mode against seen_calls; ctx: the count checked so far. */
static void check_costs(const fr_call_cost *costs, size_t n, void *ctx)
{
    size_t *checked = ctx;
    for (size_t i = 0; i < n; i++, (*checked)++) {
        assert_true(*checked < n_seen);
        const fr_call *a = &seen_calls[*checked];
        assert_int_equal(a->function_id, costs[i].function_id);
        assert_int_equal(a->flags, costs[i].flags);
        assert_int_equal(fr_call_duration(a), costs[i].duration);
        uint64_t self = a->child_ticks < fr_call_duration(a) ? fr_call_duration(a) - a->child_ticks : 0;
        assert_int_equal(self, costs[i].self);
    }
}

/* Checks a batch of the steps mode against seen_events; ctx: the count checked so far. */
static void check_steps(int32_t tid, const fr_call_step *steps, size_t n, void *ctx)
{
    size_t *checked = ctx;
    for (size_t i = 0; i < n; i++, (*checked)++) {
        assert_true(*checked < n_events);
        const fr_call *a = &seen_events[*checked];
        const fr_call_step *b = &steps[i];
        assert_int_equal(a->tid, tid);
        assert_int_equal(seen_paths[*checked], b->path_hash);
        assert_int_equal(a->function_id, b->function_id);
        assert_int_equal(a->depth, b->depth);
        assert_int_equal(a->flags, b->flags);
        if (a->flags & FR_CALL_ENTER)
            continue;
        assert_int_equal(fr_call_duration(a), b->duration);
        assert_int_equal(fr_call_self(a), b->self);
    }
}

/* A run of raw records (fr_call_tracker_feed_function_bytes, as account reads a block)
 * of thread tid: n 8-byte XRay function records in raw, base the clock before the first,
 * last the time of the last. A record that is not a plain function record is written
 * after them (metadata, an enter with an argument or a bad kind, by end): the tracker
 * must stop there, having taken the n records and added up their deltas. */
static void feed_raw(fr_call_tracker *t, int32_t tid, uint8_t *raw, size_t n, uint64_t base,
                     uint64_t last, unsigned end)
{
    uint32_t word = end % 3 == 0 ? 1u : end % 3 == 1 ? fr_function_record_word(7, FR_FN_ENTER_ARG)
                                                      : (7u << 4) | (5u << 1);
    memcpy(raw + n * FR_XRAY_FUNCTION_RECORD_SIZE, &word, 4);
    memset(raw + n * FR_XRAY_FUNCTION_RECORD_SIZE + 4, 0, 4);
    uint64_t tsc = base;
    assert_int_equal(fr_call_tracker_feed_function_bytes(t, tid, raw, n + 1, &tsc), n);
    assert_int_equal(tsc, last);
    /* a run that begins with such a record takes nothing, and makes no thread of tid */
    assert_int_equal(fr_call_tracker_feed_function_bytes(t, tid + 1000, raw + n * FR_XRAY_FUNCTION_RECORD_SIZE,
                                                         1, &tsc), 0);
    assert_int_equal(tsc, last);
}

static void test_batched_mode_matches_callbacks(void **state)
{
    (void)state;
    n_seen = n_checked = n_events = 0;
    fr_call_tracker *t1 = fr_call_tracker_new(collect_one, collect_enter, NULL);
    /* t4, t5: the batched enters mode (calls and enters in one stream, as the stack
     * aggregation reads them), fed as t2 and as t3 */
    size_t n_checked4 = 0, n_checked5 = 0;
    fr_call_tracker *t4 = fr_call_tracker_new_batched_enters(check_events, &n_checked4);
    fr_call_tracker *t5 = fr_call_tracker_new_batched_enters(check_events, &n_checked5);
    /* t6, t7: the costs mode (account's), fed as t2 and as t3 */
    size_t n_checked6 = 0, n_checked7 = 0;
    fr_call_tracker *t6 = fr_call_tracker_new_costs(check_costs, &n_checked6);
    fr_call_tracker *t7 = fr_call_tracker_new_costs(check_costs, &n_checked7);
    /* t8, t9: the steps mode (the stack aggregation's), fed as t2 and as t3 */
    size_t n_checked8 = 0, n_checked9 = 0;
    fr_call_tracker *t8 = fr_call_tracker_new_steps(check_steps, &n_checked8);
    fr_call_tracker *t9 = fr_call_tracker_new_steps(check_steps, &n_checked9);
    fr_call_tracker *t2 = fr_call_tracker_new_batched(check_batch, NULL);
    /* t3: the same records, runs of plain function records of one thread given as
     * fr_function_record batches (as account reads them), of varied lengths */
    size_t n_checked3 = 0;
    fr_call_tracker *t3 = fr_call_tracker_new_batched(check_batch, &n_checked3);
    /* t10, t11: costs and steps modes fed the runs as raw XRay records (account reads
     * them so), cut where the clock goes back (deltas only go forward) */
    size_t n_checked10 = 0, n_checked11 = 0;
    fr_call_tracker *t10 = fr_call_tracker_new_costs(check_costs, &n_checked10);
    fr_call_tracker *t11 = fr_call_tracker_new_steps(check_steps, &n_checked11);
    uint8_t raw[701 * FR_XRAY_FUNCTION_RECORD_SIZE];
    uint64_t raw_base = 0, raw_last = 0;
    size_t n_raw = 0;
    fr_function_record run[700];
    size_t n_run = 0, run_max = 1;
    int32_t run_tid = 0;
    uint64_t rng = 12345, tsc[3] = {1000, 1000, 1000};
    uint32_t open[3][64];
    unsigned depth[3] = {0};
    for (int i = 0; i < 150000; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(rng >> 33);
        unsigned th = (r >> 20) % 7 == 0 ? (r >> 8) % 3 : (unsigned)(i / 5000) % 3;
        fr_record rec = {.tid = 100 + (int32_t)th};
        tsc[th] += r % 50;
        rec.tsc = r % 97 == 0 ? tsc[th] - 30 : tsc[th];       /* sometimes back in time */
        unsigned what = r % 100;
        if (what < 45 && depth[th] < 64) {
            rec.kind = what < 3 ? FR_REC_ENTER_ARG : FR_REC_ENTER;
            rec.function_id = 1 + (r >> 10) % 40;
            rec.arg = r;
            open[th][depth[th]++] = rec.function_id;
        } else if (what < 92 && depth[th]) {
            rec.kind = what < 50 ? FR_REC_TAIL_EXIT : FR_REC_EXIT;
            unsigned back = what < 55 ? (r >> 12) % depth[th] : 0; /* deeper frame: unwind */
            depth[th] -= back + 1;
            rec.function_id = open[th][depth[th]];
        } else if (what < 97) {
            rec.kind = FR_REC_EXIT;                           /* probably not open */
            rec.function_id = 1 + (r >> 10) % 60;
        } else if (what < 98) {
            rec.kind = FR_REC_TYPED;
            rec.event_type = FR_TE_LOST;
            depth[th] = 0;
        } else {
            rec.kind = FR_REC_CUSTOM;
        }
        /* the model stack above is only a guide for generating; the trackers decide */
        fr_call_tracker_feed(t1, &rec);
        fr_call_tracker_feed(t2, &rec);
        fr_call_tracker_feed(t4, &rec);
        fr_call_tracker_feed(t6, &rec);
        fr_call_tracker_feed(t8, &rec);
        int plain = rec.kind <= FR_REC_TAIL_EXIT;
        if (n_raw && (!plain || rec.tid != run_tid || n_run == run_max || rec.tsc < raw_last ||
                      rec.tsc - raw_last > UINT32_MAX)) {
            feed_raw(t10, run_tid, raw, n_raw, raw_base, raw_last, r);
            feed_raw(t11, run_tid, raw, n_raw, raw_base, raw_last, r >> 2);
            n_raw = 0;
        }
        if (n_run && (!plain || rec.tid != run_tid || n_run == run_max)) {
            fr_call_tracker_feed_functions(t3, run_tid, run, n_run);
            fr_call_tracker_feed_functions(t5, run_tid, run, n_run);
            fr_call_tracker_feed_functions(t7, run_tid, run, n_run);
            fr_call_tracker_feed_functions(t9, run_tid, run, n_run);
            n_run = 0;
            run_max = 1 + (r >> 3) % 700;
        }
        if (plain) {
            run_tid = rec.tid;
            run[n_run++] = (fr_function_record){.tsc = rec.tsc, .function_id = rec.function_id,
                                                .kind = rec.kind};
            if (!n_raw)
                raw_last = raw_base = rec.tsc - (rec.tsc >= 3 ? r % 4 : 0);
            uint64_t u = FR_FN_RECORD_U64(rec.function_id, (unsigned)rec.kind, rec.tsc - raw_last);
            memcpy(raw + n_raw++ * FR_XRAY_FUNCTION_RECORD_SIZE, &u, sizeof u);
            raw_last = rec.tsc;
        } else {
            fr_call_tracker_feed(t3, &rec);
            fr_call_tracker_feed(t5, &rec);
            fr_call_tracker_feed(t7, &rec);
            fr_call_tracker_feed(t9, &rec);
            fr_call_tracker_feed(t10, &rec);
            fr_call_tracker_feed(t11, &rec);
        }
    }
    if (n_raw) {
        feed_raw(t10, run_tid, raw, n_raw, raw_base, raw_last, 0);
        feed_raw(t11, run_tid, raw, n_raw, raw_base, raw_last, 1);
    }
    if (n_run) {
        fr_call_tracker_feed_functions(t3, run_tid, run, n_run);
        fr_call_tracker_feed_functions(t5, run_tid, run, n_run);
        fr_call_tracker_feed_functions(t7, run_tid, run, n_run);
        fr_call_tracker_feed_functions(t9, run_tid, run, n_run);
    }
    fr_call_tracker_finish(t1);
    fr_call_tracker_finish(t2);
    fr_call_tracker_finish(t3);
    fr_call_tracker_finish(t4);
    fr_call_tracker_finish(t5);
    fr_call_tracker_finish(t6);
    fr_call_tracker_finish(t7);
    fr_call_tracker_finish(t8);
    fr_call_tracker_finish(t9);
    fr_call_tracker_finish(t10);
    fr_call_tracker_finish(t11);
    assert_int_equal(n_checked10, n_seen);
    assert_int_equal(n_checked11, n_events);
    assert_int_equal(n_checked6, n_seen);
    assert_int_equal(n_checked7, n_seen);
    assert_int_equal(n_checked4, n_events);
    assert_int_equal(n_checked5, n_events);
    assert_int_equal(n_checked8, n_events);
    assert_int_equal(n_checked9, n_events);
    assert_true(n_events > n_seen + 50000);
    fr_call_tracker *others[] = {t4, t5, t6, t7, t8, t9, t10, t11};
    for (int k = 0; k < 8; k++) {
        const fr_call_tracker_stats *x = fr_call_tracker_get_stats(t1),
                                    *y = fr_call_tracker_get_stats(others[k]);
        assert_int_equal(x->calls, y->calls);
        assert_int_equal(x->unmatched_exits, y->unmatched_exits);
        assert_int_equal(x->closed_by_unwind, y->closed_by_unwind);
        assert_int_equal(x->open_at_end, y->open_at_end);
        assert_int_equal(x->discarded_at_lost, y->discarded_at_lost);
        assert_int_equal(x->max_depth, y->max_depth);
        assert_int_equal(x->threads, y->threads);
    }
    fr_call_tracker_free(t4);
    fr_call_tracker_free(t5);
    fr_call_tracker_free(t6);
    fr_call_tracker_free(t7);
    fr_call_tracker_free(t8);
    fr_call_tracker_free(t9);
    fr_call_tracker_free(t10);
    fr_call_tracker_free(t11);
    assert_int_equal(n_checked, n_seen);
    assert_int_equal(n_checked3, n_seen);
    assert_true(n_seen > 50000);
    const fr_call_tracker_stats *a = fr_call_tracker_get_stats(t1), *b = fr_call_tracker_get_stats(t2);
    assert_int_equal(a->calls, b->calls);
    assert_int_equal(a->unmatched_exits, b->unmatched_exits);
    assert_int_equal(a->closed_by_unwind, b->closed_by_unwind);
    assert_int_equal(a->open_at_end, b->open_at_end);
    assert_int_equal(a->discarded_at_lost, b->discarded_at_lost);
    assert_int_equal(a->threads, b->threads);
    assert_int_equal(a->max_depth, b->max_depth);
    const fr_call_tracker_stats *c = fr_call_tracker_get_stats(t3);
    assert_int_equal(a->calls, c->calls);
    assert_int_equal(a->unmatched_exits, c->unmatched_exits);
    assert_int_equal(a->closed_by_unwind, c->closed_by_unwind);
    assert_int_equal(a->open_at_end, c->open_at_end);
    assert_int_equal(a->discarded_at_lost, c->discarded_at_lost);
    assert_int_equal(a->threads, c->threads);
    assert_int_equal(a->max_depth, c->max_depth);
    assert_true(a->unmatched_exits > 100 && a->closed_by_unwind > 100);
    fr_call_tracker_free(t1);
    fr_call_tracker_free(t2);
    fr_call_tracker_free(t3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_made_streams),
        cmocka_unit_test(test_depth_is_bounded),
        cmocka_unit_test(test_many_threads),
        cmocka_unit_test(test_batched_mode_matches_callbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
