/*
 * core_record_test.c - the flight recorder core end to end: records written through the
 * public API, flushed, read back with tests/core_parse.h. Single-threaded cases; the
 * multi-thread ones are in core_threads_test.c.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <dirent.h>
#include "flightrec.h"
#include "core_parse.h"
#include "core/thread_writer.h" /* white box: fr_tls, to force a TSC wrap */

#define CORE_SESSION_DIR "/tmp/fr-core-XXXXXX"
#include "core_session.h"

/* A case that cannot run here (one CPU, affinity refused): cmocka's skip() alone would let
 * the whole program exit 0, which ctest reports as Passed; main exits 77 (Skipped) when a
 * case skipped and none failed. */
static int skipped_cases;
#define SKIP()              \
    do {                    \
        skipped_cases++;    \
        skip();             \
    } while (0)

static void finish(struct cp_trace *t)
{
    cp_free(t);
    assert_int_equal(fr_reset(), FR_OK);
    assert_int_equal(fr_get_state(), FR_STATE_UNINITIALIZED);
}

static uint64_t stat_field(const struct cp_trace *t, int32_t tid, size_t offset)
{
    for (size_t i = 0; i < t->nrecs; i++) {
        const struct cp_record *r = &t->recs[i];
        if (r->kind == 5 && r->type == FR_TE_THREAD_STATS && (int32_t)cp_u32(r->data) == tid)
            return cp_u64(r->data + offset);
    }
    fail_msg("no THREAD_STATS for tid %d", tid);
    return 0;
}
#define STAT_WRITTEN offsetof(struct fr_te_thread_stats, records_written)
#define STAT_DROPPED offsetof(struct fr_te_thread_stats, records_dropped)
#define STAT_BELOW   offsetof(struct fr_te_thread_stats, calls_below_threshold)

/* ------------------------------------------------------------------ lifecycle */

static void test_lifecycle_misuse(void **state)
{
    (void)state;
    assert_int_equal(fr_get_state(), FR_STATE_UNINITIALIZED);
    assert_int_equal(fr_finalize(), FR_ERR_STATE);
    assert_int_equal(fr_flush(), FR_ERR_STATE);
    assert_int_equal(fr_reset(), FR_ERR_STATE);
    assert_int_equal(fr_init("buffer_size=12 nonsense=1"), FR_ERR_OPTIONS);
    assert_int_equal(fr_init("policy=sometimes"), FR_ERR_OPTIONS);
    assert_int_equal(fr_init("novalue"), FR_ERR_OPTIONS);
    assert_int_equal(fr_get_state(), FR_STATE_UNINITIALIZED);
    fr_log_enter(1); /* no-op while uninitialized */
    start("life.fr", "buffers=2,buffer_size=4096");
    assert_int_equal(fr_get_state(), FR_STATE_INITIALIZED);
    assert_int_equal(fr_init(NULL), FR_ERR_STATE);
    assert_int_equal(fr_flush(), FR_ERR_STATE);
    assert_int_equal(fr_reset(), FR_ERR_STATE);
    fr_log_enter(1);
    fr_log_exit(1);
    assert_int_equal(fr_finalize(), FR_OK);
    assert_int_equal(fr_get_state(), FR_STATE_FINALIZED);
    assert_int_equal(fr_finalize(), FR_ERR_STATE);
    fr_log_enter(2); /* dropped silently: not recording */
    assert_int_equal(fr_flush(), FR_OK);
    assert_int_equal(fr_flush(), FR_OK); /* flushing again writes the same file */
    struct cp_trace t;
    assert_int_equal(cp_load(&t, path), 0);
    assert_int_equal(cp_count(&t, 0, -1), 2);
    fr_stats st;
    fr_get_stats(&st);
    assert_int_equal(st.records_written, 2);
    assert_int_equal(st.records_dropped, 0);
    assert_int_equal(st.threads, 1);
    finish(&t);
    assert_int_equal(fr_reset(), FR_ERR_STATE);
    /* init straight from FINALIZED resets first */
    start("life2.fr", "");
    assert_int_equal(fr_finalize(), FR_OK);
    start("life3.fr", "");
    fr_log_enter(3);
    stop(&t);
    assert_int_equal(cp_count(&t, 0, -1), 1);
    finish(&t);
}

/* ------------------------------------------------------------------ round trip */

