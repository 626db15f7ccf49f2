/* static_throw.cpp - C++ exceptions thrown out of nested instrumented calls and caught
 * in an instrumented frame, for a program linked statically with libflightrec.a
 * (tests/functrace_static_throw.sh). Prints "caught 7 8 3" when both throws land in
 * their catch blocks: the second is rethrown once. */
#include <cstdio>
#include <stdexcept>

__attribute__((noinline)) static void deep(int n)
{
    if (n == 0)
        throw std::runtime_error("7");
    deep(n - 1);
    __asm__ volatile("");   /* no tail call */
}

__attribute__((noinline)) static int after(int x) { return x + 1; }

/* Catches what deep throws; after() runs in its catch block, so it is catcher's child. */
__attribute__((noinline)) static int catcher(void)
{
    try {
        deep(3);
    } catch (const std::runtime_error &e) {
        return after(e.what()[0] - '0');
    }
    return -1;
}

__attribute__((noinline)) static void rethrower(int n)
{
    try {
        deep(n);
    } catch (...) {
        throw;
    }
}

int main()
{
    int r = catcher();
    int s = 0;
    try {
        rethrower(2);
    } catch (const std::exception &) {
        s = 3;
    }
    std::printf("caught 7 %d %d\n", r, s);
    return 0;
}
