/*
 * sled_aarch64.c - the instruction words of aarch64 XRay sleds (design notes section 3).
 *
 * clang emits every function sled (entry, exit, tail exit, log-args entry) as 8 words:
 * `b #32` over seven NOPs; the exit sleds sit right before the `ret`, the tail sleds right
 * before the tail branch. We patch them to (words 0..7):
 *
 *   nop                           the switch: `b #32` (off) <-> `nop` (on)
 *   stp  x17, x30, [sp, #-16]!    keep the link register and the id register
 *   movz w17, #id_lo
 *   movk w17, #id_hi, lsl #16     the function id in w17 (r10d on x86-64)
 *   bl   target                   a trampoline, or this object's island (below)
 *   ldp  x17, x30, [sp], #16
 *   nop, nop
 *
 * Words 1..7 are written first, while word 0 still branches over them, and made visible
 * to instruction fetch (__builtin___clear_cache: clean to the point of unification,
 * invalidate the instruction cache, barriers); then word 0 in one aligned 32-bit store,
 * and its cache line maintained the same way. Word 0 only ever changes between B and NOP,
 * two of the instructions the architecture allows to be modified while other CPUs
 * execute them (another thread sees the old or the new one, never a mix). Unpatching
 * writes only word 0; the body stays, and it is the same every time the sled is patched
 * (same id, same target), so re-patching never changes an instruction a thread may be
 * running. Before any write the sled is checked against what it may hold, unpatched or
 * patched by us (sled_words_expected); otherwise nothing is written.
 *
 * A `bl` reaches +-128 MiB. When a trampoline is farther from an object (libflightrec.so
 * mapped far from the program), its sleds call an island mapped near the object instead:
 * per trampoline `str x16, [sp, #-16]!; ldr x16, =far_entry; br x16`, and the far entry
 * (trampolines_aarch64.S) reloads x16 before the trampoline proper, so no register
 * changes on that path either (x16 may hold a tail call's target).
 *
 * Custom and typed event sleds: clang 14 emits none on aarch64 (__xray_customevent
 * compiles to nothing there), so those kinds are refused (-1, left untouched).
 */
#define _GNU_SOURCE
#include "functrace/sled_patch.h"

#include <string.h>

/* trampolines_aarch64.S */
extern char fr_tramp_entry[], fr_tramp_exit[], fr_tramp_tail[], fr_tramp_arg1[];
extern char fr_tramp_entry_far[], fr_tramp_exit_far[], fr_tramp_tail_far[], fr_tramp_arg1_far[];

#define INSN_B_32      0x14000008u   /* b #32 */
#define INSN_NOP       0xD503201Fu
#define INSN_STP_X17   0xA9BF7BF1u   /* stp x17, x30, [sp, #-16]! */
#define INSN_LDP_X17   0xA8C17BF1u   /* ldp x17, x30, [sp], #16 */
#define INSN_MOVZ_W17  0x52800011u   /* movz w17, #imm16 (imm16 at bit 5) */
#define INSN_MOVK_W17  0x72A00011u   /* movk w17, #imm16, lsl #16 */
#define INSN_BL        0x94000000u   /* bl imm26 (words) */
#define INSN_STR_X16   0xF81F0FF0u   /* str x16, [sp, #-16]! */
#define INSN_LDR_X16   0x58000070u   /* ldr x16, .+12 */
#define INSN_BR_X16    0xD61F0200u   /* br x16 */
#define INSN_BRK       0xD4200000u   /* brk #0 */

static uintptr_t trampoline(enum fr_trampoline t, int far)
{
    switch (t) {
    case FR_TRAMP_ENTRY: return (uintptr_t)(far ? fr_tramp_entry_far : fr_tramp_entry);
    case FR_TRAMP_EXIT:  return (uintptr_t)(far ? fr_tramp_exit_far : fr_tramp_exit);
    case FR_TRAMP_TAIL:  return (uintptr_t)(far ? fr_tramp_tail_far : fr_tramp_tail);
    case FR_TRAMP_ARG1:  return (uintptr_t)(far ? fr_tramp_arg1_far : fr_tramp_arg1);
    default:             return 0;
    }
}

uintptr_t fr_arch_trampoline(enum fr_trampoline t)
{
    return trampoline(t, 0);
}

/* An island's slot (functrace/sled_islands.c): str x16, [sp, #-16]!; ldr x16, .+12;
 * br x16; brk #0; the far entry's 8-byte address; 8 bytes unused. The far entry reloads
 * x16 before the trampoline proper. */