static void test_round_trip_all_kinds(void **state)
{
    (void)state;
    start("kinds.fr", "policy=discard buffers=8 buffer_size=64k");
    const char custom[] = "hello custom";
    const char typed[] = "typed payload bytes";
    enum { N = 5000 };
    for (uint32_t i = 1; i <= N; i++) {
        fr_log_enter(i);
        if (i % 100 == 0)
            fr_log_custom_event(custom, sizeof custom);
        fr_log_exit(i);
    }
    fr_log_enter_arg(7, 0x1122334455667788ull);
    fr_log_tail_exit(7);
    fr_log_typed_event(42, typed, sizeof typed);
    fr_log_typed_event(43, NULL, 0); /* empty: dropped, llvm-xray rejects those */
    fr_log_typed_event(43, "a", 1);
    struct cp_trace t;
    stop(&t);
    int32_t tid = gettid();
    assert_int_equal(t.nblocks, 2); /* metadata + this thread */
    assert_int_equal(t.block_tids[0], 0);
    assert_int_equal(t.block_tids[1], tid);
    assert_int_equal(cp_count(&t, tid, FR_FN_ENTER), N);
    assert_int_equal(cp_count(&t, tid, FR_FN_EXIT), N);
    assert_int_equal(cp_count(&t, tid, FR_FN_ENTER_ARG), 1);
    assert_int_equal(cp_count(&t, tid, FR_FN_TAIL_EXIT), 1);
    assert_int_equal(cp_count(&t, tid, 4), N / 100);
    assert_int_equal(cp_count(&t, tid, 5), 2); /* 42 and 43 "a"; the empty one dropped */
    /* order, ids, payloads and non-decreasing time */
    uint32_t expect = 1;
    int phase = 0;
    uint64_t last = 0;
    for (size_t i = 0; i < t.nrecs; i++) {
        const struct cp_record *r = &t.recs[i];
        if (r->tid != tid)
            continue;
        assert_true(r->tsc >= last);
        last = r->tsc;
        if (r->kind == 4) {
            assert_int_equal(r->size, sizeof custom);
            assert_memory_equal(r->data, custom, sizeof custom);
            continue;
        }
        if (expect <= N) {
            assert_int_equal(r->kind, phase ? FR_FN_EXIT : FR_FN_ENTER);
            assert_int_equal(r->id, expect);
            if (phase)
                expect++;
            phase ^= 1;
        } else if (r->kind == FR_FN_ENTER_ARG) {
            assert_int_equal(r->id, 7);
            assert_int_equal(r->arg, 0x1122334455667788ull);
        } else if (r->kind == 5 && r->type == 42) {
            assert_int_equal(r->size, sizeof typed);
            assert_memory_equal(r->data, typed, sizeof typed);
        }
    }
    /* the metadata block carries our records, none as an XRay typed event (llvm-xray
     * would give every later record of the thread that event's type) */
    assert_int_equal(t.typed_ours, 0);
    assert_non_null(cp_find_typed(&t, FR_TE_CLOCK));
    assert_non_null(cp_find_typed(&t, FR_TE_PROCESS));
    const struct cp_record *sum = cp_find_typed(&t, FR_TE_SUMMARY);
    assert_non_null(sum);
    assert_int_equal(sum->tid, 0);
    struct fr_te_summary summary;
    assert_int_equal(sum->size, sizeof summary);
    memcpy(&summary, sum->data, sizeof summary);
    assert_int_equal(summary.policy, FR_POLICY_DISCARD);
    assert_int_equal(summary.records_written, 2 * N + N / 100 + 4);
    assert_int_equal(summary.records_dropped, 1);
    assert_int_equal(stat_field(&t, tid, STAT_WRITTEN), 2 * N + N / 100 + 4);
    const struct cp_record *clk = cp_find_typed(&t, FR_TE_CLOCK);
    struct fr_te_clock clock;
    assert_int_equal(clk->size, sizeof clock);
    memcpy(&clock, clk->data, sizeof clock);
    assert_int_equal(clock.ticks_per_second, t.hdr.cycle_frequency);
#if defined(__x86_64__)
    assert_true(t.hdr.cycle_frequency > 100000000ull);   /* a calibrated TSC */
#else
    /* aarch64: cntfrq_el0 as published (25 MHz on some servers, 62.5 MHz under qemu) */
    assert_true(t.hdr.cycle_frequency >= 1000000ull);
#endif
    assert_int_equal(t.hdr.buffer_size, 65536);
    finish(&t);
}

