/* instrumented.c - built with flightrec_instrument() from the installed CMake package:
 * each call of work() must be in the trace `flightrec record` writes. */
#include <stdio.h>

__attribute__((noinline)) int work(int x) { __asm__ volatile(""); return x * 3; }

int main(void)
{
    int s = 0;
    for (int i = 0; i < 42; i++)
        s += work(i);
    printf("%d\n", s);
    return 0;
}
