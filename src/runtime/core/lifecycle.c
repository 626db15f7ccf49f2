/*
 * lifecycle.c - the recorder's states (XRay's: uninitialized, initializing, initialized,
 * finalizing, finalized), init/finalize/flush/reset, start-up from FLIGHTREC_OPTIONS and
 * the flush at exit.
 *
 * Start-up rule: a constructor reads FLIGHTREC_OPTIONS and initialises the recorder when
 * it contains start=1 (without start=1 the variable only provides defaults for fr_init
 * and the XRay compatibility layer). fr_init(options) applies FLIGHTREC_OPTIONS first,
 * then `options` on top. When the process exits normally (exit() or return from main)
 * while recording, the recorder is finalized and flushed.
 *
 * Stopping without locks on the record path (fr_finalize): fr_recording is cleared, then
 * membarrier(PRIVATE_EXPEDITED) makes every running thread pass a full barrier, so any
 * record that saw the session number in fr_recording has its busy flag visible;
 * fr_writer_stop_threads waits for those flags to clear and publishes each thread's
 * current buffer (docs/BUFFERS.md). Thread exit takes no lock.
 *
 * Re-init: fr_init after fr_finalize first writes the finalized session if it was not
 * flushed (unless no_file_flush=1), then resets; if that write fails fr_init returns
 * FR_ERR_IO and the session stays FINALIZED (nothing is discarded silently).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "flightrec.h"
#include "core/recorder.h"
#include "core/backing_file.h"
#include "core/clock.h"
#include "core/cpu_id.h"
#include "core/fork.h"
#include "core/output_path.h"
#include "core/process_info.h"
#include "core/lifecycle_state.h"
#include "core/text_out.h"
#include "core/signal_handlers.h"
#include "core/stream_writer.h"
#include "core/thread_writer.h"
#include "core/xray_layout.h"
#include "core/buffer_pool.h"
#include "core/options.h"
#include "core/session.h"
#include "core/log_writer.h"
#include "core/metadata.h"



#define MAX_HOOKS 8
static fr_lifecycle_hooks hooks[MAX_HOOKS];
static uint32_t nhooks;

void fr_lifecycle_register_hooks(const fr_lifecycle_hooks *h)
{
    uint32_t i = __atomic_fetch_add(&nhooks, 1, __ATOMIC_ACQ_REL);
    if (i >= MAX_HOOKS) {
        __atomic_fetch_sub(&nhooks, 1, __ATOMIC_ACQ_REL);
        return;
    }
    hooks[i] = *h;
    /* Registered after an init (constructor order): act now. */
    if (fr_get_state() == FR_STATE_INITIALIZED && h->after_init) {
        h->after_init(&fr_session.opts);
        fr_backing_write_meta();   /* what the hook set up (function tables) */
    }
}

/* ------------------------------------------------------------------ one-time setup */

