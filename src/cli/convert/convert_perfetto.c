/*
 * convert_perfetto.c - Perfetto's native trace format: a protobuf `Trace` made of
 * `TracePacket`s (schema: tests/data/perfetto/perfetto_trace.proto, what each field means:
 * docs/PERFETTO.md). Opens in ui.perfetto.dev and in Perfetto's trace processor, and,
 * unlike JSON, stays compact and streams for traces of hundreds of millions of records.
 *
 * What is written, in file order:
 *  - a ClockSnapshot (when the trace has a clock event): CLOCK_MONOTONIC and
 *    CLOCK_REALTIME at the trace's time origin, MONOTONIC as the primary trace clock;
 *    every timestamp is then CLOCK_MONOTONIC nanoseconds, exactly the Chrome JSON's
 *    (nanoseconds since the origin) plus the origin's MONOTONIC reading. Without a clock
 *    event, timestamps are nanoseconds since the origin;
 *  - when a process or thread first appears (a block of records): a TrackDescriptor
 *    for the process (pid, name, command line) and one for the thread (pid, tid, name);
 *  - each call: a TYPE_SLICE_BEGIN at its enter and a TYPE_SLICE_END at its exit on its
 *    thread's track, in the order of the records, so slices nest as the calls did, on
 *    the thread's own packet sequence (timestamps as deltas, see "calls" below). The
 *    name is interned: the first packet of the thread using a function carries it in
 *    interned_data (EventName, iid = function id + 1), later ones only the iid;
 *  - structured events (EventHeader) as TYPE_INSTANT on the thread with their fields
 *    as debug annotations, category = provider (interned EventCategory); activity
 *    start/stop as async slices on a track of their own (one per activity id), the
 *    track nested under the parent activity's track (related activity id) when that one
 *    is open, else under the process;
 *  - FR_TE_LOST as an instant "lost records" on the thread, with the count; the slices
 *    open there end at that point (their real ends are in the lost history);
 *  - FR_TE_SCHED (`record --sched`) as a slice "linux:schedule" on the thread's track
 *    from the switch out to the switch in, nested in the call that was running, with
 *    "preempted" 1 or 0;
 *  - custom and other typed events as instants with their bytes.
 * All packets but the slices are on the input's packet sequence (1 for a single input)
 * whose first packet clears the incremental state; packets that use interned ids, a
 * sequence's defaults or its clock say they need it.
 * Memory: open frames, threads, function names and open activities; nothing per record.
 */
#include <stdlib.h>
#include "call_tracker.h"
#include "commands.h"
#include "convert.h"
#include "eventheader_decode.h"
#include "pb_encode.h"

/* ------------------------------------------------------------------ field numbers */
enum {
    TRACE_PACKET = 1,
    /* TracePacket */
    TP_CLOCK_SNAPSHOT = 6, TP_TIMESTAMP = 8, TP_SEQUENCE_ID = 10, TP_TRACK_EVENT = 11,
    TP_INTERNED_DATA = 12, TP_SEQUENCE_FLAGS = 13, TP_TIMESTAMP_CLOCK_ID = 58,
    TP_TRACE_PACKET_DEFAULTS = 59, TP_TRACK_DESCRIPTOR = 60,
    SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2,
    /* TracePacketDefaults, TrackEventDefaults */
    TPD_TIMESTAMP_CLOCK_ID = 58, TPD_TRACK_EVENT_DEFAULTS = 11, TED_TRACK_UUID = 11,
    /* ClockSnapshot, ClockSnapshot.Clock */
    CS_CLOCKS = 1, CS_PRIMARY_TRACE_CLOCK = 2, CLOCK_ID = 1, CLOCK_TIMESTAMP = 2,
    CLOCK_IS_INCREMENTAL = 3,
    BUILTIN_CLOCK_REALTIME = 1, BUILTIN_CLOCK_MONOTONIC = 3, BUILTIN_CLOCK_BOOTTIME = 6,
    /* a sequence's own clock (ids 64-127 are sequence-scoped): the thread's slices */
    CLOCK_THREAD_INCREMENTAL = 64,
    /* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
    TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT_UUID = 5,
    PD_PID = 1, PD_CMDLINE = 2, PD_PROCESS_NAME = 6,
    THD_PID = 1, THD_TID = 2, THD_THREAD_NAME = 5,
    /* TrackEvent */
    TE_CATEGORY_IIDS = 3, TE_DEBUG_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10,
    TE_TRACK_UUID = 11, TE_NAME = 23,
    TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3,
    /* InternedData, EventName / EventCategory */
    ID_EVENT_CATEGORIES = 1, ID_EVENT_NAMES = 2, IN_IID = 1, IN_NAME = 2,
    /* DebugAnnotation */
    DA_BOOL = 2, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6,
    DA_LEGACY_JSON = 9, DA_NAME = 10,
};

/* Track uuids: the kind in the low two bits, so they never collide, and small, since
 * every event carries its track's (a varint of 3-4 bytes rather than 8). */
#define UUID_PROCESS(pid)  ((uint64_t)(uint32_t)(pid) << 2 | 1)
#define UUID_THREAD(tid)   ((uint64_t)(uint32_t)(tid) << 2 | 2)
#define UUID_SPAN(hash)    ((hash) << 2 | 3)
/* A thread's perf.data samples: a track of their own under the thread's (perf writes
 * them per CPU buffer, not in one time order with the trace's records). */
#define UUID_PERF(tid)     ((uint64_t)1 << 62 | (uint64_t)(uint32_t)(tid) << 2 | 2)
/* Interned event name ids: functions are id + 1 (ids < 2^28); other names above. */
#define IID_OTHER_NAMES    (1ull << 32)

enum { EH_OPCODE_ACTIVITY_START = 1, EH_OPCODE_ACTIVITY_STOP = 2 };

/* Function names sent on a thread's sequence: a bit per function id, in pages of 2^15
 * ids allocated when a function of the page is first sent (ids are dense in practice,
 * but a library's may start high). */
#define FN_PAGE_SHIFT 15
#define FN_PAGE_WORDS ((1u << FN_PAGE_SHIFT) / 64)

/* An open slice of a thread: the call tracker's open frame (call_tracker.c), what the
 * slice's end needs. */
struct slice_frame { uint64_t enter_tsc, arg; uint64_t has_arg; };

struct thread_slot {
    int32_t  tid, pid;
    uint8_t  used, described, perf_described;
    /* Its open slices, root first (see "calls"): ids[-1] is a guard that matches no
     * function id; cap entries allocated above it. */
    uint32_t depth, cap;
    uint32_t fast_limit;    /* slices_of_functions pushes while depth < fast_limit */
    uint32_t *ids;
    struct slice_frame *frames;
    uint64_t last_tsc;      /* its last function record's time (open slices end there) */
    uint32_t order_gen;     /* input in which it is in p->order */
    /* The thread's packet sequence (its slices), for input gen (else not started). */
    uint32_t seq, gen;
    uint64_t inc_last;      /* the sequence's incremental clock: last packet's time */
    /* The bytes of its slice packets after the timestamp (see put_slice). */
    uint8_t  tail_len, tail[15];
    /* Tick -> ns conversion carried from the last one (thread_ts): conv_tsc's ns since
     * the origin (>= 0), and the remainder (conv_tsc * 1e9 + tps/2) mod tps. */
    bool     conv_valid;
    uint64_t conv_tsc, conv_ns, conv_rem;
    uint64_t **fn_pages; uint32_t fn_npages;
};

struct open_span { uint8_t id[16]; uint64_t uuid; };
#define MAX_OPEN_SPANS 4096

/* Strings interned by content (event names, categories): iid per distinct string. */
struct str_slot { uint64_t hash, iid; char *s; };
struct str_table { struct str_slot *slots; size_t cap, count; uint64_t next_iid; };

