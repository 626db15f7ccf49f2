/*
 * analysis_aggregate_test.c - per-function statistics, call graph edges and unique stacks
 * of a hand-made record stream (two threads, recursion, an unwind), checked against
 * numbers worked out by hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis.h"

static void feed(fr_analysis *a, fr_record_kind kind, int32_t tid, uint32_t id, uint64_t tsc)
{
    fr_record r = {.kind = kind, .tid = tid, .function_id = id, .tsc = tsc};
    fr_analysis_feed(a, &r);
}
#define EN(tid, id, tsc) feed(a, FR_REC_ENTER, tid, id, tsc)
#define EX(tid, id, tsc) feed(a, FR_REC_EXIT, tid, id, tsc)

/*
 * thread 1:                         thread 2:
 *   0   enter main(1)                 0  enter main(1)
 *   10   enter a(2)                   5   enter b(3)
 *   20    enter b(3)                  25  exit b          b 20
 *   50    exit b        b 30          30 exit main        main 30 (self 10)
 *   60   exit a         a 50 (self 20)
 *   70   enter a(2)
 *   80   exit a         a 10
 *   100  enter c(4)
 *   110   enter c(4)
 *   115    enter b(3)
 *   120     enter d(5)
 *   130    exit c       (unwind: d 10, b 15) c 20 (self 5)
 *   140  exit c         c 40 (self 20)
 *   200 exit main       main 200 (self 200-50-10-40 = 100)
 */
static void feed_the_stream(fr_analysis *a)
{
    EN(1, 1, 0);
    EN(2, 1, 0);
    EN(1, 2, 10);
    EN(2, 3, 5);
    EN(1, 3, 20);
    EX(2, 3, 25);
    EX(1, 3, 50);
    EX(2, 1, 30);
    EX(1, 2, 60);
    EN(1, 2, 70);
    EX(1, 2, 80);
    EN(1, 4, 100);
    EN(1, 4, 110);
    EN(1, 3, 115);
    EN(1, 5, 120);
    EX(1, 4, 130);
    EX(1, 4, 140);
    EX(1, 1, 200);
    fr_analysis_finish(a);
}

static fr_analysis *build(void)
{
    fr_analysis *a = fr_analysis_new(FR_ANALYZE_FUNCTIONS | FR_ANALYZE_GRAPH | FR_ANALYZE_STACKS);
    feed_the_stream(a);
    return a;
}

static void check_fn(const fr_analysis *a, uint32_t id, uint64_t calls, uint64_t total,
                     uint64_t self, uint64_t min, uint64_t max, uint64_t med)
{
    const fr_func_stat *s = fr_func_stats_find(a->functions, id);
    assert_non_null(s);
    assert_int_equal(s->calls, calls);
    assert_int_equal(s->total_ticks, total);
    assert_int_equal(s->self_ticks, self);
    assert_int_equal(s->min_ticks, min);
    assert_int_equal(s->max_ticks, max);
    assert_int_equal(fr_qsketch_quantile(&s->durations, 0.5), med);
}

static void test_function_stats(void **state)
{
    (void)state;
    fr_analysis *a = build();
    check_fn(a, 1, 2, 230, 110, 30, 200, 200);  /* durations 200, 30: median rank 1 */
    check_fn(a, 2, 2, 60, 30, 10, 50, 50);
    check_fn(a, 3, 3, 65, 55, 15, 30, 20);      /* 30, 20, 15 (self 5) -> sorted 15 20 30 */
    check_fn(a, 4, 2, 60, 25, 20, 40, 40);
    check_fn(a, 5, 1, 10, 10, 10, 10, 10);
    assert_int_equal(fr_func_stats_count(a->functions), 5);
    assert_int_equal(fr_func_stats_find(a->functions, 5)->closed_by_unwind, 1);
    assert_int_equal(fr_func_stats_find(a->functions, 3)->closed_by_unwind, 1);
    const fr_call_tracker_stats *st = fr_analysis_stats(a);
    assert_int_equal(st->calls, 10);
    assert_int_equal(st->closed_by_unwind, 2);
    assert_int_equal(st->threads, 2);
    fr_analysis_free(a);
}

