/* libcall_got.c - finding and hooking the PLT's GOT entries of instrumented objects, and
 * the names of the library functions they reach (libcalls.h). Runs at init and after
 * dlopen, serialised by a mutex; never on a hot path. */
#define _GNU_SOURCE
#include "functrace/libcalls.h"
#include "functrace/libcall_table.h"
#include "functrace/func_filter.h"
#include "functrace/instr_map.h"
#include "functrace/name_pattern.h"
#include "arch/port.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef FR_ARCH_JUMP_SLOT_RELOC   /* the port has library-call stubs (else libcall_unsupported.c) */

struct fr_libcall_slot fr_libcall_slots[FR_LIBCALL_SLOTS];
static uint32_t slot_count;
static const char *names[FR_LIBCALL_SLOTS];   /* by id - FR_LIBCALL_FIRST_ID */
static uintptr_t name_target[FR_LIBCALL_SLOTS];
static uint32_t name_count;
static int installed;
static int full_said;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

_Static_assert(FR_LIBCALL_FIRST_ID > FR_SLED_MAX_FUNCTION_ID, "above sled ids");
_Static_assert(FR_LIBCALL_FIRST_ID >= 0x0F000000u + (1u << 17), "above gcc hook ids");
_Static_assert(FR_LIBCALL_FIRST_ID + FR_LIBCALL_SLOTS - 1 <= FR_XRAY_MAX_FUNCTION_ID, "ids fit");

/* Functions whose call must not have its return address replaced: they return twice,
 * switch stacks, unwind, or never return (their entry would stay open). */
static int never_hooked(const char *name)
{
    static const char *const list[] = {
        "setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "savectx", "vfork", "__vfork",
        "getcontext", "setcontext", "swapcontext", "makecontext", "clone", "__clone",
        "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "__cxa_throw",
        "__cxa_rethrow", "__tls_get_addr", "__cyg_profile_func_enter",
        "__cyg_profile_func_exit", "exit", "_exit", "_Exit", "quick_exit", "abort",
        "pthread_exit", "__stack_chk_fail", "__assert_fail", "__fortify_fail",
        "__libc_start_main", "__cxa_finalize",
    };
    if (!strncmp(name, "_Unwind_", 8))
        return 1;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        if (!strcmp(name, list[i]))
            return 1;
    return 0;
}

/* The id for NAME (one per name: malloc called from two objects is one function). */
static uint32_t id_of(const char *name, uintptr_t target)
{
    for (uint32_t i = 0; i < name_count; i++)
        if (!strcmp(names[i], name))
            return FR_LIBCALL_FIRST_ID + i;
    char *copy = strdup(name);
    if (!copy)
        return 0;
    uint32_t i = name_count;
    names[i] = copy;
    name_target[i] = target;
    __atomic_store_n(&name_count, i + 1, __ATOMIC_RELEASE);   /* a flush reads from here */
    return FR_LIBCALL_FIRST_ID + i;
}

/* A dynamic-section address: glibc rewrites most of them to run-time addresses in
 * place; the link-time ones lie below the load bias. */
static uintptr_t dyn_addr(uintptr_t v, uintptr_t bias)
{
    return bias && v < bias ? v + bias : v;
}

struct dyn_info {
    uintptr_t bias, lo, hi;     /* the object's span */
    const Elf64_Rela *jmprel;
    size_t jmprel_count;
    const Elf64_Sym *symtab;
    const char *strtab;
    const Elf64_Half *versym;
    const Elf64_Verneed *verneed;
    int bind_now;
    uintptr_t relro_lo, relro_hi;
};

static int read_dynamic(struct dl_phdr_info *info, struct dyn_info *d)
{
    memset(d, 0, sizeof *d);
    d->bias = info->dlpi_addr;
    d->lo = UINTPTR_MAX;
    const Elf64_Dyn *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const Elf64_Phdr *p = &info->dlpi_phdr[i];
        if (p->p_type == PT_DYNAMIC)
            dyn = (const Elf64_Dyn *)(info->dlpi_addr + p->p_vaddr);
        else if (p->p_type == PT_GNU_RELRO) {
            d->relro_lo = info->dlpi_addr + p->p_vaddr;
            d->relro_hi = d->relro_lo + p->p_memsz;
        } else if (p->p_type == PT_LOAD) {
            uintptr_t a = info->dlpi_addr + p->p_vaddr;
            if (a < d->lo)
                d->lo = a;
            if (a + p->p_memsz > d->hi)
                d->hi = a + p->p_memsz;
        }
    }
    if (!dyn)
        return -1;
    size_t pltrelsz = 0;
    int64_t pltrel = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t v = dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_JMPREL:   d->jmprel = (const Elf64_Rela *)dyn_addr(v, d->bias); break;
        case DT_PLTRELSZ: pltrelsz = dyn->d_un.d_val; break;
        case DT_PLTREL:   pltrel = (int64_t)dyn->d_un.d_val; break;
        case DT_SYMTAB:   d->symtab = (const Elf64_Sym *)dyn_addr(v, d->bias); break;
        case DT_STRTAB:   d->strtab = (const char *)dyn_addr(v, d->bias); break;
        case DT_VERSYM:   d->versym = (const Elf64_Half *)dyn_addr(v, d->bias); break;
        case DT_VERNEED:  d->verneed = (const Elf64_Verneed *)dyn_addr(v, d->bias); break;
        case DT_BIND_NOW: d->bind_now = 1; break;
        case DT_FLAGS:    d->bind_now |= (dyn->d_un.d_val & DF_BIND_NOW) != 0; break;
        case DT_FLAGS_1:  d->bind_now |= (dyn->d_un.d_val & DF_1_NOW) != 0; break;
        default: break;
        }
    }
    if (!d->jmprel || !d->symtab || !d->strtab || pltrel != DT_RELA)
        return -1;
    d->jmprel_count = pltrelsz / sizeof(Elf64_Rela);
    return 0;
}

