/*
 * span_scope_cxx.cpp - spans and C++ exceptions (issue 24 item 6):
 *   span_scope_cxx OUTPUT
 * Writes events whose expected parents span_scope_check.py knows (the "expect" field
 * names the span the event must be recorded under, "-" for none):
 *   - a FR_SPAN_START whose stop an exception skips ("Leaked"): the event after the
 *     catch must not be under it (before the fix, every later event was);
 *   - FR_SPAN_SCOPE left by an exception caught inside another scoped span, by return,
 *     and by break in a loop: each stops (its stop event written) and the event after
 *     it is under the span around it.
 * The functions that hold the spans are not inlined: the runtime tells the frames an
 * unwind leaves by stack address, and a span inlined into the catching (or setjmp)
 * frame lives in a frame that stays (docs/DESIGN.md, "Spans and unwinding").
 */
#include <cstdio>
#include <stdexcept>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(app, "SpanScope");

static __attribute__((noinline)) void leaks_a_span(int n)
{
    fr_span s;
    FR_SPAN_START(app, &s, "Leaked", FR_LEVEL(4));
    FR_EVENT(app, "InLeaked", FR_LEVEL(4), FR_STR("expect", "Leaked"));
    if (n > 0)
        throw std::runtime_error("leaves Leaked open");
    FR_SPAN_STOP(app, &s, "Leaked", FR_LEVEL(4));
}

static __attribute__((noinline)) void scoped_throw(int n)
{
    FR_SPAN_SCOPE(app, "Thrown", FR_LEVEL(4), FR_I32("arg", n));
    FR_EVENT(app, "InThrown", FR_LEVEL(4), FR_STR("expect", "Thrown"));
    if (n > 0)
        throw std::runtime_error("unwinds Thrown");
}

static __attribute__((noinline)) int scoped_return(int n)
{
    FR_SPAN_SCOPE(app, "Returned", FR_LEVEL(4));
    FR_EVENT(app, "InReturned", FR_LEVEL(4), FR_STR("expect", "Returned"));
    if (n > 0)
        return n;
    FR_EVENT(app, "NotReached", FR_LEVEL(4), FR_STR("expect", "Returned"));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: span_scope_cxx OUTPUT\n");
        return 2;
    }
    char options[4200];
    std::snprintf(options, sizeof options, "output=%s", argv[1]);
    if (fr_init(options) != FR_OK || FR_PROVIDER_REGISTER(app))
        return 1;

    try {
        leaks_a_span(1);
    } catch (const std::exception &) {
        FR_EVENT(app, "CaughtLeaked", FR_LEVEL(4), FR_STR("expect", "-"));
    }
    FR_EVENT(app, "AfterLeaked", FR_LEVEL(4), FR_STR("expect", "-"));
    {
        FR_SPAN_SCOPE(app, "Outer", FR_LEVEL(4));
        try {
            scoped_throw(1);
        } catch (const std::exception &) {
            FR_EVENT(app, "CaughtThrown", FR_LEVEL(4), FR_STR("expect", "Outer"));
        }
        try {
            leaks_a_span(2);
        } catch (const std::exception &) {
            FR_EVENT(app, "CaughtLeaked2", FR_LEVEL(4), FR_STR("expect", "Outer"));
        }
        scoped_return(1);
        FR_EVENT(app, "AfterReturned", FR_LEVEL(4), FR_STR("expect", "Outer"));
        for (int i = 0; i < 5; i++) {
            FR_SPAN_SCOPE(app, "Loop", FR_LEVEL(4), FR_I32("i", i));
            if (i == 2)
                break;
            FR_EVENT(app, "InLoop", FR_LEVEL(4), FR_STR("expect", "Loop"));
        }
        FR_EVENT(app, "AfterLoop", FR_LEVEL(4), FR_STR("expect", "Outer"));
    }
    FR_EVENT(app, "End", FR_LEVEL(4), FR_STR("expect", "-"));
    return fr_finalize() == FR_OK && fr_flush() == FR_OK ? 0 : 1;
}
