/*
 * u64_map.h - open-addressing hash map from a 64-bit key to a 32-bit value (an index into
 * the caller's own array). Linear probing, power-of-two table kept at most half full, so a
 * lookup is one multiply and usually one cache line. No deletion: the analyses only add.
 */
#ifndef FLIGHTREC_U64_MAP_H
#define FLIGHTREC_U64_MAP_H

#include <stdint.h>
#include <stddef.h>

#define FR_U64_MAP_NONE UINT32_MAX

typedef struct fr_u64_map {
    uint64_t *keys;
    uint32_t *vals;     /* FR_U64_MAP_NONE marks an empty slot */
    uint32_t  bits;     /* table size is 1 << bits */
    uint32_t  count;
} fr_u64_map;

void fr_u64_map_init(fr_u64_map *m);
void fr_u64_map_free(fr_u64_map *m);

static inline uint32_t fr_u64_map_slot(uint64_t key, uint32_t bits)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

/* The value stored for key, or FR_U64_MAP_NONE. */
static inline uint32_t fr_u64_map_get(const fr_u64_map *m, uint64_t key)
{
    uint32_t mask = (1u << m->bits) - 1;
    for (uint32_t i = fr_u64_map_slot(key, m->bits);; i = (i + 1) & mask) {
        if (m->vals[i] == FR_U64_MAP_NONE || m->keys[i] == key)
            return m->vals[i];
    }
}

/* Stores key -> val (val != FR_U64_MAP_NONE), replacing any previous value. */
void fr_u64_map_put(fr_u64_map *m, uint64_t key, uint32_t val);

#endif