struct cv_perfetto {
    cv_job  *job;              /* the input being converted */
    uint32_t gen;              /* inputs begun so far */
    uint32_t seq;              /* the input's packet sequence (all but the slices) */
    uint32_t next_seq;         /* sequence ids given so far */
    uint32_t abs_clock;        /* the builtin clock of the absolute timestamps */
    bool     clock_written;
    pb_buf   b;
    int64_t  ts_offset;          /* added to nanoseconds since the origin */
    struct thread_slot *threads; size_t threads_cap, threads_count;
    struct thread_slot *last;
    int32_t *pids; size_t n_pids, cap_pids;   /* processes described */
    struct str_table names, categories;
    struct open_span *spans; size_t n_spans;
    int32_t *order; size_t n_order, cap_order;   /* threads with slices, first first */
    fr_call_tracker_stats stats;   /* what cv_report_unmatched reports */
    uint64_t calls, events, undecodable, lost_markers, negative_times, spans_untracked;
};

static void oom(void)
{
    fprintf(stderr, "flightrec convert: out of memory\n");
    exit(1);
}

/* ------------------------------------------------------------------ packets */

static inline size_t packet_open(struct cv_perfetto *p, uint64_t ts, unsigned flags)
{
    pb_flush_if_full(&p->b);
    size_t at = pb_open(&p->b, TRACE_PACKET);
    if (ts != UINT64_MAX)
        pb_uint(&p->b, TP_TIMESTAMP, ts);
    pb_uint(&p->b, TP_SEQUENCE_ID, p->seq);
    if (flags)
        pb_uint(&p->b, TP_SEQUENCE_FLAGS, flags);
    return at;
}

/* Packet timestamp (ns, trace clock) of a tick count. */
static inline uint64_t packet_ts(struct cv_perfetto *p, uint64_t tsc)
{
    int64_t ns = cv_time_ns(p->job, tsc) + p->ts_offset;
    if (ns < 0) {            /* before the origin and no clock to place it: clamp, count */
        p->negative_times++;
        return 0;
    }
    return (uint64_t)ns;
}

/* ------------------------------------------------------------------ interning */

static uint64_t hash_bytes(const void *data, size_t n)
{
    const uint8_t *s = data;
    uint64_t h = 1469598103934665603ull;    /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

/* The iid of a string; *is_new when this is its first use (the caller sends it). */
static uint64_t str_intern(struct str_table *t, const char *s, size_t n, bool *is_new)
{
    if (t->count * 2 >= t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64;
        struct str_slot *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            oom();
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].s)
                continue;
            size_t j = t->slots[i].hash & (ncap - 1);
            while (ns[j].s)
                j = (j + 1) & (ncap - 1);
            ns[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = ns;
        t->cap = ncap;
    }
    uint64_t h = hash_bytes(s, n);
    size_t j = h & (t->cap - 1);
    for (; t->slots[j].s; j = (j + 1) & (t->cap - 1))
        if (t->slots[j].hash == h && !strncmp(t->slots[j].s, s, n) && !t->slots[j].s[n]) {
            *is_new = false;
            return t->slots[j].iid;
        }
    char *copy = malloc(n + 1);
    if (!copy)
        oom();
    memcpy(copy, s, n);
    copy[n] = 0;
    t->slots[j] = (struct str_slot){.hash = h, .iid = t->next_iid++, .s = copy};
    t->count++;
    *is_new = true;
    return t->slots[j].iid;
}

static void str_table_free(struct str_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].s);
    free(t->slots);
}

/* interned_data { event_names|event_categories { iid, name } } */
static void put_interned(pb_buf *b, uint32_t kind, uint64_t iid, const char *s, size_t n)
{
    size_t d = pb_open(b, TP_INTERNED_DATA);
    size_t e = pb_open(b, kind);
    pb_uint(b, IN_IID, iid);
    pb_bytes(b, IN_NAME, s, n);
    pb_close(b, e);
    pb_close(b, d);
}

/* ------------------------------------------------------------------ tracks */

static struct thread_slot *thread_get(struct cv_perfetto *p, int32_t tid)
{
    if (p->threads_count * 2 >= p->threads_cap) {
        p->last = NULL;
        size_t ncap = p->threads_cap ? p->threads_cap * 2 : 64;
        struct thread_slot *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            oom();
        for (size_t i = 0; i < p->threads_cap; i++) {
            if (!p->threads[i].used)
                continue;
            size_t j = ((uint32_t)p->threads[i].tid * 2654435761u) & (ncap - 1);
            while (ns[j].used)
                j = (j + 1) & (ncap - 1);
            ns[j] = p->threads[i];
        }
        free(p->threads);
        p->threads = ns;
        p->threads_cap = ncap;
    }
    size_t j = ((uint32_t)tid * 2654435761u) & (p->threads_cap - 1);
    while (p->threads[j].used && p->threads[j].tid != tid)
        j = (j + 1) & (p->threads_cap - 1);
    if (!p->threads[j].used) {
        p->threads[j] = (struct thread_slot){.tid = tid, .used = 1};
        p->threads_count++;
    }
    return &p->threads[j];
}

static inline struct thread_slot *thread_of(struct cv_perfetto *p, int32_t tid)
{
    if (p->last && p->last->tid == tid)
        return p->last;
    return p->last = thread_get(p, tid);
}

static void describe_process(struct cv_perfetto *p, int32_t pid)
{
    for (size_t i = 0; i < p->n_pids; i++)
        if (p->pids[i] == pid)
            return;
    if (p->n_pids == p->cap_pids) {
        p->cap_pids = p->cap_pids ? p->cap_pids * 2 : 8;
        p->pids = realloc(p->pids, p->cap_pids * sizeof *p->pids);
        if (!p->pids)
            oom();
    }
    p->pids[p->n_pids++] = pid;
    const fr_trace_meta *m = p->job ? p->job->meta : NULL;    /* NULL: a perf.data input */
    pb_buf *b = &p->b;
    size_t pk = packet_open(p, UINT64_MAX, 0);
    size_t td = pb_open(b, TP_TRACK_DESCRIPTOR);
    pb_uint(b, TD_UUID, UUID_PROCESS(pid));
    size_t pd = pb_open(b, TD_PROCESS);
    pb_int(b, PD_PID, pid);
    if (m && m->has_process && m->pid == (uint32_t)pid) {
        if (m->process_name && m->process_name[0])
            pb_string(b, PD_PROCESS_NAME, m->process_name);
        if (m->command_line && m->command_line[0])
            pb_string(b, PD_CMDLINE, m->command_line);
    }
    pb_close(b, pd);
    pb_close(b, td);
    pb_close(b, pk);
}

static void describe_thread(struct cv_perfetto *p, struct thread_slot *t)
{
    describe_process(p, t->pid);
    t->described = 1;
    const fr_trace_meta *m = p->job ? p->job->meta : NULL;
    pb_buf *b = &p->b;
    size_t pk = packet_open(p, UINT64_MAX, 0);
    size_t td = pb_open(b, TP_TRACK_DESCRIPTOR);
    pb_uint(b, TD_UUID, UUID_THREAD(t->tid));
    pb_uint(b, TD_PARENT_UUID, UUID_PROCESS(t->pid));
    size_t thd = pb_open(b, TD_THREAD);
    pb_int(b, THD_PID, t->pid);
    pb_int(b, THD_TID, t->tid);
    for (size_t i = 0; m && i < m->n_thread_stats; i++) {
        const fr_meta_thread *th = &m->thread_stats[i];
        if (th->tid == t->tid && th->name[0]) {
            pb_bytes(b, THD_THREAD_NAME, th->name, strnlen(th->name, sizeof th->name));
            break;
        }
    }
    pb_close(b, thd);
    pb_close(b, td);
    pb_close(b, pk);
}