/* The version the object asks for symbol index SYM ("GLIBC_2.2.5"), or NULL. */
static const char *version_of(const struct dyn_info *d, uint32_t sym)
{
    if (!d->versym || !d->verneed)
        return NULL;
    Elf64_Half want = d->versym[sym] & 0x7fff;
    if (want < 2)
        return NULL;
    const Elf64_Verneed *vn = d->verneed;
    for (;;) {
        const Elf64_Vernaux *a = (const Elf64_Vernaux *)((const char *)vn + vn->vn_aux);
        for (unsigned i = 0; i < vn->vn_cnt; i++) {
            if (a->vna_other == want)
                return d->strtab + a->vna_name;
            a = (const Elf64_Vernaux *)((const char *)a + a->vna_next);
        }
        if (!vn->vn_next)
            return NULL;
        vn = (const Elf64_Verneed *)((const char *)vn + vn->vn_next);
    }
}

/* Where the loader would bind NAME (VERSION: the one the object asks for, or NULL) for an
 * object whose own scope is HANDLE: the first object of the global scope that defines
 * it, in that version (dlvsym) when that object has it; a definition without a version
 * there (an interposer: ours, a malloc) is taken as the loader takes it. Then the
 * object's own scope. 0 if nowhere. */
static uintptr_t resolve(const char *name, const char *version, void *handle)
{
    void *first = dlsym(RTLD_DEFAULT, name);
    void *p = version ? dlvsym(RTLD_DEFAULT, name, version) : first;
    if (first && first != p) {
        Dl_info a, b;
        if (!p || (dladdr(first, &a) && dladdr(p, &b) && a.dli_fbase != b.dli_fbase))
            p = first;   /* an interposer comes first in the scope */
    }
    if (!p && handle && version)
        p = dlvsym(handle, name, version);
    if (!p && handle)
        p = dlsym(handle, name);
    return (uintptr_t)p;
}

static int in_stubs(uintptr_t a)
{
    uintptr_t s = (uintptr_t)fr_libcall_stubs;
    return a >= s && a < s + (uintptr_t)FR_LIBCALL_STUB_SIZE * FR_LIBCALL_SLOTS;
}

/* Points *GOT at the next stub (its page made writable for the store when it is RELRO).
 * 0, or -1 when it could not. */
static int write_got(const struct dyn_info *d, uintptr_t *got, uintptr_t value)
{
    uintptr_t a = (uintptr_t)got;
    int relro = a >= d->relro_lo && a < d->relro_hi;
    uintptr_t page = a & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
    size_t len = (size_t)sysconf(_SC_PAGESIZE);
    if (relro && mprotect((void *)page, len, PROT_READ | PROT_WRITE))
        return -1;
    __atomic_store_n(got, value, __ATOMIC_RELEASE);
    if (relro)
        mprotect((void *)page, len, PROT_READ);
    return 0;
}

/* The objects dl_iterate_phdr lists, copied out: hooking calls dlsym and dladdr, which
 * must not run inside its callback (the loader's lock). */
#define MAX_OBJECTS 1024
struct found {
    struct dyn_info d;
    int index;   /* dl_iterate_phdr's order: 0 is the executable */
};
struct found_list {
    unsigned count;
    struct found items[MAX_OBJECTS];
};

/* Whether the object at D (dl_iterate_phdr's INDEX) holds instrumented code: the
 * executable, an object with sleds, or one calling the gcc hooks. */
static int instrumented(const struct dyn_info *d, int index)
{
    if (index == 0)
        return 1;
    const struct fr_instr_object *o = fr_instr_object_containing(d->lo);
    if (o && o->function_count)
        return 1;
    for (size_t i = 0; i < d->jmprel_count; i++) {
        uint32_t sym = (uint32_t)ELF64_R_SYM(d->jmprel[i].r_info);
        if (!strcmp(d->strtab + d->symtab[sym].st_name, "__cyg_profile_func_enter"))
            return 1;
    }
    return 0;
}

