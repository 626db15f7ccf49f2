/*
 * core_stuck_test.c - finalize overtaking a writer (issue 8 item 3), white box: a thread
 * is held "inside a record" (its busy flag set, as when a debugger stops it or a signal
 * handler blocks mid-record) while the recorder stops. The stop must give up on it
 * without reading or changing its state, leave its current buffer out of the file and
 * count its records as unfinished; when it resumes, its next records must not go into
 * the next session through its old pointers, and fr_reset must not unmap what it may
 * still write. Before: finalize snapshotted it anyway after 100,000 yields, and a later
 * record took the fast path with the old session's pointers.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>
#include "flightrec.h"
#include "core_parse.h"
#include "core/thread_writer.h" /* white box: fr_tls.busy */

#define CORE_SESSION_DIR "/tmp/fr-core-stuck-XXXXXX"
#include "core_session.h"

static sem_t held, release_it, resumed, go_on;
static pid_t worker_tid;

static void *worker(void *arg)
{
    (void)arg;
    worker_tid = gettid();
    for (int i = 0; i < 100; i++)
        fr_log_enter(1);
    /* "inside a record": the stop sees busy set and must give up on this thread */
    __atomic_store_n(&fr_tls.busy, 1, __ATOMIC_SEQ_CST);
    sem_post(&held);
    sem_wait(&release_it);
    /* the record in progress completes: a stale store of pos, as a real writer would */
    fr_tls.pos += 8;
    __atomic_store_n(&fr_tls.busy, 0, __ATOMIC_RELEASE);
    sem_post(&resumed);
    sem_wait(&go_on);
    for (int i = 0; i < 50; i++)
        fr_log_enter(2);   /* the new session: must register afresh */
    return NULL;
}

static uint64_t drops_cause(const struct cp_trace *t, int32_t tid, int cause)
{
    for (size_t i = 0; i < t->nrecs; i++) {
        const struct cp_record *r = &t->recs[i];
        if (r->kind == 5 && r->type == FR_TE_DROPS && (int32_t)cp_u32(r->data) == tid)
            return cp_u64(r->data + 8 + 8 * (size_t)cause);
    }
    fail_msg("no FR_TE_DROPS for tid %d", tid);
    return 0;
}

static void test_stop_leaves_a_writer_inside_a_record(void **state)
{
    (void)state;
    sem_init(&held, 0, 0);
    sem_init(&release_it, 0, 0);
    sem_init(&resumed, 0, 0);
    sem_init(&go_on, 0, 0);
    start("one.fr", "buffers=8 buffer_size=8k");   /* its 100 records fit its first (small) buffer */
    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    sem_wait(&held);
    fr_log_enter(3);
    struct cp_trace t;
    stop(&t);   /* waits ~1 s for the held thread, then leaves it */
    assert_int_equal(cp_count(&t, worker_tid, -1), 0);          /* its buffer not written */
    assert_int_equal(drops_cause(&t, worker_tid, FR_DROP_UNFINISHED), 100);
    assert_int_equal(cp_count(&t, getpid(), FR_FN_ENTER), 1);
    cp_free(&t);
    sem_post(&release_it);
    sem_wait(&resumed);
    assert_int_equal(fr_reset(), FR_OK);   /* the old pool stays mapped: no crash */
    start("two.fr", "buffers=8 buffer_size=4k");
    sem_post(&go_on);
    pthread_join(th, NULL);
    stop(&t);
    assert_int_equal(cp_count(&t, worker_tid, FR_FN_ENTER), 50);
    for (size_t i = 0; i < t.nrecs; i++)
        if (t.recs[i].tid == worker_tid && t.recs[i].kind == FR_FN_ENTER)
            assert_int_equal(t.recs[i].id, 2);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_leaves_a_writer_inside_a_record),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
