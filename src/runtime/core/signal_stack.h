/*
 * signal_stack.h - each recording thread's alternate signal stack (signal_stack.c).
 */
#ifndef FLIGHTREC_SIGNAL_STACK_H
#define FLIGHTREC_SIGNAL_STACK_H

#include "core/visibility.h"

/* Whether threads get one from now on (crash_dump= of the session; fr_signals_install). */
FR_HIDDEN void fr_signal_stacks_enable(int on);
/* A thread registering with the recorder: with crash_dump on, gives it an alternate
 * signal stack (unless it has one), so a stack overflow still gets its dump. */
FR_HIDDEN void fr_signals_thread_start(void);

#endif
