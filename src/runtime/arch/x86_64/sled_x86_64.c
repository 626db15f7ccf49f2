/*
 * sled_x86_64.c - the bytes of x86-64 XRay sleds (design notes section 3).
 *
 *   entry / log-args entry / tail:  EB 09 + 9-byte nop  ->  41 BA <id32>  E8 <rel32>
 *                                   (mov $id, %r10d; call trampoline)
 *   exit:                           C3 + 10-byte nop    ->  41 BA <id32>  E9 <rel32>
 *                                   (mov $id, %r10d; jmp trampoline, whose ret returns)
 *   custom event:                   EB 0F  <->  66 90 (2-byte nop: fall into clang's call
 *   typed event:                    EB 14  <->  66 90  of __xray_CustomEvent/TypedEvent)
 *
 * Bytes 2..10 are written first: while the first two bytes still jump over them (or are
 * the `ret`), no thread executes them. Then bytes 0..1 in one aligned 2-byte store (clang
 * aligns sleds to 2), so another thread sees the old or the new instruction, never half
 * of one. Unpatching writes only bytes 0..1; the body stays, so a thread that already
 * decoded the patched `mov` still finds the `call` intact. Bytes 2..10 of a sled are the
 * same every time it is patched (same id, same target), so re-patching never changes an
 * instruction under a running thread.
 * Before any write the sled's bytes are checked against what its kind has there,
 * unpatched or patched by us (sled_bytes_expected); otherwise nothing is written.
 */
#define _GNU_SOURCE
#include "functrace/sled_patch.h"

#include <cpuid.h>
#include <string.h>

/* trampolines_x86_64.S */
extern char fr_tramp_entry[], fr_tramp_exit[], fr_tramp_tail[], fr_tramp_arg1[];

uintptr_t fr_arch_trampoline(enum fr_trampoline t)
{
    switch (t) {
    case FR_TRAMP_ENTRY: return (uintptr_t)fr_tramp_entry;
    case FR_TRAMP_EXIT:  return (uintptr_t)fr_tramp_exit;
    case FR_TRAMP_TAIL:  return (uintptr_t)fr_tramp_tail;
    case FR_TRAMP_ARG1:  return (uintptr_t)fr_tramp_arg1;
    default:             return 0;
    }
}

/* An island's slot (functrace/sled_islands.c): FF 25 00000000 (jmp *0(%rip)), the
 * trampoline's 8-byte address, 2 x int3. r10d (the id) and the stack pass unchanged. */
void fr_arch_island_slot(void *slot, enum fr_trampoline t)
{
    static const unsigned char jmp_rip[6] = {0xFF, 0x25, 0, 0, 0, 0};
    unsigned char *p = slot;
    uintptr_t dest = fr_arch_trampoline(t);
    _Static_assert(FR_ARCH_ISLAND_SLOT == 16, "slot layout");
    memcpy(p, jmp_rip, sizeof jmp_rip);
    memcpy(p + 6, &dest, 8);
    p[14] = p[15] = 0xCC;
}

/* Code is written through volatile byte stores in functions the sanitizers leave alone:
 * their shadow memory does not cover text, and memcpy would be intercepted. */
#define CODE_WRITER __attribute__((no_sanitize("address", "thread", "undefined"), noinline))

CODE_WRITER static void store_first_two(uintptr_t sled, unsigned char b0, unsigned char b1)
{
    uint16_t v = (uint16_t)(b0 | (unsigned)b1 << 8);
    /* An aligned 2-byte mov is atomic, and x86 keeps it after the body's stores. Inline
     * asm rather than __atomic_store_n, which TSan instruments even here. */
    __asm__ volatile("movw %1, (%0)" : : "r"(sled), "r"(v) : "memory");
}

CODE_WRITER static unsigned char code_byte(uintptr_t at)
{
    return *(volatile const unsigned char *)at;
}

/* Bytes 2..10 of a patched sled: id, call/jmp opcode, rel32 to TARGET. */
static void patched_body(const struct fr_sled *s, unsigned char opcode, uintptr_t target,
                         unsigned char body[9])
{
    int32_t rel = (int32_t)(int64_t)(target - (s->address + 11));
    for (int i = 0; i < 4; i++) {
        body[i] = (unsigned char)(s->function_id >> (8 * i));
        body[5 + i] = (unsigned char)((uint32_t)rel >> (8 * i));
    }
    body[4] = opcode;
}

/* What may sit at a sled before we write it: the compiler's bytes or ours. Anything
 * else means the map no longer describes this memory (an unloaded object whose address
 * another one took): nothing is written (issue 15). */
CODE_WRITER static int is_nop_at(uintptr_t at)
{
    /* clang's multi-byte nop (66 0F 1F ...), with a CS prefix after an exit's ret. */
    unsigned char a = code_byte(at), b = code_byte(at + 1), c = code_byte(at + 2);
    if (a == 0x2E)
        a = b, b = c, c = code_byte(at + 3);
    return (a == 0x66 && b == 0x0F && c == 0x1F) || (a == 0x0F && b == 0x1F);
}

