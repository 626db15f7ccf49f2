/*
 * analysis_traces.c - writes the known traces that tests/analysis_cli_test.py checks
 * `flightrec account`, `stack` and `graph` on, with the trace builder, plus an llvm-xray
 * instrumentation map (YAML) naming their functions.
 *
 *   basic.xray: 3 threads interleaved in time, nesting, recursion, a tail call, an enter
 *     with argument, exits without an enter, a longjmp-like exit of a deeper frame; enough
 *     calls for meaningful percentiles. Every call ends, so llvm-xray account -k -d (which
 *     drops exits without an enter and closes the frames above a deeper exit, like us)
 *     must agree with flightrec exactly, except percentiles (our sketch: within 0.78%).
 *     llvm-xray account rejects records older than one it saw, and takes threads in hash
 *     order, so it is compared on basic_101/102/103.xray (one thread each).
 *   cut.xray: frames still open at the end, an FR_TE_LOST gap: the numbers are worked out
 *     by hand in the test.
 *   deep.xray: a runaway recursion: main -> work x 3000 levels (work at depth d lasts
 *     6001 - 2d ticks), then main -> leaf; for --max-depth and replay's indentation
 *     (tests/analysis_deep.py). deeper.xray: the same with 300,000 levels, deeper than
 *     the analyses kept before (65,536), as deep as a stack overflow's.
 * Clock: 1,000,000 ticks per second, so llvm-xray's microsecond-rounded seconds are ticks.
 *
 * usage: analysis_traces DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fr_format.h"
#include "trace_builder.h"

static const char *const names[] = {
    NULL, "main", "work", "leaf", "fib", "tail_caller", "tail_callee", "with_arg",
    "setjmp_caller", "thrower", "deep_helper",
};
#define N_NAMES (sizeof names / sizeof names[0])

static int write_map(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/map.yaml", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "---\n");
    for (unsigned id = 1; id < N_NAMES; id++)
        fprintf(f, "- { id: %u, address: 0x%x, function: 0x%x, kind: function-enter, "
                   "always-instrument: true, function-name: %s }\n", id, id * 16, id * 16, names[id]);
    return fclose(f);
}

static fr_tb *new_builder(void)
{
    fr_tb *b = fr_tb_new(1000000);
    for (unsigned id = 1; id < N_NAMES; id++)
        fr_tb_function_name(b, id, names[id]);
    return b;
}

static uint64_t fib(fr_tb *b, unsigned n, uint64_t t)
{
    fr_tb_enter(b, 4, t);
    t += 2;
    if (n > 1) {
        t = fib(b, n - 1, t) + 1;
        t = fib(b, n - 2, t) + 1;
    }
    fr_tb_exit(b, 4, t);
    return t;
}

/* thread 101: main { 200 x work { leaf (3..150 ticks); fib(i % 6) } } */
static void thread_101(fr_tb *b)
{
    uint64_t t = 1000;
    fr_tb_block(b, 101, 77, 0, t);
    fr_tb_exit(b, 9, t);                       /* exit without an enter: dropped */
    fr_tb_enter(b, 1, t);
    for (unsigned i = 0; i < 200; i++) {
        fr_tb_enter(b, 2, t += 5);
        fr_tb_enter(b, 3, t += 1);
        fr_tb_exit(b, 3, t += 3 + (i * 37) % 149);
        t = fib(b, i % 6, t + 1);
        fr_tb_exit(b, 2, t += 4);
    }
    fr_tb_exit(b, 1, t += 10);
}

/* thread 102, overlapping 101 in time: leaf calls of 1000-5000 ticks, a tail call,
 * enters with argument */
static void thread_102(fr_tb *b)
{
    uint64_t t = 1500;
    fr_tb_block(b, 102, 77, 1, t);
    fr_tb_enter(b, 1, t);
    for (unsigned i = 0; i < 100; i++) {
        fr_tb_enter(b, 3, t += 7);
        fr_tb_exit(b, 3, t += 1000 + (i * 7919) % 4000);
        fr_tb_enter(b, 5, t += 2);
        fr_tb_tail_exit(b, 5, t += 3);         /* tail_caller tail-calls tail_callee */
        fr_tb_enter(b, 6, t);
        fr_tb_exit(b, 6, t += 11 + i % 5);
        fr_tb_enter_arg(b, 7, i, t += 1);
        fr_tb_exit(b, 7, t += 20);
    }
    fr_tb_exit(b, 1, t += 3);
}

