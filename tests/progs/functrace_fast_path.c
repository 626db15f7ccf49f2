/*
 * functrace_fast_path.c - the trampolines' fast path (the recorder's record written by
 * the trampoline itself, saving only the registers it touches: docs/FUNCTRACE.md) under
 * the recorder, with signal handlers that trace calls landing anywhere in it.
 *
 * Every kind of value a traced call carries is checked on every call: six integer
 * arguments, eight double arguments, a variadic call (al counts its vector registers),
 * results in rax:rdx, xmm0:xmm1, st0 and st0:st1, and a tail call through a pointer
 * (the tail exit trampoline). Another thread sends the checking thread a signal every
 * few microseconds, whose handler makes traced calls of its own, so signals interrupt
 * the trampolines at every instruction over the run: those calls are either recorded
 * or, when they land while a record of the thread is being written, dropped and
 * counted (nested).
 * Then nothing may be lost uncounted: records written + dropped == 2 x the traced calls
 * made (entry and exit of each; a tail call's callee has its own two).
 * The register names above are x86-64's. On aarch64 the same calls carry x0-x5, d0-d7,
 * variadic doubles in v0-v7, results in x0:x1, d0:d1, q0 and q0:q1 (long double is
 * 128-bit there), and the tail call ends in a branch; its trampolines' fast path keeps
 * them as x86-64's does (functrace_fast_path_taken checks that the fast path is taken).
 * Run with FLIGHTREC_OPTIONS=start=1 ...; a tiny pool with policy=overwrite makes the
 * C path (buffer changes) run inside the loop too. Exit 0: all right; 1: a check failed;
 * 77: no signal arrived (the machine never ran the sender).
 */
#include <complex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flightrec.h"

#define TRACED __attribute__((noinline, xray_always_instrument))
#define NEVER __attribute__((noinline, xray_never_instrument))

TRACED long args6(long a, long b, long c, long d, long e, long f)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

TRACED double args8d(double a, double b, double c, double d, double e, double f, double g,
                     double h)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

TRACED double vsum(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += va_arg(ap, double) * (i + 1);
    va_end(ap);
    return s;
}

struct two { long a, b; };
TRACED struct two ret_rax_rdx(long x)
{
    return (struct two){ x * 3, ~x };
}

struct twod { double x, y; };
TRACED struct twod ret_xmm01(double v)
{
    return (struct twod){ v * 2, v - 1 };
}

TRACED long double ret_st0(long double v)
{
    return v * 3;
}

TRACED long double _Complex ret_st01(long double v)
{
    return v + (v * 2) * I;
}

typedef long (*fn6)(long, long, long, long, long, long);
static fn6 volatile target = args6;

/* Ends in a jump to the callee (a tail call): its exit is the tail exit trampoline. */
TRACED long tail6(long a, long b, long c, long d, long e)
{
    return target(e, d, c, b, a, 7);
}

TRACED long sig_leaf(long x)
{
    return x ^ 0x5a5a;
}

static volatile long signals;         /* handler runs */
static volatile long handler_calls;   /* traced calls made in the handler */
static volatile long handler_bad;

NEVER static void on_signal(int sig)
{
    (void)sig;
    signals++;
    for (long k = 0; k < 3; k++) {
        if (sig_leaf(k) != (k ^ 0x5a5a))
            handler_bad++;
        handler_calls++;
    }
}

static long failures;
#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond) && failures++ < 10) {                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

/* One round of every check; returns the traced calls it made. */
NEVER static long round_of_checks(long i)
{
    long x = i % 1000 - 500;
    CHECK(args6(x, x + 1, x + 2, x + 3, x + 4, x + 5) == 21 * x + 70, "args6 %ld", x);
    double d = (double)x / 4;
    CHECK(args8d(d, d + 1, d + 2, d + 3, d + 4, d + 5, d + 6, d + 7) == 36 * d + 168,
          "args8d %g", d);
    CHECK(vsum(4, d, d + 1, d + 2, d + 3) == 10 * d + 20, "vsum %g", d);
    struct two t = ret_rax_rdx(x);
    CHECK(t.a == 3 * x && t.b == ~x, "rax:rdx %ld", x);
    struct twod u = ret_xmm01(d);
    CHECK(u.x == 2 * d && u.y == d - 1, "xmm0:xmm1 %g", d);
    long double ld = (long double)x / 3;
    CHECK(ret_st0(ld) == ld * 3, "st0 %Lg", ld);
    long double _Complex c = ret_st01(ld);
    CHECK(creall(c) == ld && cimagl(c) == ld * 2, "st0:st1 %Lg", ld);
    CHECK(tail6(x, x + 1, x + 2, x + 3, x + 4) ==
              (x + 4) + 2 * (x + 3) + 3 * (x + 2) + 4 * (x + 1) + 5 * x + 42,
          "tail6 %ld", x);
    return 9;   /* 7 calls, tail6 and the args6 it jumps to */
}

static pthread_t checker;
static int done;   /* atomic: the sender stops when main says so */

/* Signals the checking thread until it is done (a pending signal is not queued twice,
 * so a short pause between sends lets each be delivered). */
NEVER static void *sender(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        pthread_kill(checker, SIGUSR1);
        for (volatile int k = 0; k < 2000; k++)
            ;
    }
    return NULL;
}

NEVER int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 300000;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    checker = pthread_self();
    pthread_t th;
    pthread_create(&th, NULL, sender, NULL);
    long calls = 0;
    /* At least `rounds`, and on until 1000 signals came (bounded: a machine too busy to
     * run the sender at all ends the run with a skip). */
    for (long i = 0; i < rounds || (signals < 1000 && i < 40 * rounds); i++)
        calls += round_of_checks(i);
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    fr_finalize();
    fr_stats st;
    fr_get_stats(&st);
    if (fr_flush() != FR_OK)   /* the file: `flightrec account` counts its calls */
        fprintf(stderr, "FAIL: fr_flush\n"), failures++;
    long made = 2 * (calls + handler_calls);
    printf("traced calls: %ld in the loop, %ld in signal handlers; records written %llu, "
           "dropped %llu\n", calls, (long)handler_calls, (unsigned long long)st.records_written,
           (unsigned long long)st.records_dropped);
    CHECK(handler_bad == 0, "the handler's traced call returned a wrong value");
    CHECK((long)(st.records_written + st.records_dropped) == made,
          "records written + dropped = %llu, traced calls made %ld records",
          (unsigned long long)(st.records_written + st.records_dropped), made);
    if (failures)
        fprintf(stderr, "%ld checks failed\n", failures);
    else if (signals == 0) {
        printf("SKIP: no signal reached the checking thread\n");
        return 77;
    }
    return failures ? 1 : 0;
}