/* A thread's buffers form one block; the deltas stay right across buffer changes. */
static void test_many_buffers_one_block(void **state)
{
    (void)state;
    start("buffers.fr", "policy=discard buffers=64 buffer_size=1024");
    enum { N = 3000 };
    for (uint32_t i = 1; i <= N; i++)
        fr_log_enter(i);
    struct cp_trace t;
    stop(&t);
    assert_int_equal(t.nblocks, 2);
    assert_int_equal(cp_count(&t, 0, FR_FN_ENTER), N);
    for (size_t i = 0, k = 1; i < t.nrecs; i++)
        if (t.recs[i].tid != 0)
            assert_int_equal(t.recs[i].id, k++);
    finish(&t);
}

/* ------------------------------------------------------------------ policies */

/* discard: the oldest records are kept, every later one is counted as dropped. */
static void test_discard_keeps_oldest(void **state)
{
    (void)state;
    start("discard.fr", "policy=discard buffers=4 buffer_size=1024");
    enum { N = 2000 };
    for (uint32_t i = 1; i <= N; i++)
        fr_log_enter(i);
    struct cp_trace t;
    stop(&t);
    int32_t tid = gettid();
    size_t kept = cp_count(&t, tid, FR_FN_ENTER);
    /* 4 buffers of (1024 - 64) / 8 records */
    assert_int_equal(kept, 4 * ((1024 - 64) / 8));
    for (size_t i = 0, k = 1; i < t.nrecs; i++)
        if (t.recs[i].tid == tid)
            assert_int_equal(t.recs[i].id, k++);
    assert_int_equal(stat_field(&t, tid, STAT_WRITTEN), kept);
    assert_int_equal(stat_field(&t, tid, STAT_DROPPED), N - kept);
    fr_stats st;
    fr_get_stats(&st);
    assert_int_equal(st.records_dropped, N - kept);
    finish(&t);
}

/* overwrite: exactly the newest records are kept; drops counted. */
static void test_overwrite_keeps_newest(void **state)
{
    (void)state;
    start("overwrite.fr", "policy=overwrite buffers=4 buffer_size=1024");
    enum { N = 2003 };
    for (uint32_t i = 1; i <= N; i++)
        fr_log_enter(i);
    struct cp_trace t;
    stop(&t);
    int32_t tid = gettid();
    size_t kept = cp_count(&t, tid, FR_FN_ENTER);
    const size_t per = (1024 - 64) / 8;
    /* the current buffer holds N mod per (or a full one), three full ones before it */
    size_t in_last = N % per ? N % per : per;
    assert_int_equal(kept, 3 * per + in_last);
    uint32_t k = (uint32_t)(N - kept + 1);
    for (size_t i = 0; i < t.nrecs; i++)
        if (t.recs[i].tid == tid && t.recs[i].kind != 5)
            assert_int_equal(t.recs[i].id, k++);
    assert_int_equal(k, N + 1);
    assert_int_equal(stat_field(&t, tid, STAT_DROPPED), N - kept);
    /* the gap is marked */
    const struct cp_record *lost = cp_find_typed(&t, FR_TE_LOST);
    assert_non_null(lost);
    assert_int_equal(lost->tid, tid);
    struct fr_te_lost gap;
    assert_int_equal(lost->size, sizeof gap);
    memcpy(&gap, lost->data, sizeof gap);
    assert_int_equal(gap.records, N - kept);
    finish(&t);
}

/* ------------------------------------------------------------------ threshold */

