/* program_facts.c - see program_facts.h. */
#define _GNU_SOURCE
#include "program_facts.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An xray_instr_map entry (LLVM's XRaySledEntry, 64-bit): address, function, then the
 * kind byte; 32 bytes in all. Kind 0 is a function's entry sled: one per function. */
enum { SLED_ENTRY_SIZE = 32, SLED_FUNCTION_OFFSET = 8, SLED_KIND_OFFSET = 16,
       SLED_VERSION_OFFSET = 18, SLED_KIND_ENTRY = 0 };

/* A C++ name in a reserved namespace (_ZN6__xray..., _ZNK11__sanitizer...): the
 * implementation's, such as compiler-rt's XRay runtime that plain `clang
 * -fxray-instrument` links (about 240 functions), never the program's own. */
static bool reserved_cxx_name(const char *name)
{
    if (name[0] != '_' || name[1] != 'Z')
        return false;
    const char *p = name + 2;
    while (*p == 'N' || *p == 'K')
        p++;
    if (*p < '1' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return p[0] == '_' && p[1] == '_';
}

/* A statically linked program holds libc's functions too, after the program's own: the
 * linker lays out the program's objects first, then the archives' members. Only the
 * functions up to the last one with sleds are then the program's. */
static bool counts_as_program(const fr_program_facts *f, GElf_Addr addr, GElf_Addr last_sled_fn)
{
    return f->dynamic || !last_sled_fn || addr <= last_sled_fn;
}

static void scan_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, fr_program_facts *f,
                         bool *defines_xray_patch, GElf_Addr *cyg_enter_defined,
                         GElf_Addr last_sled_fn)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || sh->sh_entsize == 0)
        return;
    size_t n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
            continue;
        const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
        if (!name)
            continue;
        if (!strcmp(name, "fr_init") && sym.st_shndx != SHN_UNDEF)
            f->links_flightrec = true;
        else if (!strcmp(name, "__cyg_profile_func_enter") && sym.st_shndx == SHN_UNDEF)
            f->has_cyg_hooks = true;   /* taken from a shared library: the code calls it */
        else if (!strcmp(name, "__cyg_profile_func_enter") && sym.st_value)
            *cyg_enter_defined = sym.st_value;   /* ours, linked in from libflightrec.a */
        else if (!strcmp(name, "__xray_patch") && sym.st_shndx != SHN_UNDEF)
            *defines_xray_patch = true;
        if (sh->sh_type == SHT_SYMTAB && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
            GELF_ST_BIND(sym.st_info) == STB_GLOBAL && sym.st_shndx != SHN_UNDEF &&
            strncmp(name, "fr_", 3) && strncmp(name, "__xray", 6) &&
            strncmp(name, "__cyg", 5) && (name[0] != '_' || name[1] == 'Z') &&
            !reserved_cxx_name(name) && counts_as_program(f, sym.st_value, last_sled_fn))
            f->program_functions++;
    }
}

static void scan_dynamic(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, fr_program_facts *f)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || sh->sh_entsize == 0)
        return;
    size_t n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < n; i++) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
            continue;
        const char *name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
        if (name && !strncmp(name, "libflightrec", 12))
            f->links_flightrec = f->needs_flightrec_so = true;
    }
}

/* Counts the sleds; returns the address of the last function that has one (0: none).
 * Version 2 entries hold addresses relative to the field's own (PC-relative). */
static GElf_Addr count_sleds(Elf_Scn *scn, GElf_Shdr *sh, fr_program_facts *f)
{
    f->has_sleds = sh->sh_size > 0;
    Elf_Data *data = sh->sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
    if (!data || !data->d_buf)
        return 0;
    const unsigned char *p = data->d_buf;
    GElf_Addr last = 0;
    for (size_t off = 0; off + SLED_ENTRY_SIZE <= data->d_size; off += SLED_ENTRY_SIZE) {
        f->sleds++;
        if (p[off + SLED_KIND_OFFSET] != SLED_KIND_ENTRY)
            continue;
        f->sled_functions++;
        uint64_t fn;
        memcpy(&fn, p + off + SLED_FUNCTION_OFFSET, sizeof fn);
        if (p[off + SLED_VERSION_OFFSET] >= 2)
            fn += sh->sh_addr + off + SLED_FUNCTION_OFFSET;
        if (fn > last)
            last = fn;
    }
    return last;
}

