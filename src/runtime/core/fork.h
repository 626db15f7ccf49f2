/*
 * fork.h - the recorder across fork() (fork.c).
 */
#ifndef FLIGHTREC_FORK_H
#define FLIGHTREC_FORK_H

#include "core/visibility.h"

/* Registers the pthread_atfork handlers: the child starts an empty recording of its own
 * written to its own file. Called once, by the lifecycle's first init. */
FR_HIDDEN void fr_fork_install(void);

#endif
