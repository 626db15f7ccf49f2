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
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "flightrec.h"
#include "core_parse.h"
#include "fr_reader.h"
#include "trace_meta.h"

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
static uint64_t summary_u64(const struct cp_trace *t, size_t off)
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

/* ------------------------------------------------------------------ exact accounting */

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifdef UNDER_TSAN
enum { SCALE = 5 };   /* TSan runs ~10x slower: fewer records, same shape */
#else
enum { SCALE = 1 };
#endif

static uint64_t asked;          /* records asked for (atomic) */
static uint64_t asked_invalid;  /* of which invalid (atomic) */
static uint64_t asked_large;    /* of which larger than a buffer (atomic) */

struct stress_arg { uint32_t index; long calls; pid_t tid; uint64_t asked; };

/* Thread `index` makes `calls` enter/exit pairs with ids (index << 16) + k, and a few
 * events: valid, empty (invalid), reserved type (invalid), larger than a buffer. */
static void *stress_worker(void *arg)
{
    struct stress_arg *a = arg;
    a->tid = gettid();
    uint64_t n = 0, inv = 0, big = 0;
    static char huge[4096];
    for (long k = 0; k < a->calls; k++) {
        uint32_t id = (a->index << 16) + (uint32_t)(k & 0xffff);
        fr_log_enter(id);
        fr_log_exit(id);
        n += 2;
        if (k % 97 == 0) {
            fr_log_custom_event("abc", 3);
            fr_log_typed_event(3, "x", 1);
            fr_log_custom_event("", 0);              /* invalid: empty */
            fr_log_typed_event(FR_TE_SUMMARY, "y", 1); /* invalid: our type range */
            fr_log_custom_event(huge, sizeof huge);  /* larger than a 1 KiB buffer */
            n += 5;
            inv += 2;
            big += 1;
        }
    }
    a->asked = n;
    __atomic_fetch_add(&asked, n, __ATOMIC_RELAXED);
    __atomic_fetch_add(&asked_invalid, inv, __ATOMIC_RELAXED);
    __atomic_fetch_add(&asked_large, big, __ATOMIC_RELAXED);
    return NULL;
}

/* Threads that start and exit in a loop while 3 long ones record. */
static void *churner(void *arg)
{
    long rounds = (long)(intptr_t)arg;
    for (long r = 0; r < rounds; r++) {
        struct stress_arg a = { .index = 100 + (uint32_t)(r % 50), .calls = 300 };
        pthread_t th;
        pthread_create(&th, NULL, stress_worker, &a);
        pthread_join(th, NULL);
    }
    return NULL;
}