/* The per-function sketches equal sketches fed directly with fr_qsketch_add, bucket for
 * bucket, whichever way the calls come in (one by one, fr_call batches, costs batches):
 * func_stats counts a call in a one-byte counter per bucket, added to the sketch when it
 * wraps, when the window grows and when the statistics are read. So: one bucket hit far
 * more than 256 times (wrapping many times), windows widened below and above while counts
 * are pending, and reads between the adds. */
static void test_function_sketches_exact(void **state)
{
    (void)state;
    enum { FUNCS = 3, ROUNDS = 3, PER_ROUND = 70000 };
    fr_func_stats *fs = fr_func_stats_new();
    fr_qsketch ref[FUNCS];
    for (int f = 0; f < FUNCS; f++)
        fr_qsketch_init(&ref[f]);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < PER_ROUND; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint32_t f = (uint32_t)(x % FUNCS);
            /* mostly one bucket (wraps the byte counter hundreds of times), some nearby
             * values, and in later rounds values far below and above the window so far */
            uint64_t d = 1000;
            if (x % 7 == 0)
                d = 900 + (x >> 40) % 400;
            if (round > 0 && x % 5003 == 0)
                d = round == 1 ? 3 : (1ull << 40) + (x >> 30);
            fr_qsketch_add(&ref[f], d);
            fr_call c = {.function_id = 10 + f, .enter_tsc = 5, .exit_tsc = 5 + d};
            fr_call_cost cost = {.function_id = 10 + f, .duration = d, .self = d};
            if (k % 3 == 0)
                fr_func_stats_add(fs, &c);
            else if (k % 3 == 1)
                fr_func_stats_on_calls(&c, 1, fs);
            else
                fr_func_stats_on_costs(&cost, 1, fs);
        }
        for (int f = 0; f < FUNCS; f++) {   /* a read between the rounds' adds */
            const fr_func_stat *s = fr_func_stats_find(fs, 10 + (uint32_t)f);
            assert_non_null(s);
            assert_int_equal(s->calls, ref[f].count);
            assert_int_equal(s->durations.count, ref[f].count);
            assert_int_equal(s->durations.min, ref[f].min);
            assert_int_equal(s->durations.max, ref[f].max);
            assert_int_equal(s->durations.lo, ref[f].lo);
            assert_int_equal(s->durations.n, ref[f].n);
            for (uint32_t i = 0; i < ref[f].n; i++)
                assert_int_equal(s->durations.buckets[i], ref[f].buckets[i]);
            for (int q = 0; q <= 100; q++)
                assert_int_equal(fr_qsketch_quantile(&s->durations, q / 100.0),
                                 fr_qsketch_quantile(&ref[f], q / 100.0));
        }
    }
    assert_true(ref[0].count > 256 * 200);   /* the counters wrapped many times */
    for (int f = 0; f < FUNCS; f++)
        fr_qsketch_free(&ref[f]);
    fr_func_stats_free(fs);
}

/* The same, with the calls in batches of hundreds (the tracker's costs batches hold up to
 * 512; fr_call batches any number): func_stats counts a batch in two passes, the counters
 * first and the byte counters after, so a window that grows in the middle of a batch (its
 * byte counters move) must first get the counts of the batch's earlier calls, and so must
 * a function's first call, and a call closed by an unwind or open at the end. Checked
 * against sketches fed directly, bucket for bucket, and the exact totals, min, max and
 * unmatched counts. */
