// functrace_libcalls_exc.cpp - C++ exceptions through recorded library calls
// (tests/functrace_libcalls.sh): operator new throws bad_alloc 3 times through its
// replaced return address; a qsort comparator throws through qsort (a C library
// function) to the caller's catch. Without the return addresses put back before the
// unwind, the unwinder finds no frame information at the trampoline and terminates.
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <unistd.h>

__attribute__((noinline)) void *big() { return ::operator new(static_cast<size_t>(1) << 62); }

static int cmp(const void *a, const void *b)
{
    if (*static_cast<const int *>(a) == 7)
        throw std::runtime_error("seven");
    return *static_cast<const int *>(a) - *static_cast<const int *>(b);
}

__attribute__((noinline)) int sorter()
{
    int v[16];
    for (int i = 0; i < 16; i++)
        v[i] = 16 - i;
    try {
        qsort(v, 16, sizeof v[0], cmp);
    } catch (const std::exception &) {
        return 1;
    }
    return 0;
}

int main()
{
    int caught = 0;
    for (int i = 0; i < 3; i++) {
        try {
            big();
        } catch (const std::bad_alloc &) {
            caught++;
        }
    }
    caught += sorter();
    long s = 0;
    for (int i = 0; i < 7; i++)
        s += getpid();
    std::printf("caught %d %d\n", caught, s != 0);
    return 0;
}
