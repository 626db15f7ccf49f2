/*
 * stream_writer.c - stream=1: the trace file grows while the program runs.
 *
 * File layout (docs/FORMAT.md, "Streamed files"): the header and a first metadata block
 * (clock, process, the function tables known at init) are written at init; then each
 * buffer, once its thread left it (FULL) or exited (RETIRED), is appended as one block of
 * its own and the buffer goes back to the pool (FREE); at the end (finalize + flush, or a
 * crash dump) the buffers left and a final metadata block (summary, drops by cause,
 * per-thread counts) are appended. Between two blocks the file is a complete trace: a
 * reader may follow it as it grows (`flightrec info` on a live file), and one that meets
 * a block still being written sees a truncated last block.
 *
 * Who writes: only one party at a time appends, the writer thread while it runs, the
 * finisher once it has stopped it (`running` cleared with release, waited for with
 * acquire), so the file offset needs no lock.
 *
 * A buffer being written is in state WRITING (claimed by a compare-and-swap of its
 * ownership word, docs/BUFFERS.md): no thread may take it meanwhile, so under the
 * overwrite policy a thread overwrites its oldest buffer *not yet being written*; the
 * records it overwrites are counted (overwritten) and each gap is marked by FR_TE_LOST
 * in the thread's next block, or in a block of its own when no next block will come
 * (mark_final_losses). Under discard, a thread that finds no free buffer drops
 * (stream_behind) and asks again after a few records.
 *
 * A thread's buffers must reach the file in hand-out order (seq). One scan of the
 * descriptors is not atomic: it could see a thread's newer buffer FULL and miss an older
 * one that became FULL after the scan passed it. But a thread leaves a buffer before it
 * takes the next, so every buffer of a thread older than the newest the first scan saw
 * is FULL (or taken) by the end of that scan: a second scan, taking only those, makes the
 * batch complete; it is then sorted by seq.
 *
 * Write errors (ENOSPC, EFBIG under `ulimit -f`: SIGXFSZ is blocked in the writer
 * thread, and the finisher runs inside log_writer.c's block) cut the file back to its
 * last whole block, are said once on stderr and counted; the writer then stops writing
 * (the pool keeps records per the policy) and the finish tries once more.
 *
 * Async-signal-safe where the finish may run from a crash dump: no malloc, no stdio,
 * no lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>   /* rename */
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "core/stream_writer.h"
#include "core/clock.h"
#include "core/fd_guard.h"
#include "core/recorder.h"
#include "core/session.h"
#include "core/write_error.h"
#include "core/text_out.h"
#include "core/trace_out.h"
#include "core/trace_file.h"
#include "core/metadata.h"
#include "core/buffer_records.h"
#include "core/buffer_pool.h"
#include "core/options.h"
#include "core/stream_doorbell.h"
#include "fr_format.h"

#define LOAD(p)       __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define LOAD_R(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)   __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* How long the writer sleeps when nobody wakes it (it also picks up buffers of threads
 * that exited, and anything a missed wake left). */
#define IDLE_NS (50 * 1000 * 1000)
/* How long the finish waits for the writer to end its current block: ~10 s. */
#define STOP_WAIT_MS 10000

struct entry {
    uint64_t seq, own;
    uint32_t idx;
};

static struct {
    int      owned;    /* this session streams to `path` (atomic) */
    int      fd;       /* -1 once finished */
    int      done_fd;  /* the finished file, kept open (read and write) for copies of it
                          (fr_stream_copy) until the next session or fork; else -1 */
    uint32_t stop;     /* the writer is asked to end (atomic) */
    uint32_t running;  /* the writer thread is in its loop (atomic) */
    uint32_t hold;     /* a snapshot asks the writer to append nothing (atomic) */
    uint32_t in_pass;  /* the writer may be appending: it checks `hold` after setting
                          this and before each append (atomic, seq_cst: Dekker) */
    int      in_place; /* the output is a FIFO or a device: nothing to read back */
    dev_t    dev;      /* the file's device and inode: fd still leads to it? (stream_fd) */
    ino_t    ino;
    int      fd_gone;  /* the program closed fd and the file could not be opened again */
    int32_t  writer_tid;
    int      broken;   /* a write failed: the writer writes no more */
    int      uncut;    /* ...and the output could not be cut back to its last whole
                        * block (a FIFO or a device): nothing more is written to it, not
                        * even the end (a reader would get bytes after a torn block) */
    int      error;    /* the first write error (said once) */
    uint64_t write_errors;
    uint64_t offset;   /* end of the last whole block */
    uint64_t blocks;   /* blocks appended: each block's WalltimeMarker sequence */
    int64_t  base_sec;
    char     path[FR_OPTIONS_PATH_MAX];
    /* work area, mapped at open */
    void    *map;
    size_t   map_size;
    struct entry *list;     /* nbuf */
    uint8_t  *mark;         /* nbuf */
    uint64_t *maxseq;       /* per slot: 1 + newest seq of the first scan */
    uint64_t *lost_marked;  /* per slot: records already marked by FR_TE_LOST */
    int32_t  *lost_tid;     /* per slot: the thread lost_marked belongs to */
    uint8_t  *site_done;    /* bit per event site id: its FR_TE_EVENT_SITE is in the file */
    uint8_t  *site_sel;     /* bit per event site id: going into the next sites block */
} st = { .fd = -1, .done_fd = -1 };

