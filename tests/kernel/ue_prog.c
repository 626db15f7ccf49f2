/*
 * ue_prog.c - the program the kernel tests run inside the virtual machine: it registers
 * structured events with the real kernel's user_events and does what the guest script
 * tells it, one command per line on standard input, answering on standard output and
 * ending each answer with "done N" (N counts the commands), so that the script can wait
 * for it:
 *
 *   register            FR_PROVIDER_REGISTER of both providers (also done at start)
 *   unregister          fr_provider_unregister of both
 *   bits                "bit NAME 0xWORD" for every call site: its enable word
 *   waitbit NAME        waits (<= 20 s) until the kernel set NAME's enable bit
 *   alpha N [FIRST]     N events Alpha (u32 seq = FIRST..), back to back
 *   slow N MS           N events Alpha, MS milliseconds apart (the enable gap)
 *   values N            N events Values, every field type, values made from seq (below)
 *   spans N             N times: span Outer, event Inside, span Inner, its stop, Outer's
 *   syscalls N [wait]   a child traced with ptrace registers (with "wait": waits for
 *                       Alpha's bit), then between two marker calls writes N times
 *                       Alpha, Values and the spans (7 events); printed: the system
 *                       calls it made between the markers ("syscalls K nr,nr,...")
 *   fork N              the child: bits, N Alpha (seq 1000..), registers again, waits for
 *                       its bit, N Alpha (seq 2000..), bits; the parent waits for it
 *   pid                 "pid P"
 *   say TEXT            prints TEXT (the script's marks between steps)
 *   others              one event each of Beta, Gamma, Delta, Grouped
 *   quit                exit(0) (the destructor unregisters)
 *
 * Providers: FrKtest (Alpha, Beta: level 4 keyword 1; Gamma: level 5 keyword 0; Delta:
 * level 2 keyword 0xff; Values, Inside, the spans: level 4 keyword 1) and FrKgroup in
 * group "g1" (Grouped: level 3 keyword 4). FLIGHTREC_OPTIONS may also start the flight
 * recorder, which then gets the same events (the test compares the two).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <flightrec.h>
#include <flightrec/events.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

FR_PROVIDER_DEFINE(ktest, "FrKtest");
FR_PROVIDER_DEFINE_GROUP(kgroup, "FrKgroup", "g1");

/* ------------------------------------------------------------------ the events */

static void alpha(uint32_t seq) { FR_EVENT(ktest, "Alpha", FR_LEVEL(4), FR_KEYWORD(1), FR_U32("seq", seq)); }
static void beta(void) { FR_EVENT(ktest, "Beta", FR_LEVEL(4), FR_KEYWORD(1), FR_STR("b", "beta")); }
static void gamma_(void) { FR_EVENT(ktest, "Gamma", FR_U8("g", 7)); }
static void delta(void) { FR_EVENT(ktest, "Delta", FR_LEVEL(2), FR_KEYWORD(0xff), FR_I64("d", -5)); }
static void grouped(void) { FR_EVENT(kgroup, "Grouped", FR_LEVEL(3), FR_KEYWORD(4), FR_U16("g", 3)); }

