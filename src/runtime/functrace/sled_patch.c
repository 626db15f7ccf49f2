/* sled_patch.c - choose sleds and rewrite them, a few mprotect calls per operation. */
#define _GNU_SOURCE
#include "functrace/sled_patch.h"

#include <ctype.h>
#include <dlfcn.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "name_simple.h"

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
    if (enable && fr_arch_sled_targets(o, &targets))
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

/* ---------------------------------------------------------------- patterns */

/* Parses "N" or "N-M" (decimal). 1 if ITEM (LEN bytes) is one, with the bounds. */
static int parse_id_range(const char *item, size_t len, uint32_t *lo, uint32_t *hi)
{
    if (!len || !isdigit((unsigned char)item[0]))
        return 0;
    char buf[32];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, item, len);
    buf[len] = 0;
    char *end;
    unsigned long a = strtoul(buf, &end, 10), b = a;
    if (*end == '-')
        b = strtoul(end + 1, &end, 10);
    if (*end || a > UINT32_MAX || b > UINT32_MAX || b < a)
        return -1;
    *lo = (uint32_t)a;
    *hi = (uint32_t)b;
    return 1;
}

/* The length of the pattern item at p: up to a ':' that separates items, not one of a
 * C++ scope's "::" ("app::Box*:step" is the items "app::Box*" and "step"). */
static size_t item_length(const char *p)
{
    size_t n = 0;
    while (p[n]) {
        if (p[n] == ':') {
            if (p[n + 1] != ':')
                break;
            n++;   /* a "::" as a whole */
        }
        n++;
    }
    return n;
}

/* C++ names are matched as people write them: demangled in full ("ns::Box<long>::get(int)
 * const") or simple ("ns::Box::get"), besides the linked (mangled) name. The demangler
 * is the C++ runtime's, found at run time (libc and pthreads are all the runtime links;
 * a C++ program has libstdc++ loaded, a C program no mangled names). Patching runs at
 * start-up, on dlopen and on request: never in a signal handler or on the record path. */
struct cxx_names {
    int   made;
    char *full, *simple;   /* NULL: not a C++ name, or no demangler */
};

/* A function's C++ names, made once for all the pattern's items (select_pattern). */
static void make_cxx_names(struct cxx_names *n, const char *name)
{
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    static demangle_fn demangle;
    static int looked;
    n->made = 1;
    if (name[0] != '_' || name[1] != 'Z')
        return;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    int status = -1;
    char *d = demangle ? demangle(name, NULL, NULL, &status) : NULL;
    if (!d || status != 0 || !(n->simple = strdup(d))) {
        free(d);
        return;
    }
    n->full = d;
    fr_name_simplify(n->simple);
}

static int item_matches(const char *item, size_t len, const struct fr_instr_function *f,
                        uint32_t id, struct cxx_names *cxx)
{
    uint32_t lo, hi;
    int r = parse_id_range(item, len, &lo, &hi);
    if (r)
        return r > 0 && id >= lo && id <= hi;
    if (!f->name)
        return 0;
    char glob[256];
    if (len >= sizeof glob)
        return 0;
    memcpy(glob, item, len);
    glob[len] = 0;
    if (fnmatch(glob, f->name, 0) == 0)
        return 1;
    if (!cxx->made)
        make_cxx_names(cxx, f->name);
    return cxx->full && (fnmatch(glob, cxx->full, 0) == 0 || fnmatch(glob, cxx->simple, 0) == 0);
}

/* Sleds the last pattern chose: 0 tells the user the pattern matched nothing. Written
 * only while `patching` is held. */
static uint32_t pattern_hits;

static int select_pattern(const struct fr_instr_object *o, const struct fr_instr_function *f,
                          uint32_t id, void *ctx)
{
    (void)o;
    const char *p = ctx;
    struct cxx_names cxx = {0};
    int hit = 0;
    while (*p && !hit) {
        size_t len = item_length(p);
        hit = len && item_matches(p, len, f, id, &cxx);
        p += len;
        if (*p == ':')
            p++;
    }
    free(cxx.full);
    free(cxx.simple);
    pattern_hits += (uint32_t)hit;
    return hit;
}

int fr_sled_pattern_valid(const char *pattern)
{
    if (!pattern || !*pattern)
        return 0;
    const char *p = pattern;
    while (*p) {
        size_t len = item_length(p);
        uint32_t lo, hi;
        if (len == 0 || len >= 256 || parse_id_range(p, len, &lo, &hi) < 0)
            return 0;
        p += len;
        if (*p == ':')
            p++;
    }
    return 1;
}

fr_patch_status fr_sled_patch_pattern(const char *pattern, int enable)
{
    if (pattern && !strcmp(pattern, "all"))
        return fr_sled_patch_all(enable);
    if (pattern && !strcmp(pattern, "none"))
        return fr_sled_patch_all(0);
    if (!fr_sled_pattern_valid(pattern))
        return FR_PATCH_FAILED;
    pattern_hits = 0;
    return apply_everywhere(select_pattern, (void *)pattern, enable);
}

uint32_t fr_sled_pattern_hits(void)
{
    return pattern_hits;
}
