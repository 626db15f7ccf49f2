/*
 * span_unwind.c - spans whose frames die before they stop.
 *
 * A span started with FR_SPAN_START (or FR_SPAN_SCOPE) that is the thread's current span
 * restores its parent when it stops; when a C++ exception or a longjmp leaves its frame
 * first, nothing would, and every later event of the thread would hang under it. So
 * each thread keeps, for its open attached spans, the span's address, the stack pointer
 * when it started and the current activity it replaced. The unwind hooks (functrace/
 * unwind_hooks.c) say which stack addresses died: below the catching frame, when an
 * exception is caught; below the setjmp frame, before a longjmp is taken. The spans
 * there are closed, innermost first: a scoped span (FR_SPAN_SCOPE) writes its stop event
 * if its memory is still intact (before a longjmp; a C++ exception runs its destructor
 * itself), and each restores the activity that was current before it.
 *
 * A span died with its frame when its address lies between the stack pointer at its
 * start and the live stack pointer: that range is stack memory of this thread, frames
 * that were left, so a span elsewhere (static, on the heap) is never taken for a dead
 * one, and one in a frame that stays is not either. The first 16 nested spans are kept;
 * deeper ones are counted, and closed only when a kept one below them dies too. No
 * system call, no lock: span starts stay async-signal-safe (and free of system calls,
 * which the kernel tests check).
 */
#include <string.h>

#include "events/events_internal.h"
#include "events/span_unwind.h"
#include "functrace/shadow_stack.h"

#define FR_TLS __thread __attribute__((tls_model("initial-exec")))
#define KEPT_SPANS 16

struct kept_span {
    uintptr_t addr;        /* the fr_span (first member of an fr_span_scope) */
    uintptr_t sp;          /* a stack address below the frame that started it */
    uint8_t   prev[16];    /* the activity current before it started */
    bool      had_prev;
    bool      scoped;      /* an fr_span_scope: has a stop site */
};

static FR_TLS struct {
    uint32_t depth;                  /* open spans kept or counted */
    struct kept_span e[KEPT_SPANS];
} kept;

/* A program linked statically with spans gets the hooks that close them. */
__attribute__((used)) static void (*const link_unwind_hooks)(void) = fr_unwind_hooks_init;

/* Larger than any thread's stack: beyond, the two addresses are not on one stack. */
#define MAX_STACK_SPAN ((uintptr_t)1 << 30)

static bool died(const struct kept_span *k, uintptr_t live_sp)
{
    return k->addr > k->sp && k->addr < live_sp && live_sp - k->sp < MAX_STACK_SPAN;
}

__attribute__((noinline))
void fr_span_keep(const fr_span *s, bool had_prev, const uint8_t prev[16])
{
    uint32_t d = kept.depth++;
    if (d >= KEPT_SPANS)
        return;
    struct kept_span *k = &kept.e[d];
    k->addr = (uintptr_t)s;
    k->sp = (uintptr_t)__builtin_frame_address(0);
    k->had_prev = had_prev;
    if (had_prev)
        memcpy(k->prev, prev, 16);
    k->scoped = false;
}

/* Spans started after s and still open are forgotten with it: they were left (their
 * frames are gone) or they do not nest, and either way s's stop decides the current. */
void fr_span_forget(const fr_span *s)
{
    if (!kept.depth)
        return;
    uint32_t n = kept.depth < KEPT_SPANS ? kept.depth : KEPT_SPANS;
    for (uint32_t i = n; i-- > 0;) {
        if (kept.e[i].addr == (uintptr_t)s) {
            kept.depth = i;
            return;
        }
    }
    if (kept.depth > KEPT_SPANS)
        kept.depth--;   /* one of the counted ones */
}

void fr__span_scope_begin(fr_span_scope *g, const uint8_t **activity, const uint8_t **related)
{
    fr__span_begin(&g->span, NULL, false, activity, related);
    uint32_t d = kept.depth;
    if (d && d <= KEPT_SPANS && kept.e[d - 1].addr == (uintptr_t)&g->span)
        kept.e[d - 1].scoped = true;
}

void fr__span_scope_end(fr_span_scope *g)
{
    fr_span *s = &g->span;
    if (!(s->flags & FR_SPAN_ACTIVE))
        return;
    fr_event_site *site = g->stop;
    if (site && __atomic_load_n(&site->enabled, __ATOMIC_RELAXED)) {
        struct iovec iov[4] = {{NULL, 0}, {NULL, 0}, {NULL, 0},
                               {(void *)(uintptr_t)site->metadata, site->metadata_size}};
        fr__event_write(site, s->id, NULL, iov, 4);
    }
    fr__span_end(s);
}

bool fr_spans_open(void)
{
    return kept.depth != 0;
}

void fr_spans_unwound_below(uintptr_t live_sp, bool memory_intact)
{
    uint32_t d = kept.depth;
    if (!d)
        return;
    if (d > KEPT_SPANS) {
        if (!died(&kept.e[KEPT_SPANS - 1], live_sp))
            return;   /* only counted spans can have died: which ones is unknown */
        d = kept.depth = KEPT_SPANS;
    }
    while (d > 0 && died(&kept.e[d - 1], live_sp)) {
        struct kept_span k = kept.e[d - 1];
        if (memory_intact && k.scoped)
            fr__span_scope_end((fr_span_scope *)k.addr);
        fr_current_activity.set = k.had_prev;
        if (k.had_prev)
            memcpy(fr_current_activity.id, k.prev, 16);
        kept.depth = --d;
    }
}
