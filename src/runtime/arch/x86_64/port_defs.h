/*
 * port_defs.h (x86-64) - the inline half of the x86-64 port (see ../port.h): the time
 * stamp counter and the CPUID bits that say whether it can be used as the recorder's
 * clock, the thread-pointer load used for the rseq CPU id, and the constants the sled
 * code and the trampolines share. Everything here is inline and lock-free; the constants
 * are plain #defines so that trampolines_x86_64.S can include this file.
 */
#ifndef FLIGHTREC_ARCH_PORT_DEFS_H
#define FLIGHTREC_ARCH_PORT_DEFS_H

/* Largest number of bytes a sled write touches (for the pages to unprotect): the 11-byte
 * entry/exit sleds of sled_x86_64.c. */
#define FR_ARCH_SLED_SIZE 11
/* The return address sits right below the caller's stack pointer (the CFA). */
#define FR_ARCH_RETURN_SLOT_BELOW_CFA 8
/* libcalls: the relocation type of a PLT entry's GOT slot (R_X86_64_JUMP_SLOT). */
#define FR_ARCH_JUMP_SLOT_RELOC 7

/* A sled's call is a rel32: it reaches +-2 GiB. Beyond, sleds call an island (page of
 * far jumps, functrace/sled_islands.c) tried at 16 MiB steps, up to 1.5 GiB away from
 * the object; a slot: jmp *0(%rip), the address, 2 x int3 (sled_x86_64.c). */
#define FR_ARCH_CALL_REACH   0x7FFFFFFF
#define FR_ARCH_ISLAND_STEP  (16 << 20)
#define FR_ARCH_ISLAND_STEPS 96
#define FR_ARCH_ISLAND_SLOT  16

/* struct fr_sled_handlers' offsets, as the trampolines read them */
#include "arch/handler_offsets.h"

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <cpuid.h>

/* rdtsc is not serialising: records only need a monotonic per-thread order, and the
 * out-of-order overlap is what makes it cheap. */
static inline uint64_t fr_arch_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* CPUID 0x80000007 EDX bit 8: invariant TSC (constant rate, runs in every C/P state),
 * the condition for using it as a clock across CPUs and power states. */
static inline int fr_arch_tsc_invariant(void)
{
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
    return (edx >> 8) & 1;
}

/* The TSC's frequency is not published on the machines we target: 0 makes fr_clock_init
 * calibrate it against CLOCK_MONOTONIC. */
static inline uint64_t fr_arch_counter_hz(void)
{
    return 0;
}

/* The stack pointer of the function that called the one this is used in, at that call
 * (the CFA: the return address lies right below it). */
#define FR_ARCH_CALLER_SP() ((uint64_t)(uintptr_t)__builtin_dwarf_cfa())

/* Reads the 32-bit word at %fs:offset: the calling thread's rseq area lives at a fixed
 * offset from the thread pointer (glibc's __rseq_offset). */
static inline uint32_t fr_arch_load_tp_u32(long offset)
{
    uint32_t v;
    __asm__ volatile("movl %%fs:(%1), %0" : "=r"(v) : "r"(offset));
    return v;
}

/* The thread pointer, %fs's base: the TCB's first word points to itself. */
static inline uintptr_t fr_arch_thread_pointer(void)
{
    uintptr_t tp;
    __asm__("movq %%fs:0, %0" : "=r"(tp));
    return tp;
}

#endif /* __ASSEMBLER__ */
#endif
