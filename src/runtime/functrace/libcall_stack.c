/* libcall_stack.c - the hot path of recorded library calls (libcalls.h): each thread's
 * stack of replaced return addresses, the entry and exit records, and closing the
 * frames that died without returning. Lock-free, no allocation, signal-safe: everything
 * here runs on the calling thread, in initial-exec TLS. */
#define _GNU_SOURCE
#include "functrace/libcalls.h"
#include "functrace/libcall_table.h"
#include "functrace/shadow_stack.h"
#include "arch/port.h"

#include <stdlib.h>
#include <unistd.h>

#ifdef FR_ARCH_JUMP_SLOT_RELOC   /* the port has library-call stubs (else libcall_unsupported.c) */

struct libcall_frame {
    uintptr_t *slot;     /* where the call's return address lives on the stack (aarch64:
                            the stub's copy of it, libcall_aarch64.S) */
    uintptr_t  ret;      /* the real return address */
    uint32_t   id;
    uint32_t   restored; /* the real address is back in *slot (an exception unwinds) */
};

struct libcall_stack {
    uint32_t depth;
    uint32_t skipped;    /* calls beyond FR_LIBCALL_DEPTH, run unrecorded (for a debugger) */
    struct libcall_frame f[FR_LIBCALL_DEPTH];
};

static __thread struct libcall_stack stack __attribute__((tls_model("initial-exec")));

#define FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Emits the exits of frames d-1 .. k (top down) and leaves depth k. */
static void close_down_to(struct libcall_stack *s, uint32_t k)
{
    while (s->depth > k) {
        uint32_t d = s->depth - 1;
        fr_record_function(s->f[d].id, FR_FN_EXIT);
        FENCE();
        s->depth = d;
    }
}

/* Index of the open frame whose return slot is SLOT, searching down from the top while
 * frames lie at or below it; -1 if none. */
static int find(const struct libcall_stack *s, uintptr_t *slot)
{
    for (int k = (int)s->depth - 1; k >= 0 && s->f[k].slot <= slot; k--)
        if (s->f[k].slot == slot)
            return k;
    return -1;
}

/* The runtime's own code when it is linked statically into the program: the build
 * renames the code sections of libflightrec.a's objects to flightrec_text
 * (cmake/runtime_text_section.cmake), whose bounds the linker then defines. There the
 * runtime calls libc through the program's PLT, through the very entries the hooks
 * redirect, and a call of its own must never be recorded: it would be a call the
 * program did not make, a record made inside a record (counted as dropped), or, in a
 * fork child before its pool is its own, a write into the parent's pool. In the shared
 * library the symbols are absent (0): its calls go through its own PLT, never hooked. */
extern const char __start_flightrec_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_flightrec_text[] __attribute__((weak, visibility("hidden")));

static int called_by_runtime(uintptr_t ret)
{
    return ret - (uintptr_t)__start_flightrec_text <
           (uintptr_t)__stop_flightrec_text - (uintptr_t)__start_flightrec_text;
}

uintptr_t fr_libcall_enter(uint32_t slot, uintptr_t *ret_slot)
{
    const struct fr_libcall_slot *ls = &fr_libcall_slots[slot];
    uintptr_t target = ls->target;
    if (!__atomic_load_n(&fr_recording, __ATOMIC_RELAXED) || called_by_runtime(*ret_slot))
        return target;
    struct libcall_stack *s = &stack;
    /* A call at the very return slot of an open frame: that frame and those above it are
     * dead (a longjmp or an unwind no hook saw). Exact addresses only, so a signal
     * handler on another stack never closes what it interrupted. */
    if (s->depth && s->f[s->depth - 1].slot <= ret_slot) {
        int k = find(s, ret_slot);
        if (k >= 0)
            close_down_to(s, (uint32_t)k);
    }
    uint32_t d = s->depth;
    if (d >= FR_LIBCALL_DEPTH) {
        s->skipped++;
        return target;
    }
    s->f[d] = (struct libcall_frame){ret_slot, *ret_slot, ls->id, 0};
    FENCE();
    s->depth = d + 1;   /* a signal handler's calls from now on go above */
    FENCE();
    *ret_slot = (uintptr_t)fr_libcall_return;
    fr_record_function(ls->id, FR_FN_ENTER);
    return target;
}

uintptr_t fr_libcall_exit(uintptr_t *ret_slot)
{
    struct libcall_stack *s = &stack;
    int k = find(s, ret_slot);
    if (k < 0)
        k = (int)s->depth - 1;   /* cannot be: only our frames return here */
    if (k < 0) {
        /* no return address to go back to: stop rather than jump anywhere */
        static const char msg[] = "flightrec: libcalls: a library call returned with none "
                                  "open on its thread\n";
        (void)!write(2, msg, sizeof msg - 1);
        abort();
    }
    close_down_to(s, (uint32_t)k + 1);   /* frames above it died unseen */
    struct libcall_frame f = s->f[k];
    fr_record_function(f.id, FR_FN_EXIT);
    FENCE();
    s->depth = (uint32_t)k;
    return f.ret;
}

void fr_frames_unwound_below(uint64_t live_sp, int xray_only, int libcall_at_live)
{
    struct libcall_stack *s = &stack;
    uint64_t above = 0;
    while (s->depth) {
        const struct libcall_frame *f = &s->f[s->depth - 1];
        uint64_t sp = (uint64_t)(uintptr_t)f->slot;
        /* stop at live frames, and at a frame of another stack (frames get higher going
         * down one stack: a lower one is an interrupted stack below a signal handler's) */
        if (sp > live_sp || (sp == live_sp && !libcall_at_live) || sp < above)
            break;
        /* the sled/gcc frames deeper than this one die first */
        fr_shadow_unwound_below(sp, xray_only);
        uint32_t d = fr_shadow.depth;
        if (d && d <= FR_SHADOW_CAP && fr_shadow.e[d - 1].sp < sp)
            return;   /* a gcc frame that closes itself (its cleanup) lies below: later */
        above = sp;
        close_down_to(s, s->depth - 1);
    }
    fr_shadow_unwound_below(live_sp, xray_only);
}

uint32_t fr_libcall_open_frames(uint64_t *slot, uint32_t *id, uint32_t max)
{
    const struct libcall_stack *s = &stack;
    uint32_t n = s->depth < max ? s->depth : max;
    for (uint32_t k = 0; k < n; k++) {
        slot[k] = (uint64_t)(uintptr_t)s->f[k].slot;
        id[k] = s->f[k].id;
    }
    return n;
}

void fr_libcall_unhook_returns(void)
{
    struct libcall_stack *s = &stack;
    for (uint32_t k = 0; k < s->depth; k++) {
        struct libcall_frame *f = &s->f[k];
        if (!f->restored && *f->slot == (uintptr_t)fr_libcall_return) {
            *f->slot = f->ret;
            f->restored = 1;
        }
    }
}

void fr_libcall_rehook_returns(void)
{
    struct libcall_stack *s = &stack;
    for (uint32_t k = 0; k < s->depth; k++) {
        struct libcall_frame *f = &s->f[k];
        if (f->restored && *f->slot == f->ret) {
            *f->slot = (uintptr_t)fr_libcall_return;
            f->restored = 0;
        }
    }
}

#endif /* FR_ARCH_JUMP_SLOT_RELOC */
