/*
 * trampolines_x86_64.S - what patched XRay sleds call (see sled_x86_64.c for the sleds).
 *
 * A patched sled is `mov $id, %r10d; call/jmp trampoline`. When the installed handler
 * is the recorder (fr_record_function), entry, exit and tail exit take the fast path
 * first (below, "fast path"; the contract with the C recorder is core/fast_record.h):
 * the shadow stack's push or pop and the function record written inline, saving only
 * what they touch: rax rdx (rdtsc), rcx at entry, rcx and r11 at a tail exit (at an
 * exit rcx and r11 hold nothing). Otherwise, and whenever the fast path cannot
 * decide, each trampoline saves exactly what the place of its sled keeps live and a C
 * handler may clobber, calls the handler in fr_sled_handlers (skipped when it is NULL),
 * restores, returns:
 *   entry, log-args entry: the argument registers rdi rsi rdx rcx r8 r9, rax (al counts
 *                vector arguments of a variadic function), xmm0-7.
 *   tail exit:   the same plus r11: clang's indirect tail jump may hold its target in any
 *                of rax rcx rdx rsi rdi r8 r9 r11.
 *   exit:        the return registers rax rdx xmm0 xmm1; and for handlers other than the
 *                recorder, x87 st0/st1 when they hold a value (long double and complex
 *                long double returns): popped before the call so the handler starts with
 *                the empty x87 stack the ABI promises it, pushed back after.
 * At entry and tail sleds the stack is 16-byte aligned after the sled call's push (as
 * the ABI guarantees at a function's entry and before its tail jump); the exit sled
 * jumps instead of calling, so the exit trampoline starts like a function. Frames keep
 * the handler's call aligned.
 * r10 carries the id (clang never keeps a value in r10 across a sled), r11 is free at
 * entry and exit. The flags are not live at any sled (a call or a return is next).
 *
 * Shadow stack (functrace/shadow_stack.h): whenever a handler is installed, entry and
 * log-args entry push (return-address slot, id) and exit and tail exit pop it, inline:
 * one TLS load, a compare with the top entry, then three stores (depth, slot, id) at a
 * push and one (depth) at a pop. Anything else (a full stack, an exit that is not the
 * top entry, an entry at or above the top entry's slot) goes to fr_shadow_enter_slow /
 * fr_shadow_exit_slow, which may emit exits for dead frames through the handler first:
 * so it is called where the handler would be, with the same registers saved, and always
 * before this call's own record.
 *
 * What the handlers may touch, and why the saved sets suffice: the recorder
 * (fr_record_function and the shadow stack's C code) is built for the x86-64 baseline
 * (SSE2, no AVX), so it can change only the registers saved here and never the upper
 * halves of ymm/zmm registers. A handler set through the XRay API that uses AVX, or calls
 * a libc routine that ends in vzeroupper, would clear the upper halves of ymm0-7 (the
 * arguments of a function taking __m256) at entry, or of ymm0 (an __m256 result) at
 * exit: as in compiler-rt, such handlers are not supported; see docs/FUNCTRACE.md.
 *
 * __xray_CustomEvent / __xray_TypedEvent are called by clang's event sleds in the middle
 * of a function: every register and the flags may be live, and the stack is NOT aligned
 * (compiler-rt 14 crashes there). They realign, save the flags, all caller-saved
 * general registers and the whole x87/SSE/AVX/AVX-512 state the OS enabled (xsave with
 * the XCR0 mask: glibc's AVX2 memcpy in a handler ends in vzeroupper, which fxsave alone
 * would not undo; events are rare), then call.
 */

#include "port_defs.h"
#include "core/fast_record.h"
#include "functrace/shadow_stack.h"
#include "save_args_x86_64.h"
#define H_FUNCTION FR_ARCH_HANDLER_OFF_FUNCTION
#define H_ARG1     FR_ARCH_HANDLER_OFF_ARG1
#define H_CUSTOM   FR_ARCH_HANDLER_OFF_CUSTOM
#define H_TYPED    FR_ARCH_HANDLER_OFF_TYPED

    .text

/* SHADOW_PUSH off: the frame's return-address slot is at off(%rsp). Clobbers rax rcx rdx
 * rsi rdi r11 (saved by the caller); keeps r10. */
