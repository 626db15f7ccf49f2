// functrace_cxx_calls.cpp - a C++ program with a known call tree: a namespace, a class
// template, virtual calls, a lambda, a std::thread, exceptions thrown through 5 traced
// frames (one with a traced destructor run by the unwinder) and caught, and longjmp
// through 3 traced frames. functrace_cxx_calls.py records it (clang XRay, gcc
// -finstrument-functions) and checks every output against the tree below, which the
// program also prints on stdout ("tree COUNT PATH" lines, PATH with ';').
#include <csetjmp>
#include <cstdio>
#include <thread>

#define NOINLINE __attribute__((noinline))
// Keeps a call from becoming a tail call, so each frame exits after its callee.
#define NOTAIL() __asm__ volatile("" ::: "memory")

namespace app {
struct Error {
    int code;
};

template <typename T> struct Box {
    T v;
    NOINLINE T get(int k) const { NOTAIL(); return v + k; }
};

struct Shape {
    virtual ~Shape() {}
    virtual long area() const = 0;
};
struct Square : Shape {
    long side;
    explicit Square(long s) : side(s) {}
    NOINLINE long area() const override { NOTAIL(); return side * side; }
};
struct Circle : Shape {
    long r;
    explicit Circle(long x) : r(x) {}
    NOINLINE long area() const override { NOTAIL(); return 3 * r * r; }
};

// Its destructor runs in level3's cleanup while the exception passes.
struct Guard {
    volatile int *count;
    NOINLINE ~Guard() { ++*count; NOTAIL(); }
};
volatile int guards;

NOINLINE void level5(int i)
{
    NOTAIL();
    if (i >= 0)
        throw Error{i};
}
NOINLINE void level4(int i) { level5(i); NOTAIL(); }
NOINLINE void level3(int i)
{
    Guard g{&guards};
    level4(i);
    NOTAIL();
}
NOINLINE void level2(int i) { level3(i); NOTAIL(); }
NOINLINE void level1(int i) { level2(i); NOTAIL(); }
NOINLINE void after_catch(int i) { (void)i; NOTAIL(); }

NOINLINE int catcher(int i)
{
    try {
        level1(i);
    } catch (const Error &e) {
        after_catch(e.code);   // must nest under catcher, not under the dead level5
        return e.code;
    }
    return -1;
}

std::jmp_buf jb;
NOINLINE void jdeep3(int i) { NOTAIL(); std::longjmp(jb, i + 1); }
NOINLINE void jdeep2(int i) { jdeep3(i); NOTAIL(); }
NOINLINE void jdeep1(int i) { jdeep2(i); NOTAIL(); }
NOINLINE void after_jump(int i) { (void)i; NOTAIL(); }
NOINLINE int jump_host(int i)
{
    if (setjmp(jb) == 0) {
        jdeep1(i);
        return -1;
    }
    after_jump(i);   // must nest under jump_host, not under the dead jdeep3
    return 0;
}

NOINLINE long sum_boxes(int n)
{
    Box<long> b{3};
    long s = 0;
    for (int k = 0; k < n; k++)
        s += b.get(k);
    NOTAIL();
    return s;
}

NOINLINE long area_of(const Shape &sh) { long a = sh.area(); NOTAIL(); return a; }

volatile long total;

NOINLINE void run()
{
    for (int i = 0; i < 10; i++)
        total += catcher(i);
    for (int i = 0; i < 5; i++)
        total += jump_host(i);
    Square sq(4);
    Circle c(2);
    const Shape *shapes[] = {&sq, &c, &sq};
    for (const Shape *s : shapes)
        total += area_of(*s);
    auto work = [](int n) NOINLINE {
        total += sum_boxes(n);
        total += catcher(100 + n);
        NOTAIL();
    };
    std::thread t(work, 3);
    t.join();
    work(2);
    NOTAIL();
}
} // namespace app

int main()
{
    app::run();
    // The known tree, calls per path (the lambda's name depends on the compiler: <lambda>).
    static const char *tree[] = {
        "1 main",
        "1 main;app::run()",
        "10 main;app::run();app::catcher(int)",
        "10 main;app::run();app::catcher(int);app::level1(int)",
        "10 main;app::run();app::catcher(int);app::level1(int);app::level2(int)",
        "10 main;app::run();app::catcher(int);app::level1(int);app::level2(int);app::level3(int)",
        "10 main;app::run();app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::level4(int)",
        "10 main;app::run();app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::level4(int);app::level5(int)",
        "10 main;app::run();app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::Guard::~Guard()",
        "10 main;app::run();app::catcher(int);app::after_catch(int)",
        "5 main;app::run();app::jump_host(int)",
        "5 main;app::run();app::jump_host(int);app::jdeep1(int)",
        "5 main;app::run();app::jump_host(int);app::jdeep1(int);app::jdeep2(int)",
        "5 main;app::run();app::jump_host(int);app::jdeep1(int);app::jdeep2(int);app::jdeep3(int)",
        "5 main;app::run();app::jump_host(int);app::after_jump(int)",
        "3 main;app::run();app::area_of(app::Shape const&)",
        "2 main;app::run();app::area_of(app::Shape const&);app::Square::area() const",
        "1 main;app::run();app::area_of(app::Shape const&);app::Circle::area() const",
        "1 main;app::run();<lambda>",
        "1 main;app::run();<lambda>;app::sum_boxes(int)",
        "2 main;app::run();<lambda>;app::sum_boxes(int);app::Box<long>::get(int) const",
        "1 main;app::run();<lambda>;app::catcher(int)",
        "1 main;app::run();<lambda>;app::catcher(int);app::level1(int)",
        "1 main;app::run();<lambda>;app::catcher(int);app::level1(int);app::level2(int)",
        "1 main;app::run();<lambda>;app::catcher(int);app::level1(int);app::level2(int);app::level3(int)",
        "1 main;app::run();<lambda>;app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::level4(int)",
        "1 main;app::run();<lambda>;app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::level4(int);app::level5(int)",
        "1 main;app::run();<lambda>;app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::Guard::~Guard()",
        "1 main;app::run();<lambda>;app::catcher(int);app::after_catch(int)",
        "1 <lambda>",
        "1 <lambda>;app::sum_boxes(int)",
        "3 <lambda>;app::sum_boxes(int);app::Box<long>::get(int) const",
        "1 <lambda>;app::catcher(int)",
        "1 <lambda>;app::catcher(int);app::level1(int)",
        "1 <lambda>;app::catcher(int);app::level1(int);app::level2(int)",
        "1 <lambda>;app::catcher(int);app::level1(int);app::level2(int);app::level3(int)",
        "1 <lambda>;app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::level4(int)",
        "1 <lambda>;app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::level4(int);app::level5(int)",
        "1 <lambda>;app::catcher(int);app::level1(int);app::level2(int);app::level3(int);app::Guard::~Guard()",
        "1 <lambda>;app::catcher(int);app::after_catch(int)",
    };
    for (const char *line : tree)
        std::printf("tree %s\n", line);
    return app::guards == 12 && app::total != 0 ? 0 : 1;
}
