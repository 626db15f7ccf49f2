/*
 * build_id.h - a loaded object's GNU build-id, read from its mapped PT_NOTE segments.
 *
 * The trace records it beside each FR_TE_OBJECT (FR_TE_BUILD_ID) so that a reader can
 * tell whether the file a user names with --binary is the one that ran: strip keeps the
 * note, a rebuild changes it. Internal to libflightrec.
 */
#ifndef FLIGHTREC_BUILD_ID_H
#define FLIGHTREC_BUILD_ID_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

/* Copies the NT_GNU_BUILD_ID descriptor of the object loaded at bias with these program
 * headers into out (cap bytes). Returns its size, or 0 if the object has none or it is
 * larger than cap. Reads memory only: no file, no allocation; only note segments that
 * lie inside a PT_LOAD segment's file-backed part (what the loader mapped). */
size_t fr_build_id_of_loaded(uintptr_t bias, const ElfW(Phdr) *phdr, size_t phnum,
                             uint8_t *out, size_t cap);

#endif
