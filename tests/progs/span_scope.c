/*
 * span_scope.c - FR_SPAN_SCOPE, and spans an unwind leaves (issue 24 item 6), in a file
 * that is C (span_scope_c) and C++ (span_scope_cxx.cpp includes it):
 *   span_scope_c OUTPUT     span_scope_cxx OUTPUT
 * Each event's "expect" field names the span it must be recorded under ("-": none);
 * span_scope_check.py checks that, and that every span but the ones left on purpose has
 * its stop event:
 *   - both: FR_SPAN_SCOPE left by return, by break in a loop and by goto;
 *   - C: FR_SPAN_SCOPE two frames below a setjmp that a longjmp leaves (the runtime's
 *     longjmp writes its stop event and restores the current span), and a FR_SPAN_START
 *     whose stop a longjmp skips ("Left": the event after the jump is not under it;
 *     before the fix it was);
 *   - C++: FR_SPAN_SCOPE left by an exception caught inside another scoped span (its
 *     destructor), and a FR_SPAN_START whose stop an exception skips ("Left").
 * The functions that hold the spans are not inlined: the runtime tells the frames an
 * unwind leaves by stack address, and a span inlined into the catching (or setjmp)
 * frame lives in a frame that stays (docs/DESIGN.md, "Spans and unwinding").
 */
#include <setjmp.h>
#include <stdio.h>
#ifdef __cplusplus
#include <stdexcept>
#endif

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(app, "SpanScope");

#ifdef __cplusplus
static void leave(void)
{
    throw std::runtime_error("leaves the frames below the catch");
}
#define LEFT_BY(call) \
    try { \
        call; \
    } catch (const std::exception &) { \
    }
#else
static jmp_buf env;
static void leave(void)
{
    longjmp(env, 1);
}
#define LEFT_BY(call) \
    if (setjmp(env) == 0) \
        call;
#endif

static __attribute__((noinline)) void scoped_left(void)
{
    FR_SPAN_SCOPE(app, "ScopeLeft", FR_LEVEL(4));
    FR_EVENT(app, "InScopeLeft", FR_LEVEL(4), FR_STR("expect", "ScopeLeft"));
    leave();
}

static __attribute__((noinline)) void manual_left(void)
{
    fr_span s;
    FR_SPAN_START(app, &s, "Left", FR_LEVEL(4));
    FR_EVENT(app, "InLeft", FR_LEVEL(4), FR_STR("expect", "Left"));
    leave();
    FR_SPAN_STOP(app, &s, "Left", FR_LEVEL(4));
}

static __attribute__((noinline)) int scoped_return(int n)
{
    FR_SPAN_SCOPE(app, "Returned", FR_LEVEL(4), FR_I32("arg", n));
    FR_EVENT(app, "InReturned", FR_LEVEL(4), FR_STR("expect", "Returned"));
    if (n > 0)
        return n;
    FR_EVENT(app, "NotReached", FR_LEVEL(4), FR_STR("expect", "Returned"));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
        return 2;
    }
    char options[4200];
    snprintf(options, sizeof options, "output=%s", argv[1]);
    if (fr_init(options) != FR_OK || FR_PROVIDER_REGISTER(app))
        return 1;

    LEFT_BY(manual_left())
    FR_EVENT(app, "AfterLeft", FR_LEVEL(4), FR_STR("expect", "-"));
    {
        FR_SPAN_SCOPE(app, "Outer", FR_LEVEL(4));
        LEFT_BY(scoped_left())
        FR_EVENT(app, "AfterScopeLeft", FR_LEVEL(4), FR_STR("expect", "Outer"));
        LEFT_BY(manual_left())
        FR_EVENT(app, "AfterLeft2", FR_LEVEL(4), FR_STR("expect", "Outer"));
        scoped_return(1);
        FR_EVENT(app, "AfterReturned", FR_LEVEL(4), FR_STR("expect", "Outer"));
        for (int i = 0; i < 5; i++) {
            FR_SPAN_SCOPE(app, "Loop", FR_LEVEL(4), FR_I32("i", i));
            if (i == 2)
                break;
            FR_EVENT(app, "InLoop", FR_LEVEL(4), FR_STR("expect", "Loop"));
        }
        FR_EVENT(app, "AfterLoop", FR_LEVEL(4), FR_STR("expect", "Outer"));
        {
            FR_SPAN_SCOPE(app, "Goto", FR_LEVEL(4));
            FR_EVENT(app, "InGoto", FR_LEVEL(4), FR_STR("expect", "Goto"));
            goto out;
        }
out:
        FR_EVENT(app, "AfterGoto", FR_LEVEL(4), FR_STR("expect", "Outer"));
    }
    FR_EVENT(app, "End", FR_LEVEL(4), FR_STR("expect", "-"));
    return fr_finalize() == FR_OK && fr_flush() == FR_OK ? 0 : 1;
}