/* ------------------------------------------------------------------ debug annotations */

static void annotation_uint(pb_buf *b, const char *name, uint64_t v)
{
    size_t a = pb_open(b, TE_DEBUG_ANNOTATIONS);
    pb_string(b, DA_NAME, name);
    pb_uint(b, DA_UINT, v);
    pb_close(b, a);
}

static void annotation_string(pb_buf *b, const char *name, const char *s, size_t n)
{
    size_t a = pb_open(b, TE_DEBUG_ANNOTATIONS);
    pb_string(b, DA_NAME, name);
    pb_bytes(b, DA_STRING, s, n);
    pb_close(b, a);
}

/* Whether data[0..n) is text: well-formed UTF-8 (what a protobuf string must be: no
 * overlong forms, surrogates or code points above U+10FFFF) without control characters
 * other than tab and newline. */
static bool is_text(const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint8_t c = data[i];
        if (c < 0x80) {
            if (c < 0x20 && c != '\t' && c != '\n')
                return false;
            i++;
            continue;
        }
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (c < 0xC2 || c > 0xF4 || n - i < len)
            return false;
        uint32_t cp = c & (0x7F >> len);
        for (size_t k = 1; k < len; k++) {
            if ((data[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (data[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp < 0xE000))
            return false;
        i += len;
    }
    return true;
}

/* Bytes as an annotation: "data" as text when they are text, else "hex". */
static void annotation_bytes(pb_buf *b, const uint8_t *data, size_t n)
{
    bool text = is_text(data, n);
    annotation_uint(b, "size", n);
    if (text) {
        annotation_string(b, "data", (const char *)data, n);
        return;
    }
    static const char hex[] = "0123456789abcdef";
    char *h = malloc(2 * n + 1);
    if (!h)
        oom();
    for (size_t i = 0; i < n; i++) {
        h[2 * i] = hex[data[i] >> 4];
        h[2 * i + 1] = hex[data[i] & 15];
    }
    annotation_string(b, "hex", h, 2 * n);
    free(h);
}

/* End of the JSON value starting at s[i] (string, number, literal, object, array). */
static size_t json_value_end(const char *s, size_t n, size_t i)
{
    int depth = 0;
    bool in_string = false;
    for (; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"') {
                in_string = false;
                if (depth == 0)
                    return i + 1;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth <= 0 && depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n')) {
            return i;
        }
    }
    return n;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v = v << 4 | (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 63)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 63));
        o[2] = (char)(0x80 | (cp & 63)); return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 63));
    o[2] = (char)(0x80 | (cp >> 6 & 63)); o[3] = (char)(0x80 | (cp & 63));
    return 4;
}

/* The text of the JSON string s[0..n) (quotes included, as our JSON writer made it:
 * well-formed) into out (n bytes suffice); returns its length. */
static size_t json_unescape(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        if (s[i] != '\\') {
            out[o++] = s[i];
            continue;
        }
        char e = s[++i];
        switch (e) {
        case 'n': out[o++] = '\n'; break;
        case 't': out[o++] = '\t'; break;
        case 'r': out[o++] = '\r'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'u': {
            if (i + 4 >= n)
                return o;
            uint32_t cp = hex4(s + i + 1);
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n && s[i + 1] == '\\' && s[i + 2] == 'u') {
                uint32_t lo = hex4(s + i + 3);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            o += put_utf8(out + o, cp);
            break;
        }
        default: out[o++] = e; break;       /* \" \\ \/ */
        }
    }
    return o;
}

/* One annotation per member of the event's fields, rendered as JSON object members by
 * the EventHeader decoder ("name": value, ...): strings, integers, doubles and booleans
 * with their types, anything else (arrays, objects, null) as JSON text. */
static void annotations_from_json(pb_buf *b, const char *s, size_t n)
{
    char *tmp = malloc(n + 1);
    if (!tmp)
        oom();
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == ',' || s[i] == '\n'))
            i++;
        if (i >= n || s[i] != '"')
            break;
        size_t ke = json_value_end(s, n, i);
        size_t klen = json_unescape(s + i, ke - i, tmp);
        i = ke;
        while (i < n && (s[i] == ' ' || s[i] == ':'))
            i++;
        size_t ve = json_value_end(s, n, i);
        const char *v = s + i;
        size_t vlen = ve - i;
        i = ve;
        size_t a = pb_open(b, TE_DEBUG_ANNOTATIONS);
        pb_bytes(b, DA_NAME, tmp, klen);
        char num[64];
        bool is_int = vlen > 0 && vlen < sizeof num;
        bool is_num = is_int;
        for (size_t k = 0; k < vlen && is_num; k++) {
            char c = v[k];
            if (c == '.' || c == 'e' || c == 'E' || c == '+')
                is_int = false;
            else if (!(c >= '0' && c <= '9') && !(c == '-'))
                is_num = false;
        }
        if (vlen && v[0] == '"') {
            size_t slen = json_unescape(v, vlen, tmp);
            pb_bytes(b, DA_STRING, tmp, slen);
        } else if (vlen == 4 && !memcmp(v, "true", 4)) {
            pb_uint(b, DA_BOOL, 1);
        } else if (vlen == 5 && !memcmp(v, "false", 5)) {
            pb_uint(b, DA_BOOL, 0);
        } else if (is_num) {
            memcpy(num, v, vlen);
            num[vlen] = 0;
            if (is_int && v[0] == '-')
                pb_int(b, DA_INT, strtoll(num, NULL, 10));
            else if (is_int)
                pb_uint(b, DA_UINT, strtoull(num, NULL, 10));
            else
                pb_double(b, DA_DOUBLE, strtod(num, NULL));
        } else {
            pb_bytes(b, DA_LEGACY_JSON, v, vlen);
        }
        pb_close(b, a);
    }
    free(tmp);
}

/* ------------------------------------------------------------------ calls */

/* Each thread's slices are a packet sequence of their own (as Perfetto's own writers do,
 * one per thread), which makes their packets small: the sequence's first packet sets
 * defaults for the ones after it, the thread's track (no track uuid in each event) and
 * the sequence's own clock, CLOCK_THREAD_INCREMENTAL, on which a packet's timestamp is
 * the nanoseconds since the previous packet's (one or two bytes, not eight). That clock
 * is tied to the absolute one (abs_clock) by a ClockSnapshot in the same first packet,
 * at the time of the first slice. A time before the previous packet's (a clock that went
 * backwards between two blocks) is written absolute, on abs_clock, in that packet. The
 * function names are interned per sequence, so sent once per thread that calls them. */

static inline bool fn_sent(const struct thread_slot *t, uint32_t id)
{
    uint32_t pg = id >> FN_PAGE_SHIFT;
    return pg < t->fn_npages && t->fn_pages[pg] &&
           (t->fn_pages[pg][(id >> 6) & (FN_PAGE_WORDS - 1)] >> (id & 63) & 1);
}

static void fn_mark_sent(struct thread_slot *t, uint32_t id)
{
    uint32_t pg = id >> FN_PAGE_SHIFT;
    if (pg >= t->fn_npages) {
        uint64_t **np = realloc(t->fn_pages, (pg + 1) * sizeof *np);
        if (!np)
            oom();
        memset(np + t->fn_npages, 0, (pg + 1 - t->fn_npages) * sizeof *np);
        t->fn_pages = np;
        t->fn_npages = pg + 1;
    }
    if (!t->fn_pages[pg] && !(t->fn_pages[pg] = calloc(FN_PAGE_WORDS, sizeof (uint64_t))))
        oom();
    t->fn_pages[pg][(id >> 6) & (FN_PAGE_WORDS - 1)] |= 1ull << (id & 63);
}

static void fn_pages_free(struct thread_slot *t)
{
    for (uint32_t i = 0; i < t->fn_npages; i++)
        free(t->fn_pages[i]);
    free(t->fn_pages);
    t->fn_pages = NULL;
    t->fn_npages = 0;
}

