/*
 * libcalls.h - library calls recorded through the PLT (libcalls=1, `record --libcalls`,
 * uftrace's default PLT hooking).
 *
 * An instrumented object (the executable; a library with sleds or gcc hooks) calls other
 * objects' functions through its PLT, which jumps through a GOT entry the loader fills.
 * At init (and after each dlopen) those GOT entries (JUMP_SLOT relocations) are pointed
 * at stubs of ours, one per entry (arch/<cpu>/libcall_<cpu>.S). A stub calls
 * fr_libcall_enter, which records the entry under the library function's name, keeps the
 * caller's return address on a per-thread stack of its own and replaces it with
 * fr_libcall_return; then the stub jumps to the function with every argument register
 * as it was. When the function returns, fr_libcall_return calls fr_libcall_exit, which
 * records the exit and gives back the real return address. (aarch64, whose return
 * address is in x30: the "return slot" is a word of the stub's own frame, 8 below the
 * caller's stack pointer, and the stub calls the function and then fr_libcall_exit
 * itself when that word holds the mark fr_libcall_return; libcall_aarch64.S.)
 *
 * Targets: an entry already bound is taken as the loader left it; an entry still lazy
 * (it holds the PLT's resolver path) is resolved as the loader would: dlvsym with the
 * version the object asks for, in the global scope, then in the object's own scope.
 * -z now (RELRO GOT) is written through mprotect and made read-only again.
 * Never hooked: calls into libflightrec, and functions that return twice, switch stacks
 * or unwind (setjmp family, vfork, *context, clone, __cxa_throw/rethrow, _Unwind_*),
 * or never return (exit, _exit, abort, pthread_exit, __stack_chk_fail, ...).
 *
 * Frames that do not return through fr_libcall_return:
 *   - longjmp (interposed, unwind_hooks.c) and __cxa_begin_catch close every frame below
 *     their target, in stack order with the sled/gcc frames (fr_frames_unwound_below);
 *   - an exception: _Unwind_RaiseException and _Unwind_ForcedUnwind (interposed) first
 *     put every replaced return address back, so that the unwinder sees the program's
 *     own frames; the catch closes the dead frames and redirects the live ones again;
 *   - as a fallback, a new call at the very return slot of an open frame closes it and
 *     those above it.
 * Limits: FR_LIBCALL_SLOTS GOT entries hooked in all; FR_LIBCALL_DEPTH nested library
 * calls per thread (deeper ones run unrecorded); backtrace() inside a library
 * call (a callback) stops at fr_libcall_return.
 * Internal to libflightrec.
 */
#ifndef FLIGHTREC_LIBCALLS_H
#define FLIGHTREC_LIBCALLS_H

#define FR_LIBCALL_SLOTS 4096          /* stubs in libcall_<cpu>.S */
#define FR_LIBCALL_DEPTH 128
#define FR_LIBCALL_FIRST_ID 0x0F800000u /* ids: this + the name's index */

#ifdef __ASSEMBLER__
/* The stubs of arch/<cpu>/libcall_<cpu>.S: FR_LIBCALL_SLOTS of FR_LIBCALL_STUB_SIZE (16)
 * bytes from fr_libcall_stubs, stub i the port's macro LIBCALL_STUB with i. */
.macro FR_LIBCALL_STUB_TABLE
    .text
    .p2align 4
    .globl fr_libcall_stubs
    .hidden fr_libcall_stubs
fr_libcall_stubs:
    .set stub_index, 0
    .rept FR_LIBCALL_SLOTS
    .p2align 4
    LIBCALL_STUB stub_index
    .set stub_index, stub_index + 1
    .endr
.endm
#else
#include <stdint.h>
#include "core/recorder.h"
#include "core/visibility.h"

/* What fr_libcall_enter gives the stub: where to jump. */
FR_HIDDEN uintptr_t fr_libcall_enter(uint32_t slot, uintptr_t *ret_slot);
/* The return path: RET_SLOT is where the returning call's return address was. Returns
 * the real return address. */
FR_HIDDEN uintptr_t fr_libcall_exit(uintptr_t *ret_slot);
/* arch/<cpu>/libcall_<cpu>.S */
extern char fr_libcall_stubs[], fr_libcall_return[];
#define FR_LIBCALL_STUB_SIZE 16

/* Hooks the GOT entries of the instrumented objects loaded since the last call (init,
 * after dlopen). Not hot; not async-signal-safe. Prints once what it could not hook. */
FR_HIDDEN void fr_libcalls_install(void);
/* Nonzero once fr_libcalls_install ran in this process. */
FR_HIDDEN int fr_libcalls_on(void);
/* FR_TE_FUNCTION for each library function hooked. */
FR_HIDDEN void fr_libcalls_emit(fr_meta_writer *w);

/* Unwinding (unwind_hooks.c). Closes, in stack order with the shadow stack's frames,
 * every open frame whose return slot lies below LIVE_SP (XRAY_ONLY as in
 * fr_shadow_unwound_below), and the library call whose slot is LIVE_SP itself when
 * LIBCALL_AT_LIVE: the unwinder is leaving the library function's frame (its return
 * address was put back, so it cannot return through us). */
FR_HIDDEN void fr_frames_unwound_below(uint64_t live_sp, int xray_only, int libcall_at_live);
/* The open library calls of this thread, outermost first: their return slots' addresses
 * in SLOT and their ids in ID, at most MAX of them; returns how many (fork child). */
FR_HIDDEN uint32_t fr_libcall_open_frames(uint64_t *slot, uint32_t *id, uint32_t max);
/* Before an exception's unwind: every replaced return address of this thread put back. */
FR_HIDDEN void fr_libcall_unhook_returns(void);
/* At a catch, after fr_frames_unwound_below: the live frames redirected again. */
FR_HIDDEN void fr_libcall_rehook_returns(void);
#endif

#endif
