/* instr_map.c - find every loaded object's xray_instr_map and number its functions. */
#define _GNU_SOURCE
#include "functrace/instr_map.h"
#include "functrace/build_id.h"
#include "functrace/object_file.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FR_MAX_OBJECTS 1024

/* One 32-byte xray_instr_map entry, as clang 14 (version 2) writes it. */
struct xray_entry {
    int64_t sled;        /* version 2: relative to this field's own address */
    int64_t function;    /* version 2: relative to this field's own address */
    uint8_t kind;
    uint8_t always_instrument;
    uint8_t version;
    uint8_t padding[13];
};
_Static_assert(sizeof(struct xray_entry) == 32, "xray_instr_map entry size");

static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fr_instr_object *objects[FR_MAX_OBJECTS];
static uint32_t object_count;          /* published with release after objects[i] is set */
static uint32_t next_function_id = 1;  /* under refresh_lock */
static uint32_t max_function_id;       /* published with release */
static size_t sled_total;
static int discovered;

uint32_t fr_instr_object_count(void)
{
    return __atomic_load_n(&object_count, __ATOMIC_ACQUIRE);
}

const struct fr_instr_object *fr_instr_object_at(uint32_t index)
{
    return index < fr_instr_object_count() ? objects[index] : NULL;
}

uint32_t fr_instr_max_function_id(void)
{
    return __atomic_load_n(&max_function_id, __ATOMIC_ACQUIRE);
}

size_t fr_instr_sled_total(void)
{
    return __atomic_load_n(&sled_total, __ATOMIC_ACQUIRE);
}

const struct fr_instr_object *fr_instr_function_lookup(uint32_t id,
                                                       const struct fr_instr_function **fn)
{
    uint32_t n = fr_instr_object_count();
    for (uint32_t i = 0; i < n; i++) {
        const struct fr_instr_object *o = objects[i];
        if (o->function_count && id >= o->first_id && id <= o->last_id) {
            if (fn)
                *fn = &o->functions[id - o->first_id];
            return o;
        }
    }
    return NULL;
}

const struct fr_instr_object *fr_instr_object_containing(uintptr_t addr)
{
    uint32_t n = fr_instr_object_count();
    for (uint32_t i = 0; i < n; i++)
        if (addr >= objects[i]->lo && addr < objects[i]->hi &&
            !__atomic_load_n(&objects[i]->unloaded, __ATOMIC_ACQUIRE))
            return objects[i];
    return NULL;
}

/* ---------------------------------------------------------------- building one object */

static int prot_of(Elf64_Word flags)
{
    return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
           ((flags & PF_X) ? PROT_EXEC : 0);
}

/* Reads the map at [map, map + size) (run-time addresses) into sleds and functions. */
static int number_sleds(struct fr_instr_object *o, uintptr_t map, size_t size)
{
    size_t n = size / sizeof(struct xray_entry);
    struct fr_sled *sleds = calloc(n ? n : 1, sizeof *sleds);
    struct fr_instr_function *fns = calloc(n ? n : 1, sizeof *fns);
    if (!sleds || !fns)
        goto fail;
    uint32_t first = next_function_id, id = first - 1;
    size_t nf = 0;
    uintptr_t current = 0;
    for (size_t i = 0; i < n; i++) {
        /* The section is only byte-aligned: copy the entry out. */
        uintptr_t at = map + i * sizeof(struct xray_entry);
        struct xray_entry entry, *e = &entry;
        memcpy(e, (const void *)at, sizeof entry);
        uintptr_t sled, fn;
        if (e->version >= 2) {
            sled = at + offsetof(struct xray_entry, sled) + (uintptr_t)e->sled;
            fn = at + offsetof(struct xray_entry, function) + (uintptr_t)e->function;
        } else {     /* absolute addresses, already relocated by the loader */
            sled = (uintptr_t)e->sled;
            fn = (uintptr_t)e->function;
        }
        if (nf == 0 || fn != current) {   /* llvm-xray's rule: a new id per address change */
            if (id >= FR_SLED_MAX_FUNCTION_ID)
                goto fail;
            id++;
            current = fn;
            fns[nf].address = fn;
            fns[nf].first_sled = (uint32_t)i;
            nf++;
        }
        fns[nf - 1].sled_count++;
        sleds[i].address = sled;
        sleds[i].function_id = id;
        sleds[i].kind = e->kind;
        sleds[i].always_instrument = e->always_instrument;
    }
    o->sleds = sleds;
    o->sled_count = n;
    o->functions = fns;
    o->function_count = nf;
    if (nf) {
        o->first_id = first;
        o->last_id = id;
        next_function_id = id + 1;
    }
    return 0;
fail:
    free(sleds);
    free(fns);
    return -1;
}

/* Symbol names for the instrumented functions: exact matches on the entry address. */
struct name_ctx {
    struct fr_instr_object *o;
    struct fr_instr_function *sorted_fns; /* copy, sorted by address */
    uint32_t *order;                      /* sorted index -> function index */
};

static int cmp_addr(const void *a, const void *b, void *ctx)
{
    const struct fr_instr_function *f = ctx;
    uintptr_t x = f[*(const uint32_t *)a].address, y = f[*(const uint32_t *)b].address;
    return x < y ? -1 : x > y;
}

