/*
 * pool_budget.h - the buffer pool's size for given options, and whether it fits in the
 * memory the process may still have (pool_budget.c). Used by fr_pool_create and, before
 * it runs the program, by `flightrec record`.
 */
#ifndef FLIGHTREC_POOL_BUDGET_H
#define FLIGHTREC_POOL_BUDGET_H

#include <stddef.h>
#include <stdint.h>
#include "core/options.h"
#include "core/visibility.h"

/* The pool's one mapping: the buffers' data, their descriptors, the thread slots, the
 * scratch array, the cells of the completion and free queues; each rounded up to a page. */
struct fr_pool_layout {
    size_t data, bufs, threads, scratch, done_q, free_q, total;
};
/* 0, or -1 when the sizes overflow size_t. */
FR_HIDDEN int fr_pool_layout_of(const struct fr_options *o, struct fr_pool_layout *l);
/* 0 when a pool of `need` bytes fits in 7/8 of what the process can still get under each
 * of RLIMIT_AS, its memory cgroups' limits and MemAvailable; else -1 with the first limit
 * it exceeds (*limit names it, e.g. "MemAvailable") and the bytes that limit leaves. */
FR_HIDDEN int fr_pool_budget(uint64_t need, uint64_t *room, const char **limit);

#endif
