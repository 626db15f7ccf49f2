/*
 * unwind_hooks.c - where frames die without running their exit sleds: the C++ personality
 * routine, __cxa_begin_catch and the longjmp family. Each is interposed (a definition in
 * libflightrec, found before libstdc++'s and libc's), tells the shadow stack which frames
 * were unwound (and the open spans on the stack, events/span_unwind.c, which of them
 * died), and forwards to the real function found with dlsym(RTLD_NEXT).
 *
 * Safe when the symbols are absent: nothing calls a personality routine or
 * __cxa_begin_catch in a program without libstdc++, and the forwarders are resolved only
 * when present (at start-up, or at the first call if the library came later by dlopen).
 * The definitions are weak so that a fully static C++ link (libstdc++.a) takes the real
 * ones without a duplicate-symbol error; the hooks are then simply absent, and the
 * trampolines' exact-slot fallback (shadow_stack.h) still closes dead frames, later.
 * The personality routine's definition is personality_hook.c's (see there why the
 * static archive's own copy makes sure libstdc++'s is linked).
 * In a static program the longjmp hooks may be the definitions the link took; they jump
 * through glibc's own implementation then (jump_function below).
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE   /* we define longjmp itself, not the fortified redirect */
#include "functrace/shadow_stack.h"
#include "functrace/libcalls.h"
#include "arch/port.h"
#include "events/span_unwind.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define HOOK __attribute__((weak, visibility("default")))

/* The personality routine's arguments, as the Itanium C++ ABI (unwind.h) declares them,
 * without depending on unwind.h. */
typedef int (*personality_fn)(int version, int actions, uint64_t exception_class,
                              void *exception, void *context);
#define UA_CLEANUP_PHASE 2
#define UA_HANDLER_FRAME 4
typedef uintptr_t (*get_cfa_fn)(void *context);
typedef void *(*begin_catch_fn)(void *exception);
typedef void (*longjmp_fn)(void *env, int val) __attribute__((noreturn));

typedef int (*raise_fn)(void *exception);
typedef int (*forced_unwind_fn)(void *exception, void *stop, void *stop_arg);

static personality_fn real_personality;
static raise_fn real_raise, real_resume_or_rethrow;
static forced_unwind_fn real_forced_unwind;
static get_cfa_fn get_cfa;
static begin_catch_fn real_begin_catch;
static longjmp_fn real_longjmp, real_siglongjmp, real__longjmp, real_longjmp_chk;

/* The next definition of NAME after ours, never ours (RTLD_NEXT from the executable of a
 * static link, or from libflightrec.so). */
static void *next_symbol(const char *name, void *self)
{
    void *p = dlsym(RTLD_NEXT, name);
    return p == self ? NULL : p;
}

#define RESOLVE(var, name, self)                                                    \
    do {                                                                            \
        if (!__atomic_load_n(&var, __ATOMIC_ACQUIRE)) {                             \
            void *p_ = next_symbol(name, (void *)(self));                           \
            if (p_)                                                                 \
                __atomic_store_n(&var, (__typeof__(var))p_, __ATOMIC_RELEASE);      \
        }                                                                           \
    } while (0)

HOOK int __gxx_personality_v0(int version, int actions, uint64_t exception_class,
                              void *exception, void *context);
HOOK void *__cxa_begin_catch(void *exception);
HOOK void longjmp(void *env, int val) __attribute__((noreturn));
HOOK void _longjmp(void *env, int val) __attribute__((noreturn));
HOOK void siglongjmp(void *env, int val) __attribute__((noreturn));
HOOK void __longjmp_chk(void *env, int val) __attribute__((noreturn));
HOOK int _Unwind_RaiseException(void *exception);
HOOK int _Unwind_Resume_or_Rethrow(void *exception);
HOOK int _Unwind_ForcedUnwind(void *exception, void *stop, void *stop_arg);

void fr_unwind_hooks_init(void)
{
    RESOLVE(real_personality, "__gxx_personality_v0", __gxx_personality_v0);
    RESOLVE(real_begin_catch, "__cxa_begin_catch", __cxa_begin_catch);
    RESOLVE(real_longjmp, "longjmp", longjmp);
    RESOLVE(real__longjmp, "_longjmp", _longjmp);
    RESOLVE(real_siglongjmp, "siglongjmp", siglongjmp);
    RESOLVE(real_longjmp_chk, "__longjmp_chk", __longjmp_chk);
    RESOLVE(real_raise, "_Unwind_RaiseException", _Unwind_RaiseException);
    RESOLVE(real_resume_or_rethrow, "_Unwind_Resume_or_Rethrow", _Unwind_Resume_or_Rethrow);
    RESOLVE(real_forced_unwind, "_Unwind_ForcedUnwind", _Unwind_ForcedUnwind);
    if (!get_cfa) {
        void *p = dlsym(RTLD_DEFAULT, "_Unwind_GetCFA");
        if (p)
            __atomic_store_n(&get_cfa, (get_cfa_fn)p, __ATOMIC_RELEASE);
    }
}

/* Before anything can throw or jump: a constructor of our own (start-up runs later). */
__attribute__((constructor)) static void unwind_hooks_ctor(void) { fr_unwind_hooks_init(); }

/* Phase 2 of an unwind (cleanup) asks the personality about each frame with unwind
 * tables, outermost last; every frame below it has been unwound. Its CFA is the caller's
 * stack pointer, so its own return-address slot is CFA - 8 and frames below that are
 * dead; so is a library call (libcalls.h) at that very slot, unless this frame catches.
 * Only XRay entries: gcc's -finstrument-functions cleanups record those exits.
 * The definition of __gxx_personality_v0 that calls this is personality_hook.c. */