static void name_symbol(uint64_t value, const char *name, void *vctx)
{
    struct name_ctx *c = vctx;
    struct fr_instr_function *fns = (struct fr_instr_function *)c->o->functions;
    uintptr_t addr = (uintptr_t)value + c->o->bias;
    size_t lo = 0, hi = c->o->function_count;
    while (lo < hi) {                    /* first sorted entry with address >= addr */
        size_t mid = (lo + hi) / 2;
        if (fns[c->order[mid]].address < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Several ids may share an address (non-contiguous sleds); name them all. */
    for (; lo < c->o->function_count && fns[c->order[lo]].address == addr; lo++)
        if (!fns[c->order[lo]].name && name[0])
            fns[c->order[lo]].name = strdup(name);
}

static void name_functions(struct fr_instr_object *o, fr_object_file *of)
{
    struct name_ctx c = {.o = o};
    c.order = malloc(o->function_count * sizeof *c.order);
    if (!c.order)
        return;
    for (uint32_t i = 0; i < o->function_count; i++)
        c.order[i] = i;
    qsort_r(c.order, o->function_count, sizeof *c.order, cmp_addr, (void *)o->functions);
    fr_object_file_symbols(of, name_symbol, &c);
    free(c.order);
}

struct found {
    const char *name;       /* dlpi_name */
    uintptr_t bias;
    const ElfW(Phdr) *phdr;
    size_t phnum;
};

static int known(const struct found *f)
{
    for (uint32_t i = 0; i < object_count; i++)
        if (!objects[i]->unloaded && objects[i]->bias == f->bias &&
            !strcmp(objects[i]->path, f->name))
            return 1;
    return 0;
}

static void add_object(const struct found *f, int is_main)
{
    if (object_count >= FR_MAX_OBJECTS)
        return;
    char exe[4096];
    const char *path = f->name;
    if (is_main) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        path = exe;
    }
    struct fr_instr_object *o = calloc(1, sizeof *o);
    if (!o)
        return;
    o->index = object_count;
    o->path = strdup(path);
    o->bias = f->bias;
    o->lo = UINTPTR_MAX;
    for (size_t i = 0; i < f->phnum; i++) {
        const ElfW(Phdr) *ph = &f->phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = f->bias + ph->p_vaddr, end = start + ph->p_memsz;
        if (start < o->lo)
            o->lo = start;
        if (end > o->hi)
            o->hi = end;
        if ((ph->p_flags & PF_X) && o->segment_count < FR_MAX_SEGMENTS)
            o->segments[o->segment_count++] =
                (struct fr_exec_segment){start, end, prot_of(ph->p_flags)};
    }
    if (o->lo == UINTPTR_MAX)
        o->lo = 0;
    o->build_id_size = (uint8_t)fr_build_id_of_loaded(f->bias, f->phdr, f->phnum, o->build_id,
                                                      sizeof o->build_id);
    /* /proc/self/exe works even when the executable was moved or deleted. */
    fr_object_file *of = fr_object_file_open(is_main ? "/proc/self/exe" : path);
    uint64_t addr, size;
    if (of && fr_object_file_section(of, "xray_instr_map", &addr, &size) &&
        number_sleds(o, f->bias + addr, size) == 0 && o->function_count)
        name_functions(o, of);
    fr_object_file_close(of);
    objects[o->index] = o;
    __atomic_store_n(&sled_total, sled_total + o->sled_count, __ATOMIC_RELEASE);
    __atomic_store_n(&max_function_id, next_function_id - 1, __ATOMIC_RELEASE);
    __atomic_store_n(&object_count, object_count + 1, __ATOMIC_RELEASE);
}

#define FR_MAX_FOUND 512
struct found_list {
    struct found items[FR_MAX_FOUND];
    size_t count;
};

static int collect(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct found_list *l = ctx;
    if (l->count < FR_MAX_FOUND)
        l->items[l->count++] = (struct found){info->dlpi_name ? info->dlpi_name : "",
                                              info->dlpi_addr, info->dlpi_phdr,
                                              info->dlpi_phnum};
    return 0;
}

void fr_instr_map_refresh(void)
{
    pthread_mutex_lock(&refresh_lock);
    struct found_list *l = malloc(sizeof *l);
    if (l) {
        l->count = 0;
        /* Names and program headers stay valid while the objects stay loaded; we read
         * them right after, under our lock (an object dlclosed in between is the
         * caller's race, as with any dlclose of code that is running). */
        dl_iterate_phdr(collect, l);
        for (size_t i = 0; i < l->count; i++) {
            const struct found *f = &l->items[i];
            int is_main = (i == 0);
            if (!is_main && (!f->name[0] || !strncmp(f->name, "linux-vdso", 10)))
                continue;   /* the vDSO has no file and no sleds */
            if (is_main ? object_count > 0 : known(f))
                continue;
            add_object(f, is_main);
        }
        free(l);
    }
    __atomic_store_n(&discovered, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&refresh_lock);
}

void fr_instr_map_forget_unloaded(void)
{
    pthread_mutex_lock(&refresh_lock);
    struct found_list *l = malloc(sizeof *l);
    if (l) {
        l->count = 0;
        dl_iterate_phdr(collect, l);
        for (uint32_t i = 1; i < object_count; i++) {   /* the executable stays */
            struct fr_instr_object *o = objects[i];
            int present = 0;
            for (size_t k = 1; k < l->count && !present; k++)
                present = l->items[k].bias == o->bias && !strcmp(l->items[k].name, o->path);
            if (!present)
                __atomic_store_n(&o->unloaded, 1, __ATOMIC_RELEASE);
        }
        free(l);
    }
    pthread_mutex_unlock(&refresh_lock);
}

void fr_instr_map_ensure(void)
{
    if (!__atomic_load_n(&discovered, __ATOMIC_ACQUIRE))
        fr_instr_map_refresh();
}
