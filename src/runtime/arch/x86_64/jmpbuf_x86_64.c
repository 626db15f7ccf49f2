/*
 * jmpbuf_x86_64.c - the stack pointer a longjmp will restore, read from glibc's jmp_buf
 * (for the shadow stack's longjmp hook, functrace/unwind_hooks.c).
 *
 * glibc's x86-64 __jmp_buf holds rbx rbp r12 r13 r14 r15 rsp pc; rbp, rsp and pc are
 * mangled with PTR_MANGLE: xor with the thread's pointer guard (tcbhead_t at %fs:0x30),
 * then rotate left by 17. This is glibc's private layout, so the result is only trusted
 * when it is plausible: above the caller's stack pointer (longjmp only goes up the stack)
 * and within 1 GiB of it. Otherwise 0: the shadow stack then closes the dead frames
 * later, from the trampolines' exact-slot check.
 */
#include "arch/port.h"

#define JB_RSP 6
#define POINTER_GUARD 0x30

uint64_t fr_arch_jmpbuf_sp(const void *env, uint64_t current_sp)
{
#if defined(__GLIBC__)
    uint64_t v = ((const uint64_t *)env)[JB_RSP], guard;
    __asm__("movq %%fs:%c1, %0" : "=r"(guard) : "i"(POINTER_GUARD));
    v = (v >> 17 | v << 47) ^ guard;
    if (v > current_sp && v - current_sp < (1ull << 30))
        return v;
#else
    (void)env;
    (void)current_sp;
#endif
    return 0;
}
