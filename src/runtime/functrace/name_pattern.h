/*
 * name_pattern.h - the function patterns of patch= and exclude= (record --filter and
 * --exclude): items separated by ':' (a C++ scope's "::" is no separator), each a decimal
 * id, an id range N-M, or a shell glob (fnmatch) on the function's name. A C++ name
 * matches as linked ("_ZN2ns3Box3getEv"), demangled in full ("ns::Box<long>::get(int)
 * const") or simple ("ns::Box::get"). Both front ends use it: the sled patcher per sled
 * function, the -finstrument-functions filter per symbol (func_filter.c).
 * Allocates (the demangler): never on a hot path or in a signal handler.
 * Internal to libflightrec.
 */
#ifndef FLIGHTREC_NAME_PATTERN_H
#define FLIGHTREC_NAME_PATTERN_H

#include <stdint.h>
#include "core/visibility.h"

/* No id: an id item matches nothing (-finstrument-functions functions get their ids at
 * first call, after the filter has decided). */
#define FR_NAME_PATTERN_NO_ID UINT32_MAX

/* Nonzero if PATTERN is well formed (not empty, items of fewer than 256 bytes, id ranges
 * N-M with N <= M). */
FR_HIDDEN int fr_name_pattern_valid(const char *pattern);
/* Nonzero if an item of PATTERN (well formed) matches NAME (NULL: no name) or ID. */
FR_HIDDEN int fr_name_pattern_match(const char *pattern, const char *name, uint32_t id);

#endif
