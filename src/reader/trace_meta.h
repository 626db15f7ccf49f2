/*
 * trace_meta.h - flightrec's own metadata (FR_TE_* typed events) gathered from a trace:
 * clock, process, summary, per-thread drop counts, object and function tables.
 * Feed every record to fr_trace_meta_feed; it ignores what is not metadata.
 * Memory grows with the number of functions and threads, never with records.
 */
#ifndef FLIGHTREC_TRACE_META_H
#define FLIGHTREC_TRACE_META_H

#include <stdint.h>
#include <stdbool.h>
#include "fr_reader.h"

typedef struct fr_meta_thread {
    int32_t  tid;
    uint64_t records_written;
    uint64_t records_dropped;
    uint64_t bytes_dropped;
    uint64_t calls_below_threshold;
    char     name[32];
} fr_meta_thread;

typedef struct fr_meta_object {
    uint32_t index, first_id, last_id;
    uint64_t load_bias;
    char    *path;
    uint8_t  build_id[FR_BUILD_ID_MAX];   /* FR_TE_BUILD_ID: its GNU build-id, */
    uint8_t  build_id_size;               /* 0 if the trace has none for it */
} fr_meta_object;

/* A build-id as lower-case hex ("9ca2fd03..."), as `file` and debuginfod spell it. */
#define FR_BUILD_ID_HEX_SIZE (2 * FR_BUILD_ID_MAX + 1)
void fr_build_id_hex(const uint8_t *id, size_t size, char out[FR_BUILD_ID_HEX_SIZE]);

typedef struct fr_meta_function {
    uint32_t id, object;
    uint64_t address;
    char    *name;            /* may be "" */
} fr_meta_function;

typedef struct fr_trace_meta {
    bool     has_clock;
    uint32_t clock_source;
    uint64_t ticks_per_second, base_tsc;
    int64_t  base_realtime_ns, base_monotonic_ns;

    bool     has_process;
    uint32_t pid, ppid;
    char    *process_name, *executable, *command_line; /* command_line: args joined by spaces */

    bool     has_summary;
    uint32_t policy, buffers, threads;
    uint64_t buffer_size, records_written, records_dropped, calls_below_threshold, threshold_ticks;

    fr_meta_thread   *thread_stats;  size_t n_thread_stats;
    fr_meta_object   *objects;       size_t n_objects;
    fr_meta_function *functions;     size_t n_functions; /* sorted by id after fr_trace_meta_finish */
    uint64_t lost_markers;           /* FR_TE_LOST records seen */

    bool     has_drops;              /* FR_TE_DROPS of the session (tid 0) */
    uint64_t drops[FR_DROP_NCAUSES]; /* records dropped by cause (enum fr_drop_cause) */

    bool     has_dump_cause;         /* FR_TE_DUMP_CAUSE: written from a signal / snapshot */
    uint32_t dump_cause, dump_seq;   /* FR_DUMP_*; snapshot number */
    int32_t  dump_signal, dump_code, dump_tid;
    uint64_t dump_address, dump_inconsistent;
} fr_trace_meta;

void fr_trace_meta_init(fr_trace_meta *m);
/* Returns true if the record was one of ours (and was consumed). */
bool fr_trace_meta_feed(fr_trace_meta *m, const fr_record *rec);
void fr_trace_meta_finish(fr_trace_meta *m);
const fr_meta_function *fr_trace_meta_function(const fr_trace_meta *m, uint32_t id);
void fr_trace_meta_free(fr_trace_meta *m);

#endif
