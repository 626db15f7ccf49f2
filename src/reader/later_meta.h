/*
 * later_meta.h - the metadata blocks of a trace that come after its first ones, read
 * ahead. A streamed file (stream=1, docs/FORMAT.md "Streamed files") begins with the
 * metadata known at init; what became known later (gcc -finstrument-functions functions,
 * which get their ids at their first call; the summary, the drops) is in its final
 * metadata block, at the end of the file. A command names functions from the metadata
 * it has before it reads the first record, so it reads these blocks first.
 */
#ifndef FLIGHTREC_LATER_META_H
#define FLIGHTREC_LATER_META_H

#include <stddef.h>
#include <stdint.h>
#include "trace_meta.h"

/* Feeds into m the records of every metadata block (NewBuffer thread 0) that begins at
 * or after offset `from` of the trace file (size bytes from its 32-byte header), in file
 * order, so that the last of each record stands. The bytes are those at `file` when it
 * is not NULL, else read from fd with pread (not mapped: a file that another process
 * cuts while it is read must not end the command with SIGBUS). The blocks are walked by
 * their BufferExtents, reading only their first bytes; the walk stops at the first block
 * that is not whole or not well formed (hostile input: what is read goes through
 * fr_reader). */
void fr_trace_meta_feed_later_blocks(fr_trace_meta *m, const uint8_t *file, int fd,
                                     uint64_t size, uint64_t from);

#endif