static void test_function_sketches_exact_batched(void **state)
{
    (void)state;
    enum { FUNCS = 5, CALLS = 400000, MAX_BATCH = 700 };
    fr_func_stats *fs = fr_func_stats_new();
    fr_qsketch ref[FUNCS];
    uint64_t total[FUNCS] = {0}, self[FUNCS] = {0}, unwound[FUNCS] = {0}, open[FUNCS] = {0};
    for (int f = 0; f < FUNCS; f++)
        fr_qsketch_init(&ref[f]);
    static fr_call_cost costs[MAX_BATCH];
    static fr_call calls[MAX_BATCH];
    uint64_t x = 0x2545F4914F6CDD1Dull;
    size_t made = 0, batches = 0;
    while (made < CALLS) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = 1 + (size_t)(x % MAX_BATCH);
        for (size_t j = 0; j < n; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* functions appear one by one as the calls go on */
            uint32_t f = (uint32_t)(x % FUNCS) % (1 + (uint32_t)(made / 20000));
            /* mostly the same few buckets (wrapping their byte counters); now and then a
             * value far outside the window so far, below or above: the window grows with
             * counts of earlier calls of the batch still pending */
            uint64_t d = 5000 + (x >> 50) % 64;
            if (x % 997 == 0)
                d = (x >> 20) % 2 ? (x >> 40) % 100 : (1ull << (20 + made / 8000 % 40)) + (x >> 44);
            uint64_t sf = d - (x >> 33) % (d + 1);
            unsigned flags = x % 1009 == 0 ? FR_CALL_CLOSED_BY_UNWIND
                           : x % 1013 == 0 ? FR_CALL_OPEN_AT_END : 0;
            fr_qsketch_add(&ref[f], d);
            total[f] += d;
            self[f] += sf;
            unwound[f] += flags == FR_CALL_CLOSED_BY_UNWIND;
            open[f] += flags == FR_CALL_OPEN_AT_END;
            costs[j] = (fr_call_cost){.function_id = 100 + f, .flags = flags, .duration = d, .self = sf};
            calls[j] = (fr_call){.function_id = 100 + f, .flags = flags, .enter_tsc = 7,
                                 .exit_tsc = 7 + d, .child_ticks = d - sf};
            made++;
        }
        if (batches++ % 2)
            fr_func_stats_on_costs(costs, n, fs);
        else
            fr_func_stats_on_calls(calls, n, fs);
    }
    for (int f = 0; f < FUNCS; f++) {
        const fr_func_stat *s = fr_func_stats_find(fs, 100 + (uint32_t)f);
        assert_non_null(s);
        assert_int_equal(s->calls, ref[f].count);
        assert_int_equal(s->total_ticks, total[f]);
        assert_int_equal(s->self_ticks, self[f]);
        assert_int_equal(s->min_ticks, ref[f].min);
        assert_int_equal(s->max_ticks, ref[f].max);
        assert_int_equal(s->closed_by_unwind, unwound[f]);
        assert_int_equal(s->open_at_end, open[f]);
        assert_int_equal(s->durations.count, ref[f].count);
        assert_int_equal(s->durations.lo, ref[f].lo);
        assert_int_equal(s->durations.n, ref[f].n);
        for (uint32_t i = 0; i < ref[f].n; i++)
            assert_int_equal(s->durations.buckets[i], ref[f].buckets[i]);
        assert_true(ref[f].n > 1000);         /* the window grew far, many times */
        assert_true(unwound[f] > 0 && open[f] > 0);
        fr_qsketch_free(&ref[f]);
    }
    fr_func_stats_free(fs);
}

static void check_edge(const fr_analysis *a, uint32_t from, uint32_t to, uint64_t calls, uint64_t total)
{
    const fr_call_edge *e = fr_call_graph_find(a->graph, from, to);
    assert_non_null(e);
    assert_int_equal(e->calls, calls);
    assert_int_equal(e->total_ticks, total);
}

static void test_call_graph(void **state)
{
    (void)state;
    fr_analysis *a = build();
    check_edge(a, 1, 2, 2, 60);
    check_edge(a, 2, 3, 1, 30);
    check_edge(a, 1, 3, 1, 20);
    check_edge(a, 1, 4, 1, 40);
    check_edge(a, 4, 4, 1, 20);
    check_edge(a, 4, 3, 1, 15);
    check_edge(a, 3, 5, 1, 10);
    assert_int_equal(fr_call_graph_count(a->graph), 7);
    assert_null(fr_call_graph_find(a->graph, 2, 1));
    fr_analysis_free(a);
}

