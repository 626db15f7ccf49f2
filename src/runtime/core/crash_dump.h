/*
 * crash_dump.h - writing the trace from a signal handler: stop recording without locks,
 * publish every thread's partial current buffer, write the file with async-signal-safe
 * code only, and record why (FR_TE_DUMP_CAUSE in the metadata block).
 */
#ifndef FLIGHTREC_CRASH_DUMP_H
#define FLIGHTREC_CRASH_DUMP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "core/visibility.h"

struct fr_trace_job;

/* Why a file is written (FR_TE_DUMP_CAUSE's payload, fr_format.h). */
struct fr_dump_cause {
    uint32_t cause, seq;
    int32_t  sig, code, tid;
    uint64_t address, inconsistent;
    uint64_t inconsistent_at;  /* set by the writer: file offset of `inconsistent` */
};

/* Registers the FR_TE_DUMP_CAUSE metadata source (once, at install). */
FR_HIDDEN void fr_crash_dump_setup(void);

/* fr_write_trace_job with `cause` in the metadata block (the calling thread's write only). */
FR_HIDDEN int fr_write_trace_caused(struct fr_trace_job *job, const char *path,
                                    struct fr_dump_cause *cause);

/* Stops recording and writes the trace to the output path; `cause` is FR_DUMP_*.
 * Returns 0 when written, -1 when there was nothing to do (not recording, or another
 * thread's dump, which this call waits for), else an errno value. A fault inside the
 * dump ends it (the temporary is removed) and this returns EFAULT. */
FR_HIDDEN int fr_crash_dump(uint32_t cause, int sig, const siginfo_t *si);

/* From a fatal-signal handler: when the calling thread is inside fr_crash_dump (a fault
 * in the dump itself), jumps back out of it; returns otherwise. */
FR_HIDDEN void fr_crash_dump_fault_inside(int sig);

#endif