.macro SHADOW_PUSH off
    movq fr_shadow@GOTTPOFF(%rip), %r11
    movl %fs:FR_SHADOW_OFF_DEPTH(%r11), %eax
    leaq \off(%rsp), %rcx
    cmpl $FR_SHADOW_CAP, %eax
    jae 7f
    movq %rax, %rdx
    shlq $4, %rdx                   /* top entry e[depth-1] is at 16 * depth */
    testl %eax, %eax
    je 6f
    cmpq %rcx, %fs:(%r11,%rdx)      /* top.sp > slot: we are its callee, as usual */
    jbe 7f
6:  incl %eax
    movl %eax, %fs:FR_SHADOW_OFF_DEPTH(%r11)   /* depth first (see shadow_stack.h) */
    movq %rcx, %fs:FR_SHADOW_OFF_ENTRIES(%r11,%rdx)
    movq %r10, %fs:FR_SHADOW_OFF_ENTRIES+8(%r11,%rdx)   /* id, flags 0 (r10 = zero-extended id) */
    jmp 8f
7:  movl %r10d, %edi
    movq %rcx, %rsi
    pushq %r10
    .cfi_adjust_cfa_offset 8
    pushq %r10
    .cfi_adjust_cfa_offset 8
    call fr_shadow_enter_slow
    popq %r10
    .cfi_adjust_cfa_offset -8
    popq %r10
    .cfi_adjust_cfa_offset -8
8:
.endm

/* SHADOW_POP off: the same for an exit at the slot off(%rsp). Clobbers rcx rsi rdi, and
 * everything a C function may on the slow path (r11 included); keeps r10. */
.macro SHADOW_POP off
    movq fr_shadow@GOTTPOFF(%rip), %rcx
    movl %fs:FR_SHADOW_OFF_DEPTH(%rcx), %esi
    leal -1(%rsi), %edi
    cmpl $FR_SHADOW_CAP-1, %edi     /* depth 0, or frames beyond the stored ones */
    ja 7f
    shlq $4, %rsi
    leaq \off(%rsp), %rdi
    cmpq %rdi, %fs:(%rcx,%rsi)
    jne 7f
    cmpq %r10, %fs:8(%rcx,%rsi)     /* same id, flags 0 */
    jne 7f
    decl %fs:FR_SHADOW_OFF_DEPTH(%rcx)
    jmp 8f
7:  movl %r10d, %edi
    leaq \off(%rsp), %rsi
    pushq %r10
    .cfi_adjust_cfa_offset 8
    pushq %r10
    .cfi_adjust_cfa_offset 8
    call fr_shadow_exit_slow
    popq %r10
    .cfi_adjust_cfa_offset -8
    popq %r10
    .cfi_adjust_cfa_offset -8
8:
.endm

.macro FUNCTION name
    .p2align 4
    .globl \name
    .hidden \name
    .type \name, @function
\name:
    .cfi_startproc
.endm

.macro END name
    .cfi_endproc
    .size \name, . - \name
.endm

/* ------------------------------------------------------------------ fast path
 * When the handler is the recorder, entry, exit and tail exit first try to do all of it
 * here (core/fast_record.h is the contract with the C recorder): the shadow stack's push
 * or pop inline, then the function record written directly into the thread's buffer.
 * They save only what they touch: rax rdx (rdtsc), rcx, and r11 at a tail exit (it may
 * hold the tail jump's target); r10 is the id. Anything unusual (a shadow stack case the
 * inline code does not decide, a record the C path must write: busy, another session,
 * buffer full, CPU changed, delta too big) goes to the full path, which saves everything
 * a C function may clobber; a record left to C after the inline push or pop calls
 * fr_record_function alone (the shadow stack is done). Scratch in the macros below:
 * rax rcx rdx r11. */

    .section .rodata
    .p2align 3
.Ldelta_max:
    .quad 0xffffffff
    .text

/* SHADOW_PUSH_FAST off, slow: the push of SHADOW_PUSH when it needs no C (the stack not
 * full, the new slot below the top one); else jumps to slow with nothing changed. */
