// reader_cxx_prog.cpp - C++ functions with XRay sleds (linked without compiler-rt) for
// the symbols test: ids from xray_instr_map, demangled names, file:line from DWARF.
// Each function's definition line carries a "LINE:" marker the test looks for.
#include <cstdio>

namespace shapes {
struct Circle {
    double r;
    [[clang::xray_always_instrument]] __attribute__((noinline)) double area() const; // decl
};
[[clang::xray_always_instrument]] __attribute__((noinline)) double Circle::area() const { return 3.0 * r * r; } // LINE:area
} // namespace shapes

template <typename T>
[[clang::xray_always_instrument]] __attribute__((noinline)) T twice(T v) { return v + v; } // LINE:twice

[[clang::xray_always_instrument]] __attribute__((noinline)) int plain_c_like(int x) { return x - 1; } // LINE:plain

extern "C" [[clang::xray_always_instrument]] __attribute__((noinline)) int c_linkage(int x) { return x * 7; } // LINE:clink

[[clang::xray_always_instrument]] int main(int argc, char **) // LINE:main
{
    shapes::Circle c{double(argc)};
    std::printf("%f %d %ld %d %d\n", c.area(), twice(argc), twice(long(argc)), plain_c_like(argc),
                c_linkage(argc));
    return 0;
}
