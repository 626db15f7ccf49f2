/*
 * sled_islands.c - what a patched sled of an object calls (fr_sled_call_targets): the
 * trampolines themselves when a sled's call reaches them, else an island of far jumps
 * mapped near the object.
 *
 * A sled's call has a limited reach (FR_ARCH_CALL_REACH: rel32 on x86-64, `bl`'s +-128
 * MiB on aarch64). libflightrec.so is often mapped farther than that from the program
 * (a PIE at 0x55..., libraries at 0x7f...), so each such object gets one page, mapped at
 * FR_ARCH_ISLAND_STEP steps away from it (above first, then below) with
 * MAP_FIXED_NOREPLACE until one lands where every sled reaches it. The page holds one
 * slot of FR_ARCH_ISLAND_SLOT bytes per trampoline, written by the port
 * (fr_arch_island_slot: a jump that reaches anywhere and keeps every register the
 * trampoline expects), then made read-only and executable. Islands are made once per
 * object (its index) and kept; this runs under the patch lock.
 */
#define _GNU_SOURCE
#include "functrace/sled_islands.h"

#include <sys/mman.h>
#include <unistd.h>
#include "functrace/instr_map.h"

#define MAX_ISLANDS 1024
static uintptr_t islands[MAX_ISLANDS];   /* per object index; under the patch lock */

/* Every sled of O (inside [lo, hi)) can reach TARGET with its call. */
static int reachable(const struct fr_instr_object *o, uintptr_t target)
{
    const int64_t limit = (int64_t)FR_ARCH_CALL_REACH - 64;
    int64_t a = (int64_t)(target - o->lo), b = (int64_t)(target - o->hi);
    return a < limit && a > -limit && b < limit && b > -limit;
}

static uintptr_t map_island(const struct fr_instr_object *o)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t step = FR_ARCH_ISLAND_STEP;
    for (int dir = 0; dir < 2; dir++) {
        for (uintptr_t k = 1; k < FR_ARCH_ISLAND_STEPS; k++) {
            uintptr_t hint = dir == 0 ? ((o->hi + page - 1) & ~(page - 1)) + k * step
                                      : (o->lo & ~(page - 1)) - k * step;
            if (dir == 1 && hint > o->lo)
                break;   /* wrapped below zero */
            void *p = mmap((void *)hint, (size_t)page, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
            if (p == MAP_FAILED)
                continue;
            if (reachable(o, (uintptr_t)p) && reachable(o, (uintptr_t)p + page))
                return (uintptr_t)p;
            munmap(p, (size_t)page);   /* old kernel: the hint was only a hint */
        }
    }
    return 0;
}

int fr_sled_call_targets(const struct fr_instr_object *o, struct fr_sled_targets *t)
{
    int direct = 1;
    for (int k = 0; k < FR_TRAMP_COUNT; k++)
        direct &= reachable(o, fr_arch_trampoline((enum fr_trampoline)k));
    if (direct) {
        for (int k = 0; k < FR_TRAMP_COUNT; k++)
            t->address[k] = fr_arch_trampoline((enum fr_trampoline)k);
        return 0;
    }
    if (o->index >= MAX_ISLANDS)
        return -1;
    uintptr_t island = islands[o->index];
    if (!island) {
        island = map_island(o);
        if (!island)
            return -1;
        for (int k = 0; k < FR_TRAMP_COUNT; k++)
            fr_arch_island_slot((void *)(island + (uintptr_t)k * FR_ARCH_ISLAND_SLOT),
                                (enum fr_trampoline)k);
        /* aarch64: instruction fetch sees the new words (nothing to do on x86-64) */
        __builtin___clear_cache((char *)island, (char *)island + FR_TRAMP_COUNT * FR_ARCH_ISLAND_SLOT);
        if (mprotect((void *)island, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC))
            return -1;
        islands[o->index] = island;
    }
    for (int k = 0; k < FR_TRAMP_COUNT; k++)
        t->address[k] = island + (uintptr_t)k * FR_ARCH_ISLAND_SLOT;
    return 0;
}
