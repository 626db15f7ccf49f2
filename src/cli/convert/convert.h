/*
 * convert.h - `flightrec convert`: one trace (or several: perfetto, chrome, folded, svg)
 * in, one file in another format out.
 * cmd_convert.c parses the options and opens the trace; each format has its own file
 * (convert_chrome.c, convert_folded.c, convert_svg.c, convert_yaml.c, convert_perfetto.c) that streams the
 * records once and writes as it reads. convert_out.c holds the buffered writer they share.
 */
#ifndef FLIGHTREC_CLI_CONVERT_H
#define FLIGHTREC_CLI_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "call_tracker.h"
#include "cli_common.h"
#include "fr_reader.h"
#include "symbols.h"
#include "trace_meta.h"

enum cv_weight { CV_WEIGHT_TIME, CV_WEIGHT_CALLS };

typedef struct cv_clock {
    uint64_t tps;
    uint64_t magic;          /* floor(2^64 (2^l - tps) / tps) + 1, l = ceil(log2 tps) */
    unsigned sh1, sh2;       /* min(l, 1), max(l - 1, 0) */
    int      fast;
} cv_clock;

/* What a converter gets: the open trace (cli_common.h: reader positioned at the first
 * record, metadata of the trace's metadata block, symbols, clock) and the options. */
typedef struct cv_job {
    fr_cli_trace *trace;
    const char *in_path;
    const fr_trace_info *info;
    fr_trace_meta *meta;
    fr_symbols *symbols;
    bool have_names;          /* a name source exists (trace table or binary) */
    uint64_t ticks_per_second; /* clock used for times (CLOCK event, else header) */
    cv_clock clock;           /* the same, prepared for cv_time_ns */
    FILE *out;
    const char *out_path;
    enum cv_weight weight;    /* folded, svg */
    bool ids_only;            /* yaml: print function ids, not names */
    const char *title;        /* svg */
    size_t max_stacks;        /* folded, svg: fr_stack_agg_set_limit (0: no limit) */
    uint32_t max_depth;       /* folded, svg: fr_stack_agg_set_max_depth (0: no limit) */
    bool thread_roots;        /* folded, svg: one tree per thread (--thread-root) */
    /* folded, svg of several traces: cv_stacks_build opens each in turn (cv_open_input),
     * and the output is opened after they were read (cv_open_output) */
    const char *const *inputs;
    size_t n_inputs;
    const char *binary;       /* --binary */
    fr_cli_tids tids;         /* --tid, in every input */
    uint64_t tid_records;     /* records of those threads in the inputs closed so far */
} cv_job;

/* Opens the trace at path into *trace and job (names, clock, --tid). Returns 0, or an
 * exit code after a message. */
int cv_open_input(cv_job *job, fr_cli_trace *trace, const char *path);
/* Closes an input that was read, counting its --tid records in job->tid_records; returns
 * fr_cli_close's code. */
int cv_close_input(cv_job *job, fr_cli_trace *trace);
/* Opens job->out_path into job->out unless it is open (cv_fopen_output). Returns 0 or
 * an exit code after a message. */
int cv_open_output(cv_job *job);
/* fopen(path, "wb") without truncating an existing file first: its bytes are written
 * over in place, and cv_fclose_output cuts it where the writing ended. Converting again
 * over an earlier output (a user's second run, the benchmarks) then writes into the
 * file's cached pages, where truncating freed them and writing took new ones: about a
 * sixth of `convert --format perfetto`'s CPU time. The result is the same file. */
FILE *cv_fopen_output(const char *path);
/* fclose of a cv_fopen_output file: a regular file is first cut at the end of what was
 * written. Returns 0, or EOF with errno set. */
int cv_fclose_output(FILE *f);

/* Each returns a process exit code (FR_EXIT_*), having reported any error on stderr. */
int cv_convert_chrome(cv_job *job);
int cv_convert_folded(cv_job *job);
int cv_convert_svg(cv_job *job);
int cv_convert_yaml(cv_job *job);
int cv_convert_perfetto(cv_job *job);
/* Several inputs into one Perfetto file (convert_perfetto.c): each input has packet
 * sequences of its own (one for its descriptors and events, one per thread for its
 * slices), every timestamp on CLOCK_MONOTONIC (the inputs must have our clock event),
 * each process its own track. */