.macro SHADOW_PUSH_FAST off, slow
    movq fr_shadow@GOTTPOFF(%rip), %r11
    movl %fs:FR_SHADOW_OFF_DEPTH(%r11), %eax
    leaq \off(%rsp), %rcx
    cmpl $FR_SHADOW_CAP, %eax
    jae \slow
    movq %rax, %rdx
    shlq $4, %rdx                   /* top entry e[depth-1] is at 16 * depth */
    testl %eax, %eax
    je 6f
    cmpq %rcx, %fs:(%r11,%rdx)      /* top.sp > slot: we are its callee, as usual */
    jbe \slow
6:  incl %eax
    movl %eax, %fs:FR_SHADOW_OFF_DEPTH(%r11)   /* depth first (see shadow_stack.h) */
    movq %rcx, %fs:FR_SHADOW_OFF_ENTRIES(%r11,%rdx)
    movq %r10, %fs:FR_SHADOW_OFF_ENTRIES+8(%r11,%rdx)   /* id, flags 0 */
.endm

/* SHADOW_POP_FAST off, slow: the pop of SHADOW_POP when the exit is the top entry's;
 * else jumps to slow with nothing changed. */
.macro SHADOW_POP_FAST off, slow
    movq fr_shadow@GOTTPOFF(%rip), %r11
    movl %fs:FR_SHADOW_OFF_DEPTH(%r11), %eax
    leal -1(%rax), %edx
    cmpl $FR_SHADOW_CAP-1, %edx     /* depth 0, or frames beyond the stored ones */
    ja \slow
    shlq $4, %rax
    leaq \off(%rsp), %rcx
    cmpq %rcx, %fs:(%r11,%rax)
    jne \slow
    cmpq %r10, %fs:8(%r11,%rax)     /* same id, flags 0 */
    jne \slow
    movl %edx, %fs:FR_SHADOW_OFF_DEPTH(%r11)
.endm

/* RECORD_FAST kindbits, slow_busy, slow: the function record (kind << 1 = kindbits) of
 * fast_record.h. slow_busy: go to C with busy to be cleared (r11 = fr_tls's offset);
 * slow: go to C, nothing changed. */
.macro RECORD_FAST kindbits, slow_busy, slow
    movq fr_tls@GOTTPOFF(%rip), %r11
    cmpl $0, %fs:FR_THREAD_OFF_BUSY(%r11)
    jne \slow                       /* nested: the C path counts the drop */
    movl $1, %fs:FR_THREAD_OFF_BUSY(%r11)
    movl fr_recording(%rip), %eax   /* after busy is set (the stopper's protocol) */
    testl %eax, %eax
    je 5f                           /* not recording: nothing to write */
    cmpl %eax, %fs:FR_THREAD_OFF_FAST_SESSION(%r11)
    jne \slow_busy
    cmpl $FR_FAST_MAX_FUNCTION_ID, %r10d
    ja \slow_busy
    movq %fs:FR_THREAD_OFF_POS(%r11), %rcx
    leaq 8(%rcx), %rax
    cmpq %fs:FR_THREAD_OFF_END(%r11), %rax
    ja \slow_busy                   /* no room (or no buffer: pos, end NULL) */
    rdtsc
    shlq $32, %rdx
    orq %rdx, %rax                  /* the clock */
    movq fr_cpu_fast_offset(%rip), %rdx
    movl %fs:(%rdx), %edx
    cmpl %edx, %fs:FR_THREAD_OFF_CPU(%r11)
    jne \slow_busy                  /* migrated: NewCPUId first */
    movq %rax, %rdx
    subq %fs:FR_THREAD_OFF_LAST_TSC(%r11), %rdx
    cmpq .Ldelta_max(%rip), %rdx
    ja \slow_busy                   /* the delta does not fit: TSCWrap first */
    shlq $28, %rdx                  /* delta << 32 | id << 4 | kind << 1 */
    orq %r10, %rdx
    shlq $4, %rdx
    .if \kindbits
    orq $\kindbits, %rdx
    .endif
    movq %rdx, (%rcx)
    addq $8, %rcx
    movq %rcx, %fs:FR_THREAD_OFF_POS(%r11)   /* after the record's bytes */
    movq %rax, %fs:FR_THREAD_OFF_LAST_TSC(%r11)
    incq %fs:FR_THREAD_OFF_RECORDS(%r11)
5:  movl $0, %fs:FR_THREAD_OFF_BUSY(%r11)
.endm

