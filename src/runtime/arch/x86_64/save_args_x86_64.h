/*
 * save_args_x86_64.h - for the assembler: SAVE_ARGS and RESTORE_ARGS keep what a call
 * into C may clobber at a function's entry, where every argument register is live:
 * xmm0-7, rdi rsi rdx rcx r8 r9, rax (al: vector registers of a variadic call) and r11,
 * in 192 bytes below the stack pointer (a multiple of 16: the alignment at the macro is
 * the alignment after it). Used by the sled trampolines (trampolines_x86_64.S) and the
 * library-call stubs (libcall_x86_64.S).
 */
#ifndef FLIGHTREC_SAVE_ARGS_X86_64_H
#define FLIGHTREC_SAVE_ARGS_X86_64_H
#ifdef __ASSEMBLER__
#define SAVE_ARGS_R11 184   /* where SAVE_ARGS keeps r11 */

.macro SAVE_ARGS   /* 192 bytes: xmm0-7, rdi rsi rdx rcx r8 r9 rax r11 */
    subq $192, %rsp
    .cfi_adjust_cfa_offset 192
    movups %xmm0, 0(%rsp)
    movups %xmm1, 16(%rsp)
    movups %xmm2, 32(%rsp)
    movups %xmm3, 48(%rsp)
    movups %xmm4, 64(%rsp)
    movups %xmm5, 80(%rsp)
    movups %xmm6, 96(%rsp)
    movups %xmm7, 112(%rsp)
    movq %rdi, 128(%rsp)
    movq %rsi, 136(%rsp)
    movq %rdx, 144(%rsp)
    movq %rcx, 152(%rsp)
    movq %r8, 160(%rsp)
    movq %r9, 168(%rsp)
    movq %rax, 176(%rsp)
    movq %r11, 184(%rsp)
.endm

.macro RESTORE_ARGS
    movups 0(%rsp), %xmm0
    movups 16(%rsp), %xmm1
    movups 32(%rsp), %xmm2
    movups 48(%rsp), %xmm3
    movups 64(%rsp), %xmm4
    movups 80(%rsp), %xmm5
    movups 96(%rsp), %xmm6
    movups 112(%rsp), %xmm7
    movq 128(%rsp), %rdi
    movq 136(%rsp), %rsi
    movq 144(%rsp), %rdx
    movq 152(%rsp), %rcx
    movq 160(%rsp), %r8
    movq 168(%rsp), %r9
    movq 176(%rsp), %rax
    movq 184(%rsp), %r11
    addq $192, %rsp
    .cfi_adjust_cfa_offset -192
.endm

#endif
#endif