typedef struct cv_perfetto cv_perfetto;
cv_perfetto *cv_perfetto_begin(FILE *out);
int cv_perfetto_add(cv_perfetto *p, cv_job *job);
int cv_perfetto_end(cv_perfetto *p, const char *out_path);
/* Several inputs into one Chrome JSON file (convert_chrome.c): each input's processes
 * under their real pids, every timestamp CLOCK_MONOTONIC microseconds (the inputs must
 * have our clock event, see cv_monotonic_origin). */
typedef struct cv_chrome cv_chrome;
cv_chrome *cv_chrome_begin(FILE *out, bool monotonic);
int cv_chrome_add(cv_chrome *c, cv_job *job);
int cv_chrome_end(cv_chrome *c, const char *out_path);

/* ------------------------------------------------------------------ perf.data inputs
 * A perf.data file among the inputs of perfetto or chrome (convert_perf.c): its
 * tracepoint samples on the same timeline as the traces, as their structured events are
 * shown (EventHeader user_events as instants or activity slices, other tracepoints as
 * instants with their fields). It must have been recorded with `perf record -k
 * monotonic` (its times are then CLOCK_MONOTONIC, the clock the traces' clock events
 * anchor them to); cv_perf_open refuses it otherwise. */
#include "eventheader_decode.h"
typedef struct cv_perf_input cv_perf_input;
typedef struct cv_perf_event {
    int32_t  pid, tid;          /* -1 when the sample has none */
    uint64_t ns;                /* CLOCK_MONOTONIC */
    bool     eventheader;       /* ev is decoded; else name and category say what it is */
    fr_eh_event ev;
    const char *name, *category;
    const char *fields;         /* JSON members ("a": 1, "b": "x"), NULL: undecodable */
    size_t   fields_len;
    char     err[256];          /* why, when fields is NULL */
} cv_perf_event;
/* True when path is a regular file starting with perf.data's magic. */
bool cv_is_perf_data(const char *path);
/* Opens path and checks its clock. Only the samples of threads in tids are given (none:
 * all; tids must outlive the input). Returns 0, or an exit code after a message. */
int  cv_perf_open(const char *path, const fr_cli_tids *tids, cv_perf_input **in);
/* The next sample: 1, 0 at the end, -1 after a message (a damaged or cut file). The
 * event's pointers hold until the next call. */
int  cv_perf_next(cv_perf_input *in, cv_perf_event *e);
/* Samples given so far (of the threads selected): for --tid's "no such thread" check. */
uint64_t cv_perf_given(const cv_perf_input *in);
const char *cv_perf_path(const cv_perf_input *in);
/* The reader's note once the input was read (fr_perf_note: perf's re-read copies left
 * out), NULL if none. */
const char *cv_perf_note(cv_perf_input *in);
void cv_perf_close(cv_perf_input *in);
int  cv_chrome_add_perf(cv_chrome *c, cv_perf_input *in);
int  cv_perfetto_add_perf(cv_perfetto *p, cv_perf_input *in);

/* Reads the next record, every one including flightrec's metadata records (errors are
 * reported by cli_common). Returns FR_READ_OK, FR_READ_EOF or FR_READ_ERROR. */
static inline int cv_next(cv_job *job, fr_record *rec) { return fr_cli_next(job->trace, rec); }

/* ------------------------------------------------------------------ buffered output
 * The converters write millions of small pieces: they go into one large buffer, and
 * only full buffers reach stdio. Numbers are formatted by hand (no printf per field). */
typedef struct cv_out {
    FILE *file;
    char *buf;
    size_t len, cap;
    bool failed;
    int  err;          /* errno of the first failed write (ENOMEM: no buffer) */
} cv_out;

void cv_out_init(cv_out *o, FILE *file);
/* Hands everything buffered to stdio (before writing to o->file directly). */
void cv_out_flush(cv_out *o);
/* Flushes, frees the buffer; returns 0, or -errno of the first write that failed. */
int  cv_out_finish(cv_out *o);
void cv_out_grow(cv_out *o, size_t need);

static inline void cv_put(cv_out *o, const char *s, size_t n)
{
    if (o->cap - o->len < n)
        cv_out_grow(o, n);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}
static inline void cv_puts(cv_out *o, const char *s) { cv_put(o, s, strlen(s)); }
static inline void cv_putc(cv_out *o, char c)
{
    if (o->len == o->cap)
        cv_out_grow(o, 1);
    o->buf[o->len++] = c;
}
#define CV_LIT(o, lit) cv_put((o), (lit), sizeof(lit) - 1)

