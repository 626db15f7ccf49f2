/*
 * log_writer.h - writing the whole trace file without malloc or stdio (so that it can run
 * from a fatal-signal handler): header, metadata block, a block per thread, under a
 * temporary name renamed into place when complete (trace_file.h).
 */
#ifndef FLIGHTREC_LOG_WRITER_H
#define FLIGHTREC_LOG_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "core/metadata.h"
#include "core/options.h"
#include "core/trace_out.h"
#include "core/visibility.h"

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

#endif
