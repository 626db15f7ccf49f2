/*
 * libcall_aarch64.S - the aarch64 part of recorded library calls (functrace/libcalls.h).
 *
 * fr_libcall_stubs: FR_LIBCALL_SLOTS stubs of 16 bytes; a hooked GOT entry points at
 * stub i, which puts i in w17 (IP1: the PLT entry that branched here used x16 and x17
 * itself, so no caller keeps a value there across a call through the PLT) and branches
 * to the common entry.
 *
 * fr_libcall_entry_common: the PLT branched here in place of the function: sp is the
 * caller's, x30 the return address, and the argument registers x0-x7, x8 (indirect
 * result), v0-v7 are live, with stack arguments at sp. aarch64 keeps the return address
 * in x30, not on the stack, and a library function saves it wherever its own frame
 * layout says, where we could not find it again to put it back before an exception
 * unwinds (x86-64 replaces the return address in its stack slot and restores it). So
 * the entry calls the function itself, from a frame of its own with unwind info:
 *
 *   caller_sp - 8    the return slot word: x30 at entry. Its address is the call's
 *                    identity on the libcall stack (8 below the caller's stack pointer,
 *                    as a sled frame's slot, port_defs.h), and fr_libcall_enter(i, slot)
 *                    reads the return address there and leaves fr_libcall_return in it
 *                    when it recorded the entry (else the word is left unchanged).
 *   caller_sp - 32   frame record (x29, x30): the unwinder and backtrace() go through
 *                    this frame to the caller (CFI below), so exceptions and
 *                    cancellation unwind through a recorded library call as without it.
 *   below            the argument registers saved around fr_libcall_enter, then a copy
 *                    of the caller's first FR_LIBCALL_STACK_ARGS bytes of stack
 *                    arguments, where the function finds them (sp at the call).
 *
 * After the call, when the slot word still holds fr_libcall_return (the entry was
 * recorded and no exception has put the return address back meanwhile:
 * fr_libcall_unhook_returns / rehook_returns work on that word as on x86-64's slot), the
 * result registers x0-x7, v0-v7 are saved around fr_libcall_exit(slot), which records
 * the exit. Then the frame is left and the stub returns to the caller.
 *
 * fr_libcall_return is only a mark here (never executed): the value of the slot word
 * that says the call was recorded.
 *
 * Limit: a call passing more than FR_LIBCALL_STACK_ARGS bytes of arguments on the stack
 * (beyond the 8 + 8 argument registers: 32 more 8-byte arguments) would see garbage in
 * the rest; no libc function takes that many.
 */
#include "functrace/libcalls.h"

#define FR_LIBCALL_STACK_ARGS 256   /* bytes of stack arguments copied for the callee */
#define SAVE 208                    /* x0-x8 (72 bytes, padded to 80), q0-q7 (128) */

.macro LIBCALL_STUB index
    mov w17, #\index
    b fr_libcall_entry_common
.endm
    FR_LIBCALL_STUB_TABLE

/* x0-x8 and q0-q7 at [x9]: PAIR, ONE = stp, str (save) or ldp, ldr (restore) */
.macro ARG_REGS pair, one
    \pair x0, x1, [x9]
    \pair x2, x3, [x9, #16]
    \pair x4, x5, [x9, #32]
    \pair x6, x7, [x9, #48]
    \one x8, [x9, #64]
    \pair q0, q1, [x9, #80]
    \pair q2, q3, [x9, #112]
    \pair q4, q5, [x9, #144]
    \pair q6, q7, [x9, #176]
.endm

    .p2align 4
    .type fr_libcall_entry_common, %function
fr_libcall_entry_common:
    .cfi_startproc
    stp x30, x30, [sp, #-16]!        /* the return slot word at caller_sp - 8 */
    .cfi_def_cfa_offset 16
    stp x29, x30, [sp, #-16]!
    .cfi_def_cfa_offset 32
    .cfi_offset x29, -32
    .cfi_offset x30, -24
    mov x29, sp
    .cfi_def_cfa_register x29
    sub sp, sp, #(SAVE + FR_LIBCALL_STACK_ARGS)
    add x9, sp, #FR_LIBCALL_STACK_ARGS
    ARG_REGS stp, str
    /* the caller's stack arguments, [caller_sp, +256) -> [sp, +256) */
    add x10, x29, #32
    mov x11, sp
    mov x12, #(FR_LIBCALL_STACK_ARGS / 32)
1:  ldp x13, x14, [x10], #16
    stp x13, x14, [x11], #16
    ldp x13, x14, [x10], #16
    stp x13, x14, [x11], #16
    subs x12, x12, #1
    b.ne 1b
    mov w0, w17
    add x1, x29, #24                 /* the return slot */
    bl fr_libcall_enter
    mov x16, x0                      /* the function */
    add x9, sp, #FR_LIBCALL_STACK_ARGS
    ARG_REGS ldp, ldr
    blr x16
    /* recorded? (the slot word holds the mark) */
    ldr x9, [x29, #24]
    adrp x10, fr_libcall_return
    add x10, x10, :lo12:fr_libcall_return
    cmp x9, x10
    b.ne 2f
    add x9, sp, #FR_LIBCALL_STACK_ARGS
    ARG_REGS stp, str
    add x0, x29, #24
    bl fr_libcall_exit
    add x9, sp, #FR_LIBCALL_STACK_ARGS
    ARG_REGS ldp, ldr
2:  mov sp, x29
    ldp x29, x30, [sp], #32          /* x30: the frame record's, the real return address */
    .cfi_def_cfa sp, 0
    .cfi_restore x29
    .cfi_restore x30
    ret
    .cfi_endproc
    .size fr_libcall_entry_common, .-fr_libcall_entry_common

    .p2align 2
    .globl fr_libcall_return
    .hidden fr_libcall_return
    .type fr_libcall_return, %function
fr_libcall_return:
    brk #0x1                         /* a mark, never executed (see above) */
    .size fr_libcall_return, .-fr_libcall_return

    .section .note.GNU-stack,"",%progbits
