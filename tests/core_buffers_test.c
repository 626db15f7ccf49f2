/*
 * core_buffers_test.c - the buffer and thread protocol (issue 8; docs/BUFFERS.md): late
 * threads keep their share, buffers never have two writers, slots of exited threads are
 * reused, re-init writes the unflushed session, and every record asked for is either in
 * the file or counted by cause (checked with core_parse.h, independent of the reader).
 * Label `concurrency`: also run under TSan.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "flightrec.h"
#include "core_parse.h"

#define CORE_SESSION_DIR "/tmp/fr-core-buffers-XXXXXX"
#include "core_session.h"

/* ------------------------------------------------------------------ file figures */

/* FR_TE_DROPS of `tid` (0: the session's) into c[]; 0 if found. */
static int drops_of(const struct cp_trace *t, int32_t tid, uint64_t c[FR_DROP_NCAUSES])
{
    for (size_t i = 0; i < t->nrecs; i++) {
        const struct cp_record *r = &t->recs[i];
        if (r->kind != 5 || r->type != FR_TE_DROPS || (int32_t)cp_u32(r->data) != tid)
            continue;
        uint32_t n = cp_u32(r->data + 4);
        assert_true(r->size == 8 + 8 * n);
        memset(c, 0, 8 * FR_DROP_NCAUSES);
        for (uint32_t k = 0; k < n && k < FR_DROP_NCAUSES; k++)
            c[k] = cp_u64(r->data + 8 + 8 * k);
        return 0;
    }
    return -1;
}

static uint64_t sum(const uint64_t c[FR_DROP_NCAUSES])
{
    uint64_t s = 0;
    for (int k = 0; k < FR_DROP_NCAUSES; k++)
        s += c[k];
    return s;
}

/* SUMMARY: written (off 24), dropped (32), below (40), threads (20, u32). */
static __attribute__((unused)) uint64_t summary_u64(const struct cp_trace *t, size_t off)
{
    const struct cp_record *s = cp_find_typed(t, FR_TE_SUMMARY);
    assert_non_null(s);
    return cp_u64(s->data + off);
}

/* Function records of thread `tid` in the file. */
static size_t fn_records(const struct cp_trace *t, int32_t tid)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nrecs; i++)
        if (t->recs[i].tid == tid && t->recs[i].kind <= FR_FN_TAIL_EXIT)
            n++;
    return n;
}

/* ------------------------------------------------------------------ fairness */

static void *late_worker(void *arg)
{
    *(pid_t *)arg = gettid();
    for (int i = 0; i < 1000; i++) {
        fr_log_enter(7);
        fr_log_exit(7);
    }
    return NULL;
}

/* The scenario: main fills the pool (default overwrite policy), then two
 * workers make 1,000 calls each. Each worker keeps all its 2,000 records (a buffer
 * taken from main, which holds more than its share); main loses its oldest. Before:
 * both workers kept nothing (dropped 2002 each) while the idle main kept every buffer. */
static void test_late_threads_keep_their_share(void **state)
{
    (void)state;
    start("late.fr", "");
    for (int i = 0; i < 300000; i++) {
        fr_log_enter(1);
        fr_log_exit(1);
    }
    pthread_t th[2];
    pid_t tid[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, late_worker, &tid[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    struct cp_trace t;
    stop(&t);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(fn_records(&t, tid[i]), 2000);
        uint64_t c[FR_DROP_NCAUSES];
        assert_int_equal(drops_of(&t, tid[i], c), 0);
        assert_int_equal(sum(c), 0);
    }
    /* main: kept + dropped (all overwritten) == asked for */
    uint64_t c[FR_DROP_NCAUSES];
    assert_int_equal(drops_of(&t, getpid(), c), 0);
    assert_int_equal(fn_records(&t, getpid()) + c[FR_DROP_OVERWRITTEN], 600000);
    assert_int_equal(sum(c), c[FR_DROP_OVERWRITTEN]);
    assert_true(fn_records(&t, getpid()) > 0);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_threads_keep_their_share),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
