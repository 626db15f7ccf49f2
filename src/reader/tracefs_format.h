/*
 * tracefs_format.h - the format descriptions of tracepoints (tracefs
 * events/SYSTEM/NAME/format: name, ID, one line per field with its C declaration,
 * offset, size and signedness) and the "tracing data" blob perf stores them in
 * (perf.data's HEADER_TRACING_DATA feature, or the pipe-mode TRACING_DATA record).
 *
 * Nothing here trusts the text: a field whose numbers make no sense is refused, and the
 * renderer checks every offset against the event's bytes.
 */
#ifndef FLIGHTREC_TRACEFS_FORMAT_H
#define FLIGHTREC_TRACEFS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eventheader_text.h"

enum fr_tp_field_kind {
    FR_TP_SCALAR,      /* int, unsigned long, pid_t, void * ... */
    FR_TP_ARRAY,       /* char comm[16], u64 args[6] */
    FR_TP_DATA_LOC,    /* __data_loc T[] name: u32, offset (from the event's start) in the
                          low 16 bits, length in bytes in the high 16 */
    FR_TP_REL_LOC,     /* __rel_loc T[] name: the same, offset from the end of this field */
};

typedef struct fr_tp_field {
    char    *name;
    enum fr_tp_field_kind kind;
    uint16_t offset, size;        /* of the field in the event (the u32 for *_LOC) */
    uint16_t elem_size;           /* scalar: size; array and *_LOC: one element's size */
    bool     is_signed, is_char, is_pointer, is_common;
} fr_tp_field;

typedef struct fr_tp_format {
    uint64_t id;
    char    *system, *name;        /* "sched", "sched_switch" */
    char    *full_name;            /* "sched:sched_switch" */
    fr_tp_field *fields;
    size_t   n_fields;
    /* EventHeader user_events: the event's fields are eventheader_flags, version, id,
     * tag, opcode, level and the EventHeader event starts at this offset; -1 otherwise. */
    int      eventheader_offset;
} fr_tp_format;

/* Parses one format text. Returns a format (free with fr_tp_format_free) or NULL with a
 * message in err. */
fr_tp_format *fr_tp_format_parse(const char *system, const char *text, size_t len,
                                 char *err, size_t errlen);
void fr_tp_format_free(fr_tp_format *f);

/* Appends the event's non-common fields as JSON members (", \"name\": value" each) to
 * sb. Returns 0, or -1 with a message in err when a field lies outside the raw bytes. */
int fr_tp_fields_to_json(const fr_tp_format *f, const uint8_t *raw, size_t size, fr_sb *sb,
                         char *err, size_t errlen);

/* The tracing data blob, read as a stream: fr_tp_tracing_data_parse takes a reader
 * callback (returns the bytes asked for, or fewer at the end) and hands every event
 * format found to `found` (which takes ownership). It reads up to and including the
 * event formats; the caller skips the rest (kallsyms, printk formats, saved comm names).
 * Returns 0, or -1 with a message (naming the offset inside the blob) in err. */
typedef size_t (*fr_tp_read_fn)(void *ctx, void *buf, size_t n);
typedef int (*fr_tp_found_fn)(void *ctx, fr_tp_format *f);
int fr_tp_tracing_data_parse(fr_tp_read_fn read, void *read_ctx, uint64_t size,
                             fr_tp_found_fn found, void *found_ctx, char *err, size_t errlen);

#endif
