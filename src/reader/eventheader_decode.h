/*
 * eventheader_decode.h - decodes EventHeader events (the payload of Linux user_events
 * tracepoints made by flightrec's event macros or Microsoft's LinuxTracepoints, and of
 * FR_TE_EVENT typed events in flight recorder files), and renders them as JSON in the
 * style of the reference decoder (see tests/data/eventheader/).
 */
#ifndef FLIGHTREC_EVENTHEADER_DECODE_H
#define FLIGHTREC_EVENTHEADER_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct fr_eh_event {
    /* From the tracepoint name "Provider_L{level}K{keyword}[G{group}]". */
    const char *provider;   size_t provider_len;
    const char *group;      size_t group_len;       /* may be empty */
    /* From the 8-byte header and extensions. */
    uint8_t  flags, version, opcode, level;
    uint16_t id, tag;
    uint64_t keyword;
    bool     has_activity, has_related;
    uint8_t  activity[16], related[16];
    /* From the metadata extension. */
    const char *name;                               /* event name, NUL-terminated in data */
    const uint8_t *metadata;  size_t metadata_size;  /* field descriptions after the name */
    const uint8_t *payload;   size_t payload_size;   /* field values */
} fr_eh_event;

/* Splits an event into header, extensions, metadata and payload. Returns 0, or -1 with a
 * message in err. Pointers in ev point into tracepoint_name and data. */
int fr_eh_decode(const char *tracepoint_name, const uint8_t *data, size_t size,
                 fr_eh_event *ev, char *err, size_t errlen);
/* Writes the fields as JSON object members ("name": value, ...), no braces, no leading
 * comma; floats always with a '.' or an exponent (1.0, not 1: the converters' readers
 * type numbers by their text). Returns 0, or -1 on a malformed payload (message in err). */
int fr_eh_write_fields_json(const fr_eh_event *ev, FILE *out, char *err, size_t errlen);
/* Writes the whole event as the reference decoder does:
 * { "n": "Provider:Name", fields..., "meta": { ... } } */
int fr_eh_write_event_json(const fr_eh_event *ev, FILE *out, char *err, size_t errlen);
/* The same, appended to sb (eventheader_text.h); meta_first (NULL or "": none) is put
 * first in "meta", before the EventHeader keys: members as ` "time": ..., "cpu": 0`
 * (a leading space, no trailing comma). On -1 sb is as it was (unless sb->failed). */
struct fr_sb;
int fr_eh_event_to_json(const fr_eh_event *ev, const char *meta_first, struct fr_sb *sb,
                        char *err, size_t errlen);

#endif
