/*
 * functrace_avx_calls.c - __m256 arguments and results across traced calls (issue 10:
 * the entry/exit trampolines' saved set). The entry sled runs with ymm0-7 holding the
 * arguments, the exit sled with ymm0 holding the result; the trampolines save only
 * xmm0-7 / xmm0-1, which is enough because the recorder never touches the upper halves
 * (docs/FUNCTRACE.md). Run with start=1 and a tiny pool, so buffer changes (the
 * recorder's slow path) happen inside the loop, and with glibc's AVX2 string routines
 * (which end in vzeroupper) selected: any of them on the record path would zero the
 * upper halves. Exit 0: every result right; 1: wrong; 77: no AVX.
 * With --clobbering-handler, a handler that executes vzeroupper (as one calling an AVX2
 * libc routine would) is installed instead: the check must then see wrong lanes (exit 0
 * if it does), which shows it can fail and why such handlers are not supported.
 */
#include <cpuid.h>
#include <immintrin.h>
#include <stdio.h>
#include <string.h>
#include <flightrec/xray.h>

#define AVX __attribute__((noinline, target("avx")))

AVX __m256d add8(__m256d a, __m256d b, __m256d c, __m256d d, __m256d e, __m256d f,
                 __m256d g, __m256d h)
{
    return _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a, b), _mm256_add_pd(c, d)),
                         _mm256_add_pd(_mm256_add_pd(e, f), _mm256_add_pd(g, h)));
}

AVX static long run(long n)
{
    long bad = 0;
    for (long i = 0; i < n; i++) {
        double x = (double)i;
        __m256d v[8];
        for (int k = 0; k < 8; k++)
            v[k] = _mm256_set_pd(x + k, 2 * x + k, 3 * x + k, 4 * x + k);
        __m256d r = add8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
        double out[4];
        _mm256_storeu_pd(out, r);
        /* lanes 0..3 hold 4x, 3x, 2x, x (each + k), summed over k = 0..7 */
        for (int lane = 0; lane < 4; lane++)
            bad += out[lane] != 8 * (4 - lane) * x + 28;
    }
    return bad;
}

__attribute__((xray_never_instrument)) static void clobbering_handler(int32_t id, XRayEntryType kind)
{
    (void)id;
    (void)kind;
    __asm__ volatile("vzeroupper" ::: "memory");
}

int main(int argc, char **argv)
{
    int clobber = argc > 1 && !strcmp(argv[1], "--clobbering-handler");
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) || !(c & bit_OSXSAVE)) {
        printf("SKIP: no AVX\n");
        return 77;
    }
    if (clobber) {
        __xray_set_handler(clobbering_handler);
        __xray_patch();
        long bad = run(1000);
        printf("clobbering handler: %ld of 4000 lanes wrong\n", bad);
        return bad ? 0 : 1;
    }
    long n = 200000, bad = run(n);
    if (bad) {
        fprintf(stderr, "FAIL: %ld of %ld lanes wrong after traced calls\n", bad, 4 * n);
        return 1;
    }
    printf("calls add8 %ld\n", n);
    return 0;
}
