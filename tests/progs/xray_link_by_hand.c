/*
 * xray_link_by_hand.c - a program written for compiler-rt's XRay FDR mode that relies on
 * XRAY_OPTIONS=xray_mode=xray-fdr to select the mode (it never calls
 * __xray_log_select_mode), linked by hand against libflightrec.a with no --undefined
 * anchors (tests/xraycompat_link_by_hand.sh): init, patch, calls, finalize, flush.
 * Prints each status; exits 1 when the init is refused.
 */
#include <flightrec/xray.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, xray_always_instrument))
#define NEVER __attribute__((xray_never_instrument))
static volatile long sink;

TRACED long leaf(long x) { sink += x; return x * 2; }
TRACED long outer(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}

NEVER int main(void)
{
    int st = __xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0");
    printf("init %d\n", st);
    if (st != XRAY_LOG_INITIALIZED)
        return 1;
    printf("patch %d\n", __xray_patch());
    sink += outer(5);
    printf("finalize %d\n", __xray_log_finalize());
    printf("flush %d\n", __xray_log_flushLog());
    return 0;
}