static void check_stack(const fr_analysis *a, const uint32_t *path, uint32_t n, uint64_t calls,
                        uint64_t total, uint64_t self)
{
    uint32_t i = fr_stack_agg_find(a->stacks, path, n);
    assert_int_not_equal(i, FR_STACK_ROOT);
    const fr_stack_node *s = fr_stack_agg_node(a->stacks, i);
    assert_int_equal(s->calls, calls);
    assert_int_equal(s->total_ticks, total);
    assert_int_equal(s->self_ticks, self);
    assert_int_equal(fr_stack_agg_depth(a->stacks, i), n - 1);
    uint32_t back[8];
    assert_int_equal(fr_stack_agg_path(a->stacks, i, back, 8), n);
    for (uint32_t k = 0; k < n; k++)
        assert_int_equal(back[k], path[k]);
}

static void test_unique_stacks(void **state)
{
    (void)state;
    fr_analysis *a = build();
    check_stack(a, (uint32_t[]){1}, 1, 2, 230, 110);
    check_stack(a, (uint32_t[]){1, 2}, 2, 2, 60, 30);
    check_stack(a, (uint32_t[]){1, 2, 3}, 3, 1, 30, 30);
    check_stack(a, (uint32_t[]){1, 3}, 2, 1, 20, 20);
    check_stack(a, (uint32_t[]){1, 4}, 2, 1, 40, 20);
    check_stack(a, (uint32_t[]){1, 4, 4}, 3, 1, 20, 5);
    check_stack(a, (uint32_t[]){1, 4, 4, 3}, 4, 1, 15, 5);
    check_stack(a, (uint32_t[]){1, 4, 4, 3, 5}, 5, 1, 10, 10);
    assert_int_equal(fr_stack_agg_count(a->stacks), 8);
    /* parents come before children */
    for (uint32_t i = 0; i < fr_stack_agg_count(a->stacks); i++) {
        const fr_stack_node *s = fr_stack_agg_node(a->stacks, i);
        assert_true(s->parent == FR_STACK_ROOT || s->parent < i);
    }
    /* self times of all stacks add up to the traced time of both threads' roots */
    uint64_t self = 0;
    for (uint32_t i = 0; i < fr_stack_agg_count(a->stacks); i++)
        self += fr_stack_agg_node(a->stacks, i)->self_ticks;
    assert_int_equal(self, 200 + 30);
    fr_analysis_free(a);
}

/* Calls fed without enters (a consumer using only the call callback) find their nodes too. */
static void test_stacks_without_enter_callback(void **state)
{
    (void)state;
    fr_stack_agg *sa = fr_stack_agg_new();
    fr_call_tracker *t = fr_call_tracker_new(fr_stack_agg_on_call, NULL, sa);
    fr_record r[] = {
        {.kind = FR_REC_ENTER, .tid = 1, .function_id = 1, .tsc = 0},
        {.kind = FR_REC_ENTER, .tid = 1, .function_id = 2, .tsc = 1},
        {.kind = FR_REC_EXIT, .tid = 1, .function_id = 2, .tsc = 3},
        {.kind = FR_REC_EXIT, .tid = 1, .function_id = 1, .tsc = 10},
    };
    for (size_t i = 0; i < 4; i++)
        fr_call_tracker_feed(t, &r[i]);
    uint32_t i = fr_stack_agg_find(sa, (uint32_t[]){1, 2}, 2);
    assert_int_not_equal(i, FR_STACK_ROOT);
    assert_int_equal(fr_stack_agg_node(sa, i)->total_ticks, 2);
    assert_int_equal(fr_stack_agg_node(sa, fr_stack_agg_find(sa, (uint32_t[]){1}, 1))->self_ticks, 8);
    fr_call_tracker_free(t);
    fr_stack_agg_free(sa);
}

