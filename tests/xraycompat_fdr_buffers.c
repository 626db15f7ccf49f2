/*
 * xraycompat_fdr_buffers.c - FDR mode's in-memory buffers, one thread filling several:
 * __xray_log_process_buffers hands out the file header, then each used buffer as
 * BufferExtents + its bytes (compiler-rt's iterator). Prints how many, and each size
 * with whether its BufferExtents counts the bytes after it; tests/xraycompat_run.py
 * compares the output (and the log) of the compiler-rt and flightrec builds. The thread
 * stays on one CPU so that neither runtime adds NewCPUId records mid-buffer.
 */
#define _GNU_SOURCE
#include <flightrec/xray.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TRACED __attribute__((noinline, xray_always_instrument))
#define NEVER __attribute__((xray_never_instrument))
static volatile long sink;

TRACED long leaf(long x) { sink += x; return x * 2; }

static size_t nbuf, sizes[64];
static int extents_ok = 1;
NEVER static void processor(const char *mode, XRayBuffer b)
{
    (void)mode;
    if (nbuf < 64)
        sizes[nbuf] = b.Size;
    if (nbuf > 0) {
        uint64_t n;
        memcpy(&n, (const char *)b.Data + 1, 8);
        extents_ok &= ((const unsigned char *)b.Data)[0] == 0x0F && n + 16 == b.Size;
    }
    nbuf++;
}

NEVER int main(void)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one);
    __xray_log_select_mode("xray-fdr");
    printf("init %d\n", __xray_log_init_mode("xray-fdr", "buffer_size=4096:buffer_max=40:"
                                                         "func_duration_threshold_us=0"));
    __xray_patch();
    for (int i = 0; i < 2000; i++)
        sink += leaf(i);
    __xray_unpatch();
    printf("finalize %d\n", __xray_log_finalize());
    printf("process %d\n", __xray_log_process_buffers(processor));
    printf("%zu buffers (header first), extents %s\n", nbuf, extents_ok ? "ok" : "WRONG");
    for (size_t i = 0; i < nbuf && i < 64; i++)
        printf("  buffer %zu: %zu bytes\n", i, sizes[i]);
    printf("flush %d\n", __xray_log_flushLog());
    return 0;
}
