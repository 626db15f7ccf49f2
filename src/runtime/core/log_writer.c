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
#include "core/recorder.h"
#include "core/buffer_pool.h"
#include "core/clock.h"
#include "fr_format.h"
#include "core/session.h"
#include "core/stream_writer.h"
#include "core/thread_writer.h"
#include "core/xray_layout.h"

static uint8_t out_buffer[64 * 1024];

static void write_all(struct fr_out *o, const uint8_t *p, size_t len)
{
    while (len && !o->error) {
        ssize_t n = write(o->fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            o->error = errno;
            return;
        }
        if (n == 0) {
            o->error = EIO;
            return;
        }
        p += n;
        len -= (size_t)n;
    }
}

void fr_out_flush(struct fr_out *o)
{
    write_all(o, o->buf, o->len);
    o->len = 0;
}

void fr_out_put(struct fr_out *o, const void *data, size_t len)
{
    o->offset += len;
    if (o->len + len > o->cap) {
        fr_out_flush(o);
        if (len >= o->cap) { /* big pieces (whole buffers) go straight out */
            write_all(o, data, len);
            return;
        }
    }
    memcpy(o->buf + o->len, data, len);
    o->len += len;
}

void fr_out_patch(struct fr_out *o, uint64_t offset, const void *data, size_t len)
{
    uint64_t buffered_from = o->offset - o->len;
    if (offset >= buffered_from) {
        memcpy(o->buf + (offset - buffered_from), data, len);
        return;
    }
    const uint8_t *p = data;
    while (len && !o->error) {
        ssize_t n = pwrite(o->fd, p, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            o->error = n < 0 ? errno : EIO;
            return;
        }
        p += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
}

static void put_extents(struct fr_out *o, uint64_t n)
{
    uint8_t rec[FR_XRAY_METADATA_SIZE];
    fr_md_put_buffer_extents(rec, (struct fr_md_buffer_extents){ n });
    fr_out_put(o, rec, sizeof rec);
}

void fr_out_extents(struct fr_out *o, uint64_t n)
{
    put_extents(o, n);
}

/* The header of one of our records (fr_format.h, "flightrec records"): an XRay custom
 * event with delta 0 whose payload is the envelope then `size` bytes (which follow). */
void fr_out_te_header(struct fr_out *o, uint16_t type, size_t size)
{
    uint8_t hdr[FR_ENVELOPED_HEADER_SIZE];
    fr_te_header_put(hdr, type, size, 0);
    fr_out_put(o, hdr, sizeof hdr);
}

void fr_meta_emit_iov(struct fr_meta_writer *w, uint16_t type, const struct iovec *iov, int iovcnt)
{
    size_t size = 0;
    for (int i = 0; i < iovcnt; i++)
        size += iov[i].iov_len;
    fr_out_te_header(w->out, type, size);
    for (int i = 0; i < iovcnt; i++)
        fr_out_put(w->out, iov[i].iov_base, iov[i].iov_len);
}

void fr_meta_emit_str16(fr_meta_writer *w, uint16_t type, const void *fixed, size_t fixed_size,
                        const char *str, size_t max)
{
    size_t n = 0;
    if (str)
        while (n < max && n < UINT16_MAX && str[n])
            n++;
    uint16_t n16 = (uint16_t)n;
    struct iovec v[3] = { { (void *)fixed, fixed_size }, { &n16, 2 }, { (void *)str, n } };
    fr_meta_emit_iov(w, type, v, 3);
}

void fr_meta_emit(fr_meta_writer *w, uint16_t type, const void *payload, size_t size)
{
    struct iovec v = { (void *)payload, size };
    fr_meta_emit_iov(w, type, &v, 1);
}

static void write_header(struct fr_out *o)
{
    struct fr_xray_file_header h = {
        .version = FR_XRAY_VERSION_FDR,
        .type = FR_XRAY_TYPE_FDR,
        .flags = fr_clock.flags,
        .cycle_frequency = fr_clock.ticks_per_second,
        .buffer_size = fr_pool.buffer_size,
    };
    fr_out_put(o, &h, sizeof h);
}

/* The metadata block's preamble: tid 0, cpu 0, at timestamp 1. */
static void write_metadata_preamble(struct fr_out *o)
{
    int64_t sec;
    int32_t usec;
    fr_clock_walltime(1, &sec, &usec);
    uint8_t pre[FR_BUFFER_PREAMBLE];
    fr_preamble_put(pre, 0, (struct fr_md_walltime){ sec, usec }, fr_session.pid, 0, 1);
    fr_out_put(o, pre, sizeof pre);
}

void fr_out_header(struct fr_out *o)
{
    write_header(o);
}

/* Two passes over the records, the first only counting, so that the block goes out in
 * order with its true size and nothing is patched afterwards: a reader following a
 * streamed file never meets a BufferExtents that is still 0. (The counting pass has no
 * descriptor: its one write fails with EBADF and is ignored.) */
void fr_out_metadata_block(struct fr_out *o, void (*emit)(struct fr_meta_writer *))
{
    static uint8_t none[1];
    struct fr_out count = { .fd = -1, .buf = none, .offset = o->offset + FR_XRAY_METADATA_SIZE };
    uint64_t body = count.offset;
    write_metadata_preamble(&count);
    struct fr_meta_writer cw = { .out = &count };
    emit(&cw);
    put_extents(o, count.offset - body);
    write_metadata_preamble(o);
    struct fr_meta_writer w = { .out = o };
    emit(&w);
}

static void write_metadata_block(struct fr_out *o, const struct fr_meta_figures_source *figures)
{
    uint64_t extents_at = o->offset;
    put_extents(o, 0);
    uint64_t body = o->offset;
    write_metadata_preamble(o);
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
        fr_writer_put_preamble(empty, tid, 0, fr_clock_now());
        first = empty;
        used0 = FR_BUFFER_PREAMBLE;
    } else {
        return;
    }
    uint64_t size = FR_BLOCK_HEAD_EXTRA + used0 + (lost ? FR_LOST_RECORD_SIZE : 0);
    for (uint32_t i = 1; i < n; i++)
        size += buf_used(idx[i]) - FR_BUFFER_HEAD_SKIP;
    put_extents(o, size);
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

int fr_open_new_file(const char *path, int access, unsigned mode)
{
    int fd;
    do
        fd = open(path, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
    while (fd < 0 && errno == EINTR);
    return fd >= 0 ? fd : -errno;
}

/* A name for the temporary file next to the target ("<dir>/.<base>.XXXXXXXX.tmp") that
 * another user cannot guess ahead of time; O_EXCL makes a guessed name merely fail (we try
 * another), never a file or link someone planted. */
static int open_temp(const char *path, char *tmp, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    size_t baselen = strlen(base);
    if (dirlen + 1 + baselen + 1 + 16 + 5 > cap)
        return -ENAMETOOLONG;
    static uint64_t counter;
    for (int attempt = 0; attempt < 64; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^
                     ((uint64_t)getpid() << 32) ^
                     (__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0xbf58476d1ce4e5b9ull);
        x ^= x >> 31;
        x *= 0x94d049bb133111ebull;
        x ^= x >> 29;
        char *q = tmp;
        memcpy(q, path, dirlen);
        q += dirlen;
        *q++ = '.';
        memcpy(q, base, baselen);
        q += baselen;
        *q++ = '.';
        for (int i = 0; i < 16; i++)
            *q++ = "0123456789abcdef"[(x >> (4 * i)) & 15];
        memcpy(q, ".tmp", 5);
        /* read too: a streamed file is read back for copies (fr_stream_copy) */
        int fd = fr_open_new_file(tmp, O_RDWR, fr_session.opts.file_mode);
        if (fd != -EEXIST)
            return fd;
    }
    return -EEXIST;
}

/* FIFOs and character devices (a pipe, /dev/null, /dev/stdout) are written in place: a
 * rename would replace the device by a regular file. O_NONBLOCK on open so that a FIFO
 * with no reader fails (ENXIO) instead of hanging the program at exit. */
static int open_in_place(const char *path)
{
    int fd;
    do
        fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -errno;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

static int write_contents(int fd, uint8_t *buf, size_t cap, const struct fr_trace_job *job);

int fr_create_trace_file(const char *path, char *tmp, size_t cap, int *in_place)
{
    struct stat st;
    *in_place = stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
    return *in_place ? open_in_place(path) : open_temp(path, tmp, cap);
}

static int write_file(struct fr_trace_job *job, const char *path)
{
    char *tmp = job->tmp;
    struct stat st;
    /* stat, not lstat: a symlink to a FIFO or device is written in place through the link;
     * any other symlink is replaced by the trace (rename replaces the link itself). */
    int in_place = stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
    job->in_place = in_place;
    int fd = in_place ? open_in_place(path) : open_temp(path, tmp, sizeof job->tmp);
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
        write_header(&o);
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

void fr_write_signals_block(struct fr_write_signals *w)
{
    sigset_t set, pending;
    sigemptyset(&pending);
    sigpending(&pending);
    w->xfsz_pending = sigismember(&pending, SIGXFSZ) == 1;
    w->pipe_pending = sigismember(&pending, SIGPIPE) == 1;
    sigemptyset(&set);
    sigaddset(&set, SIGXFSZ);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, &w->old);
}

void fr_write_signals_restore(struct fr_write_signals *w)
{
    sigset_t ours;
    sigemptyset(&ours);
    if (!w->xfsz_pending)
        sigaddset(&ours, SIGXFSZ);
    if (!w->pipe_pending)
        sigaddset(&ours, SIGPIPE);
    struct timespec zero = { 0, 0 };
    while (sigtimedwait(&ours, NULL, &zero) > 0)
        ;
    pthread_sigmask(SIG_SETMASK, &w->old, NULL);
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
