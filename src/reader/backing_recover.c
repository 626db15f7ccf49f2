/*
 * backing_recover.c - turns a backing file (docs/BACKING.md, src/common/fr_backing.h)
 * into a trace file as the runtime's writer would have written it at exit
 * (docs/FORMAT.md): the metadata block first (the fixed records the runtime left in the
 * file, then the totals counted here and a FR_TE_DUMP_CAUSE "recovered"), then one block
 * per thread with its buffers oldest first.
 *
 * What a buffer holds:
 * - FULL or RETIRED: `used` bytes of records, published by its writer: parsed, and cut at
 *   the first record that is not whole (counted).
 * - CURRENT: being written when the process died; its length was in the writer's
 *   registers. The runtime zeroes a buffer before reusing it, so its records end where
 *   the zeros begin: parsed up to the first 8 zero bytes at a record boundary. What was
 *   being written then is torn: bytes past the last whole record are cut, and a last
 *   event whose final 8 payload bytes are still zero is taken for torn (memcpy writes the
 *   end last) and cut (counted; a whole event ending in 8 zero bytes is cut too).
 * A compact structured event (an entry of an FR_TE_EVENT_RUN record) counts as one
 * record, as the runtime counts it; the sites they name (FR_TE_EVENT_SITE records the
 * runtime appended to the file's sites region, version 2) go into the metadata block.
 * The runtime grows a run by writing the entry, then the run's size: a run of several
 * entries is whole up to its size; a run of one may be torn as any event.
 * Everything read from the file is checked: the header's sizes and offsets against the
 * file's size, each descriptor's owner and counts, each record's kind and size.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backing_recover.h"
#include "fr_backing.h"
#include "fr_block.h"

#define MD FR_XRAY_METADATA_SIZE

static void fail(char *err, size_t cap, const char *msg)
{
    if (cap)
        snprintf(err, cap, "%s", msg);
}

/* ---------------------------------------------------------------- growable bytes */

typedef struct bytes {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} bytes;

static void put(bytes *b, const void *data, size_t len)
{
    if (b->oom || !len)   /* nothing (data may be NULL: an empty buffer's) */
        return;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
}

static void put_te(bytes *b, uint16_t type, const void *payload, size_t len, const char *str,
                   size_t slen)
{
    uint8_t hdr[FR_ENVELOPED_HEADER_SIZE];
    fr_te_header_put(hdr, type, len + (str ? 2 + slen : 0), 0);
    put(b, hdr, sizeof hdr);
    put(b, payload, len);
    if (str) {
        uint16_t n = (uint16_t)slen;
        put(b, &n, 2);
        put(b, str, slen);
    }
}

/* ---------------------------------------------------------------- records */

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Entries of an FR_TE_EVENT_RUN whose payload is p[0, n) (after the envelope): the
 * whole ones, as the reader takes them (fr_reader.c), up to the first whose first byte
 * is 0 (being written: the runtime writes it last); *len: their bytes. */
static uint64_t run_entries(const uint8_t *p, size_t n, size_t *len)
{
    const uint8_t *q = p, *end = p + n;
    uint64_t count = 0;
    while (q < end && *q) {
        uint64_t key, delta, size;
        size_t len = fr_run_entry_get(q, end, &key, &delta, &size);
        if (!len)
            break;
        q += len;
        count++;
    }
    *len = (size_t)(q - p);
    return count;
}

typedef struct parsed {
    size_t end;          /* end of the last whole record */
    uint64_t records;    /* function records (an enter with argument and its CallArgument
                            are one) and events, as the runtime counts them */
    size_t last;         /* start of the last record */
    bool last_event;     /* ... an event (custom or typed) */
    uint64_t last_entries; /* ... its records: the entries of a run, else 1 */
} parsed;

/* Whole records in b[from, limit). `zero_ends`: a record's worth of zero bytes (the
 * smallest record's, a function record's) at a record boundary end the records (a
 * CURRENT buffer's unwritten part). */
