/*
 * perf_data.c - streaming perf.data reader (perf_data.h). The layout it reads is the
 * one the Linux kernel's tools/perf/Documentation/perf.data-file-format.txt describes
 * and include/uapi/linux/perf_event.h defines; the constants below are those
 * definitions' numbers.
 */
#define _GNU_SOURCE
#include "perf_data.h"

#include "perf_order.h"
#include "perf_reread.h"
#include "reader_error.h"
#include "pread_all.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "PERFILE2" read as a little-endian u64, and as the big-endian host wrote it. */
#define PERF_MAGIC2     0x32454c4946524550ULL
#define PERF_MAGIC2_BE  0x50455246494c4532ULL
#define PERF_MAGIC1     0x454c494646524550ULL   /* "PERFFILE": perf before 2010 */

#define PERF_FILE_HEADER_SIZE 104
#define PERF_PIPE_HEADER_SIZE 16
#define PERF_ATTR_SIZE_VER0   64

enum {   /* perf_event_attr.type */
    PERF_TYPE_TRACEPOINT = 2,
};
enum {   /* perf_event_attr.sample_type bits, in the order a sample's fields come */
    ST_IP = 1u << 0, ST_TID = 1u << 1, ST_TIME = 1u << 2, ST_ADDR = 1u << 3,
    ST_READ = 1u << 4, ST_CALLCHAIN = 1u << 5, ST_ID = 1u << 6, ST_CPU = 1u << 7,
    ST_PERIOD = 1u << 8, ST_STREAM_ID = 1u << 9, ST_RAW = 1u << 10,
    ST_IDENTIFIER = 1u << 16,
};
enum {   /* perf_event_attr.read_format bits */
    RF_TOTAL_TIME_ENABLED = 1, RF_TOTAL_TIME_RUNNING = 2, RF_ID = 4, RF_GROUP = 8, RF_LOST = 16,
};
#define ATTR_FLAG_USE_CLOCKID (1ULL << 25)
enum {   /* perf_event_header.type */
    REC_SAMPLE = 9,
    REC_HEADER_ATTR = 64, REC_HEADER_TRACING_DATA = 66, REC_AUXTRACE = 71,
    REC_HEADER_FEATURE = 80, REC_COMPRESSED = 81, REC_COMPRESSED2 = 83,
    REC_FINISHED_ROUND = 68,
};
enum {   /* header feature bits */
    FEAT_TRACING_DATA = 1, FEAT_CLOCK_DATA = 29, FEAT_BITS = 256,
};

/* Bounds: far above what a recording holds, low enough that a hostile file cannot make
 * the reader allocate without limit. */
#define MAX_ATTRS   65536
#define MAX_IDS     (1u << 20)
#define MAX_FORMATS 65536
#define REC_MAX     65536u          /* perf_event_header.size is a u16 */
#define BUF_SIZE    (256u * 1024)

typedef struct perf_attr {
    uint32_t type;
    uint64_t config, sample_type, read_format, flags;
    int32_t  clockid;
    const fr_tp_format *format;     /* looked up at its first sample */
    bool     looked_up;
} perf_attr;

typedef struct id_entry {
    uint64_t id;
    uint32_t attr;
} id_entry;

