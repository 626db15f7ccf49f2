/*
 * analysis_sketch_test.c - quantile_sketch against exact percentiles of known samples
 * (same rank convention: sorted[min(n-1, floor(q*n))]), within the stated relative error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "quantile_sketch.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
    size_t r = (size_t)floor(q * (double)n);
    return sorted[r < n ? r : n - 1];
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t xorshift(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void check_all_quantiles(const fr_qsketch *s, uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    assert_int_equal(s->count, n);
    assert_int_equal(s->min, v[0]);
    assert_int_equal(s->max, v[n - 1]);
    static const double qs[] = {0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        uint64_t want = exact_quantile(v, n, qs[i]);
        uint64_t got = fr_qsketch_quantile(s, qs[i]);
        double err = fabs((double)got - (double)want);
        if (err > FR_QSKETCH_RELATIVE_ERROR * (double)want)
            fail_msg("q=%g: got %llu want %llu", qs[i], (unsigned long long)got,
                     (unsigned long long)want);
    }
}

static void test_small_values_exact(void **state)
{
    (void)state;
    fr_qsketch s;
    fr_qsketch_init(&s);
    uint64_t v[] = {5, 1, 4, 2, 3, 0, 127, 100};
    for (size_t i = 0; i < 8; i++)
        fr_qsketch_add(&s, v[i]);
    /* sorted: 0 1 2 3 4 5 100 127; median = rank 4 */
    assert_int_equal(fr_qsketch_quantile(&s, 0.5), 4);
    assert_int_equal(fr_qsketch_quantile(&s, 0.9), 127);   /* rank 7 */
    assert_int_equal(fr_qsketch_quantile(&s, 0.75), 100);  /* rank 6 */
    assert_int_equal(fr_qsketch_quantile(&s, 0), 0);
    fr_qsketch_free(&s);
}

static void test_empty_and_single(void **state)
{
    (void)state;
    fr_qsketch s;
    fr_qsketch_init(&s);
    assert_int_equal(fr_qsketch_quantile(&s, 0.5), 0);
    fr_qsketch_add(&s, 123456789);
    assert_int_equal(fr_qsketch_quantile(&s, 0.5), 123456789);
    assert_int_equal(fr_qsketch_quantile(&s, 0.99), 123456789);
    fr_qsketch_free(&s);
}

static void test_every_bucket_boundary(void **state)
{
    (void)state;
    /* Each value reported through its own bucket is within the error bound. */
    for (unsigned e = 0; e < 64; e++) {
        uint64_t base = 1ull << e;
        uint64_t probes[] = {base, base + base / 3, base + base / 2, base * 2 - 1};
        for (int k = 0; k < 4; k++) {
            uint64_t v = probes[k];
            uint64_t got = fr_qsketch_bucket_value(fr_qsketch_index(v));
            assert_true(fr_qsketch_index(v) < FR_QSKETCH_MAX_BUCKETS);
            assert_true(fabs((double)got - (double)v) <= FR_QSKETCH_RELATIVE_ERROR * (double)v);
        }
    }
    assert_int_equal(fr_qsketch_index(UINT64_MAX), FR_QSKETCH_MAX_BUCKETS - 1);
}

/* The layout, written out the long way: exact below 128, then 64 buckets per power of two
 * (fr_qsketch_index computes it without a branch). */
static uint32_t index_by_layout(uint64_t v)
{
    if (v < 128)
        return (uint32_t)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);
    return 128 + (e - 7) * 64 + (uint32_t)((v >> (e - 6)) & 63);
}

static void test_bucket_index_layout(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < (1u << 18); v++)
        if (fr_qsketch_index(v) != index_by_layout(v))
            fail_msg("value %llu: bucket %u, layout says %u", (unsigned long long)v,
                     fr_qsketch_index(v), index_by_layout(v));
    for (unsigned e = 0; e < 64; e++)
        for (int d = -2; d <= 2; d++) {
            uint64_t v = (1ull << e) + (uint64_t)(int64_t)d;
            assert_int_equal(fr_qsketch_index(v), index_by_layout(v));
        }
}

static void test_uniform_and_lognormal_samples(void **state)
{
    (void)state;
    enum { N = 100000 };
    uint64_t *v = malloc(N * sizeof *v);
    fr_qsketch s;

    fr_qsketch_init(&s);
    for (size_t i = 0; i < N; i++) {
        v[i] = 1000 + xorshift() % 1000000;
        fr_qsketch_add(&s, v[i]);
    }
    check_all_quantiles(&s, v, N);
    fr_qsketch_free(&s);

    /* Heavy-tailed: a product of uniforms spans many powers of two. */
    fr_qsketch_init(&s);
    for (size_t i = 0; i < N; i++) {
        uint64_t x = 1;
        for (int k = 0; k < 4; k++)
            x *= 1 + xorshift() % 200;
        v[i] = x;
        fr_qsketch_add(&s, v[i]);
    }
    check_all_quantiles(&s, v, N);
    assert_true(s.n <= FR_QSKETCH_MAX_BUCKETS);
    fr_qsketch_free(&s);
    free(v);
}

static void test_merge_equals_single_sketch(void **state)
{
    (void)state;
    enum { N = 30000 };
    uint64_t *v = malloc(N * sizeof *v);
    fr_qsketch a, b, all;
    fr_qsketch_init(&a);
    fr_qsketch_init(&b);
    fr_qsketch_init(&all);
    for (size_t i = 0; i < N; i++) {
        /* a gets small values, b large: the merge must widen a's window */
        v[i] = i % 2 ? 50 + xorshift() % 500 : 1000000 + xorshift() % 100000000;
        fr_qsketch_add(i % 2 ? &a : &b, v[i]);
        fr_qsketch_add(&all, v[i]);
    }
    fr_qsketch_merge(&a, &b);
    static const double qs[] = {0, 0.1, 0.5, 0.9, 0.99, 1};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(fr_qsketch_quantile(&a, qs[i]), fr_qsketch_quantile(&all, qs[i]));
    check_all_quantiles(&a, v, N);
    fr_qsketch_free(&b); /* an empty sketch merges as nothing */
    fr_qsketch_merge(&a, &b);
    assert_int_equal(a.count, N);
    fr_qsketch_free(&a);
    fr_qsketch_free(&all);
    free(v);
}

static void test_llvm_xray_rank_convention(void **state)
{
    (void)state;
    /* llvm-xray account: median = sorted[n/2], p90 = sorted[floor(0.9n)], p99 likewise. */
    fr_qsketch s;
    fr_qsketch_init(&s);
    for (uint64_t x = 10; x <= 40; x += 10) /* 10 20 30 40 */
        fr_qsketch_add(&s, x);
    assert_int_equal(fr_qsketch_quantile(&s, 0.5), 30);
    assert_int_equal(fr_qsketch_quantile(&s, 0.9), 40);
    fr_qsketch_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_values_exact),
        cmocka_unit_test(test_empty_and_single),
        cmocka_unit_test(test_every_bucket_boundary),
        cmocka_unit_test(test_bucket_index_layout),
        cmocka_unit_test(test_uniform_and_lognormal_samples),
        cmocka_unit_test(test_merge_equals_single_sketch),
        cmocka_unit_test(test_llvm_xray_rank_convention),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
