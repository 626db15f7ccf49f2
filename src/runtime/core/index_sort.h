/*
 * index_sort.h - sorts an array of indices by a caller's order, in place, without
 * allocating and without recursion (heap sort): the file writer sorts the pool's
 * descriptors and thread slots this way, also from a fatal-signal handler, where qsort
 * (which may allocate) is not allowed.
 */
#ifndef FLIGHTREC_INDEX_SORT_H
#define FLIGHTREC_INDEX_SORT_H

#include <stdint.h>
#include "core/visibility.h"

/* less(a, b): whether index a sorts before index b. */
FR_HIDDEN void fr_index_sort(uint32_t *a, uint32_t n, int (*less)(uint32_t a, uint32_t b));

#endif
