/* functrace_filter_plugin.c - a gcc-instrumented library that functrace_filter_host.c
 * dlopens (tests/functrace_filters.sh): the filter reaches objects loaded later. */
__attribute__((noinline)) int plug_leaf(int x) { return x * 3; }
__attribute__((noinline)) int plug_other(int x) { return x + 1; }
#include <unistd.h>
int plug_run(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += plug_leaf(i) + plug_other(i);
    return s + (getpgrp() > 0 ? 0 : 1);   /* a library call from a dlopen'ed object */
}