#define SITE_BITMAP ((FR_EVENT_SITE_MAX + 1) / 8)

static uint8_t out_buffer[64 * 1024];

/* ------------------------------------------------------------------ messages */

static void say(const char *what, int err)
{
    char msg[FR_OPTIONS_PATH_MAX + 256];
    size_t len = 0;
    fr_fmt_str(msg, sizeof msg, &len, "flightrec: stream: ");
    fr_fmt_str(msg, sizeof msg, &len, what);
    fr_fmt_str(msg, sizeof msg, &len, " ");
    fr_fmt_str(msg, sizeof msg, &len, st.path);
    if (err) {
        fr_fmt_str(msg, sizeof msg, &len, ": ");
        fr_fmt_write_error(msg, sizeof msg, &len, err);
    }
    fr_fmt_str(msg, sizeof msg, &len, "\n");
    fr_write_stderr(msg, len);
}

/* ------------------------------------------------------------------ the descriptor */

/* Whether fd still leads to the stream's file (fd_guard.h). */
static int ours(int fd)
{
    return fr_fd_is(fd, st.dev, st.ino);
}

/* The stream's descriptor, checked before each use (fd_guard.h: appends through a
 * number the program took would go into its file, a failed one would cut it, our close
 * would close it). When the number no longer leads to our file it is never touched
 * again: the file is opened anew by its path (no link followed, the same device and
 * inode required) and the stream goes on at the same offset; -1 when it cannot be
 * (removed, renamed, a FIFO): the stream stops, said once. Called by the writer in its
 * pass, and by the start and the end when no pass runs. What is left: the program
 * closing the number and opening its own file at it between our check and the write,
 * a window of microseconds at a number (FR_FD_HIGH and up) its open() rarely reaches. */
static int stream_fd(void)
{
    if (st.fd < 0 || ours(st.fd))
        return st.fd;
    int fd = st.in_place ? -1 : fr_fd_reopen(st.path, O_RDWR, st.dev, st.ino);
    if (fd >= 0 && lseek(fd, (off_t)st.offset, SEEK_SET) != (off_t)st.offset) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0) {
        st.fd = fr_fd_move_high(fd);
        say("the program closed the descriptor of its output; opened again:", 0);
        return st.fd;
    }
    st.fd = -1;
    st.fd_gone = 1;
    st.broken = st.uncut = 1;
    if (!st.error)
        st.error = EBADF;
    say("the program closed the descriptor of its output, which cannot be opened again "
        "(the file ends at its last whole block; later records stay in the pool):", 0);
    return -1;
}

/* After a failed write: whether it failed because the program closed our descriptor
 * between stream_fd's check and the write (EBADF, or its own file at the number now),
 * and the file could be opened again: then the caller writes its block again, whole,
 * from st.offset. */
static int closed_under_us(void)
{
    return st.fd >= 0 && !ours(st.fd) && stream_fd() >= 0;
}

/* A metadata block of emit's records at st.offset (written again, whole, when the
 * program closed our descriptor under the write); st.offset past it, or an errno value. */
static int append_metadata(void (*emit)(struct fr_meta_writer *))
{
    for (int again = 0;; again++) {
        struct fr_out o = { .fd = st.fd, .buf = out_buffer, .cap = sizeof out_buffer,
                            .offset = st.offset };
        fr_out_metadata_block(&o, emit);
        fr_out_flush(&o);
        if (!o.error) {
            st.offset = o.offset;
            return 0;
        }
        if (again || !closed_under_us())
            return o.error;
    }
}

