/*
 * trampolines_aarch64.S - what patched XRay sleds call (see sled_aarch64.c for the sleds).
 *
 * A patched sled is `stp x17, x30, [sp, #-16]!; mov w17, #id; bl trampoline;
 * ldp x17, x30, [sp], #16`: the trampoline starts with the id in w17, the sled's 16 bytes
 * below the function's stack pointer, and x30 pointing back into the sled. When the
 * installed handler is the recorder (fr_record_function), entry, exit and tail exit take
 * the fast path first (below, "fast path"; the contract with the C recorder is
 * core/fast_record.h): the shadow stack's push or pop and the function record written
 * inline with x9-x14 only, saved at exits. Otherwise, and whenever the fast path cannot
 * decide, each trampoline saves what the place of its sled keeps live and a C handler may
 * clobber, calls the handler in fr_sled_handlers (skipped when it is NULL), restores,
 * returns:
 *   entry, log-args entry: the argument registers x0-x7, x8 (the indirect result
 *                address), v0-v7 (whole 128 bits), x16 (see the islands in sled_aarch64.c).
 *   exit, tail exit: the same plus x9-x15 and x18: an indirect tail branch may hold its
 *                target in any caller-saved register, and clang 14 marks aarch64 tail
 *                sleds as plain exits in the instrumentation map, so the exit trampoline
 *                may sit before a tail branch too. (Results come back in x0-x7, v0-v7.)
 * x17 belongs to the sled (it saved and restores it); x9-x15 are dead at entry sleds and
 * serve as scratch there before anything is saved. The flags are not live at any sled (a
 * return or a call is next), as on x86-64. Every trampoline's full path builds a frame
 * record (x29, x30), so frame-pointer walks pass through it; the fast path calls nothing.
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
#include "core/fast_record.h"
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

/* ------------------------------------------------------------------ fast path
 * When the handler is the recorder, entry, exit and tail exit first try to do all of it
 * here (core/fast_record.h is the contract with the C recorder): the shadow stack's push
 * or pop inline, then the function record written directly into the thread's buffer.
 * They use x9-x14 only (x10 holds the thread pointer throughout): at entry those are
 * dead (the full path clobbers them too), at exits they are saved first, in 48 bytes.
 * Anything unusual (a shadow stack case the inline code does not decide, a record the C
 * path must write: busy, another session, buffer full, CPU changed, delta too big) goes
 * to the full path, which saves everything a C function may clobber; a record left to C
 * after the inline push or pop calls fr_record_function alone (the shadow stack is
 * done). The id is read from w17 where it is needed (movz/movk leave x17's upper half 0,
 * but nothing here relies on that). */

#if FR_THREAD_OFF_POS != 0
#error "the fast path publishes pos with stlr at fr_tls + 0"
#endif
#define FAST_SAVE 48    /* x9-x14 at exits */
/* The slot from the fast path's sp: the sled's 16 bytes, and at exits FAST_SAVE. */
#define SLOT_AT_ENTRY (16 - FR_ARCH_RETURN_SLOT_BELOW_CFA)
#define SLOT_AT_EXIT  (FAST_SAVE + 16 - FR_ARCH_RETURN_SLOT_BELOW_CFA)

/* Goes to other (x9 = the handler) unless the handler is the recorder. */
.macro IF_NOT_RECORDER other
    LOAD_HANDLER x9, H_FUNCTION
    adrp x12, fr_record_function
    add x12, x12, #:lo12:fr_record_function
    cmp x9, x12
    b.ne \other
.endm

