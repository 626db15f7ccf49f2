/*
 * lifecycle_state.h - the recorder's state changes that happen outside fr_init and
 * fr_finalize: a stop from a signal handler (crash_dump.c) and a fork child's reset
 * (fork.c).
 */
#ifndef FLIGHTREC_LIFECYCLE_STATE_H
#define FLIGHTREC_LIFECYCLE_STATE_H

#include "flightrec.h"
#include "core/visibility.h"

/* Stopping from a signal handler: 0 when the caller owns the stop (FINALIZING) and must
 * end it with fr_lifecycle_dump_done(path written, or NULL). */
FR_HIDDEN int fr_lifecycle_stop_for_dump(void);
FR_HIDDEN void fr_lifecycle_dump_done(const char *written);

/* fork child: resets the lifecycle (lock, flush flag, unfinished INITIALIZING or
 * FINALIZING states); returns the state the child continues in. */
FR_HIDDEN fr_state fr_lifecycle_fork_child(void);

#endif
