/*
 * symbols.c - function id -> name and file:line (see symbols.h), through elfutils.
 *
 * Each ELF file we look into is an `image`: its function symbols sorted by address
 * (C++ names demangled when first asked for), its xray_instr_map turned into function addresses by id, and a
 * DWARF handle opened when a location is first asked for. Images are loaded lazily: the
 * --binary one at once, the trace's objects (FR_TE_OBJECT paths) when an address in them
 * needs resolving. Names are computed once per id and cached.
 *
 * Ids from xray_instr_map follow llvm-xray's rule exactly: walk the entries in section
 * order; the first entry's function gets id 1; the id increments whenever the function
 * address differs from the previous entry's. Entry version 2 (clang 14) stores sled and
 * function as offsets from the field's own address; older entries store absolute
 * addresses (in PIE files the zero field is filled by an R_X86_64_RELATIVE relocation).
 */
#include "symbols.h"
#include "regular_file.h"
#include "name_simple.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* From the C++ runtime (libstdc++): C linkage, so callable from C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define XRAY_SLED_ENTRY_SIZE 32

typedef struct elf_symbol {
    uint64_t addr, size;
    const char *name;   /* raw (mangled) name in the ELF string table, which stays mapped */
    int global;
} elf_symbol;

typedef struct image {
    char *path;
    int fd;
    Elf *elf;
    Dwarf *dwarf;
    bool dwarf_tried;
    elf_symbol *syms;
    size_t n_syms;
    uint64_t *fn_addr;  /* fn_addr[id] for ids 1..n_ids of xray_instr_map */
    uint32_t n_ids;
    uint8_t build_id[FR_BUILD_ID_MAX];  /* its NT_GNU_BUILD_ID note, */
    size_t build_id_size;               /* 0 if it has none */
} image;

typedef struct object_ref {
    uint32_t index;
    uint64_t bias;
    char *path;
    uint8_t build_id[FR_BUILD_ID_MAX];  /* the trace's FR_TE_BUILD_ID for it, */
    size_t build_id_size;               /* 0 if none */
    image *img;         /* NULL until needed */
    bool tried;
} object_ref;

typedef struct function_ref {
    uint32_t id, object;
    uint64_t address;
    char *name;
} function_ref;

typedef struct cache_slot {
    uint32_t id;        /* 0: empty (ids start at 1) */
    char *name;
    const char *file;
    int line;
    bool located;
} cache_slot;

struct fr_symbols {
    image *binary;                   /* --binary: object 0, and the source of map ids */
    bool binary_names_first;         /* --binary given: its symbols win over the trace's names */
    fr_demangle_mode demangle;       /* how C++ names are given */
    object_ref *objects;     size_t n_objects;
    function_ref *functions; size_t n_functions; /* sorted by id */
    cache_slot *cache;       size_t cache_cap, cache_used;
    uint32_t unmapped, unmapped_first;  /* ids named that no table and no map knows */
    char fallback[32];
};

/* ------------------------------------------------------------------ images */

/* A name as the symbols' mode gives it (a new string, NULL when out of memory). */
static char *demangle(const fr_symbols *s, const char *name)
{
    if (name[0] == '_' && name[1] == 'Z' && s->demangle != FR_DEMANGLE_NO) {
        int status = 0;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (d && status == 0) {
            if (s->demangle == FR_DEMANGLE_SIMPLE)
                fr_name_simplify(d);
            return d;
        }
        free(d);
    }
    return strdup(name);
}

static int by_addr(const void *a, const void *b)
{
    const elf_symbol *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->global != y->global)
        return y->global - x->global; /* global names first */
    return strcmp(x->name, y->name);
}

