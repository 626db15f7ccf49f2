/* sled_patch.c - choose sleds and rewrite them, a few mprotect calls per operation. */
#define _GNU_SOURCE
#include "functrace/sled_patch.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "functrace/func_filter.h"
#include "functrace/sled_islands.h"

struct fr_sled_handlers fr_sled_handlers;

/* The trampolines (arch/<cpu>/trampolines_<cpu>.S) read the handlers at these offsets. */
_Static_assert(offsetof(struct fr_sled_handlers, function) == FR_ARCH_HANDLER_OFF_FUNCTION, "port offset");
_Static_assert(offsetof(struct fr_sled_handlers, function_arg1) == FR_ARCH_HANDLER_OFF_ARG1, "port offset");
_Static_assert(offsetof(struct fr_sled_handlers, custom_event) == FR_ARCH_HANDLER_OFF_CUSTOM, "port offset");
_Static_assert(offsetof(struct fr_sled_handlers, typed_event) == FR_ARCH_HANDLER_OFF_TYPED, "port offset");

/* One patching operation at a time, as compiler-rt: a concurrent caller gets ONGOING. */
static int patching;

typedef int (*select_fn)(const struct fr_instr_object *o, const struct fr_instr_function *f,
                         uint32_t id, void *ctx);

static int select_all(const struct fr_instr_object *o, const struct fr_instr_function *f,
                      uint32_t id, void *ctx)
{
    (void)o; (void)f; (void)id; (void)ctx;
    return 1;
}

static int in_segment(const struct fr_exec_segment *seg, uintptr_t a)
{
    return a >= seg->start && a + FR_ARCH_SLED_SIZE <= seg->end;
}

/* Rewrites the sleds of the selected functions of O. Per executable segment: one
 * mprotect to add PROT_WRITE over the pages that hold selected sleds, the writes, one
 * mprotect back to the segment's own protection. -1 if a step failed. */
static int apply(const struct fr_instr_object *o, select_fn sel, void *ctx, int enable)
{
    if (!o->function_count || __atomic_load_n(&o->unloaded, __ATOMIC_ACQUIRE))
        return 0;
    struct fr_sled_targets targets;
    if (enable && fr_sled_call_targets(o, &targets))
        return -1;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    int rc = 0;
    for (unsigned s = 0; s < o->segment_count; s++) {
        const struct fr_exec_segment *seg = &o->segments[s];
        uintptr_t lo = UINTPTR_MAX, hi = 0;
        for (size_t i = 0; i < o->function_count; i++) {
            const struct fr_instr_function *f = &o->functions[i];
            if (!sel(o, f, o->first_id + (uint32_t)i, ctx))
                continue;
            for (uint32_t k = 0; k < f->sled_count; k++) {
                uintptr_t a = o->sleds[f->first_sled + k].address;
                if (!in_segment(seg, a))
                    continue;
                if (a < lo)
                    lo = a;
                if (a + FR_ARCH_SLED_SIZE > hi)
                    hi = a + FR_ARCH_SLED_SIZE;
            }
        }
        if (lo >= hi)
            continue;
        lo &= ~(page - 1);
        hi = (hi + page - 1) & ~(page - 1);
        /* Never drop PROT_EXEC: other threads keep running this code meanwhile. */
        if (mprotect((void *)lo, hi - lo, seg->prot | PROT_WRITE | PROT_EXEC)) {
            rc = -1;
            continue;
        }
        for (size_t i = 0; i < o->function_count; i++) {
            const struct fr_instr_function *f = &o->functions[i];
            if (!sel(o, f, o->first_id + (uint32_t)i, ctx))
                continue;
            for (uint32_t k = 0; k < f->sled_count; k++) {
                const struct fr_sled *sl = &o->sleds[f->first_sled + k];
                if (in_segment(seg, sl->address) && fr_arch_sled_write(sl, enable, &targets))
                    rc = -1;
            }
        }
        if (mprotect((void *)lo, hi - lo, seg->prot))
            rc = -1;
    }
    return rc;
}

void fr_sled_patch_hold(void)
{
    while (__atomic_exchange_n(&patching, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

void fr_sled_patch_release(void)
{
    __atomic_store_n(&patching, 0, __ATOMIC_RELEASE);
}

static fr_patch_status apply_everywhere(select_fn sel, void *ctx, int enable)
{
    if (__atomic_exchange_n(&patching, 1, __ATOMIC_ACQUIRE))
        return FR_PATCH_ONGOING;
    fr_instr_map_refresh();   /* include objects dlopen'ed since last time */
    fr_patch_status st = FR_PATCH_SUCCESS;
    if (fr_instr_sled_total() == 0) {
        st = FR_PATCH_NOT_INITIALIZED;
    } else {
        uint32_t n = fr_instr_object_count();
        for (uint32_t i = 0; i < n; i++)
            if (apply(fr_instr_object_at(i), sel, ctx, enable))
                st = FR_PATCH_FAILED;
    }
    __atomic_store_n(&patching, 0, __ATOMIC_RELEASE);
    return st;
}

fr_patch_status fr_sled_patch_all(int enable)
{
    return apply_everywhere(select_all, NULL, enable);
}

static int select_id(const struct fr_instr_object *o, const struct fr_instr_function *f,
                     uint32_t id, void *ctx)
{
    (void)o; (void)f;
    return id == *(uint32_t *)ctx;
}

fr_patch_status fr_sled_patch_function(uint32_t id, int enable)
{
    fr_instr_map_ensure();
    if (fr_instr_sled_total() == 0)
        return FR_PATCH_NOT_INITIALIZED;
    if (!fr_instr_function_lookup(id, NULL))
        return FR_PATCH_FAILED;
    if (__atomic_exchange_n(&patching, 1, __ATOMIC_ACQUIRE))
        return FR_PATCH_ONGOING;
    const struct fr_instr_object *o = fr_instr_function_lookup(id, NULL);
    fr_patch_status st = apply(o, select_id, &id, enable) ? FR_PATCH_FAILED : FR_PATCH_SUCCESS;
    __atomic_store_n(&patching, 0, __ATOMIC_RELEASE);
    return st;
}

/* ---------------------------------------------------------------- the filter */

/* Sleds the last filtered patching chose: 0 tells the user the filter matched nothing.
 * Written only while `patching` is held. */
static uint32_t filter_hits;

static int select_filtered(const struct fr_instr_object *o, const struct fr_instr_function *f,
                           uint32_t id, void *ctx)
{
    (void)o; (void)ctx;
    int hit = fr_func_filter_selects(f->name, id);
    filter_hits += (uint32_t)hit;
    return hit;
}

fr_patch_status fr_sled_patch_filtered(void)
{
    filter_hits = 0;
    return apply_everywhere(select_filtered, NULL, 1);
}

uint32_t fr_sled_filter_hits(void)
{
    return filter_hits;
}
