/*
 * buffer_view.h - one buffer of the pool as seen at a moment, its owner's live position
 * included (buffer_view.c).
 */
#ifndef FLIGHTREC_BUFFER_VIEW_H
#define FLIGHTREC_BUFFER_VIEW_H

#include <stdint.h>
#include "core/visibility.h"

/* One buffer as seen at a moment: lock-free and async-signal-safe. */
struct fr_buffer_view {
    uint32_t index;
    uint32_t state;   /* enum fr_buffer_state */
    uint32_t slot;    /* owner */
    int32_t  tid;     /* owner's tid */
    uint64_t seq;
    uint64_t used;    /* bytes from fr_pool_buffer(index): whole records, preamble first */
    uint64_t records;
};
/* Views buffer `idx`: 1 if it holds data (FULL, RETIRED, or CURRENT with at least the
 * preamble), 0 otherwise. For a CURRENT buffer the owner's live position is read
 * through a pin (fr_pool_pin): the bytes before it are whole records, as the writer
 * advances its position only after a record's bytes are stored (docs/BUFFERS.md). For
 * a crash dump: enumerate idx in [0, fr_pool.ndesc) and sort by (tid, seq). Records the
 * owner writes after the view are not in it. */
FR_HIDDEN int fr_pool_view(uint32_t idx, struct fr_buffer_view *v);

#endif