static void load_symbols(image *im)
{
    /* .symtab if present (not stripped), else .dynsym. */
    Elf_Scn *scn = NULL, *chosen = NULL;
    GElf_Shdr sh, chosen_sh;
    while ((scn = elf_nextscn(im->elf, scn))) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !chosen)) {
            chosen = scn;
            chosen_sh = sh;
        }
    }
    if (!chosen || !chosen_sh.sh_entsize)
        return;
    Elf_Data *data = elf_getdata(chosen, NULL);
    if (!data)
        return;
    size_t n = chosen_sh.sh_size / chosen_sh.sh_entsize;
    im->syms = calloc(n ? n : 1, sizeof *im->syms);
    if (!im->syms)
        return;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(data, (int)i, &s))
            continue;
        int type = GELF_ST_TYPE(s.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || !s.st_value)
            continue;
        const char *name = elf_strptr(im->elf, chosen_sh.sh_link, s.st_name);
        if (!name || !name[0])
            continue;
        elf_symbol *e = &im->syms[im->n_syms];
        e->name = name;  /* demangled only when asked for: most symbols never are */
        e->addr = s.st_value;
        e->size = s.st_size;
        e->global = GELF_ST_BIND(s.st_info) != STB_LOCAL;
        im->n_syms++;
    }
    qsort(im->syms, im->n_syms, sizeof *im->syms, by_addr);
}

static const elf_symbol *find_symbol(const image *im, uint64_t addr)
{
    size_t lo = 0, hi = im->n_syms;
    while (lo < hi) { /* first symbol with addr > target */
        size_t mid = lo + (hi - lo) / 2;
        if (im->syms[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    size_t i = lo - 1;
    uint64_t start = im->syms[i].addr;
    while (i > 0 && im->syms[i - 1].addr == start)
        i--; /* the preferred name among aliases */
    const elf_symbol *s = &im->syms[i];
    if (addr == s->addr || addr - s->addr < s->size)
        return s;
    return NULL;
}

/* The value an R_X86_64_RELATIVE relocation puts at `where`, or 0. */
static uint64_t relative_reloc(Elf *elf, uint64_t where)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(elf, scn))) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d)
            continue;
        size_t n = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < n; i++) {
            GElf_Rela r;
            if (gelf_getrela(d, (int)i, &r) && r.r_offset == where &&
                GELF_R_TYPE(r.r_info) == R_X86_64_RELATIVE)
                return (uint64_t)r.r_addend;
        }
    }
    return 0;
}

static int load_instr_map(image *im, char *err, size_t errlen)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(im->elf, &shstrndx) != 0)
        return 0;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(im->elf, scn))) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *name = elf_strptr(im->elf, shstrndx, sh.sh_name);
        if (name && !strcmp(name, "xray_instr_map"))
            break;
    }
    if (!scn)
        return 0; /* not instrumented: symbols only */
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || sh.sh_type == SHT_NOBITS)
        return 0;
    if (d->d_size % XRAY_SLED_ENTRY_SIZE) {
        snprintf(err, errlen, "%s: xray_instr_map: expected a multiple of %d bytes, found %zu",
                 im->path, XRAY_SLED_ENTRY_SIZE, d->d_size);
        return -1;
    }
    size_t n = d->d_size / XRAY_SLED_ENTRY_SIZE;
    im->fn_addr = calloc(n + 2, sizeof *im->fn_addr);
    if (!im->fn_addr)
        return 0;
    const uint8_t *p = d->d_buf;
    uint32_t id = 1;
    uint64_t current = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = p + i * XRAY_SLED_ENTRY_SIZE;
        uint64_t field = sh.sh_addr + i * XRAY_SLED_ENTRY_SIZE + 8; /* function field */
        uint64_t fn;
        memcpy(&fn, e + 8, 8);
        uint8_t version = e[18];
        if (version >= 2)
            fn += field;
        else if (!fn)
            fn = relative_reloc(im->elf, field);
        if (!current) {
            current = fn;
            im->fn_addr[id] = fn;
        }
        if (fn != current) {
            id++;
            current = fn;
            im->fn_addr[id] = fn;
        }
    }
    im->n_ids = n ? id : 0;
    return 0;
}

static void image_free(image *im)
{
    if (!im)
        return;
    if (im->dwarf)
        dwarf_end(im->dwarf);
    if (im->elf)
        elf_end(im->elf);
    if (im->fd >= 0)
        close(im->fd);
    free(im->syms);
    free(im->fn_addr);
    free(im->path);
    free(im);
}

