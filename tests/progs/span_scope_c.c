/*
 * span_scope_c.c - FR_SPAN_SCOPE in C, and spans a longjmp leaves (issue 24 item 6):
 *   span_scope_c OUTPUT
 * Each event's "expect" field names the span it must be recorded under ("-": none);
 * span_scope_check.py checks that, and that every scoped span has its stop event:
 *   - FR_SPAN_SCOPE left by return, by break and by goto (the cleanup attribute);
 *   - FR_SPAN_SCOPE two frames below a setjmp that a longjmp leaves: the runtime's
 *     longjmp writes its stop event and restores the current span;
 *   - a FR_SPAN_START whose stop a longjmp skips ("Jumped"): the event after the jump
 *     is not under it (before the fix it was).
 * The functions that hold the spans are not inlined: the runtime tells the frames an
 * unwind leaves by stack address, and a span inlined into the catching (or setjmp)
 * frame lives in a frame that stays (docs/DESIGN.md, "Spans and unwinding").
 */
#include <setjmp.h>
#include <stdio.h>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(app, "SpanScopeC");

static jmp_buf env;

static void jump_out(void)
{
    longjmp(env, 1);
}

static __attribute__((noinline)) void scoped_jump(void)
{
    FR_SPAN_SCOPE(app, "ScopeJumped", FR_LEVEL(4));
    FR_EVENT(app, "InScopeJumped", FR_LEVEL(4), FR_STR("expect", "ScopeJumped"));
    jump_out();
}

static __attribute__((noinline)) void manual_jump(void)
{
    fr_span s;
    FR_SPAN_START(app, &s, "Jumped", FR_LEVEL(4));
    FR_EVENT(app, "InJumped", FR_LEVEL(4), FR_STR("expect", "Jumped"));
    jump_out();
    FR_SPAN_STOP(app, &s, "Jumped", FR_LEVEL(4));
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
        fprintf(stderr, "usage: span_scope_c OUTPUT\n");
        return 2;
    }
    char options[4200];
    snprintf(options, sizeof options, "output=%s", argv[1]);
    if (fr_init(options) != FR_OK || FR_PROVIDER_REGISTER(app))
        return 1;

    if (setjmp(env) == 0)
        manual_jump();
    FR_EVENT(app, "AfterJumped", FR_LEVEL(4), FR_STR("expect", "-"));
    {
        FR_SPAN_SCOPE(app, "Outer", FR_LEVEL(4));
        if (setjmp(env) == 0)
            scoped_jump();
        FR_EVENT(app, "AfterScopeJumped", FR_LEVEL(4), FR_STR("expect", "Outer"));
        if (setjmp(env) == 0)
            manual_jump();
        FR_EVENT(app, "AfterJumped2", FR_LEVEL(4), FR_STR("expect", "Outer"));
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
