/*
 * log_writer.h - writing a trace file without malloc or stdio (so that it can run from
 * a fatal-signal handler): a fixed output buffer over write(2) with retries on EINTR and
 * short writes, a temporary name renamed into place when complete.
 */
#ifndef FLIGHTREC_LOG_WRITER_H
#define FLIGHTREC_LOG_WRITER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "core/visibility.h"
#include "core/options.h"
#include "fr_format.h"

struct fr_out {
    int      fd;
    int      error;     /* first errno seen, 0 if none */
    uint64_t offset;    /* bytes emitted so far (file offset of the next byte) */
    size_t   len;       /* bytes waiting in buf */
    uint8_t *buf;
    size_t   cap;
};

FR_HIDDEN void fr_out_put(struct fr_out *o, const void *data, size_t len);
FR_HIDDEN void fr_out_flush(struct fr_out *o);
/* A BufferExtents record; the header of one of our FR_TE records (delta 0; its `size`
 * payload bytes follow). */
FR_HIDDEN void fr_out_extents(struct fr_out *o, uint64_t n);
FR_HIDDEN void fr_out_te_header(struct fr_out *o, uint16_t type, size_t size);
/* Overwrites bytes already emitted at `offset` (e.g. a BufferExtents count). */
FR_HIDDEN void fr_out_patch(struct fr_out *o, uint64_t offset,
                            const void *data, size_t len);

/* Signals a write of ours raises must not kill the program or change its exit status:
 * SIGXFSZ (a write past `ulimit -f`: the write fails with EFBIG instead) and SIGPIPE (an
 * output FIFO whose reader went away: EPIPE instead). fr_write_signals_block blocks both
 * on this thread; fr_write_signals_restore takes back the ones our writes raised
 * (thread- or process-directed) unless one was pending before, then restores the mask.
 * Async-signal-safe. */
struct fr_write_signals {
    sigset_t old;
    bool     xfsz_pending, pipe_pending;
};
FR_HIDDEN void fr_write_signals_block(struct fr_write_signals *w);
FR_HIDDEN void fr_write_signals_restore(struct fr_write_signals *w);

/* A thread's counts in the summary and its THREAD_STATS and DROPS records, or
 * (FR_META_TOTALS) the session's. */
struct fr_meta_figures {
    uint32_t threads;                    /* FR_META_TOTALS only */
    uint64_t written, bytes, below;
    uint64_t dropped[FR_DROP_NCAUSES];
};
#define FR_META_TOTALS UINT32_MAX

/* Where a trace's counts come from. NULL: the pool's, read as the metadata block is
 * written. A snapshot, taken while threads record, gives its own (snapshot.c): what it
 * holds of each thread, which is known only once its thread blocks are written, so it
 * is told where each `written` count lands (`written_at`, a file offset) to patch it. */
struct fr_meta_figures_source {
    /* `slot`'s figures (FR_META_TOTALS: the session's), for the record about to be
     * written whose `written` count lands at `written_at`. */
    void (*get)(uint32_t slot, struct fr_meta_figures *f, uint64_t written_at, void *ctx);
    void  *ctx;
};

/* One trace file being written. A writer that may be interrupted (a signal handler's
 * dump) owns its job, so that after a fault inside the dump the handler can close the
 * descriptor and remove the temporary file (fr_trace_job_abandon). */
struct fr_trace_job {
    uint8_t *buf;                        /* output buffer and its size, given by the caller */
    size_t   cap;
    volatile int fd;                     /* -1 when no file is open */
    int      in_place;                   /* FIFO or device: no temporary */
    char     tmp[FR_OPTIONS_PATH_MAX + 32]; /* the temporary file's name */
    /* NULL: each thread's block from the pool's descriptors. A snapshot, taken while
     * threads record, writes them its own way (snapshot.c). */
    void   (*thread_block)(struct fr_out *o, int32_t tid, uint32_t nthreads, void *ctx);
    void    *ctx;
    /* A snapshot of a streamed session (snapshot.c): the file starts with the first
     * `prefix` bytes of the streamed file (its complete blocks, header included) instead
     * of a header; prefix_copy(fd, ctx) writes them at fd's position. The metadata block
     * and the thread blocks go first, after a hole of `prefix` bytes, then blocks_done
     * (the stream writer may go on), then the copy into the hole; into a FIFO or a
     * device (no seek) the copy goes first. */
    uint64_t prefix;
    int    (*prefix_copy)(int fd, void *ctx);
    void   (*blocks_done)(void *ctx);
    /* NULL: the pool's counts (see struct fr_meta_figures_source). */
    const struct fr_meta_figures_source *figures;
};
/* Writes the whole trace. Returns 0 or an errno value. */
FR_HIDDEN int fr_write_trace(const char *path);
/* The same into an open file (the caller closes it; XRay compatibility's log files and
 * in-memory image). Callers hold what fr_flush holds (fr_flush_fd does). With stream=1:
 * the stream's end is written (as fr_flush does), then the whole streamed file copied. */
FR_HIDDEN int fr_write_trace_fd(int fd);

/* Writes the whole trace through `job` (async-signal-safe). SIGXFSZ raised by a write
 * past RLIMIT_FSIZE is kept from killing the program (the write fails with EFBIG and
 * the temporary is removed). Returns 0 or an errno value. */
FR_HIDDEN int fr_write_trace_job(struct fr_trace_job *job, const char *path);
FR_HIDDEN void fr_trace_job_abandon(struct fr_trace_job *job);

/* The metadata block's event sink (recorder.h's opaque fr_meta_writer). */
struct fr_meta_writer {
    struct fr_out *out;
    const struct fr_meta_figures_source *figures;   /* NULL: the pool's counts */
};
FR_HIDDEN void fr_meta_emit_iov(struct fr_meta_writer *w, uint16_t type,
                                const struct iovec *iov, int iovcnt);
/* Emits CLOCK, PROCESS, SUMMARY, THREAD_STATS, then every registered source. */
FR_HIDDEN void fr_meta_emit_all(struct fr_meta_writer *w);
/* CLOCK, PROCESS and the sources: a streamed file's first metadata block. */
FR_HIDDEN void fr_meta_emit_start(struct fr_meta_writer *w);

/* Opens a new file at exactly `path` (`access` | O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC,
 * `mode`), again after EINTR: never an existing file or a planted link. The descriptor
 * or -errno (-EEXIST when the name is taken). Async-signal-safe. */
FR_HIDDEN int fr_open_new_file(const char *path, int access, unsigned mode);
/* Creates the trace file `path` for writing the way every trace file is created: a FIFO
 * or character device is opened in place (*in_place = 1); anything else gets a new file
 * O_CREAT|O_EXCL|O_NOFOLLOW under an unguessable temporary name next to it (`tmp`, `cap`
 * bytes) with file_mode. The descriptor or -errno. */
FR_HIDDEN int fr_create_trace_file(const char *path, char *tmp, size_t cap, int *in_place);
/* The file header (32 bytes) and a metadata block of `emit`'s records. */
FR_HIDDEN void fr_out_header(struct fr_out *o);
FR_HIDDEN void fr_out_metadata_block(struct fr_out *o, void (*emit)(struct fr_meta_writer *));

#endif
