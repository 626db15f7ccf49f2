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

struct fr_options {
    char     output[FR_OPTIONS_PATH_MAX]; /* trace file pattern: "%p" -> pid */
    size_t   buffer_size;   /* bytes per buffer (multiple of 8, >= 1 KiB) */
    uint32_t buffers;       /* buffers in the pool */
    int      policy;        /* FR_POLICY_OVERWRITE / FR_POLICY_DISCARD (fr_format.h) */
    uint64_t threshold_us;  /* calls shorter than this leave no records (0: keep all) */
    bool     start;         /* initialise at start-up (constructor) */
    char     patch[1024];   /* "all" (default), "none", or a pattern (function tracing) */
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
    int      user_events;   /* FR_USER_EVENTS_*: the Linux user_events sink (read by the
                               sink itself from FLIGHTREC_OPTIONS at its first use) */
};

/* user_events=auto (default): used where the kernel has it, silently skipped where not;
 * on: used, and one message on stderr if it is unavailable; off: never touched. */
enum { FR_USER_EVENTS_AUTO = 0, FR_USER_EVENTS_ON = 1, FR_USER_EVENTS_OFF = 2 };

/* The signal a snapshot_signal= value names (SIGUSR1, USR2, 12, SIGRTMIN+3...): only
 * SIGUSR1, SIGUSR2 and the real-time signals, whose default action nobody relies on for
 * a crash or termination. 0 if none of those. */
FR_HIDDEN int fr_options_signal(const char *s, size_t len);

/* Sets every field to its default. */
FR_HIDDEN void fr_options_defaults(struct fr_options *o);

/* Applies the pairs in `text` (NULL or "" = nothing) on top of *o. `origin` names the
 * source in messages (e.g. "FLIGHTREC_OPTIONS"; NULL: report nothing). Each unknown key or bad value is
 * reported once on stderr; returns 0 if all were valid, -1 otherwise (valid pairs are
 * applied either way). */
FR_HIDDEN int fr_options_parse(struct fr_options *o, const char *text,
                               const char *origin);

#endif
