// crash_prog_cxx.cpp - std::terminate in a traced C++ program (tests/crash_signals.sh):
// an exception leaves a noexcept function, so the runtime calls std::terminate -> abort.
#include <stdexcept>

static volatile int sink;

__attribute__((noinline)) void thrower(int i)
{
    if (i == 3)
        throw std::runtime_error("boom");
    sink += i;
}

__attribute__((noinline)) void crash_here() noexcept
{
    for (int i = 0; i < 5; i++)
        thrower(i);
}

int main()
{
    crash_here();
    return 0;
}
