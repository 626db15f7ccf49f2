/*
 * log_writer.c - the trace file: header, the metadata block (tid 0) first, then one block
 * per thread holding all of the thread's buffers in order.
 *
 * One block per thread because llvm-xray 14 mis-sorts several blocks of one thread
 * unless their walltime seconds and microseconds both increase. A thread's later buffers
 * join its block without their NewBuffer/WalltimeMarker/Pid records: their NewCPUId
 * (valid anywhere in a block) restarts the delta chain. In overwrite mode a thread whose
 * oldest history was overwritten gets an FR_TE_LOST record right after its block preamble.
 * Our records (FR_TE_*) are enveloped custom events: see fr_format.h and docs/FORMAT.md.
 *
 * Everything here is async-signal-safe: no malloc, no stdio, no locks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h> /* rename */
#include <sys/stat.h>
#include <time.h>
#include "core/log_writer.h"
#include "core/clock.h"
#include "fr_format.h"
#include "core/stream_writer.h"
#include "core/xray_layout.h"
#include "core/trace_file.h"
#include "core/write_signals.h"
#include "core/buffer_records.h"
#include "core/recorder.h"
#include "core/buffer_pool.h"
#include "core/session.h"
#include "core/trace_out.h"
#include "core/metadata.h"

static uint8_t out_buffer[64 * 1024];

static void write_metadata_block(struct fr_out *o, const struct fr_meta_figures_source *figures)
{
    uint64_t extents_at = o->offset;
    fr_out_extents(o, 0);
    uint64_t body = o->offset;
    fr_out_metadata_preamble(o);
    struct fr_meta_writer w = { o, figures };
    fr_meta_emit_all(&w);
    uint64_t n = o->offset - body;
    fr_out_patch(o, extents_at + FR_MD_FIELD_AT(fr_md_buffer_extents, size), &n, sizeof n);
}

/* Records overwritten or reclaimed before the oldest buffer kept: a gap at the start.
 * slots[0, nslots): the thread slots of the tid. */
static uint64_t lost_at_start(const uint32_t *slots, uint32_t nslots)
{
    uint64_t n = 0;
    if (fr_pool.policy != FR_POLICY_OVERWRITE)
        return 0;
    for (uint32_t i = 0; i < nslots; i++) {
        const struct fr_thread_desc *d = &fr_pool.threads[slots[i]];
        n += __atomic_load_n(&d->dropped[FR_DROP_OVERWRITTEN], __ATOMIC_RELAXED) +
             __atomic_load_n(&d->taken_records, __ATOMIC_RELAXED);
    }
    return n;
}

static uint64_t buf_used(uint32_t i)
{
    return __atomic_load_n(&fr_pool.bufs[i].used, __ATOMIC_RELAXED);
}

/* The block of thread `tid`: its buffers idx[0, n), oldest first; its slots. */
static void write_thread_block(struct fr_out *o, int32_t tid, const uint32_t *idx, uint32_t n,
                               const uint32_t *slots, uint32_t nslots)
{
    uint64_t lost = lost_at_start(slots, nslots);
    uint8_t empty[FR_BUFFER_PREAMBLE];
    const uint8_t *first;
    uint64_t used0;
    if (n) {
        first = fr_pool_buffer(idx[0]);
        used0 = buf_used(idx[0]);
    } else if (lost) {
        /* Every buffer of the thread was taken by others (overwrite policy; it exited
         * first): a block of its own for the marker (cpu 0, the time now). */
        fr_buffer_put_preamble(empty, tid, 0, fr_clock_now());
        first = empty;
        used0 = FR_BUFFER_PREAMBLE;
    } else {
        return;
    }
    uint64_t size = FR_BLOCK_HEAD_EXTRA + used0 + (lost ? FR_LOST_RECORD_SIZE : 0);
    for (uint32_t i = 1; i < n; i++)
        size += buf_used(idx[i]) - FR_BUFFER_HEAD_SKIP;
    fr_out_extents(o, size);
    uint8_t head[FR_BLOCK_HEAD_SIZE];
    fr_block_head_put(head, first, NULL);
    fr_out_put(o, head, sizeof head);
    if (lost) {
        struct fr_te_lost l = { .records = lost };
        fr_out_te_header(o, FR_TE_LOST, sizeof l);
        fr_out_put(o, &l, sizeof l);
    }
    fr_out_put(o, first + FR_BUFFER_PREAMBLE, used0 - FR_BUFFER_PREAMBLE);
    for (uint32_t i = 1; i < n; i++)
        fr_out_put(o, fr_pool_buffer(idx[i]) + FR_BUFFER_HEAD_SKIP,
                   buf_used(idx[i]) - FR_BUFFER_HEAD_SKIP);
}

