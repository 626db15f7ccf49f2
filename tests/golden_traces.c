/*
 * golden_traces.c - writes the traces the golden tests (tests/golden/) run every command
 * on. Everything in them is fixed here: no time, path or pid of the machine that runs
 * it, so the files are the same bytes on every run (the test golden_traces checks their
 * sha256 against tests/golden/traces.sha256) and so is every command's output.
 *
 *   golden.fr  process 4242 "goldprog" (ppid 1) with flightrec's metadata: clock (2.4 GHz
 *              TSC, a fixed realtime and monotonic origin), process, summary, drops,
 *              thread stats with names, one object, 13 functions (4 C++ names, mangled as
 *              linked, one name with ; < & > " in it, one never called). Threads:
 *     4242 main:     an exit without its entry; main { parse_config { read_line x3 };
 *                    compute(arg 42) { ns::Box<long>::get x2, fib(4) recursion, a
 *                    structured event }; tail_caller tail-calls tail_callee;
 *                    (anonymous namespace)::helper }
 *     4243 worker-1: worker_loop { compute { Box::get } x3, a span (start/stop events) },
 *                    then 17 records lost (the frames open there are dropped), an exit
 *                    whose entry was lost, read_line, and worker_loop open at the end
 *     4244 worker-2: worker_loop { main::{lambda()#1}, a CPU change, the odd name,
 *                    compute still open at the end }
 *   child.fr   its forked child, process 4250 (ppid 4242): main { compute { fib(3) } }
 *   cut.fr     golden.fr cut short in the middle of worker-1's block.
 *   crash.fr   a crash dump (SIGSEGV) of a runaway recursion 131 levels deep, in two blocks
 *              of its thread, with a build-id and compact structured events (event sites
 *              and runs, one entry of a site the file does not describe).
 *   plain.fr   compiler-rt's shape: no flightrec metadata (no names, no clock event),
 *              1 GHz, two threads of three functions.
 *
 * usage: golden_traces DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "eventheader_vectors.h"
#include "fr_format.h"
#include "tb_payload.h"
#include "trace_builder.h"

#define TPS  2400000000ull   /* 2.4 GHz: tick -> time conversions have remainders */
#define BASE 5000000ull      /* the clock's base: file timestamps count from here */
#define REALTIME_NS 1767225600000000000ll   /* 2026-01-01 00:00:00 UTC */
#define MONOTONIC_NS 86400000000000ll       /* a day after boot */

enum fn {
    F_MAIN = 1, F_PARSE_CONFIG, F_READ_LINE, F_COMPUTE, F_BOX_GET, F_FIB, F_TAIL_CALLER,
    F_TAIL_CALLEE, F_HELPER, F_WORKER_LOOP, F_LAMBDA, F_ODD, F_NEVER_CALLED, F_COUNT
};
static const char *const fn_names[F_COUNT] = {
    [F_MAIN] = "main",
    [F_PARSE_CONFIG] = "parse_config",
    [F_READ_LINE] = "read_line",
    [F_COMPUTE] = "compute",
    [F_BOX_GET] = "_ZNK2ns3BoxIlE3getEi",           /* ns::Box<long>::get(int) const */
    [F_FIB] = "fib",
    [F_TAIL_CALLER] = "tail_caller",
    [F_TAIL_CALLEE] = "tail_callee",
    [F_HELPER] = "_ZN12_GLOBAL__N_16helperEv",      /* (anonymous namespace)::helper() */
    [F_WORKER_LOOP] = "worker_loop",
    [F_LAMBDA] = "_ZZ4mainENKUlvE_clEv",            /* main::{lambda()#1}::operator()() const */
    [F_ODD] = "odd;name <&> \"q\"",
    [F_NEVER_CALLED] = "never_called",
};

/* Writes b as DIR/NAME and frees it. Returns 0 or -1 (errno set). */
static int write_trace(fr_tb *b, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = fr_tb_write(b, path);
    fr_tb_free(b);
    return rc;
}

/* ------------------------------------------------------------ metadata block */

