/*
 * span_unwind.h - the open spans of a thread's stack, for the unwind hooks (span_unwind.c).
 * Internal to libflightrec.
 */
#ifndef FLIGHTREC_SPAN_UNWIND_H
#define FLIGHTREC_SPAN_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "flightrec/events.h"

/* An attached span started (prev: the activity it replaced) / stopped. */
FR_HIDDEN void fr_span_keep(const fr_span *s, bool had_prev, const uint8_t prev[16]);
FR_HIDDEN void fr_span_forget(const fr_span *s);
/* Whether the thread has open spans on its stack (one TLS load). */
FR_HIDDEN bool fr_spans_open(void);
/* Stack addresses below live_sp died (exception caught, longjmp about to be taken):
 * their spans are closed, innermost first, and the activity current before the
 * outermost of them restored. memory_intact: the dead frames are still readable (before
 * a longjmp), so scoped spans write their stop events. */
FR_HIDDEN void fr_spans_unwound_below(uintptr_t live_sp, bool memory_intact);

#endif