/* x10 := the thread pointer, x11 := &fr_shadow */
.macro SHADOW_ADDR_FAST
    mrs x10, tpidr_el0
    adrp x11, :gottprel:fr_shadow
    ldr x11, [x11, #:gottprel_lo12:fr_shadow]
    add x11, x10, x11
.endm

/* SHADOW_PUSH_FAST slot, slow: SHADOW_PUSH's push when it needs no C (the stack not
 * full, the new slot, sp + slot, below the top one); else jumps to slow with nothing
 * changed. */
.macro SHADOW_PUSH_FAST slot, slow
    SHADOW_ADDR_FAST
    ldr w12, [x11, #FR_SHADOW_OFF_DEPTH]
    add x9, sp, #\slot
    cmp w12, #FR_SHADOW_CAP
    b.hs \slow
    add x13, x11, x12, lsl #4       /* the top entry e[depth-1] is at 16 * depth */
    cbz w12, 6f
    ldr x14, [x13]
    cmp x14, x9                     /* top.sp > slot: we are its callee, as usual */
    b.ls \slow
6:  add w12, w12, #1
    str w12, [x11, #FR_SHADOW_OFF_DEPTH]    /* depth first (see shadow_stack.h) */
    mov w14, w17                    /* id, flags 0 */
    stp x9, x14, [x13, #FR_SHADOW_OFF_ENTRIES]
.endm

/* SHADOW_POP_FAST slot, slow: SHADOW_POP's pop when the exit is the top entry's; else
 * jumps to slow with nothing changed. */
.macro SHADOW_POP_FAST slot, slow
    SHADOW_ADDR_FAST
    ldr w12, [x11, #FR_SHADOW_OFF_DEPTH]
    sub w13, w12, #1
    cmp w13, #FR_SHADOW_CAP-1       /* depth 0, or frames beyond the stored ones */
    b.hi \slow
    add x12, x11, x12, lsl #4
    ldp x9, x14, [x12]              /* the top entry: sp, then id and flags */
    add x12, sp, #\slot
    cmp x9, x12
    b.ne \slow
    cmp x14, w17, uxtw              /* same id, flags 0 */
    b.ne \slow
    str w13, [x11, #FR_SHADOW_OFF_DEPTH]
.endm

/* RECORD_FAST kindbits, slow_busy, slow: the function record (kind << 1 = kindbits) of
 * fast_record.h, x10 the thread pointer. slow_busy: go to C with busy to be cleared
 * (x11 = &fr_tls); slow: go to C, nothing changed. */
.macro RECORD_FAST kindbits, slow_busy, slow
    adrp x11, :gottprel:fr_tls
    ldr x11, [x11, #:gottprel_lo12:fr_tls]
    add x11, x10, x11
    ldr w9, [x11, #FR_THREAD_OFF_BUSY]
    cbnz w9, \slow                  /* nested: the C path counts the drop */
    mov w9, #1
    str w9, [x11, #FR_THREAD_OFF_BUSY]
    adrp x9, fr_recording
    add x9, x9, #:lo12:fr_recording
    ldar w9, [x9]                   /* after busy is set (the stopper's protocol) */
    cbz w9, 5f                      /* not recording: nothing to write */
    ldr w12, [x11, #FR_THREAD_OFF_FAST_SESSION]
    cmp w12, w9
    b.ne \slow_busy
    lsr w9, w17, #28                /* id > FR_FAST_MAX_FUNCTION_ID (0x0FFFFFFF) */
    cbnz w9, \slow_busy
    ldp x12, x13, [x11, #FR_THREAD_OFF_POS]  /* pos, end */
    add x12, x12, #8
    cmp x12, x13
    b.hi \slow_busy                 /* no room (or no buffer: pos, end NULL) */
    mrs x13, cntvct_el0             /* the clock, as fr_arch_rdtsc reads it */
    adrp x9, fr_cpu_fast_offset
    ldr x9, [x9, #:lo12:fr_cpu_fast_offset]
    ldr w9, [x10, x9]
    ldr w14, [x11, #FR_THREAD_OFF_CPU]
    cmp w14, w9
    b.ne \slow_busy                 /* migrated: NewCPUId first */
    ldr x14, [x11, #FR_THREAD_OFF_LAST_TSC]
    sub x14, x13, x14
    lsr x9, x14, #32
    cbnz x9, \slow_busy             /* the delta does not fit: TSCWrap first */
    lsl w9, w17, #4                 /* delta << 32 | id << 4 | kind << 1 */
    orr x9, x9, x14, lsl #32
    .if \kindbits
    orr x9, x9, #\kindbits
    .endif
    str x9, [x12, #-8]
    stlr x12, [x11]                 /* pos, after the record's bytes */
    str x13, [x11, #FR_THREAD_OFF_LAST_TSC]
    ldr x9, [x11, #FR_THREAD_OFF_RECORDS]
    add x9, x9, #1
    str x9, [x11, #FR_THREAD_OFF_RECORDS]
5:  add x9, x11, #FR_THREAD_OFF_BUSY
    stlr wzr, [x9]                  /* busy = 0, after the state (guard_leave) */
.endm

/* Clears busy for a record RECORD_FAST leaves to C (x11 = &fr_tls). */
.macro CLEAR_BUSY
    add x9, x11, #FR_THREAD_OFF_BUSY
    stlr wzr, [x9]
.endm

/* The exits' saved scratch, with its unwind information. */
.macro SAVE_FAST
    stp x9, x10, [sp, #-FAST_SAVE]!
    .cfi_def_cfa_offset FAST_SAVE
    stp x11, x12, [sp, #16]
    stp x13, x14, [sp, #32]
.endm
.macro RESTORE_FAST
    ldp x11, x12, [sp, #16]
    ldp x13, x14, [sp, #32]
    ldp x9, x10, [sp], #FAST_SAVE
    .cfi_def_cfa_offset 0
.endm

/* ------------------------------------------------------------------ entry (kind 0) */
FUNCTION fr_tramp_entry
    IF_NOT_RECORDER .Lentry_other
    SHADOW_PUSH_FAST SLOT_AT_ENTRY, .Lentry_full
    RECORD_FAST 0, .Lentry_record_busy, .Lentry_record_c
    ret
.Lentry_record_busy:
    CLEAR_BUSY
.Lentry_record_c:                   /* the record through C, the shadow stack done */
    .cfi_remember_state
    OPEN_FRAME
    SAVE_ARGS
    mov w0, w17
    mov w1, #0                      /* ENTRY */
    bl fr_record_function
    b 1f
    .cfi_restore_state
.Lentry_other:                      /* another handler, or none */
    cbz x9, 9f
.Lentry_full:
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

/* ------------------------------------------------------------------ exit (kind 1), tail exit (kind 2)
 * The exit sled sits before the function's `ret`, the tail sled before a tail branch, and
 * clang 14 marks aarch64 tail sleds as plain exits (see the top): both save every
 * register before using it. */
.macro EXIT_TRAMPOLINE name, kind
FUNCTION \name
    SAVE_FAST
    IF_NOT_RECORDER 2f
    SHADOW_POP_FAST SLOT_AT_EXIT, 2f
    RECORD_FAST (\kind << 1), 3f, 4f
    RESTORE_FAST
    ret
    .cfi_def_cfa_offset FAST_SAVE
3:  CLEAR_BUSY
    .cfi_remember_state
4:  RESTORE_FAST                    /* the record through C, the shadow stack done */
    OPEN_FRAME
    SAVE_ARGS
    SAVE_TEMPS
    mov w0, w17
    mov w1, #\kind
    bl fr_record_function
    b 1f
    .cfi_restore_state
2:  RESTORE_FAST                    /* another handler, none, or the full path */
    OPEN_FRAME
    SAVE_ARGS
    SAVE_TEMPS
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 1f
    SHADOW_POP
    LOAD_HANDLER x9, H_FUNCTION
    cbz x9, 1f
    mov w0, w17
    mov w1, #\kind
    blr x9
1:  RESTORE_TEMPS
    RESTORE_ARGS
    CLOSE_FRAME
    ret
END \name
.endm

EXIT_TRAMPOLINE fr_tramp_exit, 1
EXIT_TRAMPOLINE fr_tramp_tail, 2

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
