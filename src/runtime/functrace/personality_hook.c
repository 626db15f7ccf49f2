/*
 * personality_hook.c - the C++ personality routine's interposer, __gxx_personality_v0:
 * tells the shadow stack which frames an exception unwound (unwind_hooks.c does the work
 * and forwards to the C++ runtime's routine, found with dlsym(RTLD_NEXT)).
 *
 * A file of its own because the static archive's copy differs: it is built twice. In a
 * fully static C++ program (libstdc++.a or libc++abi.a) dlsym finds nothing, and the
 * real routine's object is linked only when a symbol of it is needed that we do not
 * define: ours, weak, was the one the link took and a throw had nothing to forward to
 * (every throw aborted, traced or not). The archive's copy (FR_STATIC_ARCHIVE) therefore
 * needs __cxa_call_unexpected, which the C++ runtime defines in the very object of its
 * personality routine (both libstdc++ and libc++abi): the link takes that object, its
 * strong definition wins over our weak one, and exceptions work as without flightrec. The
 * frames they unwind are then closed by the trampolines' fallback and gcc's
 * -finstrument-functions cleanups (shadow_stack.h), not here. The object is linked only
 * into programs that have C++ frames (nothing else references a personality routine), so
 * a C program never needs the C++ runtime. The shared library's copy has no such
 * reference: libflightrec.so needs nothing of the C++ runtime, and dlsym finds the real
 * routine there.
 */
#include "functrace/shadow_stack.h"

#include <stdint.h>

__attribute__((weak, visibility("default")))
int __gxx_personality_v0(int version, int actions, uint64_t exception_class, void *exception,
                         void *context)
{
    return fr_unwind_personality(version, actions, exception_class, exception, context);
}

#ifdef FR_STATIC_ARCHIVE
extern void __cxa_call_unexpected(void *exception);
__attribute__((used)) static void (*const link_cxx_personality)(void *) = __cxa_call_unexpected;
#endif
