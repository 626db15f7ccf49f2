/* doctor_static.c - links libflightrec.a; built twice by tests/cli.cmake, with and without
 * -finstrument-functions: `flightrec doctor` must tell the two apart, although both
 * define __cyg_profile_func_enter (the static library's). */
#include <stdio.h>

__attribute__((noinline)) static int twice(int x) { return 2 * x; }

int main(int argc, char **argv)
{
    (void)argv;
    printf("%d\n", twice(argc));
    return 0;
}
