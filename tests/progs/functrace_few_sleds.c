/* functrace_few_sleds.c - many small global functions: clang's default instruction
 * threshold gives them no sleds (only main's loop gets one); with
 * -fxray-instruction-threshold=1 they all have sleds. functrace_few_sleds.sh checks that
 * `flightrec record` warns about the first build and not the second. */
#define F(n) __attribute__((noinline)) int f##n(int x) { __asm__ volatile(""); return x + n; }
F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8)
int main(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += f1(i) + f2(i) + f3(i) + f4(i) + f5(i) + f6(i) + f7(i) + f8(i);
    return s == 0;
}