static void meta_clock(fr_tb *b, uint64_t tps, int64_t realtime_ns, int64_t monotonic_ns)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, 1);
    tb_put_u32(&p, FR_CLOCK_SOURCE_TSC);
    tb_put_u64(&p, tps);
    tb_put_u64(&p, BASE);
    tb_put_u64(&p, (uint64_t)realtime_ns);
    tb_put_u64(&p, (uint64_t)monotonic_ns);
    fr_tb_meta_event(b, FR_TE_CLOCK, p.p, p.n);
}

/* The executable's path is never there, so the trace's own names stand. */
#define GOLDPROG  "/nonexistent/golden/goldprog"
#define CRASHPROG "/nonexistent/golden/crashprog"

/* cmdline: arguments separated by NUL bytes, n bytes in all */
static void meta_process(fr_tb *b, uint32_t pid, uint32_t ppid, const char *name, const char *exe,
                         const char *cmdline, size_t n)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, pid);
    tb_put_u32(&p, ppid);
    tb_put_str16(&p, name);
    tb_put_str16(&p, exe);
    tb_put_u16(&p, (uint16_t)n);
    tb_put(&p, cmdline, n);
    fr_tb_meta_event(b, FR_TE_PROCESS, p.p, p.n);
}

static void meta_summary(fr_tb *b, uint32_t threads, uint64_t written, uint64_t dropped)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, 1);
    tb_put_u32(&p, FR_POLICY_OVERWRITE);
    tb_put_u64(&p, 65536);      /* buffer size */
    tb_put_u32(&p, 64);         /* buffers */
    tb_put_u32(&p, threads);
    tb_put_u64(&p, written);
    tb_put_u64(&p, dropped);
    tb_put_u64(&p, 0);          /* calls below the threshold */
    tb_put_u64(&p, 0);          /* threshold */
    fr_tb_meta_event(b, FR_TE_SUMMARY, p.p, p.n);
}

static void meta_thread(fr_tb *b, int32_t tid, uint64_t written, uint64_t dropped, const char *name)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, (uint32_t)tid);
    tb_put_u64(&p, written);
    tb_put_u64(&p, dropped);
    tb_put_u64(&p, dropped * 8);   /* bytes dropped: function records are 8 bytes */
    tb_put_u64(&p, 0);
    tb_put_str16(&p, name);
    fr_tb_meta_event(b, FR_TE_THREAD_STATS, p.p, p.n);
}

/* records overwritten by newer ones, of thread tid (0: the session) */
static void meta_drops(fr_tb *b, int32_t tid, uint64_t overwritten)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, (uint32_t)tid);
    tb_put_u32(&p, FR_DROP_NCAUSES);
    for (unsigned c = 0; c < FR_DROP_NCAUSES; c++)
        tb_put_u64(&p, c == FR_DROP_OVERWRITTEN ? overwritten : 0);
    fr_tb_meta_event(b, FR_TE_DROPS, p.p, p.n);
}

/* The executable (object 0) with functions 1..count-1 named names[id] */
static void meta_functions(fr_tb *b, const char *exe, const char *const *names, uint32_t count)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, 0);                   /* object 0: the executable */
    tb_put_u32(&p, 1);
    tb_put_u32(&p, count - 1);
    tb_put_u64(&p, 0x555555554000ull);   /* load bias */
    tb_put_str16(&p, exe);
    fr_tb_meta_event(b, FR_TE_OBJECT, p.p, p.n);
    for (uint32_t id = 1; id < count; id++)
        fr_tb_function_name(b, id, names[id]);
}

/* ------------------------------------------------------------ thread blocks */

/* fib(n) entered at t: 30 ticks before its first callee, then fib(n-1) and fib(n-2); returns its end */
static uint64_t fib(fr_tb *b, unsigned n, uint64_t t)
{
    fr_tb_enter(b, F_FIB, t);
    t += 30;
    if (n > 1) {
        t = fib(b, n - 1, t) + 12;
        t = fib(b, n - 2, t) + 12;
    }
    fr_tb_exit(b, F_FIB, t);
    return t;
}