/* The fast path's saved registers, with their unwind information. */
.macro SAVE_SCRATCH
    pushq %rax
    .cfi_adjust_cfa_offset 8
    pushq %rdx
    .cfi_adjust_cfa_offset 8
    pushq %rcx
    .cfi_adjust_cfa_offset 8
.endm
.macro RESTORE_SCRATCH
    popq %rcx
    .cfi_adjust_cfa_offset -8
    popq %rdx
    .cfi_adjust_cfa_offset -8
    popq %rax
    .cfi_adjust_cfa_offset -8
.endm

/* The record through C after the inline shadow stack: every argument register saved. */
.macro RECORD_IN_C kind
    SAVE_ARGS
    movl %r10d, %edi
    movl $\kind, %esi
    call fr_record_function
    RESTORE_ARGS
    ret
.endm

/* ------------------------------------------------------------------ entry (kind 0) */
FUNCTION fr_tramp_entry
    leaq fr_record_function(%rip), %r11
    cmpq %r11, fr_sled_handlers+H_FUNCTION(%rip)
    jne .Lentry_other
    SAVE_SCRATCH
    SHADOW_PUSH_FAST 32, .Lentry_push_slow   /* 3 saved + our return address */
    RECORD_FAST 0, .Lentry_record_busy, .Lentry_record_slow
    RESTORE_SCRATCH
    ret
    .cfi_adjust_cfa_offset 24
.Lentry_record_busy:
    movl $0, %fs:FR_THREAD_OFF_BUSY(%r11)
.Lentry_record_slow:
    RESTORE_SCRATCH
    RECORD_IN_C 0                   /* ENTRY */
    .cfi_adjust_cfa_offset 24
.Lentry_push_slow:                  /* nothing done: the full path */
    RESTORE_SCRATCH
    jmp .Lentry_full
.Lentry_other:                      /* another handler, or none */
    cmpq $0, fr_sled_handlers+H_FUNCTION(%rip)
    je 9f
.Lentry_full:
    SAVE_ARGS
    SHADOW_PUSH 200                 /* 192 saved + our return address */
    movq fr_sled_handlers+H_FUNCTION(%rip), %rax
    testq %rax, %rax
    je 1f
    movl %r10d, %edi
    xorl %esi, %esi                 /* ENTRY */
    call *%rax
1:  RESTORE_ARGS
9:  ret
END fr_tramp_entry

/* ------------------------------------------------------------------ tail exit (kind 2)
 * r11 may hold the tail jump's target: saved before anything uses it. */
FUNCTION fr_tramp_tail
    pushq %r11
    .cfi_adjust_cfa_offset 8
    leaq fr_record_function(%rip), %r11
    cmpq %r11, fr_sled_handlers+H_FUNCTION(%rip)
    jne .Ltail_other
    SAVE_SCRATCH
    SHADOW_POP_FAST 40, .Ltail_pop_slow     /* 4 saved + our return address */
    RECORD_FAST 4, .Ltail_record_busy, .Ltail_record_slow
    RESTORE_SCRATCH
    popq %r11
    .cfi_adjust_cfa_offset -8
    ret
    .cfi_adjust_cfa_offset 32
.Ltail_record_busy:
    movl $0, %fs:FR_THREAD_OFF_BUSY(%r11)
.Ltail_record_slow:
    RESTORE_SCRATCH
    popq %r11
    .cfi_adjust_cfa_offset -8
    RECORD_IN_C 2                   /* TAIL */
    .cfi_adjust_cfa_offset 32
.Ltail_pop_slow:                    /* nothing done: the full path */
    RESTORE_SCRATCH
    popq %r11
    .cfi_adjust_cfa_offset -8
    jmp .Ltail_full
    .cfi_adjust_cfa_offset 8
.Ltail_other:                       /* another handler, or none */
    popq %r11
    .cfi_adjust_cfa_offset -8
    cmpq $0, fr_sled_handlers+H_FUNCTION(%rip)
    je 9f
.Ltail_full:
    SAVE_ARGS
    SHADOW_POP 200
    movq fr_sled_handlers+H_FUNCTION(%rip), %rax
    testq %rax, %rax
    je 1f
    movl %r10d, %edi
    movl $2, %esi                   /* TAIL */
    call *%rax
1:  RESTORE_ARGS
9:  ret
END fr_tramp_tail