static parsed parse_records(const uint8_t *b, size_t from, size_t limit, bool zero_ends)
{
    parsed r = { .end = from, .last = from };
    size_t off = from;
    while (limit - off >= FR_XRAY_FUNCTION_RECORD_SIZE) {
        const uint8_t *p = b + off;
        if (zero_ends && all_zero(p, FR_XRAY_FUNCTION_RECORD_SIZE))
            break;
        size_t size;
        uint64_t counts = 1;
        bool event = false;
        if (!fr_is_metadata(p[0])) {
            unsigned kind = fr_fn_kind(fr_fn_get(p).word);
            if (kind > FR_FN_ENTER_ARG)
                break;
            size = FR_XRAY_FUNCTION_RECORD_SIZE;
            if (kind == FR_FN_ENTER_ARG) {
                if (limit - off < FR_XRAY_ENTER_ARG_SIZE ||
                    p[FR_XRAY_FUNCTION_RECORD_SIZE] != FR_MD_BYTE0(FR_MD_CALL_ARGUMENT))
                    break;
                size = FR_XRAY_ENTER_ARG_SIZE;
            }
        } else {
            if (limit - off < MD)
                break;
            unsigned kind = fr_md_kind(p[0]);
            if (kind == FR_MD_NEW_CPU_ID || kind == FR_MD_TSC_WRAP) {
                size = MD;
                counts = 0;
            } else if (kind == FR_MD_CUSTOM_EVENT || kind == FR_MD_TYPED_EVENT) {
                int32_t n = fr_md_get_event_size(p);
                if (n <= 0 || (uint64_t)n > limit - off - MD)
                    break;
                size = MD + (size_t)n;
                event = true;
                size_t whole;
                if (kind == FR_MD_CUSTOM_EVENT &&
                    fr_te_enveloped_type(p + MD, (size_t)n) == FR_TE_EVENT_RUN)
                    counts = run_entries(p + MD + sizeof(struct fr_te_envelope),
                                         (size_t)n - sizeof(struct fr_te_envelope), &whole);
            } else {
                break;   /* nothing else belongs in a buffer's body */
            }
        }
        r.last = off;
        r.last_event = event;
        r.last_entries = counts;
        r.records += counts;
        off += size;
        r.end = off;
    }
    return r;
}

/* ---------------------------------------------------------------- the file */

typedef struct buf_info {
    uint32_t idx, slot;
    int32_t tid;
    uint64_t seq;
    size_t len;
    uint64_t records;
    size_t run_at;       /* a torn entry cut from the run at this offset (0: none) */
    int32_t run_size;    /* ... whose size is then this */
} buf_info;

