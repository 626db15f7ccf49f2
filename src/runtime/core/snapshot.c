/*
 * snapshot.c - fr_snapshot: the history so far, written to a new file while every thread
 * goes on recording into the same buffers.
 *
 * Nothing is stopped and nothing shared is written: the snapshot reads. Each live
 * thread's current buffer is taken up to the thread's pos at the start (pos only ever
 * passes whole records; fr_pool_view reads it through a pin, docs/BUFFERS.md). Every
 * other buffer is taken up to its published `used`. A thread may meanwhile take one of
 * these buffers for new records (overwrite policy) while the snapshot is reading it, so
 * each buffer is first copied to a private staging area and kept only if its ownership
 * word (state, owner, generation) is the same after the copy as before: a buffer is
 * handed out by a compare-and-swap of that word (a new generation) before anything is
 * written into it. A buffer that changed is left out of the file; its records are
 * counted as "not captured consistently" (FR_TE_DUMP_CAUSE) and an FR_TE_LOST event
 * marks the gap.
 *
 * With stream=1 the history is mostly in the streamed file, not in the pool: the
 * snapshot holds the stream writer between two blocks (fr_stream_hold: recording goes
 * on, the pool is the queue meanwhile), reads the pool as above (every buffer not in the
 * file is still there), lets the writer go, and then copies the streamed file's complete
 * blocks as they were at the hold in front of its own metadata and thread blocks. Its
 * blocks carry the stream's WalltimeMarker sequence and FR_TE_LOST counts only for
 * losses the file's markers do not cover (docs/FORMAT.md, "Streamed files").
 *
 * Async-signal-safe (it runs from the snapshot_signal handler): the staging area is
 * mmap'ed for the snapshot and unmapped after; one snapshot at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "flightrec.h"
#include "core/crash_dump.h"
#include "core/log_writer.h"
#include "core/session.h"
#include "core/write_error.h"
#include "core/snapshot.h"
#include "core/stream_writer.h"
#include "core/text_out.h"
#include "core/thread_writer.h"
#include "core/buffer_records.h"
#include "core/buffer_view.h"
#include "core/buffer_pool.h"
#include "core/options.h"
#include "core/trace_out.h"
#include "core/metadata.h"
#include "fr_format.h"

/* A buffer as the snapshot sees it. */
struct snap_buf {
    uint64_t seq, used, records, own;
};

/* A thread slot's counts as the snapshot holds them: drops read with its records, and
 * the records the file holds of it (the streamed blocks', then the blocks' it plans to
 * write, corrected when a buffer changed hands meanwhile). */
struct snap_slot {
    int32_t  tid;          /* the thread then (a slot a new thread claims is not it) */
    uint32_t captured;
    uint64_t written_at;   /* file offset of its THREAD_STATS' written count (0: none) */
    uint64_t written;      /* what its blocks actually hold, as they are written */
    struct fr_meta_figures f;
};

struct snapshot {
    uint8_t         *stage;    /* buffer_size bytes */
    uint64_t        *cur_used; /* per buffer: used at the start if a thread's current one, else 0 */
    uint64_t        *cur_records;
    uint64_t        *cur_seq;  /* its ownership word then: another one means it changed hands */
    uint64_t         seq_limit;/* buffers stamped from this seq on hold newer records */
    uint32_t        *order;    /* a thread's buffers, sorted by seq */
    struct snap_buf *info;     /* per entry of order */
    struct snap_slot *slots;   /* FR_MAX_THREADS */
    uint32_t         nslots;   /* slots in use when the snapshot began */
    struct fr_meta_figures totals;
    uint64_t         totals_at;/* file offset of the summary's written count */
    struct fr_meta_figures_source source;
    size_t           map_size;
    struct fr_dump_cause cause;
    uint64_t         inconsistent_written;   /* the count in the file now */
    int              streamed; /* the stream is held: `held` describes its file */
    struct fr_stream_held held;
};

static uint8_t out_buffer[64 * 1024];
static struct fr_trace_job job = { .buf = out_buffer, .cap = sizeof out_buffer, .fd = -1 };
static int busy;
static uint32_t counter;
/* A snapshot signal that came while a snapshot was being taken (its number; atomic):
 * one more is taken when that one ends, so a request is never dropped for arriving
 * during another (the kernel merges the signals that arrive while one is pending, and
 * so does this: requests during one snapshot give one more). */
