/*
 * cmd_info.c - `flightrec info FILE`: what a trace holds, in one streaming pass:
 * header, clock, process, the writer's summary and drop counters, per-thread record
 * counts and time spans, record counts per kind, and the duration.
 * Output is "key: value" lines (threads one per line), stable for scripts and tests.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "text_escape.h"

static const char *const usage_text =
    "usage: flightrec info FILE [--binary BIN]\n"
    "Prints the trace's header, clock, process, threads, record counts per kind, drops\n"
    "and duration.\n"
    "\n"
    "options:\n"
    "  --binary BIN   take symbols from BIN (only used to count named functions)\n"
    "  -h, --help     this text\n";

typedef struct thread_info {
    int32_t  tid, pid;
    uint64_t blocks, records, first_tsc, last_tsc;
    bool     timed, in_use;
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

int cmd_info(int argc, char **argv)
{
    const char *cmd = "info", *path = NULL, *binary = NULL;
    for (int i = 1; i < argc; i++) {
        int m;
        if (fr_cli_is_help(argv[i])) {
            fputs(usage_text, stdout);
            return FR_EXIT_OK;
        }
        if ((m = fr_cli_option(cmd, argc, argv, &i, "--binary", &binary))) {
            if (m < 0)
                return FR_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return fr_cli_usage_error(cmd, "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return fr_cli_usage_error(cmd, "one trace file only ('%s' is extra)", argv[i]);
        }
    }
    if (!path)
        return fr_cli_usage_error(cmd, "no trace file given");

    fr_cli_trace t;
    int rc = fr_cli_open(&t, cmd, path, binary);
    if (rc)
        return rc;
    t.return_meta = true; /* counted below as metadata */

    uint64_t count[FR_REC_BLOCK + 1] = {0}, meta_events = 0, structured = 0, lost = 0;
    uint64_t first = UINT64_MAX, last = 0;
    thread_table threads = {0};
    thread_info *ti = NULL; /* the previous record's thread: most records repeat it */
    fr_record r;
    while (fr_cli_next(&t, &r) == FR_READ_OK) {
        bool ours = r.kind == FR_REC_TYPED && r.event_type >= FR_TE_FIRST &&
                    r.event_type <= FR_TE_LAST;
        if (ours && r.event_type == FR_TE_EVENT)
            structured++;
        else if (ours && r.event_type == FR_TE_LOST)
            lost++;
        else if (ours) {
            meta_events++;
            continue; /* metadata: not a thread's record */
        }
        count[r.kind]++;
        if (r.kind == FR_REC_BLOCK && r.tid == 0)
            continue; /* the metadata block */
        if (!ti || ti->tid != r.tid || ti->pid != r.pid)
            ti = thread_get(&threads, r.pid, r.tid); /* may move the table: ti is refreshed */
        if (!ti)
            continue;
        if (r.kind == FR_REC_BLOCK) {
            ti->blocks++;
            continue;
        }
        ti->records++;
        if (!ti->timed || r.tsc < ti->first_tsc)
            ti->first_tsc = r.tsc;
        if (!ti->timed || r.tsc > ti->last_tsc)
            ti->last_tsc = r.tsc;
        ti->timed = true;
        if (r.tsc < first)
            first = r.tsc;
        if (r.tsc > last)
            last = r.tsc;
    }
    if (t.failed) {
        free(threads.slots);
        return fr_cli_close(&t);
    }
    fr_trace_meta_finish(&t.meta);
    const fr_trace_info *h = t.info;
    const fr_trace_meta *m = &t.meta;
    uint64_t tps = t.ticks_per_second;
    char b1[48], b2[48];

    fr_text_buf e = {0};   /* strings from the trace (and the path) shown escaped */
    printf("file: %s\n", fr_text_escape(&e, path));
    printf("size: %" PRIu64 " bytes\n", h->file_size);
    if (t.truncated)   /* the reader's warning on stderr says what was cut */
        printf("truncated: at offset %" PRIu64 "\n", t.truncated_at);
    printf("format: XRay %s version %u\n", h->type == FR_XRAY_TYPE_FDR ? "FDR" : "basic", h->version);
    printf("header frequency: %" PRIu64 " Hz%s%s\n", h->ticks_per_second,
           h->flags & FR_XRAY_FLAG_CONSTANT_TSC ? ", constant TSC" : "",
           h->flags & FR_XRAY_FLAG_NONSTOP_TSC ? ", nonstop TSC" : "");
    printf("header buffer size: %" PRIu64 " bytes\n", h->buffer_size);
    if (m->has_clock)
        printf("clock: %s, %" PRIu64 " ticks/s, base tsc %" PRIu64 ", realtime %" PRId64
               " ns, monotonic %" PRId64 " ns\n",
               m->clock_source == FR_CLOCK_SOURCE_TSC ? "tsc" :
               m->clock_source == FR_CLOCK_SOURCE_MONOTONIC ? "monotonic" : "unknown",
               m->ticks_per_second, m->base_tsc, m->base_realtime_ns, m->base_monotonic_ns);
    if (m->has_process) {
        printf("process: pid %u, ppid %u, name %s\n", m->pid, m->ppid,
               fr_text_escape(&e, m->process_name));
        printf("executable: %s\n", fr_text_escape(&e, m->executable));
        printf("command line: %s\n", fr_text_escape(&e, m->command_line));
    }
    if (m->has_summary) {
        printf("policy: %s\n", policy_name(m->policy));
        printf("buffers: %u of %" PRIu64 " bytes\n", m->buffers, m->buffer_size);
        printf("records written: %" PRIu64 "\n", m->records_written);
        printf("records dropped: %" PRIu64 "\n", m->records_dropped);
        printf("calls below threshold: %" PRIu64 " (threshold %s us)\n", m->calls_below_threshold,
               fr_cli_format_ticks(b1, sizeof b1, (int64_t)m->threshold_ticks, tps, 6, 3));
    }
    if (m->n_objects)
        for (size_t i = 0; i < m->n_objects; i++)
            printf("object %u: ids %u..%u, load bias 0x%" PRIx64 ", %s\n", m->objects[i].index,
                   m->objects[i].first_id, m->objects[i].last_id, m->objects[i].load_bias,
                   fr_text_escape(&e, m->objects[i].path));
    printf("functions in trace table: %zu\n", m->n_functions);
    printf("lost-record markers: %" PRIu64 "\n", lost);

    uint64_t functions = count[FR_REC_ENTER] + count[FR_REC_EXIT] + count[FR_REC_TAIL_EXIT] +
                         count[FR_REC_ENTER_ARG];
    printf("blocks: %" PRIu64 "\n", count[FR_REC_BLOCK]);
    printf("records: %" PRIu64 "\n", functions + count[FR_REC_CUSTOM] + count[FR_REC_TYPED]);
    printf("  enter: %" PRIu64 "\n", count[FR_REC_ENTER]);
    printf("  enter-arg: %" PRIu64 "\n", count[FR_REC_ENTER_ARG]);
    printf("  exit: %" PRIu64 "\n", count[FR_REC_EXIT]);
    printf("  tail-exit: %" PRIu64 "\n", count[FR_REC_TAIL_EXIT]);
    printf("  custom events: %" PRIu64 "\n", count[FR_REC_CUSTOM]);
    printf("  typed events: %" PRIu64 " (structured events %" PRIu64 ")\n", count[FR_REC_TYPED],
           structured);
    printf("metadata events: %" PRIu64 "\n", meta_events);
    if (first <= last) {
        printf("first tsc: %" PRIu64 "\n", first);
        printf("last tsc: %" PRIu64 "\n", last);
        printf("duration: %s us\n",
               fr_cli_format_ticks(b1, sizeof b1, (int64_t)(last - first), tps, 6, 3));
    } else {
        printf("duration: 0 us (no records)\n");
    }

    /* Threads, sorted; drop counters from the writer's per-thread statistics if any. */
    thread_info *list = calloc(threads.used ? threads.used : 1, sizeof *list);
    size_t n = 0;
    for (size_t i = 0; list && i < threads.cap; i++)
        if (threads.slots[i].in_use)
            list[n++] = threads.slots[i];
    if (list)
        qsort(list, n, sizeof *list, by_pid_tid);
    printf("threads: %zu\n", n);
    for (size_t i = 0; i < n; i++) {
        const thread_info *ti = &list[i];
        printf("thread %d: pid %d, blocks %" PRIu64 ", records %" PRIu64, ti->tid, ti->pid,
               ti->blocks, ti->records);
        if (ti->timed)
            printf(", from %s us to %s us",
                   fr_cli_format_ticks(b1, sizeof b1, fr_cli_rel(&t, ti->first_tsc), tps, 6, 3),
                   fr_cli_format_ticks(b2, sizeof b2, fr_cli_rel(&t, ti->last_tsc), tps, 6, 3));
        for (size_t k = 0; k < m->n_thread_stats; k++) {
            const fr_meta_thread *s = &m->thread_stats[k];
            if (s->tid != ti->tid)
                continue;
            printf(", name %s, written %" PRIu64 ", dropped %" PRIu64 " (%" PRIu64
                   " bytes), below threshold %" PRIu64,
                   s->name[0] ? fr_text_escape(&e, s->name) : "-", s->records_written, s->records_dropped,
                   s->bytes_dropped, s->calls_below_threshold);
        }
        putchar('\n');
    }
    free(list);
    free(threads.slots);
    fr_text_buf_free(&e);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fr_cli_close(&t);
        return fr_cli_input_error(cmd, "cannot write the output");
    }
    return fr_cli_close(&t);
}
