/*
 * analysis_cli.h - what `flightrec account`, `stack` and `graph` share: one streaming pass
 * over a trace (through cli_common) into an fr_analysis (src/analysis/analysis.h), the
 * presentation of times (units chosen for reading, exact decimal conversion) and of the
 * unmatched-record counts, and output files.
 */
#ifndef FLIGHTREC_ANALYSIS_CLI_H
#define FLIGHTREC_ANALYSIS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis.h"
#include "cli_common.h"

/* One trace of several analysed with thread roots: the names of its root frames. */
typedef struct fr_acli_process {
    char           *frame;          /* "[process PID NAME]" (fr_acli_process_frame) */
    fr_meta_thread *threads;        /* its file's threads, for their names */
    size_t          n_threads;
} fr_acli_process;

typedef struct fr_acli {
    fr_cli_trace  trace;            /* path, names, clock */
    fr_analysis  *analysis;
    uint64_t      ticks_per_second; /* the trace's, or 10^9 (with a warning) if unknown */
    bool          verbose;          /* -v: the summary line even when all calls matched
                                       (set after fr_acli_run) */
    /* Several traces with thread roots: stacks start with their process's node
     * (FR_STACK_PROCESS | index of the file), and each file's threads are named from
     * its own metadata. */
    fr_acli_process *procs;
    size_t        n_procs;
    fr_cli_losses lost;             /* what the traces lost before they were written */
} fr_acli;

/* Reads the trace at path into a new analysis of the given kinds (FR_ANALYZE_*), with
 * names from the trace and from binary (NULL: the executable the trace names, if it can
 * be read). Returns 0, or an exit code (FR_EXIT_BAD_INPUT) after printing why; in both
 * cases fr_acli_done must follow. */
int  fr_acli_run(fr_acli *c, const char *command, const char *path, const char *binary,
                 unsigned what);
/* Same, with options of the analysis. */
typedef struct fr_acli_opts {
    size_t max_stacks;      /* FR_ANALYZE_STACKS: fr_stack_agg_set_limit (0: no limit) */
    size_t bound_stacks;    /* FR_ANALYZE_STACKS: fr_stack_agg_set_bound instead (0: none) */
    fr_stack_figure bound_figure;   /* and the figure it bounds (what the stacks are ranked by) */
    uint32_t max_depth;     /* FR_ANALYZE_STACKS: fr_stack_agg_set_max_depth (0: no limit) */
    bool thread_roots;      /* FR_ANALYZE_STACKS: fr_stack_agg_set_thread_roots */
    fr_cli_tids tids;       /* --tid: only these threads (none: all) */
    bool exclude_off_cpu;   /* --exclude-off-cpu: a thread's time off the CPU (FR_TE_SCHED
                               records, `record --sched`) is no call's time */
    struct fr_stack_spill *spill;   /* FR_ANALYZE_STACKS: fr_stack_spill_attach (NULL: none) */
} fr_acli_opts;
/* The nodes of a calling-context tree before it is spilled (stack_spill.h): 2^19, 16 MiB
 * of nodes and as much of hash slots; FLIGHTREC_STACKS_IN_MEMORY=N (at least 16) sets
 * another number, for the tests of spilling on small traces. */
#define FR_ACLI_STACKS_IN_MEMORY ((size_t)1 << 19)
size_t fr_acli_stacks_in_memory(void);
int  fr_acli_run_opts(fr_acli *c, const char *command, const char *path, const char *binary,
                      unsigned what, const fr_acli_opts *opts);
/* Several traces of one program (a process and its forked children, `flightrec record`'s
 * FILE and FILE.PID): their threads in one analysis, function names from the first (one
 * executable). With opts->thread_roots and stacks, each stack starts with its file's
 * process node (as `convert -f folded` of several files), its thread named from that
 * file (fr_acli_root_frame); without, the same stacks of the files add up. Refused (exit
 * 1, with a message) when they record different executables or clock rates. */
int  fr_acli_run_files(fr_acli *c, const char *command, const char *const *paths, size_t n_paths,
                       const char *binary, unsigned what, const fr_acli_opts *opts);
/* Frees it all; returns fr_cli_close's status (FR_EXIT_BAD_INPUT after a warning about
 * --binary, cli_common.h), else 0. */
int  fr_acli_done(fr_acli *c);

const char *fr_acli_name(fr_acli *c, uint32_t function_id);
/* "file:line" where the function starts (DWARF line table of the binary), in buf, or
 * NULL when unknown (no binary, no debug information). */
const char *fr_acli_location(fr_acli *c, uint32_t function_id, char *buf, size_t n);
/* "230 ns", "1.23 us", "45.6 ms", "12.3 s": three significant digits. */
void fr_acli_format_duration(const fr_acli *c, uint64_t ticks, char *buf, size_t n);
/* Nanoseconds with 3 decimals, exact ("1234.567"), for CSV and JSON. */
const char *fr_acli_ns(const fr_acli *c, uint64_t ticks, char *buf, size_t n);
/* One stderr line: calls, threads and every kind of unmatched record; printed when
 * something was unmatched or c->verbose. Then, when the traces lost records, a note
 * with the count and its causes: the figures cover part of the run. */
void fr_acli_report_unmatched(const fr_acli *c);
/* Writes the trace and the unmatched counts as JSON object members (no braces). */
void fr_acli_json_header(const fr_acli *c, FILE *out);
void fr_acli_json_string(FILE *out, const char *s);

/* The frame naming a thread's root node (--thread-root): "[thread 1234 worker-a]" with
 * the thread's name from the trace, else "[thread 1234]". */
const char *fr_acli_thread_frame(const fr_trace_meta *m, int32_t tid, char *buf, size_t n);
/* A process's root frame: "[process PID NAME]" from the trace's process event, else
 * "[trace PATH]" (compiler-rt's files do not say which process wrote them). */
const char *fr_acli_process_frame(const fr_trace_meta *m, const char *path, char *buf, size_t n);
/* The name of a stack's process or thread root node (function_id), the thread's from the
 * file of the process node above it (process: the index in its function_id; -1 when the
 * stack has no process node: one file, names from c->trace). */
const char *fr_acli_root_frame(const fr_acli *c, int64_t process, uint32_t function_id,
                               char *buf, size_t n);
/* -o FILE: stdout when path is NULL or "-". Returns NULL after printing why. */
FILE *fr_acli_open_output(const char *command, const char *path);
/* Closes out (unless stdout); returns 0, or FR_EXIT_BAD_INPUT after a write error. */
int fr_acli_close_output(const char *command, const char *path, FILE *out);
/* Parses a non-negative decimal count for an option; prints why and returns -1 if bad. */
/* --max-depth's default for stack, folded and svg: deeper frames are counted in a
 * "[deeper]" frame. A stack overflow's trace (65,536 levels of one recursion) would
 * otherwise print one stack a level, each a level longer: 15 GB of `stack` text and
 * 10 GB of folded lines from a 2 MB trace. perf keeps 127 frames, uftrace 1024. */
#define FR_ACLI_DEFAULT_MAX_DEPTH 1024
/* Parses --max-depth's value (a count of at least 1, at most 2^32 - 1) into *out; 0,
 * or -1 after a message (bad usage), as fr_acli_parse_count. */
int fr_acli_parse_max_depth(const char *command, const char *arg, uint32_t *out);
/* The note on stderr that `deeper` calls were counted in "[deeper]" frames (0: none). */
void fr_acli_report_deeper(uint64_t deeper, const char *command, uint32_t max_depth);
int fr_acli_parse_count(const char *command, const char *option, const char *arg, uint64_t *out);

#endif
