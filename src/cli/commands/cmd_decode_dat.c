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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.h"
#include "commands.h"
#include "eventheader_decode.h"
#include "regular_file.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flightrec decode-dat [--object] [-o OUT] FILE\n"
            "Decodes an EventHeader interceptor corpus (.dat: u32 size, tracepoint name,\n"
            "event bytes per record) and prints each event as JSON in the style of the\n"
            "reference decoder.\n"
            "  --object            wrap the output in braces (a complete JSON object)\n"
            "  -f, --format F      json (the only format)\n"
            "  -o, --output OUT    write to OUT instead of standard output\n"
            "  -h, --help          this text\n");
}

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

int cmd_decode_dat(int argc, char **argv)
{
    const char *path = NULL, *output = NULL, *format = "json";
    int object = 0;
    for (int i = 1; i < argc; i++) {
        int m;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return FR_EXIT_OK;
        } else if ((m = fr_cli_option("decode-dat", argc, argv, &i, "--output", &output)) ||
                   (m = fr_cli_option("decode-dat", argc, argv, &i, "-o", &output)) ||
                   (m = fr_cli_option("decode-dat", argc, argv, &i, "--format", &format)) ||
                   (m = fr_cli_option("decode-dat", argc, argv, &i, "-f", &format))) {
            if (m < 0)
                return FR_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--object")) {
            object = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "flightrec decode-dat: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return FR_EXIT_USAGE;
        } else if (!path) {
            path = argv[i];
        } else {
            usage(stderr);
            return FR_EXIT_USAGE;
        }
    }
    if (!path) {
        usage(stderr);
        return FR_EXIT_USAGE;
    }
    if (strcmp(format, "json"))
        return fr_cli_usage_error("decode-dat", "unknown format '%s' (json)", format);
    /* Regular files only, never waiting on a FIFO or opening a device, no final link:
     * the rule for every file the CLI reads (regular_file.h). */
    char err[512];
    int fd = fr_open_regular(path, FR_OPEN_NOFOLLOW, err, sizeof err);
    FILE *in = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!in) {
        if (fd >= 0) {
            snprintf(err, sizeof err, "%s: %s", path, strerror(errno));
            close(fd);
        }
        fprintf(stderr, "flightrec decode-dat: %s\n", err);
        return FR_EXIT_BAD_INPUT;
    }
    fr_cli_note_input(path);
    /* Record sizes are checked against what is left of the file before anything is
     * allocated: garbage read as a size asks for up to 4 GiB. */
    struct stat st;
    uint64_t file_size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
    if (is_trace(in)) {
        fprintf(stderr, "flightrec decode-dat: %s is an XRay trace (flightrec's format), not an "
                        "EventHeader interceptor corpus (.dat): read it with flightrec info, "
                        "dump or convert\n", path);
        fclose(in);
        return FR_EXIT_BAD_INPUT;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;

    FILE *out = fr_cli_open_output("decode-dat", output);
    if (!out) {
        fclose(in);
        return FR_EXIT_BAD_INPUT;
    }
    int rc = FR_EXIT_OK;
    uint8_t *rec = NULL;
    size_t cap = 0;
    uint64_t offset = 0;
    unsigned count = 0;
    if (object)
        fputs("{\n", out);
    fr_cli_json_string(out, base);   /* valid UTF-8 JSON whatever the name */
    fputs(": [", out);
    for (;;) {
        uint8_t size_bytes[4];
        size_t got = fread(size_bytes, 1, 4, in);
        if (got == 0)
            break;
        if (got < 4) {
            fprintf(stderr, "flightrec decode-dat: %s: byte %llu: truncated record size\n",
                    path, (unsigned long long)offset);
            rc = FR_EXIT_BAD_INPUT;
            break;
        }
        uint32_t size = (uint32_t)size_bytes[0] | (uint32_t)size_bytes[1] << 8 |
                        (uint32_t)size_bytes[2] << 16 | (uint32_t)size_bytes[3] << 24;
        if (size < 5) {
            fprintf(stderr, "flightrec decode-dat: %s: byte %llu: record size %u is too small\n",
                    path, (unsigned long long)offset, size);
            rc = FR_EXIT_BAD_INPUT;
            break;
        }
        size_t body = size - 4;
        if (file_size != UINT64_MAX && size > file_size - offset) {
            fprintf(stderr, "flightrec decode-dat: %s: byte %llu: record size %u is larger than "
                            "the %llu bytes left in the file (not an EventHeader interceptor "
                            "corpus, or a damaged one)\n", path, (unsigned long long)offset,
                    size, (unsigned long long)(file_size - offset));
            rc = FR_EXIT_BAD_INPUT;
            break;
        }
        if (body + 1 > cap) {
            uint8_t *p = realloc(rec, body + 1);
            if (!p) {
                fprintf(stderr, "flightrec decode-dat: out of memory\n");
                rc = FR_EXIT_BAD_INPUT;
                break;
            }
            rec = p;
            cap = body + 1;
        }
        if (fread(rec, 1, body, in) != body) {
            fprintf(stderr, "flightrec decode-dat: %s: byte %llu: record of %u bytes is truncated\n",
                    path, (unsigned long long)offset, size);
            rc = FR_EXIT_BAD_INPUT;
            break;
        }
        rec[body] = 0;
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
    fputs(" ]\n", out);
    if (object)
        fputs("}\n", out);
    free(rec);
    fclose(in);
    int wrc = fr_cli_close_output("decode-dat", output, out);
    return rc ? rc : wrc;
}