/* A write failed: cut the file back to its last whole block; say it once. */
static void failed(int err)
{
    st.write_errors++;
    st.broken = 1;
    if (ours(st.fd) && ftruncate(st.fd, (off_t)st.offset) == 0)
        lseek(st.fd, (off_t)st.offset, SEEK_SET);
    else
        st.uncut = 1;
    if (st.error)
        return;
    st.error = err;
    char what[200];
    size_t len = 0;
    fr_fmt_str(what, sizeof what, &len, "stopped after ");
    fr_fmt_u64(what, sizeof what, &len, st.blocks);
    fr_fmt_str(what, sizeof what, &len, st.uncut
               ? " blocks (the output cannot be cut back to its last whole block: nothing "
                 "more is written to it; later records stay in the pool): cannot write"
               : " blocks (the file ends at the last whole one; "
                 "later records stay in the pool): cannot write");
    what[len] = 0;
    say(what, err);
}

/* ------------------------------------------------------------------ event sites */

/* Compact structured events (FR_TE_EVENT_RUN) name their call site by id; the site's
 * bytes (FR_TE_EVENT_SITE) must be in the file before the first block whose events use
 * it, so that a reader following the file decodes every event of every whole block. The
 * writer appends each site that fired and is not in the file yet in a metadata block of
 * its own, after a pass has listed its buffers and before it appends them. That is
 * enough: the listing read each buffer's state FULL/RETIRED with acquire, which the
 * owner's leaving the buffer stored with release, and the owner marked the sites of its
 * events fired (or saw them fired) before it wrote them; so every such mark is seen
 * here. A buffer whose claim then fails (taken meanwhile) only leaves a site in the
 * file early. */

static int bit(const uint8_t *map, uint32_t id) { return map[id >> 3] >> (id & 7) & 1; }

/* Marks in site_sel the sites that fired and are not in the file; how many. */
static uint32_t select_new_sites(void)
{
    uint32_t n = 0;
    for (uint32_t id = 1; id <= FR_EVENT_SITE_MAX; id++) {
        const void *b;
        uint32_t size;
        int r = fr_meta_site(id, &b, &size);
        if (r < 0)
            break;
        if (r == 0 || bit(st.site_done, id))
            continue;
        st.site_sel[id >> 3] |= (uint8_t)(1u << (id & 7));
        n++;
    }
    return n;
}

/* The selected sites are in the file (done), or not (failed: selected again later). */
static void settle_selected(int written)
{
    for (uint32_t i = 0; i < SITE_BITMAP; i++) {
        if (written)
            st.site_done[i] |= st.site_sel[i];
        st.site_sel[i] = 0;
    }
}

/* Metadata emitter: FR_TE_EVENT_SITE of each selected site (the same bytes on both of
 * fr_out_metadata_block's passes: a site's bytes never change once it has an id). */
static void emit_selected(struct fr_meta_writer *w)
{
    for (uint32_t id = 1; id <= FR_EVENT_SITE_MAX; id++) {
        if (!bit(st.site_sel, id))
            continue;
        const void *b;
        uint32_t size;
        if (fr_meta_site(id, &b, &size) != 1)
            continue;   /* cannot happen: selected sites fired, and fired stays */
        struct fr_te_event_site fixed = { .site = id };
        struct iovec v[2] = { { &fixed, sizeof fixed }, { (void *)b, size } };
        fr_meta_emit_iov(w, FR_TE_EVENT_SITE, v, 2);
    }
}

/* Appends a metadata block with the sites that fired since the last one, if any; 0 or
 * an errno value. */
static int write_new_sites(void)
{
    if (!select_new_sites())
        return 0;
    if (stream_fd() < 0) {
        settle_selected(0);
        return EBADF;
    }
    int err = append_metadata(emit_selected);
    settle_selected(!err);
    return err;
}

/* ------------------------------------------------------------------ snapshots */

/* Between two appends (the writer's pass only, never the finish): while a snapshot holds
 * the stream, wait, out of the pass, so the snapshot sees the file end at a whole block
 * and every buffer not in the file still in the pool. */
