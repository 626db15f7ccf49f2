/*
 * object_file.h - read what the loader does not map: the section headers and the symbol
 * table of a loaded ELF object, from its file. The sled runtime needs them to find each
 * object's xray_instr_map (a section, not a segment: only the file says where it is) and
 * to name functions (patch=NAME, and function names in the trace).
 * Internal to libflightrec; libc only (open/pread/malloc); never on a hot path.
 */
#ifndef FLIGHTREC_OBJECT_FILE_H
#define FLIGHTREC_OBJECT_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct fr_object_file fr_object_file;

/* Opens PATH and reads its section headers. NULL (errno set) if it is not a readable
 * 64-bit little-endian ELF file. */
fr_object_file *fr_object_file_open(const char *path);
void fr_object_file_close(fr_object_file *of);

/* Link-time address and size of the first section called NAME; 0 if there is none. */
int fr_object_file_section(const fr_object_file *of, const char *name,
                           uint64_t *addr, uint64_t *size);

/* Calls FN for each defined function symbol (STT_FUNC or STT_GNU_IFUNC) of .symtab, or of
 * .dynsym when the file is stripped. VALUE is the link-time address; NAME is valid during
 * the call only. */
typedef void (*fr_object_symbol_fn)(uint64_t value, const char *name, void *ctx);
void fr_object_file_symbols(fr_object_file *of, fr_object_symbol_fn fn, void *ctx);

/* Nonzero if .symtab or .dynsym has a symbol called NAME: an undefined one (the object
 * calls a function of another), or, unless UNDEFINED_ONLY, a definition. */
int fr_object_file_has_symbol(fr_object_file *of, const char *name, int undefined_only);

#endif