static void thread_main(fr_tb *b)
{
    uint64_t t = BASE + 1000;
    fr_tb_block(b, 4242, 4242, 0, t);
    fr_tb_exit(b, F_READ_LINE, t);                  /* no entry: unmatched */
    fr_tb_enter(b, F_MAIN, t += 7);
    fr_tb_enter(b, F_PARSE_CONFIG, t += 240);
    for (unsigned i = 0; i < 3; i++) {
        fr_tb_enter(b, F_READ_LINE, t += 100);
        fr_tb_exit(b, F_READ_LINE, t += 1200 + 2400 * i);
    }
    fr_tb_exit(b, F_PARSE_CONFIG, t += 55);
    fr_tb_enter_arg(b, F_COMPUTE, 42, t += 480);
    for (unsigned i = 0; i < 2; i++) {
        fr_tb_enter(b, F_BOX_GET, t += 24);
        fr_tb_exit(b, F_BOX_GET, t += 48 + 7 * i);
    }
    t = fib(b, 4, t + 10);
    eh_event(b, "MyProviderName_L5K0", EH_VECTOR_A, t += 5);
    fr_tb_exit(b, F_COMPUTE, t += 2400);
    fr_tb_enter(b, F_TAIL_CALLER, t += 31);
    fr_tb_tail_exit(b, F_TAIL_CALLER, t += 17);
    fr_tb_enter(b, F_TAIL_CALLEE, t);
    fr_tb_exit(b, F_TAIL_CALLEE, t += 333);
    fr_tb_enter(b, F_HELPER, t += 9);
    fr_tb_exit(b, F_HELPER, t += 2400000);          /* a millisecond */
    fr_tb_exit(b, F_MAIN, t += 1234);
}

static void thread_worker1(fr_tb *b)
{
    uint64_t t = BASE + 2500;
    fr_tb_block(b, 4243, 4242, 1, t);
    fr_tb_enter(b, F_WORKER_LOOP, t);
    for (unsigned i = 0; i < 3; i++) {
        fr_tb_enter(b, F_COMPUTE, t += 60);
        fr_tb_enter(b, F_BOX_GET, t += 12);
        fr_tb_exit(b, F_BOX_GET, t += 36 + 24 * i);
        fr_tb_exit(b, F_COMPUTE, t += 700);
    }
    eh_event(b, "MyProviderName_L4K5Gmygroup", EH_VECTOR_C, t += 40);
    fr_tb_enter(b, F_COMPUTE, t += 10);
    fr_tb_exit(b, F_COMPUTE, t += 4800);
    eh_event(b, "MyProviderName_L4K5Gmygroup", EH_VECTOR_C_STOP, t += 10);
    fr_tb_enter(b, F_COMPUTE, t += 100);
    uint64_t lost = 17;
    fr_tb_ours(b, FR_TE_LOST, &lost, sizeof lost, t += 50);   /* drops compute and worker_loop */
    fr_tb_exit(b, F_COMPUTE, t += 9000);            /* its entry was lost: unmatched */
    fr_tb_enter(b, F_READ_LINE, t += 20);
    fr_tb_exit(b, F_READ_LINE, t += 1500);
    fr_tb_exit(b, F_WORKER_LOOP, t += 30);          /* unmatched too */
    fr_tb_enter(b, F_WORKER_LOOP, t += 70);         /* open at the end */
    fr_tb_enter(b, F_READ_LINE, t += 20);
    fr_tb_exit(b, F_READ_LINE, t += 900);
}

static void thread_worker2(fr_tb *b)
{
    uint64_t t = BASE + 3100;
    fr_tb_block(b, 4244, 4242, 2, t);
    fr_tb_enter(b, F_WORKER_LOOP, t);
    fr_tb_enter(b, F_LAMBDA, t += 48);
    fr_tb_new_cpu(b, 3, t += 1000);                 /* migrated */
    fr_tb_exit(b, F_LAMBDA, t += 2000);
    fr_tb_enter(b, F_ODD, t += 5);
    fr_tb_exit(b, F_ODD, t += 77);
    fr_tb_enter(b, F_COMPUTE, t += 8);              /* open at the end, with worker_loop */
    fr_tb_enter(b, F_BOX_GET, t += 12);
    fr_tb_exit(b, F_BOX_GET, t += 40);
}

/* cut.fr: golden.fr cut short at CUT_AT bytes, inside worker-1's block (a file whose
 * writer died mid-write): the reader warns where it ends and reads what is there. */
