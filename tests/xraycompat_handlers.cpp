/*
 * xraycompat_handlers.cpp - compiler-rt's handler call rules, observed by a program:
 * which sled reaches which handler (entry, exit, log-args entry with an explicit
 * argument and with the implicit `this`), arg1 handler with and without a function
 * handler, removal, custom and typed events, event type ids, the mode registry
 * (register, duplicate, select, init_mode of a mode not current, set/remove_log_impl),
 * process_buffers without an iterator. Built against compiler-rt and against flightrec;
 * tests/xraycompat_run.py compares the output. Run with and without patch_premain.
 */
#include <flightrec/xray.h>
#include <stdint.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, xray_always_instrument))
#define NEVER __attribute__((xray_never_instrument))
static volatile long sink;
static int (*volatile opaque)(int) = nullptr;

TRACED int plain(int x) { return x + (int)sink; }
TRACED __attribute__((xray_log_args(1))) long witharg(long x) { return x * 2 + sink; }
struct Obj {
    int v;
    TRACED __attribute__((xray_log_args(1))) int member(int a) { return v + a + (int)sink; }
    TRACED int other(int a) { return v - a + (int)sink; }
};
TRACED void events(void)
{
    static const char msg[] = "custom!";
    __xray_customevent(msg, sizeof msg - 1);
    __xray_typedevent(42, msg, 3);
}

static Obj *the_obj;
NEVER static const char *argname(uint64_t a)
{
    return a == 7 ? "7" : a == (uint64_t)(uintptr_t)the_obj ? "this" : "other";
}
NEVER static void h0(int32_t id, XRayEntryType t) { printf("  h0 %d %d\n", id, (int)t); }
NEVER static void h1(int32_t id, XRayEntryType t, uint64_t a)
{
    printf("  h1 %d %d %s\n", id, (int)t, argname(a));
}
NEVER static void hc(void *p, size_t n) { printf("  custom %.*s\n", (int)n, (const char *)p); }
NEVER static void ht(uint16_t type, const void *p, size_t n)
{
    printf("  typed %u %.*s\n", (unsigned)type, (int)n, (const char *)p);
}
NEVER static void run(const char *what)
{
    printf("%s\n", what);
    Obj o{3};
    the_obj = &o;
    sink += plain(1) + witharg(7) + o.member(2) + o.other(1);
    events();
}

NEVER static XRayLogInitStatus my_init(size_t, size_t, void *, size_t)
{
    printf("  my_init\n");
    return XRAY_LOG_INITIALIZED;
}
NEVER static XRayLogInitStatus my_fin() { return XRAY_LOG_FINALIZED; }
NEVER static XRayLogFlushStatus my_flush() { return XRAY_LOG_FLUSHED; }
NEVER static void my_arg0(int32_t id, XRayEntryType t) { printf("  my_arg0 %d %d\n", id, (int)t); }

NEVER int main()
{
    (void)opaque;
    static const char a[] = "a", b[] = "b";
    uint16_t ea = __xray_register_event_type(a), eb = __xray_register_event_type(b);
    printf("event types %u %u %u\n", ea, eb, __xray_register_event_type(a));
    printf("patch %d, max id %zu\n", __xray_patch(), __xray_max_function_id());
    run("no handler");
    printf("set %d\n", __xray_set_handler(h0));
    run("arg0 handler");
    printf("set1 %d\n", __xray_set_handler_arg1(h1));
    run("arg0 and arg1 handlers");
    printf("remove %d\n", __xray_remove_handler());
    run("arg1 handler only");
    printf("remove1 %d\n", __xray_remove_handler_arg1());
    printf("set custom %d typed %d\n", __xray_set_customevent_handler(hc),
           __xray_set_typedevent_handler(ht));
    run("event handlers");
    printf("remove custom %d typed %d\n", __xray_remove_customevent_handler(),
           __xray_remove_typedevent_handler());
    run("nothing again");
    printf("unpatch function 1: %d\n", __xray_unpatch_function(1));
    printf("function 0 address is %s\n", __xray_function_address(0) ? "set" : "0");
    printf("function 1 address is %s\n", __xray_function_address(1) ? "set" : "0");

    XRayLogImpl impl = {my_init, my_fin, my_arg0, my_flush};
    XRayLogImpl incomplete = {my_init, nullptr, my_arg0, my_flush};
    printf("current mode %s\n", __xray_log_get_current_mode() ? "set" : "(null)");
    printf("process without impl %d\n", __xray_log_process_buffers(nullptr));
    printf("register incomplete %d\n", __xray_log_register_mode("mine", incomplete));
    printf("register %d\n", __xray_log_register_mode("mine", impl));
    printf("register again %d\n", __xray_log_register_mode("mine", impl));
    printf("register over builtin %d\n", __xray_log_register_mode("xray-fdr", impl));
    printf("init_mode before select %d\n", __xray_log_init_mode("mine", ""));
    printf("select unknown %d\n", __xray_log_select_mode("no-such-mode"));
    printf("select %d, mode %s\n", __xray_log_select_mode("mine"), __xray_log_get_current_mode());
    printf("init_mode null config %d\n", __xray_log_init_mode("mine", nullptr));
    printf("init_mode other mode %d\n", __xray_log_init_mode("xray-fdr", ""));
    printf("init_mode %d\n", __xray_log_init_mode("mine", "x"));
    printf("init_mode_bin %d\n", __xray_log_init_mode_bin("mine", "x", 1));
    run("selected mode's handle_arg0");
    printf("process, no iterator %d\n", __xray_log_process_buffers(nullptr));
    printf("finalize %d flush %d\n", __xray_log_finalize(), __xray_log_flushLog());
    __xray_remove_log_impl();
    printf("after remove_log_impl: mode %s, init %d\n",
           __xray_log_get_current_mode() ? __xray_log_get_current_mode() : "(null)",
           __xray_log_init(0, 0, nullptr, 0));
    run("after remove_log_impl");
    __xray_set_log_impl(impl);
    printf("after set_log_impl: mode %s\n",
           __xray_log_get_current_mode() ? __xray_log_get_current_mode() : "(null)");
    __xray_set_log_impl(incomplete);
    printf("after incomplete set_log_impl: mode %s, finalize %d\n",
           __xray_log_get_current_mode() ? __xray_log_get_current_mode() : "(null)",
           __xray_log_finalize());
    run("after incomplete set_log_impl");
    return 0;
}
