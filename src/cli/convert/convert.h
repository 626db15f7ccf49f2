/*
 * convert.h - `flightrec convert`: one trace in, one file in another format out.
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
    FILE *out;
    const char *out_path;
    enum cv_weight weight;    /* folded, svg */
    bool ids_only;            /* yaml: print function ids, not names */
    const char *title;        /* svg */
    size_t max_stacks;        /* folded, svg: fr_stack_agg_set_limit (0: no limit) */
} cv_job;

/* Each returns a process exit code (FR_EXIT_*), having reported any error on stderr. */
int cv_convert_chrome(cv_job *job);
int cv_convert_folded(cv_job *job);
int cv_convert_svg(cv_job *job);
int cv_convert_yaml(cv_job *job);
int cv_convert_perfetto(cv_job *job);

/* ------------------------------------------------------------------ stacks (folded, svg)
 * One pass through the call tracker into the calling-context tree (stack_aggregate.h).
 * Memory: the tree (about 40 bytes per distinct stack, bounded by --max-stacks), never
 * per record. A node's weight is what the user asked for: self time in ns, or calls. */
struct fr_stack_agg;
typedef struct cv_stacks {
    struct fr_analysis *analysis;
    const struct fr_stack_agg *agg;
    size_t n;                 /* nodes */
} cv_stacks;

/* Returns FR_EXIT_OK, or FR_EXIT_BAD_INPUT after a read error (the stacks read before it
 * are kept, so the caller can still write them). */
int  cv_stacks_build(cv_job *job, cv_stacks *st);
void cv_stacks_free(cv_stacks *st);
uint64_t cv_stack_weight(const cv_job *job, const cv_stacks *st, uint32_t node);
/* Reports unmatched records on stderr, if any. */
void cv_report_unmatched(const fr_call_tracker_stats *s);

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
} cv_out;

void cv_out_init(cv_out *o, FILE *file);
/* Hands everything buffered to stdio (before writing to o->file directly). */
void cv_out_flush(cv_out *o);
/* Flushes, frees the buffer; returns 0, or -1 if any write failed. */
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
void cv_i64(cv_out *o, int64_t v);
/* A JSON string, quotes included; bytes that are not valid UTF-8 become U+FFFD. */
void cv_json_string(cv_out *o, const char *s, size_t n);
/* Lowercase hex of n bytes, no separators. */
void cv_hex(cv_out *o, const uint8_t *p, size_t n);

/* Signed nanoseconds as microseconds with exactly three decimals ("12.345", "-0.002"). */
void cv_usec3(cv_out *o, int64_t ns);
/* Nanoseconds since the trace's time origin (recording start; without a clock event the
 * first thread block), exact: integer arithmetic, one rounding (cli_common.h). */
/* fr_cli_ticks_to_ns's value (round half away from zero) with two 64-bit divisions
 * instead of a 128-bit one: ticks = q * tps + r, and (n + tps/2) / tps distributes over
 * the q * tps * 10^9 part. r * 10^9 + tps/2 fits in 64 bits while tps < 1.8e10 (every
 * real clock); above that, the exact 128-bit path. */
static inline int64_t cv_ticks_to_ns(int64_t ticks, uint64_t tps)
{
    if (tps - 1 >= 18000000000ull)        /* 0 or huge */
        return fr_cli_ticks_to_ns(ticks, tps);
    if (tps == 1000000000u)
        return ticks;
    uint64_t a = ticks < 0 ? (uint64_t)0 - (uint64_t)ticks : (uint64_t)ticks;
    uint64_t q = a / tps, r = a % tps;
    uint64_t ns = q * 1000000000u + (r * 1000000000u + tps / 2) / tps;
    return (int64_t)(ticks < 0 ? 0 - ns : ns);   /* wraps as the 128-bit path does */
}
static inline int64_t cv_time_ns(const cv_job *job, uint64_t tsc)
{
    return cv_ticks_to_ns(fr_cli_rel(job->trace, tsc), job->ticks_per_second);
}

/* ------------------------------------------------------------------ function names
 * Names looked up once per function id and kept in the form a format needs. */
typedef struct cv_names {
    char **by_id;      /* formatted name per id, NULL until first use */
    size_t n;
    fr_symbols *symbols;
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

#endif