/* ------------------------------------------------------------------ log-args entry (kind 3)
 * handler_arg1(id, LOG_ARGS_ENTRY, first argument); without one, the plain handler gets
 * (id, LOG_ARGS_ENTRY), as in compiler-rt. */
FUNCTION fr_tramp_arg1
    SAVE_ARGS
    /* The frame goes on the shadow stack only when its exit will be seen, i.e. with a
     * function handler (the exit trampoline pops only then): with an arg1 handler alone
     * it would stay open, and a later handler would get an exit compiler-rt never gives. */
    cmpq $0, fr_sled_handlers+H_FUNCTION(%rip)
    je 3f
    SHADOW_PUSH 200
3:  movq fr_sled_handlers+H_ARG1(%rip), %rax
    testq %rax, %rax
    jne 2f
    movq fr_sled_handlers+H_FUNCTION(%rip), %rax
    testq %rax, %rax
    je 1f
2:  movq 128(%rsp), %rdx            /* the first argument, as saved */
    movl %r10d, %edi
    movl $3, %esi                   /* LOG_ARGS_ENTRY */
    call *%rax
1:  RESTORE_ARGS
    ret
END fr_tramp_arg1

/* ------------------------------------------------------------------ exit (kind 1)
 * Reached by a jmp (the sled replaces the ret), so the stack is as at a function's entry:
 * the frame is 8 mod 16 bytes. Frame (104 bytes): 0 xmm0, 16 xmm1, 32 rax, 40 rdx,
 * 48 st0, 64 st1, 80 x87 count.
 * x87: the recorder (fr_record_function, C without long double) never touches the x87
 * stack, so st0/st1 pass through it untouched. Any other handler gets the full
 * treatment: values on the x87 stack are popped first and pushed back after, so it may
 * use x87 freely. (fxam + fnstsw cost ~15 ns each here: not on the recorder's path.) */
#define X87_EMPTY_TEST \
    fxam; fnstsw %ax; andw $0x4500, %ax; cmpw $0x4100, %ax   /* C3,C0 set = empty */

FUNCTION fr_tramp_exit
    leaq fr_record_function(%rip), %r11
    cmpq %r11, fr_sled_handlers+H_FUNCTION(%rip)
    jne .Lexit_other
    pushq %rax                      /* the return registers rdtsc needs; rcx, r11 are */
    .cfi_adjust_cfa_offset 8        /* free at a function's return */
    pushq %rdx
    .cfi_adjust_cfa_offset 8
    SHADOW_POP_FAST 16, .Lexit_pop_slow     /* 2 saved + our return address */
    RECORD_FAST 2, .Lexit_record_busy, .Lexit_record_slow
    popq %rdx
    .cfi_adjust_cfa_offset -8
    popq %rax
    .cfi_adjust_cfa_offset -8
    ret
    .cfi_adjust_cfa_offset 16
.Lexit_record_busy:
    movl $0, %fs:FR_THREAD_OFF_BUSY(%r11)
.Lexit_record_slow:                 /* rax rdx pushed: xmm0 xmm1 too (C may use them) */
    subq $40, %rsp                  /* 0 xmm0, 16 xmm1, 32 r10; aligned for the call */
    .cfi_adjust_cfa_offset 40
    movups %xmm0, 0(%rsp)
    movups %xmm1, 16(%rsp)
    jmp 2f
    .cfi_adjust_cfa_offset -40
.Lexit_pop_slow:                    /* the shadow stack's C, then the record's */
    subq $40, %rsp
    .cfi_adjust_cfa_offset 40
    movups %xmm0, 0(%rsp)
    movups %xmm1, 16(%rsp)
    movq %r10, 32(%rsp)
    movl %r10d, %edi
    leaq 56(%rsp), %rsi             /* the return-address slot */
    call fr_shadow_exit_slow
    movq 32(%rsp), %r10
2:  movl %r10d, %edi
    movl $1, %esi                   /* EXIT */
    call fr_record_function
    movups 0(%rsp), %xmm0
    movups 16(%rsp), %xmm1
    addq $40, %rsp
    .cfi_adjust_cfa_offset -40
    popq %rdx
    .cfi_adjust_cfa_offset -8
    popq %rax
    .cfi_adjust_cfa_offset -8
    ret
