/*
 * write_signals.h - the signals a write of ours raises, kept from killing the program
 * (write_signals.c).
 */
#ifndef FLIGHTREC_WRITE_SIGNALS_H
#define FLIGHTREC_WRITE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include "core/visibility.h"

/* Signals a write of ours raises must not kill the program or change its exit status:
 * SIGXFSZ (a write past `ulimit -f`: the write fails with EFBIG instead) and SIGPIPE (an
 * output FIFO whose reader went away: EPIPE instead). fr_write_signals_block blocks both
 * on this thread; fr_write_signals_restore takes back the ones our writes raised
 * (thread- or process-directed) unless one was pending before, then restores the mask.
 * Async-signal-safe. */
struct fr_write_signals {
    sigset_t old;
    bool     xfsz_pending, pipe_pending;
};
FR_HIDDEN void fr_write_signals_block(struct fr_write_signals *w);
FR_HIDDEN void fr_write_signals_restore(struct fr_write_signals *w);

#endif
