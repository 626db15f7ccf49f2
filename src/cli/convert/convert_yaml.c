/*
 * convert_yaml.c - llvm-xray's YAML trace format, record for record as
 * `llvm-xray convert --output-format=yaml` (LLVM 14) writes it, so scripts written for
 * llvm-xray's output keep working on flightrec's (faster) one.
 *
 * What llvm-xray does, and is reproduced here:
 *  - records are sorted by TSC (a stable sort of the records taken thread by thread, the
 *    threads in the iteration order of its DenseMap keyed by (pid, tid)); we sort with
 *    bounded memory: records go to a temporary file as runs (one thread, TSC order), and
 *    the runs are merged, ties broken the same way (thread's rank, then file order);
 *  - per thread it reuses one record object, so a function record carries the "type" of
 *    the thread's last typed event, and an event carries the id of the last function;
 *  - thread/process 0 are left out, an empty argument list is left out;
 *  - strings are quoted and escaped by the rules of LLVM's YAML writer.
 */
#include <stdlib.h>
#include <unistd.h>
#include "commands.h"
#include "convert.h"
#include "yaml_nonprintable.h"

/* ------------------------------------------------------------------ LLVM YAML scalars */

static bool is_numeric(const char *s, size_t n)
{
    const char *e = s + n;
    if (n == 0 || (n == 1 && (*s == '+' || *s == '-')))
        return false;
#define EQ(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
    if (EQ(".nan") || EQ(".NaN") || EQ(".NAN"))
        return true;
    const char *t = (*s == '-' || *s == '+') ? s + 1 : s;
    size_t tn = (size_t)(e - t);
    if ((tn == 4 && (!memcmp(t, ".inf", 4) || !memcmp(t, ".Inf", 4) || !memcmp(t, ".INF", 4))))
        return true;
    if (n >= 2 && s[0] == '0' && s[1] == 'o') {
        if (n == 2)
            return false;
        for (const char *p = s + 2; p < e; p++)
            if (*p < '0' || *p > '7')
                return false;
        return true;
    }
    if (n >= 2 && s[0] == '0' && s[1] == 'x') {
        if (n == 2)
            return false;
        for (const char *p = s + 2; p < e; p++)
            if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
                return false;
        return true;
    }
#undef EQ
    const char *p = t;
    if (p < e && *p == '.' && (p + 1 == e || p[1] < '0' || p[1] > '9'))
        return false;
    if (p < e && (*p == 'e' || *p == 'E'))
        return false;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    if (p == e)
        return true;
    if (*p == '.') {
        p++;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == e)
            return true;
        if (*p != 'e' && *p != 'E')
            return false;
    } else if (*p != 'e' && *p != 'E') {
        return false;
    }
    p++;                                    /* after the exponent mark */
    if (p == e)
        return false;
    if (*p == '+' || *p == '-')
        if (++p == e)
            return false;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    return p == e;
}

enum quoting { Q_NONE, Q_SINGLE, Q_DOUBLE };

static bool is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static enum quoting needs_quotes(const char *s, size_t n)
{
    if (n == 0)
        return Q_SINGLE;
    enum quoting q = Q_NONE;
    unsigned char first = (unsigned char)s[0], last = (unsigned char)s[n - 1];
    if (first == ' ' || (first >= '\t' && first <= '\r') || last == ' ' || (last >= '\t' && last <= '\r'))
        q = Q_SINGLE;
#define EQ(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
    if (EQ("null") || EQ("Null") || EQ("NULL") || EQ("~") || EQ("true") || EQ("True") ||
        EQ("TRUE") || EQ("false") || EQ("False") || EQ("FALSE"))
        q = Q_SINGLE;
#undef EQ
    if (is_numeric(s, n))
        q = Q_SINGLE;
    if (strchr("-?:\\,[]{}#&*!|>'\"%@`", first) && first)
        q = Q_SINGLE;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_alnum(c))
            continue;
        switch (c) {
        case '_': case '-': case '^': case '.': case ',': case ' ': case '\t':
            continue;
        case 0x7F:
            return Q_DOUBLE;
        default:
            if (c <= 0x1F || (c & 0x80))
                return Q_DOUBLE;
            q = Q_SINGLE;
        }
    }
    return q;
}

