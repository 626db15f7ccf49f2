/*
 * cmd_info.c - `flightrec info FILE`: what a trace holds, in one streaming pass:
 * header, clock, process, the writer's summary and drop counters, per-thread record
 * counts and time spans, record counts per kind, and the duration.
 * Output is "key: value" lines (threads one per line), stable for scripts and tests.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "text_escape.h"
#include "signal_name.h"
#include "u64_map.h"
#include "cli_options.h"
#include "cli_start.h"

typedef struct thread_info {
    int32_t  tid, pid;
    uint64_t blocks, records, first_tsc, last_tsc;
    bool     timed, in_use;
    const fr_meta_thread *stats;   /* the writer's counts for this thread, if any */
} thread_info;

/* Threads: open addressing on (pid, tid); grows with threads, never with records. */
typedef struct thread_table {
    thread_info *slots;
    size_t cap, used;
} thread_table;

static size_t thread_hash(int32_t pid, int32_t tid, size_t cap)
{
    uint64_t k = ((uint64_t)(uint32_t)pid << 32) | (uint32_t)tid;
    return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static thread_info *thread_get(thread_table *t, int32_t pid, int32_t tid)
{
    if (t->used * 2 >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        thread_info *s = calloc(cap, sizeof *s);
        if (!s)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].in_use)
                continue;
            size_t h = thread_hash(t->slots[i].pid, t->slots[i].tid, cap);
            while (s[h].in_use)
                h = (h + 1) & (cap - 1);
            s[h] = t->slots[i];
        }
        free(t->slots);
        t->slots = s;
        t->cap = cap;
    }
    size_t h = thread_hash(pid, tid, t->cap);
    for (;;) {
        thread_info *e = &t->slots[h];
        if (!e->in_use) {
            e->in_use = true;
            e->tid = tid;
            e->pid = pid;
            t->used++;
            return e;
        }
        if (e->tid == tid && e->pid == pid)
            return e;
        h = (h + 1) & (t->cap - 1);
    }
}

