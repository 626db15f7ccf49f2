/*
 * stream_tail.c - see stream_tail.h. Two passes: the blocks' BufferExtents from the
 * header on (a block longer than what is left of the file is the torn one: the end is
 * before it), then the records of the whole blocks through the reader (a read-only
 * mapping of them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fr_format.h"
#include "fr_reader.h"
#include "stream_tail.h"
#include "pread_all.h"

typedef struct { int32_t tid; uint64_t tsc; } block_key;
typedef struct { int32_t tid; uint64_t records, lost; } thread_counts;

struct fr_stream_tail {
    uint64_t end, blocks;
    int64_t base_sec;
    bool have_base, finished;
    block_key *keys;
    size_t nkeys, cap_keys;
    thread_counts *threads;
    size_t nthreads, cap_threads;
};

static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, c * size);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static thread_counts *counts_of(const fr_stream_tail *t, int32_t tid)
{
    for (size_t i = 0; i < t->nthreads; i++)
        if (t->threads[i].tid == tid)
            return &t->threads[i];
    return NULL;
}

/* tid's counts, added if new; NULL when out of memory. */
static thread_counts *thread_of(fr_stream_tail *t, int32_t tid)
{
    thread_counts *c = counts_of(t, tid);
    if (c)
        return c;
    if (!grow((void **)&t->threads, &t->cap_threads, t->nthreads, sizeof *t->threads))
        return NULL;
    t->threads[t->nthreads] = (thread_counts){ .tid = tid };
    return &t->threads[t->nthreads++];
}

static int by_key(const void *a, const void *b)
{
    const block_key *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->tsc < y->tsc ? -1 : x->tsc > y->tsc;
}

/* The records of [0, end): per thread, its records and markers; the blocks' keys. */
static int read_records(fr_stream_tail *t, int fd, char *err, size_t errcap)
{
    void *map = mmap(NULL, (size_t)t->end, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        snprintf(err, errcap, "cannot map the streamed trace");
        return -1;
    }
    fr_reader *r = fr_reader_open_memory(map, (size_t)t->end, "stream", err, errcap);
    if (!r) {
        munmap(map, (size_t)t->end);
        return -1;
    }
    fr_record rec;
    int32_t tid = 0;
    int rc = 0;
    while (rc == 0 && fr_reader_next(r, &rec) == FR_READ_OK) {
        if (rec.kind == FR_REC_BLOCK) {
            tid = rec.tid;
            if (tid != 0) {   /* a thread block: numbered by the stream writer */
                if (!t->have_base) {
                    t->base_sec = rec.walltime_sec - rec.walltime_usec;
                    t->have_base = true;
                }
                t->blocks++;
            }
            continue;
        }
        bool ours = rec.kind == FR_REC_TYPED && rec.event_type >= FR_TE_FIRST &&
                    rec.event_type <= FR_TE_LAST;
        if (ours && rec.event_type == FR_TE_SUMMARY) {
            t->finished = true;
            continue;
        }
        if (ours && rec.event_type == FR_TE_BLOCK_START && rec.size >= 8) {
            if (!grow((void **)&t->keys, &t->cap_keys, t->nkeys, sizeof *t->keys)) {
                rc = -1;
                break;
            }
            block_key k = { .tid = tid };
            memcpy(&k.tsc, rec.data, 8);
            t->keys[t->nkeys++] = k;
            continue;
        }
        if (ours && rec.event_type != FR_TE_LOST && rec.event_type != FR_TE_EVENT &&
            rec.event_type != FR_TE_EVENT_RUN)
            continue;   /* metadata */
        if (tid == 0)
            continue;
        thread_counts *c = thread_of(t, tid);
        if (!c) {
            rc = -1;
            break;
        }
        if (ours && rec.event_type == FR_TE_LOST) {
            uint64_t n = 0;
            if (rec.size >= 8)
                memcpy(&n, rec.data, 8);
            c->lost += n;
        } else {
            c->records++;
        }
    }
    if (rc)
        snprintf(err, errcap, "out of memory");
    fr_reader_close(r);
    munmap(map, (size_t)t->end);
    if (t->nkeys > 1)   /* (none: a file of its first metadata block only; NULL) */
        qsort(t->keys, t->nkeys, sizeof *t->keys, by_key);
    return rc;
}

fr_stream_tail *fr_stream_tail_scan(int fd, uint64_t size, char *err, size_t errcap)
{
    struct fr_xray_file_header h;
    if (size < sizeof h || fr_pread_all(fd, &h, sizeof h, 0) < 0 ||
        h.version != FR_XRAY_VERSION_FDR || h.type != FR_XRAY_TYPE_FDR) {
        snprintf(err, errcap, "not an XRay FDR version 5 trace");
        return NULL;
    }
    fr_stream_tail *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    uint64_t off = sizeof h;
    for (;;) {
        uint8_t md[FR_XRAY_METADATA_SIZE];
        if (size - off < sizeof md || fr_pread_all(fd, md, sizeof md, off) < 0 ||
            md[0] != FR_MD_BYTE0(FR_MD_BUFFER_EXTENTS))
            break;
        uint64_t n = fr_md_get_buffer_extents(md).size;
        if (n > size - off - sizeof md)
            break;   /* torn: being appended when the process died */
        off += sizeof md + n;
    }
    t->end = off;
    if (t->end > sizeof h && read_records(t, fd, err, errcap) < 0) {
        fr_stream_tail_free(t);
        return NULL;
    }
    return t;
}

uint64_t fr_stream_tail_end(const fr_stream_tail *t) { return t->end; }
bool fr_stream_tail_finished(const fr_stream_tail *t) { return t->finished; }

static int has_block(void *ctx, int32_t tid, uint64_t first_tsc)
{
    const fr_stream_tail *t = ctx;
    block_key k = { tid, first_tsc };
    return t->nkeys && bsearch(&k, t->keys, t->nkeys, sizeof k, by_key) != NULL;
}

static uint64_t records(void *ctx, int32_t tid)
{
    const thread_counts *c = counts_of(ctx, tid);
    return c ? c->records : 0;
}

static uint64_t lost(void *ctx, int32_t tid)
{
    const thread_counts *c = counts_of(ctx, tid);
    return c ? c->lost : 0;
}

void fr_stream_tail_recover_input(fr_stream_tail *t, fr_recover_stream *s)
{
    *s = (fr_recover_stream){ .has_block = has_block, .records = records, .lost = lost,
                              .ctx = t, .blocks = t->blocks, .base_sec = t->base_sec };
}

void fr_stream_tail_free(fr_stream_tail *t)
{
    if (!t)
        return;
    free(t->keys);
    free(t->threads);
    free(t);
}