void cv_u64(cv_out *o, uint64_t v);
/* v right-aligned in `width` characters, pad ('0' or ' ') before it. */
void cv_u64_pad(cv_out *o, uint64_t v, unsigned width, char pad);
void cv_i64(cv_out *o, int64_t v);
/* A JSON string, quotes included; bytes that are not valid UTF-8 become U+FFFD. */
void cv_json_string(cv_out *o, const char *s, size_t n);
/* Lowercase hex of n bytes, no separators. */
void cv_hex(cv_out *o, const uint8_t *p, size_t n);

/* Signed nanoseconds as microseconds with exactly three decimals ("12.345", "-0.002"). */
void cv_usec3(cv_out *o, int64_t ns);
/* Nanoseconds since the trace's time origin (recording start; without a clock event the
 * first thread block), exact: integer arithmetic, one rounding (cli_common.h). */
/* Exact tick -> nanosecond conversion without a division instruction: fr_cli_ticks_to_ns's
 * value (round half away from zero) from ticks = q * tps + r, ns = q * 10^9 +
 * (r * 10^9 + tps/2) / tps (the q * tps * 10^9 part divides exactly). Both divisions by
 * tps are a multiply-high and shifts (Granlund and Montgomery, "Division by invariant
 * integers using multiplication", 1994, figure 4.1: exact for every 64-bit numerator).
 * r * 10^9 + tps/2 fits in 64 bits while tps < 1.8e10 (every real clock); otherwise, or
 * for tps 0, the 128-bit path. */
static inline void cv_clock_init(cv_clock *c, uint64_t tps)
{
    c->tps = tps;
    c->fast = tps >= 1 && tps < 18000000000ull;
    if (!c->fast)
        return;
    unsigned l = tps == 1 ? 0 : 64 - (unsigned)__builtin_clzll(tps - 1);
    unsigned __int128 two_l = (unsigned __int128)1 << l;
    c->magic = (uint64_t)((((unsigned __int128)1 << 64) * (two_l - tps)) / tps) + 1;
    c->sh1 = l < 1 ? l : 1;
    c->sh2 = l > 1 ? l - 1 : 0;
}

static inline uint64_t cv_clock_div(const cv_clock *c, uint64_t n)
{
    uint64_t t1 = (uint64_t)(((unsigned __int128)c->magic * n) >> 64);
    return (t1 + ((n - t1) >> c->sh1)) >> c->sh2;
}

static inline int64_t cv_clock_ns(const cv_clock *c, int64_t ticks)
{
    if (!c->fast)
        return fr_cli_ticks_to_ns(ticks, c->tps);
    uint64_t a = ticks < 0 ? (uint64_t)0 - (uint64_t)ticks : (uint64_t)ticks;
    uint64_t q = cv_clock_div(c, a), r = a - q * c->tps;
    uint64_t ns = q * 1000000000u + cv_clock_div(c, r * 1000000000u + c->tps / 2);
    return (int64_t)(ticks < 0 ? 0 - ns : ns);   /* wraps as the 128-bit path does */
}

/* The same for a clock not prepared (one conversion). */
static inline int64_t cv_ticks_to_ns(int64_t ticks, uint64_t tps)
{
    cv_clock c;
    cv_clock_init(&c, tps);
    return cv_clock_ns(&c, ticks);
}
static inline int64_t cv_time_ns(const cv_job *job, uint64_t tsc)
{
    return cv_clock_ns(&job->clock, fr_cli_rel(job->trace, tsc));
}

/* The CLOCK_MONOTONIC reading (ns) at the trace's time origin, from our clock event, so
 * that cv_time_ns + *origin_ns places a record on the host's monotonic clock, where the
 * traces of several processes line up (merging, chrome and perfetto). False when the
 * trace has no such anchor (compiler-rt's files, or a clock event without a monotonic
 * reading): its times are only relative to its own origin. */
static inline bool cv_monotonic_origin(const cv_job *job, int64_t *origin_ns)
{
    const fr_trace_meta *m = job->meta;
    const fr_cli_trace *tr = job->trace;
    if (!m->has_clock || !tr->has_start || tr->start_tsc != m->base_tsc || m->base_monotonic_ns < 0)
        return false;
    *origin_ns = m->base_monotonic_ns;
    return true;
}

/* ------------------------------------------------------------------ function names
 * Names looked up once per function id and kept in the form a format needs. Ids are
 * dense from 1 in a real trace; a table indexed by id covers ids below CV_IDS_CACHED
 * only, so that a damaged record's id (up to 2^28 - 1) cannot make it gigabytes:
 * beyond, the names cache keeps a hash map, other per-id tables compute the value
 * again at each use. */
