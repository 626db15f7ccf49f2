/*
 * trampolines_aarch64.S - what patched XRay sleds call (see sled_aarch64.c for the sleds).
 *
 * A patched sled is `stp x17, x30, [sp, #-16]!; mov w17, #id; bl trampoline;
 * ldp x17, x30, [sp], #16`: the trampoline starts with the id in w17, the sled's 16 bytes
 * below the function's stack pointer, and x30 pointing back into the sled. Each trampoline
 * saves what the place of its sled keeps live and a C handler may clobber, calls the
 * handler in fr_sled_handlers (skipped when it is NULL), restores, returns:
 *   entry, log-args entry: the argument registers x0-x7, x8 (the indirect result
 *                address), v0-v7 (whole 128 bits), x16 (see the islands in sled_aarch64.c).
 *   exit, tail exit: the same plus x9-x15 and x18: an indirect tail branch may hold its
 *                target in any caller-saved register, and clang 14 marks aarch64 tail
 *                sleds as plain exits in the instrumentation map, so the exit trampoline
 *                may sit before a tail branch too. (Results come back in x0-x7, v0-v7.)
 * x17 belongs to the sled (it saved and restores it); x9-x15 are dead at entry sleds and
 * serve as scratch there before anything is saved. Every trampoline builds a frame
 * record (x29, x30), so frame-pointer walks pass through it.
 * The handlers are C built for the base architecture (no SVE): NEON code that writes a
 * v register clears the upper bits of the SVE z register under it, so, as with AVX on
 * x86-64, functions taking or returning SVE vectors are not supported with a handler
 * that uses v registers; see docs/FUNCTRACE.md.
 *
 * Shadow stack (functrace/shadow_stack.h): the frame's slot is the function's stack
 * pointer at the sled minus 8 (FR_ARCH_RETURN_SLOT_BELOW_CFA). Whenever a handler is
 * installed, entry and log-args entry push (slot, id) and exit and tail exit pop it,
 * inline: one TLS address, a compare with the top entry, two stores. Anything else goes to
 * fr_shadow_enter_slow / fr_shadow_exit_slow with the registers already saved.
 *
 * __xray_CustomEvent / __xray_TypedEvent: event sleds may call them with every register
 * live, so they save all general registers a C function may clobber, the flags and
 * v0-v31, then call the handler.
 */

#include "port_defs.h"
#include "functrace/shadow_stack.h"
#define H_FUNCTION FR_ARCH_HANDLER_OFF_FUNCTION
#define H_ARG1     FR_ARCH_HANDLER_OFF_ARG1
#define H_CUSTOM   FR_ARCH_HANDLER_OFF_CUSTOM
#define H_TYPED    FR_ARCH_HANDLER_OFF_TYPED

/* The frame of the function trampolines: 0 x29 x30, 16 x0..x8 (x0 at 16), 88 x16,
 * 96 x9..x15, 152 x18, 160 x17 across the shadow stack's slow path, 176 q0..q7, 304 end. */
#define FRAME     304
#define OFF_X0    16
#define OFF_X8    80
#define OFF_X9    96
#define OFF_SPILL 160
#define OFF_Q0    176
/* The slot: the function's sp at the sled (our sp + FRAME + the sled's 16) minus 8. */
#define SLOT_OFF (FRAME + 16 - FR_ARCH_RETURN_SLOT_BELOW_CFA)

    .text

.macro FUNCTION name
    .p2align 4
    .globl \name
    .hidden \name
    .type \name, %function
\name:
    .cfi_startproc
.endm

.macro END name
    .cfi_endproc
    .size \name, . - \name
.endm

