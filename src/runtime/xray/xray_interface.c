/*
 * xray_interface.c - compiler-rt's xray_interface.h on top of the sled runtime: handlers,
 * patching, function ids, event types. (The logging modes: xray_log_interface.c.)
 *
 * Call rules (the trampolines, arch/x86_64/trampolines_x86_64.S, as compiler-rt's):
 * entry, exit and tail sleds call the function handler with ENTRY/EXIT/TAIL; a log-args
 * entry sled (xray_log_args(1), whose first argument is `this` for a C++ member function)
 * calls the arg1 handler with (id, LOG_ARGS_ENTRY, first argument) when one is set, else
 * the function handler with (id, LOG_ARGS_ENTRY); its exit goes to the function handler.
 * Setting a handler always answers 1 and takes effect, also before any object with sleds
 * is loaded (compiler-rt answers 0 then: it knows the executable's sleds only, we also
 * those of libraries dlopen'ed later).
 */
#include "xray/xray_internal.h"
#include "functrace/instr_map.h"
#include "functrace/sled_patch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SET(field, value) __atomic_store_n(&fr_sled_handlers.field, (value), __ATOMIC_RELEASE)

int xr_instrumented(void)
{
    fr_instr_map_ensure();
    return fr_instr_sled_total() > 0;
}

/* XRayEntryType is an int-sized enum: the handler types agree with fr_sled_handlers'. */
int __xray_set_handler(void (*entry)(int32_t, enum XRayEntryType))
{
    SET(function, (void (*)(int32_t, int))entry);
    return 1;
}

int __xray_remove_handler(void)
{
    SET(function, NULL);
    return 1;
}

int __xray_set_handler_arg1(void (*entry)(int32_t, enum XRayEntryType, uint64_t))
{
    SET(function_arg1, (void (*)(int32_t, int, uint64_t))entry);
    return 1;
}

int __xray_remove_handler_arg1(void)
{
    SET(function_arg1, NULL);
    return 1;
}

int __xray_set_customevent_handler(void (*entry)(void *, size_t))
{
    SET(custom_event, entry);
    return 1;
}

int __xray_remove_customevent_handler(void)
{
    SET(custom_event, NULL);
    return 1;
}

int __xray_set_typedevent_handler(void (*entry)(uint16_t, const void *, size_t))
{
    SET(typed_event, entry);
    return 1;
}

int __xray_remove_typedevent_handler(void)
{
    SET(typed_event, NULL);
    return 1;
}

/* Event type ids as compiler-rt gives them: from 0 on, one per distinct string
 * address (the same literal gets the same id; an equal string elsewhere another). */
XR_LINK_STARTUP;

static pthread_mutex_t event_types_lock = PTHREAD_MUTEX_INITIALIZER;
static const char **event_types;
static uint32_t event_type_count;

uint16_t __xray_register_event_type(const char *event_type)
{
    uint32_t id = UINT32_MAX;
    pthread_mutex_lock(&event_types_lock);
    for (uint32_t i = 0; i < event_type_count && id == UINT32_MAX; i++)
        if (event_types[i] == event_type)
            id = i;
    if (id == UINT32_MAX && event_type_count < 0xF000) {   /* 0xF000.. are flightrec's */
        const char **grown = realloc(event_types, (event_type_count + 1u) * sizeof *grown);
        if (grown) {
            event_types = grown;
            event_types[event_type_count] = event_type;
            id = event_type_count++;
        }
    }
    pthread_mutex_unlock(&event_types_lock);
    return id == UINT32_MAX ? 0xFFFF : (uint16_t)id;   /* out of ids: never a valid one */
}

enum XRayPatchingStatus __xray_patch(void)
{
    return (enum XRayPatchingStatus)fr_sled_patch_all(1);
}

enum XRayPatchingStatus __xray_unpatch(void)
{
    return (enum XRayPatchingStatus)fr_sled_patch_all(0);
}

enum XRayPatchingStatus __xray_patch_function(int32_t FuncId)
{
    if (FuncId <= 0)
        return FAILED;
    return (enum XRayPatchingStatus)fr_sled_patch_function((uint32_t)FuncId, 1);
}

enum XRayPatchingStatus __xray_unpatch_function(int32_t FuncId)
{
    if (FuncId <= 0)
        return FAILED;
    return (enum XRayPatchingStatus)fr_sled_patch_function((uint32_t)FuncId, 0);
}

uintptr_t __xray_function_address(int32_t FuncId)
{
    fr_instr_map_ensure();
    const struct fr_instr_function *f;
    if (FuncId <= 0 || !fr_instr_function_lookup((uint32_t)FuncId, &f))
        return 0;
    return f->address;
}

size_t __xray_max_function_id(void)
{
    fr_instr_map_ensure();
    return fr_instr_max_function_id();
}

void __xray_init(void)
{
    fr_instr_map_ensure();
}
