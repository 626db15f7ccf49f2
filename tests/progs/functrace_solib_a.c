/* functrace_solib_a.c - an instrumented shared library linked by functrace_solib_main. */
#define NOINLINE __attribute__((noinline, visibility("default")))
NOINLINE int solib_a_square(int x) { __asm__ volatile(""); return x * x; }
NOINLINE int solib_a_sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += solib_a_square(i);
        __asm__ volatile("" : "+r"(s));
    }
    return s;
}
NOINLINE void *solib_a_address(int which) { return which ? (void *)solib_a_sum : (void *)solib_a_square; }
