/*
 * shadow_stack.h - each thread's open traced frames, so that frames a C++ exception or a
 * longjmp unwinds are closed with an ordinary function-exit record.
 *
 * Neither an XRay exit sled nor (with clang) a -finstrument-functions exit hook runs for a
 * frame the unwinder or longjmp skips: without help the reader keeps those calls open and
 * nests everything after them under dead frames. So every traced entry pushes
 * (stack pointer, function id) here and every traced exit pops it; the stack pointer is the
 * address of the frame's return-address slot (XRay) or the caller's stack pointer at the
 * hook call (-finstrument-functions). A frame whose slot lies below the stack pointer of a
 * live frame is dead: on the same stack, callees always sit below their callers.
 *
 * Where dead frames are found (each emits, top down, an exit for every dead frame through
 * the installed handler, before anything else is recorded):
 *   - the C++ personality routine in its cleanup phase (unwind_hooks.c): every frame
 *     below the one it is asked about has been unwound; exact, frame by frame;
 *   - __cxa_begin_catch: everything below the catching frame;
 *   - longjmp, _longjmp, siglongjmp, __longjmp_chk: everything below the target;
 *   - as a fallback, the trampolines themselves: an exit whose slot is not the top entry
 *     but lies deeper in the stack closes the entries above it; an entry at the very slot
 *     of an open frame closes that frame and those above it. Both need an exact address
 *     match, so a signal handler on an alternate stack never closes the frames it
 *     interrupted.
 *
 * The XRay trampolines (trampolines_<cpu>.S) do the push and pop inline (a few
 * instructions, see docs/FUNCTRACE.md for the cost) and call fr_shadow_enter_slow /
 * fr_shadow_exit_slow for anything else. The depth is incremented before the slot is
 * written at entry and decremented after the check at exit, so a signal handler that
 * traces calls in between uses only the slots above.
 *
 * Capacity: FR_SHADOW_CAP frames per thread in initial-exec TLS. Deeper frames are counted
 * but not stored: their exits stay in the trace as the program ran, and when they are
 * unwound their exits are lost (counted in `lost`).
 * Internal to libflightrec.
 */
#ifndef FLIGHTREC_SHADOW_STACK_H
#define FLIGHTREC_SHADOW_STACK_H

#define FR_SHADOW_CAP 256
/* The layout the trampolines rely on: depth at 0, entry k at 16 + 16 k (sp, then id). */
#define FR_SHADOW_OFF_DEPTH 0
#define FR_SHADOW_OFF_ENTRIES 16

/* Entry flag: pushed by a -finstrument-functions hook (its sp is the caller's sp at the
 * call, not a return-address slot; its exit is recorded by fr_record_function). */
#define FR_SHADOW_FINSTRUMENT 1

#ifndef __ASSEMBLER__   /* the constants above are shared with the trampolines */
#include <stdint.h>
#include "core/visibility.h"

struct fr_shadow_entry {
    uint64_t sp;
    uint32_t id;
    uint32_t flags;
};

struct fr_shadow {
    uint32_t depth;        /* open frames, stored or not */
    uint32_t lost;         /* unwound frames beyond FR_SHADOW_CAP: exits not recorded */
    uint64_t reserved;
    struct fr_shadow_entry e[FR_SHADOW_CAP];
};

extern __thread struct fr_shadow fr_shadow
    __attribute__((tls_model("initial-exec"))) FR_HIDDEN;

/* Called by the trampolines (after saving what the handler may clobber). */
FR_HIDDEN void fr_shadow_enter_slow(uint32_t id, uint64_t sp);
FR_HIDDEN void fr_shadow_exit_slow(uint32_t id, uint64_t sp);

/* -finstrument-functions hooks. */
FR_HIDDEN void fr_shadow_finstrument_enter(uint32_t id, uint64_t sp);
FR_HIDDEN void fr_shadow_finstrument_exit(uint32_t id);

/* Closes (emits exits for, top down, and pops) every open frame whose sp is below LIVE_SP.
 * XRAY_ONLY: stop at the first -finstrument-functions entry (gcc records those exits
 * itself in cleanups, which run after the personality routine). */
FR_HIDDEN void fr_shadow_unwound_below(uint64_t live_sp, int xray_only);

/* unwind_hooks.c: resolves the functions the hooks forward to (called at start-up). */
FR_HIDDEN void fr_unwind_hooks_init(void);
/* unwind_hooks.c: the C++ personality hook's work (personality_hook.c defines the hook):
 * closes the frames unwound so far, then forwards to the C++ runtime's routine. */
FR_HIDDEN int fr_unwind_personality(int version, int actions, uint64_t exception_class,
                                    void *exception, void *context);

#endif /* __ASSEMBLER__ */
#endif
