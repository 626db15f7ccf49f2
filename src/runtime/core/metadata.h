/*
 * metadata.h - the session's counts as the metadata block states them (metadata.c), for
 * fr_get_stats and the drop report at flush.
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

#endif
