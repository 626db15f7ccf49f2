/*
 * analysis_gen.c - writes a large synthetic XRay FDR v5 trace for the account benchmark,
 * streaming (memory stays small whatever the size), plus a YAML instrumentation map so
 * that llvm-xray can read it too.
 *
 * The workload: THREADS threads, each one block (llvm-xray's account mis-handles several
 * blocks per thread), running "requests" through a fixed program of FUNCS functions in
 * levels: a function calls 0-3 functions of the next level, one of them recursively.
 * Timestamps advance 5-200 ticks per record; the threads' blocks follow each other in
 * time. A metadata block names every function.
 *
 * VARIETY (default 3) is how many callees each call site chooses among: 3 makes nearly
 * every call's stack new (millions of distinct stacks), 1 a fixed call tree whose
 * ~450,000 stacks recur (the `stack` benchmark's trace).
 *
 * usage: analysis_gen OUT.xray OUT-map.yaml RECORDS [THREADS [VARIETY]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fr_format.h"

#define FUNCS  300
#define LEVELS 8
#define PER_LEVEL (FUNCS / LEVELS)   /* 37 functions per level; the rest are recursive leaves */
#define TICKS_PER_SECOND 2100000000ull

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 32);
}

static FILE *out;
static uint32_t variety = 3;
static uint64_t tsc;
static uint64_t written;     /* function records */
static uint64_t block_bytes; /* bytes of the current block after its extents record */

static void put(const void *p, size_t n)
{
    if (fwrite(p, 1, n, out) != n) {
        perror("analysis_gen: write");
        exit(1);
    }
    block_bytes += n;
}

static void metadata(unsigned kind, const void *payload, size_t n)
{
    uint8_t rec[FR_XRAY_METADATA_SIZE] = {FR_MD_BYTE0(kind)};
    memcpy(rec + 1, payload, n);
    put(rec, sizeof rec);
}

static long extents_at;
static void begin_block(int32_t tid, uint32_t index, uint64_t start_tsc)
{
    uint64_t zero = 0;
    extents_at = ftell(out);
    metadata(FR_MD_BUFFER_EXTENTS, &zero, 8);
    block_bytes = 0;
    metadata(FR_MD_NEW_BUFFER, &tid, 4);
    uint8_t w[12];
    int64_t sec = 1 + index;
    int32_t usec = 1 + (int32_t)index;
    memcpy(w, &sec, 8);
    memcpy(w + 8, &usec, 4);
    metadata(FR_MD_WALLTIME_MARKER, w, sizeof w);
    int32_t pid = 4242;
    metadata(FR_MD_PID, &pid, 4);
    uint8_t c[10];
    uint16_t cpu = (uint16_t)(index % 2);
    memcpy(c, &cpu, 2);
    memcpy(c + 2, &start_tsc, 8);
    metadata(FR_MD_NEW_CPU_ID, c, sizeof c);
    tsc = start_tsc;
}

static void end_block(void)
{
    long end = ftell(out);
    uint8_t rec[FR_XRAY_METADATA_SIZE] = {FR_MD_BYTE0(FR_MD_BUFFER_EXTENTS)};
    memcpy(rec + 1, &block_bytes, 8);
    fseek(out, extents_at, SEEK_SET);
    fwrite(rec, 1, sizeof rec, out);
    fseek(out, end, SEEK_SET);
}

static void function_record(uint32_t id, unsigned kind)
{
    uint32_t delta = 5 + next_random() % 196;
    tsc += delta;
    uint32_t w[2] = {fr_function_record_word(id, kind), delta};
    put(w, sizeof w);
    written++;
}