/* Bounded mode, on build()'s stream with room for 3 stacks: in the order the enters come,
 * main (0), main>a (1) and thread 2's main>b (2) fit; thread 1's main>a>b would be new:
 * it is main>a>[other] (3); then main>c is main>[other] (4), and c > b > d below it are
 * counted in that same [other] node. */
static void test_stacks_bounded(void **state)
{
    (void)state;
    fr_analysis *a = fr_analysis_new(FR_ANALYZE_STACKS);
    fr_stack_agg_set_limit(a->stacks, 3);
    feed_the_stream(a);
    const fr_stack_agg *sa = a->stacks;
    assert_int_equal(fr_stack_agg_count(sa), 5);
    uint32_t other1 = fr_stack_agg_find(sa, (uint32_t[]){1, FR_STACK_OTHER}, 2);
    uint32_t other2 = fr_stack_agg_find(sa, (uint32_t[]){1, 2, FR_STACK_OTHER}, 3);
    assert_int_not_equal(other1, FR_STACK_ROOT);
    assert_int_not_equal(other2, FR_STACK_ROOT);
    /* main>[other]: c(40, self 20), c(20, self 5), b(15, self 5), d(10, self 10) */
    assert_int_equal(fr_stack_agg_node(sa, other1)->calls, 4);
    assert_int_equal(fr_stack_agg_node(sa, other1)->self_ticks, 40);
    /* main>a>[other]: b 30 */
    assert_int_equal(fr_stack_agg_node(sa, other2)->calls, 1);
    assert_int_equal(fr_stack_agg_node(sa, other2)->self_ticks, 30);
    assert_int_equal(fr_stack_agg_merged_calls(sa), 5);
    /* nothing lost: self times still add up to the traced time */
    uint64_t self = 0, calls = 0;
    for (uint32_t i = 0; i < fr_stack_agg_count(sa); i++) {
        self += fr_stack_agg_node(sa, i)->self_ticks;
        calls += fr_stack_agg_node(sa, i)->calls;
    }
    assert_int_equal(self, 200 + 30);
    assert_int_equal(calls, 10);
    fr_analysis_free(a);
}

/* Many distinct stacks: the tree stays a tree (parents first, paths found again) and
 * the bound holds (at most twice the limit, one [other] per node). */
static void test_stacks_many(void **state)
{
    (void)state;
    for (int bounded = 0; bounded < 2; bounded++) {
        fr_analysis *a = fr_analysis_new(FR_ANALYZE_STACKS);
        if (bounded)
            fr_stack_agg_set_limit(a->stacks, 1000);
        uint64_t tsc = 0, n_calls = 0;
        for (uint32_t i = 0; i < 20000; i++) {       /* 20000 distinct 3-deep stacks */
            uint32_t ids[3] = {1 + i % 7, 100 + i % 97, 1000 + i};
            for (int d = 0; d < 3; d++)
                EN(1, ids[d], tsc++);
            for (int d = 2; d >= 0; d--)
                EX(1, ids[d], tsc++);
            n_calls += 3;
        }
        fr_analysis_finish(a);
        const fr_stack_agg *sa = a->stacks;
        size_t n = fr_stack_agg_count(sa);
        uint64_t calls = 0;
        for (uint32_t i = 0; i < n; i++) {
            const fr_stack_node *s = fr_stack_agg_node(sa, i);
            assert_true(s->parent == FR_STACK_ROOT || s->parent < i);
            calls += s->calls;
        }
        assert_int_equal(calls, n_calls);
        if (bounded) {
            assert_true(n <= 2000);
            assert_true(fr_stack_agg_merged_calls(sa) > 0);
        } else {
            assert_int_equal(n, 7 + 7 * 97 + 20000);   /* 7 and 97 coprime: 679 pairs */
            uint32_t path[3] = {1 + 12345 % 7, 100 + 12345 % 97, 1000 + 12345};
            uint32_t i = fr_stack_agg_find(sa, path, 3), back[3];
            assert_int_not_equal(i, FR_STACK_ROOT);
            assert_int_equal(fr_stack_agg_path(sa, i, back, 3), 3);
            assert_memory_equal(back, path, sizeof path);
            assert_int_equal(fr_stack_agg_merged_calls(sa), 0);
        }
        fr_analysis_free(a);
    }
}

