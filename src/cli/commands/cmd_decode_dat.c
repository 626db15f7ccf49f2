/*
 * cmd_decode_dat.c - `flightrec decode-dat FILE`: decodes an EventHeader interceptor
 * corpus (the format of LinuxTracepoints' EventHeaderInterceptorLE64.dat: records of
 * u32 size including itself, tracepoint name NUL-terminated, event bytes) and prints
 * every event as JSON, framed like the reference decoder's .json output:
 *
 *   "FILE": [
 *     { "n": "Provider:Event", ..., "meta": { ... } },
 *     ... ]
 *
 * (one object member, not a whole object; --object wraps it in braces). The file is read
 * one record at a time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.h"
#include "commands.h"
#include "decode_json.h"
#include "eventheader_decode.h"
#include "regular_file.h"
#include "cli_options.h"

/* True when the file starts with a valid XRay file header (a flightrec trace given by
 * mistake); the stream is rewound. */
static bool is_trace(FILE *in)
{
    uint8_t header[FR_XRAY_HEADER_SIZE];
    size_t n = fread(header, 1, sizeof header, in);
    rewind(in);
    char err[256];
    fr_reader *r = n == sizeof header ? fr_reader_open_memory(header, n, "", err, sizeof err)
                                      : NULL;
    if (!r)
        return false;
    fr_reader_close(r);
    return true;
}

/* ---------------------------------------------------------------- parse */

/* decode-dat's words for a bad option: an unknown one is followed by the whole usage. */
static int decode_dat_bad_option(const fr_cli_command *cmd, const char *arg, bool missing)
{
    if (missing)
        return fr_cli_bad_option_named(cmd, arg, true);
    fprintf(stderr, "flightrec %s: unknown option '%s'\n", cmd->name, arg);
    fr_cli_print_help(cmd, stderr);
    return FR_EXIT_USAGE;
}

const fr_cli_command fr_cmd_decode_dat = {
    .name = "decode-dat",
    .summary = "decode an EventHeader interceptor corpus (.dat) to JSON",
    .run = cmd_decode_dat,
    .head = "usage: flightrec decode-dat [--object] [-o OUT] FILE\n"
            "Decodes an EventHeader interceptor corpus (.dat: u32 size, tracepoint name,\n"
            "event bytes per record) and prints each event as JSON in the style of the\n"
            "reference decoder.\n",
    .options = fr_decode_json_options,
    .column = 22,
    .tail = "",
    .bad_option = decode_dat_bad_option,
};

/* ---------------------------------------------------------------- check */

/* Opens the corpus at path: a regular file (never waiting on a FIFO or opening a device,
 * no final link: the rule for every file the CLI reads, regular_file.h), and not a
 * flightrec trace. Its size in *file_size (UINT64_MAX: unknown). NULL after a message. */
static FILE *open_corpus(const char *path, uint64_t *file_size)
{
    char err[512];
    int fd = fr_open_regular(path, FR_OPEN_NOFOLLOW, err, sizeof err);
    FILE *in = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!in) {
        if (fd >= 0) {
            snprintf(err, sizeof err, "%s: %s", path, strerror(errno));
            close(fd);
        }
        fprintf(stderr, "flightrec decode-dat: %s\n", err);
        return NULL;
    }
    fr_cli_note_input(path);
    /* Record sizes are checked against what is left of the file before anything is
     * allocated: garbage read as a size asks for up to 4 GiB. */
    struct stat st;
    *file_size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
    if (is_trace(in)) {
        fprintf(stderr, "flightrec decode-dat: %s is an XRay trace (flightrec's format), not an "
                        "EventHeader interceptor corpus (.dat): read it with flightrec info, "
                        "dump or convert\n", path);
        fclose(in);
        return NULL;
    }
    return in;
}

/* ---------------------------------------------------------------- run */

/* One record of the corpus at offset: its size, and its body (the name, NUL, the event
 * bytes) into *rec (grown as needed; NUL-terminated). 1 read, 0 at the end, -1 after a
 * message. */
