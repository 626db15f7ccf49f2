/* analysis_cli.c - see analysis_cli.h. */
#include "analysis_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"

static void load_symbols(fr_acli *c, const char *binary, int *rc)
{
    char err[512];
    c->symbols = fr_symbols_new();
    fr_symbols_add_trace_meta(c->symbols, &c->meta);
    if (binary) {
        if (fr_symbols_load_binary(c->symbols, binary, err, sizeof err) != 0) {
            fprintf(stderr, "flightrec %s: %s\n", c->command, err);
            *rc = FR_EXIT_BAD_INPUT;
        }
    } else if (c->meta.executable && c->meta.executable[0] &&
               access(c->meta.executable, R_OK) == 0) {
        /* Best effort: the trace's own names are used when the binary cannot be read. */
        if (fr_symbols_load_binary(c->symbols, c->meta.executable, err, sizeof err) != 0)
            fprintf(stderr, "flightrec %s: warning: %s\n", c->command, err);
    }
}

int fr_acli_run(fr_acli *c, const char *command, const char *path, const char *binary,
                unsigned what)
{
    char err[512];
    memset(c, 0, sizeof *c);
    c->command = command;
    c->path = path;
    fr_trace_meta_init(&c->meta);
    c->analysis = fr_analysis_new(what);

    fr_reader *r = fr_reader_open(path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "flightrec %s: %s\n", command, err);
        return FR_EXIT_BAD_INPUT;
    }
    c->info = *fr_reader_info(r);
    fr_record rec;
    fr_read_status st;
    while ((st = fr_reader_next(r, &rec)) == FR_READ_OK) {
        /* Function records are most of the trace and never metadata. */
        if (rec.kind >= FR_REC_CUSTOM)
            fr_trace_meta_feed(&c->meta, &rec);
        fr_analysis_feed(c->analysis, &rec);
    }
    int rc = 0;
    if (st == FR_READ_ERROR) {
        fprintf(stderr, "flightrec %s: %s\n", command, fr_reader_error(r));
        rc = FR_EXIT_BAD_INPUT;
    }
    fr_reader_close(r);
    fr_trace_meta_finish(&c->meta);
    fr_analysis_finish(c->analysis);

    c->ticks_per_second = c->meta.has_clock && c->meta.ticks_per_second
                        ? c->meta.ticks_per_second : c->info.ticks_per_second;
    if (!c->ticks_per_second) {
        fprintf(stderr, "flightrec %s: warning: %s gives no clock frequency; "
                "times are shown as if 1 tick = 1 ns\n", command, path);
        c->ticks_per_second = 1000000000;
    }
    if (rc == 0)
        load_symbols(c, binary, &rc);
    return rc;
}

void fr_acli_done(fr_acli *c)
{
    fr_analysis_free(c->analysis);
    if (c->symbols)
        fr_symbols_free(c->symbols);
    fr_trace_meta_free(&c->meta);
    memset(c, 0, sizeof *c);
}

const char *fr_acli_name(fr_acli *c, uint32_t function_id)
{
    static char buf[16];
    if (c->symbols)
        return fr_symbols_name(c->symbols, function_id);
    snprintf(buf, sizeof buf, "#%" PRIu32, function_id);
    return buf;
}

double fr_acli_ns(const fr_acli *c, uint64_t ticks)
{
    /* Integer part exactly in 128 bits, then one rounding to double. */
    unsigned __int128 scaled = (unsigned __int128)ticks * 1000000000u;
    unsigned __int128 whole = scaled / c->ticks_per_second;
    unsigned __int128 rest = scaled % c->ticks_per_second;
    return (double)whole + (double)rest / (double)c->ticks_per_second;
}

void fr_acli_format_duration(const fr_acli *c, uint64_t ticks, char *buf, size_t n)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    double v = fr_acli_ns(c, ticks);
    unsigned u = 0;
    while (u < 3 && v >= 999.5) {
        v /= 1000;
        u++;
    }
    int decimals = v == 0 ? 0 : v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
    snprintf(buf, n, "%.*f %s", decimals, v, units[u]);
}

void fr_acli_report_unmatched(const fr_acli *c)
{
    const fr_call_tracker_stats *s = fr_analysis_stats(c->analysis);
    fprintf(stderr,
            "flightrec %s: %" PRIu64 " calls in %" PRIu32 " threads; unmatched: %" PRIu64
            " exits without an enter (dropped), %" PRIu64 " calls closed by an unwind, %" PRIu64
            " calls open at the end, %" PRIu64 " calls cut by lost records\n",
            c->command, s->calls, s->threads, s->unmatched_exits, s->closed_by_unwind,
            s->open_at_end, s->discarded_at_lost);
    if (s->too_deep)
        fprintf(stderr, "flightrec %s: warning: %" PRIu64 " calls deeper than %u frames ignored\n",
                c->command, s->too_deep, FR_CALL_TRACKER_MAX_DEPTH);
}

void fr_acli_json_unmatched(const fr_acli *c, FILE *out)
{
    const fr_call_tracker_stats *s = fr_analysis_stats(c->analysis);
    fprintf(out,
            "\"calls\": %" PRIu64 ", \"threads\": %" PRIu32 ", \"max_depth\": %" PRIu32
            ", \"unmatched\": {\"exits_without_enter\": %" PRIu64 ", \"closed_by_unwind\": %" PRIu64
            ", \"open_at_end\": %" PRIu64 ", \"cut_by_lost_records\": %" PRIu64
            ", \"too_deep\": %" PRIu64 "}",
            s->calls, s->threads, s->max_depth, s->unmatched_exits, s->closed_by_unwind,
            s->open_at_end, s->discarded_at_lost, s->too_deep);
}

void fr_acli_json_string(FILE *out, const char *s)
{
    putc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            putc(*p, out);
    }
    putc('"', out);
}

FILE *fr_acli_open_output(const char *command, const char *path)
{
    if (!path || !strcmp(path, "-"))
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "flightrec %s: cannot write %s: %s\n", command, path, strerror(errno));
    return f;
}

int fr_acli_close_output(const char *command, const char *path, FILE *out)
{
    int bad = ferror(out);
    if (out == stdout)
        bad |= fflush(out) != 0;
    else
        bad |= fclose(out) != 0;
    if (bad) {
        fprintf(stderr, "flightrec %s: error writing %s\n", command,
                path && strcmp(path, "-") ? path : "standard output");
        return FR_EXIT_BAD_INPUT;
    }
    return 0;
}

int fr_acli_parse_count(const char *command, const char *option, const char *arg, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!arg || !*arg || *arg == '-') {
        fprintf(stderr, "flightrec %s: %s needs a non-negative number\n", command, option);
        return -1;
    }
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end) {
        fprintf(stderr, "flightrec %s: %s: '%s' is not a number\n", command, option, arg);
        return -1;
    }
    *out = v;
    return 0;
}