/* The depth limit on a chain of 10 nested calls (id d+1 at depth d, entered at tsc d,
 * left at 20 - d: each lasts 20 - 2d with self time 2), cut at 3 frames: 1, 1>2, 1>2>3
 * and 1>2>3>[deeper], which holds the 7 calls below (self 14) and as total the
 * outermost one's time (id 4 at depth 3: 14), not the sum of the nested times (56). The
 * same through the steps tracker, the callbacks with the enter callback, and without it
 * (the stack walked from the root at each call). */
static void check_chain_cut(const fr_stack_agg *sa)
{
    assert_int_equal(fr_stack_agg_count(sa), 4);
    uint32_t i = fr_stack_agg_find(sa, (uint32_t[]){1, 2, 3, FR_STACK_DEEPER}, 4);
    assert_int_not_equal(i, FR_STACK_ROOT);
    const fr_stack_node *s = fr_stack_agg_node(sa, i);
    assert_int_equal(s->calls, 7);
    assert_int_equal(s->self_ticks, 14);
    assert_int_equal(s->total_ticks, 14);
    assert_int_equal(fr_stack_agg_deeper_calls(sa), 7);
    assert_int_equal(fr_stack_agg_merged_calls(sa), 0);
    uint32_t top = fr_stack_agg_find(sa, (uint32_t[]){1, 2, 3}, 3);
    assert_int_equal(fr_stack_agg_node(sa, top)->total_ticks, 16);
    assert_int_equal(fr_stack_agg_node(sa, top)->self_ticks, 2);
}

static void feed_chain(fr_call_tracker *t, fr_analysis *a)
{
    for (uint32_t d = 0; d < 10; d++) {
        fr_record r = {.kind = FR_REC_ENTER, .tid = 1, .function_id = d + 1, .tsc = d};
        t ? fr_call_tracker_feed(t, &r) : fr_analysis_feed(a, &r);
    }
    for (uint32_t d = 10; d-- > 0;) {
        fr_record r = {.kind = FR_REC_EXIT, .tid = 1, .function_id = d + 1, .tsc = 20 - d};
        t ? fr_call_tracker_feed(t, &r) : fr_analysis_feed(a, &r);
    }
}

static void test_stacks_max_depth(void **state)
{
    (void)state;
    fr_analysis *a = fr_analysis_new(FR_ANALYZE_STACKS);
    fr_stack_agg_set_max_depth(a->stacks, 3);
    feed_chain(NULL, a);
    fr_analysis_finish(a);
    check_chain_cut(a->stacks);
    fr_analysis_free(a);
    for (int with_enter = 0; with_enter < 2; with_enter++) {
        fr_stack_agg *sa = fr_stack_agg_new();
        fr_stack_agg_set_max_depth(sa, 3);
        fr_call_tracker *t = fr_call_tracker_new(fr_stack_agg_on_call,
                                                 with_enter ? fr_stack_agg_on_enter : NULL, sa);
        feed_chain(t, NULL);
        check_chain_cut(sa);
        fr_call_tracker_free(t);
        fr_stack_agg_free(sa);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_function_stats),
        cmocka_unit_test(test_function_sketches_exact),
        cmocka_unit_test(test_function_sketches_exact_batched),
        cmocka_unit_test(test_call_graph),
        cmocka_unit_test(test_unique_stacks),
        cmocka_unit_test(test_stacks_without_enter_callback),
        cmocka_unit_test(test_stacks_bounded),
        cmocka_unit_test(test_stacks_many),
        cmocka_unit_test(test_stacks_max_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