#define CV_IDS_CACHED (1u << 20)
typedef struct cv_names {
    char **by_id;      /* formatted name per id, NULL until first use */
    size_t n;
    char **big;        /* ids beyond the direct table: their names, in first-use order */
    size_t n_big, cap_big;
    void *big_index;   /* id -> index into big (an fr_u64_map), NULL until first use */
    fr_symbols *symbols;   /* NULL once the trace is closed: "#ID" for ids never looked up */
    char *(*format)(const char *name, void *ctx);  /* returns a malloc'd string */
    void *ctx;
} cv_names;

void cv_names_init(cv_names *c, fr_symbols *symbols, char *(*format)(const char *, void *), void *ctx);
const char *cv_names_get_slow(cv_names *c, uint32_t id);
static inline const char *cv_names_get(cv_names *c, uint32_t id)
{
    if (id < c->n && c->by_id[id])
        return c->by_id[id];
    return cv_names_get_slow(c, id);
}
void cv_names_free(cv_names *c);

/* ------------------------------------------------------------------ stacks (folded, svg)
 * One pass through the call tracker into the calling-context tree (stack_aggregate.h).
 * Memory: the tree (about 40 bytes per distinct stack), never per record; bounded by
 * --max-stacks (stacks merged into [other]), else spilled to temporary files when it
 * holds fr_acli_stacks_in_memory() nodes (cv_stacks.spill), with the same output. A node's weight is what the user asked for: self time in ns, or calls.
 * Several traces (job->n_inputs > 1) go into one tree, read one after the other, each
 * under its process's root node ("[process PID NAME]"); each one's function names, thread
 * names and clock are its own, taken while it is open, so only one trace is open at a
 * time and traces of different programs or clock rates merge too. */
struct fr_stack_agg;
typedef struct cv_thread_frame { int32_t tid; char *frame; } cv_thread_frame;
typedef struct cv_stack_process {
    uint32_t end;             /* its nodes are [previous process's end, end) */
    char *frame;              /* its root frame, formatted (several traces only) */
    cv_clock clock;           /* its trace's, for time weights */
    cv_names names;           /* its function names, formatted */
    cv_thread_frame *threads; /* --thread-root: its threads' frames, by tid */
    size_t n_threads;
} cv_stack_process;
struct fr_stack_spill;
typedef struct cv_stacks {
    struct fr_analysis *analysis;
    const struct fr_stack_agg *agg;
    size_t n;                 /* nodes (0 when spilled) */
    cv_stack_process *procs;  /* one per input */
    size_t n_procs;
    /* Not NULL: the trace had more distinct stacks than the tree holds
     * (fr_acli_stacks_in_memory): they are in the runs of a spill (stack_spill.h), the
     * tree is empty, and the writers take the stacks from fr_stack_spill_merge or
     * fr_stack_spill_by_creation. */
    struct fr_stack_spill *spill;
} cv_stacks;

/* Reads job's trace, or every input of job->inputs, into st. Names (functions, threads,
 * processes) are passed through format (folded and svg make them safe in their syntax).
 * Returns FR_EXIT_OK; FR_EXIT_BAD_INPUT after a read error (the stacks read before it
 * are kept, so the caller can still write them) or when an input cannot be opened (then
 * st is empty and nothing must be written); FR_EXIT_USAGE for an input given twice. */
int  cv_stacks_build(cv_job *job, cv_stacks *st, char *(*format)(const char *, void *));
/* folded's and svg's start: cv_stacks_build, then the output (cv_open_output). Returns 0
 * when the stacks are to be written, with *build_rc the build's status for the exit code;
 * otherwise the exit code, with st freed and nothing to write. */
int  cv_stacks_build_for_output(cv_job *job, cv_stacks *st,
                                char *(*format)(const char *, void *), int *build_rc);
void cv_stacks_free(cv_stacks *st);
uint64_t cv_stack_weight(const cv_job *job, const cv_stacks *st, uint32_t node);
/* A node's frame name: [other], [process ...], [thread ...], or its function's. */
const char *cv_stack_frame_name(cv_stacks *st, uint32_t node);
/* The same by the frame's function id, in the process whose stacks start with path[0]. */
const char *cv_stack_frame_name_of(cv_stacks *st, const uint32_t *path, uint32_t function_id);
/* A spilled stack's weight (cv_stack_weight's). */
uint64_t cv_spilled_weight(const cv_job *job, const cv_stacks *st, const uint32_t *path,
                           uint64_t calls, uint64_t self_ticks);
/* Reports unmatched records on stderr, if any. */
void cv_report_unmatched(const fr_call_tracker_stats *s);

#endif
