/*
 * convert_chrome.c - Chrome trace_event JSON (opens in Perfetto UI and chrome://tracing).
 *
 *  - each completed call is one complete event ("ph":"X") on its thread (pid/tid), written
 *    when the call ends, so memory holds only the open frames; where calls share clock
 *    ticks their times are set 1 ns apart so that viewers nest them as they ran
 *    (chrome_nesting.h);
 *  - timestamps are microseconds with three decimals, computed from ticks in integers
 *    (one rounding, down, to the nanosecond); a duration is end - start of those
 *    nanosecond values, so ts + dur is exactly the end's ts;
 *  - thread and process names are metadata events ("ph":"M");
 *  - a call's event has no args but its first argument and how it ended when unusual: a
 *    viewer that names a frame by its name and args (speedscope) shows the function's
 *    name; where each function starts (file, line) is said once, in otherData.functions;
 *  - structured events (FR_TE_EVENT, EventHeader) are instant events with their decoded
 *    fields as args; activity start/stop (opcodes 1/2) become nestable async slices, a
 *    child activity (related activity id) under the id of its parent's root, so that it
 *    nests under its parent, its own id and its parent's in its args; custom and other
 *    typed events are instants with their bytes;
 *  - flightrec's own metadata events (FR_TE_*) are not shown;
 *  - several inputs (cv_chrome_begin/add/end: a process and its forked children) go into
 *    one traceEvents array, each process under its real pid, every ts then
 *    CLOCK_MONOTONIC microseconds (cv_monotonic_origin) so the processes line up.
 */
#include <stdlib.h>
#include "call_tracker.h"
#include "chrome_nesting.h"
#include "u64_map.h"
#include "commands.h"
#include "convert.h"
#include "eventheader_decode.h"

enum { EH_OPCODE_ACTIVITY_START = 1, EH_OPCODE_ACTIVITY_STOP = 2 };

/* Threads seen: tid -> pid, and whether its name was written. Open addressing. */
struct thread_slot { int32_t tid; int32_t pid; uint8_t used, named; };
struct thread_table { struct thread_slot *slots; size_t cap, count; };

/* Activities started and not yet stopped: the stop event reuses the start's name and
 * async id (its root's: the id of the outermost open activity it descends from). */
struct open_span { uint8_t id[16], root[16]; char *name; };
#define MAX_OPEN_SPANS 4096

struct cv_chrome {
    cv_job *job;
    cv_out o;
    cv_names names;            /* JSON string of each function's name, quotes included */
    bool first_event;
    struct thread_table threads;
    struct thread_slot *last_thread;
    int32_t process_named_pid;
    struct open_span *spans;
    size_t n_spans;
    cv_nesting nesting;        /* per input: the times of calls that share ticks */
    uint64_t calls, events, undecodable, custom, typed_other;
    char **locs;               /* per function id: "\"file\":...,\"line\":N" or "" */
    size_t n_locs;
    /* otherData.functions: {"name":...,"file":...,"line":N} of every function called
     * whose start is known, every input's */
    char *functions; size_t functions_len; FILE *functions_out;
    int32_t last_pid, last_tid; /* of the last event written (a thread of the output) */
    fr_u64_map listed_uncached; /* ids past CV_IDS_CACHED already in functions (gcc's) */
    /* Merging (cv_chrome_begin with monotonic): times are CLOCK_MONOTONIC, each input's
     * origin reading added. The totals of every input for otherData. */
    bool monotonic;
    int64_t ts_offset;
    char **paths; size_t n_paths;
    uint64_t ticks_per_second;
    uint64_t unmatched_exits, closed_by_unwind, open_at_end;
    char *error;               /* the first read error */
    bool read_failed;
};

/* Nanoseconds of a record's ticks on the output's time base. */
static inline int64_t event_ns(struct cv_chrome *c, uint64_t tsc)
{
    return cv_time_ns(c->job, tsc) + c->ts_offset;
}

static char *json_name(const char *name, void *ctx)
{
    (void)ctx;
    cv_out tmp;
    tmp.file = NULL;
    tmp.cap = strlen(name) * 6 + 3;
    tmp.buf = malloc(tmp.cap + 1);
    tmp.len = 0;
    tmp.failed = false;
    if (!tmp.buf) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    cv_json_string(&tmp, name, strlen(name));
    tmp.buf[tmp.len] = 0;
    return tmp.buf;
}

