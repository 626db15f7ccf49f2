/* shadow_stack.c - open traced frames per thread; closing the ones that were unwound
 * (see shadow_stack.h). Everything here runs on the traced thread, lock-free, and only
 * when the inline push/pop of the trampolines cannot decide. */
#define _GNU_SOURCE
#include "functrace/shadow_stack.h"
#include "functrace/sled_patch.h"
#include "core/recorder.h"

__thread struct fr_shadow fr_shadow __attribute__((tls_model("initial-exec")));

#define FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* The exit record of an unwound frame, through whatever records its kind of entry. */
static void emit_exit(const struct fr_shadow_entry *e)
{
    if (e->flags & FR_SHADOW_FINSTRUMENT) {
        fr_record_function(e->id, FR_FN_EXIT);
        return;
    }
    void (*h)(int32_t, int) = __atomic_load_n(&fr_sled_handlers.function, __ATOMIC_ACQUIRE);
    if (h)
        h((int32_t)e->id, FR_FN_EXIT);
}

/* Emits exits for entries d-1 .. k (top down) and leaves depth k. */
static void close_down_to(struct fr_shadow *s, uint32_t d, uint32_t k)
{
    while (d > k) {
        d--;
        struct fr_shadow_entry e = s->e[d];
        emit_exit(&e);
        FENCE();
        s->depth = d;
    }
}

/* Index of the stored entry with slot SP (and id ID unless ANY_ID), searching down from
 * the top while entries lie at or below SP; -1 if none. */
static int find_slot(const struct fr_shadow *s, uint32_t top, uint64_t sp, uint32_t id, int xray)
{
    for (int k = (int)top - 1; k >= 0 && s->e[k].sp <= sp; k--)
        if (s->e[k].sp == sp && (id == UINT32_MAX || s->e[k].id == id) &&
            ((s->e[k].flags & FR_SHADOW_FINSTRUMENT) == 0) == (xray != 0))
            return k;
    return -1;
}

static void push(struct fr_shadow *s, uint32_t d, uint64_t sp, uint32_t id, uint32_t flags)
{
    s->depth = d + 1;   /* first: a signal handler tracing calls now uses the slots above */
    FENCE();
    if (d < FR_SHADOW_CAP)
        s->e[d] = (struct fr_shadow_entry){sp, id, flags};
}

void fr_shadow_enter_slow(uint32_t id, uint64_t sp)
{
    struct fr_shadow *s = &fr_shadow;
    uint32_t d = s->depth;
    if (d > 0 && d <= FR_SHADOW_CAP && s->e[d - 1].sp <= sp) {
        /* A new frame at the slot of an open one: that one and those above it are dead
         * (longjmp, or an unwind no hook saw). */
        int k = find_slot(s, d, sp, UINT32_MAX, 1);
        if (k >= 0) {
            close_down_to(s, d, (uint32_t)k);
            d = (uint32_t)k;
        }
    }
    push(s, d, sp, id, 0);
}

void fr_shadow_exit_slow(uint32_t id, uint64_t sp)
{
    struct fr_shadow *s = &fr_shadow;
    uint32_t d = s->depth;
    if (d == 0)
        return;   /* entered before the handler was installed */
    if (d > FR_SHADOW_CAP) {
        /* An unstored frame, unless the exit is at or above the deepest stored one. */
        if (sp < s->e[FR_SHADOW_CAP - 1].sp) {
            s->depth = d - 1;
            return;
        }
        s->lost += d - FR_SHADOW_CAP;
        d = FR_SHADOW_CAP;
        s->depth = d;
    }
    int k = find_slot(s, d, sp, id, 1);
    if (k < 0)
        return;   /* not an open frame we know (entered before tracing): nothing to pop */
    close_down_to(s, d, (uint32_t)k + 1);
    FENCE();
    s->depth = (uint32_t)k;   /* the frame's own exit is recorded by the caller */
}

void fr_shadow_finstrument_enter(uint32_t id, uint64_t sp)
{
    struct fr_shadow *s = &fr_shadow;
    push(s, s->depth, sp, id, FR_SHADOW_FINSTRUMENT);
}

void fr_shadow_finstrument_exit(uint32_t id)
{
    struct fr_shadow *s = &fr_shadow;
    uint32_t d = s->depth;
    if (d == 0)
        return;
    if (d > FR_SHADOW_CAP) {
        s->depth = d - 1;
        return;
    }
    if (s->e[d - 1].id == id && (s->e[d - 1].flags & FR_SHADOW_FINSTRUMENT)) {
        s->depth = d - 1;
        return;
    }
    /* Frames above this one were left without their exit hook (longjmp no hook saw). */
    for (int k = (int)d - 2; k >= 0; k--)
        if (s->e[k].id == id && (s->e[k].flags & FR_SHADOW_FINSTRUMENT)) {
            close_down_to(s, d, (uint32_t)k + 1);
            FENCE();
            s->depth = (uint32_t)k;
            return;
        }
}

void fr_shadow_unwound_below(uint64_t live_sp, int xray_only)
{
    struct fr_shadow *s = &fr_shadow;
    uint32_t d = s->depth;
    if (d == 0)
        return;
    if (d > FR_SHADOW_CAP) {
        if (s->e[FR_SHADOW_CAP - 1].sp >= live_sp)
            return;   /* only unstored frames can have died: their number is unknown */
        s->lost += d - FR_SHADOW_CAP;
        d = FR_SHADOW_CAP;
        s->depth = d;
    }
    /* Entries get higher going down one stack; a lower one means another stack (a signal
     * handler's alternate stack): stop there. */
    uint64_t above = 0;
    while (d > 0) {
        const struct fr_shadow_entry *e = &s->e[d - 1];
        if (e->sp >= live_sp || e->sp < above ||
            (xray_only && (e->flags & FR_SHADOW_FINSTRUMENT)))
            break;
        above = e->sp;
        close_down_to(s, d, d - 1);
        d--;
    }
}
