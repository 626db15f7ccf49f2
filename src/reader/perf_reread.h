/*
 * perf_reread.h - recognises the samples `perf record` writes twice through its
 * ring-buffer read race, so that the reader gives each sample once.
 *
 * perf record reads each CPU's ring buffer in passes and writes a FINISHED_ROUND record
 * after each pass that wrote anything. A pass reads the kernel's write position twice
 * (perf_mmap__push, then perf_mmap__read_init in tools/perf/util/mmap.c): it writes the
 * data up to the second value but marks as read only what lies below the first. A sample
 * the kernel completes between the two reads is written at the end of that pass and
 * again, byte for byte, at the start of the CPU's next pass (docs/KERNEL_TESTS.md, "What
 * perf does").
 *
 * So a copy is exactly: a sample record byte for byte the same (header, time, cpu, tid,
 * data) as the last sample of the same CPU, where that last sample came in the pass just
 * before (one FINISHED_ROUND earlier) and this one is the CPU's first of its pass. Any
 * other repeat (within one pass, two passes apart, on another CPU, differing in a byte)
 * is not perf's and is kept.
 *
 * Memory: one record per CPU (at most 65,535 bytes, a record's size being a u16), for
 * CPUs below FR_PERF_REREAD_MAX_CPUS, and FR_PERF_REREAD_MAX_BYTES in all; a CPU past
 * either bound is not remembered, so its samples are all kept.
 */
#ifndef FLIGHTREC_PERF_REREAD_H
#define FLIGHTREC_PERF_REREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FR_PERF_REREAD_MAX_CPUS  8192u          /* Linux's NR_CPUS at most */
#define FR_PERF_REREAD_MAX_BYTES (16u << 20)

typedef struct fr_perf_reread fr_perf_reread;

fr_perf_reread *fr_perf_reread_new(void);
void fr_perf_reread_free(fr_perf_reread *r);
/* A FINISHED_ROUND record was read: the next samples are of perf's next pass. */
void fr_perf_reread_round(fr_perf_reread *r);
/* A sample record (its size bytes, header included) of cpu, in file order: true when it
 * is perf's copy of the CPU's previous sample. Either way it is the CPU's last sample
 * now. */
bool fr_perf_reread_is_copy(fr_perf_reread *r, uint32_t cpu, const uint8_t *rec, size_t size);
/* Samples found to be copies. */
uint64_t fr_perf_reread_copies(const fr_perf_reread *r);

#endif