static void spin_us(unsigned us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void test_threshold_rewinds_short_calls(void **state)
{
    (void)state;
    /* 300 ms: the short calls stay short even when this loaded machine preempts us.
     * One CPU: a migration starts a new run (a NEW_CPU record), after which the calls
     * open before it cannot be rewound (9 records instead of 5, seen in a loaded run). */
    cpu_set_t old, one;
    sched_getaffinity(0, sizeof old, &old);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    start("threshold.fr", "policy=discard threshold_us=300000");
    enum { N = 1000 };
    fr_log_enter(1);                 /* long call: kept */
    for (uint32_t i = 0; i < N; i++) {
        fr_log_enter(2);             /* short nested calls: rewound */
        fr_log_enter(3);
        fr_log_exit(3);
        fr_log_exit(2);
    }
    fr_log_enter(4);                 /* an event inside keeps the call */
    fr_log_custom_event("x", 1);
    fr_log_exit(4);
    spin_us(320000);
    fr_log_exit(1);
    sched_setaffinity(0, sizeof old, &old);
    struct cp_trace t;
    stop(&t);
    int32_t tid = gettid();
    assert_int_equal(cp_count(&t, tid, -1), 5);
    assert_int_equal(t.recs[t.nrecs - 5].id, 1);
    assert_int_equal(t.recs[t.nrecs - 4].id, 4);
    assert_int_equal(t.recs[t.nrecs - 1].id, 1);
    assert_int_equal(t.recs[t.nrecs - 1].kind, FR_FN_EXIT);
    /* the exit's time is still right after the rewinds */
    uint64_t dur = t.recs[t.nrecs - 1].tsc - t.recs[t.nrecs - 5].tsc;
    assert_true(dur >= t.hdr.cycle_frequency / 1000 * 300);
    assert_int_equal(stat_field(&t, tid, STAT_BELOW), 2 * N);
    fr_stats st;
    fr_get_stats(&st);
    assert_int_equal(st.calls_below_threshold, 2 * N);
    finish(&t);
}

/* ------------------------------------------------------------------ signals */

static volatile sig_atomic_t handler_runs;

static void on_signal(int sig)
{
    (void)sig;
    fr_log_enter(1000);
    fr_log_custom_event("sig", 3);
    fr_log_exit(1000);
    handler_runs++;
}

/* Records from a signal handler land between the interrupted thread's records (or are
 * dropped by the recursion guard when they hit one in progress): the file stays valid
 * and every record is either present or counted. */
static void test_signal_handler_records(void **state)
{
    (void)state;
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    start("signals.fr", "policy=discard buffers=64 buffer_size=64k");
    struct itimerval it = { { 0, 50 }, { 0, 50 } };
    setitimer(ITIMER_REAL, &it, NULL);
    enum { N = 200000 };
    for (uint32_t i = 0; i < N; i++) {
        fr_log_enter(1 + (i & 15));
        fr_log_exit(1 + (i & 15));
        if (i % 20000 == 0)
            raise(SIGALRM);
    }
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_DFL);
    struct cp_trace t;
    stop(&t);
    int32_t tid = gettid();
    size_t mine = 0, theirs = 0;
    for (size_t i = 0; i < t.nrecs; i++) {
        const struct cp_record *r = &t.recs[i];
        if (r->tid != tid)
            continue;
        if (r->kind == 4 || r->id == 1000)
            theirs++;
        else
            mine++;
    }
    assert_int_equal(mine, 2 * N);
    assert_true(handler_runs >= N / 20000);
    uint64_t dropped = stat_field(&t, tid, STAT_DROPPED);
    assert_int_equal(theirs + dropped, 3 * (size_t)handler_runs);
    finish(&t);
}

/* ------------------------------------------------------------------ fork */