.macro OPEN_FRAME
    stp x29, x30, [sp, #-FRAME]!
    .cfi_def_cfa_offset FRAME
    .cfi_offset x29, -FRAME
    .cfi_offset x30, -FRAME+8
    mov x29, sp
.endm

.macro CLOSE_FRAME
    ldp x29, x30, [sp], #FRAME
    .cfi_def_cfa_offset 0
    .cfi_restore x29
    .cfi_restore x30
.endm

.macro SAVE_ARGS
    stp x0, x1, [sp, #OFF_X0]
    stp x2, x3, [sp, #OFF_X0+16]
    stp x4, x5, [sp, #OFF_X0+32]
    stp x6, x7, [sp, #OFF_X0+48]
    stp x8, x16, [sp, #OFF_X8]
    stp q0, q1, [sp, #OFF_Q0]
    stp q2, q3, [sp, #OFF_Q0+32]
    stp q4, q5, [sp, #OFF_Q0+64]
    stp q6, q7, [sp, #OFF_Q0+96]
.endm

.macro RESTORE_ARGS
    ldp x0, x1, [sp, #OFF_X0]
    ldp x2, x3, [sp, #OFF_X0+16]
    ldp x4, x5, [sp, #OFF_X0+32]
    ldp x6, x7, [sp, #OFF_X0+48]
    ldp x8, x16, [sp, #OFF_X8]
    ldp q0, q1, [sp, #OFF_Q0]
    ldp q2, q3, [sp, #OFF_Q0+32]
    ldp q4, q5, [sp, #OFF_Q0+64]
    ldp q6, q7, [sp, #OFF_Q0+96]
.endm

.macro SAVE_TEMPS
    stp x9, x10, [sp, #OFF_X9]
    stp x11, x12, [sp, #OFF_X9+16]
    stp x13, x14, [sp, #OFF_X9+32]
    stp x15, x18, [sp, #OFF_X9+48]
.endm

.macro RESTORE_TEMPS
    ldp x9, x10, [sp, #OFF_X9]
    ldp x11, x12, [sp, #OFF_X9+16]
    ldp x13, x14, [sp, #OFF_X9+32]
    ldp x15, x18, [sp, #OFF_X9+48]
.endm

/* reg := the handler at offset off of fr_sled_handlers */
.macro LOAD_HANDLER reg, off
    adrp \reg, fr_sled_handlers
    ldr \reg, [\reg, #:lo12:fr_sled_handlers + \off]
.endm

/* x10 := &fr_shadow (this thread's, initial-exec TLS) */
.macro SHADOW_ADDR
    mrs x10, tpidr_el0
    adrp x11, :gottprel:fr_shadow
    ldr x11, [x11, #:gottprel_lo12:fr_shadow]
    add x10, x10, x11
.endm

/* Pushes (slot, w17). Clobbers x9-x14, and on the slow path what a C function may;
 * keeps x17 (spilled around the call). */
.macro SHADOW_PUSH
    add x9, sp, #SLOT_OFF
    SHADOW_ADDR
    ldr w12, [x10, #FR_SHADOW_OFF_DEPTH]
    cmp w12, #FR_SHADOW_CAP
    b.hs 7f
    add x13, x10, x12, lsl #4       /* the top entry e[depth-1] is at 16 * depth */
    cbz w12, 6f
    ldr x14, [x13]
    cmp x14, x9                     /* top.sp > slot: we are its callee, as usual */
    b.ls 7f
6:  add w12, w12, #1
    str w12, [x10, #FR_SHADOW_OFF_DEPTH]    /* depth first (see shadow_stack.h) */
    mov w14, w17                    /* id, flags 0 */
    stp x9, x14, [x13, #FR_SHADOW_OFF_ENTRIES]
    b 8f
7:  mov x1, x9
    mov w0, w17
    str x17, [sp, #OFF_SPILL]
    bl fr_shadow_enter_slow
    ldr x17, [sp, #OFF_SPILL]
8:
.endm

/* Pops the entry (slot, w17). Clobbers x9-x14 and, on the slow path, what a C function
 * may; keeps x17 (spilled around the call). */
.macro SHADOW_POP
    add x9, sp, #SLOT_OFF
    SHADOW_ADDR
    ldr w12, [x10, #FR_SHADOW_OFF_DEPTH]
    sub w13, w12, #1
    cmp w13, #FR_SHADOW_CAP-1       /* depth 0, or frames beyond the stored ones */
    b.hi 7f
    add x13, x10, x12, lsl #4
    ldp x14, x11, [x13]
    cmp x14, x9
    b.ne 7f
    mov w14, w17
    cmp x11, x14                    /* same id, flags 0 */
    b.ne 7f
    sub w12, w12, #1
    str w12, [x10, #FR_SHADOW_OFF_DEPTH]
    b 8f
7:  mov x1, x9
    mov w0, w17
    str x17, [sp, #OFF_SPILL]
    bl fr_shadow_exit_slow
    ldr x17, [sp, #OFF_SPILL]
8:
.endm

/* ------------------------------------------------------------------ entry (kind 0) */
FUNCTION fr_tramp_entry
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 9f
    OPEN_FRAME
    SAVE_ARGS
    SHADOW_PUSH
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 1f
    mov w0, w17
    mov w1, #0                      /* ENTRY */
    blr x9
1:  RESTORE_ARGS
    CLOSE_FRAME
9:  ret
END fr_tramp_entry

/* ------------------------------------------------------------------ tail exit (kind 2)
 * Everything is saved before any register is used: the tail branch's target may be in
 * any caller-saved register. */
FUNCTION fr_tramp_tail
    OPEN_FRAME
    SAVE_ARGS
    SAVE_TEMPS
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 1f
    SHADOW_POP
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 1f
    mov w0, w17
    mov w1, #2                      /* TAIL */
    blr x9
1:  RESTORE_TEMPS
    RESTORE_ARGS
    CLOSE_FRAME
    ret
END fr_tramp_tail

/* ------------------------------------------------------------------ log-args entry (kind 3)
 * handler_arg1(id, LOG_ARGS_ENTRY, first argument); without one, the plain handler gets
 * (id, LOG_ARGS_ENTRY), as in compiler-rt. */
FUNCTION fr_tramp_arg1
    OPEN_FRAME
    SAVE_ARGS
    /* Pushed only with a function handler (the exit trampoline pops only then): see the
     * x86-64 trampoline. */
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 3f
    SHADOW_PUSH
3:  LOAD_HANDLER x9, H_ARG1
    cbnz x9, 2f
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 1f
2:  ldr x2, [sp, #OFF_X0]           /* the first argument, as saved */
    mov w0, w17
    mov w1, #3                      /* LOG_ARGS_ENTRY */
    blr x9
1:  RESTORE_ARGS
    CLOSE_FRAME
    ret
END fr_tramp_arg1

/* ------------------------------------------------------------------ exit (kind 1)
 * Before the function's `ret`, or before a tail branch (see the top): everything is saved
 * before any register is used. */
FUNCTION fr_tramp_exit
    OPEN_FRAME
    SAVE_ARGS
    SAVE_TEMPS
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 1f
    SHADOW_POP
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 1f
    mov w0, w17
    mov w1, #1                      /* EXIT */
    blr x9
1:  RESTORE_TEMPS
    RESTORE_ARGS
    CLOSE_FRAME
    ret
END fr_tramp_exit

/* ------------------------------------------------------------------ far entries
 * What the islands jump to (sled_aarch64.c): the island pushed x16 to reach us; put it
 * back and be the trampoline. */
.macro FAR_ENTRY name, target
FUNCTION \name
    ldr x16, [sp], #16
    b \target
END \name
.endm
FAR_ENTRY fr_tramp_entry_far, fr_tramp_entry
FAR_ENTRY fr_tramp_exit_far, fr_tramp_exit
FAR_ENTRY fr_tramp_tail_far, fr_tramp_tail
FAR_ENTRY fr_tramp_arg1_far, fr_tramp_arg1

/* ------------------------------------------------------------------ event calls
 * Frame (688 bytes): 0 x29 x30, 16 x0..x18, 168 nzcv, 176 q0..q31, 688 end. */
#define EFRAME 688
.macro EVENT_TRAMPOLINE name, slot
    .p2align 4
    .globl \name
    .type \name, %function
\name:
    .cfi_startproc
    sub sp, sp, #EFRAME             /* beyond stp's pre-index range */
    .cfi_def_cfa_offset EFRAME
    stp x29, x30, [sp]
    .cfi_offset x29, -EFRAME
    .cfi_offset x30, -EFRAME+8
    mov x29, sp
    stp x0, x1, [sp, #16]
    stp x2, x3, [sp, #32]
    stp x4, x5, [sp, #48]
    stp x6, x7, [sp, #64]
    stp x8, x9, [sp, #80]
    stp x10, x11, [sp, #96]
    stp x12, x13, [sp, #112]
    stp x14, x15, [sp, #128]
    stp x16, x17, [sp, #144]
    mrs x9, nzcv
    stp x18, x9, [sp, #160]
    stp q0, q1, [sp, #176]
    stp q2, q3, [sp, #208]
    stp q4, q5, [sp, #240]
    stp q6, q7, [sp, #272]
    stp q8, q9, [sp, #304]
    stp q10, q11, [sp, #336]
    stp q12, q13, [sp, #368]
    stp q14, q15, [sp, #400]
    stp q16, q17, [sp, #432]
    stp q18, q19, [sp, #464]
    stp q20, q21, [sp, #496]
    stp q22, q23, [sp, #528]
    stp q24, q25, [sp, #560]
    stp q26, q27, [sp, #592]
    stp q28, q29, [sp, #624]
    stp q30, q31, [sp, #656]
    LOAD_HANDLER x9, \slot
    cbz x9, 1f
    blr x9                          /* x0-x2: the caller's arguments, untouched */
1:  ldp q0, q1, [sp, #176]
    ldp q2, q3, [sp, #208]
    ldp q4, q5, [sp, #240]
    ldp q6, q7, [sp, #272]
    ldp q8, q9, [sp, #304]
    ldp q10, q11, [sp, #336]
    ldp q12, q13, [sp, #368]
    ldp q14, q15, [sp, #400]
    ldp q16, q17, [sp, #432]
    ldp q18, q19, [sp, #464]
    ldp q20, q21, [sp, #496]
    ldp q22, q23, [sp, #528]
    ldp q24, q25, [sp, #560]
    ldp q26, q27, [sp, #592]
    ldp q28, q29, [sp, #624]
    ldp q30, q31, [sp, #656]
    ldp x18, x9, [sp, #160]
    msr nzcv, x9
    ldp x0, x1, [sp, #16]
    ldp x2, x3, [sp, #32]
    ldp x4, x5, [sp, #48]
    ldp x6, x7, [sp, #64]
    ldp x8, x9, [sp, #80]
    ldp x10, x11, [sp, #96]
    ldp x12, x13, [sp, #112]
    ldp x14, x15, [sp, #128]
    ldp x16, x17, [sp, #144]
    ldp x29, x30, [sp]
    add sp, sp, #EFRAME
    .cfi_def_cfa_offset 0
    ret
    .cfi_endproc
    .size \name, . - \name
.endm

/* void __xray_CustomEvent(void *data, size_t size) */
EVENT_TRAMPOLINE __xray_CustomEvent, H_CUSTOM
/* void __xray_TypedEvent(uint16_t type, const void *data, size_t size) */
EVENT_TRAMPOLINE __xray_TypedEvent, H_TYPED

    .section .note.GNU-stack, "", %progbits
