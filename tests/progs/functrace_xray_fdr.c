/*
 * functrace_xray_fdr.c - a C program written for compiler-rt's XRay FDR API, relinked
 * with libflightrec: init with compiler-rt's option names, patch, run, finalize, flush.
 * The script sets XRAY_OPTIONS=xray_logfile_base=DIR/xray-log. (read at start-up, as
 * compiler-rt reads it). Prints "calls NAME N" lines for the test script.
 */
#include <flightrec/xray.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
static volatile long sink;

NOINLINE long square(long x) { __asm__ volatile(""); return x * x; }
NOINLINE long sum_squares(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) {
        s += square(i);
        __asm__ volatile("" : "+r"(s));
    }
    return s;
}
NOINLINE long not_traced(long x) { __asm__ volatile(""); return x + 1; }

static int expect(int cond, const char *what)
{
    if (!cond)
        fprintf(stderr, "FAIL: %s\n", what);
    return cond ? 0 : 1;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int failed = 0;
    sink += not_traced(1);   /* before init: nothing recorded */
    failed += expect(__xray_log_init_mode("no-such-mode", "") == XRAY_LOG_UNINITIALIZED,
                     "unknown mode");
    failed += expect(__xray_log_init_mode("xray-fdr", "") == XRAY_LOG_UNINITIALIZED,
                     "init of a mode not selected (as compiler-rt)");
    failed += expect(__xray_log_select_mode("xray-fdr") == XRAY_REGISTRATION_OK, "select");
    XRayLogInitStatus st = __xray_log_init_mode(
        "xray-fdr", "buffer_size=16384:buffer_max=16:func_duration_threshold_us=0:grace_period_ms=5");
    failed += expect(st == XRAY_LOG_INITIALIZED, "init xray-fdr");
    failed += expect(!strcmp(__xray_log_get_current_mode(), "xray-fdr"), "current mode");
    failed += expect(__xray_log_init_mode("xray-fdr", "") == XRAY_LOG_INITIALIZED,
                     "second init answers with the state");
    failed += expect(__xray_log_flushLog() == XRAY_LOG_NOT_FLUSHING, "no flush while recording");
    sink += not_traced(2);   /* init patches nothing: compiler-rt programs call __xray_patch */
    failed += expect(__xray_patch() == SUCCESS, "patch");
    sink += sum_squares(100);
    failed += expect(__xray_log_finalize() == XRAY_LOG_FINALIZED, "finalize");
    failed += expect(__xray_log_flushLog() == XRAY_LOG_FLUSHED, "flush");
    __xray_unpatch();
    printf("calls sum_squares 1\ncalls square 100\ncalls not_traced 0\n");
    return failed != 0;
}
