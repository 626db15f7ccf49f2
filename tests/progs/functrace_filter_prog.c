/* functrace_filter_prog.c - a program whose calls the record-time filters select from
 * (tests/functrace_filters.sh): built once with gcc -finstrument-functions and once with
 * clang -fxray-instrument, every filter must leave the same calls. Every function is
 * external and not inlined, so that both compilers instrument the same set.
 *   main -> jumper -> jump_deep1 -> jump_deep2 (longjmp back to jumper), once
 *        -> mid_one -> leaf_a, leaf_b   100 times
 *        -> mid_two -> leaf_a           100 times
 *        -> chain1 -> chain2 -> chain3 -> chain4 -> leaf_b   10 times
 *        -> slow_call (busy for at least 3 ms)   3 times */
#include <setjmp.h>
#include <stdio.h>
#include <time.h>

#define NI __attribute__((noinline))

volatile long sink;
static jmp_buf back;

NI void leaf_a(int i) { sink += i; }
NI void leaf_b(int i) { sink ^= i; }
NI void mid_one(int i) { leaf_a(i); leaf_b(i); }
NI void mid_two(int i) { leaf_a(i + 1); }
NI void chain4(int i) { leaf_b(i); }
NI void chain3(int i) { chain4(i); }
NI void chain2(int i) { chain3(i); }
NI void chain1(int i) { chain2(i); }
NI void jump_deep2(int i) { sink += i; longjmp(back, 1); }
NI void jump_deep1(int i) { jump_deep2(i + 1); sink--; }
NI void jumper(void)
{
    if (setjmp(back) == 0)
        jump_deep1(1);
    sink++;
}

/* At least 3 ms of the clock, whatever the load: kept by --threshold-us 1000. */
NI void slow_call(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 3000000L);
}

int main(void)
{
    jumper();   /* first: the depth count must be right again after the longjmp */
    for (int i = 0; i < 100; i++) {
        mid_one(i);
        mid_two(i);
    }
    for (int i = 0; i < 10; i++)
        chain1(i);
    for (int i = 0; i < 3; i++)
        slow_call();
    printf("%ld\n", (long)sink);
    return 0;
}
