/*
 * functrace_record_prog.c - a real program for the recorder: threads, recursion, tail
 * calls, setjmp/longjmp, a function returning double, an argument-logging function.
 * Run under `flightrec record`; prints the calls it made ("calls NAME ENTERS EXITS") so
 * the test can compare them with what the trace says.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
enum { THREADS = 3, PER_THREAD = 5000 };
static volatile long sink;

NOINLINE long leaf(long x) { __asm__ volatile(""); return x + 1; }
NOINLINE int fib(int n)
{
    if (n < 2)
        return n;
    int a = fib(n - 1), b = fib(n - 2);
    __asm__ volatile("" : "+r"(a), "+r"(b));
    return a + b;
}
NOINLINE long tail_target(long x) { __asm__ volatile(""); return x * 3; }
NOINLINE long tail_caller(long x) { return tail_target(x + 1); }
NOINLINE double half(double x) { __asm__ volatile(""); return x * 0.5; }
__attribute__((noinline, xray_always_instrument, xray_log_args(1)))
long logged(long v) { return v ^ 3; }

static jmp_buf jb;
NOINLINE void jumper(int v) { longjmp(jb, v); }
NOINLINE int jump_host(int v)
{
    if (setjmp(jb) == 0) {
        jumper(v);
        return -1;
    }
    return v;
}

NOINLINE void *worker(void *arg)
{
    long acc = (long)arg;
    for (int i = 0; i < PER_THREAD; i++)
        acc += leaf(i);
    __atomic_fetch_add(&sink, acc, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    sink += fib(12);              /* 465 calls */
    for (int i = 0; i < 100; i++)
        sink += tail_caller(i);
    double d = 0;
    for (int i = 0; i < 50; i++)
        d += half(i);
    sink += (long)d + logged(9) + jump_host(4);
#if defined(__clang__)
    if (argc > 1 && !strcmp(argv[1], "--custom-event")) {   /* only when asked: other
                                     tests count this program's records as calls */
        static const char note[] = "custom event through the recorder";
        __xray_customevent(note, sizeof note - 1);   /* a custom-event sled in main */
    }
#endif
    /* calls NAME ENTERS EXITS (exits include tail exits) */
    printf("calls worker %d %d\n", THREADS, THREADS);
    printf("calls leaf %d %d\n", THREADS * PER_THREAD, THREADS * PER_THREAD);
    printf("calls fib 465 465\n");
    printf("calls tail_caller 100 100\n");
    printf("calls tail_target 100 100\n");
    printf("calls half 50 50\n");
    printf("calls logged 1 1\n");
    printf("calls jump_host 1 1\n");
    printf("calls jumper 1 1\n");   /* closed by the runtime at the longjmp */
    return d == 612.5 ? 0 : 3;
}