/* packet_ts(p, tsc) for a record of thread t, exactly (cv_clock_ns's rounding, see
 * convert.h): ns = floor((ticks * 1e9 + tps/2) / tps) is carried from the thread's
 * previous conversion, with one division by the clock's multiply-shift (cv_clock_div)
 * instead of two, while the thread's ticks move forward from a time at or after the
 * origin (the usual case); anything else goes through packet_ts. */
__attribute__((noinline))
static uint64_t thread_ts_full(struct cv_perfetto *p, struct thread_slot *t, uint64_t tsc)
{
    const cv_clock *c = &p->job->clock;
    int64_t ticks = fr_cli_rel(p->job->trace, tsc);
    t->conv_valid = false;
    if (!c->fast || ticks < 0)
        return packet_ts(p, tsc);
    /* cv_clock_ns's steps, keeping the second division's remainder */
    uint64_t a = (uint64_t)ticks;
    uint64_t q = cv_clock_div(c, a), r = a - q * c->tps;
    uint64_t n2 = r * 1000000000u + c->tps / 2, q2 = cv_clock_div(c, n2);
    uint64_t ns = q * 1000000000u + q2;
    if ((int64_t)ns < 0)
        return packet_ts(p, tsc);
    t->conv_valid = true;
    t->conv_tsc = tsc;
    t->conv_ns = ns;
    t->conv_rem = n2 - q2 * c->tps;
    return ns + (uint64_t)p->ts_offset;
}

static inline __attribute__((always_inline)) uint64_t thread_ts(struct cv_perfetto *p, struct thread_slot *t, uint64_t tsc)
{
    uint64_t d = tsc - t->conv_tsc;
    if (__builtin_expect(!t->conv_valid || d >= (1ull << 33), 0))   /* d * 1e9 < 2^63 */
        return thread_ts_full(p, t, tsc);
    const cv_clock *c = &p->job->clock;
    uint64_t x = t->conv_rem + d * 1000000000u;
    uint64_t q = cv_clock_div(c, x);
    t->conv_rem = x - q * c->tps;
    t->conv_ns += q;
    t->conv_tsc = tsc;
    return t->conv_ns + (uint64_t)p->ts_offset;
}

