/*
 * eventheader_fields.h - walks an EventHeader event's field descriptors and payload
 * together and renders the fields as JSON object members (internal to the decoder).
 */
#ifndef FLIGHTREC_EVENTHEADER_FIELDS_H
#define FLIGHTREC_EVENTHEADER_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "eventheader_decode.h"
#include "eventheader_text.h"

/* Appends `"name": value` members for every field of ev to sb. *need_comma says whether
 * a ", " must precede the first member; it is left true if anything was written.
 * Returns 0, or -1 with a message (naming the payload byte offset) in err. */
int fr_eh_fields_to_json(const fr_eh_event *ev, fr_sb *sb, bool *need_comma,
                         char *err, size_t errlen);

#endif
