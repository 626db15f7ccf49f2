/* u64_map.c - see u64_map.h. */
#include "u64_map.h"

#include <stdlib.h>
#include <string.h>
#include "fr_alloc.h"

#define INITIAL_BITS 6

static void alloc_table(fr_u64_map *m, uint32_t bits)
{
    size_t n = (size_t)1 << bits;
    m->bits = bits;
    m->keys = fr_xrealloc(NULL, n * sizeof *m->keys);
    m->vals = fr_xrealloc(NULL, n * sizeof *m->vals);
    memset(m->vals, 0xff, n * sizeof *m->vals); /* all FR_U64_MAP_NONE */
}

void fr_u64_map_init(fr_u64_map *m)
{
    m->count = 0;
    alloc_table(m, INITIAL_BITS);
}

void fr_u64_map_free(fr_u64_map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->count = 0;
}

static void insert_fresh(fr_u64_map *m, uint64_t key, uint32_t val)
{
    uint32_t mask = (1u << m->bits) - 1;
    uint32_t i = fr_u64_map_slot(key, m->bits);
    while (m->vals[i] != FR_U64_MAP_NONE)
        i = (i + 1) & mask;
    m->keys[i] = key;
    m->vals[i] = val;
}

void fr_u64_map_put(fr_u64_map *m, uint64_t key, uint32_t val)
{
    uint32_t mask = (1u << m->bits) - 1;
    for (uint32_t i = fr_u64_map_slot(key, m->bits);; i = (i + 1) & mask) {
        if (m->vals[i] == FR_U64_MAP_NONE)
            break;
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return;
        }
    }
    if ((m->count + 1) * 2 > (1u << m->bits)) {
        uint64_t *old_keys = m->keys;
        uint32_t *old_vals = m->vals;
        size_t old_n = (size_t)1 << m->bits;
        alloc_table(m, m->bits + 1);
        for (size_t i = 0; i < old_n; i++)
            if (old_vals[i] != FR_U64_MAP_NONE)
                insert_fresh(m, old_keys[i], old_vals[i]);
        free(old_keys);
        free(old_vals);
    }
    insert_fresh(m, key, val);
    m->count++;
}
