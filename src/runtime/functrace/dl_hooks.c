/*
 * dl_hooks.c - objects loaded and unloaded while the program runs (issue 10, issue 15).
 *
 * dlopen and dlclose are interposed (definitions in libflightrec found before libc's):
 *   dlopen:  the real dlopen, then the new objects' sleds are patched as init patched the
 *            others (fr_functrace_after_dlopen), before the caller can run their code;
 *   dlclose: patching is held off around the real dlclose, and the objects it unloaded
 *            are marked unloaded before anyone may patch again: their sleds are never
 *            written after their memory could belong to another object. (The sled
 *            writer also checks the bytes it overwrites, sled_x86_64.c.)
 *
 * glibc's dlopen searches a bare name (no '/') in the RUNPATH of the object that called
 * it, found by its return address: through this wrapper that would be libflightrec. So
 * for a bare name the caller's own DT_RUNPATH (or DT_RPATH) directories are tried first,
 * with $ORIGIN expanded, then the real dlopen with the name as given. (This tries the
 * caller's directories before LD_LIBRARY_PATH, where glibc tries them after.)
 * The definitions are weak: a program's own dlopen interposer, or a sanitizer's, wins.
 */
#define _GNU_SOURCE
#include "functrace/instr_map.h"
#include "functrace/sled_patch.h"

#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOOK __attribute__((weak, visibility("default")))

typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);
static dlopen_fn real_dlopen;
static dlclose_fn real_dlclose;

static void resolve(void)
{
    extern HOOK void *dlopen(const char *, int);
    extern HOOK int dlclose(void *);
    if (!__atomic_load_n(&real_dlopen, __ATOMIC_ACQUIRE)) {
        void *p = dlsym(RTLD_NEXT, "dlopen");
        if (p && p != (void *)dlopen)
            __atomic_store_n(&real_dlopen, (dlopen_fn)p, __ATOMIC_RELEASE);
    }
    if (!__atomic_load_n(&real_dlclose, __ATOMIC_ACQUIRE)) {
        void *p = dlsym(RTLD_NEXT, "dlclose");
        if (p && p != (void *)dlclose)
            __atomic_store_n(&real_dlclose, (dlclose_fn)p, __ATOMIC_RELEASE);
    }
}

__attribute__((constructor)) static void dl_hooks_ctor(void) { resolve(); }

/* The directory of the object LM (the executable's for the main program). */
static int origin_of(const struct link_map *lm, char *dir, size_t size)
{
    char exe[PATH_MAX];
    const char *path = lm->l_name;
    if (!path || !path[0]) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            return -1;
        exe[n] = 0;
        path = exe;
    }
    const char *slash = strrchr(path, '/');
    if (!slash || (size_t)(slash - path) >= size)
        return -1;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = 0;
    return 0;
}

/* dlopen(FILE) as if from the object holding CALLER: its RUNPATH/RPATH first. */
static void *open_from_caller_runpath(const char *file, int mode, const void *caller)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_ld)
        return NULL;
    uintptr_t strtab = 0;
    const char *runpath = NULL;
    ElfW(Sxword) rp = -1, rpath = -1;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRTAB)
            strtab = d->d_un.d_ptr;
        else if (d->d_tag == DT_RUNPATH)
            rp = (ElfW(Sxword))d->d_un.d_val;
        else if (d->d_tag == DT_RPATH)
            rpath = (ElfW(Sxword))d->d_un.d_val;
    }
    if (!strtab || (rp < 0 && rpath < 0))
        return NULL;
    if (strtab < lm->l_addr)   /* not relocated in place by the loader */
        strtab += lm->l_addr;
    runpath = (const char *)strtab + (rp >= 0 ? rp : rpath);
    char origin[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];
    int have_origin = origin_of(lm, origin, sizeof origin) == 0;
    for (const char *p = runpath; *p;) {
        size_t len = strcspn(p, ":");
        size_t o = 0;
        for (size_t i = 0; i < len && o + 1 < sizeof dir;) {
            size_t skip = !strncmp(p + i, "$ORIGIN", 7) ? 7 : !strncmp(p + i, "${ORIGIN}", 9) ? 9 : 0;
            if (skip && have_origin) {
                o += (size_t)snprintf(dir + o, sizeof dir - o, "%s", origin);
                i += skip;
            } else {
                dir[o++] = p[i++];
            }
        }
        dir[o < sizeof dir ? o : sizeof dir - 1] = 0;
        p += len + (p[len] == ':');
        if (!dir[0] || (size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
            continue;
        if (access(path, F_OK) == 0) {
            void *h = real_dlopen(path, mode);
            if (h)
                return h;
        }
    }
    return NULL;
}

HOOK void *dlopen(const char *file, int mode)
{
    if (!__atomic_load_n(&real_dlopen, __ATOMIC_ACQUIRE))
        resolve();
    if (!real_dlopen)
        return NULL;   /* unreachable: libc defines dlopen */
    void *h = NULL;
    if (file && !strchr(file, '/'))
        h = open_from_caller_runpath(file, mode, __builtin_return_address(0));
    if (!h)
        h = real_dlopen(file, mode);
    if (h && file)
        fr_functrace_after_dlopen();
    return h;
}

/* A library destructor may itself call dlclose: only the outermost holds patching off. */
static __thread int in_dlclose;

HOOK int dlclose(void *handle)
{
    if (!__atomic_load_n(&real_dlclose, __ATOMIC_ACQUIRE))
        resolve();
    if (!real_dlclose)
        return -1;
    if (in_dlclose)
        return real_dlclose(handle);
    in_dlclose = 1;
    fr_sled_patch_hold();
    int rc = real_dlclose(handle);
    fr_instr_map_forget_unloaded();
    fr_sled_patch_release();
    in_dlclose = 0;
    return rc;
}
