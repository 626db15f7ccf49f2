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
#define TAIL(tid, id, tsc)  feed(t, rec(FR_REC_TAIL_EXIT, tid, id, tsc))

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

static void test_nested_calls(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, on_enter, &l);
    ENTER(7, 1, 100);
    ENTER(7, 2, 110);
    EXIT(7, 2, 130);
    ENTER(7, 3, 140);
    ENTER(7, 2, 150);
    assert_int_equal(l.last_enter_depth, 2);
    assert_int_equal(l.last_enter_stack[0], 1);
    assert_int_equal(l.last_enter_stack[1], 3);
    assert_int_equal(l.last_enter_stack[2], 2);
    EXIT(7, 2, 155);
    EXIT(7, 3, 170);
    EXIT(7, 1, 200);
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.enters, 4);
    check_call(&l.calls[0], 7, 2, 110, 130, 0, 1, 0);
    check_call(&l.calls[1], 7, 2, 150, 155, 0, 2, 0);
    assert_int_equal(l.calls[1].stack[0], 1);
    assert_int_equal(l.calls[1].stack[1], 3);
    check_call(&l.calls[2], 7, 3, 140, 170, 5, 1, 0);
    check_call(&l.calls[3], 7, 1, 100, 200, 20 + 30, 0, 0);
    const fr_call_tracker_stats *st = fr_call_tracker_get_stats(t);
    assert_int_equal(st->calls, 4);
    assert_int_equal(st->unmatched_exits, 0);
    assert_int_equal(st->threads, 1);
    assert_int_equal(st->max_depth, 3);
    fr_call_tracker_free(t);
}

static void test_threads_interleaved(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    ENTER(1, 10, 0);
    ENTER(2, 10, 5);   /* same function, other thread */
    ENTER(1, 11, 10);
    EXIT(2, 10, 50);
    EXIT(1, 11, 20);
    EXIT(1, 10, 40);
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 3);
    check_call(&l.calls[0], 2, 10, 5, 50, 0, 0, 0);
    check_call(&l.calls[1], 1, 11, 10, 20, 0, 1, 0);
    check_call(&l.calls[2], 1, 10, 0, 40, 10, 0, 0);
    assert_int_equal(fr_call_tracker_get_stats(t)->threads, 2);
    fr_call_tracker_free(t);
}

static void test_recursion(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    ENTER(1, 5, 0);
    ENTER(1, 5, 10);
    ENTER(1, 5, 20);
    EXIT(1, 5, 25);
    EXIT(1, 5, 40);
    EXIT(1, 5, 100);
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 3);
    check_call(&l.calls[0], 1, 5, 20, 25, 0, 2, 0);
    check_call(&l.calls[1], 1, 5, 10, 40, 5, 1, 0);
    check_call(&l.calls[2], 1, 5, 0, 100, 30, 0, 0);
    fr_call_tracker_free(t);
}

static void test_unmatched_exit_dropped(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    EXIT(1, 9, 5);       /* thread started mid-call: nothing open */
    ENTER(1, 1, 10);
    EXIT(1, 9, 15);      /* not on the stack */
    EXIT(1, 1, 20);
    EXIT(1, 1, 30);      /* already closed */
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 1);
    check_call(&l.calls[0], 1, 1, 10, 20, 0, 0, 0);
    const fr_call_tracker_stats *st = fr_call_tracker_get_stats(t);
    assert_int_equal(st->unmatched_exits, 3);
    assert_int_equal(st->calls, 1);
    fr_call_tracker_free(t);
}

/* main -> setjmp_caller -> a -> b, then b longjmps back: the next exit is of setjmp_caller. */
static void test_longjmp_closes_frames_above(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    ENTER(3, 1, 0);
    ENTER(3, 2, 10);
    ENTER(3, 3, 20);
    ENTER(3, 4, 30);
    EXIT(3, 2, 70);      /* closes 4 and 3 at 70, then 2 normally */
    EXIT(3, 1, 100);
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 4);
    check_call(&l.calls[0], 3, 4, 30, 70, 0, 3, FR_CALL_CLOSED_BY_UNWIND);
    check_call(&l.calls[1], 3, 3, 20, 70, 40, 2, FR_CALL_CLOSED_BY_UNWIND);
    check_call(&l.calls[2], 3, 2, 10, 70, 50, 1, 0);
    check_call(&l.calls[3], 3, 1, 0, 100, 60, 0, 0);
    const fr_call_tracker_stats *st = fr_call_tracker_get_stats(t);
    assert_int_equal(st->closed_by_unwind, 2);
    assert_int_equal(st->unmatched_exits, 0);
    fr_call_tracker_free(t);
}

