/*
 * decode_json.c - the decoders' options and their document's frame (decode_json.h).
 */
#include <stddef.h>
#include "cli_common.h"
#include "decode_json.h"

const fr_cli_opt fr_decode_json_options[] = {
    FR_CLI_OPT_FLAG("object", 0, struct fr_decode_json_opts, object,
                    "wrap the output in braces (a complete JSON object)"),
    FR_CLI_OPT_FORMAT(struct fr_decode_json_opts, format, " F", "json",
                      "unknown format '%s' (json)", "json (the only format)"),
    FR_CLI_OPT_OUTPUT(struct fr_decode_json_opts, output, " OUT",
                      "write to OUT instead of standard output"),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

void fr_decode_json_begin(FILE *out, const struct fr_decode_json_opts *o, const char *name)
{
    if (o->object)
        fputs("{\n", out);
    fr_cli_json_string(out, name);   /* valid UTF-8 JSON whatever the name */
    fputs(": [", out);
}

void fr_decode_json_end(FILE *out, const struct fr_decode_json_opts *o)
{
    fputs(" ]\n", out);
    if (o->object)
        fputs("}\n", out);
}