/* The file's figures against what was asked, by our reader library and by core_parse. */
static void check_accounting(const char *policy)
{
    char name[64], opts[128];
    snprintf(name, sizeof name, "stress-%s.fr", policy);
    snprintf(opts, sizeof opts, "policy=%s buffers=12 buffer_size=1k", policy);
    asked = asked_invalid = asked_large = 0;
    start(name, opts);
    enum { LONG = 3 };
    pthread_t th[LONG + 1];
    struct stress_arg a[LONG];
    for (int i = 0; i < LONG; i++) {
        a[i] = (struct stress_arg){ .index = (uint32_t)i + 1, .calls = 20000 / SCALE };
        pthread_create(&th[i], NULL, stress_worker, &a[i]);
    }
    pthread_create(&th[LONG], NULL, churner, (void *)(intptr_t)(200 / SCALE));
    for (int i = 0; i <= LONG; i++)
        pthread_join(th[i], NULL);
    struct cp_trace t;
    stop(&t);
    /* independent parser: records in the file == written; causes sum == dropped */
    uint64_t written = summary_u64(&t, 24), dropped = summary_u64(&t, 32);
    size_t in_file = 0;
    for (size_t i = 0; i < t.nrecs; i++)
        if (t.recs[i].tid != 0 && !(t.recs[i].kind == 5 && t.recs[i].type >= FR_TE_FIRST &&
                                    t.recs[i].type <= FR_TE_LAST))
            in_file++;
    assert_int_equal(in_file, written);
    uint64_t c[FR_DROP_NCAUSES];
    assert_int_equal(drops_of(&t, 0, c), 0);
    assert_int_equal(sum(c), dropped);
    assert_int_equal(written + dropped, asked);
    assert_int_equal(c[FR_DROP_INVALID], asked_invalid);
    assert_int_equal(c[FR_DROP_TOO_LARGE], asked_large);
    assert_int_equal(c[FR_DROP_NESTED] + c[FR_DROP_THREAD_LIMIT] + c[FR_DROP_UNFINISHED], 0);
    /* (overwrite may drop as "no free buffer" too, counted: when more threads record at
     * once than there are buffers, every other buffer can be some thread's current one) */
    if (!strcmp(policy, "discard"))
        assert_int_equal(c[FR_DROP_OVERWRITTEN], 0);
    /* each long thread: its kept function records are its newest (overwrite) or its
     * oldest (discard), in order: no record of another writer inside */
    for (int i = 0; i < LONG; i++) {
        long prev = -1;
        for (size_t k = 0; k < t.nrecs; k++) {
            const struct cp_record *r = &t.recs[k];
            if (r->tid != a[i].tid || r->kind > FR_FN_TAIL_EXIT)
                continue;
            assert_int_equal(r->id >> 16, a[i].index);
            long id = (long)(r->id & 0xffff);
            if (prev >= 0 && r->kind == FR_FN_ENTER)
                assert_int_equal(id, (prev + 1) & 0xffff);
            if (r->kind == FR_FN_ENTER)
                prev = id;
        }
    }
    cp_free(&t);
    /* our reader */
    char err[256];
    fr_reader *r = fr_reader_open(path, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    fr_trace_meta m;
    fr_trace_meta_init(&m);
    fr_record rec;
    uint64_t n = 0;
    while (fr_reader_next(r, &rec) == FR_READ_OK)
        if (!fr_trace_meta_feed(&m, &rec) && rec.tid != 0 && rec.kind != FR_REC_BLOCK &&
            !(rec.kind == FR_REC_TYPED && rec.event_type >= FR_TE_FIRST && rec.event_type <= FR_TE_LAST))
            n++;
    fr_trace_meta_finish(&m);
    assert_true(m.has_summary);
    assert_int_equal(m.records_written, written);
    assert_int_equal(m.records_dropped, dropped);
    assert_int_equal(n, written);
    assert_int_equal(m.records_written + m.records_dropped, asked);
    assert_true(m.has_drops);
    assert_memory_equal(m.drops, c, sizeof c);
    fr_trace_meta_free(&m);
    fr_reader_close(r);
    assert_int_equal(fr_reset(), FR_OK);
}

static void test_exact_accounting_overwrite(void **state) { (void)state; check_accounting("overwrite"); }
static void test_exact_accounting_discard(void **state) { (void)state; check_accounting("discard"); }

/* ------------------------------------------------------------------ thread churn */

static void *short_thread(void *arg)
{
    (void)arg;
    fr_log_enter(9);
    fr_log_exit(9);
    return NULL;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

/* 100,000 short threads one after another (a server's churn): slots of exited threads
 * are reused, so every thread's records are in the file or counted, and memory stays
 * flat. Before: slot 4097 onward was refused for the whole session (SUMMARY said 4096
 * threads, the rest silently "untracked"). */
static void test_thread_churn(void **state)
{
    (void)state;
    const long n = 100000 / SCALE;
    start("churn.fr", "buffers=64 buffer_size=65536");   /* a 4 MiB pool: in use by 10% */
    long rss_at_10 = 0;
    for (long i = 0; i < n; i++) {
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, short_thread, NULL), 0);
        pthread_join(th, NULL);
        if (i == n / 10)
            rss_at_10 = rss_kib();
    }
    long rss_end = rss_kib();
    struct cp_trace t;
    stop(&t);
    const struct cp_record *s = cp_find_typed(&t, FR_TE_SUMMARY);
    assert_non_null(s);
    assert_int_equal(cp_u32(s->data + 20), (uint32_t)n);   /* every thread counted */
    uint64_t c[FR_DROP_NCAUSES];
    assert_int_equal(drops_of(&t, 0, c), 0);
    assert_int_equal(summary_u64(&t, 24) + sum(c), (uint64_t)(2 * n));
    assert_int_equal(c[FR_DROP_THREAD_LIMIT], 0);
    assert_true(summary_u64(&t, 24) > 0);
    /* memory flat: the last 90% of the threads added less than 8 MiB (the pool is
     * touched as it is first used: a 4 MiB one is, by then; the thread slots' table
     * (5.5 MiB) fills as slots go round, 3.8 MiB of it after 10%. Sanitizers keep
     * per-thread state of their own: checked in the plain build only) */
#if !defined(UNDER_TSAN) && !defined(UNDER_ASAN)
    assert_true(rss_end - rss_at_10 < 8192);
#else
    (void)rss_at_10;
    (void)rss_end;
#endif
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

/* ------------------------------------------------------------------ re-init */

/* fr_finalize then fr_init: the first session is written before the second starts
 * (include/flightrec.h). Before: it was discarded silently. */
static void test_reinit_writes_first_session(void **state)
{
    (void)state;
    char first[256];
    start("first.fr", "");
    snprintf(first, sizeof first, "%s", path);
    for (int i = 0; i < 10; i++) {
        fr_log_enter(3);
        fr_log_exit(3);
    }
    assert_int_equal(fr_finalize(), FR_OK);
    start("second.fr", "");
    fr_log_enter(4);
    struct cp_trace t;
    stop(&t);
    assert_int_equal(cp_count(&t, 0, -1) - 0, cp_count(&t, 0, -1));
    assert_int_equal(fn_records(&t, getpid()), 1);
    cp_free(&t);
    assert_int_equal(cp_load(&t, first), 0);
    assert_int_equal(fn_records(&t, getpid()), 20);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

/* ------------------------------------------------------------------ sessions while threads run */

static int keep_running;

static void *nonstop(void *arg)
{
    (void)arg;
    uint32_t k = 0;
    while (__atomic_load_n(&keep_running, __ATOMIC_RELAXED)) {
        fr_log_enter(k & 0xfff);
        fr_log_exit(k & 0xfff);
        k++;
    }
    return NULL;
}

/* Threads record without pause while sessions start and stop with pools of different
 * sizes (the new pool is often mapped where the old one was): each file parses strictly
 * and holds what its summary says. Before: a writer could carry a pointer of the old
 * session into the new pool. */
static void test_sessions_while_threads_run(void **state)
{
    (void)state;
    enum { W = 3 };
    pthread_t th[W];
    __atomic_store_n(&keep_running, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < W; i++)
        pthread_create(&th[i], NULL, nonstop, NULL);
    for (int s = 0; s < 12; s++) {
        char name[32];
        snprintf(name, sizeof name, "run%d.fr", s);
        start(name, s % 2 ? "buffers=4 buffer_size=1k" : "buffers=16 buffer_size=4k policy=discard");
        usleep(2000);
        struct cp_trace t;
        stop(&t);
        size_t in_file = 0;
        for (size_t i = 0; i < t.nrecs; i++)
            if (t.recs[i].tid != 0 && t.recs[i].kind <= FR_FN_TAIL_EXIT)
                in_file++;
        assert_int_equal(in_file, summary_u64(&t, 24));
        cp_free(&t);
        if (s % 3 == 0)
            assert_int_equal(fr_reset(), FR_OK);   /* else: fr_init re-inits */
    }
    __atomic_store_n(&keep_running, 0, __ATOMIC_RELAXED);
    for (int i = 0; i < W; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(fr_reset(), FR_OK);
}

/* ------------------------------------------------------------------ outputs */

/* output=/dev/null is written in place: it stays a character device. */
static void test_dev_null_output(void **state)
{
    (void)state;
    assert_int_equal(fr_init("output=/dev/null"), FR_OK);
    fr_log_enter(1);
    assert_int_equal(fr_finalize(), FR_OK);
    assert_int_equal(fr_flush(), FR_OK);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(fr_reset(), FR_OK);
}

/* ------------------------------------------------------------------ signals, fork */

static atomic_int usr1_handled, usr1_entered;
static void on_usr1(int sig)
{
    (void)sig;
    if (atomic_exchange(&usr1_entered, 1))
        return;   /* a resent signal (below) delivered after all */
    fr_log_enter(0x55);
    fr_log_exit(0x55);
    atomic_store(&usr1_handled, 1);
}

static sem_t ready;
static void *first_record_in_handler(void *arg)
{
    *(pid_t *)arg = gettid();
    sem_post(&ready);
    /* The signal arrives while the thread sleeps: its first records are the handler's.
     * Waiting for the handler (not a fixed time) matters under TSan, which defers a
     * signal to the thread's next intercepted call: after a fixed sleep it could run
     * inside fr_log_enter(0x66) below, where the recursion guard rightly drops it. */
    while (!atomic_load(&usr1_handled))
        usleep(1000);
    fr_log_enter(0x66);
    return NULL;
}

/* A thread whose first record is made in a signal handler registers there and keeps it. */
static void test_first_record_in_signal_handler(void **state)
{
    (void)state;
    struct sigaction sa = { .sa_handler = on_usr1 };
    sigaction(SIGUSR1, &sa, NULL);
    sem_init(&ready, 0, 0);
    atomic_store(&usr1_handled, 0);
    atomic_store(&usr1_entered, 0);
    start("signal.fr", "");
    pthread_t th;
    pid_t tid;
    pthread_create(&th, NULL, first_record_in_handler, &tid);
    sem_wait(&ready);
    pthread_kill(th, SIGUSR1);
    /* TSan's deferred delivery loses a signal now and then (1 in ~300 with a plain
     * program and no flightrec): sent again after 200 ms without a handler. */
    for (int waited = 1; !atomic_load(&usr1_handled); waited++) {
        usleep(1000);
        if (waited % 200 == 0)
            pthread_kill(th, SIGUSR1);
    }
    pthread_join(th, NULL);
    struct cp_trace t;
    stop(&t);
    assert_int_equal(fn_records(&t, tid), 3);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
    signal(SIGUSR1, SIG_DFL);
}

enum { FORKERS = 4, FORKS = 3 };
static pid_t children[FORKERS * FORKS];

static void *forker(void *arg)
{
    int i = (int)(intptr_t)arg;
    for (int k = 0; k < FORKS; k++) {
        fr_log_enter(0x100 + (uint32_t)i);
        pid_t p = fork();
        if (p == 0) {
            for (int r = 0; r < 50; r++) {
                fr_log_enter(0x200);
                fr_log_exit(0x200);
            }
            /* the child's own session (not exit(): the sanitizers' leak check would
             * report the test framework's state, copied from the parent) */
            int ok = fr_finalize() == FR_OK && fr_flush() == FR_OK;
            _exit(ok ? 0 : 1);
        }
        children[i * FORKS + k] = p;
        fr_log_exit(0x100 + (uint32_t)i);
    }
    return NULL;
}

/* fork from several threads at once while they record: each child writes its own file
 * (output.PID) with exactly its 100 records; the parent's trace is intact. */
static void test_fork_from_threads(void **state)
{
    (void)state;
    start("fork.fr", "");
    pthread_t th[FORKERS];
    for (int i = 0; i < FORKERS; i++)
        pthread_create(&th[i], NULL, forker, (void *)(intptr_t)i);
    for (int i = 0; i < FORKERS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < FORKERS * FORKS; i++) {
        int st;
        assert_int_equal(waitpid(children[i], &st, 0), children[i]);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        char child[300];
        snprintf(child, sizeof child, "%s/fork.fr.%d", dir, (int)children[i]);
        struct cp_trace c;
        if (cp_load(&c, child) != 0)
            fail_msg("%s: %s", child, c.error);
        assert_int_equal(fn_records(&c, children[i]), 100);
        cp_free(&c);
    }
    struct cp_trace t;
    stop(&t);
    assert_int_equal(cp_count(&t, 0, FR_FN_ENTER), FORKERS * FORKS);
    cp_free(&t);
    assert_int_equal(fr_reset(), FR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_threads_keep_their_share),
        cmocka_unit_test(test_exact_accounting_overwrite),
        cmocka_unit_test(test_exact_accounting_discard),
        cmocka_unit_test(test_thread_churn),
        cmocka_unit_test(test_reinit_writes_first_session),
        cmocka_unit_test(test_sessions_while_threads_run),
        cmocka_unit_test(test_dev_null_output),
        cmocka_unit_test(test_first_record_in_signal_handler),
        cmocka_unit_test(test_fork_from_threads),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