static void test_open_frames_closed_at_end(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    ENTER(1, 1, 0);
    ENTER(1, 2, 10);
    ENTER(2, 3, 5);
    EXIT(1, 2, 30);     /* thread 1's last timestamp */
    ENTER(2, 4, 50);    /* thread 2's last timestamp */
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 4);
    check_call(&l.calls[0], 1, 2, 10, 30, 0, 1, 0);
    check_call(&l.calls[1], 1, 1, 0, 30, 20, 0, FR_CALL_OPEN_AT_END);
    check_call(&l.calls[2], 2, 4, 50, 50, 0, 1, FR_CALL_OPEN_AT_END);
    check_call(&l.calls[3], 2, 3, 5, 50, 0, 0, FR_CALL_OPEN_AT_END);
    assert_int_equal(fr_call_tracker_get_stats(t)->open_at_end, 3);
    fr_call_tracker_free(t);
}

/* f tail-calls g: enter f, tail-exit f, enter g, exit g. */
static void test_tail_exit(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    ENTER(1, 1, 0);
    ENTER(1, 2, 10);
    TAIL(1, 2, 20);
    ENTER(1, 3, 20);
    EXIT(1, 3, 35);
    EXIT(1, 1, 40);
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 3);
    check_call(&l.calls[0], 1, 2, 10, 20, 0, 1, FR_CALL_TAIL_EXIT);
    check_call(&l.calls[1], 1, 3, 20, 35, 0, 1, 0);
    check_call(&l.calls[2], 1, 1, 0, 40, 25, 0, 0);
    fr_call_tracker_free(t);
}

static void test_lost_resets_thread(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    ENTER(1, 1, 0);
    ENTER(1, 2, 10);
    ENTER(2, 5, 10);
    fr_record lost = {.kind = FR_REC_TYPED, .tid = 1, .event_type = FR_TE_LOST, .tsc = 20};
    fr_call_tracker_feed(t, &lost);
    EXIT(1, 2, 30);      /* its enter is before the gap: unmatched now */
    ENTER(1, 3, 40);
    EXIT(1, 3, 45);
    EXIT(2, 5, 60);      /* thread 2 is not affected */
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 2);
    check_call(&l.calls[0], 1, 3, 40, 45, 0, 0, 0);
    check_call(&l.calls[1], 2, 5, 10, 60, 0, 0, 0);
    const fr_call_tracker_stats *st = fr_call_tracker_get_stats(t);
    assert_int_equal(st->discarded_at_lost, 2);
    assert_int_equal(st->unmatched_exits, 1);
    fr_call_tracker_free(t);
}

static void test_enter_arg_and_other_records(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    fr_record r = rec(FR_REC_ENTER_ARG, 1, 4, 10);
    r.arg = 0xdeadbeef;
    fr_call_tracker_feed(t, &r);
    fr_record blk = {.kind = FR_REC_BLOCK, .tid = 1, .tsc = 11};
    fr_call_tracker_feed(t, &blk);
    fr_record custom = {.kind = FR_REC_CUSTOM, .tid = 1, .tsc = 12};
    fr_call_tracker_feed(t, &custom);
    fr_record other = {.kind = FR_REC_TYPED, .tid = 1, .event_type = FR_TE_EVENT, .tsc = 13};
    fr_call_tracker_feed(t, &other);
    EXIT(1, 4, 20);
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 1);
    check_call(&l.calls[0], 1, 4, 10, 20, 0, 0, 0);
    assert_true(l.calls[0].has_arg);
    assert_int_equal(l.calls[0].arg, 0xdeadbeef);
    fr_call_tracker_free(t);
}