static void test_fork_child_writes_own_file(void **state)
{
    (void)state;
    start("fork.fr", "policy=discard");
    fr_log_enter(1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fr_log_enter(2);
        fr_log_exit(2);
        exit(0); /* flush at exit, to fork.fr.PID */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    fr_log_exit(1);
    struct cp_trace t;
    stop(&t);
    assert_int_equal(cp_count(&t, 0, -1), 2);
    assert_int_equal(t.recs[t.nrecs - 1].id, 1);
    cp_free(&t);
    char child[300];
    snprintf(child, sizeof child, "%s.%d", path, (int)pid);
    if (cp_load(&t, child) != 0)
        fail_msg("%s: %s", child, t.error);
    assert_int_equal(cp_count(&t, 0, -1), 2);
    assert_int_equal(t.recs[t.nrecs - 2].id, 2);
    assert_int_equal(t.nblocks, 2);
    assert_int_equal(t.block_tids[1], pid); /* the child's main thread */
    finish(&t);
}

/* A delta that does not fit in 32 bits (function records) or 31 bits (events) goes
 * through TSCWrap; timestamps stay exact. Forced by moving the thread's last timestamp
 * back 2^33 ticks, which is what a long pause would look like. */
static void test_tsc_wrap(void **state)
{
    (void)state;
    start("wrap.fr", "policy=discard");
    fr_log_enter(1);
    fr_tls.last_tsc -= 1ull << 33;
    fr_log_enter(2);
    fr_tls.last_tsc -= 1ull << 31;
    fr_log_custom_event("e", 1);
    fr_log_exit(2);
    fr_log_exit(1);
    struct cp_trace t;
    stop(&t);
    assert_int_equal(cp_count(&t, 0, -1), 5);
    assert_int_equal(t.wraps, 2);
    for (size_t i = 1; i < t.nrecs; i++)
        if (t.recs[i].tid != 0 && t.recs[i - 1].tid != 0) {
            assert_true(t.recs[i].tsc >= t.recs[i - 1].tsc);
            assert_true(t.recs[i].tsc - t.recs[i - 1].tsc < t.hdr.cycle_frequency); /* < 1 s */
        }
    finish(&t);
}

/* Moving to another CPU writes NewCPUId; records carry the new CPU. */
static void test_cpu_migration(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        SKIP();
    if (__rseq_size == 0) {   /* no rseq (qemu-user has none): every record says CPU 0 */
        print_message("rseq not registered: CPU ids are not recorded\n");
        SKIP();
    }
    cpu_set_t old, one;
    sched_getaffinity(0, sizeof old, &old);
    start("cpu.fr", "policy=discard");
    for (int cpu = 0; cpu < 2; cpu++) {
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            SKIP();
        fr_log_enter(10 + (uint32_t)cpu);
        fr_log_exit(10 + (uint32_t)cpu);
    }
    sched_setaffinity(0, sizeof old, &old);
    struct cp_trace t;
    stop(&t);
    assert_int_equal(cp_count(&t, 0, -1), 4);
    for (size_t i = 0; i < t.nrecs; i++)
        if (t.recs[i].tid != 0)
            assert_int_equal(t.recs[i].cpu, t.recs[i].id - 10);
    finish(&t);
}

/* A write failure leaves nothing under the final name. */
static void test_write_failure(void **state)
{
    (void)state;
    char o[256];
    snprintf(o, sizeof o, "output=%s/no/such/dir/x.fr", dir);
    assert_int_equal(fr_init(o), FR_OK);
    fr_log_enter(1);
    assert_int_equal(fr_finalize(), FR_OK);
    assert_int_equal(fr_flush(), FR_ERR_IO);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s/no/such/dir/x.fr.tmp", dir);
    assert_int_equal(access(tmp, F_OK), -1);
    assert_true(!fr_last_output_path() || !strstr(fr_last_output_path(), "no/such"));
    assert_int_equal(fr_reset(), FR_OK);
    /* an existing entry under the final name that the trace cannot replace (a non-empty
     * directory: rename fails with EISDIR even for root, where a read-only directory
     * would not stop root) is left as it was, and no temporary file stays behind */
    snprintf(path, sizeof path, "%s/final.fr", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    char inside[400];
    snprintf(inside, sizeof inside, "%s/keep", path);
    FILE *keep = fopen(inside, "w");
    assert_non_null(keep);
    fputs("kept", keep);
    fclose(keep);
    snprintf(o, sizeof o, "output=%s", path);
    assert_int_equal(fr_init(o), FR_OK);
    fr_log_enter(1);
    assert_int_equal(fr_finalize(), FR_OK);
    assert_int_equal(fr_flush(), FR_ERR_IO);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    char kept[8] = {0};
    keep = fopen(inside, "r");
    assert_non_null(keep);
    assert_non_null(fgets(kept, sizeof kept, keep));
    fclose(keep);
    assert_string_equal(kept, "kept");
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        assert_null(strstr(e->d_name, ".tmp"));
    closedir(d);
    assert_int_equal(fr_reset(), FR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle_misuse),
        cmocka_unit_test(test_round_trip_all_kinds),
        cmocka_unit_test(test_many_buffers_one_block),
        cmocka_unit_test(test_discard_keeps_oldest),
        cmocka_unit_test(test_overwrite_keeps_newest),
        cmocka_unit_test(test_threshold_rewinds_short_calls),
        cmocka_unit_test(test_signal_handler_records),
        cmocka_unit_test(test_fork_child_writes_own_file),
        cmocka_unit_test(test_write_failure),
        cmocka_unit_test(test_tsc_wrap),
        cmocka_unit_test(test_cpu_migration),
    };
    int failed = cmocka_run_group_tests(tests, setup_dir, teardown_dir);
    return failed ? 1 : skipped_cases ? 77 : 0;
}
