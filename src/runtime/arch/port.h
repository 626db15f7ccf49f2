/*
 * port.h - what an architecture port provides. Everything else in the runtime is
 * generic C; a port for a new CPU is a folder arch/<cpu>/ holding:
 *
 *   port_defs.h           inline, included through this header (the build puts
 *                         arch/<cpu>/ on the include path):
 *                           uint64_t fr_arch_rdtsc(void)         the cycle counter
 *                           int      fr_arch_tsc_invariant(void) whether it is a clock
 *                           uint64_t fr_arch_counter_hz(void)    its published frequency,
 *                                                                0: calibrate it
 *                           uint32_t fr_arch_load_tp_u32(long)   load at thread pointer
 *                                                                + offset (rseq cpu id)
 *                           uintptr_t fr_arch_thread_pointer(void)  the thread pointer
 *                           FR_ARCH_CALLER_SP()          the caller's stack pointer at the
 *                                                        call (the CFA), as a uint64_t
 *                         and the constants, usable from assembly:
 *                           FR_ARCH_SLED_SIZE            bytes a sled write touches
 *                           FR_ARCH_RETURN_SLOT_BELOW_CFA  a frame's return-address slot
 *                                                        is at CFA minus this
 *                           FR_ARCH_HANDLER_OFF_*        struct fr_sled_handlers offsets
 *                                                        (arch/handler_offsets.h: the
 *                                                        same for every 64-bit port)
 *                           FR_ARCH_CALL_REACH           bytes a sled's call reaches, either
 *                                                        way
 *                           FR_ARCH_ISLAND_STEP, _STEPS  where islands are tried: at 1 ..
 *                                                        STEPS-1 steps from the object
 *                           FR_ARCH_ISLAND_SLOT          bytes of an island's slot
 *                                                        (functrace/sled_islands.c)
 *   sled_<cpu>.c          the bytes of the compiler's sleds: fr_arch_sled_write,
 *                         fr_arch_trampoline and fr_arch_island_slot below
 *   trampolines_<cpu>.S   what patched sleds call: fr_tramp_entry, fr_tramp_exit,
 *                         fr_tramp_tail, fr_tramp_arg1, and the event entry points
 *                         __xray_CustomEvent / __xray_TypedEvent; each calls the handler
 *                         read from fr_sled_handlers at FR_ARCH_HANDLER_OFF_*; entry and
 *                         exit trampolines keep the shadow stack (functrace/shadow_stack.h);
 *                         when the handler is the recorder they may write the record
 *                         themselves, as core/fast_record.h says (optional: calling C
 *                         every time is correct, only slower)
 *   jmpbuf_<cpu>.c        fr_arch_jmpbuf_sp below
 *   libcall_<cpu>.S       libcalls (functrace/libcalls.h): fr_libcall_stubs (FR_LIBCALL_SLOTS
 *                         stubs of FR_LIBCALL_STUB_SIZE bytes, stub i passing i), the
 *                         common entry calling fr_libcall_enter with the argument
 *                         registers saved, and fr_libcall_exit, with the return
 *                         registers saved, when the function returns (x86-64: through
 *                         fr_libcall_return, its replaced return address; aarch64: to a
 *                         frame of the stub's, fr_libcall_return only a mark); port_defs.h
 *                         gives FR_ARCH_JUMP_SLOT_RELOC, the PLT's GOT relocation type
 *
 * functrace/sled_patch.c asserts that the handler offsets match the C struct.
 */
#ifndef FLIGHTREC_ARCH_PORT_H
#define FLIGHTREC_ARCH_PORT_H

#include <stdint.h>
#include "port_defs.h"

struct fr_instr_object;
struct fr_sled;

/* The trampolines a sled can call. */
enum fr_trampoline { FR_TRAMP_ENTRY, FR_TRAMP_EXIT, FR_TRAMP_TAIL, FR_TRAMP_ARG1, FR_TRAMP_COUNT };
struct fr_sled_targets {
    uintptr_t address[FR_TRAMP_COUNT];   /* what a patched sled of this object calls */
};

/* The address of trampoline T, what a sled calls when it is within FR_ARCH_CALL_REACH. */
uintptr_t fr_arch_trampoline(enum fr_trampoline t);
/* Writes the FR_ARCH_ISLAND_SLOT bytes at SLOT (a page near a far object: the island,
 * functrace/sled_islands.c) that take a sled's call on to trampoline T from anywhere,
 * every register the trampoline reads unchanged. */
void fr_arch_island_slot(void *slot, enum fr_trampoline t);
/* Rewrites one sled (its pages must be writable). 0 on success, -1 for a kind we do not
 * know (left untouched). */
int fr_arch_sled_write(const struct fr_sled *s, int enable, const struct fr_sled_targets *t);
/* The stack pointer longjmp(ENV) will restore, or 0 when it cannot be read reliably.
 * CURRENT_SP: the caller's stack pointer (the target lies above it). */
uint64_t fr_arch_jmpbuf_sp(const void *env, uint64_t current_sp);

#endif