static void wait_while_held(void)
{
    while (__atomic_load_n(&st.hold, __ATOMIC_SEQ_CST) && !LOAD(&st.stop)) {
        __atomic_store_n(&st.in_pass, 0, __ATOMIC_SEQ_CST);
        struct timespec t = { 0, 10 * 1000 * 1000 };
        syscall(SYS_futex, &st.hold, FUTEX_WAIT_PRIVATE, 1, &t, NULL, 0);
        __atomic_store_n(&st.in_pass, 1, __ATOMIC_SEQ_CST);
    }
}

/* How long a snapshot waits for the writer to finish its block: ~2 s. */
#define HOLD_WAIT_MS 2000

int fr_stream_hold(const char *path, struct fr_stream_held *h)
{
    memset(h, 0, sizeof *h);
    if (!LOAD(&st.owned) || st.fd < 0 || st.in_place || strcmp(path, st.path) == 0)
        return 0;
    uint32_t expect = 0;
    if (!__atomic_compare_exchange_n(&st.hold, &expect, 1, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_RELAXED))
        return 0;
    for (int i = 0; i < HOLD_WAIT_MS && __atomic_load_n(&st.in_pass, __ATOMIC_SEQ_CST); i++) {
        struct timespec ms = { 0, 1000 * 1000 };
        nanosleep(&ms, NULL);
    }
    if (__atomic_load_n(&st.in_pass, __ATOMIC_SEQ_CST) || !ours(st.fd)) {
        fr_stream_release();   /* the writer is stuck in a write, or the descriptor is
                                  not ours any more: the pool only */
        return 0;
    }
    h->fd = st.fd;
    h->offset = st.offset;
    h->blocks = st.blocks;
    h->base_sec = st.base_sec;
    return 1;
}