/* Decodes one UTF-8 sequence as LLVM's decodeUTF8 does; returns its length (0 = invalid). */
static size_t decode_utf8(const unsigned char *p, size_t n, uint32_t *cp)
{
    if ((p[0] & 0x80) == 0) {
        *cp = p[0];
        return 1;
    }
    if ((p[0] & 0xE0) == 0xC0 && n >= 2 && (p[1] & 0xC0) == 0x80) {
        uint32_t v = (uint32_t)(p[0] & 0x1F) << 6 | (p[1] & 0x3F);
        if (v >= 0x80) { *cp = v; return 2; }
    }
    if ((p[0] & 0xF0) == 0xE0 && n >= 3 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
        uint32_t v = (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
        if (v >= 0x800 && (v < 0xD800 || v > 0xDFFF)) { *cp = v; return 3; }
    }
    if ((p[0] & 0xF8) == 0xF0 && n >= 4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
        (p[3] & 0xC0) == 0x80) {
        uint32_t v = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3F) << 12 |
                     (uint32_t)(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
        if (v >= 0x10000 && v <= 0x10FFFF) { *cp = v; return 4; }
    }
    return 0;
}

static void put_hex_escape(cv_out *o, char kind, uint32_t v, int digits)
{
    static const char hex[] = "0123456789ABCDEF";
    char b[10];
    b[0] = '\\';
    b[1] = kind;
    for (int i = 0; i < digits; i++)
        b[2 + i] = hex[(v >> (4 * (digits - 1 - i))) & 15];
    cv_put(o, b, (size_t)digits + 2);
}

/* LLVM's yaml::escape(S, EscapePrintable=false), as used for double-quoted scalars. */
static void yaml_escape(cv_out *o, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        switch (c) {
        case '\\': CV_LIT(o, "\\\\"); continue;
        case '"': CV_LIT(o, "\\\""); continue;
        case 0: CV_LIT(o, "\\0"); continue;
        case 7: CV_LIT(o, "\\a"); continue;
        case 8: CV_LIT(o, "\\b"); continue;
        case 9: CV_LIT(o, "\\t"); continue;
        case 10: CV_LIT(o, "\\n"); continue;
        case 11: CV_LIT(o, "\\v"); continue;
        case 12: CV_LIT(o, "\\f"); continue;
        case 13: CV_LIT(o, "\\r"); continue;
        case 0x1B: CV_LIT(o, "\\e"); continue;
        }
        if (c < 0x20) {
            put_hex_escape(o, 'x', c, 2);
        } else if (c & 0x80) {
            uint32_t cp;
            size_t len = decode_utf8(p + i, n - i, &cp);
            if (len == 0) {
                CV_LIT(o, "\xEF\xBF\xBD");   /* U+FFFD, and LLVM stops here */
                return;
            }
            if (cp == 0x85) CV_LIT(o, "\\N");
            else if (cp == 0xA0) CV_LIT(o, "\\_");
            else if (cp == 0x2028) CV_LIT(o, "\\L");
            else if (cp == 0x2029) CV_LIT(o, "\\P");
            else if (yaml_is_nonprintable(cp))
                put_hex_escape(o, cp <= 0xFF ? 'x' : cp <= 0xFFFF ? 'u' : 'U', cp,
                               cp <= 0xFF ? 2 : cp <= 0xFFFF ? 4 : 8);
            else cv_put(o, (const char *)p + i, len);
            i += len - 1;
        } else {
            cv_putc(o, (char)c);
        }
    }
}

