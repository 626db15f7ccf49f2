/*
 * functrace_build_id_test.c - fr_build_id_of_loaded (src/runtime/functrace/build_id.c):
 * the GNU build-id from an object's mapped notes, and nothing read that the loader did
 * not map.
 *   - this executable's own id: the one its file's note holds (read here from the file);
 *   - a PT_NOTE outside every PT_LOAD, pointing at a PROT_NONE page: 0, no fault;
 *   - malformed notes (sizes past the segment) and an id larger than the caller's room: 0;
 *   - 8-byte-aligned note segments (a linker merging .note.gnu.property) are walked right.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "functrace/build_id.h"

/* ------------------------------------------------------------ the executable's own */

static int first_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    *(struct dl_phdr_info *)ctx = *info;
    return 1;   /* the executable comes first */
}

/* The id in the file /proc/self/exe, from its section headers (independent of the
 * program headers the function reads). */
static size_t id_from_file(uint8_t *out)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    assert_non_null(f);
    static uint8_t file[64 << 20];
    size_t n = fread(file, 1, sizeof file, f);
    fclose(f);
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)file;
    for (int i = 0; i < eh->e_shnum; i++) {
        const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(file + eh->e_shoff + (size_t)i * eh->e_shentsize);
        if (sh->sh_type != SHT_NOTE || sh->sh_offset + sh->sh_size > n)
            continue;
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(file + sh->sh_offset);
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4) {
            memcpy(out, (const uint8_t *)(nh + 1) + 4, nh->n_descsz);
            return nh->n_descsz;
        }
    }
    return 0;
}

static void own_id(void **state)
{
    (void)state;
    struct dl_phdr_info info;
    dl_iterate_phdr(first_object, &info);
    uint8_t got[64], want[64];
    size_t want_n = id_from_file(want);
    assert_true(want_n > 0);   /* the test program is linked with a build-id */
    size_t n = fr_build_id_of_loaded(info.dlpi_addr, info.dlpi_phdr, info.dlpi_phnum, got, sizeof got);
    assert_int_equal(n, want_n);
    assert_memory_equal(got, want, n);
    /* no room for it: 0, nothing claimed */
    assert_int_equal(fr_build_id_of_loaded(info.dlpi_addr, info.dlpi_phdr, info.dlpi_phnum, got, n - 1), 0);
}

/* ------------------------------------------------------------ synthetic objects */

/* A note "GNU" NT_GNU_BUILD_ID with desc bytes 1..size at p, padded to align. */
static size_t put_note(uint8_t *p, uint32_t type, uint32_t size, size_t align)
{
    ElfW(Nhdr) nh = { 4, size, type };
    memcpy(p, &nh, sizeof nh);
    memcpy(p + sizeof nh, "GNU", 4);
    size_t at = sizeof nh + ((4 + align - 1) & ~(align - 1));
    for (uint32_t i = 0; i < size; i++)
        p[at + i] = (uint8_t)(i + 1);
    return at + ((size + align - 1) & ~(align - 1));
}

static void synthetic(void **state)
{
    (void)state;
    /* Page 0: "the object", loaded; page 1: PROT_NONE, any read of it faults. */
    uint8_t *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + 4096, 4096, PROT_NONE), 0);
    uintptr_t bias = (uintptr_t)m;
    ElfW(Phdr) ph[2] = {
        { .p_type = PT_LOAD, .p_vaddr = 0, .p_filesz = 4096, .p_memsz = 4096 },
        { .p_type = PT_NOTE, .p_align = 4 },
    };
    uint8_t got[64];

    /* 4-aligned: another note first, then the id */
    size_t len = put_note(m + 64, 1 /* NT_GNU_ABI_TAG */, 16, 4);
    len += put_note(m + 64 + len, NT_GNU_BUILD_ID, 20, 4);
    ph[1].p_vaddr = 64;
    ph[1].p_memsz = len;
    assert_int_equal(fr_build_id_of_loaded(bias, ph, 2, got, sizeof got), 20);
    for (int i = 0; i < 20; i++)
        assert_int_equal(got[i], i + 1);

    /* 8-aligned segment: a 12-byte property note, then a 20-byte id (padding differs) */
    len = put_note(m + 512, 5 /* NT_GNU_PROPERTY_TYPE_0 */, 12, 8);
    len += put_note(m + 512 + len, NT_GNU_BUILD_ID, 20, 8);
    ph[1] = (ElfW(Phdr)){ .p_type = PT_NOTE, .p_vaddr = 512, .p_memsz = len, .p_align = 8 };
    assert_int_equal(fr_build_id_of_loaded(bias, ph, 2, got, sizeof got), 20);
    assert_int_equal(got[19], 20);

    /* a note segment outside the loaded part (the PROT_NONE page): not read */
    ph[1] = (ElfW(Phdr)){ .p_type = PT_NOTE, .p_vaddr = 4096, .p_memsz = 64, .p_align = 4 };
    assert_int_equal(fr_build_id_of_loaded(bias, ph, 2, got, sizeof got), 0);
    /* ... or running past it */
    ph[1] = (ElfW(Phdr)){ .p_type = PT_NOTE, .p_vaddr = 4000, .p_memsz = 200, .p_align = 4 };
    assert_int_equal(fr_build_id_of_loaded(bias, ph, 2, got, sizeof got), 0);

    /* a descriptor size past the segment's end: 0, nothing read past it */
    put_note(m + 2048, NT_GNU_BUILD_ID, 20, 4);
    ((ElfW(Nhdr) *)(m + 2048))->n_descsz = 1u << 30;
    ph[1] = (ElfW(Phdr)){ .p_type = PT_NOTE, .p_vaddr = 2048, .p_memsz = 64, .p_align = 4 };
    assert_int_equal(fr_build_id_of_loaded(bias, ph, 2, got, sizeof got), 0);

    /* no PT_LOAD at all: nothing is known to be mapped */
    ph[1] = (ElfW(Phdr)){ .p_type = PT_NOTE, .p_vaddr = 64, .p_memsz = 64, .p_align = 4 };
    assert_int_equal(fr_build_id_of_loaded(bias, ph + 1, 1, got, sizeof got), 0);
    munmap(m, 8192);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_id),
        cmocka_unit_test(synthetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
