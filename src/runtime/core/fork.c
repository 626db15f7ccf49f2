/*
 * fork.c - the recorder across fork(): the child starts with empty buffers of its own
 * and writes its own trace file: the output pattern with %p expanded to the child's pid,
 * or, if the pattern has no %p, the pattern followed by ".PID".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include "flightrec.h"
#include "core/buffer_pool.h"
#include "core/fork.h"
#include "core/output_path.h"
#include "core/session.h"
#include "core/thread_writer.h"

static void before_fork(void)
{
    pthread_mutex_lock(&fr_registry_lock);
}

static void in_parent(void)
{
    pthread_mutex_unlock(&fr_registry_lock);
}

static void in_child(void)
{
    pthread_mutex_init(&fr_registry_lock, NULL);
    fr_state s = fr_get_state();
    if (s != FR_STATE_INITIALIZED && s != FR_STATE_FINALIZED)
        return;
    /* Only this thread exists here; the parent's records stay the parent's. */
    fr_pool_clear();
    fr_pid = (int32_t)getpid();
    fr_process_info_read();
    if (fr_expand_output(fr_output_path, FR_OPTIONS_PATH_MAX, fr_opts.output, fr_pid, 1) < 0)
        fr_output_path[0] = 0;
    __atomic_fetch_add(&fr_session, 1, __ATOMIC_RELEASE);
    fr_writer_forget_self();
}

void fr_fork_install(void)
{
    pthread_atfork(before_fork, in_parent, in_child);
}