/* Whether an instruction at `at` (p: its bytes, `left` of them) calls `target`.
 * x86: a `call rel32` (e8, also the `addr32 call` (67 e8) a linker makes of -fno-plt's
 * `call *GOT`); aarch64: a `bl imm26` (a static link's -fno-plt calls are bl too). */
static bool x86_calls(const unsigned char *p, size_t left, GElf_Addr at, GElf_Addr target)
{
    if (left < 5 || p[0] != 0xe8)
        return false;
    int32_t rel = (int32_t)((uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 |
                            (uint32_t)p[4] << 24);
    return at + 5 + (GElf_Addr)(int64_t)rel == target;
}

static bool aarch64_calls(const unsigned char *p, size_t left, GElf_Addr at, GElf_Addr target)
{
    if (left < 4 || at % 4)
        return false;
    uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    if ((w & 0xfc000000u) != 0x94000000u)
        return false;
    int64_t imm = (int64_t)((w & 0x03ffffffu) ^ 0x02000000u) - 0x02000000;   /* sign-extend */
    return at + (GElf_Addr)(imm * 4) == target;
}

/* Whether the code calls the function at `target` (an executable section's call
 * instruction lands on it). libflightrec.a defines __cyg_profile_func_enter in every
 * program that links it statically, built with -finstrument-functions or not, so there
 * the definition says nothing: only calls to it do. */
static bool calls_address(Elf *elf, GElf_Addr target, bool aarch64)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data || !data->d_buf)
            continue;
        const unsigned char *p = data->d_buf;
        for (size_t i = 0; i < data->d_size; i += aarch64 ? 4 : 1)
            if (aarch64 ? aarch64_calls(p + i, data->d_size - i, sh.sh_addr + i, target)
                        : x86_calls(p + i, data->d_size - i, sh.sh_addr + i, target))
                return true;
    }
    return false;
}

int fr_program_inspect(const char *path, fr_program_facts *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    f->setid = (st.st_mode & (S_ISUID | S_ISGID)) != 0;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        snprintf(err, errlen, "%s: not an ELF executable (a script? run its interpreter's "
                 "program instead)", path);
        if (elf)
            elf_end(elf);
        close(fd);
        return -1;
    }
    size_t phnum;
    if (elf_getphdrnum(elf, &phnum) == 0)
        for (size_t i = 0; i < phnum; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
                f->dynamic = true;
        }
    bool defines_xray_patch = false;
    GElf_Addr cyg_enter_defined = 0;
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
        GElf_Addr last_sled_fn = 0;   /* the sleds first: the symbols' count needs it */
        for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
            GElf_Shdr sh;
            const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
            if (name && !strcmp(name, "xray_instr_map"))
                last_sled_fn = count_sleds(scn, &sh, f);
        }
        for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh))
                continue;
            if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
                scan_symbols(elf, scn, &sh, f, &defines_xray_patch, &cyg_enter_defined,
                             last_sled_fn);
            else if (sh.sh_type == SHT_DYNAMIC)
                scan_dynamic(elf, scn, &sh, f);
        }
    }
    f->xray_runtime = defines_xray_patch && !f->links_flightrec;
    if (!f->has_cyg_hooks && cyg_enter_defined) {
        GElf_Ehdr eh;
        unsigned machine = gelf_getehdr(elf, &eh) ? eh.e_machine : EM_NONE;
        /* (the runtime has ports for these two; elsewhere the definition is taken as a sign) */
        if (machine == EM_X86_64 || machine == EM_386 || machine == EM_AARCH64)
            f->has_cyg_hooks = calls_address(elf, cyg_enter_defined, machine == EM_AARCH64);
        else
            f->has_cyg_hooks = true;
    }
    elf_end(elf);
    close(fd);
    return 0;
}

char *fr_program_resolve(const char *prog)
{
    if (strchr(prog, '/'))
        return strdup(prog);
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char *cand;
        if (asprintf(&cand, "%.*s/%s", (int)len, len ? path : ".", prog) < 0)
            return NULL;
        struct stat st;
        if (access(cand, X_OK) == 0 && stat(cand, &st) == 0 && S_ISREG(st.st_mode))
            return cand;
        free(cand);
        path += len;
        if (*path == ':')
            path++;
    }
    return NULL;
}