static void yaml_scalar(cv_out *o, const char *s, size_t n)
{
    if (n == 0) {
        CV_LIT(o, "''");
        return;
    }
    switch (needs_quotes(s, n)) {
    case Q_NONE:
        cv_put(o, s, n);
        return;
    case Q_DOUBLE:
        cv_putc(o, '"');
        yaml_escape(o, s, n);
        cv_putc(o, '"');
        return;
    case Q_SINGLE:
        cv_putc(o, '\'');
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '\'')
                cv_putc(o, '\'');
            cv_putc(o, s[i]);
        }
        cv_putc(o, '\'');
        return;
    }
}

static char *yaml_name(const char *name, void *ctx)
{
    (void)ctx;
    cv_out tmp = {NULL, NULL, 0, 0, false, 0};
    size_t n = strlen(name);
    tmp.cap = n * 4 + 8;
    tmp.buf = malloc(tmp.cap);
    if (!tmp.buf) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    yaml_scalar(&tmp, name, n);
    tmp.buf[tmp.len] = 0;
    return tmp.buf;
}

/* ------------------------------------------------------------------ thread groups
 * llvm-xray keeps blocks in a DenseMap<pair<u64 pid, i32 tid>, ...>: its iteration order
 * (bucket order) decides the order of records with equal TSCs. We replay the map's
 * insertions (in block order) with LLVM 14's hash and growth rules to get that order. */

struct group {
    uint64_t pid;
    int32_t tid;
    uint32_t rank;            /* position in llvm-xray's iteration order */
    uint16_t record_type;     /* carried over from the thread's last typed event */
    int32_t func_id;          /* carried over from the thread's last function record */
};

struct groups {
    struct group *v;
    size_t n, cap;
    uint32_t *dm;             /* simulated DenseMap buckets: group index + 1, 0 = empty */
    uint32_t dm_buckets, dm_entries;
    int32_t last;             /* index of the group of the current block */
};

static unsigned llvm14_combine(unsigned a, unsigned b)
{
    uint64_t key = (uint64_t)a << 32 | (uint64_t)b;
    key += ~(key << 32);
    key ^= (key >> 22);
    key += ~(key << 13);
    key ^= (key >> 8);
    key += (key << 3);
    key ^= (key >> 15);
    key += ~(key << 27);
    key ^= (key >> 31);
    return (unsigned)key;
}

static unsigned group_hash(const struct group *g)
{
    return llvm14_combine((unsigned)(g->pid * 37ull), (unsigned)((unsigned)g->tid * 37u));
}

static void dm_place(struct groups *gs, uint32_t *buckets, uint32_t nb, uint32_t gi)
{
    uint32_t b = group_hash(&gs->v[gi]) & (nb - 1), probe = 1;
    while (buckets[b])
        b = (b + probe++) & (nb - 1);
    buckets[b] = gi + 1;
}

static void dm_insert(struct groups *gs, uint32_t gi)
{
    uint32_t entries = gs->dm_entries + 1;
    uint32_t nb = gs->dm_buckets;
    if (entries * 4 >= nb * 3 || nb - entries <= nb / 8) {
        uint32_t want = entries * 4 >= nb * 3 ? nb * 2 : nb;
        uint32_t nn = 64;
        while (nn < want)      /* max(64, NextPowerOf2(want - 1)) */
            nn *= 2;
        uint32_t *nbk = calloc(nn, sizeof *nbk);
        if (!nbk) {
            fprintf(stderr, "flightrec convert: out of memory\n");
            exit(1);
        }
        for (uint32_t i = 0; i < nb; i++)
            if (gs->dm[i])
                dm_place(gs, nbk, nn, gs->dm[i] - 1);
        free(gs->dm);
        gs->dm = nbk;
        gs->dm_buckets = nn;
    }
    dm_place(gs, gs->dm, gs->dm_buckets, gi);
    gs->dm_entries = entries;
}

