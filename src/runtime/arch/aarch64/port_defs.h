/*
 * port_defs.h (aarch64) - the inline half of the aarch64 port (see ../port.h): the
 * generic timer's virtual counter (cntvct_el0) as the cycle counter, with the frequency
 * the architecture publishes in cntfrq_el0 (no calibration), the thread-pointer load
 * used for the rseq CPU id, and the constants the sled code and the trampolines share.
 * Everything here is inline and lock-free; the constants are plain #defines so that
 * trampolines_aarch64.S can include this file.
 */
#ifndef FLIGHTREC_ARCH_PORT_DEFS_H
#define FLIGHTREC_ARCH_PORT_DEFS_H

/* Bytes a sled write touches: XRay's aarch64 sleds are 8 instructions (sled_aarch64.c). */
#define FR_ARCH_SLED_SIZE 32
/* The shadow stack's "slot" of an XRay frame. aarch64 keeps the return address in x30,
 * not on the stack, so the trampolines use the function's stack pointer at its sled
 * minus 8: like x86-64's return-address slot, it lies 8 below the frame's CFA and 8
 * below the caller's stack pointer at the call, so the shadow stack's rules (a callee's
 * slot lies strictly below every live caller's stack pointer) hold unchanged. */
#define FR_ARCH_RETURN_SLOT_BELOW_CFA 8

/* A sled's call is a `bl`: it reaches +-128 MiB. Beyond, sleds call an island (page of
 * far jumps, functrace/sled_islands.c) tried at 1 MiB steps, up to 120 MiB away from
 * the object; a slot: str x16; ldr x16, =far entry; br x16; brk, the address
 * (sled_aarch64.c). */
#define FR_ARCH_CALL_REACH   (128 << 20)
#define FR_ARCH_ISLAND_STEP  (1 << 20)
#define FR_ARCH_ISLAND_STEPS 120
#define FR_ARCH_ISLAND_SLOT  32
/* libcalls: the relocation type of a PLT entry's GOT slot (R_AARCH64_JUMP_SLOT); the
 * stubs are libcall_aarch64.S. */
#define FR_ARCH_JUMP_SLOT_RELOC 1026

/* struct fr_sled_handlers' offsets, as the trampolines read them */
#include "arch/handler_offsets.h"

#ifndef __ASSEMBLER__
#include <stdint.h>

/* The virtual counter: constant rate, shared by every CPU (the architecture requires it),
 * readable at EL0 on Linux. Like rdtsc it is not ordered with the loads and stores
 * around it: records only need a per-thread order. */
static inline uint64_t fr_arch_rdtsc(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}

/* The generic timer always counts at one rate in every power state. */
static inline int fr_arch_tsc_invariant(void)
{
    return 1;
}

/* The counter's frequency in Hz as the firmware set cntfrq_el0 (0 if it did not: the
 * clock is then calibrated against CLOCK_MONOTONIC, as on x86-64). */
static inline uint64_t fr_arch_counter_hz(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
    return v & 0xFFFFFFFFu;   /* the upper half is RES0 */
}

/* The stack pointer of the function that called the one this is used in, at that call
 * (the CFA): where the shadow stack's and the unwind hooks' frames are measured from.
 * clang's __builtin_dwarf_cfa gives the frame pointer on aarch64 (16 bytes or more below
 * the CFA: a catch then closed the catching frame itself); its __builtin_sponentry is
 * the stack pointer at entry. gcc's __builtin_dwarf_cfa is the CFA. */
#ifdef __clang__
#define FR_ARCH_CALLER_SP() ((uint64_t)(uintptr_t)__builtin_sponentry())
#else
#define FR_ARCH_CALLER_SP() ((uint64_t)(uintptr_t)__builtin_dwarf_cfa())
#endif

/* Reads the 32-bit word at tpidr_el0 + offset: glibc's __rseq_offset is relative to the
 * thread pointer. */
static inline uint32_t fr_arch_load_tp_u32(long offset)
{
    uintptr_t tp;
    __asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
    return *(volatile const uint32_t *)(tp + (uintptr_t)offset);
}

/* The thread pointer. */
static inline uintptr_t fr_arch_thread_pointer(void)
{
    uintptr_t tp;
    __asm__("mrs %0, tpidr_el0" : "=r"(tp));
    return tp;
}

#endif /* __ASSEMBLER__ */
#endif
