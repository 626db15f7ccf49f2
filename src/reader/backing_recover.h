/*
 * backing_recover.h - a trace from what a dead process left in its backing file
 * (backing=PATH, docs/BACKING.md): whole records only, a torn last record cut, counts of
 * what could not be recovered. The file is hostile input: every read is bounded by the
 * file's size, every offset and count is checked before use.
 */
#ifndef FLIGHTREC_BACKING_RECOVER_H
#define FLIGHTREC_BACKING_RECOVER_H

#include <stdint.h>
#include <stdio.h>

/* The file a stream=1 process was appending to when it died (fr_recover_input.stream):
 * what the recovered part must leave out and continue. */
typedef struct fr_recover_stream {
    /* whether the file holds the block of tid's buffer that began at first_tsc (its
     * FR_TE_BLOCK_START): that buffer was streamed, and is left out */
    int (*has_block)(void *ctx, int32_t tid, uint64_t first_tsc);
    /* tid's records in the file, and what its FR_TE_LOST markers there count */
    uint64_t (*records)(void *ctx, int32_t tid);
    uint64_t (*lost)(void *ctx, int32_t tid);
    void *ctx;
    uint64_t blocks;     /* thread blocks in the file: the next one is number `blocks` */
    int64_t  base_sec;   /* its WalltimeMarkers are (base_sec + n, n) for block n */
} fr_recover_stream;

/* Where the backing file's bytes come from: read(ctx, off, buf, len) fills exactly len
 * bytes from offset off and returns 0, or returns -1 (then errno says why). `size` is
 * the file's size: nothing beyond it is asked for. */
typedef struct fr_recover_input {
    int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
    void *ctx;
    uint64_t size;
    /* NULL: a whole trace (file header, metadata block, thread blocks). Else the end of
     * that streamed file, to append to it: the thread blocks of the buffers not in it
     * (numbered on from its blocks), then the metadata block with the totals (the file's
     * records counted in), as the runtime's end would have appended them. */
    const fr_recover_stream *stream;
} fr_recover_input;

typedef struct fr_recover_report {
    uint32_t pid, state;       /* the recorded process; FR_BACKING_* (fr_backing.h) */
    char     exe[1025];
    uint32_t threads;          /* thread slots in use */
    uint64_t buffers;          /* buffers whose records are in the trace */
    uint64_t current_buffers;  /* of those, being written when the process died */
    uint64_t records;          /* records in the trace */
    uint32_t fork_entries;     /* of those, a fork child's entries of the calls open at
                                  the fork, made at its start (at most) */
    uint64_t torn;             /* torn last records cut (a record was being written) */
    uint64_t lost_records;     /* records a descriptor counts that could not be read */
    uint64_t bad_buffers;      /* buffers skipped: no valid preamble, bad owner or size */
    uint64_t bytes_cut;        /* bytes after the last whole record of a buffer */
    int      meta_missing;     /* no usable metadata: no function names; clock and
                                  process from the header */
    uint64_t meta_ignored;     /* metadata bytes left out (not whole records of ours) */
    uint64_t sites;            /* structured events' call sites (FR_TE_EVENT_SITE) kept */
    uint64_t sites_ignored;    /* bytes of the sites region left out (not whole
                                  FR_TE_EVENT_SITE records) */
} fr_recover_report;

enum { FR_RECOVER_OK = 0, FR_RECOVER_BAD = 1, FR_RECOVER_IO = 2 };

/* Writes the trace to `out`. FR_RECOVER_OK; FR_RECOVER_BAD when the input is not a
 * usable backing file (err says why: not one, truncated, inconsistent header);
 * FR_RECOVER_IO on a read or write error (err says which). *rep is filled as far as the
 * work went. */
int fr_recover(const fr_recover_input *in, FILE *out, fr_recover_report *rep, char *err,
               size_t errcap);

#endif