/* The file's GNU build-id, from its note sections (strip keeps .note.gnu.build-id);
 * none found leaves build_id_size 0. */
static void load_build_id(image *im)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(im->elf, scn))) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        GElf_Nhdr nh;
        size_t off = 0, name_at, desc_at, next;
        while (d && (next = gelf_getnote(d, off, &nh, &name_at, &desc_at)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                !memcmp((const char *)d->d_buf + name_at, "GNU", 4) &&
                nh.n_descsz > 0 && nh.n_descsz <= sizeof im->build_id) {
                memcpy(im->build_id, (const char *)d->d_buf + desc_at, nh.n_descsz);
                im->build_id_size = nh.n_descsz;
                return;
            }
            off = next;
        }
    }
}

static image *image_load(const char *path, char *err, size_t errlen)
{
    char dummy[8];
    if (!err) {
        err = dummy;
        errlen = sizeof dummy;
    }
    elf_version(EV_CURRENT);
    image *im = calloc(1, sizeof *im);
    if (!im) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* A trace names the files to look into: only regular files, never opening anything
     * else (links are followed: shared objects are often reached through one). */
    im->fd = fr_open_regular(path, 0, err, errlen);
    im->path = strdup(path);
    if (im->fd < 0 || !im->path) {
        if (im->fd >= 0)
            snprintf(err, errlen, "out of memory");
        image_free(im);
        return NULL;
    }
    im->elf = elf_begin(im->fd, ELF_C_READ_MMAP, NULL);
    if (!im->elf || elf_kind(im->elf) != ELF_K_ELF) {
        /* libelf reports no error for a file too short to be one: "(no error)" then. */
        int e = elf_errno();
        snprintf(err, errlen, "%s: not an ELF file%s%s%s", path, e ? " (" : "",
                 e ? elf_errmsg(e) : "", e ? ")" : "");
        image_free(im);
        return NULL;
    }
    load_symbols(im);
    load_build_id(im);
    if (load_instr_map(im, err, errlen) != 0) {
        image_free(im);
        return NULL;
    }
    return im;
}

/* The compile unit whose ranges hold addr, by walking the units: clang emits no
 * .debug_aranges by default, which dwarf_addrdie relies on. */
static bool cu_containing(Dwarf *dw, uint64_t addr, Dwarf_Die *out)
{
    Dwarf_Off off = 0, next;
    size_t header_size;
    while (dwarf_nextcu(dw, off, &next, &header_size, NULL, NULL, NULL) == 0) {
        Dwarf_Die die;
        if (dwarf_offdie(dw, off + header_size, &die) && dwarf_haspc(&die, (Dwarf_Addr)addr) > 0) {
            *out = die;
            return true;
        }
        off = next;
    }
    return false;
}

static bool image_location(image *im, uint64_t addr, const char **file, int *line)
{
    if (!im->dwarf_tried) {
        im->dwarf_tried = true;
        im->dwarf = dwarf_begin_elf(im->elf, DWARF_C_READ, NULL);
    }
    if (!im->dwarf)
        return false;
    Dwarf_Die cu;
    if (!dwarf_addrdie(im->dwarf, (Dwarf_Addr)addr, &cu) && !cu_containing(im->dwarf, addr, &cu))
        return false;
    /* The function's declaration line (of its definition DIE, following
     * DW_AT_specification for out-of-line members) when DWARF has one. */
    Dwarf_Die *scopes = NULL;
    int ns = dwarf_getscopes(&cu, (Dwarf_Addr)addr, &scopes);
    for (int i = ns - 1; i >= 0; i--) {  /* outermost function: not an inlined one */
        if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
            continue;
        const char *df = dwarf_decl_file(&scopes[i]);
        int dl = 0;
        if (df && dwarf_decl_line(&scopes[i], &dl) == 0 && dl > 0) {
            free(scopes);
            *file = df;
            *line = dl;
            return true;
        }
        break;
    }
    free(scopes);

    /* Else the first line-table row at or after the function's address with a real
     * line: the entry sled itself is attributed to line 0. */
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_getsrclines(&cu, &lines, &n) != 0)
        return false;
    Dwarf_Line *best = NULL;
    Dwarf_Addr best_addr = 0;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int ln;
        if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineno(l, &ln) != 0 || ln <= 0)
            continue;
        if (a >= addr && a - addr < 4096 && (!best || a < best_addr)) {
            best = l;
            best_addr = a;
        }
    }
    if (!best)
        return false;
    const char *f = dwarf_linesrc(best, NULL, NULL);
    int n_line = 0;
    if (!f || dwarf_lineno(best, &n_line) != 0)
        return false;
    *file = f;  /* owned by libdw: lives as long as im->dwarf */
    *line = n_line;
    return true;
}