static int32_t group_of(struct groups *gs, uint64_t pid, int32_t tid)
{
    for (size_t i = gs->n; i-- > 0;)  /* few threads; the current one is usually recent */
        if (gs->v[i].pid == pid && gs->v[i].tid == tid)
            return (int32_t)i;
    if (gs->n == gs->cap) {
        gs->cap = gs->cap ? gs->cap * 2 : 16;
        gs->v = realloc(gs->v, gs->cap * sizeof *gs->v);
        if (!gs->v) {
            fprintf(stderr, "flightrec convert: out of memory\n");
            exit(1);
        }
    }
    struct group *g = &gs->v[gs->n];
    memset(g, 0, sizeof *g);
    g->pid = pid;
    g->tid = tid;
    dm_insert(gs, (uint32_t)gs->n);
    return (int32_t)gs->n++;
}

static void assign_ranks(struct groups *gs, bool naive)
{
    if (naive) {   /* basic mode: llvm-xray keeps the file's order, no thread grouping */
        for (size_t i = 0; i < gs->n; i++)
            gs->v[i].rank = 0;
        return;
    }
    uint32_t r = 0;
    for (uint32_t i = 0; i < gs->dm_buckets; i++)
        if (gs->dm[i])
            gs->v[gs->dm[i] - 1].rank = r++;
}

/* ------------------------------------------------------------------ sorted runs */

/* A record as spilled to the temporary file; `size` data bytes follow. */
struct spill {
    uint64_t tsc;
    uint64_t arg;
    uint32_t group;
    uint32_t size;
    int32_t func_id;
    uint16_t cpu;
    uint16_t record_type;
    uint8_t kind;             /* fr_record_kind */
    uint8_t has_arg;
    uint8_t pad[6];
};

struct run { uint64_t offset, length; };

struct cursor {
    int fd;
    uint64_t pos, end;        /* file range still to read */
    uint8_t *buf;
    size_t cap, len, at;      /* buffered bytes [at, len) */
    struct spill head;
    const uint8_t *data;
    uint32_t rank;
    uint32_t run;
};

#define CURSOR_BUFFER (64u << 10)
#define MAX_FAN_IN 128

static bool cursor_fill(struct cursor *c, size_t need)
{
    if (c->len - c->at >= need)
        return true;
    memmove(c->buf, c->buf + c->at, c->len - c->at);
    c->len -= c->at;
    c->at = 0;
    if (need > c->cap) {
        c->cap = need;
        c->buf = realloc(c->buf, c->cap);
        if (!c->buf) {
            fprintf(stderr, "flightrec convert: out of memory\n");
            exit(1);
        }
    }
    while (c->len < need) {
        size_t want = c->cap - c->len;
        if (want > c->end - c->pos)
            want = (size_t)(c->end - c->pos);
        if (want == 0)
            return false;
        ssize_t got = pread(c->fd, c->buf + c->len, want, (off_t)c->pos);
        if (got <= 0)
            return false;
        c->len += (size_t)got;
        c->pos += (uint64_t)got;
    }
    return true;
}

/* Loads the cursor's next record; false at the end of its run. */
static bool cursor_advance(struct cursor *c)
{
    if (c->at == c->len && c->pos == c->end)
        return false;
    if (!cursor_fill(c, sizeof c->head))
        return false;
    memcpy(&c->head, c->buf + c->at, sizeof c->head);
    if (!cursor_fill(c, sizeof c->head + c->head.size))
        return false;
    c->data = c->buf + c->at + sizeof c->head;
    c->at += sizeof c->head + c->head.size;
    return true;
}

static inline bool cursor_before(const struct cursor *a, const struct cursor *b)
{
    if (a->head.tsc != b->head.tsc)
        return a->head.tsc < b->head.tsc;
    if (a->rank != b->rank)
        return a->rank < b->rank;
    return a->run < b->run;
}

