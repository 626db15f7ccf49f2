/* finstrument.c - gcc -finstrument-functions hooks and their id table. */
#define _GNU_SOURCE
#include "functrace/finstrument.h"
#include "functrace/func_filter.h"
#include "functrace/instr_map.h"
#include "functrace/object_file.h"
#include "functrace/shadow_stack.h"
#include "arch/port.h"

#include <stdlib.h>
#include <string.h>

#define TABLE_SIZE (1u << FR_FINSTRUMENT_TABLE_BITS)
#define MAX_PROBES 64

/* Slot i holds the address of the function with id FR_FINSTRUMENT_FIRST_ID + i, or 0.
 * 1 MiB of zero pages, touched only where functions land. */
static uintptr_t slots[TABLE_SIZE];
static const char *names[TABLE_SIZE];   /* filled by fr_finstrument_resolve_names */
static uint64_t unassigned;             /* calls of functions the full table refused */
/* The record-time filter's answer per slot (func_filter.h), asked at a slot's first call
 * and after the filter changes: 0 not asked yet; KEEP or 0 (skip) with GUESSED when the
 * function was in no symbol table read so far (asked again after the next dlopen). */
enum { DECIDED = 1, KEEP = 2, GUESSED = 4 };
static uint8_t decisions[TABLE_SIZE];

_Static_assert(FR_FINSTRUMENT_FIRST_ID + TABLE_SIZE - 1 <= FR_XRAY_MAX_FUNCTION_ID, "ids fit");
_Static_assert(FR_FINSTRUMENT_FIRST_ID > FR_SLED_MAX_FUNCTION_ID, "no collision with sleds");

static inline uint32_t slot_hash(uintptr_t fn)
{
    uint64_t h = (uint64_t)fn * 0x9E3779B97F4A7C15ull;   /* Fibonacci hashing */
    return (uint32_t)(h >> (64 - FR_FINSTRUMENT_TABLE_BITS));
}

/* Id of FN, assigned on first sight. 0 when the table is full around FN's hash. */
static inline uint32_t function_id(uintptr_t fn)
{
    uint32_t i = slot_hash(fn);
    for (int probe = 0; probe < MAX_PROBES; probe++, i = (i + 1) & (TABLE_SIZE - 1)) {
        uintptr_t cur = __atomic_load_n(&slots[i], __ATOMIC_RELAXED);
        if (cur == fn)
            return FR_FINSTRUMENT_FIRST_ID + i;
        if (cur == 0) {
            uintptr_t expected = 0;
            if (__atomic_compare_exchange_n(&slots[i], &expected, fn, 0, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED) || expected == fn)
                return FR_FINSTRUMENT_FIRST_ID + i;
        }
    }
    __atomic_fetch_add(&unassigned, 1, __ATOMIC_RELAXED);
    return 0;
}

/* Whether the function in slot ID - FIRST_ID is recorded: the filter's answer, asked once. */
static __attribute__((noinline)) int decide(uint32_t slot, uintptr_t fn)
{
    int known;
    int keep = fr_func_filter_lookup(fn, &known);
    __atomic_store_n(&decisions[slot], (uint8_t)(DECIDED | (keep ? KEEP : 0) | (known ? 0 : GUESSED)),
                     __ATOMIC_RELAXED);
    return keep;
}

/* ID if the function is to be recorded, else 0: a load and a branch once decided. */
static inline uint32_t filtered(uint32_t id, uintptr_t fn)
{
    if (!id)
        return 0;
    uint32_t slot = id - FR_FINSTRUMENT_FIRST_ID;
    uint8_t d = __atomic_load_n(&decisions[slot], __ATOMIC_RELAXED);
    if (__builtin_expect(d & KEEP, 1))
        return id;
    return d == 0 && decide(slot, fn) ? id : 0;
}

void fr_finstrument_filter_changed(int guessed_only)
{
    for (uint32_t i = 0; i < TABLE_SIZE; i++) {
        uint8_t d = __atomic_load_n(&decisions[i], __ATOMIC_RELAXED);
        if (d && (!guessed_only || (d & GUESSED)))
            __atomic_store_n(&decisions[i], 0, __ATOMIC_RELAXED);
    }
}

