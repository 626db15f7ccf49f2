/*
 * fr_alloc.h - allocation for the analysis modules. The analyses only allocate when a new
 * thread, function, stack or edge appears (never per record), and have no sensible way to
 * continue without the memory, so running out ends the program with a message instead of
 * threading an error through every callback.
 */
#ifndef FLIGHTREC_FR_ALLOC_H
#define FLIGHTREC_FR_ALLOC_H

#include <stddef.h>

void *fr_xrealloc(void *p, size_t size);
void *fr_xcalloc(size_t n, size_t size);
/* size rounded up to a multiple of align (a power of two); free() releases it. */
void *fr_xaligned_alloc(size_t align, size_t size);
/* Grows *cap (doubling, at least min_cap) so that need elements of elem_size fit in *p. */
void *fr_xgrow(void *p, size_t *cap, size_t need, size_t elem_size, size_t min_cap);

#endif
