/* functrace_static_plain.c - linked with the plain line
 *   clang -fxray-instrument -fnoxray-link-deps prog.c libflightrec.a
 * (no --undefined=fr_functrace_anchor): calling fr_init must be enough to trace its
 * sleds (issue 10). Writes the trace named by argv[1]; functrace_static_plain.sh counts. */
#include <flightrec.h>
#include <stdio.h>

__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }

int main(int argc, char **argv)
{
    char opts[4200];
    snprintf(opts, sizeof opts, "output=%s", argc > 1 ? argv[1] : "static_plain.fr");
    if (fr_init(opts) != FR_OK) {
        fprintf(stderr, "fr_init failed\n");
        return 1;
    }
    int s = 0;
    for (int i = 0; i < 7; i++)
        s += leaf(i);
    return s == 28 ? 0 : 1;   /* the normal exit finalizes and writes the trace */
}