/* ------------------------------------------------------------------ fr_symbols */

fr_symbols *fr_symbols_new(void)
{
    return calloc(1, sizeof(fr_symbols));
}

void fr_symbols_free(fr_symbols *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_objects; i++) {
        if (s->objects[i].img != s->binary)
            image_free(s->objects[i].img);
        free(s->objects[i].path);
    }
    free(s->objects);
    image_free(s->binary);
    for (size_t i = 0; i < s->n_functions; i++)
        free(s->functions[i].name);
    free(s->functions);
    for (size_t i = 0; i < s->cache_cap; i++)
        free(s->cache[i].name);
    free(s->cache);
    free(s);
}

int fr_symbols_load_binary(fr_symbols *s, const char *path, char *err, size_t errlen)
{
    image *im = image_load(path, err, errlen);
    if (!im)
        return -1;
    image_free(s->binary);
    s->binary = im;
    return 0;
}

uint32_t fr_symbols_unmapped(const fr_symbols *s, uint32_t *first, uint32_t *map_size)
{
    *first = s->unmapped_first;
    *map_size = s->binary ? s->binary->n_ids : 0;
    return s->unmapped;
}

void fr_symbols_drop_binary(fr_symbols *s)
{
    image_free(s->binary);
    s->binary = NULL;
    s->binary_names_first = false;
}

/* True when one of the names at addr (aliases: a C++ constructor's C1 and C2) is name. */
static bool symbol_named_at(const image *im, uint64_t addr, const char *name)
{
    const elf_symbol *s = find_symbol(im, addr);
    if (!s)
        return false;
    for (; s < im->syms + im->n_syms && s->addr == addr; s++)
        if (!strcmp(s->name, name))
            return true;
    return false;
}

/* The binary must be the main executable the trace's own tables describe: each of its
 * object-0 functions, at its run-time address less the object's load bias, must be the
 * function of the same id in the binary's xray_instr_map (or, without a map, carry the
 * same symbol name there). */
/* False only when the trace and the file both have a build-id and they differ. */
static bool same_build(const object_ref *o, const image *im)
{
    if (!o->build_id_size || !im->build_id_size)
        return true;
    return o->build_id_size == im->build_id_size &&
           !memcmp(o->build_id, im->build_id, im->build_id_size);
}