#define CUT_AT 2600
static int write_cut(const char *dir, fr_tb *b)
{
    size_t size;
    const uint8_t *bytes = fr_tb_bytes(b, &size);
    char path[4096];
    snprintf(path, sizeof path, "%s/cut.fr", dir);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = size < CUT_AT ? size : CUT_AT;
    int rc = fwrite(bytes, 1, n, f) == n ? 0 : -1;
    return fclose(f) || rc ? -1 : 0;
}

static int write_golden(const char *dir)
{
    fr_tb *b = fr_tb_new(TPS);
    meta_clock(b, TPS, REALTIME_NS, MONOTONIC_NS);
    static const char cmdline[] = "goldprog\0--threads\0" "2";
    meta_process(b, 4242, 1, "goldprog", GOLDPROG, cmdline, sizeof cmdline);
    meta_summary(b, 3, 76, 17);
    meta_drops(b, 0, 17);
    meta_thread(b, 4242, 42, 0, "main");
    meta_thread(b, 4243, 26, 17, "worker-1");
    meta_drops(b, 4243, 17);
    meta_thread(b, 4244, 8, 0, "worker-2");
    meta_functions(b, GOLDPROG, fn_names, F_COUNT);
    thread_main(b);
    thread_worker1(b);
    thread_worker2(b);
    int cut_rc = write_cut(dir, b);   /* before write_trace frees b */
    return write_trace(b, dir, "golden.fr") || cut_rc ? -1 : 0;
}

static int write_child(const char *dir)
{
    fr_tb *b = fr_tb_new(TPS);
    meta_clock(b, TPS, REALTIME_NS + 1000000, MONOTONIC_NS + 1000000);   /* forked 1 ms later */
    static const char cmdline[] = "goldprog\0--threads\0" "2";
    meta_process(b, 4250, 4242, "goldprog", GOLDPROG, cmdline, sizeof cmdline);
    meta_summary(b, 1, 14, 0);
    meta_thread(b, 4250, 14, 0, "goldprog");
    meta_functions(b, GOLDPROG, fn_names, F_COUNT);
    uint64_t t = BASE + 400;
    fr_tb_block(b, 4250, 4250, 5, t);
    fr_tb_enter(b, F_MAIN, t);
    fr_tb_enter(b, F_COMPUTE, t += 90);
    t = fib(b, 3, t + 15);
    fr_tb_exit(b, F_COMPUTE, t += 600);
    fr_tb_exit(b, F_MAIN, t += 45);
    return write_trace(b, dir, "child.fr");
}

static int write_plain(const char *dir)
{
    fr_tb *b = fr_tb_new(1000000000);
    fr_tb_block(b, 31, 30, 0, 1000);
    fr_tb_enter(b, 1, 1000);
    fr_tb_enter(b, 2, 1100);
    fr_tb_exit(b, 2, 1350);
    fr_tb_enter_arg(b, 3, 0xdeadbeef, 1400);
    fr_tb_exit(b, 3, 1420);
    fr_tb_exit(b, 1, 2000);
    fr_tb_block(b, 32, 30, 1, 1200);
    fr_tb_enter(b, 2, 1200);
    fr_tb_exit(b, 2, 1900);
    return write_trace(b, dir, "plain.fr");
}

/* ------------------------------------------------------------ crash.fr */

enum crash_fn { C_MAIN = 1, C_SETUP, C_RECURSE, C_EMIT, C_COUNT };
static const char *const crash_names[C_COUNT] = {
    [C_MAIN] = "main", [C_SETUP] = "setup", [C_RECURSE] = "recurse", [C_EMIT] = "emit",
};
#define CRASH_TPS   3000000000ull
#define CRASH_DEPTH 130            /* recurse levels: deeper than replay indents (128) */

static void meta_crash_cause(fr_tb *b)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, 1);
    tb_put_u32(&p, FR_DUMP_FATAL_SIGNAL);
    tb_put_u32(&p, 11);                      /* SIGSEGV */
    tb_put_u32(&p, 1);                       /* SEGV_MAPERR */
    tb_put_u32(&p, 5150);
    tb_put_u32(&p, 0);
    tb_put_u64(&p, 0x7ffc0000fff8ull);       /* past the stack's end */
    tb_put_u64(&p, 0);
    fr_tb_meta_event(b, FR_TE_DUMP_CAUSE, p.p, p.n);
}