/* 1 if the sled holds what its kind has unpatched or patched by us (OPCODE: E8 or E9). */
CODE_WRITER static int sled_bytes_expected(const struct fr_sled *s, unsigned char first,
                                           unsigned char opcode)
{
    uintptr_t a = s->address;
    unsigned char b0 = code_byte(a), b1 = code_byte(a + 1);
    int ours = code_byte(a + 6) == opcode;
    for (int i = 0; i < 4 && ours; i++)
        ours = code_byte(a + 2 + i) == (unsigned char)(s->function_id >> (8 * i));
    if (b0 == 0x41 && b1 == 0xBA)           /* patched: mov $id, %r10d; call/jmp */
        return ours;
    if (first == 0xEB)                      /* entry kinds: jmp +9 over a nop or our body */
        return b0 == 0xEB && b1 == 0x09 && (ours || is_nop_at(a + 2));
    /* exit: ret, then the nop; or ret, BA (left by unpatching), our body */
    return b0 == 0xC3 && (is_nop_at(a + 1) || (b1 == 0xBA && ours));
}

CODE_WRITER static void write_call(const struct fr_sled *s, unsigned char opcode, uintptr_t target)
{
    unsigned char body[9];
    patched_body(s, opcode, target, body);
    volatile unsigned char *p = (volatile unsigned char *)s->address;
    for (int i = 0; i < 9; i++)
        if (p[2 + i] != body[i])   /* unchanged bytes: no write, no cache traffic */
            p[2 + i] = body[i];
    store_first_two(s->address, 0x41, 0xBA);   /* mov $id, %r10d */
}

int fr_arch_sled_write(const struct fr_sled *s, int enable, const struct fr_sled_targets *t)
{
    switch (s->kind) {
    case FR_SLED_ENTER:
    case FR_SLED_LOG_ARGS_ENTER:
    case FR_SLED_TAIL_EXIT:
        if (!sled_bytes_expected(s, 0xEB, 0xE8))
            return -1;
        break;
    case FR_SLED_EXIT:
        if (!sled_bytes_expected(s, 0xC3, 0xE9))
            return -1;
        break;
    case FR_SLED_CUSTOM_EVENT:
    case FR_SLED_TYPED_EVENT: {
        unsigned char b0 = code_byte(s->address), b1 = code_byte(s->address + 1);
        if (!((b0 == 0x66 && b1 == 0x90) ||
              (b0 == 0xEB && b1 == (s->kind == FR_SLED_CUSTOM_EVENT ? 0x0F : 0x14))))
            return -1;
        break;
    }
    default:
        return -1;
    }
    switch (s->kind) {
    case FR_SLED_ENTER:
    case FR_SLED_LOG_ARGS_ENTER:
    case FR_SLED_TAIL_EXIT: {
        enum fr_trampoline k = s->kind == FR_SLED_ENTER ? FR_TRAMP_ENTRY
                             : s->kind == FR_SLED_TAIL_EXIT ? FR_TRAMP_TAIL : FR_TRAMP_ARG1;
        if (enable)
            write_call(s, 0xE8, t->address[k]);           /* call */
        else
            store_first_two(s->address, 0xEB, 0x09);      /* jmp +9 */
        return 0;
    }
    case FR_SLED_EXIT:
        if (enable)
            write_call(s, 0xE9, t->address[FR_TRAMP_EXIT]);  /* jmp */
        else   /* `ret` again; the second byte is never executed */
            store_first_two(s->address, 0xC3, code_byte(s->address + 1));
        return 0;
    case FR_SLED_CUSTOM_EVENT:   /* 66 90: 2-byte nop, falls into clang's call */
        store_first_two(s->address, enable ? 0x66 : 0xEB, enable ? 0x90 : 0x0F);
        return 0;
    case FR_SLED_TYPED_EVENT:
        store_first_two(s->address, enable ? 0x66 : 0xEB, enable ? 0x90 : 0x14);
        return 0;
    default:
        return -1;
    }
}

/* ------------------------------------------------------------------ event state save */
/* What __xray_CustomEvent/__xray_TypedEvent save with xsave: the components the OS
 * enabled in XCR0, in an area of the size CPUID leaf 0xD gives for them. Zero size
 * (no xsave, or before this runs) makes the trampolines fall back to fxsave. */
uint64_t fr_arch_xsave_mask;
uint32_t fr_arch_xsave_size;

__attribute__((constructor)) static void xsave_probe(void)
{
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE))
        return;
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if (__get_cpuid_max(0, NULL) < 0xD)
        return;
    __cpuid_count(0xD, 0, eax, ebx, ecx, edx);
    /* EBX: bytes for the components XCR0 enables now, header included. */
    fr_arch_xsave_mask = ((uint64_t)hi << 32) | lo;
    fr_arch_xsave_size = ebx;
}
