/*
 * trace_meta.c - gathers flightrec's own metadata (FR_TE_* records: fr_format.h's structs,
 * docs/FORMAT.md) from a record stream. Payloads are checked for length: a short or
 * malformed one is still "ours" (consumed) but leaves the tables unchanged, so a damaged
 * metadata record never makes the reader fail; a longer one (a later version's) is read
 * up to what this version knows. The function table is the only thing that grows.
 */
#include "trace_meta.h"

#include <stdlib.h>
#include <string.h>

void fr_trace_meta_init(fr_trace_meta *m)
{
    memset(m, 0, sizeof *m);
}

/* A cursor over one payload; every read checks the remaining length. */
typedef struct cursor {
    const uint8_t *p;
    size_t left;
    bool ok;
} cursor;

static void take(cursor *c, void *dst, size_t n)
{
    if (!c->ok || c->left < n) {
        c->ok = false;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, c->p, n);
    c->p += n;
    c->left -= n;
}


/* str16: u16 byte count, then the bytes. Returns a pointer into the payload. */
static const char *str16(cursor *c, size_t *len)
{
    uint16_t n;
    take(c, &n, 2);
    if (!c->ok || c->left < n) {
        c->ok = false;
        *len = 0;
        return "";
    }
    const char *s = (const char *)c->p;
    c->p += n;
    c->left -= n;
    *len = n;
    return s;
}

/* A NUL-terminated copy; embedded NULs become `nul_as` (0 keeps the first part only). */
static char *copy_str(const char *s, size_t n, char nul_as)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i] ? s[i] : nul_as;
    d[n] = 0;
    return d;
}

static void replace(char **slot, char *value)
{
    if (!value)
        return;
    free(*slot);
    *slot = value;
}

static void *grow(void *array, size_t n, size_t elem)
{
    /* n is the count before adding one; the capacity is 8, then doubles whenever n
     * reaches a power of two, so it always exceeds n. */
    if (n && (n < 8 || (n & (n - 1))))
        return array;
    size_t cap = n ? n * 2 : 8;
    return realloc(array, cap * elem);
}

static void feed_clock(fr_trace_meta *m, cursor *c)
{
    struct fr_te_clock v;
    take(c, &v, sizeof v);
    if (!c->ok)
        return;
    m->has_clock = true;
    m->clock_source = v.source;
    m->ticks_per_second = v.ticks_per_second;
    m->base_tsc = v.base_tsc;
    m->base_realtime_ns = v.realtime_ns;
    m->base_monotonic_ns = v.monotonic_ns;
}

static void feed_process(fr_trace_meta *m, cursor *c)
{
    struct fr_te_process v;
    take(c, &v, sizeof v);
    size_t nn, ne, nc;
    const char *name = str16(c, &nn), *exe = str16(c, &ne), *cmd = str16(c, &nc);
    if (!c->ok)
        return;
    /* The command line's arguments are NUL-separated; a trailing NUL is not an argument. */
    while (nc && !cmd[nc - 1])
        nc--;
    m->has_process = true;
    m->pid = v.pid;
    m->ppid = v.ppid;
    replace(&m->process_name, copy_str(name, nn, 0));
    replace(&m->executable, copy_str(exe, ne, 0));
    replace(&m->command_line, copy_str(cmd, nc, ' '));
}

static void feed_summary(fr_trace_meta *m, cursor *c)
{
    struct fr_te_summary v;
    take(c, &v, sizeof v);
    if (!c->ok)
        return;
    m->has_summary = true;
    m->policy = v.policy;
    m->buffer_size = v.buffer_size;
    m->buffers = v.buffers;
    m->threads = v.threads;
    m->records_written = v.records_written;
    m->records_dropped = v.records_dropped;
    m->calls_below_threshold = v.calls_below_threshold;
    m->threshold_ticks = v.threshold_ticks;
}