int fr_symbols_check_binary(const fr_symbols *s, char *err, size_t errlen)
{
    const image *b = s->binary;
    if (!b)
        return 0;
    uint64_t bias = 0;
    const object_ref *main_object = NULL;
    for (size_t i = 0; i < s->n_objects; i++)
        if (s->objects[i].index == 0) {
            bias = s->objects[i].bias;
            main_object = &s->objects[i];
        }
    /* Both build-ids known: they decide (a stripped copy of the program that ran has no
     * names to compare, and the same id is the same link). */
    if (main_object && main_object->build_id_size && b->build_id_size) {
        if (same_build(main_object, b))
            return 0;
        char want[FR_BUILD_ID_HEX_SIZE], have[FR_BUILD_ID_HEX_SIZE];
        fr_build_id_hex(main_object->build_id, main_object->build_id_size, want);
        fr_build_id_hex(b->build_id, b->build_id_size, have);
        snprintf(err, errlen, "its build-id is %s, the traced program's was %s", have, want);
        return -1;
    }
    for (size_t i = 0; i < s->n_functions; i++) {
        const function_ref *f = &s->functions[i];
        if (f->object != 0 || !f->address)
            continue;
        uint64_t addr = f->address - bias;
        const char *name = f->name[0] ? f->name : "unnamed";
        if (b->n_ids && f->id > b->n_ids) {
            snprintf(err, errlen, "the trace's function %u (%s) is not in %s's instrumentation "
                     "map, which has %u functions", f->id, name, b->path, b->n_ids);
            return -1;
        }
        if (b->n_ids && b->fn_addr[f->id] != addr) {
            snprintf(err, errlen, "the trace's function %u (%s) was at 0x%llx, %s has function "
                     "%u at 0x%llx", f->id, name, (unsigned long long)addr, b->path, f->id,
                     (unsigned long long)b->fn_addr[f->id]);
            return -1;
        }
        if (!b->n_ids && f->name[0] && !symbol_named_at(b, addr, f->name)) {
            const elf_symbol *sym = find_symbol(b, addr);
            snprintf(err, errlen, "the trace's function %u (%s) was at 0x%llx, where %s has %s",
                     f->id, f->name, (unsigned long long)addr, b->path,
                     sym ? sym->name : "no function");
            return -1;
        }
    }
    return 0;
}

void fr_symbols_add_trace_meta(fr_symbols *s, const fr_trace_meta *m)
{
    if (m->n_objects) {
        object_ref *o = realloc(s->objects, (s->n_objects + m->n_objects) * sizeof *o);
        if (o) {
            s->objects = o;
            for (size_t i = 0; i < m->n_objects; i++) {
                object_ref *r = &s->objects[s->n_objects];
                memset(r, 0, sizeof *r);
                r->index = m->objects[i].index;
                r->bias = m->objects[i].load_bias;
                r->path = strdup(m->objects[i].path ? m->objects[i].path : "");
                memcpy(r->build_id, m->objects[i].build_id, sizeof r->build_id);
                r->build_id_size = m->objects[i].build_id_size;
                if (r->path)
                    s->n_objects++;
            }
        }
    }
    if (m->n_functions) {
        function_ref *f = realloc(s->functions, (s->n_functions + m->n_functions) * sizeof *f);
        if (f) {
            s->functions = f;
            for (size_t i = 0; i < m->n_functions; i++) {
                function_ref *r = &s->functions[s->n_functions];
                r->id = m->functions[i].id;
                r->object = m->functions[i].object;
                r->address = m->functions[i].address;
                r->name = strdup(m->functions[i].name ? m->functions[i].name : "");
                if (r->name)
                    s->n_functions++;
            }
        }
    }
    /* fr_trace_meta_finish sorts its table; keep ours sorted whatever the caller did. */
    for (size_t i = 1; i < s->n_functions; i++) {
        function_ref t = s->functions[i];
        size_t j = i;
        while (j > 0 && s->functions[j - 1].id > t.id) {
            s->functions[j] = s->functions[j - 1];
            j--;
        }
        s->functions[j] = t;
    }
}

