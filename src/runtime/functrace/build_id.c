/* build_id.c - a loaded object's GNU build-id (see build_id.h). */
#define _GNU_SOURCE
#include "functrace/build_id.h"

#include <elf.h>
#include <string.h>

/* A note is a header, the name and the descriptor, each padded to the segment's
 * alignment (4 for the build-id's section; 8 when a linker merged it with 8-aligned
 * notes such as .note.gnu.property). */
static size_t pad(size_t n, size_t align)
{
    return (n + align - 1) & ~(align - 1);
}

/* True when [vaddr, vaddr + size) lies inside one PT_LOAD segment: mapped memory. The
 * ELF rules do not require a PT_NOTE segment to be loaded, and the runtime reads only
 * what the loader mapped (an odd or hostile object must not make it fault). */
static int loaded(const ElfW(Phdr) *phdr, size_t phnum, uint64_t vaddr, uint64_t size)
{
    for (size_t i = 0; i < phnum; i++)
        if (phdr[i].p_type == PT_LOAD && vaddr >= phdr[i].p_vaddr &&
            size <= phdr[i].p_filesz && vaddr - phdr[i].p_vaddr <= phdr[i].p_filesz - size)
            return 1;
    return 0;
}

size_t fr_build_id_of_loaded(uintptr_t bias, const ElfW(Phdr) *phdr, size_t phnum,
                             uint8_t *out, size_t cap)
{
    for (size_t i = 0; i < phnum; i++) {
        if (phdr[i].p_type != PT_NOTE || !loaded(phdr, phnum, phdr[i].p_vaddr, phdr[i].p_memsz))
            continue;
        size_t align = phdr[i].p_align == 8 ? 8 : 4;
        const uint8_t *p = (const uint8_t *)(bias + phdr[i].p_vaddr);
        size_t left = phdr[i].p_memsz;
        while (left >= sizeof(ElfW(Nhdr))) {
            ElfW(Nhdr) nh;
            memcpy(&nh, p, sizeof nh);
            size_t name_at = sizeof nh;
            size_t desc_at = name_at + pad(nh.n_namesz, align);
            size_t next = desc_at + pad(nh.n_descsz, align);
            if (nh.n_namesz > left || nh.n_descsz > left || next > left)
                break;   /* not a well-formed note list: stop reading it */
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                memcmp(p + name_at, "GNU", 4) == 0) {
                if (nh.n_descsz == 0 || nh.n_descsz > cap)
                    return 0;
                memcpy(out, p + desc_at, nh.n_descsz);
                return nh.n_descsz;
            }
            p += next;
            left -= next;
        }
    }
    return 0;
}