void fr_stream_release(void)
{
    if (!__atomic_exchange_n(&st.hold, 0, __ATOMIC_SEQ_CST))
        return;
    int saved = errno;
    syscall(SYS_futex, &st.hold, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = saved;
}

uint64_t fr_stream_lost_marked(uint32_t slot, int32_t tid)
{
    return st.map && st.lost_tid[slot] == tid ? st.lost_marked[slot] : 0;
}

static int copy_prefix(int from, int to, uint64_t len);

int fr_stream_copy_held(const struct fr_stream_held *h, int fd)
{
    return copy_prefix(h->fd, fd, h->offset);
}

/* ------------------------------------------------------------------ one block */

/* Records of `slot` overwritten or taken since its last FR_TE_LOST (overwrite policy). */
static uint64_t new_losses(uint32_t slot, int32_t tid)
{
    if (fr_pool.policy != FR_POLICY_OVERWRITE)
        return 0;
    struct fr_thread_desc *d = &fr_pool.threads[slot];
    uint64_t now = LOAD_R(&d->taken_records);
    if (st.lost_tid[slot] != tid || now < st.lost_marked[slot]) {
        st.lost_tid[slot] = tid;   /* the slot serves another thread now */
        st.lost_marked[slot] = 0;
    }
    return now - st.lost_marked[slot];
}

/* Appends buffer bytes b (used bytes, preamble first) of thread `tid` (slot) as one
 * block, with an FR_TE_LOST first when records of the thread were lost since its last
 * marker; 0 or an errno value.
 * The block is log_writer.c's thread block with one buffer, except its WalltimeMarker:
 * (seconds at init + n, n) for the file's n-th block, because llvm-xray 14 orders the
 * blocks of a thread by "seconds less AND microseconds less"; the time of each record
 * is in the timestamps and FR_TE_CLOCK. */
static int write_block(const uint8_t *b, uint64_t used, uint64_t lost);

static int append_block(const uint8_t *b, uint32_t slot, int32_t tid, uint64_t used)
{
    if (stream_fd() < 0)
        return EBADF;
    uint64_t lost = new_losses(slot, tid);
    int err = write_block(b, used, lost);
    if (err && closed_under_us())
        err = write_block(b, used, lost);   /* again, whole, from the same offset */
    if (err)
        return err;
    st.blocks++;
    st.lost_marked[slot] += lost;
    return 0;
}

/* The block of append_block at st.offset; st.offset past it, or an errno value. */
static int write_block(const uint8_t *b, uint64_t used, uint64_t lost)
{
    uint64_t size = FR_BLOCK_HEAD_EXTRA + used + (lost ? FR_LOST_RECORD_SIZE : 0);
    struct fr_out o = { .fd = st.fd, .buf = out_buffer, .cap = sizeof out_buffer,
                        .offset = st.offset };
    fr_out_extents(&o, size);
    struct fr_md_walltime wt = { .seconds = st.base_sec + (int64_t)st.blocks,
                                 .microseconds = (int32_t)(st.blocks & 0x7fffffff) };
    uint8_t head[FR_BLOCK_HEAD_SIZE];
    fr_block_head_put(head, b, &wt);
    fr_out_put(&o, head, sizeof head);
    if (lost) {
        struct fr_te_lost l = { .records = lost };
        fr_out_te_header(&o, FR_TE_LOST, sizeof l);
        fr_out_put(&o, &l, sizeof l);
    }
    fr_out_put(&o, b + FR_BUFFER_PREAMBLE, used - FR_BUFFER_PREAMBLE);
    fr_out_flush(&o);
    if (o.error)
        return o.error;
    st.offset = o.offset;
    return 0;
}

/* A block of its own for the losses of a thread that gets no further block (it exited
 * and another thread took its last buffers, or the end came): the buffer preamble of an
 * empty buffer (cpu 0, the time now: by then the records were lost) and the FR_TE_LOST.
 * 0 or an errno value. */
static int append_lost_block(uint32_t slot, int32_t tid)
{
    uint8_t pre[FR_BUFFER_PREAMBLE];
    fr_buffer_put_preamble(pre, tid, 0, fr_clock_now());   /* its walltime: append_block's */
    return append_block(pre, slot, tid, sizeof pre);
}

/* Marks the losses no later block of their thread will carry: slots whose thread exited
 * and no buffer names any more (refs 0), and at the end every slot. A slot a new thread
 * claims meanwhile (after FR_MAX_THREADS others) is left alone: its counts are folded
 * into the session's totals and its thread has no line of its own in the file. */
static int mark_final_losses(int finishing)
{
    if (fr_pool.policy != FR_POLICY_OVERWRITE)
        return 0;
    uint32_t n = LOAD(&fr_pool.nthreads);
    if (n > FR_MAX_THREADS)
        n = FR_MAX_THREADS;
    for (uint32_t slot = 0; slot < n; slot++) {
        struct fr_thread_desc *d = &fr_pool.threads[slot];
        uint32_t state = LOAD(&d->state);
        if (state == FR_THREAD_UNUSED ||
            (!finishing && (state != FR_THREAD_EXITED || LOAD(&d->refs) != 0)))
            continue;
        int32_t tid = LOAD_R(&d->tid);
        uint64_t lost = new_losses(slot, tid);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (!lost || LOAD_R(&d->state) != state)
            continue;   /* nothing new, or claimed by a new thread while we read */
        if (!finishing) {
            wait_while_held();
            if (LOAD(&st.stop))
                return 0;
        }
        int err = append_lost_block(slot, tid);
        if (err)
            return err;
    }
    return 0;
}

/* Claims buffer e (FULL or RETIRED as seen) for writing, appends it, gives it back FREE.
 * 0, or an errno value (the buffer is then left as it was: its records stay in the pool). */
static int write_buffer(const struct entry *e)
{
    struct fr_buffer_desc *b = &fr_pool.bufs[e->idx];
    uint32_t slot = FR_OWN_SLOT(e->own), gen = FR_OWN_GEN(e->own);
    uint64_t w = e->own;
    if (!__atomic_compare_exchange_n(&b->own, &w, FR_OWN(FR_BUF_WRITING, slot, gen), 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return 0;   /* taken by a thread meanwhile (overwrite policy): counted there */
    uint64_t used = LOAD_R(&b->used), records = LOAD_R(&b->records);
    int err = 0;
    if (used >= FR_BUFFER_PREAMBLE && used <= fr_pool_capacity(e->idx))
        err = append_block(fr_pool_buffer(e->idx), slot, fr_pool.threads[slot].tid, used);
    else
        records = 0;
    if (err) {
        /* back as it was; RETIRED if its thread exited meanwhile (the exit leaves a
         * WRITING buffer alone) */
        uint32_t back = FR_OWN_STATE(e->own) == FR_BUF_RETIRED ||
                                LOAD(&fr_pool.threads[slot].state) == FR_THREAD_EXITED
                            ? FR_BUF_RETIRED : FR_BUF_FULL;
        STORE(&b->own, FR_OWN(back, slot, gen));
        return err;
    }
    __atomic_fetch_add(&fr_pool.threads[slot].streamed, records, __ATOMIC_RELAXED);
    fr_pool_give_back(e->idx, gen);
    fr_pool_unref_slot(slot);
    return 0;
}

/* ------------------------------------------------------------------ one pass */

static void add(uint32_t *n, uint32_t idx, uint64_t w)
{
    uint64_t seq = LOAD_R(&fr_pool.bufs[idx].seq);
    st.list[*n] = (struct entry){ seq, w, idx };
    (*n)++;
    st.mark[idx] = 1;
}

static int is_done(uint64_t w)
{
    uint32_t s = FR_OWN_STATE(w);
    return (s == FR_BUF_FULL || s == FR_BUF_RETIRED) && FR_OWN_SLOT(w) < FR_MAX_THREADS;
}

/* Heap sort by seq (no qsort: it may allocate, and this may run in a signal handler). */
static void sift(struct entry *a, uint32_t i, uint32_t n)
{
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && a[c + 1].seq > a[c].seq)
            c++;
        if (a[i].seq >= a[c].seq)
            return;
        struct entry t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

static void sort_by_seq(struct entry *a, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;)
        sift(a, i, n);
    for (uint32_t k = n; k-- > 1;) {
        struct entry t = a[0];
        a[0] = a[k];
        a[k] = t;
        sift(a, 0, k);
    }
}

/* Appends every buffer ready for the file, each thread's in order. `finishing`: run by
 * the finisher (does not look at `stop`). 0 or the first write error. */
static int pass(int finishing)
{
    uint32_t n = 0, nbuf = fr_pool.ndesc;
    for (uint32_t i = 0; i < nbuf; i++) {
        uint64_t w = LOAD(&fr_pool.bufs[i].own);
        if (!is_done(w))
            continue;
        add(&n, i, w);
        uint64_t next = st.list[n - 1].seq + 1;
        if (next > st.maxseq[FR_OWN_SLOT(w)])
            st.maxseq[FR_OWN_SLOT(w)] = next;
    }
    for (uint32_t i = 0; i < nbuf; i++) {
        uint64_t w = LOAD(&fr_pool.bufs[i].own);
        if (st.mark[i] || !is_done(w) || LOAD_R(&fr_pool.bufs[i].seq) >= st.maxseq[FR_OWN_SLOT(w)])
            continue;
        add(&n, i, w);
    }
    for (uint32_t k = 0; k < n; k++) {
        st.mark[st.list[k].idx] = 0;
        st.maxseq[FR_OWN_SLOT(st.list[k].own)] = 0;
    }
    sort_by_seq(st.list, n);
    if (n) {
        if (!finishing)
            wait_while_held();
        int err = write_new_sites();   /* before the blocks that use them */
        if (err) {
            failed(err);
            return err;
        }
    }
    for (uint32_t k = 0; k < n; k++) {
        if (!finishing)
            wait_while_held();
        if (!finishing && LOAD(&st.stop))
            return 0;
        int err = write_buffer(&st.list[k]);
        if (err) {
            failed(err);
            return err;
        }
    }
    int err = mark_final_losses(finishing);
    if (err)
        failed(err);
    return err;
}

/* ------------------------------------------------------------------ the thread */

static void *writer_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "flightrec-strm", 0, 0, 0);
    __atomic_store_n(&st.writer_tid, (int32_t)gettid(), __ATOMIC_RELAXED);
    while (!LOAD(&st.stop)) {
        uint32_t seen = __atomic_load_n(&fr_stream_word, __ATOMIC_SEQ_CST);
        __atomic_store_n(&st.in_pass, 1, __ATOMIC_SEQ_CST);
        if (!st.broken)
            pass(0);
        __atomic_store_n(&st.in_pass, 0, __ATOMIC_SEQ_CST);
        if (LOAD(&st.stop))
            break;
        /* Sleep until a thread publishes a buffer (the word changes) or IDLE_NS pass.
         * A kick between reading `seen` and the wait makes the wait return at once. */
        __atomic_store_n(&fr_stream_sleeping, 1, __ATOMIC_SEQ_CST);
        struct timespec idle = { 0, IDLE_NS };
        if (!LOAD(&st.stop))
            syscall(SYS_futex, &fr_stream_word, FUTEX_WAIT_PRIVATE, seen, &idle, NULL, 0);
        __atomic_store_n(&fr_stream_sleeping, 0, __ATOMIC_SEQ_CST);
    }
    STORE(&st.running, 0);
    return NULL;
}

