/*
 * events_compact_lib.c - a library with structured events of its own provider, loaded and
 * unloaded by events_compact (dlopen mode): registers, emits 3 events, unregisters (so
 * that nothing of the runtime refers to its sites or provider after dlclose).
 */
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(lib_provider, "CompactLib");

__attribute__((visibility("default"))) int events_compact_lib_emit(void)
{
    if (FR_PROVIDER_REGISTER(lib_provider))
        return 1;
    for (unsigned i = 0; i < 3; i++)
        FR_EVENT(lib_provider, "FromLib", FR_U32("i", i), FR_STR("where", "in a dlclose'd library"));
    fr_provider_unregister(&lib_provider);
    return 0;
}
