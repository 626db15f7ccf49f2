/* fr_alloc.c - see fr_alloc.h. */
#include "fr_alloc.h"

#include <stdio.h>
#include <stdlib.h>

static void out_of_memory(size_t size)
{
    fprintf(stderr, "flightrec: out of memory (allocating %zu bytes)\n", size);
    exit(1);
}

void *fr_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        out_of_memory(size);
    return q;
}

void *fr_xcalloc(size_t n, size_t size)
{
    void *q = calloc(n ? n : 1, size ? size : 1);
    if (!q)
        out_of_memory(n * size);
    return q;
}

void *fr_xaligned_alloc(size_t align, size_t size)
{
    size = (size + align - 1) & ~(align - 1);
    void *q = aligned_alloc(align, size ? size : align);
    if (!q)
        out_of_memory(size);
    return q;
}

void *fr_xgrow(void *p, size_t *cap, size_t need, size_t elem_size, size_t min_cap)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : min_cap;
    while (c < need)
        c *= 2;
    if (c > (size_t)-1 / elem_size)
        out_of_memory((size_t)-1);
    p = fr_xrealloc(p, c * elem_size);
    *cap = c;
    return p;
}
