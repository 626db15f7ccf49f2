/*
 * eventheader_vectors.h - EventHeader events as the tests write them into synthetic traces
 * (FR_TE_EVENT records through the trace builder): vectors A and C of
 * shared/vectors/eventheader/vectors.md, and C's matching activity stop. Shared by the
 * convert tests' traces (tests/convert_traces.c) and the golden traces
 * (tests/golden_traces.c).
 */
#ifndef FLIGHTREC_TEST_EVENTHEADER_VECTORS_H
#define FLIGHTREC_TEST_EVENTHEADER_VECTORS_H

#include <stdint.h>
#include <string.h>

#include "fr_format.h"
#include "tb_payload.h"
#include "trace_builder.h"

/* Vector A is its call site's bytes (8-byte header, metadata extension: what an
 * FR_TE_EVENT_SITE holds) followed by its values (u32 count 42, string "world"). */
#define EH_VECTOR_A_SITE "07 00 00 00 00 00 00 05 12 00 01 00 48 65 6c 6c 6f 00 63 6f 75 6e 74 00 04 6d 73 67 00 07"
#define EH_VECTOR_A_VALUES "2a 00 00 00 77 6f 72 6c 64 00"
#define EH_VECTOR_A EH_VECTOR_A_SITE " " EH_VECTOR_A_VALUES
#define EH_VECTOR_C "07 02 07 00 34 12 01 04 20 00 02 80 11 11 11 11 22 22 33 33 44 44 55 55 55 55 55 55 aa aa aa aa bb bb cc cc dd dd ee ee ee ee ee ee 0d 00 01 00 57 6f 72 6b 00 75 31 36 00 83 80 42 00 02 01"
#define EH_VECTOR_C_STOP "07 02 07 00 34 12 02 04 10 00 02 80 11 11 11 11 22 22 33 33 44 44 55 55 55 55 55 55 0d 00 01 00 57 6f 72 6b 00 75 31 36 00 83 80 42 00 03 01"

/* An FR_TE_EVENT record in the builder's current thread block: the tracepoint name
 * NUL-terminated, then the EventHeader bytes given in hex. */
static inline void eh_event(fr_tb *b, const char *tracepoint, const char *hex, uint64_t tsc)
{
    struct tb_buf p = {.n = 0};
    tb_put(&p, tracepoint, strlen(tracepoint) + 1);
    tb_put_hex(&p, hex);
    fr_tb_ours(b, FR_TE_EVENT, p.p, p.n, tsc);
}

#endif
