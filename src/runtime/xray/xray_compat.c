/*
 * xray_compat.c - compiler-rt's xray_interface.h on top of the sled runtime: handlers,
 * patching, function ids. (The logging modes are in xray_log_compat.c.)
 */
#include "flightrec/xray.h"
#include "functrace/instr_map.h"
#include "functrace/sled_patch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SET(field, value) __atomic_store_n(&fr_sled_handlers.field, (value), __ATOMIC_RELEASE)

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

/* Event type ids by name, from 1 on, the same id for the same name (as compiler-rt). */
static pthread_mutex_t event_types_lock = PTHREAD_MUTEX_INITIALIZER;
static char **event_types;
static uint16_t event_type_count;

uint16_t __xray_register_event_type(const char *event_type)
{
    if (!event_type)
        return 0;
    uint16_t id = 0;
    pthread_mutex_lock(&event_types_lock);
    for (uint16_t i = 0; i < event_type_count; i++)
        if (!strcmp(event_types[i], event_type))
            id = (uint16_t)(i + 1);
    if (!id && event_type_count < 0xEFFF) {   /* 0xF000.. are flightrec's own types */
        char **grown = realloc(event_types, (event_type_count + 1u) * sizeof *grown);
        char *copy = strdup(event_type);
        if (grown && copy) {
            event_types = grown;
            event_types[event_type_count++] = copy;
            id = event_type_count;
        } else {
            free(copy);
            if (grown)
                event_types = grown;
        }
    }
    pthread_mutex_unlock(&event_types_lock);
    return id;
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
