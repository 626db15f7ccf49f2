/*
 * fork.c - the recorder across fork(): the child starts with empty buffers of its own
 * and writes its own trace file: the output pattern with %p expanded to the child's pid,
 * or, if the pattern has no %p, the pattern followed by ".PID". A recording child's trace
 * begins with an entry for each traced call open in the forking thread (the child hook,
 * functrace/fork_frames.c), stamped at the child's start.
 *
 * vfork: no handler runs; the child shares the parent's memory and thread state until
 * it execs or _exits. Its records (if any) land in the parent thread's buffer, and an
 * exit() in the child does not finalize the parent's session (lifecycle.c at_exit
 * compares the pid).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include "flightrec.h"
#include "core/backing_file.h"
#include "core/recorder.h"
#include "core/fork.h"
#include "core/output_path.h"
#include "core/session.h"
#include "core/process_info.h"
#include "core/lifecycle_state.h"
#include "core/stream_writer.h"
#include "core/thread_writer.h"
#include "core/buffer_pool.h"

/* Signals are blocked across fork (as LTTng-UST does): a handler that records must not
 * run in the child between fork and the reset of the recorder's state, nor in the
 * parent while the registry lock is held. The mask is the forking thread's own. */
static __thread sigset_t saved_mask;

static fr_fork_child_hook child_hook;

void fr_fork_set_child_hook(fr_fork_child_hook hook)
{
    __atomic_store_n(&child_hook, hook, __ATOMIC_RELEASE);
}

static void before_fork(void)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved_mask);
    pthread_mutex_lock(&fr_session.registry_lock);
}

static void in_parent(void)
{
    pthread_mutex_unlock(&fr_session.registry_lock);
    pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
}

static void in_child(void)
{
    fr_state s = fr_lifecycle_fork_child();
    fr_writer_after_fork();
    /* A backing file's mapping is shared with the parent: before anything is cleared or
     * written, the child gets its own file (if it records) or private zero pages. */
    if (fr_pool.backed && fr_backing_fork_child(s == FR_STATE_INITIALIZED) < 0)
        fr_pool.backed = 0;
    if (s == FR_STATE_INITIALIZED || s == FR_STATE_FINALIZED) {
        /* Only this thread exists here; the parent's records stay the parent's (the
         * pool is MADV_WIPEONFORK: the child's copy is zero pages anyway). */
        fr_pool_clear();
        fr_session.pid = (int32_t)getpid();
        fr_process_info_read();
        if (fr_expand_output(fr_session.output_path, FR_OPTIONS_PATH_MAX, fr_session.opts.output, fr_session.pid, 1) < 0)
            fr_session.output_path[0] = 0;
        uint32_t session = fr_writer_new_session();
        /* stream=1: the child's own file and writer thread (before it records) */
        fr_stream_after_fork(s == FR_STATE_INITIALIZED);
        if (fr_pool.backed) {
            fr_backing_fill_header(session);
            fr_backing_write_meta();
        }
        if (s == FR_STATE_INITIALIZED) {
            __atomic_store_n(&fr_recording, (int)session, __ATOMIC_SEQ_CST);
            /* The calls open at the fork go on in the child: its trace begins with their
             * entries, so that their exits match (signals still blocked: nothing else
             * records on this thread in between). */
            fr_fork_child_hook hook = __atomic_load_n(&child_hook, __ATOMIC_ACQUIRE);
            uint32_t made = hook ? hook() : 0;
            if (fr_pool.backed)
                fr_backing_set_fork_entries(made);   /* for `flightrec record` (exec) */
        }
    } else if (s == FR_STATE_UNINITIALIZED && fr_pool.map) {
        fr_pool_destroy();   /* an init the parent had in progress */
    }
    pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
}

void fr_fork_install(void)
{
    pthread_atfork(before_fork, in_parent, in_child);
}