static void heap_down(struct cursor **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && cursor_before(h[l], h[m])) m = l;
        if (l + 1 < n && cursor_before(h[l + 1], h[m])) m = l + 1;
        if (m == i)
            return;
        struct cursor *t = h[i]; h[i] = h[m]; h[m] = t;
        i = m;
    }
}

/* ------------------------------------------------------------------ the converter */

struct yaml {
    cv_job *job;
    cv_out o;
    cv_names names;
    bool names_on;
    struct groups groups;
    FILE *spill;              /* runs of records in TSC order */
    cv_out spill_out;
    struct run *runs;
    size_t n_runs, cap_runs;
    uint64_t spilled, run_start, last_tsc;
    int32_t run_group;
};

static void new_run(struct yaml *y)
{
    if (y->n_runs && y->spilled == y->run_start)
        return;
    if (y->n_runs == y->cap_runs) {
        y->cap_runs = y->cap_runs ? y->cap_runs * 2 : 64;
        y->runs = realloc(y->runs, y->cap_runs * sizeof *y->runs);
        if (!y->runs) {
            fprintf(stderr, "flightrec convert: out of memory\n");
            exit(1);
        }
    }
    y->runs[y->n_runs].offset = y->spilled;
    y->runs[y->n_runs].length = 0;
    y->n_runs++;
    y->run_start = y->spilled;
}

static void spill_record(struct yaml *y, const fr_record *rec)
{
    fr_record stored;
    if (rec->run_index) {
        /* events of an FR_TE_EVENT_RUN: llvm-xray shows the run once, as stored */
        if (rec->run_index != 1)
            return;
        stored = *rec;
        stored.tsc = rec->run_tsc;
        stored.event_type = FR_TE_EVENT_RUN;
        stored.data = rec->run_stored;
        stored.size = rec->run_stored_size;
        stored.envelope = rec->run_envelope;
        rec = &stored;
    }
    struct groups *gs = &y->groups;
    uint64_t pid = (uint32_t)rec->pid;
    if (y->job->info->version == 2)   /* v2 files have no Pid record: llvm-xray uses the tid */
        pid = (uint32_t)rec->tid;
    int32_t gi = gs->last;
    if (gi < 0 || gs->v[gi].tid != rec->tid || gs->v[gi].pid != pid)
        gi = gs->last = group_of(gs, pid, rec->tid);
    struct group *g = &gs->v[gi];
    struct spill s = {0};
    s.tsc = rec->tsc;
    s.group = (uint32_t)gi;
    s.cpu = rec->cpu;
    s.kind = (uint8_t)rec->kind;
    const uint8_t *data = rec->data;
    if (rec->envelope) {
        /* one of our records stored as a custom event: llvm-xray shows it as that */
        s.kind = FR_REC_CUSTOM;
        data -= rec->envelope;
    }
    if (rec->kind <= FR_REC_ENTER_ARG) {
        g->func_id = (int32_t)rec->function_id;
        if (rec->kind == FR_REC_ENTER_ARG) {
            s.has_arg = 1;
            s.arg = rec->arg;
        }
    } else {
        if (s.kind == FR_REC_TYPED)
            g->record_type = rec->event_type;
        s.size = rec->size + rec->envelope;
    }
    s.func_id = g->func_id;
    s.record_type = g->record_type;
    /* A run holds records of one thread in TSC order: then ties within a run are in file
     * order, which is also llvm-xray's order within a thread. */
    if (y->n_runs == 0 || rec->tsc < y->last_tsc || gi != y->run_group) {
        if (y->n_runs)
            y->runs[y->n_runs - 1].length = y->spilled - y->runs[y->n_runs - 1].offset;
        new_run(y);
    }
    y->last_tsc = rec->tsc;
    y->run_group = gi;
    cv_put(&y->spill_out, (const char *)&s, sizeof s);
    if (s.size)
        cv_put(&y->spill_out, (const char *)data, s.size);
    y->spilled += sizeof s + s.size;
}