static void say_full(void)
{
    if (full_said)
        return;
    full_said = 1;
    static const char msg[] = "flightrec: libcalls: more than 4096 PLT entries; the others are "
                              "not recorded\n";
    (void)!write(2, msg, sizeof msg - 1);
}

/* Hooks one object's PLT entries; SELF_BASE is libflightrec's load address (calls into
 * it are never hooked: our dlopen, longjmp, ... interposers). */
static void hook_object(const struct dyn_info *d, uintptr_t self_base)
{
    /* the object's own scope, for names the global scope lacks (a library loaded with
     * RTLD_LOCAL): glibc's dlsym takes its link_map as a handle */
    struct link_map *scope = NULL;
    Dl_info self_info;
    if (!dladdr1((void *)d->lo, &self_info, (void **)&scope, RTLD_DL_LINKMAP))
        scope = NULL;
    for (size_t i = 0; i < d->jmprel_count; i++) {
        const Elf64_Rela *r = &d->jmprel[i];
        if (ELF64_R_TYPE(r->r_info) != FR_ARCH_JUMP_SLOT_RELOC)
            continue;
        uint32_t sym = (uint32_t)ELF64_R_SYM(r->r_info);
        const char *name = d->strtab + d->symtab[sym].st_name;
        uintptr_t *got = (uintptr_t *)(d->bias + r->r_offset);
        uintptr_t cur = __atomic_load_n(got, __ATOMIC_ACQUIRE);
        if (!name[0] || in_stubs(cur) || never_hooked(name) ||
            !fr_func_filter_selects(name, FR_NAME_PATTERN_NO_ID))
            continue;
        /* bound already (outside the object, or -z now): as the loader left it; still
         * lazy (the PLT's path to the resolver, inside the object): resolved here */
        uintptr_t target = cur;
        if (!d->bind_now && cur >= d->lo && cur < d->hi)
            target = resolve(name, version_of(d, sym), scope);
        Dl_info di;
        if (!target || (dladdr((void *)target, &di) && (uintptr_t)di.dli_fbase == self_base))
            continue;   /* weak and absent, or one of ours */
        if (slot_count >= FR_LIBCALL_SLOTS) {
            say_full();
            return;
        }
        uint32_t id = id_of(name, target);
        if (!id)
            continue;
        uint32_t s = slot_count;
        fr_libcall_slots[s] = (struct fr_libcall_slot){target, id};
        __atomic_thread_fence(__ATOMIC_RELEASE);
        if (write_got(d, got, (uintptr_t)fr_libcall_stubs + (uintptr_t)s * FR_LIBCALL_STUB_SIZE) == 0)
            slot_count++;
    }
}

static int collect(struct dl_phdr_info *info, size_t size, void *vctx)
{
    (void)size;
    struct found_list *l = vctx;
    int index = (int)l->count;   /* counts every object, the vDSO too */
    if (l->count >= MAX_OBJECTS)
        return 1;
    struct found *f = &l->items[l->count++];
    f->index = index;
    if ((index != 0 && (!info->dlpi_name || !info->dlpi_name[0])) || read_dynamic(info, &f->d))
        f->index = -1;   /* the vDSO, or no PLT */
    return 0;
}

void fr_libcalls_install(void)
{
    pthread_mutex_lock(&install_lock);
    Dl_info self;
    uintptr_t self_base = 0;
    if (dladdr((void *)fr_libcall_enter, &self))
        self_base = (uintptr_t)self.dli_fbase;
    fr_instr_map_refresh();
    struct found_list *l = calloc(1, sizeof *l);
    if (l) {
        dl_iterate_phdr(collect, l);
        for (unsigned i = 0; i < l->count; i++)
            if (l->items[i].index >= 0 && instrumented(&l->items[i].d, l->items[i].index))
                hook_object(&l->items[i].d, self_base);
        free(l);
    }
    if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE) && slot_count == 0) {
        /* libcalls=1 would do nothing: say so (a static program has no PLT) */
        static const char msg[] = "flightrec: libcalls=1: the program makes no call through "
                                  "a PLT (statically linked?): no library call will be "
                                  "recorded\n";
        (void)!write(2, msg, sizeof msg - 1);
    }
    __atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&install_lock);
}

int fr_libcalls_on(void)
{
    return __atomic_load_n(&installed, __ATOMIC_ACQUIRE);
}

void fr_libcalls_emit(fr_meta_writer *w)
{
    uint32_t n = __atomic_load_n(&name_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        const struct fr_instr_object *o = fr_instr_object_containing(name_target[i]);
        struct fr_te_function f = {.id = FR_LIBCALL_FIRST_ID + i,
                                   .object = o ? o->index : UINT32_MAX,
                                   .address = name_target[i]};
        fr_meta_emit_str16(w, FR_TE_FUNCTION, &f, sizeof f, names[i], 1024);
    }
}

#endif /* FR_ARCH_JUMP_SLOT_RELOC */
