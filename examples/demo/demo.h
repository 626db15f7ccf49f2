/*
 * demo.h - the flightrec demo: three kinds of real work, run on several threads, so a
 * trace shows deep recursion (a bytecode interpreter), many short calls (an LZ77
 * compressor and its decompressor) and a divide-and-conquer tree (merge sort + hashing).
 * Every function is built with XRay sleds; `flightrec record` turns them on.
 */
#ifndef FR_DEMO_H
#define FR_DEMO_H

#include <stddef.h>
#include <stdint.h>
#include <flightrec/events.h>

/* The demo's structured events and spans (main.c defines it, registers it at start). */
FR_PROVIDER_DECLARE(demo_events);

/* Functions the trace should show as calls of their own: the compiler would otherwise
 * inline most of these static functions into their callers. */
#define DEMO_FN static __attribute__((noinline))

/* interp.c: assembles and runs small stack-machine programs; returns a checksum. */
uint64_t interp_workload(unsigned rounds);
/* lz.c: compresses and decompresses generated text, checks the round trip. */
uint64_t lz_workload(unsigned rounds);
/* sorthash.c: sorts records, builds a hash index and queries it. */
uint64_t sorthash_workload(unsigned rounds);

/* Deterministic pseudo-random numbers (xorshift64*), one state per caller. */
static inline uint64_t demo_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

#endif
