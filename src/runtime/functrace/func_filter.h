/*
 * func_filter.h - which functions are recorded, for every front end: patch= (record
 * --filter, uftrace -F) and exclude= (record --exclude, uftrace -N).
 *
 * A function is recorded when patch= selects it ("all", or an item of its pattern
 * matches: name_pattern.h) and no item of exclude= matches it.
 *   - XRay sleds: only the selected functions' sleds are patched (sled_patch.c); the
 *     others cost nothing.
 *   - gcc -finstrument-functions: the hooks run for every function, so the decision is
 *     made per function address. At init (and after each dlopen) the symbol tables of
 *     the objects that call the hooks are read and every function whose decision is not
 *     the default is put in a fixed open-addressed table (address -> keep or skip); the
 *     default is "skip" under a patch= pattern (a function without a name matches no
 *     glob) and "keep" otherwise. The hooks cache the answer per function slot
 *     (finstrument.c), so a filtered-out function costs a load and a branch. Id items of
 *     a pattern select sled ids only (a hooked function gets its id at its first call).
 * patch=none means no sled is patched (the XRay API patches later); it does not stop
 * the -finstrument-functions hooks.
 * Set and prepared at init, never on a hot path; fr_func_filter_lookup is lock-free and
 * async-signal-safe. Internal to libflightrec.
 */
#ifndef FLIGHTREC_FUNC_FILTER_H
#define FLIGHTREC_FUNC_FILTER_H

#include <stdint.h>
#include "core/visibility.h"

/* Takes the patterns (PATCH: "all", "none" or a pattern; EXCLUDE: "" or a pattern) and
 * forgets the decisions made for earlier ones. 0, or -1 if a pattern is malformed (that
 * pattern then selects as "all" / excludes nothing). */
FR_HIDDEN int fr_func_filter_set(const char *patch, const char *exclude);
/* Nonzero if the function called NAME (NULL: unknown) with sled id ID
 * (FR_NAME_PATTERN_NO_ID: none) is to be recorded. Allocates (demangler): not hot. */
FR_HIDDEN int fr_func_filter_selects(const char *name, uint32_t id);
/* Nonzero when a pattern narrows what is recorded (not "all" without exclude=). */
FR_HIDDEN int fr_func_filter_narrows(void);
/* Reads the symbol tables of the -finstrument-functions objects loaded since the last
 * call and records their decisions. Returns how many of their functions are selected
 * (counting from the last fr_func_filter_set), or -1 if no object calls the hooks. */
FR_HIDDEN long fr_func_filter_prepare(void);
/* The decision for the function at ADDR: 1 record, 0 skip; *KNOWN set to 0 when ADDR
 * was in no symbol table read so far (the default was given). Async-signal-safe. */
FR_HIDDEN int fr_func_filter_lookup(uintptr_t addr, int *known);

#endif
