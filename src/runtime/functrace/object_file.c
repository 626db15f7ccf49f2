/* object_file.c - section headers and symbols of an ELF object, read from its file. */
#include "functrace/object_file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fr_object_file {
    int fd;
    Elf64_Shdr *sections;
    size_t section_count;
    char *section_names;     /* .shstrtab contents */
    size_t section_names_size;
};

/* pread the whole range or fail. */
static int read_at(int fd, void *buf, size_t size, uint64_t offset)
{
    char *p = buf;
    while (size) {
        ssize_t n = pread(fd, p, size, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        size -= (size_t)n;
        offset += (uint64_t)n;
    }
    return 0;
}

static void *read_section(const fr_object_file *of, const Elf64_Shdr *sh)
{
    if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0 || sh->sh_size > (1ull << 32))
        return NULL;
    void *buf = malloc(sh->sh_size + 1);
    if (!buf)
        return NULL;
    if (read_at(of->fd, buf, sh->sh_size, sh->sh_offset)) {
        free(buf);
        return NULL;
    }
    ((char *)buf)[sh->sh_size] = 0; /* string tables end in NUL even when damaged */
    return buf;
}

fr_object_file *fr_object_file_open(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    Elf64_Ehdr eh;
    fr_object_file *of = NULL;
    if (read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum)
        goto fail;
    of = calloc(1, sizeof *of);
    if (!of)
        goto fail;
    of->fd = fd;
    of->section_count = eh.e_shnum;
    of->sections = malloc(of->section_count * sizeof(Elf64_Shdr));
    if (!of->sections ||
        read_at(fd, of->sections, of->section_count * sizeof(Elf64_Shdr), eh.e_shoff))
        goto fail;
    const Elf64_Shdr *names = &of->sections[eh.e_shstrndx];
    of->section_names = read_section(of, names);
    if (!of->section_names)
        goto fail;
    of->section_names_size = names->sh_size;
    return of;
fail:
    if (of) {
        free(of->sections);
        free(of);
    }
    close(fd);
    errno = ENOEXEC;
    return NULL;
}

void fr_object_file_close(fr_object_file *of)
{
    if (!of)
        return;
    close(of->fd);
    free(of->sections);
    free(of->section_names);
    free(of);
}

static const Elf64_Shdr *find_section(const fr_object_file *of, const char *name)
{
    for (size_t i = 0; i < of->section_count; i++) {
        const Elf64_Shdr *sh = &of->sections[i];
        if (sh->sh_name < of->section_names_size &&
            !strcmp(of->section_names + sh->sh_name, name))
            return sh;
    }
    return NULL;
}

int fr_object_file_section(const fr_object_file *of, const char *name,
                           uint64_t *addr, uint64_t *size)
{
    const Elf64_Shdr *sh = find_section(of, name);
    if (!sh || sh->sh_size == 0)
        return 0;
    *addr = sh->sh_addr;
    *size = sh->sh_size;
    return 1;
}

static int symbols_from(fr_object_file *of, unsigned type, fr_object_symbol_fn fn, void *ctx)
{
    for (size_t i = 0; i < of->section_count; i++) {
        const Elf64_Shdr *sh = &of->sections[i];
        if (sh->sh_type != type || sh->sh_entsize != sizeof(Elf64_Sym) ||
            sh->sh_link >= of->section_count)
            continue;
        const Elf64_Shdr *strsh = &of->sections[sh->sh_link];
        Elf64_Sym *syms = read_section(of, sh);
        char *strs = read_section(of, strsh);
        if (syms && strs) {
            size_t n = sh->sh_size / sizeof(Elf64_Sym);
            for (size_t k = 0; k < n; k++) {
                unsigned st = ELF64_ST_TYPE(syms[k].st_info);
                if ((st != STT_FUNC && st != STT_GNU_IFUNC) || syms[k].st_shndx == SHN_UNDEF ||
                    syms[k].st_name >= strsh->sh_size)
                    continue;
                fn(syms[k].st_value, strs + syms[k].st_name, ctx);
            }
        }
        free(syms);
        free(strs);
        return 1;
    }
    return 0;
}

void fr_object_file_symbols(fr_object_file *of, fr_object_symbol_fn fn, void *ctx)
{
    if (!symbols_from(of, SHT_SYMTAB, fn, ctx))
        symbols_from(of, SHT_DYNSYM, fn, ctx);
}

int fr_object_file_has_symbol(fr_object_file *of, const char *name, int undefined_only)
{
    int found = 0;
    for (size_t i = 0; i < of->section_count && !found; i++) {
        const Elf64_Shdr *sh = &of->sections[i];
        if ((sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM) ||
            sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_link >= of->section_count)
            continue;
        const Elf64_Shdr *strsh = &of->sections[sh->sh_link];
        Elf64_Sym *syms = read_section(of, sh);
        char *strs = read_section(of, strsh);
        size_t want = strlen(name) + 1;
        if (syms && strs) {
            size_t n = sh->sh_size / sizeof(Elf64_Sym);
            for (size_t k = 0; k < n && !found; k++)
                found = syms[k].st_name < strsh->sh_size &&
                        strsh->sh_size - syms[k].st_name >= want &&
                        !memcmp(strs + syms[k].st_name, name, want) &&
                        (!undefined_only || syms[k].st_shndx == SHN_UNDEF);
        }
        free(syms);
        free(strs);
    }
    return found;
}
