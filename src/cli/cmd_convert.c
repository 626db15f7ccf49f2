/*
 * cmd_convert.c - `flightrec convert FILE --format chrome|folded|svg|yaml [-o OUT]`:
 * parses the options, opens the trace, reads its metadata block ahead (names, clock,
 * threads come first in our files), loads symbols, and hands over to the format's writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "convert.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: flightrec convert FILE --format FORMAT [-o OUT] [options]\n"
        "\n"
        "Converts a trace, reading it once and writing as it reads.\n"
        "\n"
        "formats:\n"
        "  chrome   Chrome trace_event JSON (Perfetto UI, chrome://tracing): calls as\n"
        "           complete events per thread, structured events as instants with their\n"
        "           fields, spans as async slices, thread and process names\n"
        "  folded   folded stacks \"main;f;g WEIGHT\" for flamegraph.pl and speedscope\n"
        "  svg      a self-contained interactive SVG flame graph (click to zoom, search)\n"
        "  yaml     llvm-xray's YAML trace format (as `llvm-xray convert -f yaml` writes it)\n"
        "\n"
        "options:\n"
        "  -f, --format FORMAT  output format (required)\n"
        "  -o, --output OUT     output file (default: standard output)\n"
        "  --binary BIN         take function names from BIN (its xray_instr_map and symbols)\n"
        "  --weight time|calls  folded/svg: weight of a stack, self time in ns (default) or calls\n"
        "  --title TEXT         svg: title of the flame graph\n"
        "  --ids                yaml: print function ids, not names (llvm-xray without -symbolize)\n"
        "  -h, --help           this help\n"
        "\n"
        "exit codes: 0 success, 1 bad input (the message names the file and byte offset),\n"
        "2 bad usage\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "flightrec convert: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(flightrec convert --help for usage)\n");
    return FR_EXIT_USAGE;
}

/* Reads the records that precede the first thread block (our metadata block) into meta. */
static int read_metadata_block(const char *path, fr_trace_meta *meta)
{
    char err[512];
    fr_reader *r = fr_reader_open(path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "flightrec convert: %s\n", err);
        return FR_EXIT_BAD_INPUT;
    }
    fr_record rec;
    fr_read_status st;
    while ((st = fr_reader_next(r, &rec)) == FR_READ_OK) {
        if (rec.kind == FR_REC_BLOCK && rec.tid != 0)
            break;
        if (rec.kind <= FR_REC_ENTER_ARG)
            break;
        fr_trace_meta_feed(meta, &rec);
    }
    int rc = FR_EXIT_OK;
    if (st == FR_READ_ERROR) {
        fprintf(stderr, "flightrec convert: %s\n", fr_reader_error(r));
        rc = FR_EXIT_BAD_INPUT;
    }
    fr_reader_close(r);
    return rc;
}

fr_read_status cv_next(cv_job *job, fr_record *rec)
{
    static uint64_t count;
    static int progress = -1;
    fr_read_status st = fr_reader_next(job->reader, rec);
    if (st == FR_READ_ERROR) {
        if (progress > 0)
            fputc('\n', stderr);
        fprintf(stderr, "flightrec convert: %s\n", fr_reader_error(job->reader));
        return st;
    }
    if ((++count & 0xFFFFF) == 0 || st == FR_READ_EOF) {
        if (progress < 0)
            progress = isatty(STDERR_FILENO) && job->info->file_size > (64u << 20);
        if (progress > 0) {
            uint64_t pos = fr_reader_position(job->reader);
            fprintf(stderr, "\rconvert: %3d%%", (int)(pos * 100 / (job->info->file_size ? job->info->file_size : 1)));
            if (st == FR_READ_EOF)
                fputc('\n', stderr);
        }
    }
    return st;
}