static void feed_thread_stats(fr_trace_meta *m, cursor *c)
{
    struct fr_te_thread_stats v;
    take(c, &v, sizeof v);
    fr_meta_thread t = {
        .tid = v.tid,
        .records_written = v.records_written,
        .records_dropped = v.records_dropped,
        .bytes_dropped = v.bytes_dropped,
        .calls_below_threshold = v.calls_below_threshold,
    };
    size_t n;
    const char *name = str16(c, &n);
    if (!c->ok)
        return;
    if (n >= sizeof t.name)
        n = sizeof t.name - 1;
    memcpy(t.name, name, n);
    t.name[n] = 0;
    /* A later record for the same thread replaces the earlier one. */
    for (size_t i = 0; i < m->n_thread_stats; i++)
        if (m->thread_stats[i].tid == t.tid) {
            m->thread_stats[i] = t;
            return;
        }
    fr_meta_thread *a = grow(m->thread_stats, m->n_thread_stats, sizeof *a);
    if (!a)
        return;
    m->thread_stats = a;
    a[m->n_thread_stats++] = t;
}

static void feed_object(fr_trace_meta *m, cursor *c)
{
    struct fr_te_object v;
    take(c, &v, sizeof v);
    fr_meta_object o = { .index = v.index, .first_id = v.first_id, .last_id = v.last_id,
                         .load_bias = v.load_bias };
    size_t n;
    const char *path = str16(c, &n);
    if (!c->ok)
        return;
    o.path = copy_str(path, n, 0);
    if (!o.path)
        return;
    for (size_t i = 0; i < m->n_objects; i++)
        if (m->objects[i].index == o.index) {
            free(m->objects[i].path);
            memcpy(o.build_id, m->objects[i].build_id, sizeof o.build_id);
            o.build_id_size = m->objects[i].build_id_size;
            m->objects[i] = o;
            return;
        }
    fr_meta_object *a = grow(m->objects, m->n_objects, sizeof *a);
    if (!a) {
        free(o.path);
        return;
    }
    m->objects = a;
    a[m->n_objects++] = o;
}

/* FR_TE_BUILD_ID follows its FR_TE_OBJECT: an id for an object not (yet) seen, empty or
 * too long is ignored. An OBJECT record read again (a later metadata block) keeps the
 * id until the BUILD_ID that follows it again. */
static void feed_build_id(fr_trace_meta *m, cursor *c)
{
    struct fr_te_build_id v;
    take(c, &v, sizeof v);
    size_t n;
    const char *id = str16(c, &n);
    if (!c->ok || n == 0 || n > FR_BUILD_ID_MAX)
        return;
    for (size_t i = 0; i < m->n_objects; i++)
        if (m->objects[i].index == v.object) {
            memcpy(m->objects[i].build_id, id, n);
            m->objects[i].build_id_size = (uint8_t)n;
        }
}

void fr_build_id_hex(const uint8_t *id, size_t size, char out[FR_BUILD_ID_HEX_SIZE])
{
    static const char digits[] = "0123456789abcdef";
    if (size > FR_BUILD_ID_MAX)
        size = FR_BUILD_ID_MAX;
    for (size_t i = 0; i < size; i++) {
        out[2 * i] = digits[id[i] >> 4];
        out[2 * i + 1] = digits[id[i] & 15];
    }
    out[2 * size] = 0;
}

static void feed_function(fr_trace_meta *m, cursor *c)
{
    struct fr_te_function v;
    take(c, &v, sizeof v);
    fr_meta_function f = { .id = v.id, .object = v.object, .address = v.address };
    size_t n;
    const char *name = str16(c, &n);
    if (!c->ok)
        return;
    f.name = copy_str(name, n, 0);
    if (!f.name)
        return;
    fr_meta_function *a = grow(m->functions, m->n_functions, sizeof *a);
    if (!a) {
        free(f.name);
        return;
    }
    m->functions = a;
    a[m->n_functions++] = f;
}

static void feed_dump_cause(fr_trace_meta *m, cursor *c)
{
    struct fr_te_dump_cause v;
    take(c, &v, sizeof v);
    if (!c->ok || v.version < 1)
        return;
    m->has_dump_cause = true;
    m->dump_cause = v.cause;
    m->dump_signal = v.signal;
    m->dump_code = v.si_code;
    m->dump_tid = v.tid;
    m->dump_seq = v.seq;
    m->dump_address = v.address;
    m->dump_inconsistent = v.inconsistent;
}

