/* functrace_fast_path_count.c - N calls of an empty traced function under the recorder,
 * for functrace_fast_path_taken.py, which counts under qemu the instructions each call
 * runs in the trampolines and in the C recorder (fr_record_function): the trampolines'
 * fast path (core/fast_record.h) writes the records itself, so the C recorder must not
 * run once per call. clock=tsc: qemu-x86_64's CPU does not say its TSC is invariant
 * (the recorder would take CLOCK_MONOTONIC and with it the C path); aarch64's counter
 * is the clock anyway. Usage: PROGRAM N TRACE; prints the records written. */
#include <flightrec.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, xray_always_instrument)) int empty(int x)
{
    __asm__ volatile("");
    return x;
}

__attribute__((xray_never_instrument)) int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    char opts[4200];
    snprintf(opts, sizeof opts, "clock=tsc buffer_size=64k buffers=2 policy=overwrite output=%s",
             argv[2]);
    if (fr_init(opts) != FR_OK) {
        fprintf(stderr, "fr_init failed\n");
        return 1;
    }
    int n = atoi(argv[1]), s = 0;
    for (int i = 0; i < n; i++)
        s += empty(i);
    fr_finalize();
    fr_stats st;
    fr_get_stats(&st);
    printf("records written %llu, dropped %llu\n", (unsigned long long)st.records_written,
           (unsigned long long)st.records_dropped);
    return s == n * (n - 1) / 2 ? 0 : 1;
}