static int by_tid_seq(const void *a, const void *b)
{
    const buf_info *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* a + b * c <= limit without overflow */
static bool fits(uint64_t a, uint64_t b, uint64_t c, uint64_t limit)
{
    if (c && b > (UINT64_MAX - a) / c)
        return false;
    return a + b * c <= limit;
}

/* Descriptors in the file: the buffers', then their small buffers' (version 3). */
static uint64_t ndesc_of(const struct fr_backing_header *h)
{
    return (uint64_t)h->buffers * (1 + h->small_per_buffer);
}

/* Where descriptor i's bytes are, and how many it can hold. */
static uint64_t desc_off(const struct fr_backing_header *h, uint64_t i)
{
    if (i < h->buffers)
        return h->data_off + i * h->buffer_size;
    uint64_t s = i - h->buffers;
    return h->data_off + s / h->small_per_buffer * h->buffer_size + s % h->small_per_buffer * h->small_size;
}

static uint64_t desc_cap(const struct fr_backing_header *h, uint64_t i)
{
    return i < h->buffers ? h->buffer_size : h->small_size;
}

static const char *header_problem(const struct fr_backing_header *h, uint64_t size)
{
    if (memcmp(h->magic, FR_BACKING_MAGIC, 8) != 0)
        return "not a flightrec backing file (no FRBACKv1 magic; an init that had not "
               "finished, or another file)";
    if (!(h->version == FR_BACKING_VERSION && h->header_size == sizeof *h) &&
        !(h->version == 3 && h->header_size == FR_BACKING_HEADER_V3_SIZE) &&
        !(h->version == 2 && h->header_size == FR_BACKING_HEADER_V2_SIZE) &&
        !(h->version == 1 && h->header_size == FR_BACKING_HEADER_V1_SIZE))
        return "backing file of an unknown version";
    if (h->buffer_size < 1024 || h->buffer_size > (1ull << 30) || h->buffer_size % 8 ||
        h->buffers < 1 || h->buffers > FR_BACKING_MAX_BUFFERS || h->max_threads < 1 ||
        h->max_threads > FR_BACKING_MAX_THREADS ||
        h->buffer_desc_size != sizeof(struct fr_backing_buffer_desc) ||
        h->thread_desc_size != sizeof(struct fr_backing_thread_desc) || h->policy > 1)
        return "inconsistent header (pool geometry)";
    if (!h->ticks_per_second)
        return "inconsistent header (clock frequency 0)";
    if (h->map_size > size)
        return "truncated: the file is shorter than the pool its header describes";
    if (h->small_per_buffer > 64 || (h->small_per_buffer &&
        (h->small_size < 128 || h->small_size % 8 ||
         (uint64_t)h->small_size * h->small_per_buffer > h->buffer_size)))
        return "inconsistent header (small buffers)";
    if (!fits(h->data_off, h->buffers, h->buffer_size, h->map_size) ||
        !fits(h->bufs_off, ndesc_of(h), sizeof(struct fr_backing_buffer_desc), h->map_size) ||
        !fits(h->threads_off, h->max_threads, sizeof(struct fr_backing_thread_desc), h->map_size) ||
        h->data_off < FR_BACKING_HEADER_SIZE || h->bufs_off < FR_BACKING_HEADER_SIZE ||
        h->threads_off < FR_BACKING_HEADER_SIZE)
        return "inconsistent header (offsets outside the file)";
    if (h->exe_len > sizeof h->exe)
        return "inconsistent header (executable path length)";
    if (h->sites_len > h->sites_cap || h->sites_cap > FR_BACKING_META_MAX ||
        (h->sites_cap && (h->sites_off < FR_BACKING_HEADER_SIZE ||
                          !fits(h->sites_off, 1, h->sites_cap, h->map_size))))
        return "inconsistent header (event sites region)";
    return NULL;
}

/* The metadata records the runtime left: whole enveloped records of ours only (of type
 * `only`, if not 0); *count: how many. */
static size_t meta_prefix(const uint8_t *m, size_t len, uint16_t only, uint64_t *count)
{
    size_t off = 0;
    while (len - off >= MD + sizeof(struct fr_te_envelope)) {
        int32_t n = fr_md_get_event_size(m + off);
        uint16_t type = 0;
        if (m[off] != FR_MD_BYTE0(FR_MD_CUSTOM_EVENT) || n < (int32_t)sizeof(struct fr_te_envelope) ||
            (uint64_t)n > len - off - MD || !(type = fr_te_enveloped_type(m + off + MD, (size_t)n)) ||
            (only && type != only))
            break;
        off += MD + (size_t)n;
        if (count)
            (*count)++;
    }
    return off;
}

typedef struct job {
    const fr_recover_input *in;
    struct fr_backing_header h;
    struct fr_backing_buffer_desc *bd;
    struct fr_backing_thread_desc *td;
    uint8_t *buf;        /* one buffer's bytes */
    buf_info *used;
    uint32_t nused;
    uint64_t *lost_of;   /* per slot: records not recovered */
    uint64_t *kept_of;   /* per slot: records recovered */
    uint64_t unattributed; /* records lost in buffers of no valid thread slot */
    uint64_t next_block;   /* stream: the number of the next thread block appended */
    fr_recover_report *rep;
} job;

static int rd(job *j, uint64_t off, void *p, size_t len)
{
    if (off > j->in->size || len > j->in->size - off) {
        errno = EINVAL;
        return -1;
    }
    return j->in->read(j->in->ctx, off, p, len);
}

/* Reads and checks buffer i; 1 with *bi set if it has records to keep. */
static int scan_buffer(job *j, uint32_t i, buf_info *bi)
{
    const struct fr_backing_buffer_desc *d = &j->bd[i];
    uint32_t st = FR_BACKING_OWN_STATE(d->own), slot = FR_BACKING_OWN_SLOT(d->own);
    if (st == FR_BACKING_BUF_FREE || st == FR_BACKING_BUF_PACK)
        return 0;   /* nothing, or a buffer lent to small ones (their own descriptors) */
    uint64_t claimed = st == FR_BACKING_BUF_CURRENT ? 0 : d->records;
    bool slot_ok = slot < j->h.max_threads && j->td[slot].state && j->td[slot].state <= 2;
    if (st > FR_BACKING_BUF_WRITING || !slot_ok ||
        (st != FR_BACKING_BUF_CURRENT && (d->used < FR_BUFFER_PREAMBLE || d->used > desc_cap(&j->h, i)))) {
        j->rep->bad_buffers++;
        j->rep->lost_records += claimed;
        if (slot_ok)
            j->lost_of[slot] += claimed;
        else
            j->unattributed += claimed;
        return 0;
    }
    int32_t tid = j->td[slot].tid;
    size_t size = (size_t)desc_cap(&j->h, i);
    if (rd(j, desc_off(&j->h, i), j->buf, size) < 0)
        return -1;
    if (st == FR_BACKING_BUF_CURRENT && all_zero(j->buf, FR_BUFFER_PREAMBLE))
        return 0;   /* taken, nothing written yet */
    if (!fr_preamble_ok(j->buf, tid)) {
        j->rep->bad_buffers++;
        j->rep->lost_records += claimed;
        j->lost_of[slot] += claimed;
        return 0;
    }
    const fr_recover_stream *sm = j->in->stream;
    if (sm) {   /* in the streamed file already (being appended, or its FREE not yet set) */
        if (sm->has_block(sm->ctx, tid, fr_preamble_tsc(j->buf)))
            return 0;
    }
    parsed p;
    size_t run_at = 0;
    int32_t run_size = 0;
    if (st == FR_BACKING_BUF_CURRENT) {
        p = parse_records(j->buf, FR_BUFFER_PREAMBLE, size, true);
        size_t hi = size;
        while (hi > p.end && !j->buf[hi - 1])
            hi--;
        bool torn = hi > p.end;   /* bytes of a record that was not finished */
        int32_t n = p.last_event ? fr_md_get_event_size(j->buf + p.last) : 0;
        const uint8_t *ev = j->buf + p.last + MD;
        size_t whole = 0;
        if (!torn && p.last_event && j->buf[p.last] == FR_MD_BYTE0(FR_MD_CUSTOM_EVENT) &&
            fr_te_enveloped_type(ev, (size_t)n) == FR_TE_EVENT_RUN) {
            /* A run: its size covers an entry before the entry is written, whose first
             * byte comes last: the entries up to one that begins with 0 are whole. */
            size_t body = (size_t)n - sizeof(struct fr_te_envelope);
            run_entries(ev + sizeof(struct fr_te_envelope), body, &whole);
            if (whole < body) {
                torn = true;   /* its bytes are counted as cut below */
                if (whole == 0) {   /* nothing whole: the run goes */
                    p.end = p.last;
                } else {
                    run_at = p.last;
                    run_size = (int32_t)(sizeof(struct fr_te_envelope) + whole);
                    p.end = p.last + MD + (size_t)run_size;
                }
            }
        } else if (!torn && p.last_event && p.records) {
            /* any other event: written header first, payload front to back */
            size_t tail = n < 8 ? (size_t)n : 8;
            if (all_zero(j->buf + p.end - tail, tail)) {
                torn = true;
                p.end = p.last;
                p.records -= p.last_entries;
            }
        }
        if (torn) {
            j->rep->torn++;
            j->lost_of[slot]++;
            j->rep->bytes_cut += hi > p.end ? hi - p.end : 0;
        }
        j->rep->current_buffers++;
    } else {
        p = parse_records(j->buf, FR_BUFFER_PREAMBLE, (size_t)d->used, false);
        if (p.end < d->used) {
            j->rep->bytes_cut += d->used - p.end;
            uint64_t missing = d->records > p.records ? d->records - p.records : 0;
            j->rep->lost_records += missing;
            j->lost_of[slot] += missing;
        }
    }
    *bi = (buf_info){ .idx = i, .slot = slot, .tid = tid, .seq = d->seq, .len = p.end,
                      .records = p.records, .run_at = run_at, .run_size = run_size };
    j->kept_of[slot] += p.records;
    j->rep->records += p.records;
    j->rep->buffers++;
    return 1;
}

static struct fr_md_walltime walltime(const struct fr_backing_header *h)
{
    int64_t ns = h->realtime_ns;
    int64_t sec = ns / 1000000000;
    int32_t usec = (int32_t)((ns % 1000000000) / 1000);
    if (usec < 0) {
        sec--;
        usec += 1000000;
    }
    return (struct fr_md_walltime){ sec, usec };
}

/* Whether slot s is the first in use with its tid (a tid's records in a streamed file
 * are counted once). */
static bool first_slot_of_tid(const job *j, uint32_t s)
{
    for (uint32_t e = 0; e < s; e++)
        if (j->td[e].tid == j->td[s].tid && j->td[e].state && j->td[e].state <= 2)
            return false;
    return true;
}

/* The metadata block's body. */
static int build_meta(job *j, bytes *b, const uint8_t *meta, size_t meta_len,
                      const uint8_t *sites, size_t sites_len)
{
    const struct fr_backing_header *h = &j->h;
    uint8_t pre[FR_BUFFER_PREAMBLE];   /* tid 0, cpu 0, at timestamp 1 (log_writer.c's) */
    fr_preamble_put(pre, 0, walltime(h), (int32_t)h->pid, 0, 1);
    put(b, pre, sizeof pre);
    if (meta_len) {
        put(b, meta, meta_len);
    } else {
        /* No metadata from the runtime: clock and process from the header. */
        struct fr_te_clock c = { .version = 1, .ticks_per_second = h->ticks_per_second,
                                 .source = h->ticks_per_second == 1000000000u,
                                 .realtime_ns = h->realtime_ns };
        put_te(b, FR_TE_CLOCK, &c, sizeof c, NULL, 0);
        struct fr_te_process p = { .pid = h->pid, .ppid = h->ppid };
        uint16_t none = 0, exe = h->exe_len;
        uint8_t tail[2 + 2 + 1024 + 2];
        size_t n = 0;
        memcpy(tail + n, &none, 2), n += 2;
        memcpy(tail + n, &exe, 2), n += 2;
        memcpy(tail + n, h->exe, exe), n += exe;
        memcpy(tail + n, &none, 2), n += 2;
        uint8_t hdr[FR_ENVELOPED_HEADER_SIZE];
        fr_te_header_put(hdr, FR_TE_PROCESS, sizeof p + n, 0);
        put(b, hdr, sizeof hdr);
        put(b, &p, sizeof p);
        put(b, tail, n);
    }
    put(b, sites, sites_len);   /* FR_TE_EVENT_SITE: what compact events need */
    uint64_t causes[FR_DROP_NCAUSES] = {0}, below = 0, written = 0;
    uint32_t threads = 0;
    bytes per = {0};
    for (uint32_t s = 0; s < h->max_threads; s++) {
        const struct fr_backing_thread_desc *d = &j->td[s];
        if (d->state == 0 || d->state > 2)
            continue;
        threads++;
        struct fr_te_drops dr = { .tid = d->tid, .ncauses = FR_DROP_NCAUSES };
        uint64_t sum = 0;
        for (int c = 0; c < FR_DROP_NCAUSES; c++)
            dr.cause[c] = d->dropped[c];
        dr.cause[FR_DROP_OVERWRITTEN] += d->taken_records;
        dr.cause[FR_DROP_UNFINISHED] += j->lost_of[s];
        for (int c = 0; c < FR_DROP_NCAUSES; c++) {
            causes[c] += dr.cause[c];
            sum += dr.cause[c];
        }
        below += d->calls_below_threshold;
        uint64_t kept = j->kept_of[s];
        if (j->in->stream && first_slot_of_tid(j, s))   /* its records in the file */
            kept += j->in->stream->records(j->in->stream->ctx, d->tid);
        written += kept;
        struct fr_te_thread_stats ts = { .tid = d->tid, .records_written = kept,
                                         .records_dropped = sum,
                                         .bytes_dropped = d->bytes_dropped + d->taken_bytes,
                                         .calls_below_threshold = d->calls_below_threshold };
        size_t nl = strnlen(d->name, sizeof d->name);
        put_te(&per, FR_TE_THREAD_STATS, &ts, sizeof ts, d->name, nl);
        put_te(&per, FR_TE_DROPS, &dr, sizeof dr, NULL, 0);
    }
    /* records in buffers of no readable thread */
    causes[FR_DROP_UNFINISHED] += j->unattributed;
    uint64_t dropped = 0;
    for (int c = 0; c < FR_DROP_NCAUSES; c++)
        dropped += causes[c];
    struct fr_te_summary sm = { .version = 1, .policy = h->policy, .buffer_size = h->buffer_size,
                                .buffers = h->buffers, .threads = threads,
                                .records_written = written, .records_dropped = dropped,
                                .calls_below_threshold = below,
                                .threshold_ticks = h->threshold_ticks };
    put_te(b, FR_TE_SUMMARY, &sm, sizeof sm, NULL, 0);
    struct fr_te_drops all = { .tid = 0, .ncauses = FR_DROP_NCAUSES };
    memcpy(all.cause, causes, sizeof causes);
    put_te(b, FR_TE_DROPS, &all, sizeof all, NULL, 0);
    put(b, per.p, per.len);
    bool oom = per.oom;
    free(per.p);
    struct fr_te_dump_cause dc = { .version = 1, .cause = FR_DUMP_RECOVERED,
                                   .inconsistent = j->rep->torn + j->rep->lost_records };
    put_te(b, FR_TE_DUMP_CAUSE, &dc, sizeof dc, NULL, 0);
    j->rep->threads = threads;
    return b->oom || oom ? -1 : 0;
}

static void out_extents(FILE *out, uint64_t n)
{
    uint8_t rec[MD];
    fr_md_put_buffer_extents(rec, (struct fr_md_buffer_extents){ n });
    fwrite(rec, 1, sizeof rec, out);
}

/* One block for the buffers [first, first + n) of one tid, oldest first (as the
 * runtime's log_writer.c writes it). */
static int write_thread_block(job *j, FILE *out, const buf_info *bufs, uint32_t n)
{
    uint64_t lost = 0;
    const fr_recover_stream *sm = j->in->stream;
    if (j->h.policy == FR_POLICY_OVERWRITE)
        for (uint32_t s = 0; s < j->h.max_threads; s++)
            if (j->td[s].state && j->td[s].state <= 2 && j->td[s].tid == bufs[0].tid)
                /* streamed: what the stream writer marks (stream_writer.c new_losses) */
                lost += sm ? j->td[s].taken_records
                           : j->td[s].dropped[FR_DROP_OVERWRITTEN] + j->td[s].taken_records;
    if (sm) {   /* less what the file's markers count already */
        uint64_t marked = sm->lost(sm->ctx, bufs[0].tid);
        lost = lost > marked ? lost - marked : 0;
    }
    uint64_t size = FR_BLOCK_HEAD_EXTRA + bufs[0].len + (lost ? FR_LOST_RECORD_SIZE : 0);
    for (uint32_t i = 1; i < n; i++)
        size += bufs[i].len - FR_BUFFER_HEAD_SKIP;
    out_extents(out, size);
    for (uint32_t i = 0; i < n; i++) {
        if (rd(j, desc_off(&j->h, bufs[i].idx), j->buf, bufs[i].len) < 0)
            return -1;
        uint8_t *b = j->buf;
        if (bufs[i].run_at)   /* a run cut back to its whole entries */
            fr_md_set_event_size(b + bufs[i].run_at, bufs[i].run_size);
        if (i) {
            fwrite(b + FR_BUFFER_HEAD_SKIP, 1, bufs[i].len - FR_BUFFER_HEAD_SKIP, out);
            continue;
        }
        struct fr_md_walltime seq, *wt = NULL;
        if (sm) {   /* the stream's WalltimeMarker sequence (stream_writer.c append_block) */
            seq = (struct fr_md_walltime){ sm->base_sec + (int64_t)j->next_block,
                                           (int32_t)(j->next_block & 0x7fffffff) };
            wt = &seq;
            j->next_block++;
        }
        uint8_t head[FR_BLOCK_HEAD_SIZE];
        fr_block_head_put(head, b, wt);
        fwrite(head, 1, sizeof head, out);
        if (lost) {
            uint8_t rec[FR_LOST_RECORD_SIZE];
            struct fr_te_lost l = { .records = lost };
            fr_te_header_put(rec, FR_TE_LOST, sizeof l, 0);
            memcpy(rec + FR_ENVELOPED_HEADER_SIZE, &l, sizeof l);
            fwrite(rec, 1, sizeof rec, out);
        }
        fwrite(b + FR_BUFFER_PREAMBLE, 1, bufs[i].len - FR_BUFFER_PREAMBLE, out);
    }
    return 0;
}

int fr_recover(const fr_recover_input *in, FILE *out, fr_recover_report *rep, char *err,
               size_t errcap)
{
    memset(rep, 0, sizeof *rep);
    job j = { .in = in, .rep = rep };
    int rc = FR_RECOVER_BAD;
    uint8_t *meta = NULL, *sites = NULL;
    bytes mb = {0};
    if (in->size < sizeof j.h) {
        fail(err, errcap, "truncated: too short for a backing file's header");
        return FR_RECOVER_BAD;
    }
    if (rd(&j, 0, &j.h, sizeof j.h) < 0) {
        snprintf(err, errcap, "cannot read the header: %s", strerror(errno));
        return FR_RECOVER_IO;
    }
    if (j.h.version == 1)   /* no sites region; what follows its header is not ours */
        memset((uint8_t *)&j.h + FR_BACKING_HEADER_V1_SIZE, 0,
               sizeof j.h - FR_BACKING_HEADER_V1_SIZE);
    else if (j.h.version == 2)   /* no small buffers */
        memset((uint8_t *)&j.h + FR_BACKING_HEADER_V2_SIZE, 0,
               sizeof j.h - FR_BACKING_HEADER_V2_SIZE);
    else if (j.h.version == 3)   /* no fork_entries */
        memset((uint8_t *)&j.h + FR_BACKING_HEADER_V3_SIZE, 0,
               sizeof j.h - FR_BACKING_HEADER_V3_SIZE);
    const char *why = header_problem(&j.h, in->size);
    if (why) {
        fail(err, errcap, why);
        return FR_RECOVER_BAD;
    }
    const struct fr_backing_header *h = &j.h;
    rep->pid = h->pid;
    rep->state = h->state;
    rep->fork_entries = h->fork_entries;
    memcpy(rep->exe, h->exe, h->exe_len);
    rep->exe[h->exe_len] = 0;
    const uint64_t ndesc = ndesc_of(h);
    j.bd = calloc(ndesc, sizeof *j.bd);
    j.td = calloc(h->max_threads, sizeof *j.td);
    j.buf = malloc((size_t)h->buffer_size);
    j.used = calloc(ndesc, sizeof *j.used);
    j.lost_of = calloc(h->max_threads, sizeof *j.lost_of);
    j.kept_of = calloc(h->max_threads, sizeof *j.kept_of);
    if (!j.bd || !j.td || !j.buf || !j.used || !j.lost_of || !j.kept_of) {
        snprintf(err, errcap, "out of memory (buffers of %llu bytes)",
                 (unsigned long long)h->buffer_size);
        rc = FR_RECOVER_IO;
        goto done;
    }
    if (rd(&j, h->bufs_off, j.bd, ndesc * sizeof *j.bd) < 0 ||
        rd(&j, h->threads_off, j.td, h->max_threads * sizeof *j.td) < 0)
        goto read_error;
    for (uint32_t s = 0; s < h->max_threads; s++)
        j.td[s].name[15] = 0;
    /* the runtime's fixed metadata records, if it wrote them */
    size_t meta_len = 0;
    if (h->meta_len && h->meta_len <= FR_BACKING_META_MAX && h->meta_off >= h->map_size &&
        h->meta_off <= in->size && h->meta_len <= in->size - h->meta_off) {
        meta = malloc((size_t)h->meta_len);
        if (!meta) {
            fail(err, errcap, "out of memory (metadata)");
            rc = FR_RECOVER_IO;
            goto done;
        }
        if (rd(&j, h->meta_off, meta, (size_t)h->meta_len) < 0)
            goto read_error;
        meta_len = meta_prefix(meta, (size_t)h->meta_len, 0, NULL);
        rep->meta_ignored = h->meta_len - meta_len;
    } else if (h->meta_len) {
        rep->meta_ignored = h->meta_len;
    }
    rep->meta_missing = meta_len == 0;
    /* the event sites the runtime appended (bounds checked with the header) */
    size_t sites_len = 0;
    if (h->sites_len) {
        sites = malloc((size_t)h->sites_len);
        if (!sites) {
            fail(err, errcap, "out of memory (event sites)");
            rc = FR_RECOVER_IO;
            goto done;
        }
        if (rd(&j, h->sites_off, sites, (size_t)h->sites_len) < 0)
            goto read_error;
        sites_len = meta_prefix(sites, (size_t)h->sites_len, FR_TE_EVENT_SITE, &rep->sites);
        rep->sites_ignored = h->sites_len - sites_len;
    }
    for (uint32_t i = 0; i < ndesc; i++) {
        int r = scan_buffer(&j, i, &j.used[j.nused]);
        if (r < 0)
            goto read_error;
        j.nused += (uint32_t)r;
    }
    qsort(j.used, j.nused, sizeof *j.used, by_tid_seq);
    if (build_meta(&j, &mb, meta, meta_len, sites, sites_len) < 0) {
        fail(err, errcap, "out of memory (metadata block)");
        rc = FR_RECOVER_IO;
        goto done;
    }
    uint64_t n = mb.len;
    if (!in->stream) {   /* a whole trace: header and metadata first */
        struct fr_xray_file_header fh = { .version = FR_XRAY_VERSION_FDR,
                                          .type = FR_XRAY_TYPE_FDR, .flags = h->clock_flags,
                                          .cycle_frequency = h->ticks_per_second,
                                          .buffer_size = h->buffer_size };
        fwrite(&fh, 1, sizeof fh, out);
        out_extents(out, n);
        fwrite(mb.p, 1, mb.len, out);
    } else {
        j.next_block = in->stream->blocks;
    }
    /* one block per tid, in the order of the tid's first slot (the runtime's order) */
    for (uint32_t s = 0; s < h->max_threads; s++) {
        const struct fr_backing_thread_desc *d = &j.td[s];
        if (d->state == 0 || d->state > 2)
            continue;
        uint32_t e = 0;
        while (e < s && !(j.td[e].tid == d->tid && j.td[e].state && j.td[e].state <= 2))
            e++;
        if (e < s)
            continue;
        uint32_t lo = 0, hi = j.nused;   /* the tid's range in the sorted list */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (j.used[mid].tid < d->tid)
                lo = mid + 1;
            else
                hi = mid;
        }
        uint32_t end = lo;
        while (end < j.nused && j.used[end].tid == d->tid)
            end++;
        if (end > lo && write_thread_block(&j, out, j.used + lo, end - lo) < 0)
            goto read_error;
    }
    if (in->stream) {   /* the end of a streamed file: the totals last, as the runtime's */
        out_extents(out, n);
        fwrite(mb.p, 1, mb.len, out);
    }
    if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, errcap, "cannot write the trace: %s", strerror(errno));
        rc = FR_RECOVER_IO;
        goto done;
    }
    rc = FR_RECOVER_OK;
    goto done;
read_error:
    snprintf(err, errcap, "cannot read the backing file: %s", strerror(errno));
    rc = FR_RECOVER_IO;
done:
    free(j.bd);
    free(j.td);
    free(j.buf);
    free(j.used);
    free(j.lost_of);
    free(j.kept_of);
    free(meta);
    free(sites);
    free(mb.p);
    return rc;
}
