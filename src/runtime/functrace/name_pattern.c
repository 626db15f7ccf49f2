/* name_pattern.c - does a function pattern name a function (name_pattern.h). */
#define _GNU_SOURCE
#include "functrace/name_pattern.h"

#include <ctype.h>
#include <dlfcn.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "name_simple.h"

/* Parses "N" or "N-M" (decimal). 1 if ITEM (LEN bytes) is one, with the bounds; 0 if it
 * is no id item; -1 if it starts as one but is malformed. */
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
 * a C++ program has libstdc++ loaded, a C program no mangled names). */
struct cxx_names {
    int   made;
    char *full, *simple;   /* NULL: not a C++ name, or no demangler */
};

/* A function's C++ names, made once for all the pattern's items. */
static void make_cxx_names(struct cxx_names *n, const char *name)
{
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    static demangle_fn demangle;
    static int looked;
    n->made = 1;
    if (name[0] != '_' || name[1] != 'Z')
        return;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&demangle, (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle"),
                         __ATOMIC_RELAXED);
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    int status = -1;
    demangle_fn d_fn = __atomic_load_n(&demangle, __ATOMIC_RELAXED);
    char *d = d_fn ? d_fn(name, NULL, NULL, &status) : NULL;
    if (!d || status != 0 || !(n->simple = strdup(d))) {
        free(d);
        return;
    }
    n->full = d;
    fr_name_simplify(n->simple);
}

static int item_matches(const char *item, size_t len, const char *name, uint32_t id,
                        struct cxx_names *cxx)
{
    uint32_t lo, hi;
    int r = parse_id_range(item, len, &lo, &hi);
    if (r)
        return r > 0 && id != FR_NAME_PATTERN_NO_ID && id >= lo && id <= hi;
    if (!name)
        return 0;
    char glob[256];
    if (len >= sizeof glob)
        return 0;
    memcpy(glob, item, len);
    glob[len] = 0;
    if (fnmatch(glob, name, 0) == 0)
        return 1;
    if (!cxx->made)
        make_cxx_names(cxx, name);
    return cxx->full && (fnmatch(glob, cxx->full, 0) == 0 || fnmatch(glob, cxx->simple, 0) == 0);
}

int fr_name_pattern_match(const char *pattern, const char *name, uint32_t id)
{
    const char *p = pattern;
    struct cxx_names cxx = {0};
    int hit = 0;
    while (*p && !hit) {
        size_t len = item_length(p);
        hit = len && item_matches(p, len, name, id, &cxx);
        p += len;
        if (*p == ':')
            p++;
    }
    free(cxx.full);
    free(cxx.simple);
    return hit;
}

int fr_name_pattern_valid(const char *pattern)
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
