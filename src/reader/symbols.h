/*
 * symbols.h - function id -> name (and file:line).
 * Sources, in order of preference: the trace's own function table (FR_TE_FUNCTION),
 * then the binary (--binary, or the executable recorded in the trace; first if
 * fr_symbols_prefer_binary): its xray_instr_map (ids assigned exactly as llvm-xray
 * does), ELF symbols, DWARF line info via elfutils' libdw. C++ names from either
 * source are demangled.
 */
#ifndef FLIGHTREC_SYMBOLS_H
#define FLIGHTREC_SYMBOLS_H

#include <stdint.h>
#include "trace_meta.h"

typedef struct fr_symbols fr_symbols;

fr_symbols *fr_symbols_new(void);
void fr_symbols_free(fr_symbols *s);
/* Loads a binary's instrumentation map and symbols. Returns 0, or -1 with a message. */
int  fr_symbols_load_binary(fr_symbols *s, const char *path, char *err, size_t errlen);
/* Names of functions of the loaded binary come from its symbols even where the trace
 * has its own (what an explicit --binary promises). */
void fr_symbols_prefer_binary(fr_symbols *s);
/* After fr_symbols_add_trace_meta: 0 when the loaded binary can be the main executable
 * the trace's tables describe (or they say nothing to compare), -1 with a message naming
 * the first function whose id or address differs: names from it would be wrong. */
int  fr_symbols_check_binary(const fr_symbols *s, char *err, size_t errlen);
/* How many function ids fr_symbols_name was asked for that neither the trace's tables nor
 * the binary's instrumentation map know (ids below 2^24: not a shared object's), the
 * first of them and the map's size. Such ids in a trace without tables (compiler-rt's)
 * mean the binary is probably not the traced program. */
uint32_t fr_symbols_unmapped(const fr_symbols *s, uint32_t *first, uint32_t *map_size);
/* Forgets the loaded binary (names then come from the trace's tables alone). */
void fr_symbols_drop_binary(fr_symbols *s);
/* Takes names (and addresses to resolve) from the trace's own tables. */
void fr_symbols_add_trace_meta(fr_symbols *s, const fr_trace_meta *m);
/* How C++ names are given: demangled in full (the default), simplified (demangled
 * without template arguments and parameter lists: name_simple.h), or as linked
 * (mangled). Set before the first fr_symbols_name. */
typedef enum { FR_DEMANGLE_FULL, FR_DEMANGLE_SIMPLE, FR_DEMANGLE_NO } fr_demangle_mode;
void fr_symbols_set_demangle(fr_symbols *s, fr_demangle_mode mode);
/* Never NULL: falls back to "#<id>". The string lives as long as s. */
const char *fr_symbols_name(fr_symbols *s, uint32_t function_id);
/* file:line of the function, or 0 if unknown. */
int fr_symbols_location(fr_symbols *s, uint32_t function_id, const char **file, int *line);

#endif