.Lexit_other:                       /* another handler (x87 kept), or none */
    movq fr_sled_handlers+H_FUNCTION(%rip), %r11
    testq %r11, %r11
    je 9f
    subq $104, %rsp
    .cfi_adjust_cfa_offset 104
    movups %xmm0, 0(%rsp)
    movups %xmm1, 16(%rsp)
    movq %rax, 32(%rsp)
    movq %rdx, 40(%rsp)
    xorl %edx, %edx                 /* values on the x87 stack saved around the handler */
    X87_EMPTY_TEST
    je 1f
    fstpt 48(%rsp)
    incl %edx
    X87_EMPTY_TEST
    je 1f
    fstpt 64(%rsp)
    incl %edx
1:  movq %rdx, 80(%rsp)
    SHADOW_POP 104
    movq fr_sled_handlers+H_FUNCTION(%rip), %r11   /* reloaded: the slow path may clobber it */
    testq %r11, %r11
    je 2f
    movl %r10d, %edi
    movl $1, %esi                   /* EXIT */
    call *%r11
2:
    movq 80(%rsp), %rdx
    testl %edx, %edx
    je 4f
    cmpl $1, %edx
    je 3f
    fldt 64(%rsp)
3:  fldt 48(%rsp)
4:  movups 0(%rsp), %xmm0
    movups 16(%rsp), %xmm1
    movq 32(%rsp), %rax
    movq 40(%rsp), %rdx
    addq $104, %rsp
    .cfi_adjust_cfa_offset -104
9:  ret
END fr_tramp_exit

/* ------------------------------------------------------------------ event calls */
/* General registers are pushed below the saved flags (rbp-relative, before realigning);
 * the vector state goes into an area aligned for xsave: the XCR0 components
 * (fr_arch_xsave_mask, size fr_arch_xsave_size from CPUID 0xD, set at start-up), or the
 * 512-byte fxsave area when xsave is not available or not yet probed. */
.macro EVENT_TRAMPOLINE name, slot
    .p2align 4
    .globl \name
    .type \name, @function
\name:
    .cfi_startproc
    pushq %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    pushfq
    pushq %rax
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    cld                             /* the handler may assume DF=0, as the ABI says */
    movl fr_arch_xsave_size(%rip), %eax
    testl %eax, %eax
    je 2f
    subq %rax, %rsp
    andq $-64, %rsp
    /* xrstor faults unless the header's XCOMP_BV and reserved bytes are zero, and
     * xsave writes only XSTATE_BV there. */
    xorl %ecx, %ecx
    movq %rcx, 512(%rsp)
    movq %rcx, 520(%rsp)
    movq %rcx, 528(%rsp)
    movq %rcx, 536(%rsp)
    movq %rcx, 544(%rsp)
    movq %rcx, 552(%rsp)
    movq %rcx, 560(%rsp)
    movq %rcx, 568(%rsp)
    movl fr_arch_xsave_mask(%rip), %eax
    movl fr_arch_xsave_mask+4(%rip), %edx
    xsave64 0(%rsp)
    movq fr_sled_handlers+\slot(%rip), %rax
    testq %rax, %rax
    je 1f
    movq -48(%rbp), %rdi            /* the handler's arguments, as the caller passed them */
    movq -40(%rbp), %rsi
    movq -32(%rbp), %rdx
    call *%rax
1:  movl fr_arch_xsave_mask(%rip), %eax
    movl fr_arch_xsave_mask+4(%rip), %edx
    xrstor64 0(%rsp)
    jmp 4f
2:  subq $512, %rsp
    andq $-16, %rsp
    fxsave64 0(%rsp)
    movq fr_sled_handlers+\slot(%rip), %rax
    testq %rax, %rax
    je 3f
    movq -48(%rbp), %rdi
    movq -40(%rbp), %rsi
    movq -32(%rbp), %rdx
    call *%rax
3:  fxrstor64 0(%rsp)
4:  leaq -80(%rbp), %rsp
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rax
    popfq
    popq %rbp
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .size \name, . - \name
.endm

/* void __xray_CustomEvent(void *data, size_t size) */
EVENT_TRAMPOLINE __xray_CustomEvent, H_CUSTOM
/* void __xray_TypedEvent(uint16_t type, const void *data, size_t size) */
EVENT_TRAMPOLINE __xray_TypedEvent, H_TYPED

    .section .note.GNU-stack, "", @progbits
