/*
 * core_reader_test.c - what the core writes, read by the project's reader library
 * (fr_reader + trace_meta): every record of every thread, and metadata that agrees.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "flightrec.h"
#include "fr_reader.h"
#include "trace_meta.h"

enum { T = 3, N = 20000 };
static pid_t tids[T];

static void *worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    tids[i] = gettid();
    for (uint32_t k = 1; k <= N; k++) {
        fr_log_enter(k);
        fr_log_exit(k);
    }
    return NULL;
}

static void test_reader_reads_core_trace(void **state)
{
    (void)state;
    char dir[] = "/tmp/fr-core-reader-XXXXXX", path[128], opts[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.fr", dir);
    snprintf(opts, sizeof opts, "output=%s policy=discard buffers=32 buffer_size=65536", path);
    assert_int_equal(fr_init(opts), FR_OK);
    pthread_t th[T];
    for (int i = 0; i < T; i++)
        pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(fr_finalize(), FR_OK);
    assert_int_equal(fr_flush(), FR_OK);

    char err[256];
    fr_reader *r = fr_reader_open(path, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    fr_trace_meta m;
    fr_trace_meta_init(&m);
    size_t per_thread[T] = { 0 };
    uint64_t last_tsc[T] = { 0 };
    fr_record rec;
    fr_read_status st;
    while ((st = fr_reader_next(r, &rec)) == FR_READ_OK) {
        if (fr_trace_meta_feed(&m, &rec) || rec.kind > FR_REC_ENTER_ARG)
            continue;
        int i = 0;
        while (i < T && tids[i] != rec.tid)
            i++;
        assert_true(i < T);
        assert_true(rec.tsc >= last_tsc[i]);
        last_tsc[i] = rec.tsc;
        assert_int_equal(rec.function_id, per_thread[i] / 2 + 1);
        per_thread[i]++;
    }
    if (st != FR_READ_EOF)
        fail_msg("%s", fr_reader_error(r));
    fr_trace_meta_finish(&m);
    for (int i = 0; i < T; i++)
        assert_int_equal(per_thread[i], 2 * N);
    assert_true(m.has_clock && m.has_process && m.has_summary);
    assert_int_equal(m.ticks_per_second, fr_reader_info(r)->ticks_per_second);
    assert_int_equal(m.pid, getpid());
    assert_int_equal(m.records_written, (uint64_t)T * 2 * N);
    assert_int_equal(m.records_dropped, 0);
    assert_int_equal(m.threads, T);
    assert_int_equal(m.n_thread_stats, T);
    for (size_t k = 0; k < m.n_thread_stats; k++)
        assert_int_equal(m.thread_stats[k].records_written, 2 * N);
    fr_trace_meta_free(&m);
    fr_reader_close(r);
    assert_int_equal(fr_reset(), FR_OK);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_reader_reads_core_trace) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