static inline uint8_t *put_varint(uint8_t *q, uint64_t v)
{
    while (v >= 0x80) {
        *q++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *q++ = (uint8_t)v;
    return q;
}

/* The thread's sequence for this input, begun with the packet that clears its
 * incremental state, sets its defaults and its clock (at ts, the first slice's time). */
__attribute__((noinline))
static void thread_sequence_start(struct cv_perfetto *p, struct thread_slot *t, uint64_t ts)
{
    t->seq = ++p->next_seq;
    t->gen = p->gen;
    t->inc_last = ts;
    for (uint32_t i = 0; i < t->fn_npages; i++)
        if (t->fn_pages[i])
            memset(t->fn_pages[i], 0, FN_PAGE_WORDS * sizeof (uint64_t));
    /* What follows every slice packet's timestamp: sequence id, flags (they use the
     * sequence's clock and names), TrackEvent key and length, type; put_slice sets the
     * length and type (the last three bytes but one, and the last). */
    uint8_t *q = t->tail;
    *q++ = TP_SEQUENCE_ID << 3 | PB_VARINT;
    q = put_varint(q, t->seq);
    *q++ = TP_SEQUENCE_FLAGS << 3 | PB_VARINT;
    *q++ = SEQ_NEEDS_INCREMENTAL_STATE;
    *q++ = TP_TRACK_EVENT << 3 | PB_LEN;
    *q++ = 2;
    *q++ = TE_TYPE << 3 | PB_VARINT;
    *q++ = TYPE_SLICE_END;
    t->tail_len = (uint8_t)(q - t->tail);

    pb_buf *b = &p->b;
    pb_flush_if_full(b);
    size_t pk = pb_open(b, TRACE_PACKET);
    pb_uint(b, TP_SEQUENCE_ID, t->seq);
    pb_uint(b, TP_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
    size_t d = pb_open(b, TP_TRACE_PACKET_DEFAULTS);
    pb_uint(b, TPD_TIMESTAMP_CLOCK_ID, CLOCK_THREAD_INCREMENTAL);
    size_t ted = pb_open(b, TPD_TRACK_EVENT_DEFAULTS);
    pb_uint(b, TED_TRACK_UUID, UUID_THREAD(t->tid));
    pb_close(b, ted);
    pb_close(b, d);
    size_t cs = pb_open(b, TP_CLOCK_SNAPSHOT);
    size_t c = pb_open(b, CS_CLOCKS);
    pb_uint(b, CLOCK_ID, CLOCK_THREAD_INCREMENTAL);
    pb_uint(b, CLOCK_TIMESTAMP, ts);
    pb_uint(b, CLOCK_IS_INCREMENTAL, 1);
    pb_close(b, c);
    c = pb_open(b, CS_CLOCKS);
    pb_uint(b, CLOCK_ID, p->abs_clock);
    pb_uint(b, CLOCK_TIMESTAMP, ts);
    pb_close(b, c);
    pb_close(b, cs);
    pb_close(b, pk);
}

/* Opens a packet of thread t's sequence at time ts (thread_ts): its timestamp, sequence
 * id and flags; the caller adds the track event and closes it. */
static size_t thread_packet_open_ts(struct cv_perfetto *p, struct thread_slot *t, uint64_t ts)
{
    if (t->gen != p->gen)
        thread_sequence_start(p, t, ts);
    pb_buf *b = &p->b;
    pb_flush_if_full(b);
    size_t at = pb_open(b, TRACE_PACKET);
    if (ts >= t->inc_last) {
        pb_uint(b, TP_TIMESTAMP, ts - t->inc_last);
        t->inc_last = ts;
    } else {                    /* back in time: absolute, the sequence's clock unchanged */
        pb_uint(b, TP_TIMESTAMP, ts);
        pb_uint(b, TP_TIMESTAMP_CLOCK_ID, p->abs_clock);
    }
    pb_uint(b, TP_SEQUENCE_ID, t->seq);
    pb_uint(b, TP_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
    return at;
}

static size_t thread_packet_open(struct cv_perfetto *p, struct thread_slot *t, uint64_t tsc)
{
    return thread_packet_open_ts(p, t, thread_ts(p, t, tsc));
}

__attribute__((noinline))
static void put_slice_slow(struct cv_perfetto *p, struct thread_slot *t, uint64_t ts, bool begin,
                           uint64_t iid)
{
    pb_buf *b = &p->b;
    size_t pk = thread_packet_open_ts(p, t, ts);
    size_t te = pb_open(b, TP_TRACK_EVENT);
    pb_uint(b, TE_TYPE, begin ? TYPE_SLICE_BEGIN : TYPE_SLICE_END);
    if (begin)
        pb_uint(b, TE_NAME_IID, iid);
    pb_close(b, te);
    pb_close(b, pk);
}

/* A slice's begin (name already sent) or end, the packets of nearly every record: the
 * same bytes as put_slice_slow, written in one go (every length fits a byte). */
static inline __attribute__((always_inline)) void put_slice(struct cv_perfetto *p, struct thread_slot *t, uint64_t tsc, bool begin,
                             uint64_t iid)
{
    pb_buf *b = &p->b;
    uint64_t ts = thread_ts(p, t, tsc);
    /* (the buffer has room: below half full, with a buffer of 1 MiB or more) */
    if (__builtin_expect(t->gen != p->gen || ts < t->inc_last || b->len >= b->cap / 2, 0)) {
        put_slice_slow(p, t, ts, begin, iid);
        return;
    }
    uint8_t *start = b->buf + b->len, *q = start + 2;
    *q++ = TP_TIMESTAMP << 3 | PB_VARINT;
    q = put_varint(q, ts - t->inc_last);
    t->inc_last = ts;
    memcpy(q, t->tail, sizeof t->tail);
    q += t->tail_len;
    if (begin) {
        uint8_t *tail_end = q;
        tail_end[-1] = TYPE_SLICE_BEGIN;
        *q++ = TE_NAME_IID << 3 | PB_VARINT;
        q = put_varint(q, iid);
        tail_end[-3] = (uint8_t)(2 + (q - tail_end));     /* the TrackEvent's length */
    }
    start[0] = TRACE_PACKET << 3 | PB_LEN;
    start[1] = (uint8_t)(q - start - 2);
    b->len += (size_t)(q - start);
}

static inline void slice_end(struct cv_perfetto *p, struct thread_slot *t, uint64_t tsc)
{
    put_slice(p, t, tsc, false, 0);
}

/* A slice's begin whose function name is not sent on t's sequence yet: sent with it. */
__attribute__((noinline))
static void slice_begin_new_name(struct cv_perfetto *p, struct thread_slot *t, uint64_t tsc, uint32_t id)
{
    pb_buf *b = &p->b;
    size_t pk = thread_packet_open(p, t, tsc);   /* (starts the sequence if need be) */
    fn_mark_sent(t, id);
    const char *name = fr_symbols_name(p->job->symbols, id);
    put_interned(b, ID_EVENT_NAMES, (uint64_t)id + 1, name, strlen(name));
    size_t te = pb_open(b, TP_TRACK_EVENT);
    pb_uint(b, TE_TYPE, TYPE_SLICE_BEGIN);
    pb_uint(b, TE_NAME_IID, (uint64_t)id + 1);
    pb_close(b, te);
    pb_close(b, pk);
}

static inline void slice_begin(struct cv_perfetto *p, struct thread_slot *t, uint64_t tsc, uint32_t id)
{
    if (__builtin_expect(t->gen == p->gen && fn_sent(t, id), 1))
        put_slice(p, t, tsc, true, (uint64_t)id + 1);
    else
        slice_begin_new_name(p, t, tsc, id);
}

/* The calls become slices by the call tracker's rules (call_tracker.h), applied here to
 * the slices rather than through fr_call_tracker: Perfetto needs no calls (no stacks,
 * durations or child times), only a begin at each enter and an end at the exit that
 * matches it, and following the records here is most of what makes the conversion
 * cheap (see slices_of_functions). The rules: an exit of the innermost open slice's
 * function ends it (at the enter's time if the clock went back); an exit of a function
 * deeper in the stack first ends the slices above it ("closed by an exit of a caller");
 * an exit of a function not open is dropped (counted); enters deeper than
 * FR_CALL_TRACKER_MAX_DEPTH are ignored; FR_TE_LOST ends the open slices there
 * (lost_record); at the end of an input, open slices end at the thread's last function
 * record ("still open at the end"), thread by thread in the order they first had one. */

__attribute__((noinline))
static void thread_stack_grow(struct cv_perfetto *p, struct thread_slot *t)
{
    (void)p;
    uint32_t cap = t->cap ? 2 * t->cap : 64;
    uint32_t *ids = realloc(t->cap ? t->ids - 1 : NULL, (cap + 1) * sizeof *ids);
    struct slice_frame *frames = realloc(t->frames, cap * sizeof *frames);
    if (!ids || !frames)
        oom();
    ids[0] = UINT32_MAX;                     /* the guard: above any function id */
    t->ids = ids + 1;
    t->frames = frames;
    t->cap = cap;
    t->fast_limit = cap - 1 < FR_CALL_TRACKER_MAX_DEPTH ? cap - 1 : FR_CALL_TRACKER_MAX_DEPTH;
}

/* t is one of the input's threads with slices, in p->order. */
static inline void thread_in_order(struct cv_perfetto *p, struct thread_slot *t)
{
    if (__builtin_expect(t->order_gen == p->gen, 1))
        return;
    if (p->n_order == p->cap_order) {
        p->cap_order = p->cap_order ? 2 * p->cap_order : 16;
        if (!(p->order = realloc(p->order, p->cap_order * sizeof *p->order)))
            oom();
    }
    p->order[p->n_order++] = t->tid;
    t->order_gen = p->gen;
}

/* Ends t's innermost open slice at exit_tsc (flags: enum fr_call_flags); the end carries
 * the enter's argument and how it ended as annotations, which Perfetto merges into the
 * slice's arguments. */
static void slice_close_top(struct cv_perfetto *p, struct thread_slot *t, uint64_t exit_tsc, unsigned flags)
{
    const struct slice_frame *f = &t->frames[--t->depth];
    if (exit_tsc < f->enter_tsc)        /* a clock that went backwards: a call of length 0 */
        exit_tsc = f->enter_tsc;
    p->calls++;
    if (!f->has_arg && !(flags & (FR_CALL_CLOSED_BY_UNWIND | FR_CALL_OPEN_AT_END))) {
        slice_end(p, t, exit_tsc);
        return;
    }
    pb_buf *b = &p->b;
    size_t pk = thread_packet_open(p, t, exit_tsc);
    size_t te = pb_open(b, TP_TRACK_EVENT);
    pb_uint(b, TE_TYPE, TYPE_SLICE_END);
    if (f->has_arg)
        annotation_uint(b, "arg", f->arg);
    if (flags & FR_CALL_CLOSED_BY_UNWIND)
        annotation_string(b, "end", "closed by an exit of a caller (unwind)", 38);
    else if (flags & FR_CALL_OPEN_AT_END)
        annotation_string(b, "end", "still open at the end of the trace", 34);
    pb_close(b, te);
    pb_close(b, pk);
}

/* Any function record of thread t (kind enum fr_record_kind, arg for FR_REC_ENTER_ARG). */
__attribute__((noinline))
static void slice_record(struct cv_perfetto *p, struct thread_slot *t, unsigned kind, uint32_t id,
                         uint64_t tsc, uint64_t arg)
{
    thread_in_order(p, t);
    t->last_tsc = tsc;
    if (kind == FR_REC_ENTER || kind == FR_REC_ENTER_ARG) {
        if (t->depth >= FR_CALL_TRACKER_MAX_DEPTH) {
            p->stats.too_deep++;
            return;
        }
        if (t->depth + 1 >= t->cap)
            thread_stack_grow(p, t);
        t->ids[t->depth] = id;
        t->frames[t->depth++] = (struct slice_frame){
            .enter_tsc = tsc, .arg = arg, .has_arg = kind == FR_REC_ENTER_ARG};
        slice_begin(p, t, tsc, id);
        return;
    }
    uint32_t d = t->depth;
    while (d > 0 && t->ids[d - 1] != id)
        d--;
    if (d == 0) {
        p->stats.unmatched_exits++;
        return;
    }
    while (t->depth > d) {
        slice_close_top(p, t, tsc, FR_CALL_CLOSED_BY_UNWIND);
        p->stats.closed_by_unwind++;
    }
    slice_close_top(p, t, tsc, 0);
}

/* A batch of plain function records of one thread (fr_cli_next_functions). The common
 * case, an enter of a function whose name was sent or an exit of the innermost slice's
 * function (entered without an argument), at a time not before the thread's previous
 * one, runs in one loop with the thread's state, the clock and the buffer position in
 * locals (through the structures, every byte written to the buffer, which may alias
 * them, made the compiler reload them all); it writes exactly what slice_record and
 * put_slice would. Anything else stops it: the state is written back and that record
 * goes through slice_record. */
static void slices_of_functions(struct cv_perfetto *p, int32_t tid, const fr_function_record *r, size_t n)
{
    struct thread_slot *t = thread_of(p, tid);
    thread_in_order(p, t);
    if (!t->cap)
        thread_stack_grow(p, t);
    const cv_clock *c = &p->job->clock;
    pb_buf *b = &p->b;
    size_t i = 0;
    while (i < n) {
        /* (the sequence's last time is the clock's: a packet written back in time, whose
         * next one's delta is from an older time, goes through slice_record) */
        if (t->gen == p->gen && t->conv_valid && c->fast && c->sh1 == 1 &&
            t->conv_ns + (uint64_t)p->ts_offset == t->inc_last) {
            const uint64_t magic = c->magic, tps = c->tps;
            const unsigned sh2 = c->sh2;
            uint32_t *const ids = t->ids;
            struct slice_frame *const frames = t->frames;
            uint64_t *const *const pages = t->fn_pages;
            const uint32_t npages = t->fn_npages, limit = t->fast_limit;
            const uint32_t d0 = t->depth;
            uint32_t d = d0;
            uint64_t conv_tsc = t->conv_tsc, conv_ns = t->conv_ns, rem = t->conv_rem;
            uint8_t *q = b->buf + b->len;
            uint8_t *const q_end = b->buf + b->cap / 2;     /* then pb_write_out, slowly */
            const size_t i0 = i;
            for (; i < n && q < q_end; i++) {
                const uint32_t id = r[i].function_id;
                const uint64_t tsc = r[i].tsc;
                const bool enter = r[i].kind == FR_REC_ENTER;
                uint64_t at = tsc;
                if (enter) {
                    uint32_t pg = id >> FN_PAGE_SHIFT;
                    if (!(d < limit && pg < npages && pages[pg] &&
                          (pages[pg][(id >> 6) & (FN_PAGE_WORDS - 1)] >> (id & 63) & 1)))
                        break;
                } else {
                    if (ids[(int32_t)d - 1] != id || frames[d - 1].has_arg)
                        break;
                    uint64_t e = frames[d - 1].enter_tsc;
                    at = tsc < e ? e : tsc;
                }
                const uint64_t dt = at - conv_tsc;
                if (dt >= (1ull << 33))           /* back in time, or far: thread_ts_full */
                    break;
                /* thread_ts's step */
                const uint64_t x = rem + dt * 1000000000u;
                const uint64_t t1 = (uint64_t)(((unsigned __int128)magic * x) >> 64);
                const uint64_t inc = (t1 + ((x - t1) >> 1)) >> sh2;     /* cv_clock_div */
                rem = x - inc * tps;
                conv_ns += inc;
                conv_tsc = at;
                /* put_slice's bytes (the delta: from the previous packet, the clock's) */
                uint8_t *start = q;
                q += 2;
                *q++ = TP_TIMESTAMP << 3 | PB_VARINT;
                q = put_varint(q, inc);
                memcpy(q, t->tail, sizeof t->tail);
                q += t->tail_len;
                if (enter) {
                    uint8_t *tail_end = q;
                    tail_end[-1] = TYPE_SLICE_BEGIN;
                    *q++ = TE_NAME_IID << 3 | PB_VARINT;
                    q = put_varint(q, (uint64_t)id + 1);
                    tail_end[-3] = (uint8_t)(2 + (q - tail_end));
                    ids[d] = id;
                    frames[d].enter_tsc = tsc;
                    frames[d].has_arg = 0;
                    d++;
                } else {
                    d--;
                }
                start[0] = TRACE_PACKET << 3 | PB_LEN;
                start[1] = (uint8_t)(q - start - 2);
            }
            if (i > i0) {
                /* enters - exits = d - d0, enters + exits = i - i0 */
                p->calls += ((i - i0) - ((int64_t)d - (int64_t)d0)) / 2;
                t->last_tsc = r[i - 1].tsc;
                t->inc_last = conv_ns + (uint64_t)p->ts_offset;
            }
            b->len = (size_t)(q - b->buf);
            t->depth = d;
            t->conv_tsc = conv_tsc;
            t->conv_ns = conv_ns;
            t->conv_rem = rem;
            if (i == n)
                break;
        }
        slice_record(p, t, r[i].kind, r[i].function_id, r[i].tsc, 0);
        i++;
    }
}

/* The end of an input: every open slice ends at its thread's last function record. */
static void slices_finish(struct cv_perfetto *p)
{
    for (size_t i = 0; i < p->n_order; i++) {
        struct thread_slot *t = thread_of(p, p->order[i]);
        while (t->depth) {
            slice_close_top(p, t, t->last_tsc, FR_CALL_OPEN_AT_END);
            p->stats.open_at_end++;
        }
    }
    p->n_order = 0;
}

/* ------------------------------------------------------------------ other records */

/* Opens an instant's packet at ts (ns, the trace clock) and its track event (name
 * interned); the caller adds annotations and closes both. */
static void instant_open(struct cv_perfetto *p, uint64_t ts, uint64_t track, const char *name,
                         size_t name_len, const char *category, size_t cat_len,
                         unsigned type, size_t *pk, size_t *te)
{
    pb_buf *b = &p->b;
    bool new_name, new_cat = false;
    uint64_t name_iid = str_intern(&p->names, name, name_len, &new_name);
    uint64_t cat_iid = category ? str_intern(&p->categories, category, cat_len, &new_cat) : 0;
    *pk = packet_open(p, ts, SEQ_NEEDS_INCREMENTAL_STATE);
    if (new_name || new_cat) {
        size_t d = pb_open(b, TP_INTERNED_DATA);
        if (new_cat) {
            size_t e = pb_open(b, ID_EVENT_CATEGORIES);
            pb_uint(b, IN_IID, cat_iid);
            pb_bytes(b, IN_NAME, category, cat_len);
            pb_close(b, e);
        }
        if (new_name) {
            size_t e = pb_open(b, ID_EVENT_NAMES);
            pb_uint(b, IN_IID, name_iid);
            pb_bytes(b, IN_NAME, name, name_len);
            pb_close(b, e);
        }
        pb_close(b, d);
    }
    *te = pb_open(b, TP_TRACK_EVENT);
    pb_uint(b, TE_TYPE, type);
    pb_uint(b, TE_TRACK_UUID, track);
    if (category)
        pb_uint(b, TE_CATEGORY_IIDS, cat_iid);
    if (type != TYPE_SLICE_END)
        pb_uint(b, TE_NAME_IID, name_iid);
}

static void instant_close(struct cv_perfetto *p, size_t pk, size_t te)
{
    pb_close(&p->b, te);
    pb_close(&p->b, pk);
}

static void instant_bytes(struct cv_perfetto *p, const fr_record *rec, const char *name, int type)
{
    size_t pk, te;
    instant_open(p, packet_ts(p, rec->tsc), UUID_THREAD(rec->tid), name, strlen(name), NULL, 0,
                 TYPE_INSTANT, &pk, &te);
    if (type >= 0)
        annotation_uint(&p->b, "type", (uint64_t)type);
    annotation_bytes(&p->b, rec->data, rec->size);
    instant_close(p, pk, te);
}

static void lost_record(struct cv_perfetto *p, const fr_record *rec, struct thread_slot *t)
{
    uint64_t dropped = 0;
    if (rec->size >= 8)
        memcpy(&dropped, rec->data, 8);
    /* The open slices' ends are in the lost history: they end here, and what follows
     * starts from an empty stack. */
    thread_in_order(p, t);
    t->last_tsc = rec->tsc;
    p->stats.discarded_at_lost += t->depth;
    for (; t->depth; t->depth--)
        slice_end(p, t, rec->tsc);
    size_t pk, te;
    instant_open(p, packet_ts(p, rec->tsc), UUID_THREAD(rec->tid), "lost records", 12, NULL, 0,
                 TYPE_INSTANT, &pk, &te);
    annotation_uint(&p->b, "records", dropped);
    instant_close(p, pk, te);
    p->lost_markers++;
}

/* A stretch off the CPU: a slice on the thread's track (the function slices' track:
 * Perfetto nests it in the call open at that time). */
static void sched_slice(struct cv_perfetto *p, const fr_record *rec, struct thread_slot *t)
{
    struct fr_te_sched s;
    if (rec->size < sizeof s)
        return;
    memcpy(&s, rec->data, sizeof s);
    thread_in_order(p, t);
    t->last_tsc = rec->tsc;
    size_t pk, te;
    instant_open(p, packet_ts(p, rec->tsc - s.off_ticks), UUID_THREAD(rec->tid),
                 "linux:schedule", 14, NULL, 0, TYPE_SLICE_BEGIN, &pk, &te);
    annotation_uint(&p->b, "preempted", (s.flags & FR_SCHED_PREEMPTED) ? 1 : 0);
    instant_close(p, pk, te);
    instant_open(p, packet_ts(p, rec->tsc), UUID_THREAD(rec->tid), "linux:schedule", 14, NULL,
                 0, TYPE_SLICE_END, &pk, &te);
    instant_close(p, pk, te);
}

static struct open_span *find_span(struct cv_perfetto *p, const uint8_t id[16])
{
    for (size_t i = p->n_spans; i-- > 0;)
        if (!memcmp(p->spans[i].id, id, 16))
            return &p->spans[i];
    return NULL;
}

static void uuid_text(const uint8_t id[16], char out[33])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hex[id[i] >> 4];
        out[2 * i + 1] = hex[id[i] & 15];
    }
    out[32] = 0;
}

/* An EventHeader event at ts of process pid: an instant on track (its thread's) with
 * its fields as annotations, or an activity's begin or end on the activity's track. fields: its
 * members as JSON (NULL: undecodable, err says why). */
static void eh_event_out(struct cv_perfetto *p, const fr_eh_event *ev, const char *fields,
                         size_t flen, const char *err, int32_t pid, uint64_t ts, uint64_t track)
{
    const char *name = ev->name ? ev->name : "event";
    unsigned type = TYPE_INSTANT;
    struct open_span *span = NULL;
    uint64_t parent_track = 0;
    if (ev->has_activity && ev->opcode == EH_OPCODE_ACTIVITY_START) {
        if (p->n_spans < MAX_OPEN_SPANS) {
            span = &p->spans[p->n_spans++];
            memcpy(span->id, ev->activity, 16);
            /* A perf.data input's activities get tracks apart from the traces' (the
             * same event reaches both sinks, with the same activity id). */
            uint64_t salt = p->job ? 0 : 0x9E3779B97F4A7C15ull * p->gen;
            span->uuid = UUID_SPAN((hash_bytes(ev->activity, 16) ^ salt) >> 8);
            struct open_span *parent = ev->has_related ? find_span(p, ev->related) : NULL;
            parent_track = parent ? parent->uuid : UUID_PROCESS(pid);
            track = span->uuid;
            type = TYPE_SLICE_BEGIN;
        } else {
            p->spans_untracked++;
        }
    } else if (ev->has_activity && ev->opcode == EH_OPCODE_ACTIVITY_STOP) {
        span = find_span(p, ev->activity);
        if (span) {
            track = span->uuid;
            type = TYPE_SLICE_END;
        }
    }
    pb_buf *b = &p->b;
    if (type == TYPE_SLICE_BEGIN) {    /* the activity's own track, under its parent */
        size_t pk = packet_open(p, UINT64_MAX, 0);
        size_t td = pb_open(b, TP_TRACK_DESCRIPTOR);
        pb_uint(b, TD_UUID, track);
        pb_uint(b, TD_PARENT_UUID, parent_track);
        pb_string(b, TD_NAME, name);
        pb_close(b, td);
        pb_close(b, pk);
    }
    size_t pk, te;
    instant_open(p, ts, track, name, strlen(name), ev->provider, ev->provider_len, type, &pk, &te);
    if (fields) {
        annotations_from_json(b, fields, flen);
    } else {
        p->undecodable++;
        annotation_string(b, "error", err, strlen(err));
    }
    annotation_uint(b, "level", ev->level);
    char text[33];
    snprintf(text, sizeof text, "0x%llx", (unsigned long long)ev->keyword);
    annotation_string(b, "keyword", text, strlen(text));
    if (ev->has_activity) {
        uuid_text(ev->activity, text);
        annotation_string(b, "activity", text, 32);
    }
    if (ev->has_related) {
        uuid_text(ev->related, text);
        annotation_string(b, "related_activity", text, 32);
    }
    instant_close(p, pk, te);
    if (type == TYPE_SLICE_END)
        *span = p->spans[--p->n_spans];
    p->events++;
}

static void structured_event(struct cv_perfetto *p, const fr_record *rec, struct thread_slot *t)
{
    const uint8_t *nul = memchr(rec->data, 0, rec->size);
    char err[256];
    fr_eh_event ev;
    if (!nul || fr_eh_decode((const char *)rec->data, nul + 1, rec->size - (size_t)(nul + 1 - rec->data),
                             &ev, err, sizeof err)) {
        p->undecodable++;
        instant_bytes(p, rec, "undecodable event", FR_TE_EVENT);
        return;
    }
    char *fields = NULL;
    size_t flen = 0;
    FILE *f = open_memstream(&fields, &flen);
    if (!f)
        oom();
    int frc = fr_eh_write_fields_json(&ev, f, err, sizeof err);
    fclose(f);
    eh_event_out(p, &ev, frc == 0 ? fields : NULL, flen, err, t->pid, packet_ts(p, rec->tsc),
                 UUID_THREAD(rec->tid));
    free(fields);
}

/* ------------------------------------------------------------------ the trace */

static void clock_snapshot(struct cv_perfetto *p)
{
    const fr_trace_meta *m = p->job->meta;
    if (!cv_monotonic_origin(p->job, &p->ts_offset)) {
        p->ts_offset = 0;
        p->abs_clock = BUILTIN_CLOCK_BOOTTIME;   /* what a trace without a snapshot uses */
        return;
    }
    p->abs_clock = BUILTIN_CLOCK_MONOTONIC;
    if (p->clock_written)      /* merged inputs: one snapshot, every file on MONOTONIC */
        return;
    p->clock_written = true;
    pb_buf *b = &p->b;
    size_t pk = packet_open(p, (uint64_t)m->base_monotonic_ns, 0);
    size_t cs = pb_open(b, TP_CLOCK_SNAPSHOT);
    size_t c = pb_open(b, CS_CLOCKS);
    pb_uint(b, CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
    pb_uint(b, CLOCK_TIMESTAMP, (uint64_t)m->base_monotonic_ns);
    pb_close(b, c);
    c = pb_open(b, CS_CLOCKS);
    pb_uint(b, CLOCK_ID, BUILTIN_CLOCK_REALTIME);
    pb_uint(b, CLOCK_TIMESTAMP, (uint64_t)m->base_realtime_ns);
    pb_close(b, c);
    pb_uint(b, CS_PRIMARY_TRACE_CLOCK, BUILTIN_CLOCK_MONOTONIC);
    pb_close(b, cs);
    pb_close(b, pk);
}

/* An input's packet sequence (interned ids are per sequence) for job (NULL: a perf.data),
 * its first packet clearing the incremental state (interned names start empty). */
static void sequence_begin(struct cv_perfetto *p, cv_job *job)
{
    p->job = job;
    p->gen++;
    p->seq = ++p->next_seq;
    p->last = NULL;
    p->n_spans = 0;
    str_table_free(&p->names);
    str_table_free(&p->categories);
    memset(&p->names, 0, sizeof p->names);
    memset(&p->categories, 0, sizeof p->categories);
    p->names.next_iid = IID_OTHER_NAMES;
    p->categories.next_iid = 1;
    size_t pk = packet_open(p, UINT64_MAX, SEQ_INCREMENTAL_STATE_CLEARED);
    pb_close(&p->b, pk);
}

cv_perfetto *cv_perfetto_begin(FILE *out)
{
    cv_perfetto *p = calloc(1, sizeof *p);
    if (!p)
        oom();
    p->spans = calloc(MAX_OPEN_SPANS, sizeof *p->spans);
    pb_init(&p->b, out);
    if (!p->spans || p->b.failed)
        oom();
    return p;
}

int cv_perfetto_add(cv_perfetto *pp, cv_job *job)
{
    struct cv_perfetto *const p = pp;
    /* Packet sequences of its own per input (interned ids are per sequence): one for all
     * but the slices, one per thread for those (started at the thread's first). */
    sequence_begin(p, job);
    for (size_t i = 0; i < p->threads_cap; i++)
        p->threads[i].conv_valid = false;     /* another clock and origin */
    uint64_t undecodable = p->undecodable, negative = p->negative_times, untracked = p->spans_untracked;
    memset(&p->stats, 0, sizeof p->stats);

    clock_snapshot(p);
    fr_record rec;
    fr_read_status st;
    fr_function_record batch[256];
    int32_t tid;
    for (;;) {
        size_t n = fr_cli_next_functions(job->trace, batch, 256, &tid);
        if (n) {
            slices_of_functions(p, tid, batch, n);
            continue;
        }
        if ((st = cv_next(job, &rec)) != FR_READ_OK)
            break;
        switch (rec.kind) {
        case FR_REC_ENTER: case FR_REC_EXIT: case FR_REC_TAIL_EXIT: case FR_REC_ENTER_ARG: {
            struct thread_slot *t = thread_of(p, rec.tid);
            if (!t->cap)
                thread_stack_grow(p, t);
            slice_record(p, t, rec.kind, rec.function_id, rec.tsc, rec.arg);
            break;
        }
        case FR_REC_BLOCK: {
            if (rec.tid == 0)        /* the metadata block */
                break;
            struct thread_slot *t = thread_of(p, rec.tid);
            if (!t->described) {
                t->pid = rec.pid;
                describe_thread(p, t);
            }
            break;
        }
        case FR_REC_CUSTOM:
            instant_bytes(p, &rec, "custom event", -1);
            break;
        case FR_REC_TYPED:
            if (rec.event_type == FR_TE_EVENT) {
                structured_event(p, &rec, thread_of(p, rec.tid));
            } else if (rec.event_type == FR_TE_EVENT_RUN) {
                /* an event whose site the file does not describe (fr_reader.h) */
                p->undecodable++;
                instant_bytes(p, &rec, "event without its site's metadata", FR_TE_EVENT_RUN);
            } else if (rec.event_type == FR_TE_LOST) {
                lost_record(p, &rec, thread_of(p, rec.tid));
            } else if (rec.event_type == FR_TE_SCHED) {
                sched_slice(p, &rec, thread_of(p, rec.tid));
            } else if (rec.event_type >= FR_TE_FIRST && rec.event_type <= FR_TE_LAST) {
                /* our metadata: already in job->meta */
            } else {
                instant_bytes(p, &rec, "typed event", rec.event_type);
            }
            break;
        }
    }
    slices_finish(p);
    cv_report_unmatched(&p->stats);
    if (p->undecodable > undecodable)
        fprintf(stderr, "flightrec convert: %s: %llu structured events could not be decoded\n",
                job->in_path, (unsigned long long)(p->undecodable - undecodable));
    if (p->negative_times > negative)
        fprintf(stderr, "flightrec convert: %s: %llu records before the trace's time origin "
                "were placed at time 0\n", job->in_path, (unsigned long long)(p->negative_times - negative));
    if (p->spans_untracked > untracked)
        fprintf(stderr, "flightrec convert: %s: %llu activities started while %d were open: "
                "shown as instants\n", job->in_path, (unsigned long long)(p->spans_untracked - untracked),
                MAX_OPEN_SPANS);
    return st == FR_READ_ERROR ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
}

/* A perf.data's samples (convert_perf.c) on their own packet sequence, timestamps
 * CLOCK_MONOTONIC as the merged traces': EventHeader user_events as the traces'
 * structured events, other tracepoints as instants (category: their system) with their
 * fields as annotations. A thread no trace described gets a track of its own. */
int cv_perfetto_add_perf(cv_perfetto *pp, cv_perf_input *in)
{
    struct cv_perfetto *const p = pp;
    sequence_begin(p, NULL);
    cv_perf_event e;
    int got;
    while ((got = cv_perf_next(in, &e)) > 0) {
        if (!p->clock_written) {    /* no trace before it: MONOTONIC is the trace clock */
            p->clock_written = true;
            p->abs_clock = BUILTIN_CLOCK_MONOTONIC;
            pb_buf *b = &p->b;
            size_t cpk = packet_open(p, e.ns, 0);
            size_t cs = pb_open(b, TP_CLOCK_SNAPSHOT);
            size_t c = pb_open(b, CS_CLOCKS);
            pb_uint(b, CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
            pb_uint(b, CLOCK_TIMESTAMP, e.ns);
            pb_close(b, c);
            pb_uint(b, CS_PRIMARY_TRACE_CLOCK, BUILTIN_CLOCK_MONOTONIC);
            pb_close(b, cs);
            pb_close(b, cpk);
        }
        struct thread_slot *t = thread_of(p, e.tid);
        if (!t->described) {
            t->pid = e.pid;
            describe_thread(p, t);
        }
        if (!t->perf_described) {
            t->perf_described = 1;
            size_t dpk = packet_open(p, UINT64_MAX, 0);
            size_t td = pb_open(&p->b, TP_TRACK_DESCRIPTOR);
            pb_uint(&p->b, TD_UUID, UUID_PERF(e.tid));
            pb_uint(&p->b, TD_PARENT_UUID, UUID_THREAD(e.tid));
            pb_string(&p->b, TD_NAME, "perf.data");
            pb_close(&p->b, td);
            pb_close(&p->b, dpk);
        }
        if (e.eventheader) {
            eh_event_out(p, &e.ev, e.fields, e.fields_len, e.err, e.pid, e.ns, UUID_PERF(e.tid));
            continue;
        }
        size_t ipk, te;
        instant_open(p, e.ns, UUID_PERF(e.tid), e.name, strlen(e.name), e.category,
                     strlen(e.category), TYPE_INSTANT, &ipk, &te);
        if (e.fields) {
            annotations_from_json(&p->b, e.fields, e.fields_len);
        } else {
            p->undecodable++;
            annotation_string(&p->b, "error", e.err, strlen(e.err));
        }
        instant_close(p, ipk, te);
        p->events++;
    }
    return got < 0 ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
}

int cv_perfetto_end(cv_perfetto *p, const char *out_path)
{
    int wrc = pb_finish(&p->b);
    str_table_free(&p->names);
    str_table_free(&p->categories);
    free(p->spans);
    for (size_t i = 0; i < p->threads_cap; i++) {
        struct thread_slot *t = &p->threads[i];
        fn_pages_free(t);
        if (t->cap) {
            free(t->ids - 1);
            free(t->frames);
        }
    }
    free(p->threads);
    free(p->pids);
    free(p->order);
    free(p);
    if (wrc) {
        fprintf(stderr, "flightrec convert: writing %s: %s\n", out_path, strerror(-wrc));
        return FR_EXIT_BAD_INPUT;
    }
    return FR_EXIT_OK;
}

int cv_convert_perfetto(cv_job *job)
{
    cv_perfetto *p = cv_perfetto_begin(job->out);
    int rc = cv_perfetto_add(p, job);
    int erc = cv_perfetto_end(p, job->out_path);
    return rc ? rc : erc;
}
