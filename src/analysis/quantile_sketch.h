/*
 * quantile_sketch.h - mergeable quantile sketch of non-negative integers (call durations
 * in clock ticks), with a bounded relative error and bounded memory.
 *
 * Log-linear buckets (the idea behind HdrHistogram and DDSketch's linear mapping): values
 * below 128 each have a bucket of their own (exact); above, every power of two [2^e,2^(e+1))
 * is split into 64 equal buckets. A bucket is reported by its midpoint, so any quantile
 * is within FR_QSKETCH_RELATIVE_ERROR (1/128, 0.78%) of the true value at that rank.
 * The bucket index is a count-leading-zeros and two shifts: no logarithm per sample.
 *
 * Memory: only the buckets between the smallest and largest value seen are kept
 * (a window that grows when a value falls outside it); at most FR_QSKETCH_MAX_BUCKETS
 * (3776) counters, 30 KiB, whatever the number of samples. Two sketches always merge
 * exactly (same bucket layout), so per-thread or per-file sketches combine losslessly.
 *
 * Quantile rank convention (the one llvm-xray account uses): the q-quantile of n samples
 * is the sample at 0-based rank min(n-1, floor(q*n)) in sorted order; so the median of
 * 4 samples is the third smallest. Rank 0 and rank n-1 return the exact min and max.
 */
#ifndef FLIGHTREC_QUANTILE_SKETCH_H
#define FLIGHTREC_QUANTILE_SKETCH_H

#include <stdint.h>

#define FR_QSKETCH_RELATIVE_ERROR (1.0 / 128)
#define FR_QSKETCH_EXACT_BELOW    128u
#define FR_QSKETCH_SUB_BITS       6   /* 64 buckets per power of two */
#define FR_QSKETCH_MAX_BUCKETS    (FR_QSKETCH_EXACT_BELOW + (64 - 7) * (1u << FR_QSKETCH_SUB_BITS))

typedef struct fr_qsketch {
    uint64_t  count;
    uint64_t  min, max;      /* exact; UINT64_MAX and 0 while count == 0 */
    uint32_t  lo, n;         /* buckets[i] counts bucket index lo + i */
    uint64_t *buckets;
} fr_qsketch;

void fr_qsketch_init(fr_qsketch *s);
void fr_qsketch_free(fr_qsketch *s);

/* Bucket index of a value, and the value a bucket reports (its midpoint).
 * For v >= 128 with highest bit e, the bucket is 128 + (e - 7) * 64 + sub, where sub is
 * the 6 bits below bit e; as (v >> (e - 6)) is 64 + sub, that is (e - 6) * 64 + (v >> (e - 6)).
 * Below 128, e taken as 6 (the bit or-ed in) makes that v itself: one formula, no branch
 * (durations on both sides of 128 alternate unpredictably in `account`'s hot loop). */
static inline uint32_t fr_qsketch_index(uint64_t v)
{
    _Static_assert(FR_QSKETCH_EXACT_BELOW == 2u << FR_QSKETCH_SUB_BITS, "one formula");
    unsigned shift = 63u - FR_QSKETCH_SUB_BITS -
                     (unsigned)__builtin_clzll(v | (1u << FR_QSKETCH_SUB_BITS));   /* 0..57 */
    return (shift << FR_QSKETCH_SUB_BITS) + (uint32_t)(v >> shift);
}
uint64_t fr_qsketch_bucket_value(uint32_t index);

void fr_qsketch_grow(fr_qsketch *s, uint32_t index);   /* makes the window cover index */

/* Accounts for v (count, min, max, window) and returns its bucket index. */
static inline uint32_t fr_qsketch_account(fr_qsketch *s, uint64_t v)
{
    uint32_t i = fr_qsketch_index(v);
    if (i - s->lo >= s->n)      /* outside the window (always, while it is empty) */
        fr_qsketch_grow(s, i);
    s->min = v < s->min ? v : s->min;
    s->max = v > s->max ? v : s->max;
    s->count++;
    return i;
}

static inline void fr_qsketch_add(fr_qsketch *s, uint64_t v)
{
    uint32_t i = fr_qsketch_account(s, v);
    s->buckets[i - s->lo]++;
}

/* Two-phase add, for callers that batch the bucket increments to keep them cache-local:
 * fr_qsketch_reserve accounts for v (count, min, max, window) and returns its bucket
 * index; fr_qsketch_bump adds the sample to that bucket later. Every reserve must be
 * followed by its bump before the sketch is read or merged. */
static inline uint32_t fr_qsketch_reserve(fr_qsketch *s, uint64_t v)
{
    return fr_qsketch_account(s, v);   /* the window only grows: index stays valid */
}
static inline void fr_qsketch_bump(fr_qsketch *s, uint32_t index)
{
    s->buckets[index - s->lo]++;
}

/* Adds every sample of src to dst. */
void fr_qsketch_merge(fr_qsketch *dst, const fr_qsketch *src);

/* The q-quantile (0 <= q <= 1) of the samples; 0 if there are none. */
uint64_t fr_qsketch_quantile(const fr_qsketch *s, double q);

#endif