static const char *const kind_names[] = {
    "function-enter", "function-exit", "function-tail-exit", "function-enter-arg",
    "custom-event", "typed-event",
};

static void write_record(struct yaml *y, const struct spill *s, const uint8_t *data)
{
    cv_out *o = &y->o;
    const struct group *g = &y->groups.v[s->group];
    CV_LIT(o, "  - { type: ");
    cv_u64(o, s->record_type);
    CV_LIT(o, ", func-id: ");
    cv_i64(o, s->func_id);
    CV_LIT(o, ", function: ");
    if (y->names_on) {
        cv_puts(o, cv_names_get(&y->names, (uint32_t)s->func_id));
    } else {
        char id[16];
        int n = snprintf(id, sizeof id, "%d", s->func_id);
        yaml_scalar(o, id, (size_t)n);
    }
    if (s->has_arg) {
        CV_LIT(o, ", args: [ ");
        cv_u64(o, s->arg);
        CV_LIT(o, " ]");
    }
    CV_LIT(o, ", cpu: ");
    cv_u64(o, s->cpu);
    if (g->tid) {
        CV_LIT(o, ", thread: ");
        cv_u64(o, (uint32_t)g->tid);
    }
    if ((uint32_t)g->pid) {
        CV_LIT(o, ", process: ");
        cv_u64(o, (uint32_t)g->pid);
    }
    CV_LIT(o, ", kind: ");
    cv_puts(o, kind_names[s->kind]);
    CV_LIT(o, ", tsc: ");
    cv_u64(o, s->tsc);
    CV_LIT(o, ", data: ");
    yaml_scalar(o, (const char *)data, s->size);
    CV_LIT(o, " }\n");
}

/* Merges runs [first, first+n) of fd; each record goes to emit(). */
static void merge_runs(struct yaml *y, int fd, const struct run *runs, size_t first, size_t n,
                       void (*emit)(struct yaml *, const struct spill *, const uint8_t *))
{
    struct cursor *cs = calloc(n, sizeof *cs);
    struct cursor **heap = calloc(n, sizeof *heap);
    if (!cs || !heap) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    size_t h = 0;
    for (size_t i = 0; i < n; i++) {
        struct cursor *c = &cs[i];
        c->fd = fd;
        c->pos = runs[first + i].offset;
        c->end = c->pos + runs[first + i].length;
        c->cap = CURSOR_BUFFER;
        c->buf = malloc(c->cap);
        c->run = (uint32_t)(first + i);
        if (!c->buf) {
            fprintf(stderr, "flightrec convert: out of memory\n");
            exit(1);
        }
        if (cursor_advance(c)) {
            c->rank = y->groups.v[c->head.group].rank;
            heap[h++] = c;
        }
    }
    for (size_t i = h / 2; i-- > 0;)
        heap_down(heap, h, i);
    while (h) {
        struct cursor *c = heap[0];
        emit(y, &c->head, c->data);
        if (cursor_advance(c)) {
            c->rank = y->groups.v[c->head.group].rank;
        } else {
            heap[0] = heap[--h];
        }
        heap_down(heap, h, 0);
    }
    for (size_t i = 0; i < n; i++)
        free(cs[i].buf);
    free(cs);
    free(heap);
}

/* For a merge into a new temporary file (more runs than one merge takes at once). */
static cv_out *respill_out;
static uint64_t respill_bytes;
static void respill(struct yaml *y, const struct spill *s, const uint8_t *data)
{
    (void)y;
    cv_put(respill_out, (const char *)s, sizeof *s);
    if (s->size)
        cv_put(respill_out, (const char *)data, s->size);
    respill_bytes += sizeof *s + s->size;
}

