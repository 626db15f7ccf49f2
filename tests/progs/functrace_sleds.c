/*
 * functrace_sleds.c - sled patching and trampolines, checked through the XRay
 * compatibility layer with a counting handler (no recorder involved). Built with
 * clang -fxray-instrument -fnoxray-link-deps, linked with libflightrec (static, and
 * shared in a second build). Exit status 0 when every check passes.
 */
#include <flightrec/xray.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument, noinline))

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

enum { MAXID = 256 };
static unsigned long counts[MAXID][6];
static uint64_t last_arg1;
static volatile double sink_d;
static volatile int sink_i;
static volatile long double sink_ld;

/* Clobbers what a handler may: vector and x87 registers, all caller-saved GPRs. */
NEVER static void handler(int32_t id, XRayEntryType kind)
{
    if (id > 0 && id < MAXID && kind >= 0 && kind < 6)
        __atomic_fetch_add(&counts[id][kind], 1, __ATOMIC_RELAXED);
    volatile double d = id * 3.25;
    sink_d = d * 1.5 + 7.0;
    volatile long double l = (long double)id;
    sink_ld = l * l + 1.0L;
    char scratch[64];
    memset(scratch, kind, sizeof scratch);
    __asm__ volatile("" ::"r"(scratch) : "memory");
}

NEVER static void handler_arg1(int32_t id, XRayEntryType kind, uint64_t arg)
{
    handler(id, kind);
    last_arg1 = arg;
}

/* ---------------------------------------------------------------- instrumented code */
NOINLINE int plain(int x) { __asm__ volatile(""); return x + 1; }
NOINLINE int fib(int n)
{
    if (n < 2)
        return n;
    int a = fib(n - 1), b = fib(n - 2);
    __asm__ volatile("" : "+r"(a), "+r"(b));   /* no accumulator loop: real calls */
    return a + b;
}
NOINLINE int tail_target(int x) { __asm__ volatile(""); return x * 3; }
NOINLINE int tail_caller(int x) { return tail_target(x + 1); }
NOINLINE double ret_double(double x) { return x * 1.5 + 0.25; }
NOINLINE long double ret_long_double(long double x) { return x * 2.5L; }
typedef struct { double re, im; } cplx;
NOINLINE cplx ret_two_doubles(double a) { cplx c = {a, -a}; return c; }
NOINLINE long many_args(long a, long b, long c, long d, long e, long f,
                        double x0, double x1, double x2, double x3,
                        double x4, double x5, double x6, double x7)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f +
           (long)(x0 + 2 * x1 + 3 * x2 + 4 * x3 + 5 * x4 + 6 * x5 + 7 * x6 + 8 * x7);
}
__attribute__((noinline, xray_always_instrument, xray_log_args(1)))
long with_arg(long v) { return v ^ 0x5a; }

static jmp_buf jb;
NOINLINE void jumper(int v) { longjmp(jb, v); }
NOINLINE int jump_host(int v)
{
    if (setjmp(jb) == 0) {
        jumper(v);
        return -1;
    }
    return v;
}

static char custom_seen[16];
static size_t custom_size;
static uint16_t typed_type;
static int misaligned;
NEVER static void custom_handler(void *data, size_t size)
{
    if (((uintptr_t)__builtin_frame_address(0)) % 16)
        misaligned++;
    custom_size = size;
    memcpy(custom_seen, data, size < sizeof custom_seen ? size : sizeof custom_seen);
}
NEVER static void typed_handler(uint16_t type, const void *data, size_t size)
{
    if (((uintptr_t)__builtin_frame_address(0)) % 16)
        misaligned++;
    typed_type = type;
    custom_size = size;
    memcpy(custom_seen, data, size < sizeof custom_seen ? size : sizeof custom_seen);
}
#if defined(__aarch64__)
void __xray_CustomEvent(void *data, size_t size);
void __xray_TypedEvent(uint16_t type, const void *data, size_t size);
#endif
NOINLINE int emits_events(int v)
{
    static const char msg[] = "hello";
    __xray_customevent(msg, 5);
    __xray_typedevent(7, "typed!", 6);
    return v + 1;
}

