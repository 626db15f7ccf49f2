/*
 * flightrec/eventheader.h - the EventHeader encoding: the byte layout shared by the
 * structured-event macros (which write it), the user_events and flight-recorder sinks
 * (which carry it) and the decoder (which reads it).
 *
 * EventHeader is Microsoft's convention for self-describing events on Linux tracepoints
 * (LinuxTracepoints, TraceLogging for Linux). One event is:
 *
 *   header (8 bytes)  u8 flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level
 *   extensions        while flags has FR_EH_FLAG_EXTENSION: u16 size; u16 kind; size bytes
 *                     (kind | FR_EH_EXT_CHAIN means another extension follows)
 *   payload           the field values, packed, little-endian on x86-64
 *
 * The metadata extension holds the event name (NUL-terminated, "name[;attr=value]") and
 * then one descriptor per field:
 *
 *   field name NUL-terminated; u8 encoding;
 *   [u8 format        if encoding & FR_EH_ENC_CHAIN]
 *   [u16 field tag    if format & FR_EH_FMT_CHAIN]
 *   [u16 array length if encoding & FR_EH_ENC_CARRAY]
 *
 * A variable-length array (FR_EH_ENC_VARRAY) has a u16 element count in the payload,
 * before its elements. A struct (FR_EH_ENC_STRUCT) has no payload of its own; its format
 * byte's low 7 bits count the fields that follow and belong to it.
 *
 * The tracepoint that carries an event is named "Provider_L{level}K{keyword}[G{group}]",
 * level and keyword in lowercase hex; user_events registers it with the field list
 * FR_EH_COMMAND_TYPES.
 */
#ifndef FLIGHTREC_EVENTHEADER_H
#define FLIGHTREC_EVENTHEADER_H

/* Header flags. On x86-64 events carry FR_EH_FLAGS_DEFAULT (with metadata: | EXTENSION). */
#define FR_EH_FLAG_POINTER64      0x01
#define FR_EH_FLAG_LITTLE_ENDIAN  0x02
#define FR_EH_FLAG_EXTENSION      0x04
#define FR_EH_FLAGS_DEFAULT       (FR_EH_FLAG_POINTER64 | FR_EH_FLAG_LITTLE_ENDIAN)

#define FR_EH_HEADER_SIZE         8
#define FR_EH_NAME_MAX            256   /* tracepoint name, with its NUL */

/* Extension kinds. */
#define FR_EH_EXT_KIND_MASK       0x7FFF
#define FR_EH_EXT_CHAIN           0x8000
#define FR_EH_EXT_METADATA        1
#define FR_EH_EXT_ACTIVITY_ID     2      /* 16 bytes, or 32 with the related (parent) id */

/* Opcodes. */
#define FR_EH_OPCODE_INFO           0
#define FR_EH_OPCODE_ACTIVITY_START 1
#define FR_EH_OPCODE_ACTIVITY_STOP  2

/* Levels: 1 critical .. 5 verbose (more allowed, 0 invalid). */
#define FR_EH_LEVEL_CRITICAL      1
#define FR_EH_LEVEL_ERROR         2
#define FR_EH_LEVEL_WARNING       3
#define FR_EH_LEVEL_INFO          4
#define FR_EH_LEVEL_VERBOSE       5

/* Field encodings: low 5 bits say how big the value is, top 3 bits are flags. */
#define FR_EH_ENC_VALUE_MASK      0x1F
#define FR_EH_ENC_CARRAY          0x20   /* constant-length array, u16 count in metadata */
#define FR_EH_ENC_VARRAY          0x40   /* variable-length array, u16 count in payload */
#define FR_EH_ENC_CHAIN           0x80   /* a format byte follows */
enum fr_eh_encoding {
    FR_EH_ENC_INVALID      = 0,
    FR_EH_ENC_STRUCT       = 1,   /* groups the next (format & 0x7F) fields */
    FR_EH_ENC_VALUE8       = 2,
    FR_EH_ENC_VALUE16      = 3,
    FR_EH_ENC_VALUE32      = 4,
    FR_EH_ENC_VALUE64      = 5,
    FR_EH_ENC_VALUE128     = 6,
    FR_EH_ENC_ZSTRING8     = 7,   /* NUL-terminated, 8/16/32-bit code units */
    FR_EH_ENC_ZSTRING16    = 8,
    FR_EH_ENC_ZSTRING32    = 9,
    FR_EH_ENC_STRING16_8   = 10,  /* u16 count of code units, then the units */
    FR_EH_ENC_STRING16_16  = 11,
    FR_EH_ENC_STRING16_32  = 12,
    FR_EH_ENC_BINARY16     = 13,  /* u16 byte count, then the bytes (default hex) */
    FR_EH_ENC_COUNT        = 14,
};

/* Field formats: low 7 bits; top bit says a u16 field tag follows. */
#define FR_EH_FMT_VALUE_MASK      0x7F
#define FR_EH_FMT_CHAIN           0x80
enum fr_eh_format {
    FR_EH_FMT_DEFAULT        = 0,
    FR_EH_FMT_UNSIGNED       = 1,
    FR_EH_FMT_SIGNED         = 2,
    FR_EH_FMT_HEX_INT        = 3,
    FR_EH_FMT_ERRNO          = 4,
    FR_EH_FMT_PID            = 5,
    FR_EH_FMT_TIME           = 6,   /* seconds since 1970 */
    FR_EH_FMT_BOOLEAN        = 7,
    FR_EH_FMT_FLOAT          = 8,
    FR_EH_FMT_HEX_BYTES      = 9,
    FR_EH_FMT_STRING8        = 10,  /* 8-bit characters, no particular character set */
    FR_EH_FMT_STRING_UTF     = 11,
    FR_EH_FMT_STRING_UTF_BOM = 12,
    FR_EH_FMT_STRING_XML     = 13,
    FR_EH_FMT_STRING_JSON    = 14,
    FR_EH_FMT_UUID           = 15,  /* RFC 4122 byte order */
    FR_EH_FMT_PORT           = 16,  /* network byte order */
    FR_EH_FMT_IP_ADDRESS     = 17,  /* 4 bytes IPv4 or 16 bytes IPv6, network order */
    FR_EH_FMT_IP_ADDRESS_OLD = 18,  /* older name of IPv6 */
};

/* user_events field list for every EventHeader tracepoint (note the space after ';'). */
#define FR_EH_COMMAND_TYPES \
    "u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"

#endif
