/*
 * perf_reread.c - perf record's re-read copies (perf_reread.h): each CPU's last sample
 * and the pass it came in.
 */
#include "perf_reread.h"

#include <stdlib.h>
#include <string.h>

typedef struct cpu_last {
    uint64_t pass;          /* of the sample held, plus one; 0: none held */
    uint32_t size, cap;
    uint8_t *rec;
} cpu_last;

struct fr_perf_reread {
    cpu_last *cpus;         /* indexed by CPU number */
    uint32_t  n_cpus;
    uint64_t  pass;         /* FINISHED_ROUND records read */
    size_t    bytes;        /* the records' buffers, in all */
    uint64_t  copies;
};

fr_perf_reread *fr_perf_reread_new(void)
{
    return calloc(1, sizeof(fr_perf_reread));
}

void fr_perf_reread_free(fr_perf_reread *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_cpus; i++)
        free(r->cpus[i].rec);
    free(r->cpus);
    free(r);
}

void fr_perf_reread_round(fr_perf_reread *r)
{
    r->pass++;
}

uint64_t fr_perf_reread_copies(const fr_perf_reread *r)
{
    return r->copies;
}

/* The slot of cpu, the table grown to it; NULL past the bounds or out of memory. */
static cpu_last *slot_of(fr_perf_reread *r, uint32_t cpu)
{
    if (cpu < r->n_cpus)
        return &r->cpus[cpu];
    if (cpu >= FR_PERF_REREAD_MAX_CPUS)
        return NULL;
    uint32_t n = r->n_cpus ? r->n_cpus : 8;
    while (n <= cpu)
        n *= 2;
    if (n > FR_PERF_REREAD_MAX_CPUS)
        n = FR_PERF_REREAD_MAX_CPUS;
    cpu_last *c = realloc(r->cpus, n * sizeof *c);
    if (!c)
        return NULL;
    memset(c + r->n_cpus, 0, (n - r->n_cpus) * sizeof *c);
    r->cpus = c;
    r->n_cpus = n;
    return &r->cpus[cpu];
}

/* Holds rec as c's last sample (of the current pass); forgets c's sample when it does
 * not fit the bounds. */
static void hold(fr_perf_reread *r, cpu_last *c, const uint8_t *rec, size_t size)
{
    if (size > c->cap) {
        size_t grow = size - c->cap;
        uint8_t *b = r->bytes + grow <= FR_PERF_REREAD_MAX_BYTES ? realloc(c->rec, size) : NULL;
        if (!b) {
            c->pass = 0;
            return;
        }
        c->rec = b;
        c->cap = (uint32_t)size;
        r->bytes += grow;
    }
    memcpy(c->rec, rec, size);
    c->size = (uint32_t)size;
    c->pass = r->pass + 1;
}

bool fr_perf_reread_is_copy(fr_perf_reread *r, uint32_t cpu, const uint8_t *rec, size_t size)
{
    cpu_last *c = slot_of(r, cpu);
    if (!c || size > UINT16_MAX)
        return false;
    /* c->pass == r->pass: the CPU's last sample came in the previous pass (held as its
     * pass plus one), so this is the CPU's first of this pass */
    if (c->pass && c->pass == r->pass && c->size == size && !memcmp(c->rec, rec, size)) {
        c->pass = r->pass + 1;          /* the same bytes, now this pass's last */
        r->copies++;
        return true;
    }
    hold(r, c, rec, size);
    return false;
}
