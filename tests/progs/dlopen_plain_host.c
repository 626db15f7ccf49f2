/*
 * dlopen_plain_host.c - a program without instrumentation that loads an instrumented
 * plugin (functrace_dlopen_a) with dlopen 100 times, calls dl_a_work once each time and
 * unloads it: functrace_dlopen_plain.sh records it with `record --no-check` (the calls
 * into the plugin were not recorded: no sleds at init, so none were patched later).
 *   dlopen_plain_host PLUGIN
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: dlopen_plain_host PLUGIN\n");
        return 2;
    }
    long sum = 0;
    for (int i = 0; i < 100; i++) {
        void *h = dlopen(argv[1], RTLD_NOW);
        int (*work)(int) = h ? (int (*)(int))dlsym(h, "dl_a_work") : NULL;
        if (!work) {
            fprintf(stderr, "dlopen_plain_host: %s\n", dlerror());
            return 1;
        }
        sum += work(i);
        dlclose(h);
    }
    printf("%ld\n", sum);
    return 0;
}
