/*
 * program_facts.h - what an executable's ELF file says about tracing it, read with
 * libelf without running it: used by `flightrec record` (how to trace it: as linked, or
 * with libflightrec.so preloaded) and `flightrec doctor` (the report).
 */
#ifndef FLIGHTREC_PROGRAM_FACTS_H
#define FLIGHTREC_PROGRAM_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fr_program_facts {
    bool     links_flightrec;  /* DT_NEEDED libflightrec*, or fr_init defined (static) */
    bool     needs_flightrec_so; /* DT_NEEDED libflightrec* (the shared library) */
    bool     dynamic;          /* has a program interpreter (PT_INTERP): LD_PRELOAD works */
    bool     has_sleds;        /* a non-empty xray_instr_map section */
    uint64_t sled_functions;   /* entries of kind "function entry" in it: functions */
    uint64_t sleds;            /* all its entries (entries, exits, tail calls, events) */
    uint64_t program_functions; /* global functions defined in .symtab, without ours
                                  (fr_*, __xray_*, __cyg_*), weak ones and C runtime
                                  names (_x but not _Z): to compare with sled_functions;
                                  static: only those up to the last function with sleds
                                  (libc's come after the program's) */
    bool     has_cyg_hooks;    /* calls __cyg_profile_func_enter (gcc/clang
                                  -finstrument-functions): an undefined reference, or
                                  calls to the definition libflightrec.a linked in */
    bool     xray_runtime;     /* compiler-rt's XRay runtime linked in (__xray_patch
                                  defined, fr_init not) */
    bool     setid;            /* set-user-ID or set-group-ID: the loader ignores
                                  LD_PRELOAD and our FLIGHTREC_OPTIONS (secure execution) */
} fr_program_facts;

/* Fills *f from the ELF file at path. Returns 0, or -1 with "why" in err (cannot open,
 * not an ELF file). */
int fr_program_inspect(const char *path, fr_program_facts *f, char *err, size_t errlen);

/* PROGRAM as execvp would find it (PATH search when it has no '/'); NULL if nowhere.
 * The result is malloc'ed. */
char *fr_program_resolve(const char *prog);

#endif
