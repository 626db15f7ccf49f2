// functrace_exception.cpp - C++ exceptions unwinding through patched (traced) frames.
// The unwinder runs no exit sleds; the runtime's shadow stack gives the handler an exit
// for every unwound frame, innermost first, before the catch block runs. Exit status 0
// when all checks pass (counts, and the exact event order of the first call).
#include <flightrec/xray.h>
#include <cstdio>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument, noinline))

static unsigned long counts[64][3];
static int order[16], norder;   // id * 10 + kind, first events only
NEVER static void handler(int32_t id, XRayEntryType kind)
{
    if (id > 0 && id < 64 && kind <= TAIL)
        counts[id][kind]++;
    if (norder < 16)
        order[norder++] = id * 10 + kind;
}

NOINLINE int thrower(int v)
{
    if (v >= 0)
        throw std::runtime_error("boom");
    return v;
}
NOINLINE int middle(int v) { int r = thrower(v); __asm__ volatile("" : "+r"(r)); return r + 1; }
NOINLINE int catcher(int v)
{
    try {
        return middle(v);
    } catch (const std::exception &) {
        return -100;
    }
}

NEVER static int32_t id_of(void *fn)
{
    for (size_t id = 1; id <= __xray_max_function_id(); id++)
        if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
            return (int32_t)id;
    return -1;
}

NEVER int main()
{
    int32_t t = id_of((void *)thrower), m = id_of((void *)middle), c = id_of((void *)catcher);
    if (t <= 0 || m <= 0 || c <= 0 || t >= 64 || m >= 64 || c >= 64) {
        std::fprintf(stderr, "FAIL: ids\n");
        return 1;
    }
    __xray_set_handler(handler);
    __xray_patch();
    long sum = 0;
    for (int i = 0; i < 1000; i++)
        sum += catcher(i);
    __xray_unpatch();
    const int want[6] = {c * 10 + ENTRY, m * 10 + ENTRY, t * 10 + ENTRY,
                         t * 10 + EXIT,  m * 10 + EXIT,  c * 10 + EXIT};
    for (int k = 0; k < 6; k++)
        if (order[k] != want[k]) {
            std::fprintf(stderr, "FAIL: event %d is %d (id*10+kind), want %d\n", k, order[k],
                         want[k]);
            return 1;
        }
    int ok = sum == -100000 && counts[c][ENTRY] == 1000 && counts[c][EXIT] == 1000 &&
             counts[m][ENTRY] == 1000 && counts[m][EXIT] == 1000 && counts[t][ENTRY] == 1000 &&
             counts[t][EXIT] == 1000;
    if (!ok) {
        std::fprintf(stderr, "FAIL: sum %ld catcher %lu/%lu middle %lu/%lu thrower %lu/%lu\n", sum,
                     counts[c][ENTRY], counts[c][EXIT], counts[m][ENTRY], counts[m][EXIT],
                     counts[t][ENTRY], counts[t][EXIT]);
        return 1;
    }
    std::printf("functrace_exception: 1000 exceptions through traced frames\n");
    return 0;
}