/* Function ids: level L holds ids 1 + L*PER_LEVEL .. (L+1)*PER_LEVEL. */
static void call(uint32_t level, uint32_t index, uint32_t recursion)
{
    uint32_t id = 1 + level * PER_LEVEL + index;
    function_record(id, FR_FN_ENTER);
    if (level + 1 < LEVELS) {
        uint32_t children = next_random() % 4;
        for (uint32_t k = 0; k < children; k++)
            call(level + 1, (index * 7 + k * 13 + next_random() % variety) % PER_LEVEL, 0);
    } else if (recursion < 6 && next_random() % 2) {
        call(level, index, recursion + 1);   /* a recursive leaf */
    }
    function_record(id, FR_FN_EXIT);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s OUT.xray OUT-map.yaml RECORDS [THREADS [VARIETY]]\n", argv[0]);
        return 2;
    }
    uint64_t target = strtoull(argv[3], NULL, 10);
    int threads = argc > 4 ? atoi(argv[4]) : 4;
    if (threads < 1)
        threads = 1;
    if (argc > 5 && atoi(argv[5]) >= 1)
        variety = (uint32_t)atoi(argv[5]);

    FILE *map = fopen(argv[2], "w");
    out = fopen(argv[1], "wb");
    if (!map || !out) {
        perror("analysis_gen");
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(out, buf, _IOFBF, sizeof buf);

    struct fr_xray_file_header h = {
        .version = FR_XRAY_VERSION_FDR,
        .type = FR_XRAY_TYPE_FDR,
        .flags = FR_XRAY_FLAG_CONSTANT_TSC | FR_XRAY_FLAG_NONSTOP_TSC,
        .cycle_frequency = TICKS_PER_SECOND,
        .buffer_size = 1 << 20,
    };
    put(&h, sizeof h);

    /* The metadata block: one FR_TE_FUNCTION per function; the map for llvm-xray. */
    fprintf(map, "---\n");
    begin_block(0, 0, 1000);
    uint32_t n_funcs = LEVELS * PER_LEVEL;
    for (uint32_t id = 1; id <= n_funcs; id++) {
        char name[32];
        int len = snprintf(name, sizeof name, "level%u_func%u", (id - 1) / PER_LEVEL, id);
        uint64_t address = 0x401000 + 16ull * id;
        uint16_t n = (uint16_t)len;
        /* our record (docs/FORMAT.md): a custom event, envelope, FR_TE_FUNCTION payload */
        struct fr_te_envelope e = { .magic = FR_TE_MAGIC, .type = FR_TE_FUNCTION };
        struct fr_te_function f = { .id = id, .object = 0, .address = address };
        uint8_t ce[8];
        int32_t size = (int32_t)(sizeof e + sizeof f + 2 + n), delta = 0;
        memcpy(ce, &size, 4);
        memcpy(ce + 4, &delta, 4);
        metadata(FR_MD_CUSTOM_EVENT, ce, sizeof ce);
        put(&e, sizeof e);
        put(&f, sizeof f);
        put(&n, 2);
        put(name, n);
        fprintf(map, "- { id: %u, address: 0x%llx, function: 0x%llx, kind: function-enter, "
                     "always-instrument: true, function-name: %s }\n",
                id, (unsigned long long)address, (unsigned long long)address, name);
        fprintf(map, "- { id: %u, address: 0x%llx, function: 0x%llx, kind: function-exit, "
                     "always-instrument: true, function-name: %s }\n",
                id, (unsigned long long)address + 8, (unsigned long long)address, name);
    }
    end_block();

    /* Threads run one after the other: llvm-xray account rejects a record older than one
     * it has seen, and it reads blocks in file order. */
    uint64_t per_thread = target / (uint64_t)threads;
    uint64_t start = 1000;
    for (int t = 0; t < threads; t++) {
        begin_block(1000 + t, 1 + (uint32_t)t, start);
        uint64_t goal = per_thread * (uint64_t)(t + 1);
        while (written < goal)
            call(0, next_random() % PER_LEVEL, 0);
        end_block();
        start = tsc + 10;
    }
    if (fclose(out) != 0 || fclose(map) != 0) {
        perror("analysis_gen");
        return 1;
    }
    printf("%llu function records, %d threads, %u functions\n",
           (unsigned long long)written, threads, n_funcs);
    return 0;
}
