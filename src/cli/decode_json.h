/*
 * decode_json.h - what the two decoders to JSON (decode-dat, decode-perf) share: their
 * options and the frame of the document they print (decode_json.c).
 */
#ifndef FLIGHTREC_CLI_DECODE_JSON_H
#define FLIGHTREC_CLI_DECODE_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include "cli_options.h"

struct fr_decode_json_opts {
    const char *output, *format;
    bool        object;
};
/* --object, -f json, -o OUT, -h. */
extern const fr_cli_opt fr_decode_json_options[];

/* The document's start ("{" with --object, then "NAME": [) and its end: the events
 * printed between are the array's elements. */
void fr_decode_json_begin(FILE *out, const struct fr_decode_json_opts *o, const char *name);
void fr_decode_json_end(FILE *out, const struct fr_decode_json_opts *o);

#endif
