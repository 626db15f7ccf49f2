/*
 * core_threads_test.c - several threads recording at once (label `concurrency`, also run
 * under TSan): every record there in discard mode with room; overwrite keeps each
 * thread's newest records, the pool as a whole holding the newest history whoever wrote
 * it (pool_history.c measures that at 1 to 1,024 threads); exiting threads' data is kept.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <unistd.h>
#include "flightrec.h"
#include "core_parse.h"

#define CORE_SESSION_DIR "/tmp/fr-core-threads-XXXXXX"
#include "core_session.h"

enum { T = 4 };
struct worker { int index; long n; pid_t tid; pthread_barrier_t *go; };

/* Thread i writes ids (i << 20) + 1 .. + n, as enter records. */
static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->tid = gettid();
    pthread_barrier_wait(w->go);
    for (long k = 1; k <= w->n; k++)
        fr_log_enter(((uint32_t)w->index << 20) + (uint32_t)k);
    return NULL;
}

static void run_workers(struct worker *w, long n)
{
    pthread_t th[T];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, T);
    for (int i = 0; i < T; i++) {
        w[i] = (struct worker){ .index = i + 1, .n = n, .go = &go };
        pthread_create(&th[i], NULL, worker_main, &w[i]);
    }
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL); /* exited threads hand their buffers back, data kept */
    pthread_barrier_destroy(&go);
}

/* Checks thread i's records are ids first..last in order; returns how many. */
static size_t check_sequence(const struct cp_trace *t, const struct worker *w, long *first)
{
    size_t n = 0;
    long expect = -1;
    for (size_t i = 0; i < t->nrecs; i++) {
        const struct cp_record *r = &t->recs[i];
        if (r->tid != w->tid || r->kind != FR_FN_ENTER)
            continue;
        assert_int_equal(r->id >> 20, w->index);
        long k = r->id & 0xFFFFF;
        if (expect < 0)
            *first = expect = k;
        assert_int_equal(k, expect);
        expect++;
        n++;
    }
    return n;
}

static void test_discard_every_record(void **state)
{
    (void)state;
    enum { N = 50000 };
    start("discard.fr", "policy=discard buffers=64 buffer_size=64k");
    struct worker w[T];
    run_workers(w, N);
    struct cp_trace t;
    stop(&t);
    assert_int_equal(t.nblocks, 1 + T);
    for (int i = 0; i < T; i++) {
        long first = 0;
        assert_int_equal(check_sequence(&t, &w[i], &first), N);
        assert_int_equal(first, 1);
    }
    fr_stats st;
    fr_get_stats(&st);
    assert_int_equal(st.records_written, (uint64_t)T * N);
    assert_int_equal(st.records_dropped, 0);
    assert_int_equal(st.threads, T);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

/* Overwrite, pool too small: every thread keeps a contiguous run of its newest records
 * ending with its last one (or nothing: a thread that exited early is the oldest
 * history, which later threads may reclaim), and kept + dropped == written. */
static void test_overwrite_newest_per_thread(void **state)
{
    (void)state;
    enum { N = 20000, BUFS = 8, BSIZE = 2048 };
    start("overwrite.fr", "policy=overwrite buffers=8 buffer_size=2048");
    struct worker w[T];
    run_workers(w, N);
    struct cp_trace t;
    stop(&t);
    size_t total_kept = 0;
    for (int i = 0; i < T; i++) {
        long first = 0;
        size_t kept = check_sequence(&t, &w[i], &first);
        if (kept)
            assert_int_equal(first + (long)kept - 1, N); /* ends with the newest */
        /* never more than the whole pool */
        assert_true(kept <= (size_t)BUFS * ((BSIZE - 64) / 8));
        total_kept += kept;
    }
    fr_stats st;
    fr_get_stats(&st);
    assert_int_equal(st.records_written, total_kept);
    assert_int_equal(st.records_written + st.records_dropped, (uint64_t)T * N);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

/* Threads started while others still hold the pool get buffers (the oldest complete
 * ones, whoever wrote them): each keeps a run of its newest records, and together they
 * keep nearly the whole pool (all but the buffers being written at the end). */
static void *fair_worker(void *arg)
{
    struct worker *w = arg;
    w->tid = gettid();
    fr_log_enter(((uint32_t)w->index << 20) + 1); /* register */
    pthread_barrier_wait(w->go);
    for (long k = 2; k <= w->n; k++)
        fr_log_enter(((uint32_t)w->index << 20) + (uint32_t)k);
    pthread_barrier_wait(w->go); /* stay alive until all are done */
    return NULL;
}

static void test_overwrite_fair_share(void **state)
{
    (void)state;
    enum { N = 20000, BUFS = 8, BSIZE = 2048 };
    start("fair.fr", "policy=overwrite buffers=8 buffer_size=2048");
    pthread_t th[T];
    struct worker w[T];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, T);
    for (int i = 0; i < T; i++) {
        w[i] = (struct worker){ .index = i + 1, .n = N, .go = &go };
        pthread_create(&th[i], NULL, fair_worker, &w[i]);
    }
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    struct cp_trace t;
    stop(&t);
    const size_t per = (BSIZE - 64) / 8;
    size_t total = 0;
    for (int i = 0; i < T; i++) {
        long first = 0;
        size_t kept = check_sequence(&t, &w[i], &first);
        assert_int_equal(first + (long)kept - 1, N);
        assert_true(kept > per / 2); /* something of its own */
        total += kept;
    }
    /* the buffers left complete are whole; the T being written at the end hold some */
    assert_true(total >= (BUFS - T) * per);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discard_every_record),
        cmocka_unit_test(test_overwrite_newest_per_thread),
        cmocka_unit_test(test_overwrite_fair_share),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