void fr_arch_island_slot(void *slot, enum fr_trampoline t)
{
    uint32_t *w = slot;
    uint64_t dest = trampoline(t, 1);
    _Static_assert(FR_ARCH_ISLAND_SLOT == 32, "slot layout");
    w[0] = INSN_STR_X16;
    w[1] = INSN_LDR_X16;   /* the address at slot + 16 */
    w[2] = INSN_BR_X16;
    w[3] = INSN_BRK;
    memcpy(&w[4], &dest, sizeof dest);
}

/* Code is written through volatile word stores in functions the sanitizers leave alone:
 * their shadow memory does not cover text, and memcpy would be intercepted. */
#define CODE_WRITER __attribute__((no_sanitize("address", "thread", "undefined"), noinline))

CODE_WRITER static uint32_t code_word(uintptr_t sled, int i)
{
    return ((volatile const uint32_t *)sled)[i];
}

/* The words 1..7 of S patched to call TARGET. */
static void patched_body(const struct fr_sled *s, uintptr_t target, uint32_t body[8])
{
    int64_t rel = (int64_t)(target - (s->address + 16)) / 4;   /* from word 4 */
    body[0] = INSN_NOP;
    body[1] = INSN_STP_X17;
    body[2] = INSN_MOVZ_W17 | (s->function_id & 0xFFFFu) << 5;
    body[3] = INSN_MOVK_W17 | (s->function_id >> 16) << 5;
    body[4] = INSN_BL | ((uint32_t)rel & 0x03FFFFFFu);
    body[5] = INSN_LDP_X17;
    body[6] = INSN_NOP;
    body[7] = INSN_NOP;
}

/* What may sit at a sled before we write it: the compiler's words or ours (BODY, for the
 * target this object's sleds call). Anything else means the map no longer describes this
 * memory (an unloaded object whose address another one took): nothing is written. */
CODE_WRITER static int sled_words_expected(const struct fr_sled *s, const uint32_t body[8])
{
    uint32_t w0 = code_word(s->address, 0);
    int nops = 1, ours = 1;
    for (int i = 1; i < 8; i++) {
        uint32_t w = code_word(s->address, i);
        nops &= w == INSN_NOP;
        ours &= w == body[i];
    }
    if (w0 == INSN_NOP)
        return ours;
    return w0 == INSN_B_32 && (nops || ours);
}

CODE_WRITER static void store_word(uintptr_t sled, int i, uint32_t w)
{
    volatile uint32_t *p = (volatile uint32_t *)sled + i;
    if (*p != w)   /* unchanged words: no write, no cache maintenance needed */
        *p = w;
}

CODE_WRITER static void write_call(const struct fr_sled *s, const uint32_t body[8])
{
    for (int i = 1; i < 8; i++)
        store_word(s->address, i, body[i]);
    __builtin___clear_cache((char *)s->address + 4, (char *)s->address + FR_ARCH_SLED_SIZE);
    store_word(s->address, 0, INSN_NOP);
    __builtin___clear_cache((char *)s->address, (char *)s->address + 4);
}

int fr_arch_sled_write(const struct fr_sled *s, int enable, const struct fr_sled_targets *t)
{
    enum fr_trampoline k;
    switch (s->kind) {
    case FR_SLED_ENTER:          k = FR_TRAMP_ENTRY; break;
    case FR_SLED_EXIT:           k = FR_TRAMP_EXIT; break;
    case FR_SLED_TAIL_EXIT:      k = FR_TRAMP_TAIL; break;
    case FR_SLED_LOG_ARGS_ENTER: k = FR_TRAMP_ARG1; break;
    default:                     return -1;   /* event sleds: see the top of this file */
    }
    uint32_t body[8];
    if (enable) {
        patched_body(s, t->address[k], body);
        if (!sled_words_expected(s, body))
            return -1;
        write_call(s, body);
        return 0;
    }
    /* Unpatching: the body is whatever the last patch wrote; only word 0 changes. */
    uint32_t w0 = code_word(s->address, 0);
    if (w0 != INSN_NOP && w0 != INSN_B_32)
        return -1;
    if (w0 == INSN_NOP) {
        if (code_word(s->address, 1) != INSN_STP_X17 || code_word(s->address, 5) != INSN_LDP_X17 ||
            (code_word(s->address, 4) & 0xFC000000u) != INSN_BL)
            return -1;
        store_word(s->address, 0, INSN_B_32);
        __builtin___clear_cache((char *)s->address, (char *)s->address + 4);
    }
    return 0;
}
