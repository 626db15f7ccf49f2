/*
 * cpu_id.h - the CPU the calling thread runs on, read from its rseq area (a plain load:
 * the kernel keeps rseq->cpu_id current). rdtscp/rdpid are not usable on our VMs (they
 * return the host's value) and sched_getcpu costs 5x more.
 */
#ifndef FLIGHTREC_CPU_ID_H
#define FLIGHTREC_CPU_ID_H

#include <stdint.h>
#include "arch/port.h"
#include "core/visibility.h"

/* %fs-relative offset of rseq->cpu_id, or -1 when glibc did not register rseq. */
extern FR_HIDDEN long fr_cpu_rseq_offset;
/* Thread-pointer-relative offset of the 32-bit word the trampolines' fast path compares
 * with the thread's cpu (core/fast_record.h): rseq->cpu_id, or, without rseq (qemu-user,
 * glibc.pthread.rseq=0), a thread-local word that is always 0, which is what fr_cpu_raw
 * returns then. Set by fr_cpu_init, before any session starts. */
extern FR_HIDDEN long fr_cpu_fast_offset;

FR_HIDDEN void fr_cpu_init(void);

/* Raw rseq cpu_id (compare it to detect a migration); 0 when rseq is unavailable. */
static inline uint32_t fr_cpu_raw(void)
{
    if (__builtin_expect(fr_cpu_rseq_offset >= 0, 1))
        return fr_arch_load_tp_u32(fr_cpu_rseq_offset);
    return 0;
}

/* The CPU number written in NewCPUId records: (uint32)-1/-2 (rseq not registered /
 * registration failed) become 0, so the file then shows a single CPU. */
static inline uint16_t fr_cpu_number(uint32_t raw)
{
    return raw < 0xFFFFu ? (uint16_t)raw : 0;
}

#endif
