/*
 * cli_common.h - what every `flightrec` subcommand that reads a trace shares:
 * opening a trace with its metadata and symbols, reading records (with a progress line
 * on a terminal), exact tick -> time conversion, option value helpers (the option parser
 * is cli_options.h), and one style of error message and exit code (commands.h: 0 ok,
 * 1 bad input, 2 bad usage).
 *
 * Typical use:
 *     fr_cli_trace t;
 *     int rc = fr_cli_open(&t, "account", path, binary);    // binary may be NULL
 *     if (rc) return rc;
 *     fr_record r; int s;
 *     while ((s = fr_cli_next(&t, &r)) == FR_READ_OK) { ... fr_cli_name(&t, r.function_id) ... }
 *     rc = fr_cli_close(&t);                                // 1 if the read failed
 */
#ifndef FLIGHTREC_CLI_COMMON_H
#define FLIGHTREC_CLI_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "commands.h"
#include "fr_reader.h"
#include "symbols.h"
#include "trace_meta.h"

/* --tid: the threads a command looks at (none: all). */
#define FR_CLI_MAX_TIDS 64
typedef struct fr_cli_tids {
    int32_t ids[FR_CLI_MAX_TIDS];
    size_t  n;
} fr_cli_tids;

typedef struct fr_cli_trace {
    const char   *command;      /* "dump": prefixes messages */
    const char   *path;
    fr_reader    *reader;
    const fr_trace_info *info;
    fr_trace_meta meta;         /* complete for the metadata block after open; later
                                   FR_TE_* records are folded in as they are read */
    fr_symbols   *symbols;
    uint64_t      ticks_per_second; /* FR_TE_CLOCK's if present, else the header's; 0 unknown */
    uint64_t      start_tsc;    /* time origin: FR_TE_CLOCK base, else the earliest
                                   timestamp in the file (a first pass at open; not
                                   with fr_cli_open_durations) */
    bool          has_start;
    bool          return_meta;  /* fr_cli_next also returns our FR_TE_* metadata records
                                   (default false: they are consumed into .meta) */
    bool          failed;       /* a read error was reported */
    bool          truncated;    /* the file ends inside a block or record (warned; every
                                   whole record before truncated_at was returned) */
    uint64_t      truncated_at;
    uint64_t      records;      /* returned by fr_cli_next so far */
    uint64_t      meta_end;     /* records before this offset were read into .meta at open */
    fr_cli_tids   only_tids;    /* --tid: only these threads' records are returned
                                   (none: all); set after fr_cli_open */
    uint64_t      tid_records;  /* with only_tids: the selected threads' records returned
                                   (0 at the end: fr_cli_tids_matched) */
    const char   *binary;       /* --binary, or NULL */
    void         *spool;        /* "-": standard input copied to an unlinked temporary file,
                                   mapped here (both readers read these bytes) */
    size_t        spool_size;
    /* progress display */
    bool          progress;
    uint64_t      progress_next_ns;
    unsigned      progress_tick;
} fr_cli_trace;

/* Opens PATH ("-": standard input, which is first copied to an unlinked temporary file
 * so that the metadata block can be read ahead and names are kept; the copy is bounded:
 * docs/CLI.md), reads the metadata (first block), loads symbols from BINARY, or else from
 * the executable recorded in the trace if it exists (silently skipped if it does not).
 * Returns FR_EXIT_OK, or prints a message and returns FR_EXIT_BAD_INPUT. */
int  fr_cli_open(fr_cli_trace *t, const char *command, const char *path, const char *binary);
/* The same, for a command that shows no time relative to the origin (account, stack,
 * graph: durations only): a file without a clock event is then not read a first time to
 * find its earliest timestamp, and start_tsc is its first thread block's. */
int  fr_cli_open_durations(fr_cli_trace *t, const char *command, const char *path,
                           const char *binary);