static int by_pid_tid(const void *a, const void *b)
{
    const thread_info *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static const char *policy_name(uint32_t p)
{
    return p == FR_POLICY_OVERWRITE ? "overwrite" : p == FR_POLICY_DISCARD ? "discard" : "unknown";
}

/* FR_TE_DUMP_CAUSE: the file was written by a signal handler or a snapshot. */
static const char *dump_cause_name(uint32_t cause)
{
    return cause == FR_DUMP_FATAL_SIGNAL ? "fatal signal"
         : cause == FR_DUMP_TERMINATION_SIGNAL ? "termination signal"
         : cause == FR_DUMP_SNAPSHOT ? "snapshot"
         : cause == FR_DUMP_RECOVERED ? "recovered from a backing file" : "unknown cause";
}

static void print_dump_cause(FILE *out, const fr_trace_meta *m, bool json)
{
    char name[FR_SIGNAL_NAME_MAX];
    fr_signal_name(m->dump_signal, name);
    if (json) {
        fprintf(out, ",\n \"written_on\": {\"cause\": \"%s\", \"snapshot\": %u, \"signal\": %d, "
                     "\"signal_name\": \"%s\", \"code\": %d, \"address\": %" PRIu64
                     ", \"tid\": %d, \"not_captured\": %" PRIu64 "}",
                dump_cause_name(m->dump_cause), m->dump_seq, m->dump_signal,
                strcmp(name, "SIG?") ? name : "", m->dump_code, m->dump_address, m->dump_tid,
                m->dump_inconsistent);
        return;
    }
    fprintf(out, "written on: %s", dump_cause_name(m->dump_cause));
    if (m->dump_cause == FR_DUMP_SNAPSHOT)
        fprintf(out, " %u", m->dump_seq);
    if (m->dump_signal)
        fprintf(out, ", signal %d (%s), code %d", m->dump_signal, name, m->dump_code);
    if (m->dump_cause == FR_DUMP_FATAL_SIGNAL)
        fprintf(out, ", address 0x%" PRIx64, m->dump_address);
    if (m->dump_cause != FR_DUMP_RECOVERED)
        fprintf(out, ", thread %d", m->dump_tid);
    if (m->dump_cause == FR_DUMP_SNAPSHOT)
        fprintf(out, ", records not captured consistently %" PRIu64, m->dump_inconsistent);
    if (m->dump_cause == FR_DUMP_RECOVERED)
        fprintf(out, ", records not recovered %" PRIu64, m->dump_inconsistent);
    fputc('\n', out);
}

/* Our metadata records by type, named from fr_format.h's one table: "clock 1, function 3"
 * (text: quote "", sep " ") or "\"clock\": 1, ..." (JSON). */
static void print_meta_by_type(FILE *out, const uint64_t *by_type, const char *quote,
                               const char *sep)
{
    const char *comma = "";
    for (unsigned i = 0; i <= FR_TE_LAST - FR_TE_FIRST; i++) {
        if (!by_type[i])
            continue;
        const char *name = fr_te_name(FR_TE_FIRST + i);
        char unknown[16];
        if (!name) {
            snprintf(unknown, sizeof unknown, "0x%04x", FR_TE_FIRST + i);
            name = unknown;
        }
        fprintf(out, "%s%s%s%s%" PRIu64, comma, quote, name, sep, by_type[i]);
        comma = ", ";
    }
}

/* ---------------------------------------------------------------- run: one pass */

/* What the pass over the records counted. */
struct info_counts {
    uint64_t     count[FR_REC_BLOCK + 1], meta_events, structured, lost;
    uint64_t     meta_by_type[FR_TE_LAST - FR_TE_FIRST + 1];
    uint64_t     first, last;     /* timestamps (first > last: none) */
    uint64_t     functions;       /* function records: enter, enter-arg, exit, tail-exit */
    thread_table threads;
    /* the threads sorted by (pid, tid), with the writer's counts (collect_threads) */
    thread_info *list;
    size_t       n, without_records;
    /* --binary: the functions called (ids of function records), and how many have a name */
    bool         count_named;
    fr_u64_map   called;
    uint64_t     named;
};

static void count_records(fr_cli_trace *t, struct info_counts *ic)
{
    uint64_t *count = ic->count;
    thread_table *threads = &ic->threads;
    thread_info *ti = NULL; /* the previous record's thread: most records repeat it */
    ic->first = UINT64_MAX;
    ic->last = 0;
    fr_record r;
    while (fr_cli_next(t, &r) == FR_READ_OK) {
        bool ours = r.kind == FR_REC_TYPED && r.event_type >= FR_TE_FIRST &&
                    r.event_type <= FR_TE_LAST;
        if (ours && (r.event_type == FR_TE_EVENT || r.event_type == FR_TE_EVENT_RUN))
            ic->structured++;   /* EVENT_RUN: an event whose site's metadata the file lacks */
        else if (ours && r.event_type == FR_TE_LOST)
            ic->lost++;
        else if (ours) {
            ic->meta_events++;
            ic->meta_by_type[r.event_type - FR_TE_FIRST]++;
            continue; /* metadata: not a thread's record */
        }
        count[r.kind]++;
        if (r.kind == FR_REC_BLOCK && r.tid == 0)
            continue; /* the metadata block */
        if (!ti || ti->tid != r.tid || ti->pid != r.pid)
            ti = thread_get(threads, r.pid, r.tid); /* may move the table: ti is refreshed */
        if (!ti)
            continue;
        if (r.kind == FR_REC_BLOCK) {
            ti->blocks++;
            continue;
        }
        ti->records++;
        if (ic->count_named && (r.kind == FR_REC_ENTER || r.kind == FR_REC_ENTER_ARG ||
                                r.kind == FR_REC_EXIT || r.kind == FR_REC_TAIL_EXIT))
            fr_u64_map_put(&ic->called, r.function_id, 0);
        if (!ti->timed || r.tsc < ti->first_tsc)
            ti->first_tsc = r.tsc;
        if (!ti->timed || r.tsc > ti->last_tsc)
            ti->last_tsc = r.tsc;
        ti->timed = true;
        if (r.tsc < ic->first)
            ic->first = r.tsc;
        if (r.tsc > ic->last)
            ic->last = r.tsc;
    }
}

/* Threads, sorted, with the writer's per-thread counts; a thread whose counts are in
 * the file but which kept no records (every call under the threshold, every record
 * dropped) is listed too: it ran, and its counts say what happened to its calls. */
static void collect_threads(struct info_counts *ic, const fr_trace_meta *m)
{
    thread_table *threads = &ic->threads;
    for (size_t k = 0; k < m->n_thread_stats; k++) {
        const fr_meta_thread *st = &m->thread_stats[k];
        thread_info *found = NULL;
        for (size_t i = 0; i < threads->cap && !found; i++)
            if (threads->slots[i].in_use && threads->slots[i].tid == st->tid)
                found = &threads->slots[i];
        if (!found)
            found = thread_get(threads, m->has_process ? (int32_t)m->pid : 0, st->tid);
        if (found)
            found->stats = st;
    }
    thread_info *list = ic->list = calloc(threads->used ? threads->used : 1, sizeof *list);
    size_t n = 0, without_records = 0;
    for (size_t i = 0; list && i < threads->cap; i++)
        if (threads->slots[i].in_use) {
            list[n++] = threads->slots[i];
            without_records += !threads->slots[i].records;
        }
    if (list)
        qsort(list, n, sizeof *list, by_pid_tid);
    ic->n = n;
    ic->without_records = without_records;
    ic->functions = ic->count[FR_REC_ENTER] + ic->count[FR_REC_EXIT] +
                    ic->count[FR_REC_TAIL_EXIT] + ic->count[FR_REC_ENTER_ARG];
}

/* How many of the functions called have a name (from --binary, else the trace's own). */
static void count_named(fr_cli_trace *t, struct info_counts *ic)
{
    for (uint32_t i = 0; ic->called.vals && i < (1u << ic->called.bits); i++) {
        if (ic->called.vals[i] == FR_U64_MAP_NONE)
            continue;
        char unnamed[16];
        snprintf(unnamed, sizeof unnamed, "#%u", (uint32_t)ic->called.keys[i]);
        ic->named += strcmp(fr_cli_name(t, (uint32_t)ic->called.keys[i]), unnamed) != 0;
    }
}

/* ---------------------------------------------------------------- report */

static void print_json(FILE *out, const fr_cli_trace *t, const struct info_counts *ic)
{
    const fr_trace_info *h = t->info;
    const fr_trace_meta *m = &t->meta;
    const uint64_t *count = ic->count;
    uint64_t tps = t->ticks_per_second, first = ic->first, last = ic->last;
    uint64_t functions = ic->functions;
    char b1[48], b2[48];
        fputs("{\"file\": ", out);
        fr_cli_json_string(out, t->path);
        fprintf(out, ", \"size\": %" PRIu64, h->file_size);
        if (t->truncated)
            fprintf(out, ", \"truncated_at\": %" PRIu64, t->truncated_at);
        fprintf(out, ",\n \"format\": {\"type\": \"%s\", \"version\": %u, \"frequency\": %" PRIu64
                     ", \"constant_tsc\": %s, \"nonstop_tsc\": %s, \"buffer_size\": %" PRIu64 "}",
                h->type == FR_XRAY_TYPE_FDR ? "fdr" : "basic", h->version, h->ticks_per_second,
                h->flags & FR_XRAY_FLAG_CONSTANT_TSC ? "true" : "false",
                h->flags & FR_XRAY_FLAG_NONSTOP_TSC ? "true" : "false", h->buffer_size);
        if (m->has_clock)
            fprintf(out, ",\n \"clock\": {\"source\": \"%s\", \"ticks_per_second\": %" PRIu64
                         ", \"base_tsc\": %" PRIu64 ", \"realtime_ns\": %" PRId64
                         ", \"monotonic_ns\": %" PRId64 "}",
                    m->clock_source == FR_CLOCK_SOURCE_TSC ? "tsc" :
                    m->clock_source == FR_CLOCK_SOURCE_MONOTONIC ? "monotonic" : "unknown",
                    m->ticks_per_second, m->base_tsc, m->base_realtime_ns, m->base_monotonic_ns);
        if (m->has_process) {
            fprintf(out, ",\n \"process\": {\"pid\": %u, \"ppid\": %u, \"name\": ", m->pid, m->ppid);
            fr_cli_json_string(out, m->process_name);
            fputs(", \"executable\": ", out);
            fr_cli_json_string(out, m->executable);
            fputs(", \"command_line\": ", out);
            fr_cli_json_string(out, m->command_line);
            fputc('}', out);
        }
        if (m->has_summary)
            fprintf(out, ",\n \"summary\": {\"policy\": \"%s\", \"buffers\": %u, \"buffer_size\": %" PRIu64
                         ", \"records_written\": %" PRIu64 ", \"records_dropped\": %" PRIu64
                         ", \"calls_below_threshold\": %" PRIu64 ", \"threshold_ticks\": %" PRIu64 "}",
                    policy_name(m->policy), m->buffers, m->buffer_size, m->records_written,
                    m->records_dropped, m->calls_below_threshold, m->threshold_ticks);
        if (m->has_drops) {
            fputs(",\n \"dropped_by_cause\": {", out);
            for (unsigned c = 0, n = 0; c < FR_DROP_NCAUSES; c++)
                if (m->drops[c])
                    fprintf(out, "%s\"%s\": %" PRIu64, n++ ? ", " : "", fr_drop_cause_name(c).key, m->drops[c]);
            fputc('}', out);
        }
        if (m->has_dump_cause)
            print_dump_cause(out, m, true);
        fputs(",\n \"objects\": [", out);
        for (size_t i = 0; i < m->n_objects; i++) {
            fprintf(out, "%s{\"index\": %u, \"first_id\": %u, \"last_id\": %u, \"load_bias\": %" PRIu64
                         ", \"path\": ", i ? ", " : "", m->objects[i].index, m->objects[i].first_id,
                    m->objects[i].last_id, m->objects[i].load_bias);
            fr_cli_json_string(out, m->objects[i].path);
            if (m->objects[i].build_id_size) {
                char id[FR_BUILD_ID_HEX_SIZE];
                fr_build_id_hex(m->objects[i].build_id, m->objects[i].build_id_size, id);
                fprintf(out, ", \"build_id\": \"%s\"", id);
            }
            fputc('}', out);
        }
        fputs("]", out);
        if (ic->count_named)
            fprintf(out, ",\n \"functions_called\": %u, \"functions_named\": %" PRIu64,
                    ic->called.count, ic->named);
        fprintf(out, ",\n \"functions_in_table\": %zu, \"lost_record_markers\": %" PRIu64
                     ", \"blocks\": %" PRIu64 ",\n \"records\": {\"total\": %" PRIu64
                     ", \"enter\": %" PRIu64 ", \"enter_arg\": %" PRIu64 ", \"exit\": %" PRIu64
                     ", \"tail_exit\": %" PRIu64 ", \"custom_events\": %" PRIu64
                     ", \"typed_events\": %" PRIu64 ", \"structured_events\": %" PRIu64 "}"
                     ", \"metadata_events\": %" PRIu64,
                m->n_functions, ic->lost, count[FR_REC_BLOCK],
                functions + count[FR_REC_CUSTOM] + count[FR_REC_TYPED], count[FR_REC_ENTER],
                count[FR_REC_ENTER_ARG], count[FR_REC_EXIT], count[FR_REC_TAIL_EXIT],
                count[FR_REC_CUSTOM], count[FR_REC_TYPED], ic->structured, ic->meta_events);
        fputs(", \"metadata_by_type\": {", out);
        print_meta_by_type(out, ic->meta_by_type, "\"", "\": ");
        fputc('}', out);
        if (first <= last)
            fprintf(out, ",\n \"first_tsc\": %" PRIu64 ", \"last_tsc\": %" PRIu64 ", \"duration_us\": %s",
                    first, last, fr_cli_format_ticks(b1, sizeof b1, (int64_t)(last - first), tps, 6, 3));
        else
            fputs(",\n \"duration_us\": 0", out);
        fprintf(out, ",\n \"threads_without_records\": %zu,\n \"threads\": [", ic->without_records);
        for (size_t i = 0; i < ic->n; i++) {
            const thread_info *ti = &ic->list[i];
            fprintf(out, "%s\n  {\"tid\": %d, \"pid\": %d, \"blocks\": %" PRIu64 ", \"records\": %" PRIu64,
                    i ? "," : "", ti->tid, ti->pid, ti->blocks, ti->records);
            if (ti->timed)
                fprintf(out, ", \"from_us\": %s, \"to_us\": %s",
                        fr_cli_format_ticks(b1, sizeof b1, fr_cli_rel(t, ti->first_tsc), tps, 6, 3),
                        fr_cli_format_ticks(b2, sizeof b2, fr_cli_rel(t, ti->last_tsc), tps, 6, 3));
            if (ti->stats) {
                const fr_meta_thread *st = ti->stats;
                fputs(", \"name\": ", out);
                fr_cli_json_string(out, st->name);
                fprintf(out, ", \"written\": %" PRIu64 ", \"dropped\": %" PRIu64
                             ", \"bytes_dropped\": %" PRIu64 ", \"below_threshold\": %" PRIu64,
                        st->records_written, st->records_dropped, st->bytes_dropped,
                        st->calls_below_threshold);
            }
            fputc('}', out);
        }
        fputs("\n ]}\n", out);
}

static void print_text(FILE *out, const fr_cli_trace *t, const struct info_counts *ic)
{
    const fr_trace_info *h = t->info;
    const fr_trace_meta *m = &t->meta;
    const uint64_t *count = ic->count;
    uint64_t tps = t->ticks_per_second, first = ic->first, last = ic->last;
    uint64_t functions = ic->functions;
    char b1[48], b2[48];
    fr_text_buf e = {0};   /* strings from the trace (and the path) shown escaped */
    fprintf(out, "file: %s\n", fr_text_escape(&e, t->path));   /* "<stdin>" for "-", as in JSON */
    fprintf(out, "size: %" PRIu64 " bytes\n", h->file_size);
    if (t->truncated)   /* the reader's warning on stderr says what was cut */
        fprintf(out, "truncated: at offset %" PRIu64 "\n", t->truncated_at);
    fprintf(out, "format: XRay %s version %u\n", h->type == FR_XRAY_TYPE_FDR ? "FDR" : "basic", h->version);
    fprintf(out, "header frequency: %" PRIu64 " Hz%s%s\n", h->ticks_per_second,
           h->flags & FR_XRAY_FLAG_CONSTANT_TSC ? ", constant TSC" : "",
           h->flags & FR_XRAY_FLAG_NONSTOP_TSC ? ", nonstop TSC" : "");
    fprintf(out, "header buffer size: %" PRIu64 " bytes\n", h->buffer_size);
    if (m->has_clock)
        fprintf(out, "clock: %s, %" PRIu64 " ticks/s, base tsc %" PRIu64 ", realtime %" PRId64
               " ns, monotonic %" PRId64 " ns\n",
               m->clock_source == FR_CLOCK_SOURCE_TSC ? "tsc" :
               m->clock_source == FR_CLOCK_SOURCE_MONOTONIC ? "monotonic" : "unknown",
               m->ticks_per_second, m->base_tsc, m->base_realtime_ns, m->base_monotonic_ns);
    if (m->has_process) {
        fprintf(out, "process: pid %u, ppid %u, name %s\n", m->pid, m->ppid,
               fr_text_escape(&e, m->process_name));
        fprintf(out, "executable: %s\n", fr_text_escape(&e, m->executable));
        fprintf(out, "command line: %s\n", fr_text_escape(&e, m->command_line));
    }
    if (m->has_summary) {
        fprintf(out, "policy: %s\n", policy_name(m->policy));
        fprintf(out, "buffers: %u of %" PRIu64 " bytes\n", m->buffers, m->buffer_size);
        fprintf(out, "records written: %" PRIu64 "\n", m->records_written);
        fprintf(out, "records dropped: %" PRIu64 "\n", m->records_dropped);
        if (m->has_drops)
            for (unsigned c = 0; c < FR_DROP_NCAUSES; c++)
                if (m->drops[c])
                    fprintf(out, "  %s: %" PRIu64 "\n", fr_drop_cause_name(c).text, m->drops[c]);
        fprintf(out, "calls below threshold: %" PRIu64 " (threshold %s us)\n", m->calls_below_threshold,
               fr_cli_format_ticks(b1, sizeof b1, (int64_t)m->threshold_ticks, tps, 6, 3));
    }
    if (m->has_dump_cause)
        print_dump_cause(out, m, false);
    for (size_t i = 0; i < m->n_objects; i++) {
        char id[FR_BUILD_ID_HEX_SIZE] = "";
        fr_build_id_hex(m->objects[i].build_id, m->objects[i].build_id_size, id);
        fprintf(out, "object %u: ids %u..%u, load bias 0x%" PRIx64 ", %s%s%s\n", m->objects[i].index,
                m->objects[i].first_id, m->objects[i].last_id, m->objects[i].load_bias,
                fr_text_escape(&e, m->objects[i].path), id[0] ? ", build-id " : "", id);
    }
    fprintf(out, "functions in trace table: %zu\n", m->n_functions);
    if (ic->count_named)
        fprintf(out, "functions named: %" PRIu64 " of %u called\n", ic->named, ic->called.count);
    fprintf(out, "lost-record markers: %" PRIu64 "\n", ic->lost);

    fprintf(out, "blocks: %" PRIu64 "\n", count[FR_REC_BLOCK]);
    fprintf(out, "records: %" PRIu64 "\n", functions + count[FR_REC_CUSTOM] + count[FR_REC_TYPED]);
    fprintf(out, "  enter: %" PRIu64 "\n", count[FR_REC_ENTER]);
    fprintf(out, "  enter-arg: %" PRIu64 "\n", count[FR_REC_ENTER_ARG]);
    fprintf(out, "  exit: %" PRIu64 "\n", count[FR_REC_EXIT]);
    fprintf(out, "  tail-exit: %" PRIu64 "\n", count[FR_REC_TAIL_EXIT]);
    fprintf(out, "  custom events: %" PRIu64 "\n", count[FR_REC_CUSTOM]);
    fprintf(out, "  typed events: %" PRIu64 " (structured events %" PRIu64 ")\n", count[FR_REC_TYPED],
           ic->structured);
    fprintf(out, "metadata events: %" PRIu64, ic->meta_events);
    if (ic->meta_events) {
        fputs(" (", out);
        print_meta_by_type(out, ic->meta_by_type, "", " ");
        fputc(')', out);
    }
    fputc('\n', out);
    if (first <= last) {
        fprintf(out, "first tsc: %" PRIu64 "\n", first);
        fprintf(out, "last tsc: %" PRIu64 "\n", last);
        fprintf(out, "duration: %s us\n",
               fr_cli_format_ticks(b1, sizeof b1, (int64_t)(last - first), tps, 6, 3));
    } else {
        fprintf(out, "duration: 0 us (no records)\n");
    }

    fprintf(out, "threads: %zu", ic->n);
    if (ic->without_records)
        fprintf(out, " (%zu kept no records)", ic->without_records);
    fprintf(out, "\n");
    for (size_t i = 0; i < ic->n; i++) {
        const thread_info *ti = &ic->list[i];
        fprintf(out, "thread %d: pid %d, blocks %" PRIu64 ", records %" PRIu64, ti->tid, ti->pid,
               ti->blocks, ti->records);
        if (ti->timed)
            fprintf(out, ", from %s us to %s us",
                   fr_cli_format_ticks(b1, sizeof b1, fr_cli_rel(t, ti->first_tsc), tps, 6, 3),
                   fr_cli_format_ticks(b2, sizeof b2, fr_cli_rel(t, ti->last_tsc), tps, 6, 3));
        if (ti->stats) {
            const fr_meta_thread *s = ti->stats;
            fprintf(out, ", name %s, written %" PRIu64 ", dropped %" PRIu64 " (%" PRIu64
                   " bytes), below threshold %" PRIu64,
                   s->name[0] ? fr_text_escape(&e, s->name) : "-", s->records_written, s->records_dropped,
                   s->bytes_dropped, s->calls_below_threshold);
        }
        fputc('\n', out);
    }
    fr_text_buf_free(&e);
}

/* ---------------------------------------------------------------- parse */

struct info_opts {
    const char *format, *output, *binary;
};

static const fr_cli_opt info_options[] = {
    FR_CLI_OPT_FORMAT(struct info_opts, format, " F", "text|json", "unknown format '%s' (text or json)",
                      "text (default: \"key: value\" lines) or json"),
    FR_CLI_OPT_JSON(struct info_opts, format),
    FR_CLI_OPT_OUTPUT(struct info_opts, output, " FILE", "write to FILE instead of standard output"),
    FR_CLI_OPT_BINARY(struct info_opts, binary, "take names from BIN, and count the functions called that have one"),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

const fr_cli_command fr_cmd_info = {
    .name = "info",
    .summary = "header, threads, record counts, drops, duration",
    .run = cmd_info,
    .head = "usage: flightrec info FILE [options]\n"
            "Prints the trace's header, clock, process, threads, record counts per kind, drops\n"
            "and duration. Threads that kept no records but whose counts are in the file (all\n"
            "their calls under the threshold, or every record dropped) are listed too.\n"
            "FILE '-' reads the trace from standard input.\n"
            "\n"
            "options:\n",
    .options = info_options,
    .column = 22,
    .tail = "",
    .bad_option = fr_cli_bad_option_named,
};

/* ---------------------------------------------------------------- the command */

int cmd_info(int argc, char **argv)
{
    const char *cmd = "info";
    struct info_opts o = {.format = "text"};
    fr_cli_trace t;
    int rc = fr_cli_start_trace(&t, &fr_cmd_info, argc, argv, &o, &o.binary);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    t.return_meta = true; /* counted below as metadata */
    struct info_counts ic = {.count_named = o.binary != NULL};
    if (ic.count_named)
        fr_u64_map_init(&ic.called);
    count_records(&t, &ic);
    if (t.failed) {
        fr_u64_map_free(&ic.called);
        free(ic.threads.slots);
        return fr_cli_close(&t);
    }
    if (ic.count_named)
        count_named(&t, &ic);
    fr_trace_meta_finish(&t.meta);
    collect_threads(&ic, &t.meta);
    FILE *out = fr_cli_open_output(cmd, o.output);
    if (out) {
        if (!strcmp(o.format, "json"))
            print_json(out, &t, &ic);
        else
            print_text(out, &t, &ic);
        rc = fr_cli_close_output(cmd, o.output, out);
    } else {
        rc = FR_EXIT_BAD_INPUT;
    }
    free(ic.list);
    free(ic.threads.slots);
    fr_u64_map_free(&ic.called);
    int crc = fr_cli_close(&t);
    return rc ? rc : crc;
}