/* Every field type; the values are functions of seq that kernel_check.py computes too. */
static void values(uint32_t i)
{
    static const uint8_t uuid[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                     0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
    static const uint8_t ip6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const uint8_t bin[4] = {0xde, 0xad, 0xbe, 0xef};
    uint16_t arr[3] = {(uint16_t)i, (uint16_t)(i + 1), (uint16_t)(i + 2)};
    int32_t fix[3] = {-(int32_t)i, 0, (int32_t)i};
    double darr[2] = {i / 2.0, -1.5};
    char msg[32];
    snprintf(msg, sizeof msg, "msg-%u", i);
    FR_EVENT(ktest, "Values", FR_LEVEL(4), FR_KEYWORD(1), FR_ID(77, 2), FR_TAG(0x55),
             FR_U32("seq", i), FR_U8("u8", (uint8_t)i), FR_I8("i8", (int8_t)-(int)(i % 100)),
             FR_U16("u16", (uint16_t)(i * 3)), FR_I16("i16", (int16_t)-(int)i),
             FR_I32("i32", -(int32_t)i * 11), FR_U64("u64", (uint64_t)i * 1000000007ull),
             FR_I64("i64", -(int64_t)i * 1000000007ll), FR_HEX32("hex32", i ^ 0xdead0000u),
             FR_BOOL("ok", i & 1), FR_FLOAT("f", (float)i / 4.0f), FR_DOUBLE("d", i / 8.0),
             FR_CHAR("ch", (char)('a' + i % 26)), FR_PID("pid", getpid()),
             FR_ERRNO("err", ENOENT), FR_STR("msg", msg), FR_CSTR("cs", "abcdef", i % 7),
             FR_BINARY("bin", bin, 4), FR_UUID("uuid", uuid), FR_IPV4("ip4", htonl(0x0a000001u + i)),
             FR_IPV6("ip6", ip6), FR_PORT("port", htons(8080)),
             FR_U16_ARRAY("arr", arr, i % 4), FR_I32_FIXED("fix", fix, 3),
             FR_DOUBLE_ARRAY("darr", darr, 2), FR_STRUCT("st", 2), FR_U32("a", i),
             FR_STR("b", "x"), FR_TAGGED(0x12, FR_U32("tagged", i)));
}

static void spans(uint32_t i)
{
    fr_span outer, inner;
    FR_SPAN_START(ktest, &outer, "Outer", FR_LEVEL(4), FR_KEYWORD(1), FR_U32("seq", i));
    FR_EVENT(ktest, "Inside", FR_LEVEL(4), FR_KEYWORD(1), FR_U32("seq", i));
    FR_SPAN_START(ktest, &inner, "Inner", FR_LEVEL(4), FR_KEYWORD(1), FR_U32("seq", i));
    FR_SPAN_STOP(ktest, &inner, "Inner", FR_LEVEL(4), FR_KEYWORD(1));
    FR_SPAN_STOP(ktest, &outer, "Outer", FR_LEVEL(4), FR_KEYWORD(1), FR_U32("seq", i));
}

/* ------------------------------------------------------------------ call sites */

/* The event's name: the metadata extension's first bytes after its 4-byte header. */
static const char *site_name(const fr_event_site *s)
{
    return (const char *)s->metadata + 4;
}

static void print_bits(void)
{
    for (fr_event_site *const *it = __start_fr_events; it < __stop_fr_events; it++)
        printf("bit %s %s_L%xK%llx%s%s 0x%x\n", site_name(*it), (*it)->provider->name,
               (*it)->level, (unsigned long long)(*it)->keyword,
               (*it)->provider->group ? "G" : "",
               (*it)->provider->group ? (*it)->provider->group : "",
               __atomic_load_n(&(*it)->enabled, __ATOMIC_RELAXED));
}

static fr_event_site *find_site(const char *name)
{
    for (fr_event_site *const *it = __start_fr_events; it < __stop_fr_events; it++)
        if (!strcmp(site_name(*it), name))
            return *it;
    return NULL;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

/* Waits until the kernel set the site's user_events bit; milliseconds, or -1. */
static long long wait_bit(const char *name)
{
    fr_event_site *s = find_site(name);
    long long start = now_ms();
    while (s && now_ms() - start < 20000) {
        if (__atomic_load_n(&s->enabled, __ATOMIC_ACQUIRE) & FR_SITE_USER_EVENTS)
            return now_ms() - start;
        usleep(1000);
    }
    return -1;
}

static void register_all(void)
{
    FR_PROVIDER_REGISTER(ktest);
    FR_PROVIDER_REGISTER(kgroup);
}

/* ------------------------------------------------------------------ system calls */

/* A marker the tracer recognises: getpgid of an impossible pid. */
#define MARKER_PID 0x7ffffff0
static void marker(void) { syscall(SYS_getpgid, MARKER_PID); }

static void register_all(void);
static long long wait_bit(const char *name);

/* Runs n rounds of events in a child stopped at every system call (PTRACE_SYSCALL) and
 * prints the calls it made between the two markers. The child registers anew (a fork
 * child's inherited registrations are withdrawn). */
static void count_syscalls(unsigned n, bool wait)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        raise(SIGSTOP);
        register_all();
        if (wait && wait_bit("Alpha") < 0)
            _exit(3);
        marker();
        for (unsigned i = 0; i < n; i++) {
            alpha(i);
            values(i);
            spans(i);
        }
        marker();
        _exit(0);
    }
    int st, markers = 0, count = 0;
    char list[4096] = "";
    size_t len = 0;
    waitpid(child, &st, 0);                 /* its SIGSTOP */
    bool entry = true;
    for (;;) {
        if (ptrace(PTRACE_SYSCALL, child, NULL, NULL) != 0 || waitpid(child, &st, 0) < 0 ||
            !WIFSTOPPED(st))
            break;
        if (!entry) {
            entry = true;
            continue;
        }
        entry = false;
        struct user_regs_struct regs;
        ptrace(PTRACE_GETREGS, child, NULL, &regs);
        if (regs.orig_rax == SYS_getpgid && regs.rdi == MARKER_PID) {
            if (++markers == 2)
                break;
        } else if (markers == 1) {
            count++;
            if (len < sizeof list - 16)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%llu",
                                        len ? "," : "", (unsigned long long)regs.orig_rax);
        }
    }
    kill(child, SIGKILL);
    waitpid(child, &st, 0);
    printf("syscalls %d %s (markers %d)\n", count, len ? list : "-", markers);
}