#define HOOK __attribute__((visibility("default"), no_instrument_function))

HOOK void __cyg_profile_func_enter(void *fn, void *call_site)
{
    (void)call_site;
    if (!fr_recording)
        return;
    uint32_t id = filtered(function_id((uintptr_t)fn), (uintptr_t)fn);
    if (id) {
        /* The caller's stack pointer at this call: frames below it at a catch or a
         * longjmp target were unwound (shadow_stack.h). */
        fr_shadow_finstrument_enter(id, FR_ARCH_CALLER_SP());
        fr_record_function(id, FR_FN_ENTER);
    }
}

HOOK void __cyg_profile_func_exit(void *fn, void *call_site)
{
    (void)call_site;
    if (!fr_recording)
        return;
    uint32_t id = filtered(function_id((uintptr_t)fn), (uintptr_t)fn);
    if (id) {
        fr_shadow_finstrument_exit(id);   /* may first close frames a longjmp skipped */
        fr_record_function(id, FR_FN_EXIT);
    }
}

/* ---------------------------------------------------------------- names, at finalize */

static int find_slot(uintptr_t fn)
{
    uint32_t i = slot_hash(fn);
    for (int probe = 0; probe < MAX_PROBES; probe++, i = (i + 1) & (TABLE_SIZE - 1)) {
        uintptr_t cur = __atomic_load_n(&slots[i], __ATOMIC_RELAXED);
        if (cur == fn)
            return (int)i;
        if (cur == 0)
            return -1;
    }
    return -1;
}

struct name_ctx {
    uintptr_t bias;
};

static void name_symbol(uint64_t value, const char *name, void *vctx)
{
    struct name_ctx *c = vctx;
    int i = find_slot((uintptr_t)value + c->bias);
    if (i >= 0 && !names[i] && name[0])
        names[i] = strdup(name);
}

void fr_finstrument_resolve_names(void)
{
    fr_instr_map_refresh();
    uint32_t n = fr_instr_object_count();
    uint8_t *used = calloc(n ? n : 1, 1);
    if (!used)
        return;
    fr_finstrument_mark_objects(used, n);
    for (uint32_t k = 0; k < n; k++) {
        if (!used[k])
            continue;
        const struct fr_instr_object *o = fr_instr_object_at(k);
        fr_object_file *of = fr_object_file_open(k == 0 ? "/proc/self/exe" : o->path);
        if (!of)
            continue;
        struct name_ctx c = {o->bias};
        fr_object_file_symbols(of, name_symbol, &c);
        fr_object_file_close(of);
    }
    free(used);
}

void fr_finstrument_mark_objects(uint8_t *used, uint32_t nobjects)
{
    for (uint32_t i = 0; i < TABLE_SIZE; i++) {
        uintptr_t fn = __atomic_load_n(&slots[i], __ATOMIC_RELAXED);
        if (!fn)
            continue;
        const struct fr_instr_object *o = fr_instr_object_containing(fn);
        if (o && o->index < nobjects)
            used[o->index] = 1;
    }
}

/* One FR_TE_FUNCTION (fr_format.h) per hooked function. */
void fr_finstrument_emit(fr_meta_writer *w)
{
    for (uint32_t i = 0; i < TABLE_SIZE; i++) {
        uintptr_t fn = __atomic_load_n(&slots[i], __ATOMIC_RELAXED);
        uint8_t d = __atomic_load_n(&decisions[i], __ATOMIC_RELAXED);
        if (!fn || (d && !(d & KEEP)))
            continue;   /* none, or filtered out: never recorded */
        const struct fr_instr_object *o = fr_instr_object_containing(fn);
        struct fr_te_function f = { .id = FR_FINSTRUMENT_FIRST_ID + i,
                                    .object = o ? o->index : UINT32_MAX, .address = fn };
        fr_meta_emit_str16(w, FR_TE_FUNCTION, &f, sizeof f, names[i], 1024);
    }
}