int cmd_convert(int argc, char **argv)
{
    const char *in = NULL, *out_path = NULL, *format = NULL, *binary = NULL, *weight = "time";
    cv_job job = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return FR_EXIT_OK;
        } else if (!strcmp(a, "-f") || !strcmp(a, "--format")) dst = &format;
        else if (!strcmp(a, "-o") || !strcmp(a, "--output")) dst = &out_path;
        else if (!strcmp(a, "--binary")) dst = &binary;
        else if (!strcmp(a, "--weight")) dst = &weight;
        else if (!strcmp(a, "--title")) dst = &job.title;
        else if (!strcmp(a, "--ids")) { job.ids_only = true; continue; }
        else if (!strncmp(a, "--format=", 9)) { format = a + 9; continue; }
        else if (!strncmp(a, "--output=", 9)) { out_path = a + 9; continue; }
        else if (!strncmp(a, "--binary=", 9)) { binary = a + 9; continue; }
        else if (!strncmp(a, "--weight=", 9)) { weight = a + 9; continue; }
        else if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
        else if (in) return usage_error("more than one input file ('%s')", a);
        else { in = a; continue; }
        if (i + 1 >= argc)
            return usage_error("option '%s' needs a value", a);
        *dst = argv[++i];
    }
    if (!in)
        return usage_error("%s", "no input file");
    if (!format)
        return usage_error("%s", "no --format (chrome, folded, svg or yaml)");
    int (*convert)(cv_job *) = NULL;
    if (!strcmp(format, "chrome")) convert = cv_convert_chrome;
    else if (!strcmp(format, "folded")) convert = cv_convert_folded;
    else if (!strcmp(format, "svg")) convert = cv_convert_svg;
    else if (!strcmp(format, "yaml")) convert = cv_convert_yaml;
    else return usage_error("unknown format '%s' (chrome, folded, svg or yaml)", format);
    if (!strcmp(weight, "time")) job.weight = CV_WEIGHT_TIME;
    else if (!strcmp(weight, "calls")) job.weight = CV_WEIGHT_CALLS;
    else return usage_error("unknown --weight '%s' (time or calls)", weight);

    fr_trace_meta meta;
    fr_trace_meta_init(&meta);
    int rc = read_metadata_block(in, &meta);
    if (rc) {
        fr_trace_meta_free(&meta);
        return rc;
    }
    fr_trace_meta_finish(&meta);

    char err[512];
    job.in_path = in;
    job.meta = &meta;
    job.symbols = fr_symbols_new();
    fr_symbols_add_trace_meta(job.symbols, &meta);
    job.have_names = meta.n_functions > 0;
    if (binary) {
        if (fr_symbols_load_binary(job.symbols, binary, err, sizeof err)) {
            fprintf(stderr, "flightrec convert: %s\n", err);
            rc = FR_EXIT_BAD_INPUT;
            goto out_symbols;
        }
        job.have_names = true;
    } else if (meta.executable && meta.executable[0] && access(meta.executable, R_OK) == 0) {
        /* Names the trace's own table lacks may still be in the recorded executable. */
        if (fr_symbols_load_binary(job.symbols, meta.executable, err, sizeof err) == 0)
            job.have_names = true;
    }

    job.reader = fr_reader_open(in, err, sizeof err);
    if (!job.reader) {
        fprintf(stderr, "flightrec convert: %s\n", err);
        rc = FR_EXIT_BAD_INPUT;
        goto out_symbols;
    }
    job.info = fr_reader_info(job.reader);
    job.ticks_per_second = meta.has_clock && meta.ticks_per_second ? meta.ticks_per_second
                                                                   : job.info->ticks_per_second;
    job.base_tsc = meta.has_clock ? meta.base_tsc : 0;
    if (job.ticks_per_second == 0) {
        fprintf(stderr, "flightrec convert: %s: offset 8: clock frequency is 0\n", in);
        rc = FR_EXIT_BAD_INPUT;
        goto out_reader;
    }

    if (!out_path || !strcmp(out_path, "-")) {
        job.out = stdout;
        job.out_path = "<stdout>";
    } else {
        job.out = fopen(out_path, "wb");
        job.out_path = out_path;
        if (!job.out) {
            fprintf(stderr, "flightrec convert: cannot create %s: %s\n", out_path, strerror(errno));
            rc = FR_EXIT_USAGE;
            goto out_reader;
        }
    }
    rc = convert(&job);
    if (job.out != stdout) {
        if (fclose(job.out) != 0 && rc == FR_EXIT_OK) {
            fprintf(stderr, "flightrec convert: writing %s: %s\n", out_path, strerror(errno));
            rc = FR_EXIT_BAD_INPUT;
        }
    }
out_reader:
    fr_reader_close(job.reader);
out_symbols:
    fr_symbols_free(job.symbols);
    fr_trace_meta_free(&meta);
    return rc;
}
