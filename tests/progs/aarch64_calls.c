/*
 * aarch64_calls.c - a traced program with a known number of calls of each function, for
 * the aarch64 port's acceptance test (tests/aarch64_trace.sh). Its functions pass values
 * through every register class the trampolines keep (x0-x7, v0-v7, x8's indirect result,
 * a tail call's arguments) and it checks them, so a trampoline that loses a register makes
 * it fail. Usage: aarch64_calls N [crash]  (crash: ends in a SIGSEGV inside crash_here).
 * Expected calls: leaf 2N, mid N, tail_caller N, dbl N, many_args N, big_result N,
 * recurse 31, crash_here 1 with crash, main 1.
 */
#include <stdio.h>
#include <stdlib.h>

struct big { long v[6]; };

#define TRACED __attribute__((noinline, xray_always_instrument))

TRACED long leaf(long x) { return x * 3; }
TRACED long mid(long x) { return leaf(x) + 1; }
TRACED long tail_caller(long x) { return leaf(x + 1); }   /* a tail call at -O2 */
TRACED double dbl(double a, double b) { return a * b + 1.0; }
TRACED double many_args(long a, long b, long c, long d, long e, long f, long g, long h,
                        double p, double q, double r, double s, double t, double u,
                        double v, double w)
{
    return (double)(a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h) +
           p + 2 * q + 3 * r + 4 * s + 5 * t + 6 * u + 7 * v + 8 * w;
}
TRACED struct big big_result(long x)
{
    struct big b;
    for (int i = 0; i < 6; i++)
        b.v[i] = x + i;
    return b;
}
/* optnone: at -O2 clang turns this recursion into a loop (one call) */
TRACED __attribute__((optnone)) long recurse(int depth)
{
    return depth ? recurse(depth - 1) + depth : 0;
}
TRACED void crash_here(volatile int *p) { *p = 1; }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100, sum = 0, want = 0;
    double dsum = 0, dwant = 0;
    for (long i = 0; i < n; i++) {
        sum += mid(i) + tail_caller(i);
        want += 3 * i + 1 + 3 * (i + 1);
        dsum += dbl((double)i, 0.5);
        dwant += (double)i * 0.5 + 1.0;
        double m = many_args(i, 1, 2, 3, 4, 5, 6, 7, 0.5, 1, 2, 3, 4, 5, 6, (double)i);
        if (m != (double)(i + 2 + 6 + 12 + 20 + 30 + 42 + 56) + 0.5 + 2 + 6 + 12 + 20 + 30 + 42 + 8.0 * i) {
            fprintf(stderr, "many_args(%ld) = %f: an argument register was lost\n", i, m);
            return 1;
        }
        struct big b = big_result(i);
        for (int k = 0; k < 6; k++)
            if (b.v[k] != i + k) {
                fprintf(stderr, "big_result(%ld).v[%d] = %ld: x8 was lost\n", i, k, b.v[k]);
                return 1;
            }
    }
    long r = recurse(30);
    if (sum != want || dsum != dwant || r != 465) {
        fprintf(stderr, "wrong results: %ld/%ld %f/%f %ld\n", sum, want, dsum, dwant, r);
        return 1;
    }
    printf("ok %ld\n", n);
    fflush(stdout);
    if (argc > 2)
        crash_here(NULL);
    return 0;
}
