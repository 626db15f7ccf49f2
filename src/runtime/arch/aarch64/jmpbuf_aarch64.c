/*
 * jmpbuf_aarch64.c - the stack pointer a longjmp will restore, read from glibc's jmp_buf
 * (for the shadow stack's longjmp hook, functrace/unwind_hooks.c).
 *
 * glibc's aarch64 __jmp_buf holds x19-x28, x29, lr, (unused), sp, d8-d15; lr and sp are
 * mangled with PTR_MANGLE, an xor with the process's pointer guard (one value for every
 * thread, not in the TCB as on x86-64). The guard is learnt once by calling _setjmp from
 * a function whose stack pointer is known: the stored sp xor that stack pointer. This is
 * glibc's private layout, so the result is only trusted when it is plausible: above the
 * caller's stack pointer (longjmp only goes up the stack) and within 1 GiB of it.
 * Otherwise 0: the shadow stack then closes the dead frames later, from the trampolines'
 * exact-slot check.
 */
#include "arch/port.h"

#include <setjmp.h>

#define JB_SP 13

#if defined(__GLIBC__)
static uint64_t pointer_guard;
static int guard_known;   /* set once pointer_guard holds the guard */

/* setjmp's own frame would be wrong here: _setjmp is a leaf that stores the sp it was
 * called with, which is ours (no alloca, so it does not move within this function). */
__attribute__((noinline)) static void learn_guard(void)
{
    jmp_buf env;
    uint64_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    if (_setjmp(env) != 0)
        return;   /* never: nobody jumps to env */
    uint64_t stored = ((const uint64_t *)(const void *)env)[JB_SP];
    __atomic_store_n(&pointer_guard, stored ^ sp, __ATOMIC_RELAXED);
    __atomic_store_n(&guard_known, 1, __ATOMIC_RELEASE);
}
#endif

uint64_t fr_arch_jmpbuf_sp(const void *env, uint64_t current_sp)
{
#if defined(__GLIBC__)
    if (__atomic_load_n(&guard_known, __ATOMIC_ACQUIRE) == 0)
        learn_guard();   /* racing threads learn the same value */
    uint64_t v = ((const uint64_t *)env)[JB_SP] ^ __atomic_load_n(&pointer_guard, __ATOMIC_RELAXED);
    if (v > current_sp && v - current_sp < (1ull << 30))
        return v;
#else
    (void)env;
    (void)current_sp;
#endif
    return 0;
}
