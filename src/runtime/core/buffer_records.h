/*
 * buffer_records.h - the records in a buffer's bytes: its preamble, and the whole records
 * of a copy taken while its thread went on writing (buffer_records.c).
 */
#ifndef FLIGHTREC_BUFFER_RECORDS_H
#define FLIGHTREC_BUFFER_RECORDS_H

#include <stdint.h>
#include "core/visibility.h"

/* The end of the whole records of a copy of a buffer whose records end at `used` (a
 * thread's pos, read while the thread went on writing): an event run whose size grew
 * past `used` since is cut back to `used` in buf (FR_TE_EVENT_RUN appends to a run in
 * place). Returns the bytes to keep. Async-signal-safe. */
FR_HIDDEN uint64_t fr_buffer_whole_records(uint8_t *buf, uint64_t used);
/* The records in a buffer's bytes up to `used` (whole records, as fr_buffer_whole_records
 * leaves them), counted as the thread's `records` counts them: a function record 1 (with
 * its call argument), a custom or typed event 1, an event run 1 per entry, other
 * metadata records 0. For a copy of a buffer a thread writes on: its `records` counter
 * read beside `pos` can be a record ahead or behind. Async-signal-safe. */
FR_HIDDEN uint64_t fr_buffer_count_records(const uint8_t *buf, uint64_t used);
/* A buffer's first FR_BUFFER_PREAMBLE bytes: NewBuffer(tid), WalltimeMarker, Pid,
 * NewCPUId(cpu, tsc); also the start of the files' marker-only blocks (a thread whose
 * buffers were all taken by others still gets its FR_TE_LOST). */
FR_HIDDEN void fr_buffer_put_preamble(uint8_t *p, int32_t tid, uint16_t cpu, uint64_t tsc);

#endif
