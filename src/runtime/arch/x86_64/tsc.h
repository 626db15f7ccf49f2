/*
 * tsc.h (x86-64) - the time stamp counter and the CPUID bits that say whether it can be
 * used as the recorder's clock. Everything here is inline and lock-free.
 */
#ifndef FLIGHTREC_ARCH_TSC_H
#define FLIGHTREC_ARCH_TSC_H

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

/* Reads the 32-bit word at %fs:offset: the calling thread's rseq area lives at a fixed
 * offset from the thread pointer (glibc's __rseq_offset). */
static inline uint32_t fr_arch_load_tp_u32(long offset)
{
    uint32_t v;
    __asm__ volatile("movl %%fs:(%1), %0" : "=r"(v) : "r"(offset));
    return v;
}

#endif
