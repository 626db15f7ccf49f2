/* static_longjmp.c - longjmp and siglongjmp out of nested instrumented calls, for a
 * program linked statically with libflightrec.a (tests/functrace_static_longjmp.sh).
 * Prints "jumped 7 3 8" when both jumps land where they should. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf jb;
static sigjmp_buf sjb;

__attribute__((noinline)) static void deep(int n)
{
    if (n == 0)
        longjmp(jb, 7);
    deep(n - 1);
    __asm__ volatile("");   /* no tail call */
}

__attribute__((noinline)) static void sig_deep(int n)
{
    if (n == 0)
        siglongjmp(sjb, 3);
    sig_deep(n - 1);
    __asm__ volatile("");
}

__attribute__((noinline)) static int after(int x) { return x + 1; }

int main(void)
{
    volatile int r = setjmp(jb);
    if (r == 0)
        deep(3);
    volatile int s = sigsetjmp(sjb, 1);
    if (s == 0)
        sig_deep(2);
    printf("jumped %d %d %d\n", r, s, after(r));
    return 0;
}
