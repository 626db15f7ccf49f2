/*
 * fr_reader.h - streaming reader of XRay trace files (ours and compiler-rt's:
 * FDR v1..v5 and basic mode). Used by every `flightrec` subcommand and by the tests.
 *
 * Reads through a fixed-size buffer: memory does not grow with the file. Validates as it
 * goes; on bad input fr_reader_next returns FR_READ_ERROR and fr_reader_error() names the
 * file, the byte offset and what was expected. A file that ends inside a block (a cut
 * trace) is read up to the cut: see fr_reader_truncation.
 */
#ifndef FLIGHTREC_FR_READER_H
#define FLIGHTREC_FR_READER_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "fr_format.h"

typedef struct fr_reader fr_reader;

typedef enum fr_record_kind {
    FR_REC_ENTER = 0,      /* values match enum fr_xray_function_kind */
    FR_REC_EXIT = 1,
    FR_REC_TAIL_EXIT = 2,
    FR_REC_ENTER_ARG = 3,  /* .arg holds the argument (CallArgument folded in) */
    FR_REC_CUSTOM = 4,     /* .data/.size: payload */
    FR_REC_TYPED = 5,      /* .event_type, .data/.size; includes our FR_TE_* records */
    FR_REC_BLOCK = 6,      /* a new block (thread buffer) begins: .tid .pid .cpu, .walltime_* */
} fr_record_kind;

typedef struct fr_record {
    fr_record_kind kind;
    int32_t  tid;           /* thread of the current block */
    int32_t  pid;
    uint16_t cpu;           /* last NewCPUId */
    uint32_t function_id;   /* function records */
    uint64_t tsc;           /* absolute timestamp, clock ticks (see fr_trace_info.ticks_per_second) */
    uint64_t arg;           /* FR_REC_ENTER_ARG */
    uint16_t event_type;    /* FR_REC_TYPED */
    const uint8_t *data;    /* FR_REC_CUSTOM / FR_REC_TYPED: valid until the next call */
    uint32_t size;
    uint32_t envelope;      /* FR_REC_TYPED of ours stored as a custom event (fr_format.h):
                               the envelope's size, which precedes .data in the file
                               (llvm-xray shows the record as a custom event of
                               .envelope + .size bytes at .data - .envelope); else 0 */
    uint32_t run_index;     /* an event of an FR_TE_EVENT_RUN record (the reader returns
                               each of its events as an FR_TE_EVENT record, or, when the
                               file has no FR_TE_EVENT_SITE for its site, as an
                               FR_TE_EVENT_RUN record holding the entry's bytes): 1 for
                               the run's first event, 2, 3... for the next; 0 otherwise.
                               .data then points at the event rebuilt in the reader's
                               memory; llvm-xray shows the whole run as one record: */
    const uint8_t *run_stored;  /* the run's payload as stored (after .run_envelope bytes
                               of envelope), .run_stored_size bytes, at .run_tsc */
    uint32_t run_stored_size;
    uint32_t run_envelope;
    uint64_t run_tsc;
    int64_t  walltime_sec;  /* FR_REC_BLOCK */
    int32_t  walltime_usec;
    uint64_t offset;        /* byte offset of this record in the file */
} fr_record;

typedef struct fr_trace_info {
    uint16_t version;        /* XRay file version */
    uint16_t type;           /* FR_XRAY_TYPE_FDR or FR_XRAY_TYPE_NAIVE */
    uint32_t flags;
    uint64_t ticks_per_second; /* header cycle frequency */
    uint64_t buffer_size;
    uint64_t file_size;
} fr_trace_info;

typedef enum fr_read_status {
    FR_READ_OK = 1,
    FR_READ_EOF = 0,
    FR_READ_ERROR = -1,
} fr_read_status;

/* Opens and validates the header. On failure returns NULL and writes a message
 * ("FILE: offset N: expected ...", "FILE: cannot open: ...") into err. Only a regular
 * file is opened, and path must not be a symbolic link: a FIFO, a device, a directory or
 * a link is refused without being opened (src/reader/regular_file.h). */
fr_reader *fr_reader_open(const char *path, char *err, size_t errlen);
/* Same, over bytes in memory (the fuzzer, tests). The bytes must outlive the reader. */
fr_reader *fr_reader_open_memory(const void *data, size_t size, const char *name,
                                 char *err, size_t errlen);
void fr_reader_close(fr_reader *r);

const fr_trace_info *fr_reader_info(const fr_reader *r);
fr_read_status fr_reader_next(fr_reader *r, fr_record *out);

/* A plain function record (enter, exit or tail exit, no argument), as returned in
 * batches by fr_reader_next_functions: 16 bytes instead of fr_record's 80. */
typedef struct fr_function_record {
    uint64_t tsc;           /* absolute timestamp, as fr_record.tsc */
    uint32_t function_id;
    uint32_t kind;          /* FR_REC_ENTER, FR_REC_EXIT or FR_REC_TAIL_EXIT */
} fr_function_record;

/* Batch read for the hot loops (account reads ~20 M records): decodes up to max
 * consecutive plain function records of the current block, which are all of one thread,
 * stored in *tid. Returns how many (the same records fr_reader_next would have returned,
 * in order), or 0 when the next record is anything else (metadata, an enter with an
 * argument, a new block, the end of the buffered bytes, an error): then call
 * fr_reader_next for that one record, and batch again. */
size_t fr_reader_next_functions(fr_reader *r, fr_function_record *out, size_t max,
                                int32_t *tid);
/* The bytes behind fr_reader_next_functions, for a loop that decodes the records itself
 * (account's: fr_call_tracker_feed_function_bytes): the 8-byte slots from the reader's
 * position to the end of the current block or of the bytes in memory, whichever comes
 * first, at *at; the thread in *tid, its clock before the first slot in *tsc. Returns how
 * many slots, 0 in the cases where fr_reader_next_functions returns 0 whatever the next
 * record is. The slots are not checked: the caller takes records from the first while
 * they are plain function records (fr_fn_is_plain), adding up their deltas, and then
 * says how many it took and the clock after the last with fr_reader_take_functions
 * (nothing else may be called on the reader in between). */
size_t fr_reader_function_bytes(fr_reader *r, const uint8_t **at, int32_t *tid, uint64_t *tsc);
void fr_reader_take_functions(fr_reader *r, size_t n, uint64_t tsc);
/* After FR_READ_ERROR: "FILE: offset N: message". */
const char *fr_reader_error(const fr_reader *r);
/* After FR_READ_EOF: NULL if the data ended where a block (or basic-mode record) ends.
 * Otherwise the data were cut short inside a block or a record (a crash, a full disk, a
 * copy still running): that is not an error, every whole record before the cut has been
 * returned, and this says where, "FILE: offset N: the file ends inside ...", with N (the
 * offset of the first byte not read) also in *offset when not NULL. A block whose
 * BufferExtents reach past the end of the file is read this way, up to the cut. */
const char *fr_reader_truncation(const fr_reader *r, uint64_t *offset);
/* Bytes consumed so far (for progress display). */
uint64_t fr_reader_position(const fr_reader *r);

#endif
