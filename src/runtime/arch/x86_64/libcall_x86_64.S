/*
 * libcall_x86_64.S - the x86-64 part of recorded library calls (functrace/libcalls.h).
 *
 * fr_libcall_stubs: FR_LIBCALL_SLOTS stubs of 16 bytes; a hooked GOT entry points at
 * stub i, which loads i into r11 (the linker's scratch register: PLT code and the lazy
 * resolver clobber it too, so no caller keeps a value there across a PLT call) and jumps
 * to the common entry.
 *
 * fr_libcall_entry_common: the PLT jumped here in place of the function, so the stack is
 * the function's at its entry (return address at 0(%rsp), stack arguments above it) and
 * every argument register is live: rdi rsi rdx rcx r8 r9, rax (al: vector registers of a
 * variadic call), r10 (a static chain), xmm0-7. They are saved, fr_libcall_enter(i,
 * &return slot) records the entry and replaces the return address (or not, when not
 * recording), they are restored and the function is entered by a jump, with the stack
 * exactly as the caller left it.
 *
 * fr_libcall_return: the function returned here (rsp = the caller's stack pointer, one
 * word above the return slot). Return registers rax rdx xmm0 xmm1 are saved;
 * fr_libcall_exit(return slot) records the exit and gives the real return address,
 * which is left in the word below and returned to. x87 st0/st1 (long double results)
 * and the upper halves of ymm/zmm registers are not saved: the recorder is C built for
 * the x86-64 baseline without x87 arithmetic, as for the sled trampolines
 * (trampolines_x86_64.S).
 */
#include "functrace/libcalls.h"
#include "save_args_x86_64.h"

.macro LIBCALL_STUB index
    movl $\index, %r11d
    jmp fr_libcall_entry_common
.endm
    FR_LIBCALL_STUB_TABLE

    .p2align 4
    .type fr_libcall_entry_common, @function
fr_libcall_entry_common:
    .cfi_startproc
    /* rsp = 8 mod 16 here (a call pushed the return address onto an aligned stack):
     * r10 and SAVE_ARGS's 192 bytes keep fr_libcall_enter's call aligned */
    pushq %r10
    .cfi_adjust_cfa_offset 8
    SAVE_ARGS
    movl %r11d, %edi
    leaq 200(%rsp), %rsi          /* the return-address slot */
    call fr_libcall_enter
    movq %rax, SAVE_ARGS_R11(%rsp)   /* r11 comes back as the function's address */
    RESTORE_ARGS
    popq %r10
    .cfi_adjust_cfa_offset -8
    jmp *%r11
    .cfi_endproc
    .size fr_libcall_entry_common, .-fr_libcall_entry_common

    .p2align 4
    .globl fr_libcall_return
    .hidden fr_libcall_return
    .type fr_libcall_return, @function
fr_libcall_return:
    /* rsp is 16-aligned (the caller's at its call); the word below is where the real
     * return address goes, then 8 + 16 + 32 bytes of saved registers: aligned again */
    subq $64, %rsp
    movq %rax, 8(%rsp)
    movq %rdx, 16(%rsp)
    movups %xmm0, 24(%rsp)
    movups %xmm1, 40(%rsp)
    leaq 56(%rsp), %rdi           /* the return slot the call used */
    call fr_libcall_exit
    movq %rax, 56(%rsp)           /* the real return address, in that same slot */
    movq 8(%rsp), %rax
    movq 16(%rsp), %rdx
    movups 24(%rsp), %xmm0
    movups 40(%rsp), %xmm1
    addq $56, %rsp
    ret
    .size fr_libcall_return, .-fr_libcall_return

    .section .note.GNU-stack,"",@progbits