/* ---------------------------------------------------------------- checks */
NEVER static int32_t id_of(void *fn)
{
    for (size_t id = 1; id <= __xray_max_function_id(); id++)
        if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
            return (int32_t)id;
    return -1;
}

NEVER static void reset(void) { memset(counts, 0, sizeof counts); }

int main(void)
{
    int32_t id_plain = id_of((void *)plain), id_fib = id_of((void *)fib);
    int32_t id_tail = id_of((void *)tail_caller), id_target = id_of((void *)tail_target);
    int32_t id_d = id_of((void *)ret_double), id_ld = id_of((void *)ret_long_double);
    int32_t id_arg = id_of((void *)with_arg), id_many = id_of((void *)many_args);
    int32_t id_jumper = id_of((void *)jumper), id_host = id_of((void *)jump_host);
    int32_t id_two = id_of((void *)ret_two_doubles);
    CHECK(__xray_max_function_id() >= 12 && __xray_max_function_id() < MAXID, "max id %zu",
          __xray_max_function_id());
    CHECK(id_plain > 0 && id_fib > 0 && id_tail > 0 && id_target > 0 && id_d > 0 && id_ld > 0 &&
          id_arg > 0 && id_many > 0 && id_jumper > 0 && id_host > 0 && id_two > 0,
          "every function has an id");
    CHECK(__xray_function_address(0) == 0 && __xray_function_address(100000) == 0, "bad ids");
    CHECK(__xray_patch_function(100000) == FAILED, "patching a bad id fails");

    /* Unpatched: the handler is never called. */
    __xray_set_handler(handler);
    sink_i += plain(1);
    CHECK(counts[id_plain][ENTRY] == 0, "unpatched sleds call nothing");

    CHECK(__xray_patch() == SUCCESS, "patch all");
    reset();
    for (int i = 0; i < 1000; i++)
        sink_i += plain(i);
    CHECK(counts[id_plain][ENTRY] == 1000 && counts[id_plain][EXIT] == 1000,
          "plain: %lu enters %lu exits", counts[id_plain][ENTRY], counts[id_plain][EXIT]);

    reset();
    CHECK(fib(10) == 55, "fib");
    CHECK(counts[id_fib][ENTRY] == 177 && counts[id_fib][EXIT] == 177, "fib: %lu/%lu",
          counts[id_fib][ENTRY], counts[id_fib][EXIT]);

    reset();
    CHECK(tail_caller(4) == 15, "tail value");
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NO_TAIL_CALLS 1   /* TSan's exit hook after each call defeats the tail call */
#endif
#endif
#if defined(__aarch64__)
#define NO_TAIL_CALLS 1   /* clang 14 marks aarch64 tail sleds as exits in the map */
#endif
#ifdef NO_TAIL_CALLS
    counts[id_tail][TAIL] += counts[id_tail][EXIT];
    counts[id_tail][EXIT] = 0;
#endif
    CHECK(counts[id_tail][ENTRY] == 1 && counts[id_tail][TAIL] == 1 &&
          counts[id_tail][EXIT] == 0 && counts[id_target][ENTRY] == 1 &&
          counts[id_target][EXIT] == 1, "tail call: %lu %lu %lu", counts[id_tail][ENTRY],
          counts[id_tail][TAIL], counts[id_tail][EXIT]);

    /* Values survive the trampolines although the handler clobbers xmm and x87. */
    reset();
    CHECK(ret_double(2.0) == 3.25, "double return");
    CHECK(ret_long_double(3.0L) == 7.5L, "long double return");
    cplx c = ret_two_doubles(1.25);
    CHECK(c.re == 1.25 && c.im == -1.25, "xmm0/xmm1 return");
    CHECK(many_args(1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 7, 8) == 91 + 204, "arguments kept");
    CHECK(counts[id_d][EXIT] == 1 && counts[id_ld][EXIT] == 1 && counts[id_many][ENTRY] == 1 &&
          counts[id_two][EXIT] == 1, "fp functions traced");
    /* Long double arithmetic after the trampoline: the x87 stack is balanced. */
    long double acc = 0;
    for (int i = 0; i < 20; i++)
        acc += ret_long_double((long double)i);
    CHECK(acc == 2.5L * 190, "x87 stack balanced: %Lf", acc);

    /* Argument logging: arg1 handler, then the plain handler without one. */
    reset();
    __xray_set_handler_arg1(handler_arg1);
    CHECK(with_arg(0x1234) == (0x1234 ^ 0x5a), "arg value");
    CHECK(last_arg1 == 0x1234 && counts[id_arg][LOG_ARGS_ENTRY] == 1, "arg1 logged: %llx",
          (unsigned long long)last_arg1);
    __xray_remove_handler_arg1();
    sink_i += (int)with_arg(7);
    CHECK(counts[id_arg][LOG_ARGS_ENTRY] == 2 && last_arg1 == 0x1234, "plain handler for arg1");

    /* setjmp/longjmp: the jumped-over frame runs no exit sled; the runtime's longjmp hook
     * gives the handler its exit (shadow stack). */
    reset();
    CHECK(jump_host(5) == 5, "longjmp");
    CHECK(counts[id_jumper][ENTRY] == 1 && counts[id_jumper][EXIT] == 1 &&
          counts[id_host][ENTRY] == 1 && counts[id_host][EXIT] == 1, "longjmp counts");

    /* Custom and typed events: realigned stack, data delivered. */
    __xray_set_customevent_handler(custom_handler);
    __xray_set_typedevent_handler(typed_handler);
#if defined(__aarch64__)
    /* clang 14 emits no event sleds on aarch64 (the builtins compile to nothing): the
     * event entry points are called directly, as a newer compiler's sleds would. */
    __xray_TypedEvent(7, "typed!", 6);
    sink_i += emits_events(1);
#else
    CHECK(emits_events(1) == 2, "event function");
#endif
    CHECK(typed_type == 7 && custom_size == 6 && !memcmp(custom_seen, "typed!", 6),
          "typed event delivered");
    CHECK(misaligned == 0, "event handlers ran on an aligned stack (%d)", misaligned);
    __xray_remove_typedevent_handler();
    memset(custom_seen, 0, sizeof custom_seen);
#if defined(__aarch64__)
    __xray_CustomEvent("hello", 5);
#endif
    sink_i += emits_events(1);
    CHECK(custom_size == 5 && !memcmp(custom_seen, "hello", 5), "custom event delivered");
    CHECK(__xray_register_event_type("a") == __xray_register_event_type("a") &&
          __xray_register_event_type("a") != __xray_register_event_type("b"), "event types");

    /* Unpatch everything, then one function only. */
    CHECK(__xray_unpatch() == SUCCESS, "unpatch all");
    reset();
    sink_i += plain(1);
    sink_i += fib(5);
    CHECK(counts[id_plain][ENTRY] == 0 && counts[id_fib][ENTRY] == 0, "unpatched");
    CHECK(__xray_patch_function(id_fib) == SUCCESS, "patch one");
    sink_i += plain(1);
    sink_i += fib(5);
    CHECK(counts[id_plain][ENTRY] == 0 && counts[id_fib][ENTRY] == 15 &&
          counts[id_fib][EXIT] == 15, "one function patched: %lu", counts[id_fib][ENTRY]);
    CHECK(__xray_unpatch_function(id_fib) == SUCCESS, "unpatch one");
    sink_i += fib(5);
    CHECK(counts[id_fib][ENTRY] == 15, "unpatched again");

    /* Patched, but no handler: nothing is called and nothing breaks. */
    __xray_patch();
    __xray_remove_handler();
    reset();
    CHECK(plain(2) == 3 && ret_long_double(1) == 2.5L, "no handler");
    CHECK(counts[id_plain][ENTRY] == 0, "removed handler not called");
    __xray_unpatch();

    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        printf("functrace_sleds: all checks passed (%zu functions)\n", __xray_max_function_id());
    return failures != 0;
}
