/*
 * trace_out.h - a trace file's bytes through a fixed output buffer over write(2), with
 * retries on EINTR and short writes (no malloc, no stdio: usable from a fatal-signal
 * handler), and the records every file starts with (trace_out.c).
 */
#ifndef FLIGHTREC_TRACE_OUT_H
#define FLIGHTREC_TRACE_OUT_H

#include <stddef.h>
#include <stdint.h>
#include "core/visibility.h"

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

/* The metadata block's event sink (recorder.h's opaque fr_meta_writer). */
struct fr_meta_figures_source;
struct fr_meta_writer {
    struct fr_out *out;
    const struct fr_meta_figures_source *figures;   /* NULL: the pool's counts */
};

/* The file header (32 bytes); the metadata block's preamble (tid 0, cpu 0, at timestamp
 * 1); a metadata block of `emit`'s records. */
FR_HIDDEN void fr_out_header(struct fr_out *o);
FR_HIDDEN void fr_out_metadata_preamble(struct fr_out *o);
FR_HIDDEN void fr_out_metadata_block(struct fr_out *o, void (*emit)(struct fr_meta_writer *));

#endif
