/*
 * reader_xray_prog.c - a small program instrumented with clang XRay and run under
 * compiler-rt's own runtime (FDR and basic modes), so the reader is tested on files that
 * compiler-rt writes. Two worker threads, calls with an argument, a tail call, a custom
 * event. In FDR mode (FR_TEST_FDR set) it initialises and flushes the log itself, as
 * compiler-rt's FDR mode requires.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int __xray_log_init_mode(const char *mode, const char *config);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);

__attribute__((xray_always_instrument, noinline)) int leaf(int x) { return x * 3 + 1; }

__attribute__((xray_always_instrument, noinline)) int mid(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += leaf(x + i);
    return s;
}

__attribute__((xray_always_instrument, noinline, xray_log_args(1))) int witharg(int x)
{
    return mid(x) + 1;
}

__attribute__((xray_always_instrument, noinline)) int tailer(int x) { return leaf(x); }

__attribute__((xray_always_instrument, noinline)) void *worker(void *p)
{
    long s = 0;
    for (int i = 0; i < 100; i++)
        s += mid(i);
    return (void *)(s + (long)p);
}

__attribute__((xray_always_instrument)) int main(void)
{
    int fdr = getenv("FR_TEST_FDR") != NULL;
    if (fdr)
        __xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0");
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    long s = 0;
    for (int i = 0; i < 50; i++)
        s += witharg(i) + tailer(i);
    __xray_customevent("hello", 5);
    printf("%ld\n", s);
    if (fdr) {
        __xray_log_finalize();
        __xray_log_flushLog();
    }
    return 0;
}