struct fr_perf {
    int      fd;
    bool     seekable, pipe_mode, eof;
    /* input: buf[head, tail) holds the file's bytes from offset `off` on */
    uint8_t *buf;
    size_t   head, tail;
    uint64_t off;           /* file offset of buf[head] */
    uint64_t data_end;      /* UINT64_MAX: to the end of the input */
    perf_attr *attrs;
    size_t   n_attrs;
    id_entry *ids;
    size_t   n_ids, cap_ids;
    bool     ids_sorted;
    fr_tp_format **formats;
    size_t   n_formats;
    bool     formats_sorted;
    int      id_pos;        /* byte of the sample id in a sample; -1: none */
    fr_perf_clock clock;
    char     deferred[400]; /* an error found at open that is reported after the data */
    const char *warning;
    char     warning_text[300];
    char     note_text[300];
    /* samples in time order (perf_order.h): the input's end or error is given once the
     * samples read before it have gone out */
    fr_perf_order *order;
    /* perf record's re-read copies, left out before the samples are ordered (in file
     * order, where a CPU's passes are told apart) */
    fr_perf_reread *rereads;
    bool     input_done;
    int      input_rc;      /* 0: the end; -1: input_err */
    char     input_err[600];
};

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t u32_at(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* ------------------------------------------------------------------ input */

/* Makes n bytes (n <= BUF_SIZE) available at buf + head; returns how many are (fewer at
 * the end of the input). */
static size_t src_fill(fr_perf *p, size_t n)
{
    if (p->tail - p->head >= n)
        return n;
    if (p->head + n > BUF_SIZE) {
        memmove(p->buf, p->buf + p->head, p->tail - p->head);
        p->tail -= p->head;
        p->head = 0;
    }
    while (p->tail - p->head < n && !p->eof) {
        ssize_t got = read(p->fd, p->buf + p->tail, BUF_SIZE - p->tail);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            p->eof = true;
            break;
        }
        p->tail += (size_t)got;
    }
    return p->tail - p->head < n ? p->tail - p->head : n;
}

static void src_consume(fr_perf *p, size_t n)
{
    p->head += n;
    p->off += n;
}

/* Skips n bytes of the input (reading through them on a pipe). Returns how many were. */
static uint64_t src_skip(fr_perf *p, uint64_t n)
{
    uint64_t done = 0;
    while (done < n) {
        size_t want = n - done < BUF_SIZE ? (size_t)(n - done) : BUF_SIZE;
        size_t got = src_fill(p, want);
        if (!got)
            break;
        src_consume(p, got);
        done += got;
    }
    return done;
}

/* File mode: moves to offset `to` of a seekable input. */
static int src_seek(fr_perf *p, uint64_t to)
{
    if (lseek(p->fd, (off_t)to, SEEK_SET) < 0)
        return -1;
    p->head = p->tail = 0;
    p->off = to;
    p->eof = false;
    return 0;
}

/* For the tracing-data parser: copies from the input. */
static size_t src_read_cb(void *ctx, void *buf, size_t n)
{
    fr_perf *p = ctx;
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < BUF_SIZE ? n - done : BUF_SIZE;
        size_t got = src_fill(p, want);
        if (!got)
            break;
        memcpy((uint8_t *)buf + done, p->buf + p->head, got);
        src_consume(p, got);
        done += got;
    }
    return done;
}

/* ------------------------------------------------------------------ tables */

static int format_found(void *ctx, fr_tp_format *f)
{
    fr_perf *p = ctx;
    if (p->n_formats >= MAX_FORMATS) {
        fr_tp_format_free(f);
        return -1;
    }
    if (!(p->n_formats & (p->n_formats - 1)) || !p->n_formats) {
        size_t cap = p->n_formats ? p->n_formats * 2 : 16;
        fr_tp_format **nf = realloc(p->formats, cap * sizeof *nf);
        if (!nf) {
            fr_tp_format_free(f);
            return -1;
        }
        p->formats = nf;
    }
    p->formats[p->n_formats++] = f;
    p->formats_sorted = false;
    return 0;
}

static int cmp_format(const void *a, const void *b)
{
    uint64_t x = (*(fr_tp_format *const *)a)->id, y = (*(fr_tp_format *const *)b)->id;
    return x < y ? -1 : x > y;
}

