/*
 * options.h - the recorder's options, parsed from FLIGHTREC_OPTIONS and/or the string
 * given to fr_init ("key=value" pairs separated by spaces or commas). Front ends read
 * them through fr_current_options() (recorder.h).
 */
#ifndef FLIGHTREC_OPTIONS_H
#define FLIGHTREC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/visibility.h"

#define FR_OPTIONS_PATH_MAX 4096
#define FR_MAX_DEPTH_LIMIT  65535   /* max_depth= at most */
#define FR_MAX_BUFFERS      (1u << 22)   /* buffers= at most (the backing format's too) */

/* One bit per key, in fr_options.given: which keys a string set (an alias sets its key's
 * bit: buffer_max -> FR_OPT_BUFFERS, func_duration_threshold_us -> FR_OPT_THRESHOLD_US). */
enum fr_option_key {
    FR_OPT_OUTPUT          = 1u << 0,
    FR_OPT_BUFFER_SIZE     = 1u << 1,
    FR_OPT_BUFFERS         = 1u << 2,
    FR_OPT_POLICY          = 1u << 3,
    FR_OPT_THRESHOLD_US    = 1u << 4,
    FR_OPT_START           = 1u << 5,
    FR_OPT_PATCH           = 1u << 6,
    FR_OPT_CRASH_DUMP      = 1u << 7,
    FR_OPT_SIGNAL_FLUSH    = 1u << 8,
    FR_OPT_SNAPSHOT_SIGNAL = 1u << 9,
    FR_OPT_BACKING         = 1u << 10,
    FR_OPT_SNAPSHOT_OUTPUT = 1u << 11,
    FR_OPT_EVENTS          = 1u << 12,
    FR_OPT_CLOCK           = 1u << 13,
    FR_OPT_STREAM          = 1u << 14,
    FR_OPT_NO_FILE_FLUSH   = 1u << 15,
    FR_OPT_USER_EVENTS     = 1u << 16,
    FR_OPT_FILE_MODE       = 1u << 17,
    FR_OPT_GRACE_PERIOD_MS = 1u << 18,
    FR_OPT_SCHED           = 1u << 19,
    FR_OPT_EXCLUDE         = 1u << 20,
    FR_OPT_MAX_DEPTH       = 1u << 21,
    FR_OPT_LIBCALLS        = 1u << 22,
};

struct fr_options {
    uint32_t given;         /* FR_OPT_* of the keys set by the strings parsed (valid pairs) */
    char     output[FR_OPTIONS_PATH_MAX]; /* trace file pattern: "%p" -> pid */
    size_t   buffer_size;   /* bytes per buffer (multiple of 8, >= 1 KiB) */
    uint32_t buffers;       /* buffers in the pool */
    int      policy;        /* FR_POLICY_OVERWRITE / FR_POLICY_DISCARD (fr_format.h) */
    uint64_t threshold_us;  /* calls shorter than this leave no records (0: keep all) */
    bool     start;         /* initialise at start-up (constructor) */
    char     patch[1024];   /* "all" (default), "none", or a pattern (function tracing) */
    char     exclude[1024]; /* "" (default) or a pattern: functions never recorded */
    uint32_t max_depth;     /* record calls to this depth per thread (0: any depth) */
    bool     libcalls;      /* record calls through the PLT (functrace/libcalls.h) */
    bool     crash_dump;    /* write the buffers to `output` on a fatal signal */
    bool     signal_flush;  /* write them on SIGTERM/SIGINT/SIGHUP, then the signal's own action */
    int      snapshot_signal;          /* 0 or a signal that takes a snapshot (SIGUSR1/2, RT) */
    char     snapshot_output[FR_OPTIONS_PATH_MAX]; /* snapshot names, "%p" "%n"; "" = output.%n */
    char     events[4096];  /* structured events selection, e.g. "Provider:5:0xff,...";
                               stored as given, parsed by the events part */
    int      clock;         /* enum fr_clock_choice: auto (default), tsc, monotonic */
    bool     no_file_flush; /* XRay compat: finalize/exit do not write a file */
    bool     stream;        /* a background thread appends each full buffer to `output`
                               (stream_writer.c): a run of any length in a fixed pool */
    uint32_t file_mode;     /* permission bits of a trace file we create (default 0600) */
    char     backing[FR_OPTIONS_PATH_MAX]; /* "" or the pool's file (MAP_SHARED), "%p" ->
                                              pid: it outlives SIGKILL (docs/BACKING.md) */
    bool     sched;         /* scheduling marks: each thread's stretches off the CPU
                               (sched_marks.c) */
    int      user_events;   /* FR_USER_EVENTS_*: the Linux user_events sink (read by the
                               sink from fr_options_from_env at its first use) */
};

/* user_events=auto (default): used where the kernel has it, silently skipped where not;
 * on: used, and one message on stderr if it is unavailable; off: never touched. */
enum { FR_USER_EVENTS_AUTO = 0, FR_USER_EVENTS_ON = 1, FR_USER_EVENTS_OFF = 2 };

/* The signal a snapshot_signal= value names (SIGUSR1, USR2, 12, SIGRTMIN+3...): only
 * SIGUSR1, SIGUSR2 and the real-time signals, whose default action nobody relies on for
 * a crash or termination. 0 if none of those. */
FR_HIDDEN int fr_options_signal(const char *s, size_t len);

/* NULL when `path` may be a backing file's, else why not: a path that exists and is no
 * regular file (backing=/dev/null would make /dev/null.1, a device's directory). */
FR_HIDDEN const char *fr_backing_path_problem(const char *path);

/* Sets every field to its default. */
FR_HIDDEN void fr_options_defaults(struct fr_options *o);

/* Applies the pairs in `text` (NULL or "" = nothing) on top of *o. `origin` names the
 * source in messages (e.g. "FLIGHTREC_OPTIONS"; NULL: report nothing). Each unknown key or bad value is
 * reported once on stderr; returns 0 if all were valid, -1 otherwise (valid pairs are
 * applied either way). */
FR_HIDDEN int fr_options_parse(struct fr_options *o, const char *text,
                               const char *origin);

/* FLIGHTREC_OPTIONS (secure_getenv: nothing in a setuid/setgid process) parsed on top of
 * the defaults, into *out: the one parse every part of the runtime reads (fr_init, the
 * start-up constructor, the XRay modes, the user_events sink), made again only when the
 * variable's value changed (a program may set it before fr_init). Returns 0, or -1 when
 * a pair was refused; `origin` (NULL: quiet) then names the variable in the messages
 * that say which. */
FR_HIDDEN int fr_options_from_env(struct fr_options *out, const char *origin);

#endif
