/* func_filter.c - the record-time function filter shared by the front ends (see
 * func_filter.h): the patterns, and the address table that -finstrument-functions hooks
 * consult. */
#define _GNU_SOURCE
#include "functrace/func_filter.h"
#include "functrace/instr_map.h"
#include "functrace/name_pattern.h"
#include "functrace/object_file.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PATTERN_MAX 1024
static char include_pattern[PATTERN_MAX];   /* "" = every function */
static char exclude_pattern[PATTERN_MAX];   /* "" = none */

/* Addresses whose decision differs from the default; values: KEEP or SKIP. Filled by
 * fr_func_filter_prepare (one thread at a time: init, or after a dlopen under the
 * loader's lock), read by the hooks with plain atomic loads. 1 MiB + 128 KiB of zero
 * pages, touched only where functions land. */
#define TABLE_BITS 17
#define TABLE_SIZE (1u << TABLE_BITS)
#define MAX_PROBES 128
enum { KEEP = 1, SKIP = 2 };
static uintptr_t table_addr[TABLE_SIZE];
static uint8_t table_value[TABLE_SIZE];
static uint32_t objects_read;   /* objects of instr_map looked at so far */
static long selected;           /* functions of hooked objects chosen so far */
static int any_hooked;          /* an object calling the hooks was seen */
static int full_reported;

static inline uint32_t addr_hash(uintptr_t a)
{
    return (uint32_t)(((uint64_t)a * 0x9E3779B97F4A7C15ull) >> (64 - TABLE_BITS));
}

static int copy_pattern(char *dst, const char *src)
{
    dst[0] = 0;
    if (!src || !*src || !strcmp(src, "all") || !strcmp(src, "none"))
        return 0;
    if (!fr_name_pattern_valid(src) || strlen(src) >= PATTERN_MAX)
        return -1;
    strcpy(dst, src);
    return 0;
}

int fr_func_filter_set(const char *patch, const char *exclude)
{
    int rc = copy_pattern(include_pattern, patch) | copy_pattern(exclude_pattern, exclude);
    for (uint32_t i = 0; i < TABLE_SIZE; i++)
        if (__atomic_load_n(&table_addr[i], __ATOMIC_RELAXED))
            __atomic_store_n(&table_addr[i], 0, __ATOMIC_RELAXED);
    objects_read = 0;
    selected = 0;
    any_hooked = 0;
    full_reported = 0;
    return rc;
}

int fr_func_filter_narrows(void)
{
    return include_pattern[0] || exclude_pattern[0];
}

int fr_func_filter_selects(const char *name, uint32_t id)
{
    if (include_pattern[0] && !fr_name_pattern_match(include_pattern, name, id))
        return 0;
    return !(exclude_pattern[0] && fr_name_pattern_match(exclude_pattern, name, id));
}

static int default_keep(void)
{
    return include_pattern[0] == 0;
}

int fr_func_filter_lookup(uintptr_t addr, int *known)
{
    uint32_t i = addr_hash(addr);
    for (int probe = 0; probe < MAX_PROBES; probe++, i = (i + 1) & (TABLE_SIZE - 1)) {
        uintptr_t cur = __atomic_load_n(&table_addr[i], __ATOMIC_ACQUIRE);
        if (cur == addr) {
            *known = 1;
            return __atomic_load_n(&table_value[i], __ATOMIC_RELAXED) == KEEP;
        }
        if (cur == 0)
            break;
    }
    *known = 0;   /* not in the table: the default, known or not (the caller may ask again) */
    return default_keep();
}

/* Puts ADDR -> VALUE in the table; an exclusion (SKIP) wins over a selection of the same
 * address under another name (an alias). */
static void table_put(uintptr_t addr, uint8_t value)
{
    uint32_t i = addr_hash(addr);
    for (int probe = 0; probe < MAX_PROBES; probe++, i = (i + 1) & (TABLE_SIZE - 1)) {
        uintptr_t cur = __atomic_load_n(&table_addr[i], __ATOMIC_RELAXED);
        if (cur == addr) {
            if (value == SKIP)
                __atomic_store_n(&table_value[i], SKIP, __ATOMIC_RELAXED);
            return;
        }
        if (cur == 0) {
            __atomic_store_n(&table_value[i], value, __ATOMIC_RELAXED);
            __atomic_store_n(&table_addr[i], addr, __ATOMIC_RELEASE);
            return;
        }
    }
    if (!full_reported) {
        full_reported = 1;
        static const char msg[] = "flightrec: filter: too many functions chosen for the "
                                  "-finstrument-functions table; the rest get the default\n";
        (void)!write(2, msg, sizeof msg - 1);
    }
}

static void decide_symbol(uint64_t value, const char *name, void *vctx)
{
    uintptr_t bias = *(const uintptr_t *)vctx;
    if (!value || !name[0])
        return;
    if (exclude_pattern[0] && fr_name_pattern_match(exclude_pattern, name, FR_NAME_PATTERN_NO_ID)) {
        table_put((uintptr_t)value + bias, SKIP);   /* wins over an alias's selection */
    } else if (!include_pattern[0] ||
               fr_name_pattern_match(include_pattern, name, FR_NAME_PATTERN_NO_ID)) {
        selected++;
        if (!default_keep())
            table_put((uintptr_t)value + bias, KEEP);
    }
}

long fr_func_filter_prepare(void)
{
    if (!fr_func_filter_narrows())
        return -1;
    fr_instr_map_refresh();
    uint32_t n = fr_instr_object_count();
    for (uint32_t k = objects_read; k < n; k++) {
        const struct fr_instr_object *o = fr_instr_object_at(k);
        if (__atomic_load_n(&o->unloaded, __ATOMIC_ACQUIRE))
            continue;
        fr_object_file *of = fr_object_file_open(k == 0 ? "/proc/self/exe" : o->path);
        if (!of)
            continue;
        /* Only objects that call the hooks hold hooked functions (libc defines empty
         * ones; an executable linked with libflightrec.a defines ours): libc's and
         * libstdc++'s thousands of names are not matched. */
        if (fr_object_file_has_symbol(of, "__cyg_profile_func_enter", k != 0)) {
            any_hooked = 1;
            uintptr_t bias = o->bias;
            fr_object_file_symbols(of, decide_symbol, &bias);
        }
        fr_object_file_close(of);
    }
    objects_read = n;
    return any_hooked ? selected : -1;
}
