/*
 * sled_patch.h - turn sleds on and off while the program runs.
 *
 * A patched function sled calls one of our trampolines (trampolines_x86_64.S), which calls
 * the handler currently installed (fr_sled_handlers): the recorder by default, or a user's
 * handler through the XRay compatibility layer. Handlers change without re-patching.
 * Patching is safe while other threads run the code: the sled body is written first, its
 * first two bytes last in one atomic store; pages are made writable (never
 * non-executable) once per operation and executable segment, then restored.
 * Internal to libflightrec.
 */
#ifndef FLIGHTREC_SLED_PATCH_H
#define FLIGHTREC_SLED_PATCH_H

#include <stddef.h>
#include <stdint.h>
#include "functrace/instr_map.h"
#include "arch/port.h"
#include "core/visibility.h"

/* Results, numerically equal to compiler-rt's XRayPatchingStatus. */
typedef enum fr_patch_status {
    FR_PATCH_NOT_INITIALIZED = 0,  /* no sleds in any loaded object */
    FR_PATCH_SUCCESS         = 1,
    FR_PATCH_ONGOING         = 2,  /* another thread is patching */
    FR_PATCH_FAILED          = 3,  /* bad id or pattern, or mprotect refused */
} fr_patch_status;

/* What the trampolines call. Any of them may be NULL (the sled then costs a call and a
 * test). Written with atomic stores; the trampolines read each once per event. */
/* The trampolines read these fields at the offsets FR_ARCH_HANDLER_OFF_* of the port
 * (arch/port.h); sled_patch.c asserts that the two agree. */
struct fr_sled_handlers {
    void (*function)(int32_t id, int kind);                 /* XRayEntryType kinds */
    void (*function_arg1)(int32_t id, int kind, uint64_t arg1);
    void (*custom_event)(void *data, size_t size);
    void (*typed_event)(uint16_t type, const void *data, size_t size);
};
extern struct fr_sled_handlers fr_sled_handlers FR_HIDDEN;

/* Installs the recorder as the handler (functrace_runtime.c): FORCE replaces handlers
 * the program set, otherwise only empty ones are filled. */
void fr_functrace_install_recorder(int force);
/* After a dlopen (dl_hooks.c): patch the new objects as init patched the others. */
void fr_functrace_after_dlopen(void);

/* All sleds of all loaded objects (objects loaded since the last call are found first). */
fr_patch_status fr_sled_patch_all(int enable);
/* The sleds of one function id. */
fr_patch_status fr_sled_patch_function(uint32_t id, int enable);
/* The functions the record-time filter selects (func_filter.h: patch= and exclude=). */
fr_patch_status fr_sled_patch_filtered(void);
/* Holds patching off (waits for an operation in progress; others then get ONGOING) and
 * lets it go again: dlclose runs in between, so no sled is written while objects vanish. */
void fr_sled_patch_hold(void);
void fr_sled_patch_release(void);
/* How many functions the last fr_sled_patch_filtered chose. */
uint32_t fr_sled_filter_hits(void);

#endif
