/*
 * fork.h - the recorder across fork() (fork.c).
 */
#ifndef FLIGHTREC_FORK_H
#define FLIGHTREC_FORK_H

#include <stdint.h>
#include "core/visibility.h"

/* Registers the pthread_atfork handlers: the child starts an empty recording of its own
 * written to its own file. Called once, by the lifecycle's first init. */
FR_HIDDEN void fr_fork_install(void);

/* A front end's part of the child's start (function tracing: the entries of the frames
 * open at the fork, functrace/fork_frames.c). Called in the child of a recording process,
 * on the forking thread, after recording is on and with signals still blocked; the count
 * it returns goes into the backing file's header (fork_entries). One hook;
 * registered once, at load (a constructor). */
typedef uint32_t (*fr_fork_child_hook)(void);   /* returns how many records it made */
FR_HIDDEN void fr_fork_set_child_hook(fr_fork_child_hook hook);

#endif