static const fr_tp_format *format_of(fr_perf *p, uint64_t id)
{
    if (!p->formats_sorted && p->n_formats > 1) {
        qsort(p->formats, p->n_formats, sizeof *p->formats, cmp_format);
        p->formats_sorted = true;
    }
    size_t lo = 0, hi = p->n_formats;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->formats[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n_formats && p->formats[lo]->id == id ? p->formats[lo] : NULL;
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = ((const id_entry *)a)->id, y = ((const id_entry *)b)->id;
    return x < y ? -1 : x > y;
}

static int attr_of_id(fr_perf *p, uint64_t id)
{
    if (!p->ids_sorted && p->n_ids > 1) {
        qsort(p->ids, p->n_ids, sizeof *p->ids, cmp_id);
        p->ids_sorted = true;
    }
    size_t lo = 0, hi = p->n_ids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->ids[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n_ids && p->ids[lo].id == id ? (int)p->ids[lo].attr : -1;
}

/* Where a sample carries its id: perf gives every event of a session the same layout up
 * to it, so the first attribute that has one decides. */
static void set_id_pos(fr_perf *p)
{
    p->id_pos = -1;
    for (size_t i = 0; i < p->n_attrs; i++) {
        uint64_t st = p->attrs[i].sample_type;
        if (st & ST_IDENTIFIER) {
            p->id_pos = 0;
            return;
        }
        if (st & ST_ID) {
            p->id_pos = 8 * __builtin_popcountll(st & (ST_IP | ST_TID | ST_TIME | ST_ADDR));
            return;
        }
    }
}

/* One perf_event_attr of `size` bytes (at least PERF_ATTR_SIZE_VER0), then its ids. */
static int add_attr(fr_perf *p, const uint8_t *a, size_t size, const uint8_t *ids, size_t n_ids,
                    uint64_t at, char *err, size_t errlen)
{
    if (p->n_attrs >= MAX_ATTRS)
        return fr_errf(err, errlen, "byte %llu: more than %u event attributes",
                    (unsigned long long)at, MAX_ATTRS);
    if (n_ids > MAX_IDS - p->n_ids)
        return fr_errf(err, errlen, "byte %llu: more than %u sample ids", (unsigned long long)at,
                    MAX_IDS);
    if (!(p->n_attrs & (p->n_attrs - 1)) || !p->n_attrs) {
        size_t cap = p->n_attrs ? p->n_attrs * 2 : 8;
        perf_attr *na = realloc(p->attrs, cap * sizeof *na);
        if (!na)
            return fr_errf(err, errlen, "out of memory");
        p->attrs = na;
    }
    if (p->n_ids + n_ids > p->cap_ids) {
        size_t cap = p->cap_ids ? p->cap_ids : 64;
        while (cap < p->n_ids + n_ids)
            cap *= 2;
        id_entry *ni = realloc(p->ids, cap * sizeof *ni);
        if (!ni)
            return fr_errf(err, errlen, "out of memory");
        p->ids = ni;
        p->cap_ids = cap;
    }
    perf_attr *t = &p->attrs[p->n_attrs];
    memset(t, 0, sizeof *t);
    t->type = u32_at(a);
    t->config = u64_at(a + 8);
    t->sample_type = u64_at(a + 24);
    t->read_format = u64_at(a + 32);
    t->flags = u64_at(a + 40);
    t->clockid = size >= 96 ? (int32_t)u32_at(a + 92) : 0;
    for (size_t i = 0; i < n_ids; i++)
        p->ids[p->n_ids + i] = (id_entry){u64_at(ids + 8 * i), (uint32_t)p->n_attrs};
    p->n_ids += n_ids;
    p->ids_sorted = false;
    p->n_attrs++;
    if (p->clock.clockid < 0 && (t->flags & ATTR_FLAG_USE_CLOCKID))
        p->clock.clockid = t->clockid;
    set_id_pos(p);
    return 0;
}

/* CLOCK_DATA: u32 version, u32 clockid, u64 wall-clock ns, u64 the same instant on the
 * session's clock. */
static void clock_data(fr_perf *p, const uint8_t *d, size_t n)
{
    if (n < 24 || u32_at(d) < 1)
        return;
    uint64_t wall = u64_at(d + 8), clk = u64_at(d + 16);
    p->clock.has_wall = true;
    p->clock.wall_offset_ns = (int64_t)(wall - clk);
    p->clock.clockid = (int32_t)u32_at(d + 4);
}

/* The tracing data at the input's position, `size` bytes of it; the input ends after
 * them. */
static int tracing_data(fr_perf *p, uint64_t size, char *err, size_t errlen)
{
    uint64_t start = p->off;
    char why[400];
    if (fr_tp_tracing_data_parse(src_read_cb, p, size, format_found, p, why, sizeof why) < 0)
        return fr_errf(err, errlen, "byte %llu: %s", (unsigned long long)start, why);
    uint64_t left = size - (p->off - start);
    if (src_skip(p, left) != left)
        return fr_errf(err, errlen, "byte %llu: the file ends inside the tracing data (%llu bytes "
                    "from byte %llu)", (unsigned long long)p->off, (unsigned long long)size,
                    (unsigned long long)start);
    return 0;
}

/* ------------------------------------------------------------------ file mode */

typedef struct section {
    uint64_t offset, size;
} section;

static section section_at(const uint8_t *b)
{
    return (section){u64_at(b), u64_at(b + 8)};
}

static int read_at(fr_perf *p, uint64_t off, void *buf, size_t n)
{
    return fr_pread_all(p->fd, buf, n, off);
}

static int open_file_mode(fr_perf *p, const uint8_t *hdr, uint64_t file_size, char *err,
                          size_t errlen)
{
    uint64_t attr_size = u64_at(hdr + 16);
    section attrs = section_at(hdr + 24), data = section_at(hdr + 40);
    uint64_t features[4];
    memcpy(features, hdr + 72, sizeof features);
    if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
        return fr_errf(err, errlen, "byte 16: attribute entries of %llu bytes (not perf.data, or a "
                    "damaged one)", (unsigned long long)attr_size);
    if (attrs.size % attr_size || attrs.size / attr_size > MAX_ATTRS ||
        attrs.offset > file_size || attrs.size > file_size - attrs.offset)
        return fr_errf(err, errlen, "byte 24: an attribute section of %llu bytes at byte %llu does "
                    "not fit the file's %llu bytes", (unsigned long long)attrs.size,
                    (unsigned long long)attrs.offset, (unsigned long long)file_size);
    if (data.offset > file_size)
        return fr_errf(err, errlen, "byte 40: the data section starts at byte %llu, past the file's "
                    "%llu bytes", (unsigned long long)data.offset, (unsigned long long)file_size);
    uint8_t *entry = malloc(attr_size);
    if (!entry)
        return fr_errf(err, errlen, "out of memory");
    int rc = 0;
    for (uint64_t i = 0; rc == 0 && i < attrs.size / attr_size; i++) {
        uint64_t at = attrs.offset + i * attr_size;
        if (read_at(p, at, entry, attr_size) < 0) {
            rc = fr_errf(err, errlen, "byte %llu: cannot read an attribute", (unsigned long long)at);
            break;
        }
        uint32_t asize = u32_at(entry + 4);
        if (asize < PERF_ATTR_SIZE_VER0 || asize > attr_size - 16)
            asize = (uint32_t)(attr_size - 16);
        section ids = section_at(entry + attr_size - 16);
        if (ids.size % 8 || ids.offset > file_size || ids.size > file_size - ids.offset ||
            ids.size / 8 > MAX_IDS) {
            rc = fr_errf(err, errlen, "byte %llu: an attribute's ids (%llu bytes at byte %llu) do "
                      "not fit the file", (unsigned long long)(at + attr_size - 16),
                      (unsigned long long)ids.size, (unsigned long long)ids.offset);
            break;
        }
        uint8_t *idb = malloc(ids.size ? ids.size : 1);
        if (!idb) {
            rc = fr_errf(err, errlen, "out of memory");
            break;
        }
        if (read_at(p, ids.offset, idb, ids.size) < 0)
            rc = fr_errf(err, errlen, "byte %llu: cannot read an attribute's ids",
                      (unsigned long long)ids.offset);
        else
            rc = add_attr(p, entry, asize, idb, ids.size / 8, at, err, errlen);
        free(idb);
    }
    free(entry);
    if (rc)
        return rc;

    if (data.size == 0) {
        /* perf record writes the header again, with the data's size and the features,
         * when it ends; a run that did not end leaves 0. Read to the end, as perf does. */
        p->data_end = UINT64_MAX;
        p->warning = "the header gives no data size (perf record did not end normally): read "
                     "to the end of the file, without the header features (event formats, "
                     "clock data)";
    } else {
        p->data_end = data.offset + data.size;
        int n_feat = 0;
        for (int w = 0; w < 4; w++)
            n_feat += __builtin_popcountll(features[w]);
        uint64_t table = data.offset + data.size;
        if (n_feat && (table > file_size || (uint64_t)n_feat * 16 > file_size - table)) {
            snprintf(p->deferred, sizeof p->deferred,
                     "byte %llu: the file ends before its header features (%d expected after the "
                     "data): it was cut short", (unsigned long long)(table > file_size ? file_size : table),
                     n_feat);
            n_feat = 0;
        }
        int k = 0;
        for (int bit = 0; bit < FEAT_BITS && k < n_feat; bit++) {
            if (!(features[bit / 64] >> (bit % 64) & 1))
                continue;
            uint64_t sec_at = table + 16 * (uint64_t)k++;
            uint8_t sb[16];
            if (read_at(p, sec_at, sb, 16) < 0)
                return fr_errf(err, errlen, "byte %llu: cannot read a feature's section",
                            (unsigned long long)sec_at);
            section s = section_at(sb);
            if (bit != FEAT_TRACING_DATA && bit != FEAT_CLOCK_DATA)
                continue;
            if (s.offset > file_size || s.size > file_size - s.offset) {
                snprintf(p->deferred, sizeof p->deferred,
                         "byte %llu: feature %d's %llu bytes at byte %llu are past the file's end",
                         (unsigned long long)sec_at, bit, (unsigned long long)s.size,
                         (unsigned long long)s.offset);
                continue;
            }
            if (bit == FEAT_CLOCK_DATA) {
                uint8_t cd[24];
                if (s.size >= sizeof cd && read_at(p, s.offset, cd, sizeof cd) == 0)
                    clock_data(p, cd, sizeof cd);
            } else {
                if (src_seek(p, s.offset) < 0)
                    return fr_errf(err, errlen, "cannot seek to byte %llu", (unsigned long long)s.offset);
                if (tracing_data(p, s.size, err, errlen) < 0)
                    return -1;
            }
        }
    }
    if (src_seek(p, data.offset) < 0)
        return fr_errf(err, errlen, "cannot seek to byte %llu", (unsigned long long)data.offset);
    return 0;
}

/* ------------------------------------------------------------------ open, close */

fr_perf *fr_perf_open(int fd, char *err, size_t errlen)
{
    fr_perf *p = calloc(1, sizeof *p);
    uint8_t *buf = malloc(BUF_SIZE);
    fr_perf_order *order = fr_perf_order_new();
    fr_perf_reread *rereads = fr_perf_reread_new();
    if (!p || !buf || !order || !rereads) {
        free(p);
        free(buf);
        fr_perf_order_free(order);
        fr_perf_reread_free(rereads);
        close(fd);
        fr_errf(err, errlen, "out of memory");
        return NULL;
    }
    p->fd = fd;
    p->buf = buf;
    p->order = order;
    p->rereads = rereads;
    p->clock.clockid = -1;
    p->id_pos = -1;
    p->data_end = UINT64_MAX;
    struct stat st;
    p->seekable = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0;
    uint64_t file_size = p->seekable ? (uint64_t)st.st_size : UINT64_MAX;

    size_t got = src_fill(p, PERF_FILE_HEADER_SIZE);
    const uint8_t *h = p->buf + p->head;
    if (got < 16) {
        fr_errf(err, errlen, "byte %zu: the input ends inside the perf.data header (%zu bytes)",
             got, got);
        goto bad;
    }
    uint64_t magic = u64_at(h), hsize = u64_at(h + 8);
    if (magic == PERF_MAGIC2_BE) {
        fr_errf(err, errlen, "byte 0: a big-endian perf.data file (not supported)");
        goto bad;
    }
    if (magic == PERF_MAGIC1) {
        fr_errf(err, errlen, "byte 0: a perf.data file of the first version (PERFFILE, before 2010; "
                          "not supported)");
        goto bad;
    }
    if (magic != PERF_MAGIC2) {
        fr_errf(err, errlen, "byte 0: not a perf.data file (no PERFILE2 magic)");
        goto bad;
    }
    if (hsize == PERF_PIPE_HEADER_SIZE) {
        p->pipe_mode = true;
        src_consume(p, PERF_PIPE_HEADER_SIZE);
        return p;
    }
    if (hsize < PERF_FILE_HEADER_SIZE || hsize > 4096) {
        fr_errf(err, errlen, "byte 8: a header of %llu bytes (16 or 104 expected)",
             (unsigned long long)hsize);
        goto bad;
    }
    if (got < PERF_FILE_HEADER_SIZE) {
        fr_errf(err, errlen, "byte %zu: the input ends inside the perf.data header", got);
        goto bad;
    }
    if (!p->seekable) {
        fr_errf(err, errlen, "a perf.data file in file mode cannot be read from a pipe (its event "
                          "formats are stored after the data): give its name, or record with "
                          "'perf record -o -' for a stream");
        goto bad;
    }
    uint8_t hdr[PERF_FILE_HEADER_SIZE];
    memcpy(hdr, h, sizeof hdr);
    if (open_file_mode(p, hdr, file_size, err, errlen) < 0)
        goto bad;
    return p;
bad:
    fr_perf_close(p);
    return NULL;
}

void fr_perf_close(fr_perf *p)
{
    if (!p)
        return;
    close(p->fd);
    for (size_t i = 0; i < p->n_formats; i++)
        fr_tp_format_free(p->formats[i]);
    free(p->formats);
    free(p->attrs);
    free(p->ids);
    free(p->buf);
    fr_perf_order_free(p->order);
    fr_perf_reread_free(p->rereads);
    free(p);
}

fr_perf_clock fr_perf_clock_of(const fr_perf *p) { return p->clock; }

const char *fr_perf_note(fr_perf *p)
{
    uint64_t n = fr_perf_reread_copies(p->rereads);
    if (!n)
        return NULL;
    char samples[40];
    if (n == 1)
        snprintf(samples, sizeof samples, "a sample");
    else
        snprintf(samples, sizeof samples, "%llu samples", (unsigned long long)n);
    snprintf(p->note_text, sizeof p->note_text,
             "%llu cop%s left out: perf record wrote %s twice, the last sample of a CPU's pass "
             "over its ring buffer again as the first of that CPU's next pass, byte for byte "
             "(its ring-buffer read race)", (unsigned long long)n, n == 1 ? "y" : "ies", samples);
    return p->note_text;
}
bool fr_perf_pipe_mode(const fr_perf *p) { return p->pipe_mode; }
const char *fr_perf_warning(fr_perf *p)
{
    uint64_t late = fr_perf_order_out_of_order(p->order);
    if (!late)
        return p->warning;
    snprintf(p->warning_text, sizeof p->warning_text,
             "%s%s%llu samples printed out of time order (a round of perf's ring buffers held "
             "more than %u MiB)", p->warning ? p->warning : "", p->warning ? "; " : "",
             (unsigned long long)late, FR_PERF_ORDER_MAX_BYTES >> 20);
    return p->warning_text;
}

/* ------------------------------------------------------------------ records */

/* The fields of a sample, in sample_type order, up to the raw data. 1: a tracepoint
 * sample filled in; 0: a sample with nothing for us; -1: malformed. */
static int parse_sample(fr_perf *p, const uint8_t *rec, size_t size, uint64_t at,
                        fr_perf_sample *s, char *err, size_t errlen)
{
    const uint8_t *q = rec + 8, *end = rec + size;
    const perf_attr *a = NULL;
    if (p->n_attrs == 1) {
        a = &p->attrs[0];
    } else if (p->n_attrs == 0) {
        return fr_errf(err, errlen, "byte %llu: a sample before any event attribute",
                    (unsigned long long)at);
    } else {
        if (p->id_pos < 0 || (size_t)p->id_pos + 8 > size - 8)
            return fr_errf(err, errlen, "byte %llu: a sample without the id that says which of the "
                        "%zu events it belongs to", (unsigned long long)at, p->n_attrs);
        uint64_t id = u64_at(q + p->id_pos);
        int k = attr_of_id(p, id);
        if (k < 0)
            return fr_errf(err, errlen, "byte %llu: a sample of id %llu, which no event attribute "
                        "has", (unsigned long long)at, (unsigned long long)id);
        a = &p->attrs[k];
    }
    uint64_t st = a->sample_type;
    if (a->type != PERF_TYPE_TRACEPOINT || !(st & ST_RAW))
        return 0;
    memset(s, 0, sizeof *s);
    s->offset = at;
    s->tracepoint_id = a->config;
#define NEED(n)                                                                              \
    do {                                                                                     \
        if ((size_t)(end - q) < (size_t)(n))                                                 \
            return fr_errf(err, errlen, "byte %llu: a sample of %zu bytes is too short for its " \
                        "fields (sample_type 0x%llx)", (unsigned long long)at, size,         \
                        (unsigned long long)st);                                             \
    } while (0)
    if (st & ST_IDENTIFIER) { NEED(8); q += 8; }
    if (st & ST_IP) { NEED(8); q += 8; }
    if (st & ST_TID) {
        NEED(8);
        s->has_tid = true;
        s->pid = u32_at(q);
        s->tid = u32_at(q + 4);
        q += 8;
    }
    if (st & ST_TIME) { NEED(8); s->has_time = true; s->time = u64_at(q); q += 8; }
    if (st & ST_ADDR) { NEED(8); q += 8; }
    if (st & ST_ID) { NEED(8); q += 8; }
    if (st & ST_STREAM_ID) { NEED(8); q += 8; }
    if (st & ST_CPU) { NEED(8); s->has_cpu = true; s->cpu = u32_at(q); q += 8; }
    if (st & ST_PERIOD) { NEED(8); q += 8; }
    if (st & ST_READ) {
        uint64_t rf = a->read_format;
        unsigned extra = !!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING);
        unsigned per_value = 1 + !!(rf & RF_ID) + !!(rf & RF_LOST);
        if (rf & RF_GROUP) {
            NEED(8);
            uint64_t nr = u64_at(q);
            q += 8;
            if (nr > REC_MAX / 8)
                NEED(REC_MAX);
            NEED(8 * (extra + nr * per_value));
            q += 8 * (extra + nr * per_value);
        } else {
            NEED(8 * (extra + per_value));
            q += 8 * (extra + per_value);
        }
    }
    if (st & ST_CALLCHAIN) {
        NEED(8);
        uint64_t nr = u64_at(q);
        q += 8;
        if (nr > REC_MAX / 8)
            NEED(REC_MAX);
        NEED(8 * nr);
        q += 8 * nr;
    }
    NEED(4);
    uint32_t raw = u32_at(q);
    q += 4;
    NEED(raw);
#undef NEED
    s->raw = q;
    s->raw_size = raw;
    if (!a->looked_up) {
        perf_attr *w = (perf_attr *)a;
        w->format = format_of(p, a->config);
        w->looked_up = true;
    }
    s->format = a->format;
    return 1;
}

/* The next record of the file that matters here, in file order: 1 a tracepoint sample,
 * 2 a FINISHED_ROUND marker, 0 the end of the data, -1 with "byte N: why" in err. */
static int next_in_file(fr_perf *p, fr_perf_sample *s, char *err, size_t errlen)
{
    for (;;) {
        uint64_t at = p->off;
        if (p->data_end != UINT64_MAX && at >= p->data_end)
            break;
        size_t got = src_fill(p, 8);
        if (got == 0 && p->data_end == UINT64_MAX)
            break;
        if (got < 8)
            return fr_errf(err, errlen, "byte %llu: the file ends inside a record's header (it was "
                        "cut short)", (unsigned long long)at);
        const uint8_t *h = p->buf + p->head;
        uint32_t type = u32_at(h);
        uint16_t size = (uint16_t)(h[6] | h[7] << 8);
        if (size < 8)
            return fr_errf(err, errlen, "byte %llu: a record of %u bytes (8 at least; not perf.data "
                        "records, or damaged ones)", (unsigned long long)at, size);
        if (p->data_end != UINT64_MAX && size > p->data_end - at)
            return fr_errf(err, errlen, "byte %llu: a record of %u bytes runs past the data section's "
                        "end at byte %llu", (unsigned long long)at, size,
                        (unsigned long long)p->data_end);
        if (src_fill(p, size) < size)
            return fr_errf(err, errlen, "byte %llu: the file ends inside a record of %u bytes (it "
                        "was cut short)", (unsigned long long)at, size);
        const uint8_t *rec = p->buf + p->head;
        src_consume(p, size);
        switch (type) {
        case REC_SAMPLE: {
            int rc = parse_sample(p, rec, size, at, s, err, errlen);
            if (rc == 1 && s->has_cpu && fr_perf_reread_is_copy(p->rereads, s->cpu, rec, size))
                break;
            if (rc)
                return rc;
            break;
        }
        case REC_HEADER_ATTR: {
            if (size < 8 + PERF_ATTR_SIZE_VER0)
                return fr_errf(err, errlen, "byte %llu: an attribute record of %u bytes",
                            (unsigned long long)at, size);
            uint32_t asize = u32_at(rec + 8 + 4);
            if (asize < PERF_ATTR_SIZE_VER0 || asize > size - 8u || (size - 8u - asize) % 8)
                return fr_errf(err, errlen, "byte %llu: an attribute of %u bytes in a record of %u",
                            (unsigned long long)at, asize, size);
            if (add_attr(p, rec + 8, asize, rec + 8 + asize, (size - 8u - asize) / 8, at, err,
                         errlen) < 0)
                return -1;
            break;
        }
        case REC_HEADER_TRACING_DATA:
            if (size < 12)
                return fr_errf(err, errlen, "byte %llu: a tracing-data record of %u bytes",
                            (unsigned long long)at, size);
            if (tracing_data(p, u32_at(rec + 8), err, errlen) < 0)
                return -1;
            break;
        case REC_AUXTRACE: {
            /* Its trace data follows the record. */
            uint64_t n = size >= 16 ? u64_at(rec + 8) : 0;
            if (src_skip(p, n) != n)
                return fr_errf(err, errlen, "byte %llu: the file ends inside %llu bytes of AUX data",
                            (unsigned long long)p->off, (unsigned long long)n);
            break;
        }
        case REC_HEADER_FEATURE:
            if (size >= 16 && u64_at(rec + 8) == FEAT_CLOCK_DATA)
                clock_data(p, rec + 16, size - 16u);
            break;
        case REC_FINISHED_ROUND:
            fr_perf_reread_round(p->rereads);
            return 2;
        case REC_COMPRESSED:
        case REC_COMPRESSED2:
            return fr_errf(err, errlen, "byte %llu: compressed records (perf record -z) are not "
                        "supported: record without -z", (unsigned long long)at);
        default:    /* mmaps, comms, forks, rounds...: nothing for a tracepoint decoder */
            break;
        }
    }
    if (p->deferred[0])
        return fr_errf(err, errlen, "%s", p->deferred);
    return 0;
}

int fr_perf_next(fr_perf *p, fr_perf_sample *s, char *err, size_t errlen)
{
    for (;;) {
        if (fr_perf_order_pop(p->order, s) == 1)
            return 1;
        if (p->input_done) {
            if (p->input_rc < 0)
                return fr_errf(err, errlen, "%s", p->input_err);
            return 0;
        }
        fr_perf_sample in;
        int rc = next_in_file(p, &in, p->input_err, sizeof p->input_err);
        if (rc == 1) {
            if (fr_perf_order_push(p->order, &in) < 0)
                return fr_errf(err, errlen, "byte %llu: out of memory putting samples in time order",
                               (unsigned long long)in.offset);
        } else if (rc == 2) {
            fr_perf_order_round(p->order);
        } else {
            p->input_done = true;
            p->input_rc = rc;
            fr_perf_order_end(p->order);
        }
    }
}