static void at_exit(void)
{
    if (fr_get_state() != FR_STATE_INITIALIZED)
        return;
    /* A vfork child that calls exit() shares our memory: the session is the parent's. */
    if ((int32_t)getpid() != fr_session.pid)
        return;
    fr_finalize();
    if (!fr_session.opts.no_file_flush)
        fr_flush();
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_error;

static void setup_once(void)
{
    if (fr_writer_setup_key() != 0)
        once_error = 1;
    atexit(at_exit);
    fr_fork_install();
    fr_lifecycle_barrier_setup();
}

/* ------------------------------------------------------------------ init */

/* A static link takes only the objects a program references: through this reference the
 * object of fr_init brings function tracing's start-up (functrace_runtime.c), so a plain
 * `cc prog.c libflightrec.a` traces its sleds (issue 10). */
extern const char fr_functrace_anchor;
__attribute__((used)) static const char *const functrace_linked = &fr_functrace_anchor;

fr_status fr_init(const char *options)
{
    fr_state prev = fr_get_state();
    if (prev == FR_STATE_FINALIZED) {
        if (!__atomic_load_n(&fr_lifecycle.flushed, __ATOMIC_ACQUIRE) && !fr_session.opts.no_file_flush) {
            fr_status w = fr_flush();
            if (w != FR_OK)
                return w;
        }
        fr_status r = fr_reset();
        if (r != FR_OK)
            return r;
        prev = FR_STATE_UNINITIALIZED;
    }
    if (prev != FR_STATE_UNINITIALIZED || !fr_lifecycle_cas(FR_STATE_UNINITIALIZED, FR_STATE_INITIALIZING))
        return FR_ERR_STATE;
    pthread_once(&once, setup_once);
    fr_xray_layout_set(0);   /* xray-fdr's init sets it again for its session */

    struct fr_options o;
    int bad = fr_options_from_env(&o, "FLIGHTREC_OPTIONS");
    bad |= fr_options_parse(&o, options, "fr_init");
    /* A relative path names a file where the program was when recording started, as
     * the user typed it: not wherever the program's working directory is when the file
     * is written (a daemon's chdir("/"), a crash dump much later). */
    bad |= fr_pattern_absolute(o.output, sizeof o.output, "output");
    bad |= fr_pattern_absolute(o.snapshot_output, sizeof o.snapshot_output, "snapshot_output");
    bad |= fr_pattern_absolute(o.backing, sizeof o.backing, "backing");
    char path[FR_OPTIONS_PATH_MAX];
    int32_t pid = (int32_t)getpid();
    if (!bad && fr_expand_output(path, sizeof path, o.output, pid,
                                 fr_output_shared_by_run(o.output, pid)) < 0) {
        fr_write_stderr("flightrec: output path too long\n", 32);
        bad = -1;
    }
    if (bad || once_error) {
        __atomic_store_n(&fr_lifecycle.state, FR_STATE_UNINITIALIZED, __ATOMIC_RELEASE);
        return FR_ERR_OPTIONS;
    }
    fr_clock_init((enum fr_clock_choice)o.clock);
    fr_cpu_init();
    pthread_mutex_lock(&fr_session.registry_lock);
    if (fr_pool_create(&o) < 0) {
        int io = errno == EIO;   /* the backing file, said on stderr */
        pthread_mutex_unlock(&fr_session.registry_lock);
        __atomic_store_n(&fr_lifecycle.state, FR_STATE_UNINITIALIZED, __ATOMIC_RELEASE);
        return io ? FR_ERR_IO : FR_ERR_NOMEM;
    }
    fr_session.opts = o;
    fr_session.pid = pid;
    memcpy(fr_session.output_path, path, sizeof path);
    fr_process_info_read();
    int so = fr_stream_open(&o, path);   /* stream=1: the file exists from now on */
    if (so < 0) {
        fr_pool_destroy();
        pthread_mutex_unlock(&fr_session.registry_lock);
        __atomic_store_n(&fr_lifecycle.state, FR_STATE_UNINITIALIZED, __ATOMIC_RELEASE);
        return so == -1 ? FR_ERR_OPTIONS : FR_ERR_IO;
    }
    uint32_t session = fr_writer_new_session();
    fr_backing_fill_header(session);
    fr_lifecycle.flushing = 0;
    fr_lifecycle.flushed = 0;
    pthread_mutex_unlock(&fr_session.registry_lock);
    fr_signals_install(&fr_session.opts);
    __atomic_store_n(&fr_lifecycle.state, FR_STATE_INITIALIZED, __ATOMIC_RELEASE);
    __atomic_store_n(&fr_recording, (int)session, __ATOMIC_SEQ_CST);
    uint32_t n = __atomic_load_n(&nhooks, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < MAX_HOOKS; i++)
        if (hooks[i].after_init)
            hooks[i].after_init(&fr_session.opts);
    fr_stream_start();   /* after the hooks: the function tables go in its first block */
    fr_backing_write_meta();   /* after the hooks: function tracing's tables are known */
    return FR_OK;
}

/* ------------------------------------------------------------------ finalize */

/* How long finalize waits for a thread inside a record (stopped in a debugger, or a
 * signal handler that blocks): ~1 s of yields. Such a thread is never snapshotted. */
#define STOP_MAX_YIELDS 200000

fr_status fr_finalize(void)
{
    if (!fr_lifecycle_cas(FR_STATE_INITIALIZED, FR_STATE_FINALIZING))
        return FR_ERR_STATE;
    uint32_t n = __atomic_load_n(&nhooks, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < MAX_HOOKS; i++)
        if (hooks[i].before_finalize)
            hooks[i].before_finalize();
    fr_lifecycle_stop_recording();
    fr_writer_stop_threads(STOP_MAX_YIELDS);
    fr_backing_set_state(FR_BACKING_STOPPED);
    __atomic_store_n(&fr_lifecycle.flushed, fr_session.opts.no_file_flush, __ATOMIC_RELEASE);
    __atomic_store_n(&fr_lifecycle.state, FR_STATE_FINALIZED, __ATOMIC_RELEASE);
    return FR_OK;
}

/* ------------------------------------------------------------------ flush, reset */

/* One line: how many records were dropped, why, and what was kept. */
static void report_drops(void)
{
    uint64_t written, dropped, below, cause[FR_DROP_NCAUSES];
    uint32_t threads;
    fr_meta_totals(&written, &dropped, &below, &threads);
    if (!dropped)
        return;
    fr_meta_drop_causes(cause);
    char msg[FR_OPTIONS_PATH_MAX + 512];
    size_t len = 0;
    fr_fmt_str(msg, sizeof msg, &len, "flightrec: ");
    fr_fmt_u64(msg, sizeof msg, &len, dropped);
    fr_fmt_str(msg, sizeof msg, &len, " records dropped (policy=");
    fr_fmt_str(msg, sizeof msg, &len, fr_pool.policy == FR_POLICY_DISCARD ? "discard" : "overwrite");
    for (int c = 0; c < FR_DROP_NCAUSES; c++) {
        if (!cause[c])
            continue;
        fr_fmt_str(msg, sizeof msg, &len, "; ");
        fr_fmt_u64(msg, sizeof msg, &len, cause[c]);
        fr_fmt_str(msg, sizeof msg, &len, " ");
        fr_fmt_str(msg, sizeof msg, &len, fr_drop_cause_name((unsigned)c).text);
    }
    fr_fmt_str(msg, sizeof msg, &len, "), ");
    fr_fmt_u64(msg, sizeof msg, &len, written);
    fr_fmt_str(msg, sizeof msg, &len, " kept from ");
    fr_fmt_u64(msg, sizeof msg, &len, threads);
    fr_fmt_str(msg, sizeof msg, &len, threads == 1 ? " thread in " : " threads in ");
    fr_fmt_str(msg, sizeof msg, &len, fr_session.output_path);
    fr_fmt_str(msg, sizeof msg, &len, "\n");
    fr_write_stderr(msg, len);
}

fr_status fr_flush(void)
{
    if (fr_get_state() != FR_STATE_FINALIZED)
        return FR_ERR_STATE;
    int expect = 0;
    if (!__atomic_compare_exchange_n(&fr_lifecycle.flushing, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return FR_ERR_STATE;
    pthread_mutex_lock(&fr_session.registry_lock);
    fr_status r = FR_OK;
    if (fr_get_state() != FR_STATE_FINALIZED) {
        r = FR_ERR_STATE;
    } else {
        int err = fr_write_trace(fr_session.output_path);
        if (err) {
            char msg[FR_OPTIONS_PATH_MAX + 128];
            size_t len = 0;
            fr_fmt_str(msg, sizeof msg, &len, "flightrec: cannot write ");
            fr_fmt_str(msg, sizeof msg, &len, fr_session.output_path);
            fr_fmt_str(msg, sizeof msg, &len, ": ");
            fr_fmt_str(msg, sizeof msg, &len, strerror(err));
            if (fr_backing_path[0]) {
                fr_fmt_str(msg, sizeof msg, &len, " (the records stay in ");
                fr_fmt_str(msg, sizeof msg, &len, fr_backing_path);
                fr_fmt_str(msg, sizeof msg, &len, ": flightrec recover turns it into a trace)");
            }
            fr_fmt_str(msg, sizeof msg, &len, "\n");
            fr_write_stderr(msg, len);
            r = FR_ERR_IO;
        } else {
            fr_lifecycle_written(fr_session.output_path);
            __atomic_store_n(&fr_lifecycle.flushed, 1, __ATOMIC_RELEASE);
            fr_backing_remove();   /* the trace is written: the file has served */
            report_drops();
        }
    }
    pthread_mutex_unlock(&fr_session.registry_lock);
    __atomic_store_n(&fr_lifecycle.flushing, 0, __ATOMIC_RELEASE);
    return r;
}

/* fr_flush into an open file (XRay compatibility: compiler-rt's log file created at
 * flush, and in-memory iteration of the buffers). Returns FR_OK or FR_ERR_STATE/_IO. */
fr_status fr_flush_fd(int fd)
{
    if (fr_get_state() != FR_STATE_FINALIZED)
        return FR_ERR_STATE;
    int expect = 0;
    if (!__atomic_compare_exchange_n(&fr_lifecycle.flushing, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return FR_ERR_STATE;
    pthread_mutex_lock(&fr_session.registry_lock);
    fr_status r = fr_get_state() != FR_STATE_FINALIZED ? FR_ERR_STATE
                  : fr_write_trace_fd(fd) ? FR_ERR_IO : FR_OK;
    pthread_mutex_unlock(&fr_session.registry_lock);
    __atomic_store_n(&fr_lifecycle.flushing, 0, __ATOMIC_RELEASE);
    return r;
}

fr_status fr_reset(void)
{
    if (fr_get_state() != FR_STATE_FINALIZED)
        return FR_ERR_STATE;
    int expect = 0;
    if (!__atomic_compare_exchange_n(&fr_lifecycle.flushing, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return FR_ERR_STATE;
    pthread_mutex_lock(&fr_session.registry_lock);
    fr_status r = FR_ERR_STATE;
    if (fr_lifecycle_cas(FR_STATE_FINALIZED, FR_STATE_UNINITIALIZED)) {
        /* Threads of this session notice the new session number and re-register; an
         * exiting thread of this session finishes with the pool before it goes. */
        fr_writer_new_session();
        fr_writer_wait_exits();
        fr_stream_close();   /* stream=1: its end is written while the pool exists */
        fr_pool_destroy();
        r = FR_OK;
    }
    pthread_mutex_unlock(&fr_session.registry_lock);
    __atomic_store_n(&fr_lifecycle.flushing, 0, __ATOMIC_RELEASE);
    return r;
}

void fr_get_stats(fr_stats *out)
{
    memset(out, 0, sizeof *out);
    fr_state s = fr_get_state();
    if (s == FR_STATE_UNINITIALIZED || s == FR_STATE_INITIALIZING)
        return;
    pthread_mutex_lock(&fr_session.registry_lock);
    if (fr_pool.map)
        fr_meta_totals(&out->records_written, &out->records_dropped,
                       &out->calls_below_threshold, &out->threads);
    pthread_mutex_unlock(&fr_session.registry_lock);
}

/* ------------------------------------------------------------------ start-up */

__attribute__((constructor)) static void start_from_environment(void)
{
    /* FLIGHTREC_OPTIONS is read with secure_getenv (options.c): in a setuid/setgid
     * (AT_SECURE) process the environment belongs to the less privileged caller; it must
     * neither turn tracing on nor choose files. */
    struct fr_options o;
    if (fr_options_from_env(&o, NULL) != 0) {
        /* Said here (what is bad, by the parser): a program that never calls fr_init would
         * otherwise run untraced without a word (start=2, a misspelt key). */
        fr_options_from_env(&o, "FLIGHTREC_OPTIONS");
        static const char msg[] = "flightrec: not recording from start-up: FLIGHTREC_OPTIONS "
                                  "has errors\n";
        fr_write_stderr(msg, sizeof msg - 1);
        return;
    }
    if (!o.start)
        return;
    fr_status r = fr_init(NULL);
    if (r != FR_OK) {
        /* Nobody else sees the result of a start-up init: say why there will be no trace. */
        const char *why = fr_status_string(r);
        fr_write_stderr("flightrec: start=1: not recording: ", 35);
        fr_write_stderr(why, strlen(why));
        fr_write_stderr("\n", 1);
    }
}
