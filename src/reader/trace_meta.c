/*
 * trace_meta.c - gathers flightrec's own metadata (FR_TE_* typed events, see fr_format.h)
 * from a record stream. Payloads are checked field by field: a short or malformed one
 * is still "ours" (consumed) but leaves the tables unchanged, so a damaged metadata
 * event never makes the reader fail; the function table is the only thing that grows.
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

static uint32_t u32(cursor *c) { uint32_t v; take(c, &v, 4); return v; }
static uint64_t u64(cursor *c) { uint64_t v; take(c, &v, 8); return v; }

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
    u32(c); /* version */
    uint32_t source = u32(c);
    uint64_t tps = u64(c), base = u64(c);
    int64_t real = (int64_t)u64(c), mono = (int64_t)u64(c);
    if (!c->ok)
        return;
    m->has_clock = true;
    m->clock_source = source;
    m->ticks_per_second = tps;
    m->base_tsc = base;
    m->base_realtime_ns = real;
    m->base_monotonic_ns = mono;
}

static void feed_process(fr_trace_meta *m, cursor *c)
{
    uint32_t pid = u32(c), ppid = u32(c);
    size_t nn, ne, nc;
    const char *name = str16(c, &nn), *exe = str16(c, &ne), *cmd = str16(c, &nc);
    if (!c->ok)
        return;
    /* The command line's arguments are NUL-separated; a trailing NUL is not an argument. */
    while (nc && !cmd[nc - 1])
        nc--;
    m->has_process = true;
    m->pid = pid;
    m->ppid = ppid;
    replace(&m->process_name, copy_str(name, nn, 0));
    replace(&m->executable, copy_str(exe, ne, 0));
    replace(&m->command_line, copy_str(cmd, nc, ' '));
}

static void feed_summary(fr_trace_meta *m, cursor *c)
{
    u32(c); /* version */
    uint32_t policy = u32(c);
    uint64_t buffer_size = u64(c);
    uint32_t buffers = u32(c), threads = u32(c);
    uint64_t written = u64(c), dropped = u64(c), below = u64(c), threshold = u64(c);
    if (!c->ok)
        return;
    m->has_summary = true;
    m->policy = policy;
    m->buffer_size = buffer_size;
    m->buffers = buffers;
    m->threads = threads;
    m->records_written = written;
    m->records_dropped = dropped;
    m->calls_below_threshold = below;
    m->threshold_ticks = threshold;
}

static void feed_thread_stats(fr_trace_meta *m, cursor *c)
{
    fr_meta_thread t = {0};
    t.tid = (int32_t)u32(c);
    t.records_written = u64(c);
    t.records_dropped = u64(c);
    t.bytes_dropped = u64(c);
    t.calls_below_threshold = u64(c);
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
    fr_meta_object o = {0};
    o.index = u32(c);
    o.first_id = u32(c);
    o.last_id = u32(c);
    o.load_bias = u64(c);
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

static void feed_function(fr_trace_meta *m, cursor *c)
{
    fr_meta_function f = {0};
    f.id = u32(c);
    f.object = u32(c);
    f.address = u64(c);
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
    uint32_t version = u32(c), cause = u32(c);
    uint32_t sig = u32(c), code = u32(c), tid = u32(c), seq = u32(c);
    uint64_t address = u64(c), inconsistent = u64(c);
    if (!c->ok || version < 1)
        return;
    m->has_dump_cause = true;
    m->dump_cause = cause;
    m->dump_signal = (int32_t)sig;
    m->dump_code = (int32_t)code;
    m->dump_tid = (int32_t)tid;
    m->dump_seq = seq;
    m->dump_address = address;
    m->dump_inconsistent = inconsistent;
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
    case FR_TE_LOST:         m->lost_markers++; break;
    case FR_TE_DUMP_CAUSE:   feed_dump_cause(m, &c); break;
    case FR_TE_EVENT:        return false; /* a structured event: the caller's business */
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