int fr_unwind_personality(int version, int actions, uint64_t exception_class, void *exception,
                          void *context)
{
    if (!__atomic_load_n(&real_personality, __ATOMIC_ACQUIRE) ||
        !__atomic_load_n(&get_cfa, __ATOMIC_ACQUIRE))
        fr_unwind_hooks_init();   /* libstdc++ came by dlopen after our start-up */
    personality_fn real = __atomic_load_n(&real_personality, __ATOMIC_ACQUIRE);
    get_cfa_fn cfa = __atomic_load_n(&get_cfa, __ATOMIC_ACQUIRE);
    if ((actions & UA_CLEANUP_PHASE) && cfa) {
        uintptr_t c = cfa(context);
        if (c)
            fr_frames_unwound_below((uint64_t)c - FR_ARCH_RETURN_SLOT_BELOW_CFA, 1,
                                    !(actions & UA_HANDLER_FRAME));
    }
    if (!real) {
        /* unreachable: whoever unwinds C++ frames has loaded libstdc++, and a static
         * link takes libstdc++'s personality routine instead of ours (personality_hook.c) */
        static const char msg[] = "flightrec: C++ personality routine of the C++ runtime "
                                  "not found; cannot unwind\n";
        (void)!write(2, msg, sizeof msg - 1);
        abort();
    }
    return real(version, actions, exception_class, exception, context);
}

/* Called first by every catch block, in the catching frame: whatever lies below the
 * caller's stack pointer (this function's CFA) was unwound. */
void *__cxa_begin_catch(void *exception)
{
    uint64_t cfa = FR_ARCH_CALLER_SP();
    fr_frames_unwound_below(cfa, 0, 0);
    if (fr_spans_open())   /* dead frames may be overwritten already: no stop events */
        fr_spans_unwound_below((uintptr_t)cfa, false);
    fr_libcall_rehook_returns();   /* the library calls still open return through us again */
    begin_catch_fn real = __atomic_load_n(&real_begin_catch, __ATOMIC_ACQUIRE);
    if (!real) {
        fr_unwind_hooks_init();
        real = __atomic_load_n(&real_begin_catch, __ATOMIC_ACQUIRE);
        if (!real)
            abort();
    }
    return real(exception);
}

/* longjmp lands in the frame that called setjmp, with its stack pointer: frames below
 * it are dead. The target comes from the jmp_buf (fr_arch_jmpbuf_sp); when it cannot be
 * read the exits come later, from the trampolines' fallback. */
static void before_jump(void *env)
{
    uint64_t sp = fr_arch_jmpbuf_sp(env, (uint64_t)(uintptr_t)__builtin_frame_address(0));
    if (!sp)
        return;
    fr_frames_unwound_below(sp, 0, 0);
    if (fr_spans_open())   /* the frames are still there: scoped spans write their stop events */
        fr_spans_unwound_below((uintptr_t)sp, true);
}

/* In a statically linked program dlsym finds nothing, and the link may have taken our
 * definitions (weak, as glibc's own longjmp aliases are) for every name of the family.
 * glibc's implementation behind all of them is __libc_siglongjmp: a global symbol of
 * libc.a (its object is in every static glibc program) that libc.so does not export. The
 * reference is weak, so it is null everywhere else and adds no dependency on glibc's
 * private symbols; it jumps as siglongjmp does (the signal mask only if sigsetjmp saved
 * it, as for every name), without __longjmp_chk's stack check. */
extern void __libc_siglongjmp(void *env, int val) __attribute__((weak, noreturn));

static longjmp_fn jump_function(longjmp_fn *var)
{
    longjmp_fn real = __atomic_load_n(var, __ATOMIC_ACQUIRE);
    if (real)
        return real;
    if (__libc_siglongjmp)
        return __libc_siglongjmp;
    static const char msg[] = "flightrec: longjmp: libc's longjmp not found (neither by "
                              "dlsym nor linked statically); cannot jump\n";
    (void)!write(2, msg, sizeof msg - 1);
    abort();
}

#define LONGJMP_HOOK(name, var)                                                     \
    void name(void *env, int val)                                                   \
    {                                                                               \
        before_jump(env);                                                           \
        jump_function(&var)(env, val);                                              \
    }

LONGJMP_HOOK(longjmp, real_longjmp)
LONGJMP_HOOK(_longjmp, real__longjmp)
LONGJMP_HOOK(siglongjmp, real_siglongjmp)
LONGJMP_HOOK(__longjmp_chk, real_longjmp_chk)

/* An exception starts unwinding: the unwinder finds each frame's caller by its return
 * address, so the ones libcalls replaced (libcalls.h) are put back first; the catch
 * closes the dead library calls and redirects the live ones again. */
#define UNWIND_HOOK(name, var, params, args)                                        \
    int name params                                                                 \
    {                                                                               \
        fr_libcall_unhook_returns();                                                \
        __typeof__(var) real = __atomic_load_n(&var, __ATOMIC_ACQUIRE);             \
        if (!real) {                                                                \
            fr_unwind_hooks_init();   /* libgcc_s came by dlopen */                 \
            real = __atomic_load_n(&var, __ATOMIC_ACQUIRE);                         \
            if (!real)                                                              \
                abort();                                                            \
        }                                                                           \
        return real args;                                                           \
    }

UNWIND_HOOK(_Unwind_RaiseException, real_raise, (void *exception), (exception))
UNWIND_HOOK(_Unwind_Resume_or_Rethrow, real_resume_or_rethrow, (void *exception), (exception))
UNWIND_HOOK(_Unwind_ForcedUnwind, real_forced_unwind,
            (void *exception, void *stop, void *stop_arg), (exception, stop, stop_arg))
