/*
 * lifecycle_state.c - the recorder's state (XRay's: uninitialized, initializing,
 * initialized, finalizing, finalized) and the changes of it that also happen outside
 * fr_init and fr_finalize (lifecycle.c): the stop from a signal handler, a fork child's
 * reset, the last file written (lifecycle_state.h).
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "core/backing_map.h"
#include "core/lifecycle_state.h"
#include "core/recorder.h"
#include "core/session.h"

struct fr_lifecycle fr_lifecycle = { .state = FR_STATE_UNINITIALIZED };

void fr_lifecycle_barrier_setup(void)
{
    fr_lifecycle.have_membarrier =
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

void fr_lifecycle_stop_recording(void)
{
    __atomic_store_n(&fr_recording, 0, __ATOMIC_SEQ_CST);
    if (!fr_lifecycle.have_membarrier ||
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
        struct timespec grace = { 0, 2 * 1000 * 1000 }; /* store buffers drain in ns */
        nanosleep(&grace, NULL);
    }
}

void fr_lifecycle_written(const char *path)
{
    memcpy(fr_lifecycle.last_output, path, sizeof fr_lifecycle.last_output);
    __atomic_store_n(&fr_lifecycle.last_output_valid, 1, __ATOMIC_RELEASE);
}

int fr_lifecycle_cas(fr_state from, fr_state to)
{
    return __atomic_compare_exchange_n(&fr_lifecycle.state, &from, to, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

fr_state fr_get_state(void)
{
    return __atomic_load_n(&fr_lifecycle.state, __ATOMIC_ACQUIRE);
}

/* For crash_dump.c: stop recording from a signal handler. No hooks (they unpatch code)
 * and no registry lock (the crashing thread may hold it). Returns 0 when the caller now
 * owns the FINALIZING state and must end it with fr_lifecycle_dump_done. */
int fr_lifecycle_stop_for_dump(void)
{
    if (!fr_lifecycle_cas(FR_STATE_INITIALIZED, FR_STATE_FINALIZING))
        return -1;
    fr_lifecycle_stop_recording();
    return 0;
}

/* The dump is over: FINALIZED (the exit-time flush then leaves the file alone). */
void fr_lifecycle_dump_done(const char *written)
{
    if (written) {
        fr_lifecycle_written(written);
        fr_backing_remove();   /* the dump is the trace */
    } else {
        fr_backing_set_state(FR_BACKING_STOPPED);
    }
    __atomic_store_n(&fr_lifecycle.state, FR_STATE_FINALIZED, __ATOMIC_RELEASE);
}

/* fork child (fork.c): only the forking thread exists. A lifecycle call that another
 * thread had in progress will never finish here: INITIALIZING -> UNINITIALIZED (the
 * child starts no session of its own), FINALIZING -> FINALIZED (recording had stopped);
 * no flush is in progress. Returns the state the child continues in. */
fr_state fr_lifecycle_fork_child(void)
{
    pthread_mutex_init(&fr_session.registry_lock, NULL);
    __atomic_store_n(&fr_lifecycle.flushing, 0, __ATOMIC_RELAXED);
    fr_state s = fr_get_state();
    if (s == FR_STATE_INITIALIZING) {
        __atomic_store_n(&fr_recording, 0, __ATOMIC_SEQ_CST);
        s = FR_STATE_UNINITIALIZED;
    } else if (s == FR_STATE_FINALIZING) {
        __atomic_store_n(&fr_recording, 0, __ATOMIC_SEQ_CST);
        s = FR_STATE_FINALIZED;
    }
    __atomic_store_n(&fr_lifecycle.state, s, __ATOMIC_RELEASE);
    if (s == FR_STATE_FINALIZED)
        __atomic_store_n(&fr_lifecycle.flushed, 1, __ATOMIC_RELEASE);   /* the parent's to write */
    return s;
}

const char *fr_last_output_path(void)
{
    return __atomic_load_n(&fr_lifecycle.last_output_valid, __ATOMIC_ACQUIRE) ? fr_lifecycle.last_output : NULL;
}
