/*
 * convert_clock_test.c - the converters' tick -> nanosecond conversion without division
 * (cv_clock_ns, convert.h: multiply-high by a precomputed inverse) against the exact
 * 128-bit arithmetic written here (round half away from zero), on clock rates from 1 Hz
 * to 17 GHz (real TSCs, 10^9, powers of two, primes) and tick counts from 0 to 2^63 and
 * below 0: random ones, and those next to multiples of the rate and to rounding halves.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "convert.h"

/* The reference (what cli_common.c computes): round(ticks * 10^9 / tps). */
int64_t fr_cli_ticks_to_ns(int64_t ticks, uint64_t tps)
{
    if (!tps)
        return ticks;
    __int128 num = (__int128)ticks * 1000000000, den = tps;
    return (int64_t)(num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den));
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    static const uint64_t rates[] = {1, 2, 3, 7, 1000, 1000000, 999999937, 1000000000, 1000000007,
                                     1 << 30, 2100000000, 2899999999, 2900000000, 3192583000,
                                     4294967296, 4294967297, 9999999967, 17999999999};
    unsigned long checked = 0, wrong = 0;
    for (size_t k = 0; k < sizeof rates / sizeof rates[0] + 200; k++) {
        uint64_t tps = k < sizeof rates / sizeof rates[0] ? rates[k] : 1 + next() % 17999999999ull;
        cv_clock c;
        cv_clock_init(&c, tps);
        if (!c.fast) {
            fprintf(stderr, "rate %llu: not on the fast path\n", (unsigned long long)tps);
            return 1;
        }
        for (int i = 0; i < 20000; i++) {
            int64_t t;
            switch (i % 5) {
            case 0: t = (int64_t)(next() >> 1); break;                         /* any */
            case 1: t = (int64_t)(next() % (1ull << 40)); break;               /* realistic */
            case 2: t = (int64_t)((next() % (1ull << 33)) * tps) + (int64_t)(next() % 3) - 1; break;
            case 3: {   /* next to a rounding half: ticks * 10^9 = (j + 1/2) * tps */
                uint64_t j = next() % (1ull << 30);
                t = (int64_t)(((__int128)(2 * j + 1) * tps) / 2000000000) + (int64_t)(next() % 3) - 1;
                break;
            }
            default: t = -(int64_t)(next() % (1ull << 50)); break;             /* negative */
            }
            if (t < 0 && i % 5 != 4)
                t = -t;
            int64_t want = fr_cli_ticks_to_ns(t, tps), got = cv_clock_ns(&c, t);
            checked++;
            if (got != want && wrong++ < 10)
                fprintf(stderr, "tps %llu ticks %lld: %lld, want %lld\n", (unsigned long long)tps,
                        (long long)t, (long long)got, (long long)want);
        }
    }
    printf("%lu conversions, %lu wrong\n", checked, wrong);
    return wrong != 0;
}
