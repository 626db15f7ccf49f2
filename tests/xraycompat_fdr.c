/*
 * xraycompat_fdr.c - compiler-rt's FDR mode as its users drive it: select, init with a
 * flag string, patch, calls (one with xray_log_args), a second thread, finalize,
 * in-memory iteration of the buffers, flush; two full cycles in one process (two log
 * files). Built against compiler-rt and against flightrec (tests/xraycompat_run.py
 * compares the outputs); includes flightrec/xray.h in both builds because compiler-rt's
 * headers are C++ only (the declarations are the same).
 */
#include <flightrec/xray.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define TRACED __attribute__((noinline, xray_always_instrument))
#define NEVER __attribute__((xray_never_instrument))
static volatile long sink;

TRACED long leaf(long x) { sink += x; return x * 2; }
TRACED __attribute__((xray_log_args(1))) long witharg(long x) { return leaf(x) + 1; }
TRACED long outer(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += witharg(i);
    return s;
}
TRACED void *worker(void *arg) { sink += outer((int)(long)arg); return NULL; }

static size_t nbuf, nbytes, header_size;
static char mode_seen[32];
NEVER static void processor(const char *mode, XRayBuffer b)
{
    if (nbuf++ == 0) {
        header_size = b.Size;
        snprintf(mode_seen, sizeof mode_seen, "%s", mode ? mode : "(null)");
    }
    nbytes += b.Size;
}

NEVER int main(void)
{
    printf("init before select %d\n", __xray_log_init_mode("xray-fdr", ""));
    printf("select %d\n", __xray_log_select_mode("xray-fdr"));
    printf("mode %s\n", __xray_log_get_current_mode());
    printf("flush before init %d\n", __xray_log_flushLog());
    for (int round = 0; round < 2; round++) {
        printf("init %d\n", __xray_log_init_mode("xray-fdr", "buffer_size=4096:buffer_max=10:"
                                                             "func_duration_threshold_us=0"));
        printf("init again %d\n", __xray_log_init_mode("xray-fdr", ""));
        printf("patch %d\n", __xray_patch());
        sink += outer(3 + round);
        pthread_t t;
        pthread_create(&t, NULL, worker, (void *)2L);
        pthread_join(t, NULL);
        printf("unpatch %d\n", __xray_unpatch());
        printf("process before finalize %d nbuf %zu\n", __xray_log_process_buffers(processor), nbuf);
        printf("flush before finalize %d\n", __xray_log_flushLog());
        printf("finalize %d\n", __xray_log_finalize());
        printf("init while finalized %d\n", __xray_log_init_mode("xray-fdr", ""));
        nbuf = nbytes = 0;
        printf("process %d\n", __xray_log_process_buffers(processor));
        printf("first buffer %zu bytes (the header), mode %s, %s\n", header_size, mode_seen,
               nbuf >= 2 ? "thread buffers follow" : "NO THREAD BUFFER");
        printf("flush %d\n", __xray_log_flushLog());
        nbuf = 0;
        printf("process after flush %d nbuf %zu\n", __xray_log_process_buffers(processor), nbuf);
    }
    return 0;
}
