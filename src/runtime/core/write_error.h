/*
 * write_error.h - what a trace write's errno means, in words, without strerror (which is
 * not async-signal-safe: its locale): for the writers' messages on stderr.
 */
#ifndef FLIGHTREC_WRITE_ERROR_H
#define FLIGHTREC_WRITE_ERROR_H

#include <stddef.h>
#include "core/visibility.h"

/* Appends what a trace write's errno means ("no space left on device"; "errno N" for
 * one a trace write seldom meets) to buf at *len, without stdio (async-signal-safe). */
FR_HIDDEN void fr_fmt_write_error(char *buf, size_t cap, size_t *len, int err);

#endif