static int pending;

#define LOAD(p)   __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define LOAD_R(p) __atomic_load_n((p), __ATOMIC_RELAXED)

static size_t round_page(size_t n) { return (n + 4095) & ~(size_t)4095; }

static int snapshot_map(struct snapshot *s)
{
    size_t nbuf = fr_pool.ndesc;   /* buffers and small buffers */
    size_t stage = round_page(fr_pool.buffer_size);
    size_t per_buf = 3 * sizeof(uint64_t) + sizeof(uint32_t) + sizeof(struct snap_buf);
    size_t slots = round_page((size_t)FR_MAX_THREADS * sizeof(struct snap_slot));
    s->map_size = stage + slots + round_page(nbuf * per_buf);
    uint8_t *m = mmap(NULL, s->map_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    s->stage = m;
    s->slots = (struct snap_slot *)(m + stage);   /* pages touched only for slots in use */
    s->cur_used = (uint64_t *)(m + stage + slots);
    s->cur_records = s->cur_used + nbuf;
    s->cur_seq = s->cur_records + nbuf;
    s->info = (struct snap_buf *)(s->cur_seq + nbuf);
    s->order = (uint32_t *)(s->info + nbuf);
    return 0;
}

/* A slot's drop counts now: its live thread's own (through a pin), else those it
 * published at exit; plus what other threads took from it. */
static void read_figures(uint32_t slot, struct fr_meta_figures *f)
{
    struct fr_thread_desc *d = &fr_pool.threads[slot];
    memset(f, 0, sizeof *f);
    struct fr_thread *t = fr_pool_pin(slot);
    for (int c = 0; c < FR_DROP_NCAUSES; c++)
        f->dropped[c] = t ? fr_thread_dropped(t, c) : LOAD_R(&d->dropped[c]);
    f->bytes = t ? LOAD_R(&t->dropped_bytes) : LOAD_R(&d->bytes_dropped);
    f->below = t ? LOAD_R(&t->below_threshold) : LOAD_R(&d->calls_below_threshold);
    if (t)
        fr_pool_unpin(slot);
    f->dropped[FR_DROP_OVERWRITTEN] += LOAD_R(&d->taken_records);
    f->bytes += LOAD_R(&d->taken_bytes);
}

/* Each live thread's current buffer, its end now, and the thread's drop counts at that
 * moment: read before and after the end, and again until both readings agree (a drop
 * in between would be counted in the summary with records the file does not hold). */
static void capture_current_buffers(struct snapshot *s)
{
    s->seq_limit = __atomic_load_n(&fr_pool.next_seq, __ATOMIC_SEQ_CST);
    uint32_t n = LOAD(&fr_pool.nthreads);
    s->nslots = n > FR_MAX_THREADS ? FR_MAX_THREADS : n;
    for (uint32_t i = 0; i < fr_pool.ndesc; i++) {
        uint64_t own = LOAD(&fr_pool.bufs[i].own);
        uint32_t slot = FR_OWN_SLOT(own);
        if (FR_OWN_STATE(own) != FR_BUF_CURRENT || slot >= s->nslots)
            continue;
        struct snap_slot *ss = &s->slots[slot];
        struct fr_meta_figures before;
        struct fr_buffer_view v;
        int ok = 0;
        for (int tries = 0; tries < 16; tries++) {
            read_figures(slot, &before);
            ok = fr_pool_view(i, &v) && LOAD(&fr_pool.bufs[i].own) == own;
            read_figures(slot, &ss->f);
            if (!ok || memcmp(&before, &ss->f, sizeof before) == 0)
                break;
        }
        ss->captured = 1;
        ss->tid = fr_pool.threads[slot].tid;
        if (!ok)
            continue;
        s->cur_used[i] = v.used;
        /* counted in the bytes: the counter read beside pos may be a record off */
        s->cur_records[i] = fr_buffer_count_records(fr_pool_buffer(i), v.used);
        s->cur_seq[i] = own;
    }
    for (uint32_t slot = 0; slot < s->nslots; slot++) {
        struct snap_slot *ss = &s->slots[slot];
        if (ss->captured || LOAD(&fr_pool.threads[slot].state) == FR_THREAD_UNUSED)
            continue;
        read_figures(slot, &ss->f);   /* no current buffer: nothing recorded meanwhile */
        ss->captured = 1;
        ss->tid = fr_pool.threads[slot].tid;
    }
}

/* Records lost before the oldest buffer a thread still holds (its own overwrites, and
 * buffers other threads took from it). */
static uint64_t lost_before(const struct snapshot *s, int32_t tid, uint32_t nthreads)
{
    if (fr_pool.policy != FR_POLICY_OVERWRITE)
        return 0;
    uint64_t n = 0;
    for (uint32_t slot = 0; slot < nthreads; slot++) {
        const struct snap_slot *ss = &s->slots[slot];
        if (slot >= s->nslots || !ss->captured || ss->tid != tid ||
            fr_pool.threads[slot].tid != tid)
            continue;
        n += ss->f.dropped[FR_DROP_OVERWRITTEN];   /* as the summary counts them */
        if (s->streamed) {   /* marked in the streamed file already */
            uint64_t marked = fr_stream_lost_marked(slot, tid);
            n -= marked < n ? marked : n;
        }
    }
    return n;
}

static void put_lost(struct fr_out *o, uint64_t n)
{
    struct fr_te_lost l = { .records = n };
    fr_out_te_header(o, FR_TE_LOST, sizeof l);
    fr_out_put(o, &l, sizeof l);
}

enum { SKIP, TAKE, RECYCLED };

/* Whether buffer i (ownership word `own`) belongs in the snapshot: TAKE (its seq, bytes
 * and records in *info), SKIP, or RECYCLED (a thread's current buffer at the start,
 * handed out again since: its records, *info's, are gone). */
static int select_buffer(const struct snapshot *s, uint32_t i, uint64_t own, struct snap_buf *info)
{
    struct fr_buffer_desc *b = &fr_pool.bufs[i];
    *info = (struct snap_buf){ LOAD_R(&b->seq), s->cur_used[i], s->cur_records[i], own };
    if (info->used && FR_OWN_GEN(own) != FR_OWN_GEN(s->cur_seq[i]))
        return RECYCLED;
    if (!info->used && info->seq >= s->seq_limit)
        return SKIP;   /* handed out after the snapshot began: newer records only */
    if (!info->used) {
        if (FR_OWN_STATE(own) == FR_BUF_CURRENT)
            return SKIP;   /* not captured at the start (handed out since, or stuck) */
        info->used = LOAD_R(&b->used);
        info->records = LOAD_R(&b->records);
    }
    if (info->used < FR_BUFFER_PREAMBLE || info->used > fr_pool_capacity(i))
        return SKIP;
    return TAKE;
}

/* The slot of a buffer owned by `own` whose counts the snapshot has (captured, the same
 * thread still), or -1. */
static int64_t counted_slot(const struct snapshot *s, uint64_t own)
{
    uint32_t slot = FR_OWN_SLOT(own);
    if (slot >= s->nslots || !s->slots[slot].captured ||
        s->slots[slot].tid != fr_pool.threads[slot].tid)
        return -1;
    return slot;
}

/* The summary's and each thread's `written` before any block is written: the streamed
 * blocks' (held: they do not move) and the buffers the snapshot means to copy. A buffer
 * that changes hands before it is copied is taken off again (correct_written). */
static void plan_counts(struct snapshot *s)
{
    memset(&s->totals, 0, sizeof s->totals);
    for (uint32_t slot = 0; slot < s->nslots; slot++) {
        struct snap_slot *ss = &s->slots[slot];
        if (!ss->captured)
            continue;
        if (s->streamed)
            ss->f.written = LOAD_R(&fr_pool.threads[slot].streamed);
        ss->written = ss->f.written;   /* the blocks' records are added as written */
        s->totals.threads++;
        s->totals.written += ss->f.written;
        s->totals.below += ss->f.below;
        s->totals.bytes += ss->f.bytes;
        for (int c = 0; c < FR_DROP_NCAUSES; c++)
            s->totals.dropped[c] += ss->f.dropped[c];
    }
    /* threads whose slot was recycled, drops that belong to no slot */
    s->totals.threads += LOAD_R(&fr_pool.recycled_threads);
    if (s->streamed)
        s->totals.written += LOAD_R(&fr_pool.recycled_streamed);
    s->totals.below += LOAD_R(&fr_pool.recycled_below);
    s->totals.bytes += LOAD_R(&fr_pool.recycled_bytes);
    for (int c = 0; c < FR_DROP_NCAUSES; c++)
        s->totals.dropped[c] += LOAD_R(&fr_pool.recycled[c]);
    for (uint32_t i = 0; i < fr_pool.ndesc; i++) {
        uint64_t own = LOAD(&fr_pool.bufs[i].own);
        struct snap_buf info;
        int64_t slot = counted_slot(s, own);
        if (FR_OWN_STATE(own) == FR_BUF_FREE || slot < 0 || select_buffer(s, i, own, &info) != TAKE)
            continue;
        s->slots[slot].f.written += info.records;
        s->totals.written += info.records;
    }
}

/* The metadata block's counts (struct fr_meta_figures_source): the planned ones. */
static void snapshot_figures(uint32_t slot, struct fr_meta_figures *f, uint64_t written_at, void *ctx)
{
    struct snapshot *s = ctx;
    if (slot == FR_META_TOTALS) {
        *f = s->totals;
        s->totals_at = written_at;
        return;
    }
    struct snap_slot *ss = slot < s->nslots ? &s->slots[slot] : NULL;
    if (!ss || !ss->captured || ss->tid != fr_pool.threads[slot].tid) {
        memset(f, 0, sizeof *f);   /* a thread that began after the snapshot */
        return;
    }
    *f = ss->f;
    ss->written_at = written_at;
}

/* After thread `tid`'s block: where its slots' blocks hold other than planned (a buffer
 * recycled before it was copied), the counts in the metadata block are corrected. */
static void correct_written(struct snapshot *s, struct fr_out *o, int32_t tid)
{
    for (uint32_t slot = 0; slot < s->nslots; slot++) {
        struct snap_slot *ss = &s->slots[slot];
        if (!ss->written_at || ss->tid != tid || ss->written == ss->f.written)
            continue;
        s->totals.written = s->totals.written - ss->f.written + ss->written;
        ss->f.written = ss->written;
        fr_out_patch(o, ss->written_at, &ss->written, 8);
        if (s->totals_at)
            fr_out_patch(o, s->totals_at, &s->totals.written, 8);
    }
}

/* The block of thread `tid` (log_writer.c's layout: see write_thread_block there). */
static void snapshot_block(struct fr_out *o, int32_t tid, uint32_t nthreads, void *ctx)
{
    struct snapshot *s = ctx;
    uint32_t n = 0;
    for (uint32_t i = 0; i < fr_pool.ndesc; i++) {
        struct fr_buffer_desc *b = &fr_pool.bufs[i];
        uint64_t own = LOAD(&b->own);
        if (FR_OWN_STATE(own) == FR_BUF_FREE)
            continue;
        uint32_t slot = FR_OWN_SLOT(own);
        if (slot >= FR_MAX_THREADS || fr_pool.threads[slot].tid != tid)
            continue;
        struct snap_buf info;
        int r = select_buffer(s, i, own, &info);
        if (r == RECYCLED)
            s->cause.inconsistent += info.records;
        if (r != TAKE)
            continue;
        uint32_t j = n++;
        while (j > 0 && s->info[j - 1].seq > info.seq) {
            s->info[j] = s->info[j - 1];
            s->order[j] = s->order[j - 1];
            j--;
        }
        s->info[j] = info;
        s->order[j] = i;
    }
    if (n == 0) {
        correct_written(s, o, tid);
        return;
    }
    uint64_t extents_at = o->offset;
    fr_out_extents(o, 0);
    uint64_t body = o->offset;
    uint64_t gap = lost_before(s, tid, nthreads);
    int started = 0;
    for (uint32_t k = 0; k < n; k++) {
        const struct snap_buf *info = &s->info[k];
        struct fr_buffer_desc *b = &fr_pool.bufs[s->order[k]];
        memcpy(s->stage, fr_pool_buffer(s->order[k]), info->used);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        uint64_t now = LOAD(&b->own);
        if (FR_OWN_GEN(now) != FR_OWN_GEN(info->own) || FR_OWN_STATE(now) == FR_BUF_FREE) {
            s->cause.inconsistent += info->records;   /* recycled while we read it */
            gap += info->records;
            continue;
        }
        const uint8_t *p = s->stage;
        uint64_t used = info->used;
        if (s->cur_used[s->order[k]])   /* a current buffer: its last run may have grown */
            used = fr_buffer_whole_records(s->stage, used);
        if (!started) {
            struct fr_md_walltime seq, *wt = NULL;
            if (s->streamed) {
                /* after the streamed blocks: the stream's sequence, not a time (FORMAT.md) */
                seq = (struct fr_md_walltime){
                    .seconds = s->held.base_sec + (int64_t)s->held.blocks,
                    .microseconds = (int32_t)(s->held.blocks & 0x7fffffff) };
                s->held.blocks++;
                wt = &seq;
            }
            uint8_t head[FR_BLOCK_HEAD_SIZE];
            fr_block_head_put(head, p, wt);
            fr_out_put(o, head, sizeof head);
            started = 1;
        } else {   /* a later buffer: its NewCPUId restarts the delta chain */
            fr_out_put(o, p + FR_BUFFER_HEAD_SKIP, FR_BUFFER_PREAMBLE - FR_BUFFER_HEAD_SKIP);
        }
        if (gap)
            put_lost(o, gap);
        gap = 0;
        fr_out_put(o, p + FR_BUFFER_PREAMBLE, used - FR_BUFFER_PREAMBLE);
        int64_t slot = counted_slot(s, info->own);
        if (slot >= 0)
            s->slots[slot].written += info->records;
    }
    if (!started) {
        /* every buffer changed under us: take the BufferExtents back (still buffered) */
        if (o->len >= FR_XRAY_METADATA_SIZE && o->offset - FR_XRAY_METADATA_SIZE == extents_at) {
            o->len -= FR_XRAY_METADATA_SIZE;
            o->offset -= FR_XRAY_METADATA_SIZE;
        }
    } else {
        uint64_t size = o->offset - body;
        fr_out_patch(o, extents_at + FR_MD_FIELD_AT(fr_md_buffer_extents, size), &size,
                     sizeof size);
    }
    correct_written(s, o, tid);
    if (s->cause.inconsistent_at && s->cause.inconsistent != s->inconsistent_written) {
        fr_out_patch(o, s->cause.inconsistent_at, &s->cause.inconsistent, 8);
        s->inconsistent_written = s->cause.inconsistent;
    }
}

/* The job's prefix (log_writer.c): the streamed file's complete blocks at the hold. */
static int copy_streamed(int fd, void *ctx)
{
    return fr_stream_copy_held(&((struct snapshot *)ctx)->held, fd);
}

static void release_stream(void *ctx)
{
    (void)ctx;
    fr_stream_release();
}

/* "%p" -> pid, "%n" -> the snapshot's number, "%%" -> "%". */
static int expand(char *out, size_t cap, const char *pattern, uint32_t seq)
{
    size_t len = 0;
    for (const char *p = pattern; *p; p++) {
        if (p[0] == '%' && (p[1] == 'p' || p[1] == 'n')) {
            char num[24];
            size_t nl = 0;
            fr_fmt_u64(num, sizeof num, &nl, p[1] == 'p' ? (uint64_t)getpid() : seq);
            if (len + nl >= cap)
                return -1;
            memcpy(out + len, num, nl);
            len += nl;
            p++;
            continue;
        }
        if (p[0] == '%' && p[1] == '%')
            p++;
        if (len + 1 >= cap)
            return -1;
        out[len++] = *p;
    }
    out[len] = 0;
    return 0;
}

static void complain(uint32_t seq, const char *path, int err)
{
    char msg[FR_OPTIONS_PATH_MAX + 160];
    size_t len = 0;
    fr_fmt_str(msg, sizeof msg, &len, "flightrec: snapshot ");
    fr_fmt_u64(msg, sizeof msg, &len, seq);
    fr_fmt_str(msg, sizeof msg, &len, ": cannot write ");
    fr_fmt_str(msg, sizeof msg, &len, path);
    fr_fmt_str(msg, sizeof msg, &len, ": ");
    fr_fmt_write_error(msg, sizeof msg, &len, err);
    fr_fmt_str(msg, sizeof msg, &len, "\n");
    fr_write_stderr(msg, len);
}

/* pattern NULL: snapshot_output, or the trace's own name followed by ".%n" when
 * `numbered`, else the trace's own name (the termination-signal flush). */
static fr_status take(const char *pattern, int sig, uint32_t cause, int numbered)
{
    if (fr_get_state() != FR_STATE_INITIALIZED)
        return FR_ERR_STATE;
    int expect = 0;
    if (!__atomic_compare_exchange_n(&busy, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return FR_ERR_STATE;   /* one snapshot at a time */
    uint32_t seq = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
    char path[FR_OPTIONS_PATH_MAX], pat[FR_OPTIONS_PATH_MAX + 8];
    if (!pattern) {
        if (fr_session.opts.snapshot_output[0] && numbered) {
            pattern = fr_session.opts.snapshot_output;
        } else {   /* the trace's own name followed by .N ("%" doubled: it is expanded) */
            size_t len = 0;
            for (const char *p = fr_session.output_path; *p && len + 2 < sizeof pat - 4; p++) {
                if (*p == '%')
                    pat[len++] = '%';
                pat[len++] = *p;
            }
            memcpy(pat + len, numbered ? ".%n" : "", numbered ? 4 : 1);
            pattern = pat;
        }
    }
    fr_status r = FR_OK;
    struct snapshot s;
    memset(&s, 0, sizeof s);
    if (expand(path, sizeof path, pattern, seq) < 0) {
        fr_write_stderr("flightrec: snapshot: file name too long\n", 40);
        r = FR_ERR_IO;
    } else if (snapshot_map(&s) < 0) {
        complain(seq, path, ENOMEM);
        r = FR_ERR_NOMEM;
    } else {
        s.streamed = fr_stream_hold(path, &s.held);
        job.prefix = s.streamed ? s.held.offset : 0;
        job.prefix_copy = copy_streamed;
        job.blocks_done = release_stream;
        capture_current_buffers(&s);
        plan_counts(&s);
        s.source = (struct fr_meta_figures_source){ snapshot_figures, &s };
        job.figures = &s.source;
        s.cause.cause = cause;
        s.cause.seq = seq;
        s.cause.sig = sig;
        s.cause.tid = (int32_t)gettid();
        job.thread_block = snapshot_block;
        job.ctx = &s;
        int err = fr_write_trace_caused(&job, path, &s.cause);
        if (s.streamed)
            fr_stream_release();   /* already, unless the write failed first */
        if (err) {
            complain(seq, path, err);
            r = FR_ERR_IO;
        }
        munmap(s.stage, s.map_size);
    }
    __atomic_store_n(&busy, 0, __ATOMIC_SEQ_CST);
    return r;
}

/* Takes the snapshots signals asked for while another was being taken (Dekker with
 * fr_snapshot_from_signal: it sets `pending` then looks at `busy`; a taker clears
 * `busy` then looks at `pending`: one of the two sees the other). */
static void take_pending(void)
{
    int sig;
    while ((sig = __atomic_exchange_n(&pending, 0, __ATOMIC_SEQ_CST)) != 0)
        if (take(NULL, sig, FR_DUMP_SNAPSHOT, 1) == FR_ERR_STATE &&
            __atomic_load_n(&busy, __ATOMIC_SEQ_CST)) {
            __atomic_store_n(&pending, sig, __ATOMIC_SEQ_CST);   /* its taker sees it */
            return;
        }
}

fr_status fr_snapshot(const char *path)
{
    fr_status r = take(path, 0, FR_DUMP_SNAPSHOT, 1);
    take_pending();
    return r;
}

void fr_snapshot_from_signal(int sig)
{
    if (__atomic_exchange_n(&pending, sig, __ATOMIC_SEQ_CST) != 0) {
        static const char m[] = "flightrec: snapshot: a request came while another waited for "
                                "the snapshot being taken: one snapshot answers both\n";
        fr_write_stderr(m, sizeof m - 1);
    }
    if (!__atomic_load_n(&busy, __ATOMIC_SEQ_CST))
        take_pending();   /* else the snapshot being taken takes it when it ends */
}

void fr_snapshot_termination(int sig)
{
    take(NULL, sig, FR_DUMP_TERMINATION_SIGNAL, 0);
}
