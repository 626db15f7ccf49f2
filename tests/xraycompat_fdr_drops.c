/*
 * xraycompat_fdr_drops.c - FDR mode with buffers far too small for the calls made:
 * compiler-rt loses the newest records silently; flightrec loses the same kind (policy
 * discard) and says how many at flush. tests/xraycompat_run.py case fdr_drops.
 */
#include <flightrec/xray.h>
#include <stdio.h>

static volatile long sink;
__attribute__((noinline, xray_always_instrument)) long f(long x)
{
    sink += x;
    return x;
}

__attribute__((xray_never_instrument)) int main(void)
{
    __xray_log_select_mode("xray-fdr");
    printf("init %d\n", __xray_log_init_mode("xray-fdr", "buffer_size=1024:buffer_max=2:"
                                                         "func_duration_threshold_us=0"));
    __xray_patch();
    for (int i = 0; i < 10000; i++)
        f(i);
    __xray_unpatch();
    printf("finalize %d\n", __xray_log_finalize());
    printf("flush %d\n", __xray_log_flushLog());
    return 0;
}