/* Asks the writer to end and waits (bounded) until it has: 0, or -1 if it did not. */
static int stop_writer(void)
{
    if (!LOAD(&st.running))
        return 0;
    if (LOAD_R(&st.writer_tid) == (int32_t)gettid())
        return -1;   /* a fault in the writer itself: it will not come back */
    __atomic_store_n(&st.stop, 1, __ATOMIC_SEQ_CST);
    fr_stream_kick();
    fr_stream_wake();
    for (int i = 0; i < STOP_WAIT_MS && LOAD(&st.running); i++) {
        struct timespec ms = { 0, 1000 * 1000 };
        nanosleep(&ms, NULL);
    }
    return LOAD(&st.running) ? -1 : 0;
}

/* ------------------------------------------------------------------ life */

static int map_work(uint32_t nbuf)
{
    size_t size = (size_t)nbuf * (sizeof(struct entry) + 1) +
                  (size_t)FR_MAX_THREADS * (2 * sizeof(uint64_t) + sizeof(int32_t)) +
                  2 * SITE_BITMAP + 64;
    size = (size + 4095) & ~(size_t)4095;
    uint8_t *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    st.map = m;
    st.map_size = size;
    st.maxseq = (uint64_t *)m;
    st.lost_marked = st.maxseq + FR_MAX_THREADS;
    st.list = (struct entry *)(st.lost_marked + FR_MAX_THREADS);
    st.lost_tid = (int32_t *)(st.list + nbuf);
    st.mark = (uint8_t *)(st.lost_tid + FR_MAX_THREADS);
    st.site_done = st.mark + nbuf;
    st.site_sel = st.site_done + SITE_BITMAP;
    return 0;
}

