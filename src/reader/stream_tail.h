/*
 * stream_tail.h - what a trace streamed by a process that died (stream=1, killed before
 * its end was appended) holds, so that the rest can be recovered onto it from its
 * backing file (backing_recover.h, fr_recover_stream): where its last whole block ends
 * (a block being appended at the death is torn), each thread block's thread and first
 * timestamp (its FR_TE_BLOCK_START: the buffer it came from), each thread's records and
 * lost-record markers, its number of thread blocks and their WalltimeMarker base, and
 * whether the runtime's end is there (a summary). The file is hostile input.
 */
#ifndef FLIGHTREC_STREAM_TAIL_H
#define FLIGHTREC_STREAM_TAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "backing_recover.h"

typedef struct fr_stream_tail fr_stream_tail;

/* Scans the trace open at fd (size bytes). NULL with err set when it is not an XRay FDR
 * version 5 file or cannot be read. */
fr_stream_tail *fr_stream_tail_scan(int fd, uint64_t size, char *err, size_t errcap);
/* End of its last whole block: what follows was being written (cut it before appending). */
uint64_t fr_stream_tail_end(const fr_stream_tail *t);
/* Whether the runtime's end (the final metadata block, with the summary) is there. */
bool fr_stream_tail_finished(const fr_stream_tail *t);
/* The callbacks and figures fr_recover appends by (valid while t is). */
void fr_stream_tail_recover_input(fr_stream_tail *t, fr_recover_stream *s);
void fr_stream_tail_free(fr_stream_tail *t);

#endif