static int write_contents(int fd, uint8_t *buf, size_t cap, const struct fr_trace_job *job);

static int write_file(struct fr_trace_job *job, const char *path)
{
    char *tmp = job->tmp;
    int in_place;
    int fd = fr_create_trace_file(path, tmp, sizeof job->tmp, &in_place);
    job->in_place = in_place;
    if (fd < 0)
        return -fd;
    job->fd = fd;
    int err = write_contents(fd, job->buf, job->cap, job);
    job->fd = -1;
    if (close(fd) != 0 && !err && errno != EINTR)
        err = errno;
    if (in_place)
        return err;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err)
        unlink(tmp);
    return err;
}

/* The file's bytes into FD through the output buffer BUF. Returns 0 or an errno value. */
static int write_contents(int fd, uint8_t *buf, size_t cap, const struct fr_trace_job *job)
{
    struct fr_out o = { .fd = fd, .buf = buf, .cap = cap };
    if (fr_xray_layout_on() && !(job && (job->prefix || job->thread_block)))
        return fr_xray_layout_write(&o, job ? job->figures : NULL);   /* xray-fdr's session */
    int deferred = 0;
    if (job && job->prefix) {
        deferred = lseek(fd, (off_t)job->prefix, SEEK_SET) == (off_t)job->prefix;
        int err = deferred ? 0 : job->prefix_copy(fd, job->ctx);
        if (err)
            return err;
        o.offset = job->prefix;
    } else {
        fr_out_header(&o);
    }
    write_metadata_block(&o, job ? job->figures : NULL);
    uint32_t nthreads = __atomic_load_n(&fr_pool.nthreads, __ATOMIC_ACQUIRE);
    if (nthreads > FR_MAX_THREADS)
        nthreads = FR_MAX_THREADS;
    /* One block per tid, in registration order (a tid the kernel reused joins the block
     * of its first thread: llvm-xray mis-sorts two blocks of one tid). */
    uint32_t nslots, nsorted = fr_pool_sort_for_file(nthreads, &nslots);
    const uint32_t *sorted = fr_pool.scratch, *slots = fr_pool.scratch + fr_pool.ndesc;
    for (uint32_t s = 0; s < nthreads; s++) {
        uint32_t ns, first;
        if (!fr_pool_tid_first(slots, nslots, s, &first, &ns))
            continue;
        int32_t tid = fr_pool.threads[s].tid;
        if (job && job->thread_block) {
            job->thread_block(&o, tid, nthreads, job->ctx);
        } else {
            uint32_t nb, at = fr_pool_buffers_of(sorted, nsorted, tid, &nb);
            write_thread_block(&o, tid, sorted + at, nb, slots + first, ns);
        }
    }
    fr_out_flush(&o);
    if (job && job->prefix) {
        job->blocks_done(job->ctx);
        if (deferred && !o.error)
            o.error = lseek(fd, 0, SEEK_SET) == 0 ? job->prefix_copy(fd, job->ctx) : errno;
    }
    return o.error;
}

int fr_write_trace_fd(int fd)
{
    struct fr_write_signals sigs;
    fr_write_signals_block(&sigs);   /* EFBIG and EPIPE, not death */
    int err;
    if (fr_stream_owns(fr_session.output_path)) {
        /* stream=1: the trace is the streamed file; its end first, then a copy of it */
        err = fr_stream_finish(0);
        if (!err)
            err = fr_stream_copy(fd);
    } else {
        err = write_contents(fd, out_buffer, sizeof out_buffer, NULL);
    }
    fr_write_signals_restore(&sigs);
    return err;
}

void fr_trace_job_abandon(struct fr_trace_job *job)
{
    int fd = job->fd;
    if (fd < 0)
        return;
    job->fd = -1;
    close(fd);
    if (!job->in_place)
        unlink(job->tmp);
}

/* Under `ulimit -f` a write past the limit raises SIGXFSZ, and a write to a FIFO whose
 * reader left raises SIGPIPE; both kill by default (issue 15 item 5): blocked while we
 * write (fr_write_signals_block), so the write fails instead. */
int fr_write_trace_job(struct fr_trace_job *job, const char *path)
{
    struct fr_write_signals sigs;
    fr_write_signals_block(&sigs);
    job->fd = -1;
    /* stream=1: the file is already there, growing; its end is appended (or, for a
     * snapshot to the trace's own name, nothing: the stream has what it holds). */
    int err = fr_stream_owns(path) ? fr_stream_finish(job->thread_block != NULL)
                                   : write_file(job, path);
    fr_write_signals_restore(&sigs);
    return err;
}

int fr_write_trace(const char *path)
{
    static struct fr_trace_job job = { .buf = out_buffer, .cap = sizeof out_buffer, .fd = -1 };
    return fr_write_trace_job(&job, path);
}