static void unmap_work(void)
{
    if (st.map)
        munmap(st.map, st.map_size);
    st.map = NULL;
}

/* Creates the file for this session; 0 or -2 (said why). */
static int create(const char *path)
{
    size_t plen = strlen(path);
    if (plen >= sizeof st.path)
        return -2;
    memcpy(st.path, path, plen + 1);
    st.fd = -1;
    st.fd_gone = 0;
    st.stop = st.running = 0;
    st.hold = st.in_pass = 0;
    st.broken = st.uncut = st.error = 0;
    st.write_errors = st.offset = st.blocks = 0;
    if (!st.map && map_work(fr_pool.ndesc) < 0) {
        say("cannot start streaming to", ENOMEM);
        return -2;
    }
    /* A fork child's copy may be from the middle of the parent writer's pass. */
    memset(st.map, 0, st.map_size);
    char tmp[FR_OPTIONS_PATH_MAX + 32];
    int in_place = 0;
    int fd = fr_create_trace_file(path, tmp, sizeof tmp, &in_place);
    st.in_place = in_place;
    if (fd >= 0 && !in_place && rename(tmp, path) != 0) {
        int err = errno;
        close(fd);
        unlink(tmp);
        fd = -err;
    }
    if (fd < 0) {
        say("cannot create", -fd);
        return -2;
    }
    if ((fd = fr_fd_keep(fd, &st.dev, &st.ino)) < 0) {
        say("cannot create", errno);
        return -2;
    }
    st.fd = fd;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    st.base_sec = now.tv_sec;
    __atomic_store_n(&st.owned, 1, __ATOMIC_RELEASE);
    return 0;
}

int fr_stream_open(const struct fr_options *o, const char *path)
{
    if (!o->stream)
        return 0;
    if (o->no_file_flush) {
        static const char msg[] = "flightrec: stream=1 cannot go with no_file_flush=1 "
                                  "(a streamed trace is always written)\n";
        fr_write_stderr(msg, sizeof msg - 1);
        return -1;
    }
    return create(path);
}