/* ------------------------------------------------------------------ fork */

static void fork_child(unsigned n)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        printf("child %d\n", getpid());
        print_bits();
        for (unsigned i = 0; i < n; i++)
            alpha(1000 + i);       /* its registrations were withdrawn: not captured */
        register_all();
        printf("child waitbit %lld\n", wait_bit("Alpha"));
        for (unsigned i = 0; i < n; i++)
            alpha(2000 + i);
        print_bits();
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(child, &st, 0);
    printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* ------------------------------------------------------------------ commands */

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    register_all();
    char line[256];
    unsigned done = 0;
    while (fgets(line, sizeof line, stdin)) {
        char cmd[32] = "", arg[64] = "";
        unsigned n = 0, first = 0;
        if (sscanf(line, "%31s %63s", cmd, arg) < 1)
            continue;
        n = (unsigned)strtoul(arg, NULL, 10);
        if (!strcmp(cmd, "register")) {
            register_all();
        } else if (!strcmp(cmd, "unregister")) {
            fr_provider_unregister(&ktest);
            fr_provider_unregister(&kgroup);
        } else if (!strcmp(cmd, "bits")) {
            print_bits();
        } else if (!strcmp(cmd, "waitbit")) {
            printf("waitbit %s %lld\n", arg, wait_bit(arg));
        } else if (!strcmp(cmd, "alpha")) {
            sscanf(line, "%*s %u %u", &n, &first);
            for (unsigned i = 0; i < n; i++)
                alpha(first + i);
        } else if (!strcmp(cmd, "slow")) {
            unsigned ms = 1;
            sscanf(line, "%*s %u %u", &n, &ms);
            for (unsigned i = 0; i < n; i++) {
                alpha(i);
                usleep(ms * 1000);
            }
        } else if (!strcmp(cmd, "others")) {
            beta();
            gamma_();
            delta();
            grouped();
        } else if (!strcmp(cmd, "values")) {
            for (unsigned i = 0; i < n; i++)
                values(i);
        } else if (!strcmp(cmd, "spans")) {
            for (unsigned i = 0; i < n; i++)
                spans(i);
        } else if (!strcmp(cmd, "syscalls")) {
            char how[16] = "";
            sscanf(line, "%*s %u %15s", &n, how);
            count_syscalls(n, !strcmp(how, "wait"));
        } else if (!strcmp(cmd, "say")) {
            printf("%s", line + 4);
        } else if (!strcmp(cmd, "fork")) {
            fork_child(n);
        } else if (!strcmp(cmd, "pid")) {
            printf("pid %d\n", getpid());
        } else if (!strcmp(cmd, "quit")) {
            printf("done %u\n", ++done);
            fflush(stdout);
            exit(0);
        } else {
            printf("unknown command %s\n", cmd);
        }
        printf("done %u\n", ++done);
    }
    return 0;
}
