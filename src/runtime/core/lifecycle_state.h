/*
 * lifecycle_state.h - the recorder's state and the changes of it that also happen outside
 * fr_init and fr_finalize (lifecycle.c): a stop from a signal handler (crash_dump.c), a
 * fork child's reset (fork.c). fr_get_state: flightrec.h.
 */
#ifndef FLIGHTREC_LIFECYCLE_STATE_H
#define FLIGHTREC_LIFECYCLE_STATE_H

#include "flightrec.h"
#include "core/options.h"
#include "core/visibility.h"

/* Owned by lifecycle_state.c; changed by lifecycle.c's init, finalize, flush and reset. */
struct fr_lifecycle {
    fr_state state;
    int flushing;         /* a flush or reset holds the session */
    int flushed;          /* the FINALIZED session was written (or needs no file) */
    int have_membarrier;
    char last_output[FR_OPTIONS_PATH_MAX];
    int last_output_valid;
};
extern FR_HIDDEN struct fr_lifecycle fr_lifecycle;

/* Compare-and-swap of the state: 1 when it was `from` and is now `to`. */
FR_HIDDEN int fr_lifecycle_cas(fr_state from, fr_state to);
/* Once per process: registers for membarrier(PRIVATE_EXPEDITED). */
FR_HIDDEN void fr_lifecycle_barrier_setup(void);
/* Stopping without locks on the record path: fr_recording is cleared, then every running
 * thread passes a full barrier (membarrier; else a 2 ms grace), so any record that saw
 * the session number has its busy flag visible (lifecycle.c). */
FR_HIDDEN void fr_lifecycle_stop_recording(void);
/* `path` is the last file written (fr_last_output_path). */
FR_HIDDEN void fr_lifecycle_written(const char *path);

/* Stopping from a signal handler: 0 when the caller owns the stop (FINALIZING) and must
 * end it with fr_lifecycle_dump_done(path written, or NULL). */
FR_HIDDEN int fr_lifecycle_stop_for_dump(void);
FR_HIDDEN void fr_lifecycle_dump_done(const char *written);

/* fork child: resets the lifecycle (lock, flush flag, unfinished INITIALIZING or
 * FINALIZING states); returns the state the child continues in. */
FR_HIDDEN fr_state fr_lifecycle_fork_child(void);

#endif
