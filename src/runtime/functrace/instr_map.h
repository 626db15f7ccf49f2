/*
 * instr_map.h - the instrumentation maps of the loaded objects, and function ids.
 *
 * Every object built with `clang -fxray-instrument` carries a section xray_instr_map
 * (32-byte entries, one per sled; design notes section 3). clang 14 has no -fxray-shared,
 * so nothing registers these maps: we find them ourselves. dl_iterate_phdr lists the loaded
 * objects and their load bias; the section headers, which the loader does not map, are
 * read from each object's file (/proc/self/exe for the executable). The section itself is
 * mapped (SHF_ALLOC) and its entries are PC-relative, so sled addresses come straight from
 * memory, without relocation.
 *
 * Function ids: within one object, exactly llvm-xray's rule (walk the map in section order,
 * start at 1, increment when the function address changes). The main executable comes
 * first, so its ids are the ones `llvm-xray account -m BINARY` prints; every other object
 * gets the next consecutive range. Objects loaded later (dlopen) are added by
 * fr_instr_map_refresh, after the existing ranges. An object dlclose unloads is marked
 * `unloaded` by fr_instr_map_forget_unloaded (dl_hooks.c calls it, with patching held
 * off, right after the real dlclose): its sleds are never touched again, its ids stay
 * reserved (the trace may hold its records), and loading it again gives new ids.
 *
 * The registry is append-only: an object, once published, never moves and changes only
 * its `unloaded` flag, so readers (metadata at flush, __xray_function_address) need no
 * lock.
 * Internal to libflightrec.
 */
#ifndef FLIGHTREC_INSTR_MAP_H
#define FLIGHTREC_INSTR_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Sled kinds, as in xray_instr_map and XRayEntryType. */
enum fr_sled_kind {
    FR_SLED_ENTER          = 0,
    FR_SLED_EXIT           = 1,
    FR_SLED_TAIL_EXIT      = 2,
    FR_SLED_LOG_ARGS_ENTER = 3,
    FR_SLED_CUSTOM_EVENT   = 4,
    FR_SLED_TYPED_EVENT    = 5,
};

/* Ids 1 .. FR_SLED_MAX_FUNCTION_ID belong to sleds; gcc's -finstrument-functions ids live
 * above (finstrument.c), so the two never collide in one trace. */
#define FR_SLED_MAX_FUNCTION_ID 0x0EFFFFFFu

struct fr_sled {
    uintptr_t address;     /* run-time address of the sled's first byte */
    uint32_t  function_id;
    uint8_t   kind;        /* enum fr_sled_kind */
    uint8_t   always_instrument;
};

struct fr_instr_function {
    uintptr_t   address;     /* run-time entry address */
    uint32_t    first_sled;  /* index into the object's sleds */
    uint32_t    sled_count;
    const char *name;        /* from the object's symbol table; NULL if unknown */
};

#define FR_MAX_SEGMENTS 8
struct fr_exec_segment {     /* an executable PT_LOAD, at run-time addresses */
    uintptr_t start, end;
    int       prot;          /* PROT_* from p_flags: what to restore after patching */
};

struct fr_instr_object {
    uint32_t    index;       /* object index in the trace; 0 = the main executable */
    const char *path;
    uintptr_t   bias;        /* load bias (dlpi_addr) */
    uintptr_t   lo, hi;      /* span of all its PT_LOAD segments */
    struct fr_exec_segment segments[FR_MAX_SEGMENTS];
    unsigned    segment_count;
    uint32_t    first_id, last_id;     /* 0, 0 when the object has no sleds */
    const struct fr_sled *sleds;       /* in section order */
    size_t      sled_count;
    const struct fr_instr_function *functions;   /* functions[i] has id first_id + i */
    size_t      function_count;
    int         unloaded;    /* dlclose'd: its memory may now be another object's */
    uint8_t     build_id[64];          /* its GNU build-id (FR_TE_BUILD_ID), */
    uint8_t     build_id_size;         /* 0 if it has none */
};

/* Adds the objects loaded since the last call (the first call adds all of them, the
 * executable first). Thread-safe; reads files, allocates: never call on a hot path. */
void fr_instr_map_refresh(void);
/* Marks the objects no longer loaded (after a dlclose). Thread-safe, not hot. */
void fr_instr_map_forget_unloaded(void);
/* fr_instr_map_refresh once, if nothing has been discovered yet. */
void fr_instr_map_ensure(void);

uint32_t fr_instr_object_count(void);
const struct fr_instr_object *fr_instr_object_at(uint32_t index);
/* The object holding function id ID and its function entry, or NULL. */
const struct fr_instr_object *fr_instr_function_lookup(uint32_t id,
                                                       const struct fr_instr_function **fn);
/* The loaded object whose PT_LOAD span contains ADDR (sleds or not), or NULL. */
const struct fr_instr_object *fr_instr_object_containing(uintptr_t addr);
/* Highest sled function id assigned so far (0 if none). */
uint32_t fr_instr_max_function_id(void);
/* Total sleds over all objects. */
size_t fr_instr_sled_total(void);

#endif