void fr_stream_start(void)
{
    if (!LOAD(&st.owned) || stream_fd() < 0)
        return;
    struct fr_out o = { .fd = st.fd, .buf = out_buffer, .cap = sizeof out_buffer };
    fr_out_header(&o);
    /* The sites that fired before (an earlier session, a fork child's parent) are in
     * this first block (fr_meta_emit_start emits every fired site): not again later. */
    select_new_sites();
    fr_out_metadata_block(&o, fr_meta_emit_start);
    fr_out_flush(&o);
    settle_selected(!o.error);
    if (o.error) {
        failed(o.error);
        return;
    }
    st.offset = o.offset;
    __atomic_store_n(&fr_stream_batch, fr_pool.nbuf / 4 ? fr_pool.nbuf / 4 : 1, __ATOMIC_RELAXED);
    /* The writer gets no signal of the program's: they go to the program's threads, and
     * SIGXFSZ (a write past `ulimit -f`) fails the write with EFBIG instead of killing. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 64 * 1024);
    pthread_t t;
    __atomic_store_n(&st.running, 1, __ATOMIC_SEQ_CST);
    int r = pthread_create(&t, &a, writer_main, NULL);
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        __atomic_store_n(&st.running, 0, __ATOMIC_SEQ_CST);
        say("cannot start the writer thread (the file gets what the pool holds at the "
            "end) for", r);
    }
}

int fr_stream_owns(const char *path)
{
    return LOAD(&st.owned) && strcmp(path, st.path) == 0;
}

int fr_stream_finish(int snapshot)
{
    if (snapshot || (st.fd < 0 && !st.fd_gone))
        return 0;   /* the stream has it; or finished already: nothing more to write */
    if (stop_writer() < 0) {
        say("the writer thread did not stop; the file ends at its last whole block:", 0);
        return EBUSY;
    }
    /* A snapshot reading the pool and the file's length: let it end (bounded). */
    for (int i = 0; i < STOP_WAIT_MS && __atomic_load_n(&st.hold, __ATOMIC_SEQ_CST); i++) {
        struct timespec ms = { 0, 1000 * 1000 };
        nanosleep(&ms, NULL);
    }
    /* Everything recorded is in FULL or RETIRED buffers now (the stop published each
     * thread's current one): those, then the totals. One more try after an error,
     * unless the output could not be cut back to a whole block (uncut). */
    int err = st.uncut ? st.error : 0;
    if (!err) {
        st.broken = 0;
        err = pass(1);
    }
    if (!err && stream_fd() < 0)
        err = st.error;
    if (!err && (err = append_metadata(fr_meta_emit_all)) != 0)
        failed(err);
    st.done_fd = ours(st.fd) ? st.fd : -1;   /* fr_stream_copy reads it: fr_flush_fd, */
    st.fd = -1;                              /* XRay's iteration */
    st.fd_gone = 0;                          /* (finished: said once) */
    return err;
}

/* Bytes [0, len) of the stream's file (complete blocks: the appends are done) into fd.
 * The file is read with pread, so a writer appending beyond len does not matter. 0 or
 * an errno value (ESPIPE: the output is a FIFO or a device, nothing to read back). */
static int copy_prefix(int from, int to, uint64_t len)
{
    static uint8_t buf[64 * 1024];
    for (uint64_t at = 0; at < len;) {
        size_t want = len - at < sizeof buf ? (size_t)(len - at) : sizeof buf;
        ssize_t n = pread(from, buf, want, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;   /* cut short under us: not a whole file */
        struct fr_out o = { .fd = to, .buf = buf, .cap = sizeof buf };
        o.len = (size_t)n;
        fr_out_flush(&o);
        if (o.error)
            return o.error;
        at += (uint64_t)n;
    }
    return 0;
}

int fr_stream_copy(int fd)
{
    if (!ours(st.done_fd))   /* (closed by the program since: not read) */
        return EBADF;
    return copy_prefix(st.done_fd, fd, st.offset);
}

static void close_done(void)
{
    if (ours(st.done_fd))   /* (a number the program took since is its own) */
        close(st.done_fd);
    st.done_fd = -1;
}

void fr_stream_close(void)
{
    if (!LOAD(&st.owned))
        return;
    fr_stream_finish(0);
    close_done();
    __atomic_store_n(&st.owned, 0, __ATOMIC_RELEASE);
    unmap_work();
}

void fr_stream_after_fork(int recording)
{
    if (!LOAD(&st.owned))
        return;
    /* The parent's descriptor and thread: not ours (the thread does not exist here). */
    if (ours(st.fd))   /* (a number the program took since is its own) */
        close(st.fd);
    st.fd = -1;
    close_done();
    __atomic_store_n(&st.owned, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&st.running, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&fr_stream_sleeping, 0, __ATOMIC_RELAXED);
    if (!recording)
        return;
    if (!fr_session.output_path[0] || create(fr_session.output_path) < 0) {
        /* no file of its own: the child's trace is written at its exit, as without stream */
        fr_pool.stream = 0;
        return;
    }
    fr_stream_start();
}
