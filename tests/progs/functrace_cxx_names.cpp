// functrace_cxx_names.cpp - a C++ program whose traced function names are all mangled:
// a namespace, a class template, a virtual call, a lambda, and a std::thread. Used by
// functrace_cxx_names.sh to check that every output shows the demangled names.
#include <cstdio>
#include <thread>

namespace ns {
template <typename T> struct Box {
    T v;
    __attribute__((noinline)) T get(int k) const { return v + k; }
};

struct Shape {
    virtual ~Shape() {}
    virtual long area() const = 0;
};
struct Square : Shape {
    long side;
    explicit Square(long s) : side(s) {}
    __attribute__((noinline)) long area() const override { return side * side; }
};
} // namespace ns

__attribute__((noinline)) long sum_boxes(int n)
{
    ns::Box<long> b{3};
    long s = 0;
    for (int i = 0; i < n; i++)
        s += b.get(i);
    return s;
}

__attribute__((noinline)) long area_of(const ns::Shape &sh) { return sh.area(); }

int main()
{
    volatile long total = 0;
    auto work = [&total](int n) __attribute__((noinline)) { total += sum_boxes(n); };
    ns::Square sq(4);
    std::thread t(work, 10);
    work(5);
    t.join();
    total += area_of(sq);
    std::printf("%ld\n", (long)total);
    return 0;
}
