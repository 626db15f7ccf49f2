/*
 * metadata.h - the metadata block's records (metadata.c): what they say of each thread
 * and of the session, where those counts come from, and the session's totals (for
 * fr_get_stats and the drop report at flush).
 */
#ifndef FLIGHTREC_METADATA_H
#define FLIGHTREC_METADATA_H

#include <stdint.h>
#include "core/visibility.h"
#include "fr_format.h"

/* Totals over every thread: exact once finalized. */
FR_HIDDEN void fr_meta_totals(uint64_t *written, uint64_t *dropped,
                              uint64_t *below, uint32_t *threads);
/* The session's drops by cause (enum fr_drop_cause). */
FR_HIDDEN void fr_meta_drop_causes(uint64_t cause[FR_DROP_NCAUSES]);

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

struct fr_meta_writer;
/* Emits CLOCK, PROCESS, SUMMARY, THREAD_STATS, then every registered source. */
FR_HIDDEN void fr_meta_emit_all(struct fr_meta_writer *w);
/* CLOCK, PROCESS and the sources: a streamed file's first metadata block. */
FR_HIDDEN void fr_meta_emit_start(struct fr_meta_writer *w);

#endif