static void test_backwards_clock_gives_zero_length(void **state)
{
    (void)state;
    struct log l = {0};
    fr_call_tracker *t = fr_call_tracker_new(on_call, NULL, &l);
    ENTER(1, 1, 100);
    ENTER(1, 2, 110);
    EXIT(1, 2, 90);
    EXIT(1, 1, 120);
    fr_call_tracker_finish(t);
    assert_int_equal(l.n, 2);
    check_call(&l.calls[0], 1, 2, 110, 110, 0, 1, 0);
    check_call(&l.calls[1], 1, 1, 100, 120, 0, 0, 0);
    fr_call_tracker_free(t);
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

static void test_depth_is_bounded(void **state)
{
    (void)state;
    count_calls = 0;
    fr_call_tracker *t = fr_call_tracker_new(count_on_call, NULL, NULL);
    uint64_t tsc = 0;
    for (uint32_t i = 0; i < FR_CALL_TRACKER_MAX_DEPTH + 10; i++)
        ENTER(1, 1 + (i & 7), tsc++);
    const fr_call_tracker_stats *st = fr_call_tracker_get_stats(t);
    assert_int_equal(st->too_deep, 10);
    assert_int_equal(st->max_depth, FR_CALL_TRACKER_MAX_DEPTH);
    fr_call_tracker_finish(t);
    assert_int_equal(count_calls, FR_CALL_TRACKER_MAX_DEPTH);
    fr_call_tracker_free(t);

    /* the same in batched mode, whose fast path must stop at the bound too */
    count_calls = 0;
    t = fr_call_tracker_new_batched(count_batch, NULL);
    for (uint32_t i = 0; i < FR_CALL_TRACKER_MAX_DEPTH + 10; i++)
        ENTER(1, 1 + (i & 7), tsc++);
    st = fr_call_tracker_get_stats(t);
    assert_int_equal(st->too_deep, 10);
    assert_int_equal(st->max_depth, FR_CALL_TRACKER_MAX_DEPTH);
    fr_call_tracker_finish(t);
    assert_int_equal(count_calls, FR_CALL_TRACKER_MAX_DEPTH);
    fr_call_tracker_free(t);

    /* and through fr_call_tracker_feed_functions, whose loop has its own bound check */
    count_calls = 0;
    t = fr_call_tracker_new_batched(count_batch, NULL);
    static fr_function_record enters[FR_CALL_TRACKER_MAX_DEPTH + 10];
    for (uint32_t i = 0; i < FR_CALL_TRACKER_MAX_DEPTH + 10; i++)
        enters[i] = (fr_function_record){.tsc = tsc++, .function_id = 1 + (i & 7),
                                         .kind = FR_REC_ENTER};
    fr_call_tracker_feed_functions(t, 1, enters, FR_CALL_TRACKER_MAX_DEPTH + 10);
    st = fr_call_tracker_get_stats(t);
    assert_int_equal(st->too_deep, 10);
    assert_int_equal(st->max_depth, FR_CALL_TRACKER_MAX_DEPTH);
    fr_call_tracker_finish(t);
    assert_int_equal(count_calls, FR_CALL_TRACKER_MAX_DEPTH);
    fr_call_tracker_free(t);
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
static void collect_one(const fr_call *c, void *ctx)
{
    (void)ctx;
    assert_true(n_seen < 200000);
    seen_calls[n_seen++] = *c;
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

static void test_batched_mode_matches_callbacks(void **state)
{
    (void)state;
    n_seen = n_checked = 0;
    fr_call_tracker *t1 = fr_call_tracker_new(collect_one, NULL, NULL);
    fr_call_tracker *t2 = fr_call_tracker_new_batched(check_batch, NULL);
    /* t3: the same records, runs of plain function records of one thread given as
     * fr_function_record batches (as account reads them), of varied lengths */
    size_t n_checked3 = 0;
    fr_call_tracker *t3 = fr_call_tracker_new_batched(check_batch, &n_checked3);
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
        int plain = rec.kind <= FR_REC_TAIL_EXIT;
        if (n_run && (!plain || rec.tid != run_tid || n_run == run_max)) {
            fr_call_tracker_feed_functions(t3, run_tid, run, n_run);
            n_run = 0;
            run_max = 1 + (r >> 3) % 700;
        }
        if (plain) {
            run_tid = rec.tid;
            run[n_run++] = (fr_function_record){.tsc = rec.tsc, .function_id = rec.function_id,
                                                .kind = rec.kind};
        } else {
            fr_call_tracker_feed(t3, &rec);
        }
    }
    if (n_run)
        fr_call_tracker_feed_functions(t3, run_tid, run, n_run);
    fr_call_tracker_finish(t1);
    fr_call_tracker_finish(t2);
    fr_call_tracker_finish(t3);
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
        cmocka_unit_test(test_nested_calls),
        cmocka_unit_test(test_threads_interleaved),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_unmatched_exit_dropped),
        cmocka_unit_test(test_longjmp_closes_frames_above),
        cmocka_unit_test(test_open_frames_closed_at_end),
        cmocka_unit_test(test_tail_exit),
        cmocka_unit_test(test_lost_resets_thread),
        cmocka_unit_test(test_enter_arg_and_other_records),
        cmocka_unit_test(test_backwards_clock_gives_zero_length),
        cmocka_unit_test(test_depth_is_bounded),
        cmocka_unit_test(test_many_threads),
        cmocka_unit_test(test_batched_mode_matches_callbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
