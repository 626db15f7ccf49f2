/*
 * trace_builder.h - writes small synthetic XRay FDR v5 traces for tests, with exactly the
 * records a test asks for (and flightrec metadata if asked), so analyses can be checked
 * against values computed by hand. Not part of the product; linked into tests and
 * benchmarks only (target fr_trace_builder, defined in the top-level CMakeLists.txt).
 *
 * Usage: b = fr_tb_new(1000000000) (ticks per second);
 *        fr_tb_function_name(b, 1, "main");         // metadata block (FR_TE_FUNCTION)
 *        fr_tb_block(b, tid, pid, cpu, tsc);         // start a thread block
 *        fr_tb_enter(b, 1, 100); fr_tb_exit(b, 1, 250);
 *        fr_tb_write(b, path); fr_tb_free(b);
 * Timestamps are absolute; the builder writes deltas, TSCWrap and extents itself.
 */
#ifndef FLIGHTREC_TRACE_BUILDER_H
#define FLIGHTREC_TRACE_BUILDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct fr_tb fr_tb;

fr_tb *fr_tb_new(uint64_t ticks_per_second);
void   fr_tb_free(fr_tb *b);
/* Metadata block (tid 0, first in the file): only written if one of these is called. */
void fr_tb_function_name(fr_tb *b, uint32_t id, const char *name);
void fr_tb_meta_event(fr_tb *b, uint16_t type, const void *payload, size_t size);
/* Thread blocks, in the order called. */
void fr_tb_block(fr_tb *b, int32_t tid, int32_t pid, uint16_t cpu, uint64_t tsc);
void fr_tb_enter(fr_tb *b, uint32_t id, uint64_t tsc);
void fr_tb_exit(fr_tb *b, uint32_t id, uint64_t tsc);
void fr_tb_tail_exit(fr_tb *b, uint32_t id, uint64_t tsc);
void fr_tb_enter_arg(fr_tb *b, uint32_t id, uint64_t arg, uint64_t tsc);
void fr_tb_new_cpu(fr_tb *b, uint16_t cpu, uint64_t tsc);
void fr_tb_custom(fr_tb *b, const void *data, size_t size, uint64_t tsc);
void fr_tb_typed(fr_tb *b, uint16_t type, const void *data, size_t size, uint64_t tsc);
/* One of our records (FR_TE_* type) in the current thread block, encoded as the runtime
 * encodes it (docs/FORMAT.md). */
void fr_tb_ours(fr_tb *b, uint16_t type, const void *data, size_t size, uint64_t tsc);
/* From now on (and for the whole metadata block), our records are written in the legacy
 * encoding, as XRay typed events: files written before the envelope. */
void fr_tb_legacy_encoding(fr_tb *b, int on);
/* Writes the whole file. Returns 0 or -1 (errno set). */
int fr_tb_write(fr_tb *b, const char *path);
/* The bytes built so far as a complete file image (owned by b, valid until next call). */
const uint8_t *fr_tb_bytes(fr_tb *b, size_t *size);

#endif
