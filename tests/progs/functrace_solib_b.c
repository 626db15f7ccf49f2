/* functrace_solib_b.c - an instrumented shared library that functrace_solib_main dlopens. */
#define NOINLINE __attribute__((noinline, visibility("default")))
NOINLINE int solib_b_twice(int x) { __asm__ volatile(""); return 2 * x; }
NOINLINE void *solib_b_address(void) { return (void *)solib_b_twice; }