static int reduce_runs(struct yaml *y)
{
    while (y->n_runs > MAX_FAN_IN) {
        FILE *next = tmpfile();
        if (!next) {
            perror("flightrec convert: temporary file");
            return -1;
        }
        cv_out out;
        cv_out_init(&out, next);
        respill_out = &out;
        respill_bytes = 0;
        size_t n_new = 0;
        for (size_t first = 0; first < y->n_runs; first += MAX_FAN_IN) {
            size_t n = y->n_runs - first < MAX_FAN_IN ? y->n_runs - first : MAX_FAN_IN;
            uint64_t start = respill_bytes;
            merge_runs(y, fileno(y->spill), y->runs, first, n, respill);
            /* Ties between merged runs keep their order: the new run index follows them. */
            y->runs[n_new].offset = start;
            y->runs[n_new].length = respill_bytes - start;
            n_new++;
        }
        int wrc = cv_out_finish(&out);
        if (wrc) {
            fprintf(stderr, "flightrec convert: temporary file: %s\n", strerror(-wrc));
            fclose(next);
            return -1;
        }
        fclose(y->spill);
        y->spill = next;
        y->n_runs = n_new;
    }
    return 0;
}

int cv_convert_yaml(cv_job *job)
{
    struct yaml y = {0};
    y.job = job;
    y.groups.last = -1;
    y.names_on = job->have_names && !job->ids_only;
    cv_names_init(&y.names, job->symbols, yaml_name, NULL);
    y.spill = tmpfile();
    if (!y.spill) {
        perror("flightrec convert: temporary file");
        return FR_EXIT_BAD_INPUT;
    }
    cv_out_init(&y.spill_out, y.spill);

    fr_record rec;
    fr_read_status st;
    while ((st = cv_next(job, &rec)) == FR_READ_OK)
        if (rec.kind != FR_REC_BLOCK)
            spill_record(&y, &rec);
    if (y.n_runs)
        y.runs[y.n_runs - 1].length = y.spilled - y.runs[y.n_runs - 1].offset;
    int rc = st == FR_READ_ERROR ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
    int wrc = cv_out_finish(&y.spill_out);
    if (wrc) {
        fprintf(stderr, "flightrec convert: temporary file: %s\n", strerror(-wrc));
        rc = FR_EXIT_BAD_INPUT;
    }
    assign_ranks(&y.groups, job->info->type == FR_XRAY_TYPE_NAIVE);
    bool merge_ok = reduce_runs(&y) == 0;   /* after a read error: what was read */
    if (!merge_ok)
        rc = FR_EXIT_BAD_INPUT;

    cv_out_init(&y.o, job->out);
    const fr_trace_info *h = job->info;
    CV_LIT(&y.o, "---\nheader:\n  version:         ");
    cv_u64(&y.o, h->version);
    CV_LIT(&y.o, "\n  type:            ");
    cv_u64(&y.o, h->type);
    CV_LIT(&y.o, "\n  constant-tsc:    ");
    cv_puts(&y.o, h->flags & FR_XRAY_FLAG_CONSTANT_TSC ? "true" : "false");
    CV_LIT(&y.o, "\n  nonstop-tsc:     ");
    cv_puts(&y.o, h->flags & FR_XRAY_FLAG_NONSTOP_TSC ? "true" : "false");
    CV_LIT(&y.o, "\n  cycle-frequency: ");
    cv_u64(&y.o, h->ticks_per_second);
    if (y.spilled == 0) {
        CV_LIT(&y.o, "\nrecords:         []\n...\n");
    } else {
        CV_LIT(&y.o, "\nrecords:\n");
        if (merge_ok)
            merge_runs(&y, fileno(y.spill), y.runs, 0, y.n_runs, write_record);
        CV_LIT(&y.o, "...\n");
    }
    wrc = cv_out_finish(&y.o);
    if (wrc) {
        fprintf(stderr, "flightrec convert: writing %s: %s\n", job->out_path, strerror(-wrc));
        rc = FR_EXIT_BAD_INPUT;
    }
    fclose(y.spill);
    free(y.runs);
    free(y.groups.v);
    free(y.groups.dm);
    cv_names_free(&y.names);
    return rc;
}
