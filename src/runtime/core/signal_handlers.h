/*
 * signal_handlers.h - the recorder's signal handlers: fatal signals (crash_dump=1),
 * termination signals (signal_flush=1), and chaining to the handler the program had
 * installed before us. Each thread's alternate signal stack: signal_stack.h.
 */
#ifndef FLIGHTREC_SIGNAL_HANDLERS_H
#define FLIGHTREC_SIGNAL_HANDLERS_H

#include "core/options.h"
#include "core/visibility.h"

/* Installs the handlers the options ask for (each signal once per process; a later
 * session's options only change what the handlers do). Runs in fr_init. */
FR_HIDDEN void fr_signals_install(const struct fr_options *o);

#endif
