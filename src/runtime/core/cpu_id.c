/* cpu_id.c - finds the rseq area glibc (2.35+) registered for every thread. */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/rseq.h>
#include "core/cpu_id.h"

long fr_cpu_rseq_offset = -1;
long fr_cpu_fast_offset;

/* The fast path's CPU word without rseq: never written, so 0 in every thread. */
static __thread uint32_t cpu_none __attribute__((tls_model("initial-exec")));

void fr_cpu_init(void)
{
    /* __rseq_size is 0 when registration was disabled (glibc.pthread.rseq=0) or failed. */
    if (__rseq_size >= offsetof(struct rseq, cpu_id) + sizeof(uint32_t))
        fr_cpu_rseq_offset = (long)__rseq_offset + (long)offsetof(struct rseq, cpu_id);
    else
        fr_cpu_rseq_offset = -1;
    /* Initial-exec TLS lies at the same offset from every thread's thread pointer. */
    fr_cpu_fast_offset = fr_cpu_rseq_offset >= 0
                             ? fr_cpu_rseq_offset
                             : (long)((uintptr_t)&cpu_none - fr_arch_thread_pointer());
}
