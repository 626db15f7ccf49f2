/*
 * xray_startup.c - what compiler-rt's XRay runtime does before main, in its order:
 *  1. XRAY_OPTIONS is parsed (xray_flags.c); with verbosity=1 a program without sleds
 *     gets "XRay instrumentation map missing. Not initializing XRay.";
 *  2. patch_premain=true patches every sled (handlers set later are then called);
 *  3. the modes are registered (xray-basic, xray-fdr); xray_mode=xray-basic (or the
 *     deprecated xray_naive_log=true) selects and initialises basic mode with
 *     XRAY_BASIC_OPTIONS; xray_mode=xray-fdr (or xray_fdr_log=true) only selects FDR
 *     mode: the program initialises it.
 *     xray_mode=xray-profiling selects profiling mode (compiler-rt 14 means to, but asks
 *     for "xray_profiling" and selects nothing).
 * Unlike compiler-rt, an xray_mode naming no built-in mode is reported (compiler-rt
 * ignores it silently).
 * compiler-rt runs from .preinit_array; a shared library cannot, so this is the
 * earliest constructor (priority 101): before the program's own constructors.
 */
#define _GNU_SOURCE
#include "xray/xray_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void start_basic(void)
{
    enum XRayLogRegisterStatus sel = __xray_log_select_mode("xray-basic");
    if (sel != XRAY_REGISTRATION_OK) {
        if (xr_verbose())
            xr_report("Failed selecting XRay Basic Mode; error = %d\n", (int)sel);
        return;
    }
    const char *env = secure_getenv("XRAY_BASIC_OPTIONS");
    enum XRayLogInitStatus st = __xray_log_init_mode("xray-basic", env ? env : "");
    if (st != XRAY_LOG_INITIALIZED) {
        if (xr_verbose())
            xr_report("Failed initializing XRay Basic Mode; error = %d\n", (int)st);
        return;
    }
    xr_basic_start_thread();
}

static int started;   /* xr_startup ran (or is running: it calls the entry points) */

static void startup(const char *argv0)
{
    if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
        return;
    if (argv0)
        xr_set_argv0(argv0);
    xr_flags_init();
    if (!xr_instrumented()) {
        if (xr_verbose())
            xr_report("XRay instrumentation map missing. Not initializing XRay.\n");
    } else if (xr_flags.patch_premain) {
        __xray_patch();
    }
    xr_register_builtin_modes();
    const char *mode = xr_flags.xray_mode;
    if (xr_flags.xray_naive_log || !strcmp(mode, "xray-basic"))
        start_basic();
    if (xr_flags.xray_fdr_log || !strcmp(mode, "xray-fdr")) {
        enum XRayLogRegisterStatus sel = __xray_log_select_mode("xray-fdr");
        if (sel != XRAY_REGISTRATION_OK && xr_verbose())
            xr_report("Cannot select XRay FDR mode as 'xray-fdr'; error = %d\n", (int)sel);
    }
    if (!strcmp(mode, "xray-profiling"))
        __xray_log_select_mode("xray-profiling");
    if (mode[0] && strcmp(mode, "xray-basic") && strcmp(mode, "xray-fdr") &&
        strcmp(mode, "xray-profiling"))
        xr_report("flightrec: XRAY_OPTIONS: xray_mode=%s: no such mode (flightrec has "
                  "xray-basic, xray-fdr and xray-profiling)\n", mode);
}

/* glibc calls constructors with (argc, argv, envp): argv[0] names compiler-rt's logs. */
__attribute__((constructor(101))) static void xray_startup(int argc, char **argv, char **envp)
{
    (void)envp;
    startup(argc > 0 && argv ? argv[0] : NULL);
}

/* An entry point called before the constructor (from a constructor of the program's that
 * runs first, or of a library loaded before us) runs the start-up there: compiler-rt's
 * runs from .preinit_array, before any of them. argv[0] from glibc, set before any
 * constructor. */
void xr_startup_ensure(void)
{
    if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
        startup(program_invocation_name);
}

/* Referenced by the static library's users (CMake and pkg-config: --undefined), and by
 * the objects of every __xray_* function (xray_interface.c, xray_log_interface.c), so
 * that this start-up code is linked whenever the program uses the XRay API, or calls
 * nothing of ours and is linked with the anchors. */
__attribute__((visibility("default"))) const char fr_xray_anchor = 1;