/* The slot of a thread, added if new. Slots move when the table grows: pointers into it
 * are good only until the next call. */
static struct thread_slot *thread_get(struct cv_chrome *c, int32_t tid)
{
    struct thread_table *t = &c->threads;
    if (t->count * 2 >= t->cap) {
        c->last_thread = NULL;
        size_t ncap = t->cap ? t->cap * 2 : 64;
        struct thread_slot *ns = calloc(ncap, sizeof *ns);
        if (!ns) {
            fprintf(stderr, "flightrec convert: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].used)
                continue;
            size_t j = ((uint32_t)t->slots[i].tid * 2654435761u) & (ncap - 1);
            while (ns[j].used)
                j = (j + 1) & (ncap - 1);
            ns[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = ns;
        t->cap = ncap;
    }
    size_t j = ((uint32_t)tid * 2654435761u) & (t->cap - 1);
    while (t->slots[j].used && t->slots[j].tid != tid)
        j = (j + 1) & (t->cap - 1);
    if (!t->slots[j].used) {
        t->slots[j].used = 1;
        t->slots[j].tid = tid;
        t->count++;
    }
    return &t->slots[j];
}

static inline void begin_event(struct cv_chrome *c)
{
    if (c->first_event) {
        c->first_event = false;
        CV_LIT(&c->o, "\n");
    } else {
        CV_LIT(&c->o, ",\n");
    }
}

/* "pid":P,"tid":T,"ts":S */
static inline void where_when(struct cv_chrome *c, int32_t pid, int32_t tid, int64_t ns)
{
    c->last_pid = pid;
    c->last_tid = tid;
    CV_LIT(&c->o, "\"pid\":");
    cv_i64(&c->o, pid);
    CV_LIT(&c->o, ",\"tid\":");
    cv_i64(&c->o, tid);
    CV_LIT(&c->o, ",\"ts\":");
    cv_usec3(&c->o, ns);
}

static void name_thread(struct cv_chrome *c, struct thread_slot *t)
{
    const fr_trace_meta *m = c->job->meta;
    t->named = 1;
    if (m->has_process && c->process_named_pid != t->pid && (uint32_t)t->pid == m->pid && m->process_name) {
        c->process_named_pid = t->pid;
        begin_event(c);
        CV_LIT(&c->o, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
        cv_i64(&c->o, t->pid);
        CV_LIT(&c->o, ",\"args\":{\"name\":");
        cv_json_string(&c->o, m->process_name, strlen(m->process_name));
        CV_LIT(&c->o, "}}");
    }
    for (size_t i = 0; i < m->n_thread_stats; i++) {
        const fr_meta_thread *th = &m->thread_stats[i];
        if (th->tid != t->tid || !th->name[0])
            continue;
        begin_event(c);
        CV_LIT(&c->o, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
        cv_i64(&c->o, t->pid);
        CV_LIT(&c->o, ",\"tid\":");
        cv_i64(&c->o, t->tid);
        CV_LIT(&c->o, ",\"args\":{\"name\":");
        cv_json_string(&c->o, th->name, strnlen(th->name, sizeof th->name));
        CV_LIT(&c->o, "}}");
        break;
    }
}

/* The file:line args of function id's calls (where it starts, from the binary's debug
 * information), malloc'd; "" when unknown, NULL when out of memory. */
static char *location_string(struct cv_chrome *c, uint32_t id)
{
    const char *file;
    int line;
    char *s = NULL;
    if (c->job->symbols && fr_symbols_location(c->job->symbols, id, &file, &line)) {
        char *jf = json_name(file, NULL);
        size_t n = jf ? strlen(jf) + 32 : 0;
        if (jf && (s = malloc(n)))
            snprintf(s, n, "\"file\":%s,\"line\":%d", jf, line);
        free(jf);
    }
    return s ? s : strdup("");
}

static void oom(void);

/* One member of otherData.functions: {"name":...,"file":...,"line":N}. */
static void list_function(struct cv_chrome *c, uint32_t id, const char *loc)
{
    if (!c->functions_out && !(c->functions_out = open_memstream(&c->functions, &c->functions_len)))
        oom();
    fprintf(c->functions_out, "%s{\"name\":%s,%s}", ftell(c->functions_out) ? "," : "",
            cv_names_get(&c->names, id), loc);
}

/* location_string, looked up once per id. */
static const char *location_args(struct cv_chrome *c, uint32_t id)
{
    if (id >= CV_IDS_CACHED) {
        /* Not cached (convert.h): kept alive until the next such call; listed in
         * otherData.functions the first time. */
        static char *uncached;
        free(uncached);
        uncached = location_string(c, id);
        if (uncached && *uncached && fr_u64_map_get(&c->listed_uncached, id) == FR_U64_MAP_NONE) {
            fr_u64_map_put(&c->listed_uncached, id, 1);
            list_function(c, id, uncached);
        }
        return uncached ? uncached : "";
    }
    if (id >= c->n_locs) {
        size_t n = (size_t)id + 1 > 2 * c->n_locs ? (size_t)id + 1 : 2 * c->n_locs;
        char **p = realloc(c->locs, n * sizeof *p);
        if (!p)
            return "";
        memset(p + c->n_locs, 0, (n - c->n_locs) * sizeof *p);
        c->locs = p;
        c->n_locs = n;
    }
    if (!c->locs[id]) {
        c->locs[id] = location_string(c, id);
        if (!c->locs[id])
            return "";
    }
    return c->locs[id];
}

/* This input's cached functions whose start is known, onto otherData.functions (the
 * others are listed as they come, location_args). */
static void list_functions(struct cv_chrome *c)
{
    for (size_t id = 0; id < c->n_locs; id++)
        if (c->locs[id] && c->locs[id][0])
            list_function(c, (uint32_t)id, c->locs[id]);
}

static void on_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx)
{
    struct cv_chrome *c = ctx;
    cv_nesting_enter(&c->nesting, tid, depth, stack[depth], event_ns(c, tsc));
}

static void on_call(const fr_call *call, void *ctx)
{
    struct cv_chrome *c = ctx;
    struct thread_slot *t = c->last_thread;
    if (!t || t->tid != call->tid)
        t = c->last_thread = thread_get(c, call->tid);
    int64_t start, end;
    cv_nesting_call(&c->nesting, call, event_ns(c, call->enter_tsc), event_ns(c, call->exit_tsc),
                    &start, &end);
    location_args(c, call->function_id);   /* said once, in otherData.functions */
    begin_event(c);
    CV_LIT(&c->o, "{\"ph\":\"X\",");
    where_when(c, t->pid, call->tid, start);
    CV_LIT(&c->o, ",\"dur\":");
    /* In unsigned arithmetic: on a damaged file the two times may be far apart (wrapped
     * nanosecond values), and a signed difference would overflow. */
    cv_usec3(&c->o, (int64_t)((uint64_t)end - (uint64_t)start));
    CV_LIT(&c->o, ",\"name\":");
    cv_puts(&c->o, cv_names_get(&c->names, call->function_id));
    if (call->has_arg || (call->flags & (FR_CALL_CLOSED_BY_UNWIND | FR_CALL_OPEN_AT_END))) {
        CV_LIT(&c->o, ",\"args\":{");
        bool comma = false;
        if (call->has_arg) {
            if (comma)
                cv_putc(&c->o, ',');
            CV_LIT(&c->o, "\"arg\":");
            cv_u64(&c->o, call->arg);
            comma = true;
        }
        if (call->flags & FR_CALL_CLOSED_BY_UNWIND) {
            if (comma)
                cv_putc(&c->o, ',');
            CV_LIT(&c->o, "\"end\":\"closed by an exit of a caller (unwind)\"");
        } else if (call->flags & FR_CALL_OPEN_AT_END) {
            if (comma)
                cv_putc(&c->o, ',');
            CV_LIT(&c->o, "\"end\":\"still open at the end of the trace\"");
        }
        cv_putc(&c->o, '}');
    }
    cv_putc(&c->o, '}');
    c->calls++;
}

/* Bytes as args: "data" as text when they are printable text, else "hex". */
static void write_bytes_args(struct cv_chrome *c, const uint8_t *p, size_t n)
{
    bool text = true;
    for (size_t i = 0; i < n && text; i++)
        if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n')
            text = false;
    CV_LIT(&c->o, "\"size\":");
    cv_u64(&c->o, n);
    if (text) {
        CV_LIT(&c->o, ",\"data\":");
        cv_json_string(&c->o, (const char *)p, n);
    } else {
        CV_LIT(&c->o, ",\"hex\":\"");
        cv_hex(&c->o, p, n);
        cv_putc(&c->o, '"');
    }
}

static void instant_bytes(struct cv_chrome *c, const fr_record *rec, struct thread_slot *t,
                          const char *name, int type)
{
    begin_event(c);
    CV_LIT(&c->o, "{\"ph\":\"i\",\"s\":\"t\",");
    where_when(c, t->pid, rec->tid, event_ns(c, rec->tsc));
    CV_LIT(&c->o, ",\"name\":\"");
    cv_puts(&c->o, name);
    CV_LIT(&c->o, "\",\"args\":{");
    if (type >= 0) {
        CV_LIT(&c->o, "\"type\":");
        cv_u64(&c->o, (uint64_t)type);
        cv_putc(&c->o, ',');
    }
    write_bytes_args(c, rec->data, rec->size);
    CV_LIT(&c->o, "}}");
}

/* Renders the event's fields as JSON members into a string (NULL if malformed). */
static char *fields_json(const fr_eh_event *ev, char *err, size_t errlen, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    int rc = fr_eh_write_fields_json(ev, f, err, errlen);
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

static struct open_span *find_span(struct cv_chrome *c, const uint8_t id[16])
{
    for (size_t i = c->n_spans; i-- > 0;)
        if (!memcmp(c->spans[i].id, id, 16))
            return &c->spans[i];
    return NULL;
}

/* An EventHeader event at ns on thread tid of pid: an instant, or an activity's async
 * begin/end. fields: its members as JSON (NULL: undecodable, err says why). */
static void eh_event_out(struct cv_chrome *c, const fr_eh_event *ev, const char *fields,
                         size_t flen, const char *err, int32_t pid, int32_t tid, int64_t ns)
{
    const char *name = ev->name ? ev->name : "event";
    char ph = 'i';
    struct open_span *span = NULL;
    const uint8_t *async_id = ev->activity;
    if (ev->has_activity && ev->opcode == EH_OPCODE_ACTIVITY_START) {
        ph = 'b';
        struct open_span *parent = ev->has_related ? find_span(c, ev->related) : NULL;
        if (parent)
            async_id = parent->root;
        if (c->n_spans < MAX_OPEN_SPANS) {
            span = &c->spans[c->n_spans++];
            memcpy(span->id, ev->activity, 16);
            memcpy(span->root, async_id, 16);
            span->name = strdup(name);
        }
    } else if (ev->has_activity && ev->opcode == EH_OPCODE_ACTIVITY_STOP) {
        ph = 'e';
        span = find_span(c, ev->activity);
        if (span) {
            name = span->name;
            async_id = span->root;
        }
    }
    begin_event(c);
    CV_LIT(&c->o, "{\"ph\":\"");
    cv_putc(&c->o, ph);
    CV_LIT(&c->o, "\",");
    if (ph == 'i')
        CV_LIT(&c->o, "\"s\":\"t\",");
    else {
        CV_LIT(&c->o, "\"id\":\"0x");
        cv_hex(&c->o, async_id, 16);
        CV_LIT(&c->o, "\",");
    }
    where_when(c, pid, tid, ns);
    CV_LIT(&c->o, ",\"cat\":");
    cv_json_string(&c->o, ev->provider, ev->provider_len);
    CV_LIT(&c->o, ",\"name\":");
    cv_json_string(&c->o, name, strlen(name));
    CV_LIT(&c->o, ",\"args\":{");
    if (fields) {
        cv_put(&c->o, fields, flen);
        if (flen)
            cv_putc(&c->o, ',');
    } else {
        c->undecodable++;
        CV_LIT(&c->o, "\"error\":");
        cv_json_string(&c->o, err, strlen(err));
        cv_putc(&c->o, ',');
    }
    if (ph != 'i') {
        CV_LIT(&c->o, "\"activity\":\"0x");
        cv_hex(&c->o, ev->activity, 16);
        CV_LIT(&c->o, "\",");
    }
    if (ph == 'b' && ev->has_related) {
        CV_LIT(&c->o, "\"parent\":\"0x");
        cv_hex(&c->o, ev->related, 16);
        CV_LIT(&c->o, "\",");
    }
    CV_LIT(&c->o, "\"level\":");
    cv_u64(&c->o, ev->level);
    CV_LIT(&c->o, ",\"keyword\":\"0x");
    char kw[17];
    snprintf(kw, sizeof kw, "%llx", (unsigned long long)ev->keyword);
    cv_puts(&c->o, kw);
    CV_LIT(&c->o, "\"}}");
    if (ph == 'e' && span) {   /* forget the stopped span (it is usually the last one) */
        free(span->name);
        *span = c->spans[--c->n_spans];
    }
    c->events++;
}

static void structured_event(struct cv_chrome *c, const fr_record *rec, struct thread_slot *t)
{
    const uint8_t *nul = memchr(rec->data, 0, rec->size);
    char err[256];
    fr_eh_event ev;
    if (!nul || fr_eh_decode((const char *)rec->data, nul + 1, rec->size - (size_t)(nul + 1 - rec->data),
                             &ev, err, sizeof err)) {
        c->undecodable++;
        instant_bytes(c, rec, t, "undecodable event", FR_TE_EVENT);
        return;
    }
    size_t flen = 0;
    char *fields = fields_json(&ev, err, sizeof err, &flen);
    eh_event_out(c, &ev, fields, flen, err, t->pid, rec->tid, event_ns(c, rec->tsc));
    free(fields);
}

static void oom(void)
{
    fprintf(stderr, "flightrec convert: out of memory\n");
    exit(1);
}

cv_chrome *cv_chrome_begin(FILE *out, bool monotonic)
{
    struct cv_chrome *c = calloc(1, sizeof *c);
    if (!c)
        oom();
    c->first_event = true;
    c->monotonic = monotonic;
    c->spans = calloc(MAX_OPEN_SPANS, sizeof *c->spans);
    cv_out_init(&c->o, out);
    if (!c->spans || c->o.failed)
        oom();
    CV_LIT(&c->o, "{\"traceEvents\":[");
    return c;
}

/* Converts one input into the array. Per input: the threads (their names come from that
 * input's metadata), the open activities and the function names (ids are per binary). */
int cv_chrome_add(cv_chrome *cc, cv_job *job)
{
    struct cv_chrome *const c = cc;
    c->job = job;
    c->ts_offset = 0;
    if (c->monotonic && !cv_monotonic_origin(job, &c->ts_offset)) {
        fprintf(stderr, "flightrec convert: %s has no clock event (CLOCK_MONOTONIC anchor): "
                "it cannot be placed on the other files' timeline\n", job->in_path);
        return FR_EXIT_BAD_INPUT;
    }
    c->process_named_pid = -1;
    free(c->threads.slots);
    memset(&c->threads, 0, sizeof c->threads);
    c->last_thread = NULL;
    for (size_t i = 0; i < c->n_spans; i++)
        free(c->spans[i].name);
    c->n_spans = 0;
    for (size_t i = 0; i < c->n_locs; i++)
        free(c->locs[i]);
    free(c->locs);
    c->locs = NULL;
    c->n_locs = 0;
    fr_u64_map_free(&c->listed_uncached);   /* ids are per input (per binary) */
    fr_u64_map_init(&c->listed_uncached);
    char **paths = realloc(c->paths, (c->n_paths + 1) * sizeof *paths);
    if (!paths || !(paths[c->n_paths] = strdup(job->in_path)))
        oom();
    c->paths = paths;
    c->n_paths++;
    if (!c->ticks_per_second)
        c->ticks_per_second = job->ticks_per_second;
    uint64_t undecodable = c->undecodable;
    cv_names_init(&c->names, job->symbols, json_name, NULL);
    cv_nesting_init(&c->nesting);
    fr_call_tracker *tracker = fr_call_tracker_new(on_call, on_enter, c);
    if (!tracker)
        oom();
    fr_record rec;
    fr_read_status st;
    fr_function_record batch[512];
    int32_t batch_tid;
    for (;;) {
        /* Plain function records (nearly all) in batches, without a record structure
         * each; the rest one by one. */
        size_t nb = fr_cli_next_functions(job->trace, batch, 512, &batch_tid);
        if (nb) {
            fr_call_tracker_feed_functions(tracker, batch_tid, batch, nb);
            continue;
        }
        if ((st = cv_next(job, &rec)) != FR_READ_OK)
            break;
        switch (rec.kind) {
        case FR_REC_ENTER: case FR_REC_EXIT: case FR_REC_TAIL_EXIT: case FR_REC_ENTER_ARG:
            fr_call_tracker_feed(tracker, &rec);
            break;
        case FR_REC_BLOCK: {
            struct thread_slot *t = thread_get(c, rec.tid);
            t->pid = rec.pid;
            if (!t->named && rec.tid != 0)
                name_thread(c, t);
            break;
        }
        case FR_REC_CUSTOM:
            c->custom++;
            instant_bytes(c, &rec, thread_get(c, rec.tid), "custom event", -1);
            break;
        case FR_REC_TYPED:
            if (rec.event_type == FR_TE_EVENT) {
                structured_event(c, &rec, thread_get(c, rec.tid));
            } else if (rec.event_type == FR_TE_EVENT_RUN) {
                /* an event whose site the file does not describe (fr_reader.h) */
                c->undecodable++;
                instant_bytes(c, &rec, thread_get(c, rec.tid), "event without its site's metadata",
                              FR_TE_EVENT_RUN);
            } else if (rec.event_type >= FR_TE_FIRST && rec.event_type <= FR_TE_LAST) {
                fr_call_tracker_feed(tracker, &rec);   /* our metadata; LOST resets stacks */
            } else {
                c->typed_other++;
                instant_bytes(c, &rec, thread_get(c, rec.tid), "typed event", rec.event_type);
            }
            break;
        }
    }
    fr_call_tracker_finish(tracker);
    const fr_call_tracker_stats *s = fr_call_tracker_get_stats(tracker);

    c->unmatched_exits += s->unmatched_exits;
    c->closed_by_unwind += s->closed_by_unwind;
    c->open_at_end += s->open_at_end;
    if (st == FR_READ_ERROR) {
        c->read_failed = true;
        if (!c->error && !(c->error = strdup(fr_reader_error(job->trace->reader))))
            oom();
    }
    cv_report_unmatched(s);
    if (c->undecodable > undecodable)
        fprintf(stderr, "flightrec convert: %s: %llu structured events could not be decoded\n",
                job->in_path, (unsigned long long)(c->undecodable - undecodable));
    fr_call_tracker_free(tracker);
    cv_nesting_free(&c->nesting);
    list_functions(c);
    cv_names_free(&c->names);
    return st == FR_READ_ERROR ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
}

/* A perf.data's samples (convert_perf.c), on CLOCK_MONOTONIC as the traces merged with
 * it: EventHeader user_events as the trace's own structured events, other tracepoints as
 * instants (category: the tracepoint's system) with their fields. */
int cv_chrome_add_perf(cv_chrome *cc, cv_perf_input *in)
{
    struct cv_chrome *const c = cc;
    char **paths = realloc(c->paths, (c->n_paths + 1) * sizeof *paths);
    if (!paths || !(paths[c->n_paths] = strdup(cv_perf_path(in))))
        oom();
    c->paths = paths;
    c->n_paths++;
    for (size_t i = 0; i < c->n_spans; i++)
        free(c->spans[i].name);
    c->n_spans = 0;
    cv_perf_event e;
    int got;
    while ((got = cv_perf_next(in, &e)) > 0) {
        if (e.eventheader) {
            eh_event_out(c, &e.ev, e.fields, e.fields_len, e.err, e.pid, e.tid, (int64_t)e.ns);
            continue;
        }
        begin_event(c);
        CV_LIT(&c->o, "{\"ph\":\"i\",\"s\":\"t\",");
        where_when(c, e.pid, e.tid, (int64_t)e.ns);
        CV_LIT(&c->o, ",\"cat\":");
        cv_json_string(&c->o, e.category, strlen(e.category));
        CV_LIT(&c->o, ",\"name\":");
        cv_json_string(&c->o, e.name, strlen(e.name));
        CV_LIT(&c->o, ",\"args\":{");
        if (e.fields) {
            cv_put(&c->o, e.fields, e.fields_len);
        } else {
            c->undecodable++;
            CV_LIT(&c->o, "\"error\":");
            cv_json_string(&c->o, e.err, strlen(e.err));
        }
        CV_LIT(&c->o, "}}");
        c->events++;
    }
    if (got < 0)
        c->read_failed = true;
    return got < 0 ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
}

int cv_chrome_end(cv_chrome *cc, const char *out_path)
{
    struct cv_chrome *const c = cc;
    /* Events but no call: a viewer that shows only complete and duration events
     * (speedscope) would have no profile at all and stays blank; one empty complete
     * event, named for what it is, gives it one. */
    if (!c->calls && c->events + c->custom + c->typed_other + c->undecodable) {
        begin_event(c);
        CV_LIT(&c->o, "{\"ph\":\"X\",");
        where_when(c, c->last_pid, c->last_tid, c->ts_offset);
        CV_LIT(&c->o, ",\"dur\":0,\"name\":\"(no calls in this trace)\"}");
    }
    CV_LIT(&c->o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"flightrec convert\",");
    if (c->monotonic) {
        CV_LIT(&c->o, "\"clock\":\"CLOCK_MONOTONIC\",\"traces\":[");
        for (size_t i = 0; i < c->n_paths; i++) {
            if (i)
                cv_putc(&c->o, ',');
            cv_json_string(&c->o, c->paths[i], strlen(c->paths[i]));
        }
        cv_putc(&c->o, ']');
    } else {
        CV_LIT(&c->o, "\"trace\":");
        const char *path = c->n_paths ? c->paths[0] : "";
        cv_json_string(&c->o, path, strlen(path));
        CV_LIT(&c->o, ",\"ticks_per_second\":");
        cv_u64(&c->o, c->ticks_per_second);
    }
    CV_LIT(&c->o, ",\"calls\":");
    cv_u64(&c->o, c->calls);
    CV_LIT(&c->o, ",\"unmatched_exits\":");
    cv_u64(&c->o, c->unmatched_exits);
    CV_LIT(&c->o, ",\"closed_by_unwind\":");
    cv_u64(&c->o, c->closed_by_unwind);
    CV_LIT(&c->o, ",\"open_at_end\":");
    cv_u64(&c->o, c->open_at_end);
    CV_LIT(&c->o, ",\"events\":");
    cv_u64(&c->o, c->events);
    CV_LIT(&c->o, ",\"undecodable_events\":");
    cv_u64(&c->o, c->undecodable);
    if (c->functions_out && fflush(c->functions_out) == 0 && c->functions_len) {
        CV_LIT(&c->o, ",\n\"functions\":[");
        cv_put(&c->o, c->functions, c->functions_len);
        cv_putc(&c->o, ']');
    }
    if (c->error) {
        CV_LIT(&c->o, ",\"error\":");
        cv_json_string(&c->o, c->error, strlen(c->error));
    }
    CV_LIT(&c->o, "}}\n");
    int wrc = cv_out_finish(&c->o);
    bool failed = c->read_failed;
    for (size_t i = 0; i < c->n_locs; i++)
        free(c->locs[i]);
    free(c->locs);
    for (size_t i = 0; i < c->n_spans; i++)
        free(c->spans[i].name);
    free(c->spans);
    free(c->threads.slots);
    for (size_t i = 0; i < c->n_paths; i++)
        free(c->paths[i]);
    free(c->paths);
    free(c->error);
    if (c->functions_out)
        fclose(c->functions_out);
    fr_u64_map_free(&c->listed_uncached);
    free(c->functions);
    free(c);
    if (wrc) {
        fprintf(stderr, "flightrec convert: writing %s: %s\n", out_path, strerror(-wrc));
        return FR_EXIT_BAD_INPUT;
    }
    return failed ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
}

int cv_convert_chrome(cv_job *job)
{
    cv_chrome *c = cv_chrome_begin(job->out, false);
    int rc = cv_chrome_add(c, job);
    int erc = cv_chrome_end(c, job->out_path);
    return rc ? rc : erc;
}
