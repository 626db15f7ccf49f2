/*
 * stream_writer.h - stream=1: a background thread appends each buffer that fills to the
 * trace file while the program runs, and hands the buffer back to the pool, so a run of
 * any length is kept in a fixed pool (docs/BUFFERS.md, "Streaming").
 *
 * The record paths never wait for it and make no system call for it: a thread that
 * leaves a buffer (the slow path, once per buffer) bumps a counter and, only when the
 * writer sleeps, wakes it with one futex call.
 */
#ifndef FLIGHTREC_STREAM_WRITER_H
#define FLIGHTREC_STREAM_WRITER_H

#include <stdint.h>
#include "core/stream_doorbell.h"   /* fr_stream_kick and its word */
#include "core/visibility.h"

struct fr_options;

/* fr_init, before recording starts: when o->stream, creates the file `path` (safely:
 * log_writer.c fr_create_trace_file, then renamed into place at once). 0 (also when
 * not streaming), -1 bad combination of options, -2 the file cannot be created (said
 * on stderr). */
FR_HIDDEN int fr_stream_open(const struct fr_options *o, const char *path);
/* fr_init, once recording and the front ends' hooks have started: writes the file
 * header and the first metadata block, and starts the writer thread. */
FR_HIDDEN void fr_stream_start(void);
/* Whether `path` is the file being streamed this session (then the flush appends). */
FR_HIDDEN int fr_stream_owns(const char *path);
/* The end of the stream, after recording stopped (finalize, or a crash dump's stop):
 * stops the writer, appends every buffer not yet written and the final metadata block
 * (totals, drops), closes the file. `snapshot`: a snapshot aimed at the trace's own
 * name (signal_flush with the program's handler): nothing to do, the stream holds it.
 * Async-signal-safe. 0 or an errno value. */
FR_HIDDEN int fr_stream_finish(int snapshot);
/* A finished stream's whole file into fd (fr_flush_fd under stream=1: XRay's log file
 * and in-memory iteration). 0 or an errno value (EBADF: not finished; ESPIPE: the
 * output is a FIFO or a device). The finished file stays open for this until the next
 * fr_init, fr_reset or fork. */
FR_HIDDEN int fr_stream_copy(int fd);
/* A snapshot while streaming (snapshot.c): the snapshot file is the streamed file's
 * complete blocks so far, then the buffers not yet in it. fr_stream_hold asks the
 * writer to append nothing more (it waits between two blocks, recording goes on) and
 * gives the file's length then; 1 when held, 0 when not streaming to a file that can be
 * read back (a FIFO, a device, `path` is the stream's own, the writer did not reach the
 * end of its block in ~2 s, another snapshot holds it). fr_stream_release lets the
 * writer go on (as soon as the pool has been read: the copy of the file does not need
 * the hold, a file only grows). Async-signal-safe. */
struct fr_stream_held {
    int      fd;        /* the streamed file */
    uint64_t offset;    /* the end of its last whole block */
    uint64_t blocks;    /* blocks in it: the next block's WalltimeMarker sequence */
    int64_t  base_sec;
};
FR_HIDDEN int fr_stream_hold(const char *path, struct fr_stream_held *h);
FR_HIDDEN void fr_stream_release(void);
/* Bytes [0, h->offset) of the streamed file into fd, at fd's position: 0 or an errno. */
FR_HIDDEN int fr_stream_copy_held(const struct fr_stream_held *h, int fd);
/* Records of `slot` (thread tid) the streamed file's FR_TE_LOST markers cover already
 * (read while held). */
FR_HIDDEN uint64_t fr_stream_lost_marked(uint32_t slot, int32_t tid);
/* fr_reset, before the pool is unmapped: finishes the stream if needed, frees its state. */
FR_HIDDEN void fr_stream_close(void);
/* fork child: the parent's file and thread are not the child's. `recording`: the child
 * records (its own file, per the output naming rules, and its own writer thread). */
FR_HIDDEN void fr_stream_after_fork(int recording);

#endif