/* The session's drops by cause (tid 0); per-thread ones are not kept here. */
static void feed_drops(fr_trace_meta *m, cursor *c)
{
    /* Files of an earlier version carry fewer causes (ncauses, 8 before stream_behind):
     * read the causes that are there. */
    struct fr_te_drops v;
    memset(&v, 0, sizeof v);
    take(c, &v, offsetof(struct fr_te_drops, cause));
    size_t have = c->ok ? (c->left / 8 < FR_DROP_NCAUSES ? c->left / 8 : FR_DROP_NCAUSES) : 0;
    take(c, v.cause, have * 8);
    if (!c->ok || v.tid != 0)
        return;
    m->has_drops = true;
    for (uint32_t i = 0; i < FR_DROP_NCAUSES; i++)
        m->drops[i] = i < v.ncauses ? v.cause[i] : 0;
}

bool fr_trace_meta_feed(fr_trace_meta *m, const fr_record *rec)
{
    if (rec->kind != FR_REC_TYPED || rec->event_type < FR_TE_FIRST || rec->event_type > FR_TE_LAST)
        return false;
    cursor c = {rec->data, rec->size, true};
    switch (rec->event_type) {
    case FR_TE_CLOCK:        feed_clock(m, &c); break;
    case FR_TE_PROCESS:      feed_process(m, &c); break;
    case FR_TE_SUMMARY:      feed_summary(m, &c); break;
    case FR_TE_THREAD_STATS: feed_thread_stats(m, &c); break;
    case FR_TE_OBJECT:       feed_object(m, &c); break;
    case FR_TE_FUNCTION:     feed_function(m, &c); break;
    case FR_TE_BUILD_ID:     feed_build_id(m, &c); break;
    case FR_TE_LOST:         m->lost_markers++; break;
    case FR_TE_DUMP_CAUSE:   feed_dump_cause(m, &c); break;
    case FR_TE_DROPS:        feed_drops(m, &c); break;
    case FR_TE_EVENT:        return false; /* a structured event: the caller's business */
    case FR_TE_EVENT_RUN:    return false; /* an event whose site the file lacks (fr_reader.h) */
    case FR_TE_EVENT_SITE:   break;        /* the reader itself keeps the sites */
    default:                 break;        /* a type of ours we do not know: ignored */
    }
    return true;
}

static int by_id(const void *a, const void *b)
{
    const fr_meta_function *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

void fr_trace_meta_finish(fr_trace_meta *m)
{
    if (!m->n_functions)
        return;
    /* One entry per id: one with a name, if any. */
    qsort(m->functions, m->n_functions, sizeof *m->functions, by_id);
    size_t out = 0;
    for (size_t i = 0; i < m->n_functions; i++) {
        if (out && m->functions[out - 1].id == m->functions[i].id) {
            fr_meta_function *keep = &m->functions[out - 1];
            if (!keep->name[0] && m->functions[i].name[0]) {
                free(keep->name);
                *keep = m->functions[i];
            } else {
                free(m->functions[i].name);
            }
            continue;
        }
        m->functions[out++] = m->functions[i];
    }
    m->n_functions = out;
}

const fr_meta_function *fr_trace_meta_function(const fr_trace_meta *m, uint32_t id)
{
    size_t lo = 0, hi = m->n_functions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->functions[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n_functions && m->functions[lo].id == id ? &m->functions[lo] : NULL;
}

void fr_trace_meta_free(fr_trace_meta *m)
{
    free(m->process_name);
    free(m->executable);
    free(m->command_line);
    free(m->thread_stats);
    for (size_t i = 0; i < m->n_objects; i++)
        free(m->objects[i].path);
    free(m->objects);
    for (size_t i = 0; i < m->n_functions; i++)
        free(m->functions[i].name);
    free(m->functions);
    memset(m, 0, sizeof *m);
}