/* Next record (FR_READ_OK / FR_READ_EOF / FR_READ_ERROR: message already printed).
 * A cut trace (fr_reader_truncation) ends with FR_READ_EOF after a warning on stderr,
 * "flightrec CMD: warning: FILE: offset N: the file ends inside ...": not an error, the
 * exit status stays 0 (docs/READER.md). */
int  fr_cli_next(fr_cli_trace *t, fr_record *rec);
/* Batch of plain function records (see fr_reader_next_functions), counted and shown in
 * the progress line as fr_cli_next would. 0: call fr_cli_next for the next record. */
size_t fr_cli_next_functions(fr_cli_trace *t, fr_function_record *out, size_t max, int32_t *tid);
/* The same as raw bytes (fr_reader_function_bytes, fr_reader_take_functions), taken
 * records counted and shown in the progress line. Always 0 with --tid (only_tids): the
 * other threads' records are skipped by fr_cli_next_functions and fr_cli_next. */
size_t fr_cli_function_bytes(fr_cli_trace *t, const uint8_t **at, int32_t *tid, uint64_t *tsc);
void fr_cli_take_functions(fr_cli_trace *t, size_t n, uint64_t tsc);
/* --tid: adds "1234" or "12,34" (the option may be repeated) to tids. Returns 0, or
 * FR_EXIT_USAGE after a message. Copied into fr_cli_trace.only_tids after fr_cli_open,
 * fr_cli_next and fr_cli_next_functions skip the other threads' records (the metadata
 * block's, thread 0, are kept). */
int  fr_cli_parse_tids(const char *command, const char *arg, fr_cli_tids *tids);
bool fr_cli_tid_selected(const fr_cli_trace *t, int32_t tid);
/* Whether tid is one of tids (an empty list selects every thread). */
bool fr_cli_tids_has(const fr_cli_tids *tids, int32_t tid);
/* docs/CLI.md: a filter that selects nothing is more often a typo than a result. With
 * --tid (tids->n) and no record of those threads in the traces read (matched: the sum of
 * their tid_records), prints "flightrec COMMAND: warning: no record matched --tid 12,34"
 * and returns FR_EXIT_BAD_INPUT; else 0. */
int  fr_cli_tids_matched(const char *command, const fr_cli_tids *tids, uint64_t matched);

/* Records traces lost before they were written (a flight recorder keeps part of the
 * history): an analysis's figures then cover part of the run, which a table alone does
 * not show. fr_cli_losses_add, after a trace was read to its end (its metadata complete),
 * adds its summary's count and causes, or with --tid (t->only_tids) the selected threads'
 * own (THREAD_STATS). fr_cli_losses_note prints, when something was lost, one line
 * "flightrec COMMAND: note: the trace lost N records before it was written (CAUSE: N,
 * ...); these figures cover what it kept" (exit status unchanged). */
typedef struct fr_cli_losses {
    uint64_t records;
    uint64_t by_cause[FR_DROP_NCAUSES];
    bool     of_selected;               /* --tid: records counts those threads only */
} fr_cli_losses;
void fr_cli_losses_add(fr_cli_losses *l, const fr_cli_trace *t);
void fr_cli_losses_note(const fr_cli_losses *l, const char *command);

/* Every thread --tid asked for (all its occurrences), "12,34", into buf. */
#define FR_CLI_TIDS_LIST_MAX (FR_CLI_MAX_TIDS * 12)
void fr_cli_tids_list(const fr_cli_tids *tids, char buf[FR_CLI_TIDS_LIST_MAX]);
/* Closes; returns FR_EXIT_BAD_INPUT if a read error happened, else FR_EXIT_OK. */
int  fr_cli_close(fr_cli_trace *t);
/* Function name: trace table, then symbols, then "#ID". Lives as long as the trace. */
const char *fr_cli_name(fr_cli_trace *t, uint32_t function_id);

/* ------------------------------------------------------------------ time
 * Exact: integer arithmetic on 128 bits, one rounding (to nearest, halves away from 0). */
