/*
 * fork_frames.h - a forked child's trace begins with the entries of the calls open in the
 * forking thread at the fork (fork_frames.c). Internal to libflightrec.
 */
#ifndef FLIGHTREC_FORK_FRAMES_H
#define FLIGHTREC_FORK_FRAMES_H

#include <stdint.h>
#include "core/visibility.h"

/* Records, outermost first, an entry for each open traced frame of this thread (shadow
 * stack and library calls, in stack order). The fork child hook (core/fork.h): returns
 * how many it recorded (asked; max_depth may drop some). */
FR_HIDDEN uint32_t fr_fork_enter_open_frames(void);

#endif
