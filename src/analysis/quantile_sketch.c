/* quantile_sketch.c - see quantile_sketch.h. */
#include "quantile_sketch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fr_alloc.h"

/* Extra buckets allocated on each side when the window grows, so that a run of slowly
 * drifting values does not reallocate every time. */
#define WINDOW_SLACK 32u

void fr_qsketch_init(fr_qsketch *s)
{
    memset(s, 0, sizeof *s);
    s->min = UINT64_MAX;
}

void fr_qsketch_free(fr_qsketch *s)
{
    free(s->buckets);
    fr_qsketch_init(s);
}

uint64_t fr_qsketch_bucket_value(uint32_t index)
{
    if (index < FR_QSKETCH_EXACT_BELOW)
        return index;
    uint32_t k = index - FR_QSKETCH_EXACT_BELOW;
    unsigned e = 7 + (k >> FR_QSKETCH_SUB_BITS);
    unsigned shift = e - FR_QSKETCH_SUB_BITS;
    uint64_t sub = k & ((1u << FR_QSKETCH_SUB_BITS) - 1);
    uint64_t lower = ((1ull << FR_QSKETCH_SUB_BITS) + sub) << shift;
    uint64_t width = 1ull << shift;
    return lower + (width - 1) / 2;
}

/* Makes the window cover bucket indexes [lo, hi] (inclusive). */
static void cover(fr_qsketch *s, uint32_t lo, uint32_t hi)
{
    if (s->n && lo >= s->lo && hi < s->lo + s->n)
        return;
    if (s->n) {
        if (s->lo < lo) lo = s->lo;
        if (s->lo + s->n - 1 > hi) hi = s->lo + s->n - 1;
    }
    lo = lo > WINDOW_SLACK ? lo - WINDOW_SLACK : 0;
    hi = hi + WINDOW_SLACK < FR_QSKETCH_MAX_BUCKETS ? hi + WINDOW_SLACK : FR_QSKETCH_MAX_BUCKETS - 1;
    uint32_t n = hi - lo + 1;
    uint64_t *b = fr_xcalloc(n, sizeof *b);
    if (s->n)
        memcpy(b + (s->lo - lo), s->buckets, s->n * sizeof *b);
    free(s->buckets);
    s->buckets = b;
    s->lo = lo;
    s->n = n;
}

void fr_qsketch_grow(fr_qsketch *s, uint32_t index)
{
    cover(s, index, index);
}

void fr_qsketch_merge(fr_qsketch *dst, const fr_qsketch *src)
{
    if (!src->count)
        return;
    cover(dst, src->lo, src->lo + src->n - 1);
    for (uint32_t i = 0; i < src->n; i++)
        dst->buckets[src->lo + i - dst->lo] += src->buckets[i];
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
    dst->count += src->count;
}

uint64_t fr_qsketch_quantile(const fr_qsketch *s, double q)
{
    if (!s->count)
        return 0;
    if (!(q > 0)) q = 0;   /* also maps NaN to 0 */
    if (q > 1) q = 1;
    uint64_t rank = (uint64_t)floor(q * (double)s->count);
    if (rank >= s->count - 1)
        return s->max;
    if (rank == 0)
        return s->min;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        seen += s->buckets[i];
        if (seen > rank) {
            uint64_t v = fr_qsketch_bucket_value(s->lo + i);
            return v < s->min ? s->min : v > s->max ? s->max : v;
        }
    }
    return s->max; /* not reached: the buckets hold count samples */
}
