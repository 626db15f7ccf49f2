/*
 * xray_internal.h - what the files of the XRay compatibility layer share (internal to
 * libflightrec). compiler-rt 14's XRay runtime is the specification: its flags, its
 * messages, its log file names, its modes. docs/XRAY_COMPAT.md lists every difference.
 *
 *   xray_flags.c          XRAY_OPTIONS and the per-mode option strings, compiler-rt's
 *                         flag syntax and messages; Report()-style stderr lines
 *   xray_logfile.c        compiler-rt's log file: <xray_logfile_base><argv[0] name>.XXXXXX
 *   xray_startup.c        what compiler-rt does before main: flags, modes registered,
 *                         xray_mode selected (and xray-basic initialised), patch_premain
 *   xray_interface.c      xray_interface.h: handlers, patching, ids, event types
 *   xray_log_interface.c  xray_log_interface.h: the mode registry and the log calls
 *   xray_mode_fdr.c       mode "xray-fdr" on flightrec's recorder
 *   xray_mode_basic.c     mode "xray-basic": compiler-rt's naive log
 *   xray_mode_profiling.c mode "xray-profiling": compiler-rt's per-thread call-trie profiles
 */
#ifndef FLIGHTREC_XRAY_INTERNAL_H
#define FLIGHTREC_XRAY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "flightrec/xray.h"
#include "core/visibility.h"

#define XR_BASE_MAX 1024

/* XRAY_OPTIONS, as compiler-rt 14's xray_flags.inc (+ the common flag `verbosity`). */
struct xr_flags {
    bool patch_premain;
    char xray_logfile_base[XR_BASE_MAX];
    char xray_mode[64];
    bool xray_naive_log;
    int xray_naive_log_func_duration_threshold_us;
    int xray_naive_log_max_stack_depth;
    int xray_naive_log_thread_buffer_size;
    bool xray_fdr_log;
    int xray_fdr_log_func_duration_threshold_us;
    int xray_fdr_log_grace_period_us;
    int xray_fdr_log_grace_period_ms;
    int verbosity;
};
extern FR_HIDDEN struct xr_flags xr_flags;

/* Parses XRAY_OPTIONS once (secure_getenv); later calls do nothing. */
FR_HIDDEN void xr_flags_init(void);

/* A flag table for xr_parse_flags. */
enum xr_flag_type { XR_FLAG_BOOL, XR_FLAG_INT, XR_FLAG_STR };
struct xr_flag {
    const char *name;
    enum xr_flag_type type;
    void *value;       /* bool *, int *, or char[cap] */
    size_t cap;
};

/* compiler-rt's flag syntax: NAME=VALUE pairs separated by spaces, tabs, newlines,
 * ',' or ':'; values may be quoted with ' or ". Booleans: 1/0, true/false, yes/no.
 * Pairs whose name is in PASS (NULL-terminated; may be NULL) are appended to PASSOUT
 * (cap PASSCAP) as "name=value" separated by spaces. Unknown names are reported as
 * compiler-rt reports them ("WARNING: found N unrecognized flag(s):"), at every
 * verbosity. A malformed string (no '=', bad value, unterminated quote) is reported with
 * compiler-rt's messages and returns -1: the caller then uses none of it (compiler-rt
 * would end the program with status 1). ORIGIN names the string in messages. */
FR_HIDDEN int xr_parse_flags(const char *text, const char *origin, const struct xr_flag *table,
                             size_t n, const char *const *pass, char *passout, size_t passcap);

/* compiler-rt's Report(): "==PID==" + message, on stderr. */
FR_HIDDEN void xr_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* compiler-rt's Printf(): the message alone, on stderr. */
FR_HIDDEN void xr_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int xr_verbose(void) { return xr_flags.verbosity > 0; }

/* The program's argv[0] without its directory (compiler-rt names log files after it). */
FR_HIDDEN const char *xr_progname(void);
FR_HIDDEN void xr_set_argv0(const char *argv0);
/* Creates compiler-rt's log file (mkstemp of <base><progname>.XXXXXX, mode 0600), says
 * where at verbosity 1, and reports a failure as compiler-rt does (at every verbosity).
 * Returns the open descriptor, the name in PATH; -1 on failure. */
FR_HIDDEN int xr_open_logfile(char *path, size_t cap);

/* Modes (xray_log_interface.c registers them in this order, before the program's). */
extern FR_HIDDEN const struct XRayLogImpl xr_fdr_impl;
extern FR_HIDDEN const struct XRayLogImpl xr_basic_impl;
extern FR_HIDDEN const struct XRayLogImpl xr_profiling_impl;
FR_HIDDEN void xr_register_builtin_modes(void);
/* Called at exit when basic mode was ever initialised: writes what threads still hold. */
FR_HIDDEN void xr_basic_exit_flush(void);
/* The calling thread gets its buffer (and the log is created) now: what compiler-rt does
 * when XRAY_OPTIONS starts basic mode. */
FR_HIDDEN void xr_basic_start_thread(void);

/* Runs what compiler-rt does before main (xray_startup.c) if it has not run yet: the
 * entry points that depend on it (the mode registry) call it first. */
FR_HIDDEN void xr_startup_ensure(void);
/* The start-up's object, linked with whichever object references it. */
extern const char fr_xray_anchor;
#define XR_LINK_STARTUP \
    __attribute__((used)) static const char *const xr_startup_linked = &fr_xray_anchor

/* Whether __xray_init found instrumentation (sleds) in any loaded object. */
FR_HIDDEN int xr_instrumented(void);

#endif
