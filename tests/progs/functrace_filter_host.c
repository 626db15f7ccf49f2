/* functrace_filter_host.c - dlopens argv[1] and runs its plug_run(50)
 * (tests/functrace_filters.sh). */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) { printf("%s\n", dlerror()); return 1; }
    int (*run)(int) = (int (*)(int))dlsym(h, "plug_run");
    printf("%d\n", run(50));
    return 0;
}