static void meta_build_id(fr_tb *b)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, 0);
    tb_put_u16(&p, 20);
    tb_put_hex(&p, "9c a2 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff 01 02");
    fr_tb_meta_event(b, FR_TE_BUILD_ID, p.p, p.n);
}

/* Event site 1: vector A's call site (its values come in the runs) */
static void meta_event_site(fr_tb *b)
{
    struct tb_buf p = {.n = 0};
    tb_put_u32(&p, 1);
    static const char tracepoint[] = "MyProviderName_L5K0";
    tb_put(&p, tracepoint, sizeof tracepoint);
    tb_put_hex(&p, EH_VECTOR_A_SITE);
    fr_tb_meta_event(b, FR_TE_EVENT_SITE, p.p, p.n);
}

/* One FR_TE_EVENT_RUN entry without activity: site, ticks after the previous entry,
 * values (hex). Every varint here is below 128: one byte each. */
static void run_entry(struct tb_buf *p, uint8_t site, uint8_t delta, const char *values)
{
    struct tb_buf v = {.n = 0};
    tb_put_hex(&v, values);
    uint8_t head[3] = {(uint8_t)(site << 1), delta, (uint8_t)v.n};
    tb_put(p, head, sizeof head);
    tb_put(p, v.p, v.n);
}

/* A crash dump (SIGSEGV) of a runaway recursion: thread 5150 in two blocks, main { setup }
 * then recurse x CRASH_DEPTH, all open at the end; thread 5151 writes compact events:
 * runs of site 1 and one entry of a site the file does not describe. */
static int write_crash(const char *dir)
{
    fr_tb *b = fr_tb_new(CRASH_TPS);
    meta_clock(b, CRASH_TPS, REALTIME_NS + 3600000000000ll, MONOTONIC_NS + 3600000000000ll);
    static const char cmdline[] = "crashprog\0--depth\0" "130";
    meta_process(b, 5150, 1, "crashprog", CRASHPROG, cmdline, sizeof cmdline);
    meta_summary(b, 2, 2 * CRASH_DEPTH + 14, 0);
    meta_crash_cause(b);
    meta_thread(b, 5150, 2 * CRASH_DEPTH + 4, 0, "crashprog");
    meta_thread(b, 5151, 10, 0, "events");
    meta_functions(b, CRASHPROG, crash_names, C_COUNT);
    meta_build_id(b);
    meta_event_site(b);

    uint64_t t = BASE + 300;
    fr_tb_block(b, 5150, 5150, 0, t);
    fr_tb_enter(b, C_MAIN, t);
    fr_tb_enter(b, C_SETUP, t += 45);
    fr_tb_exit(b, C_SETUP, t += 3000);

    t = BASE + 900;
    fr_tb_block(b, 5151, 5150, 1, t);
    for (unsigned i = 0; i < 2; i++) {
        fr_tb_enter(b, C_EMIT, t += 20);
        struct tb_buf run = {.n = 0};
        run_entry(&run, 1, 0, EH_VECTOR_A_VALUES);
        run_entry(&run, 1, 7, i ? "2b 00 00 00 6d 6f 72 65 00" : "2c 00 00 00 00");
        if (i)
            run_entry(&run, 9, 3, "01 02 03");   /* site 9: not in the file */
        fr_tb_ours(b, FR_TE_EVENT_RUN, run.p, run.n, t += 30);
        fr_tb_exit(b, C_EMIT, t += 600);
    }

    t = BASE + 4000;
    fr_tb_block(b, 5150, 5150, 0, t);            /* main's thread again, a later block */
    for (unsigned d = 0; d < CRASH_DEPTH; d++)
        fr_tb_enter(b, C_RECURSE, t += 9);
    fr_tb_exit(b, C_RECURSE, t += 4);            /* the deepest returns once, then the crash */
    fr_tb_enter(b, C_RECURSE, t += 2);

    return write_trace(b, dir, "crash.fr");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    if (write_golden(argv[1]) || write_child(argv[1]) || write_plain(argv[1]) ||
        write_crash(argv[1])) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
