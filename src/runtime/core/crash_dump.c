/*
 * crash_dump.c - the trace written from a signal handler (fatal signals, termination
 * signals). Everything here is async-signal-safe: no malloc, no stdio, no strerror, and
 * no lock, because the thread that crashed may hold any of them (the registry lock
 * included). The stop is finalize's without its hooks and lock: recording is switched
 * off, every thread passes a barrier (membarrier), each live thread's record in progress
 * is waited for (bounded: a thread stopped inside a record leaves its last whole record
 * as the end, since pos only moves past complete records), then each thread's partial
 * current buffer is published into the pool's descriptors and the usual writer runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "flightrec.h"
#include "core/crash_dump.h"
#include "core/log_writer.h"
#include "core/recorder.h"
#include "core/session.h"
#include "core/write_error.h"
#include "core/lifecycle_state.h"
#include "core/text_out.h"
#include "core/thread_writer.h"
#include "core/trace_out.h"
#include "fr_format.h"

/* Its own output buffer and job: a dump may interrupt a flush or a snapshot elsewhere. */
static uint8_t dump_buffer[64 * 1024];
static struct fr_trace_job job = { .buf = dump_buffer, .cap = sizeof dump_buffer, .fd = -1 };

static struct fr_dump_cause why;
/* The cause of the file this thread is writing, if any: a dump and a snapshot may be
 * written at once by two threads, and a later normal flush carries no cause. */
static __thread struct fr_dump_cause *writing_cause
    __attribute__((tls_model("initial-exec")));

static int32_t dump_owner;   /* tid of the thread inside fr_crash_dump, 0 if none */
static sigjmp_buf dump_jmp;

/* ------------------------------------------------------------------ FR_TE_DUMP_CAUSE */

static void emit_cause(fr_meta_writer *w, void *ctx)
{
    (void)ctx;
    struct fr_dump_cause *c = writing_cause;
    if (!c)
        return;
    struct fr_te_dump_cause p = {
        .version = 1, .cause = c->cause, .signal = c->sig, .si_code = c->code,
        .tid = c->tid, .seq = c->seq, .address = c->address,
        .inconsistent = c->inconsistent,
    };
    /* where `inconsistent` lands: after the record's header and envelope */
    c->inconsistent_at = w->out->offset +
                         FR_ENVELOPED_SIZE(offsetof(struct fr_te_dump_cause, inconsistent));
    fr_meta_emit(w, FR_TE_DUMP_CAUSE, &p, sizeof p);
}

int fr_write_trace_caused(struct fr_trace_job *j, const char *path, struct fr_dump_cause *cause)
{
    cause->inconsistent_at = 0;
    writing_cause = cause;
    int err = fr_write_trace_job(j, path);
    writing_cause = NULL;
    return err;
}

void fr_crash_dump_setup(void)
{
    fr_meta_register_source(emit_cause, NULL);
}

/* ------------------------------------------------------------------ the stop */

static uint64_t fault_address(int sig, const siginfo_t *si)
{
    if (!si || si->si_code <= 0) /* sent by a process (kill, raise, abort): no address */
        return 0;
    switch (sig) {
    case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
        return (uint64_t)(uintptr_t)si->si_addr;
    default:
        return 0;
    }
}

/* Each live thread: wait (bounded) for a record in progress, then publish its current
 * buffer, counters and name (thread_writer.c, lock-free; a thread still inside a record
 * is left out and counted, docs/BUFFERS.md). */
static void publish_threads(void)
{
    fr_writer_stop_threads(20000);
}

/* ------------------------------------------------------------------ messages */

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS:  return "SIGBUS";
    case SIGILL:  return "SIGILL";
    case SIGFPE:  return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    case SIGTERM: return "SIGTERM";
    case SIGINT:  return "SIGINT";
    case SIGHUP:  return "SIGHUP";
    default:      return "signal";
    }
}

static void report(int sig, int err)
{
    char msg[FR_OPTIONS_PATH_MAX + 160];
    size_t len = 0;
    fr_fmt_str(msg, sizeof msg, &len, "flightrec: ");
    fr_fmt_str(msg, sizeof msg, &len, signal_name(sig));
    fr_fmt_str(msg, sizeof msg, &len, " (");
    fr_fmt_u64(msg, sizeof msg, &len, (uint64_t)sig);
    if (!err) {
        fr_fmt_str(msg, sizeof msg, &len, "): trace written to ");
        fr_fmt_str(msg, sizeof msg, &len, fr_session.output_path);
    } else {
        fr_fmt_str(msg, sizeof msg, &len, "): cannot write the trace to ");
        fr_fmt_str(msg, sizeof msg, &len, fr_session.output_path);
        fr_fmt_str(msg, sizeof msg, &len, ": ");
        fr_fmt_write_error(msg, sizeof msg, &len, err);
    }
    fr_fmt_str(msg, sizeof msg, &len, "\n");
    fr_write_stderr(msg, len);
}

/* ------------------------------------------------------------------ the dump */

int fr_crash_dump(uint32_t cause, int sig, const siginfo_t *si)
{
    int32_t me = (int32_t)gettid();
    if (fr_lifecycle_stop_for_dump() != 0) {
        /* Not recording, or another thread is dumping (or finalizing): give it time to
         * finish before this thread's signal takes the process down (5 s at most). */
        struct timespec tick = { 0, 10 * 1000 * 1000 };
        for (int i = 0; i < 500 && fr_get_state() == FR_STATE_FINALIZING; i++)
            nanosleep(&tick, NULL);
        return -1;
    }
    __atomic_store_n(&dump_owner, me, __ATOMIC_SEQ_CST);
    why.cause = cause;
    why.sig = sig;
    why.code = si ? si->si_code : 0;
    why.tid = me;
    why.seq = 0;
    why.address = fault_address(sig, si);
    why.inconsistent = 0;
    publish_threads();
    int err;
    if (sigsetjmp(dump_jmp, 1) == 0) {
        err = fr_write_trace_caused(&job, fr_session.output_path, &why);
    } else {
        writing_cause = NULL;
        fr_trace_job_abandon(&job);
        err = EFAULT;
    }
    __atomic_store_n(&dump_owner, 0, __ATOMIC_SEQ_CST);
    fr_lifecycle_dump_done(err ? NULL : fr_session.output_path);
    report(sig, err);
    return err;
}

void fr_crash_dump_fault_inside(int sig)
{
    (void)sig;
    if (__atomic_load_n(&dump_owner, __ATOMIC_SEQ_CST) == (int32_t)gettid())
        siglongjmp(dump_jmp, 1);
}
