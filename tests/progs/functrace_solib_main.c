/*
 * functrace_solib_main.c - sleds in shared libraries: one linked, one dlopen'ed later.
 * Each object's map is found, ids stay unique (the executable first, from 1), and all
 * are patched. argv[1]: path of libfunctrace_solib_b.so.
 */
#include <dlfcn.h>
#include <flightrec/xray.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument, noinline))

int solib_a_sum(int n);
void *solib_a_address(int which);

enum { MAXID = 64 };
static unsigned long counts[MAXID][3];
static volatile int sink;
static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %d: ", __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

NEVER static void handler(int32_t id, XRayEntryType kind)
{
    if (id > 0 && id < MAXID && kind <= TAIL)
        counts[id][kind]++;
}

NOINLINE int main_leaf(int x) { __asm__ volatile(""); return x - 1; }

NEVER static int32_t id_of(void *fn)
{
    for (size_t id = 1; id <= __xray_max_function_id(); id++)
        if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
            return (int32_t)id;
    return -1;
}

NEVER int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int32_t id_main = id_of((void *)main_leaf), id_sq = id_of(solib_a_address(0)),
            id_sum = id_of(solib_a_address(1));
    size_t max_before = __xray_max_function_id();
    CHECK(id_main > 0 && id_sq > 0 && id_sum > 0, "ids %d %d %d", id_main, id_sq, id_sum);
    CHECK(id_main < id_sq && id_main < id_sum, "the executable's ids come first");
    __xray_set_handler(handler);
    CHECK(__xray_patch() == SUCCESS, "patch");
    sink += main_leaf(3) + solib_a_sum(10);
    CHECK(counts[id_main][ENTRY] == 1 && counts[id_sum][ENTRY] == 1 && counts[id_sum][EXIT] == 1 &&
          counts[id_sq][ENTRY] == 10 && counts[id_sq][EXIT] == 10, "counts %lu %lu %lu",
          counts[id_main][ENTRY], counts[id_sum][ENTRY], counts[id_sq][ENTRY]);

    void *h = dlopen(argv[1], RTLD_NOW);
    CHECK(h != NULL, "dlopen %s: %s", argv[1], dlerror());
    if (h) {
        int (*twice)(int) = (int (*)(int))dlsym(h, "solib_b_twice");
        CHECK(__xray_patch() == SUCCESS, "patch after dlopen");
        CHECK(__xray_max_function_id() > max_before, "new ids after dlopen");
        int32_t id_tw = id_of((void *)twice);
        CHECK(id_tw > (int32_t)max_before && id_tw < MAXID, "dlopen'ed ids follow: %d", id_tw);
        if (id_tw > 0 && id_tw < MAXID) {
            sink += twice(4);
            CHECK(counts[id_tw][ENTRY] == 1 && counts[id_tw][EXIT] == 1, "dlopen'ed function traced");
        }
    }
    __xray_unpatch();
    sink += solib_a_sum(3);
    CHECK(counts[id_sq][ENTRY] == 10, "unpatched everywhere");
    if (!failures)
        printf("functrace_solib: %zu functions over 3 objects\n", __xray_max_function_id());
    return failures != 0;
}