/* ticks -> nanoseconds */
int64_t fr_cli_ticks_to_ns(int64_t ticks, uint64_t ticks_per_second);
/* Formats ticks as a time in seconds * 10^-unit_exp (9: ns, 6: us, 3: ms, 0: s) with
 * `decimals` fractional digits: fr_cli_format_ticks(b, n, 1234567, 1000000000, 6, 3)
 * gives "1234.567". Without a known frequency, prints the ticks themselves. */
char *fr_cli_format_ticks(char *buf, size_t size, int64_t ticks, uint64_t ticks_per_second,
                          int unit_exp, int decimals);
/* Ticks since the trace's time origin (may be negative). */
static inline int64_t fr_cli_rel(const fr_cli_trace *t, uint64_t tsc)
{
    return (int64_t)(tsc - t->start_tsc);
}
/* Parses a duration "250", "1.5ms", "20us", "100ns", "2s" (no unit: microseconds) into
 * ticks. Returns 0, or -1 if malformed. */
int  fr_cli_parse_duration(const char *s, uint64_t ticks_per_second, int64_t *ticks);

/* ------------------------------------------------------------------ options and messages */
/* "flightrec COMMAND: message" + "Try 'flightrec COMMAND --help'." Returns FR_EXIT_USAGE. */
int  fr_cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "flightrec COMMAND: message". Returns FR_EXIT_BAD_INPUT. */
int  fr_cli_input_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------ outputs
 * -o FILE: stdout when path is NULL or "-". Returns NULL after printing why (the caller
 * exits FR_EXIT_BAD_INPUT: a file we cannot write is an environment problem, not usage). */
FILE *fr_cli_open_output(const char *command, const char *path);
/* 0 when -o PATH may be written, else FR_EXIT_BAD_INPUT after saying why: PATH is (by any
 * name) a file this run has read (fr_cli_note_input). fr_cli_open_output checks it; a
 * command that opens its output itself calls it first. */
int  fr_cli_check_output(const char *command, const char *path);
/* Several trace files of one run: 0, or FR_EXIT_USAGE after saying which is given twice
 * (by its name or another name of the same file): its records would count twice. */
int  fr_cli_check_distinct(const char *command, const char *const *paths, size_t n);
/* Adds PATH to the files -o must not name (fr_cli_open does it for each trace). */
void fr_cli_note_input(const char *path);
/* Closes out (unless stdout); returns 0, or FR_EXIT_BAD_INPUT after a write error. */
int  fr_cli_close_output(const char *command, const char *path, FILE *out);
/* A JSON string literal, escaped (controls as \u00XX). */
void fr_cli_json_string(FILE *out, const char *s);

/* --demangle=MODE (account, stack, graph, replay, dump, convert): how C++ names are
 * shown in every trace opened afterwards (fr_symbols_set_demangle): full (the default:
 * demangled), simple (demangled without template arguments and parameter lists, as
 * uftrace's default) or no (as linked). Returns 0, or prints why and returns -1. */
int  fr_cli_parse_demangle(const char *command, const char *mode);
/* --color[=WHEN]: WHEN is auto (default when the option has no value), always or never.
 * Returns 0 and sets *mode, or prints why and returns -1. */
enum { FR_COLOR_NEVER, FR_COLOR_AUTO, FR_COLOR_ALWAYS };
int  fr_cli_parse_color(const char *command, const char *when, int *mode);
/* Whether to colour what goes to out: always; never; auto = out is a terminal, TERM is
 * not "dumb" and NO_COLOR is unset (https://no-color.org). */
bool fr_cli_use_color(int mode, FILE *out);
/* 0, or the usage error (exit 2) for --color=always with a format other than text, the
 * only one with colour: there the option would do nothing (auto and never are taken). */
int  fr_cli_check_color_format(const char *command, int mode, const char *format);
/* SGR sequences (empty strings when colour is off). */
typedef struct fr_cli_colors {
    const char *bold, *green, *blue, *yellow, *magenta, *dim, *reset;
} fr_cli_colors;
fr_cli_colors fr_cli_colors_for(bool on);

#endif
