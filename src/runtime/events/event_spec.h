/*
 * event_spec.h - the syntax check of the `events=` option's value (event_enable.c), for
 * the option parser (core/options.c, also built into the flightrec command, which checks
 * FLIGHTREC_OPTIONS before it runs a program): a malformed value is refused at parse
 * time like any bad option value, not found later when the recorder starts.
 */
#ifndef FLIGHTREC_EVENT_SPEC_H
#define FLIGHTREC_EVENT_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/visibility.h"

/* True when the LEN bytes at SPEC are a valid SPEC[;SPEC...] (events.h; ',' separates as
 * ';' does). No allocation, no stdio. */
FR_HIDDEN bool fr_event_spec_valid(const char *spec, size_t len);

#endif
