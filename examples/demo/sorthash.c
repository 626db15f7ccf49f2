/*
 * sorthash.c - sort-and-hash: generates records, merge-sorts them (recursion down to an
 * insertion sort of small runs), builds an open-addressing hash index over their names and
 * answers lookups. A trace shows the merge sort's call tree and many short index calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demo.h"

#define NRECORDS 12000
#define SMALL_RUN 24

struct record {
    uint64_t key;
    char name[16];
};

static inline void make_record(struct record *r, uint64_t *seed)
{
    r->key = demo_rand(seed) % 1000000;
    uint64_t v = demo_rand(seed);
    for (int i = 0; i < 12; i++, v >>= 5)
        r->name[i] = (char)('a' + (v & 15));
    r->name[12] = 0;
}

DEMO_FN void insertion_sort(struct record *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct record x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].key > x.key) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

DEMO_FN void merge(struct record *a, size_t mid, size_t n, struct record *tmp)
{
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n)
        tmp[k++] = a[j].key < a[i].key ? a[j++] : a[i++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

DEMO_FN void merge_sort(struct record *a, size_t n, struct record *tmp)
{
    if (n <= SMALL_RUN) {
        insertion_sort(a, n);
        return;
    }
    size_t mid = n / 2;
    merge_sort(a, mid, tmp);
    merge_sort(a + mid, n - mid, tmp);
    merge(a, mid, n, tmp);
}

static inline uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

struct index {
    uint32_t *slots;     /* record number + 1, 0 = empty */
    size_t mask;
    const struct record *records;
};

DEMO_FN void index_insert(struct index *ix, uint32_t rec)
{
    size_t i = fnv1a(ix->records[rec].name) & ix->mask;
    while (ix->slots[i])
        i = (i + 1) & ix->mask;
    ix->slots[i] = rec + 1;
}

DEMO_FN int index_lookup(const struct index *ix, const char *name)
{
    size_t i = fnv1a(name) & ix->mask;
    while (ix->slots[i]) {
        if (!strcmp(ix->records[ix->slots[i] - 1].name, name))
            return (int)ix->slots[i] - 1;
        i = (i + 1) & ix->mask;
    }
    return -1;
}

DEMO_FN void check_sorted(const struct record *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (a[i - 1].key > a[i].key) {
            fprintf(stderr, "fr_demo: sort failed\n");
            exit(1);
        }
}

DEMO_FN uint64_t sort_and_hash(uint64_t seed)
{
    struct record *recs = malloc(NRECORDS * sizeof *recs), *tmp = malloc(NRECORDS * sizeof *tmp);
    for (size_t i = 0; i < NRECORDS; i++)
        make_record(&recs[i], &seed);
    merge_sort(recs, NRECORDS, tmp);
    check_sorted(recs, NRECORDS);

    struct index ix = {calloc(1 << 15, sizeof(uint32_t)), (1 << 15) - 1, recs};
    for (uint32_t i = 0; i < NRECORDS; i++)
        index_insert(&ix, i);
    uint64_t found = 0;
    for (size_t i = 0; i < NRECORDS; i += 4)
        found += index_lookup(&ix, recs[(i * 7919) % NRECORDS].name) >= 0;
    uint64_t result = found + recs[NRECORDS / 2].key;
    FR_EVENT(demo_events, "IndexQueried", FR_LEVEL(4), FR_U32("records", NRECORDS), FR_U64("found", found),
             FR_STR("median_name", recs[NRECORDS / 2].name));
    free(ix.slots);
    free(recs);
    free(tmp);
    return result;
}

uint64_t sorthash_workload(unsigned rounds)
{
    uint64_t sum = 0;
    for (unsigned r = 0; r < rounds; r++)
        sum += sort_and_hash(0x9E3779B97F4A7C15ull ^ r);
    return sum;
}