static int read_record(FILE *in, const char *path, uint64_t offset, uint64_t file_size,
                       uint8_t **rec, size_t *cap, uint32_t *size)
{
    uint8_t size_bytes[4];
    size_t got = fread(size_bytes, 1, 4, in);
    if (got == 0)
        return 0;
    if (got < 4) {
        fprintf(stderr, "flightrec decode-dat: %s: byte %llu: truncated record size\n",
                path, (unsigned long long)offset);
        return -1;
    }
    *size = (uint32_t)size_bytes[0] | (uint32_t)size_bytes[1] << 8 |
            (uint32_t)size_bytes[2] << 16 | (uint32_t)size_bytes[3] << 24;
    if (*size < 5) {
        fprintf(stderr, "flightrec decode-dat: %s: byte %llu: record size %u is too small\n",
                path, (unsigned long long)offset, *size);
        return -1;
    }
    size_t body = *size - 4;
    if (file_size != UINT64_MAX && *size > file_size - offset) {
        fprintf(stderr, "flightrec decode-dat: %s: byte %llu: record size %u is larger than "
                        "the %llu bytes left in the file (not an EventHeader interceptor "
                        "corpus, or a damaged one)\n", path, (unsigned long long)offset,
                *size, (unsigned long long)(file_size - offset));
        return -1;
    }
    if (body + 1 > *cap) {
        uint8_t *p = realloc(*rec, body + 1);
        if (!p) {
            fprintf(stderr, "flightrec decode-dat: out of memory\n");
            return -1;
        }
        *rec = p;
        *cap = body + 1;
    }
    if (fread(*rec, 1, body, in) != body) {
        fprintf(stderr, "flightrec decode-dat: %s: byte %llu: record of %u bytes is truncated\n",
                path, (unsigned long long)offset, *size);
        return -1;
    }
    (*rec)[body] = 0;
    return 1;
}

/* Every event of the corpus as a JSON object, separated by commas; the exit status. */
static int decode_events(FILE *in, FILE *out, const char *path, uint64_t file_size)
{
    uint8_t *rec = NULL;
    size_t cap = 0;
    uint64_t offset = 0;
    unsigned count = 0;
    uint32_t size;
    int got, rc = FR_EXIT_OK;
    while ((got = read_record(in, path, offset, file_size, &rec, &cap, &size)) > 0) {
        size_t body = size - 4;
        size_t name_len = strnlen((const char *)rec, body);
        if (name_len == body) {
            fprintf(stderr, "flightrec decode-dat: %s: byte %llu: tracepoint name has no NUL\n",
                    path, (unsigned long long)offset);
            rc = FR_EXIT_BAD_INPUT;
            break;
        }
        fr_eh_event ev;
        char err[256];
        fputs(count ? ",\n  " : "\n  ", out);
        if (fr_eh_decode((const char *)rec, rec + name_len + 1, body - name_len - 1, &ev,
                         err, sizeof err) < 0 ||
            fr_eh_write_event_json(&ev, out, err, sizeof err) < 0) {
            fprintf(stderr, "flightrec decode-dat: %s: byte %llu: %s\n", path,
                    (unsigned long long)offset, err);
            rc = FR_EXIT_BAD_INPUT;
            break;
        }
        count++;
        offset += size;
    }
    free(rec);
    return got < 0 ? FR_EXIT_BAD_INPUT : rc;
}

/* ---------------------------------------------------------------- the command */

int cmd_decode_dat(int argc, char **argv)
{
    struct fr_decode_json_opts o = {.format = "json"};
    fr_cli_operands files;
    int rc = fr_cli_parse(&fr_cmd_decode_dat, argc, argv, &o, &files);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    if (files.n != 1) {   /* none, or more than one: the usage */
        fr_cli_print_help(&fr_cmd_decode_dat, stderr);
        return FR_EXIT_USAGE;
    }
    const char *path = files.v[0];
    uint64_t file_size;
    FILE *in = open_corpus(path, &file_size);
    if (!in)
        return FR_EXIT_BAD_INPUT;
    FILE *out = fr_cli_open_output("decode-dat", o.output);
    if (!out) {
        fclose(in);
        return FR_EXIT_BAD_INPUT;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    fr_decode_json_begin(out, &o, base);
    rc = decode_events(in, out, path, file_size);
    fr_decode_json_end(out, &o);
    fclose(in);
    int wrc = fr_cli_close_output("decode-dat", o.output, out);
    return rc ? rc : wrc;
}