/* thread 103: longjmp-like: setjmp_caller -> thrower -> deep_helper, then the next
 * exit is setjmp_caller's; and an exit of a function that is not open. */
static void thread_103(fr_tb *b)
{
    uint64_t t = 2000;
    fr_tb_block(b, 103, 77, 0, t);
    fr_tb_enter(b, 1, t);
    for (unsigned i = 0; i < 50; i++) {
        fr_tb_enter(b, 8, t += 3);
        fr_tb_enter(b, 9, t += 4);
        fr_tb_enter(b, 10, t += 5);
        fr_tb_exit(b, 8, t += 6 + i % 7);      /* closes deep_helper and thrower too */
        fr_tb_exit(b, 10, t += 1);             /* not open any more: dropped */
    }
    fr_tb_exit(b, 1, t += 2);
}

/* threads: a bit mask of 101, 102, 103 */
static int write_basic(const char *dir, const char *name, unsigned threads)
{
    fr_tb *b = new_builder();
    if (threads & 1) thread_101(b);
    if (threads & 2) thread_102(b);
    if (threads & 4) thread_103(b);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = fr_tb_write(b, path);
    fr_tb_free(b);
    return rc;
}

static int write_cut(const char *dir)
{
    fr_tb *b = new_builder();
    fr_tb_block(b, 201, 78, 0, 100);
    fr_tb_exit(b, 9, 100);          /* unmatched */
    fr_tb_enter(b, 1, 110);
    fr_tb_enter(b, 8, 120);
    fr_tb_enter(b, 3, 130);
    fr_tb_enter(b, 4, 140);
    fr_tb_exit(b, 8, 200);          /* unwinds 4 (60) and 3 (70); 8 lasts 80 */
    fr_tb_enter(b, 3, 210);
    fr_tb_exit(b, 3, 230);          /* 20 */
    fr_tb_exit(b, 4, 240);          /* unmatched */
    fr_tb_exit(b, 1, 300);          /* 190 */
    fr_tb_enter(b, 1, 310);
    fr_tb_enter(b, 3, 320);
    fr_tb_enter(b, 4, 330);
    fr_tb_exit(b, 4, 400);          /* 70; then 3 (80) and 1 (90) are open at the end */

    fr_tb_block(b, 202, 78, 1, 1000);
    fr_tb_enter(b, 1, 1000);
    fr_tb_enter(b, 3, 1010);
    uint64_t lost = 12;
    fr_tb_ours(b, FR_TE_LOST, &lost, sizeof lost, 1020);   /* discards 3 and 1 */
    fr_tb_exit(b, 3, 1030);         /* unmatched */
    fr_tb_enter(b, 4, 1040);
    fr_tb_exit(b, 4, 1050);         /* 10 */

    char path[4096];
    snprintf(path, sizeof path, "%s/cut.xray", dir);
    int rc = fr_tb_write(b, path);
    fr_tb_free(b);
    return rc;
}

static int write_deep(const char *dir, const char *name, unsigned levels)
{
    fr_tb *b = new_builder();
    fr_tb_block(b, 301, 79, 0, 100);
    uint64_t t = 100;
    fr_tb_enter(b, 1, t);                    /* main at depth 0, work at depths 1..3000 */
    for (unsigned d = 1; d <= levels; d++)
        fr_tb_enter(b, 2, t += 1);
    for (unsigned d = levels; d >= 1; d--)
        fr_tb_exit(b, 2, t += 1);
    fr_tb_enter(b, 3, t += 1);
    fr_tb_exit(b, 3, t += 5);
    fr_tb_exit(b, 1, t += 1);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = fr_tb_write(b, path);
    fr_tb_free(b);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const char *d = argv[1];
    if (write_map(d) || write_basic(d, "basic.xray", 7) || write_basic(d, "basic_101.xray", 1) ||
        write_basic(d, "basic_102.xray", 2) || write_basic(d, "basic_103.xray", 4) ||
        write_cut(d) || write_deep(d, "deep.xray", 3000) ||
        write_deep(d, "deeper.xray", 300000)) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
