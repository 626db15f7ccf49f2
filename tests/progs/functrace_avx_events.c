/*
 * functrace_avx_events.c - ymm registers survive __xray_CustomEvent/__xray_TypedEvent
 * (issue 10). The event handlers end in vzeroupper, as glibc's AVX2 memcpy does; with
 * only fxsave in the trampolines the upper halves of every ymm register come back zero.
 * The registers are loaded, the trampoline called and the registers stored in one asm
 * block, so no compiler choice decides which values are live across the call.
 * Exit 0: all 16 registers intact after both events; 1: a register changed; 77: no AVX.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
int __xray_set_customevent_handler(void (*entry)(void *, size_t));
int __xray_set_typedevent_handler(void (*entry)(uint16_t, const void *, size_t));

void __xray_CustomEvent(void *data, size_t size);
void __xray_TypedEvent(uint16_t type, const void *data, size_t size);

static volatile int handled;
static char sink[4096];

__attribute__((noinline)) static void clobber_upper(const void *data, size_t size)
{
    memcpy(sink, data, size < sizeof sink ? size : sizeof sink);
    __asm__ volatile("vzeroupper" ::: "memory");
    handled++;
}
static void custom_handler(void *data, size_t size) { clobber_upper(data, size); }
static void typed_handler(uint16_t type, const void *data, size_t size)
{
    (void)type;
    clobber_upper(data, size);
}

#define LOAD(n)  "vmovdqu " #n "*32(%[in]), %%ymm" #n "\n\t"
#define STORE(n) "vmovdqu %%ymm" #n ", " #n "*32(%[out])\n\t"
#define ALL(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define YMM_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
    "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* The red zone is skipped before the call: the call's push would overwrite it. */
__attribute__((target("avx"))) static void custom_around(const uint8_t *in, uint8_t *out)
{
    static const char msg[] = "0123456789abcdef0123456789abcdef";
    __asm__ volatile(ALL(LOAD)
                     "subq $128, %%rsp\n\t"
                     "leaq %[msg], %%rdi\n\t"
                     "movq $32, %%rsi\n\t"
                     "call __xray_CustomEvent\n\t"
                     "addq $128, %%rsp\n\t"
                     ALL(STORE)
                     : : [in] "r"(in), [out] "r"(out), [msg] "m"(msg)
                     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory",
                       "cc", YMM_CLOBBERS);
}
__attribute__((target("avx"))) static void typed_around(const uint8_t *in, uint8_t *out)
{
    static const char msg[] = "typed event payload, 32 bytes...";
    __asm__ volatile(ALL(LOAD)
                     "subq $128, %%rsp\n\t"
                     "movl $7, %%edi\n\t"
                     "leaq %[msg], %%rsi\n\t"
                     "movq $32, %%rdx\n\t"
                     "call __xray_TypedEvent\n\t"
                     "addq $128, %%rsp\n\t"
                     ALL(STORE)
                     : : [in] "r"(in), [out] "r"(out), [msg] "m"(msg)
                     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory",
                       "cc", YMM_CLOBBERS);
}

static int compare(const char *what, const uint8_t *in, const uint8_t *out)
{
    for (int r = 0; r < 16; r++)
        if (memcmp(in + 32 * r, out + 32 * r, 32)) {
            int lower = memcmp(in + 32 * r, out + 32 * r, 16) == 0;
            fprintf(stderr, "FAIL: %s: ymm%d changed (%s)\n", what, r,
                    lower ? "upper half only" : "lower half too");
            return 1;
        }
    return 0;
}

int main(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) || !(c & bit_OSXSAVE)) {
        printf("SKIP: no AVX\n");
        return 77;
    }
    __xray_set_customevent_handler(custom_handler);
    __xray_set_typedevent_handler(typed_handler);
    uint8_t in[16 * 32], out[16 * 32];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i * 7 + 1);
    int fail = 0;
    memset(out, 0, sizeof out);
    custom_around(in, out);
    fail |= compare("__xray_CustomEvent", in, out);
    memset(out, 0, sizeof out);
    typed_around(in, out);
    fail |= compare("__xray_TypedEvent", in, out);
    if (handled != 2) {
        fprintf(stderr, "FAIL: handlers ran %d times, want 2\n", handled);
        fail = 1;
    }
    if (!fail)
        printf("PASS: 16 ymm registers intact across custom and typed events\n");
    return fail;
}