static const function_ref *trace_function(const fr_symbols *s, uint32_t id)
{
    size_t lo = 0, hi = s->n_functions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->functions[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_functions && s->functions[lo].id == id ? &s->functions[lo] : NULL;
}

/* The image holding a trace function's code, and the link-time address there. */
static image *object_image(fr_symbols *s, const function_ref *f, uint64_t *addr)
{
    for (size_t i = 0; i < s->n_objects; i++) {
        object_ref *o = &s->objects[i];
        if (o->index != f->object)
            continue;
        if (!o->tried) {
            o->tried = true;
            /* --binary stands for the main executable (object 0). */
            o->img = (o->index == 0 && s->binary) ? s->binary : image_load(o->path, NULL, 0);
            /* A file at the recorded path that is another build (a library updated since)
             * would name every address wrongly: the trace's own names, or none, instead. */
            if (o->img && o->img != s->binary && !same_build(o, o->img)) {
                image_free(o->img);
                o->img = NULL;
            }
        }
        *addr = f->address - o->bias;
        return o->img;
    }
    if (f->object == 0 && s->binary) { /* no object table: assume no load bias */
        *addr = f->address;
        return s->binary;
    }
    return NULL;
}

/* Where function `id` is: an image and an address in it, or NULL. */
static image *locate(fr_symbols *s, uint32_t id, uint64_t *addr)
{
    const function_ref *f = trace_function(s, id);
    if (f && f->address) {
        image *im = object_image(s, f, addr);
        if (im)
            return im;
    }
    if (s->binary && id >= 1 && id <= s->binary->n_ids && s->binary->fn_addr[id]) {
        *addr = s->binary->fn_addr[id];
        return s->binary;
    }
    return NULL;
}

static cache_slot *cache_find(fr_symbols *s, uint32_t id)
{
    if (s->cache_used * 2 >= s->cache_cap) {
        size_t cap = s->cache_cap ? s->cache_cap * 2 : 256;
        cache_slot *c = calloc(cap, sizeof *c);
        if (!c)
            return NULL;
        for (size_t i = 0; i < s->cache_cap; i++) {
            if (!s->cache[i].id)
                continue;
            size_t h = (s->cache[i].id * 2654435761u) & (cap - 1);
            while (c[h].id)
                h = (h + 1) & (cap - 1);
            c[h] = s->cache[i];
        }
        free(s->cache);
        s->cache = c;
        s->cache_cap = cap;
    }
    size_t h = (id * 2654435761u) & (s->cache_cap - 1);
    while (s->cache[h].id && s->cache[h].id != id)
        h = (h + 1) & (s->cache_cap - 1);
    if (!s->cache[h].id) {
        s->cache[h].id = id;
        s->cache_used++;
    }
    return &s->cache[h];
}

const char *fr_symbols_name(fr_symbols *s, uint32_t function_id)
{
    if (!function_id)
        return "#0";
    snprintf(s->fallback, sizeof s->fallback, "#%u", function_id);
    cache_slot *c = cache_find(s, function_id);
    if (!c)
        return s->fallback;
    if (c->name)
        return c->name;
    const function_ref *f = trace_function(s, function_id);
    if (s->binary_names_first) {
        uint64_t addr;
        image *im = locate(s, function_id, &addr);
        const elf_symbol *sym = im == s->binary ? find_symbol(im, addr) : NULL;
        if (sym) {
            c->name = demangle(s, sym->name);
            return c->name ? c->name : s->fallback;
        }
    }
    if (f && f->name[0]) {
        /* Recorders store the linker's (mangled) name; people read the demangled one. */
        c->name = demangle(s, f->name);
    } else {
        uint64_t addr;
        image *im = locate(s, function_id, &addr);
        const elf_symbol *sym = im ? find_symbol(im, addr) : NULL;
        c->name = sym ? demangle(s, sym->name) : strdup(s->fallback);
        /* An id past the binary's map (not one of a shared object, whose ids compiler-rt
         * packs above 2^24): the binary is likely not the traced program. */
        if (!f && !im && s->binary && s->binary->n_ids && function_id > s->binary->n_ids &&
            function_id < (1u << 24) && !s->unmapped++)
            s->unmapped_first = function_id;
    }
    return c->name ? c->name : s->fallback;
}

void fr_symbols_set_demangle(fr_symbols *s, fr_demangle_mode mode)
{
    s->demangle = mode;
}

void fr_symbols_prefer_binary(fr_symbols *s)
{
    s->binary_names_first = true;
}

int fr_symbols_location(fr_symbols *s, uint32_t function_id, const char **file, int *line)
{
    if (!function_id)
        return 0;
    cache_slot *c = cache_find(s, function_id);
    if (!c)
        return 0;
    if (!c->located) {
        c->located = true;
        uint64_t addr;
        image *im = locate(s, function_id, &addr);
        if (!im || !image_location(im, addr, &c->file, &c->line))
            c->file = NULL;
    }
    if (!c->file)
        return 0;
    *file = c->file;
    *line = c->line;
    return 1;
}
