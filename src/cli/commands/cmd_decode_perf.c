/*
 * cmd_decode_perf.c - `flightrec decode-perf FILE`: every tracepoint sample of a
 * perf.data file (file mode, or pipe mode from a file or standard input) as JSON, framed
 * as decode-dat frames its events (the reference decoder's style):
 *
 *   "perf.data": [
 *     { "n": "MyProvider:Hello", "count": 42, "meta": { "time": "...", "cpu": 0, "pid": 7,
 *       "tid": 7, "level": 4, "keyword": "0x1" } },
 *     { "n": "sched:sched_switch", "prev_comm": "perf", ..., "meta": { ... } } ]
 *
 * EventHeader user_events are decoded by the EventHeader decoder (eventheader_decode.h),
 * other tracepoints from the format descriptions the file holds (tracefs_format.h).
 * perf record's re-read copies are left out by the reader (perf_reread.h) and counted in a
 * note.
 * The file is read one record at a time (perf_data.h); output is built in memory and
 * written in large pieces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "decode_json.h"
#include "eventheader_decode.h"
#include "eventheader_text.h"
#include "perf_data.h"
#include "regular_file.h"
#include "tracefs_format.h"

#define COMMAND "decode-perf"

/* ------------------------------------------------------------------ meta */

static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_i32(char *p, int32_t v)
{
    if (v < 0)
        *p++ = '-';
    return put_u64(p, v < 0 ? (uint64_t)-(int64_t)v : (uint64_t)v);
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* Digits of v, zero-padded to width. */
static char *put_padded(char *p, uint64_t v, int width)
{
    for (int i = width - 1; i >= 0; i--, v /= 10)
        p[i] = (char)('0' + v % 10);
    return p + width;
}

typedef struct time_cache {
    int64_t second;         /* of `date`; INT64_MIN: none yet */
    char    date[24];       /* "2024-03-28T00:45:12." */
    size_t  date_len;
} time_cache;

/* ` "time": ..., "cpu": N, "pid": N, "tid": N` for the sample, into buf (>= 160 bytes). */
static size_t sample_meta(char *buf, const fr_perf_sample *s, const fr_perf_clock *clock,
                          time_cache *tc)
{
    char *p = buf;
    const char *sep = " ";
    if (s->has_time) {
        p = put_str(p, " \"time\": ");
        if (clock->has_wall) {
            /* Wrapping sum (a hostile file's numbers must not overflow a signed type),
             * then seconds rounded down and a fraction in [0, 1e9). */
            int64_t ns = (int64_t)(s->time + (uint64_t)clock->wall_offset_ns);
            int64_t sec = ns / 1000000000, rem = ns % 1000000000;
            if (rem < 0) {
                rem += 1000000000;
                sec--;
            }
            uint64_t frac = (uint64_t)rem;
            if (sec != tc->second) {
                time_t t = (time_t)sec;
                struct tm tm;
                if (gmtime_r(&t, &tm) && tm.tm_year + 1900 >= 0 && tm.tm_year + 1900 <= 9999)
                    tc->date_len = strftime(tc->date, sizeof tc->date, "%Y-%m-%dT%H:%M:%S.", &tm);
                else
                    tc->date_len = 0;
                tc->second = sec;
            }
            *p++ = '"';
            if (tc->date_len) {
                memcpy(p, tc->date, tc->date_len);
                p = put_padded(p + tc->date_len, frac, 9);
                *p++ = 'Z';
            } else {    /* outside years 0-9999: nanoseconds since 1970 */
                p += snprintf(p, 32, "%lld", (long long)ns);
            }
            *p++ = '"';
        } else {
            p = put_u64(p, s->time / 1000000000);
            *p++ = '.';
            p = put_padded(p, s->time % 1000000000, 9);
        }
        sep = ", ";
    }
    if (s->has_cpu) {
        p = put_str(put_str(p, sep), "\"cpu\": ");
        p = put_u64(p, s->cpu);
        sep = ", ";
    }
    if (s->has_tid) {   /* signed: the kernel writes -1 for a task outside perf's pid namespace */
        p = put_str(put_str(p, sep), "\"pid\": ");
        p = put_i32(p, (int32_t)s->pid);
        p = put_str(p, ", \"tid\": ");
        p = put_i32(p, (int32_t)s->tid);
    }
    *p = 0;
    return (size_t)(p - buf);
}

/* ------------------------------------------------------------------ one event */

/* Appends the sample as one JSON object to sb. Returns 0, or -1 (sb as it was). */
static int sample_json(const fr_perf_sample *s, const char *meta, fr_sb *sb, char *err,
                       size_t errlen)
{
    const fr_tp_format *f = s->format;
    size_t mark = sb->len;
    if (f && f->eventheader_offset >= 0 && (uint32_t)f->eventheader_offset <= s->raw_size) {
        fr_eh_event ev;
        size_t at = (size_t)f->eventheader_offset;
        if (fr_eh_decode(f->name, s->raw + at, s->raw_size - at, &ev, err, errlen) < 0)
            return -1;
        return fr_eh_event_to_json(&ev, meta, sb, err, errlen);
    }
    fr_sb_puts(sb, "{ \"n\": ");
    if (f) {
        fr_sb_json_text(sb, (const uint8_t *)f->full_name, strlen(f->full_name), FR_TEXT_UTF8);
        if (fr_tp_fields_to_json(f, s->raw, s->raw_size, sb, err, errlen) < 0) {
            sb->len = mark;
            return -1;
        }
    } else {
        /* No format for its id: a file-mode file cut before its header features. */
        fr_sb_printf(sb, "\"unknown:%llu\", \"raw\": \"", (unsigned long long)s->tracepoint_id);
        fr_sb_hex_bytes(sb, s->raw, s->raw_size);
        fr_sb_putc(sb, '"');
    }
    fr_sb_puts(sb, ", \"meta\": {");
    fr_sb_puts(sb, meta);
    fr_sb_puts(sb, " } }");
    return 0;
}

/* ------------------------------------------------------------------ command */

static int open_input(const char *path, int *fd)
{
    char err[512];
    if (!strcmp(path, "-")) {
        *fd = dup(STDIN_FILENO);
        if (*fd < 0)
            return fr_cli_input_error(COMMAND, "standard input: %s", strerror(errno));
        return 0;
    }
    *fd = fr_open_regular(path, FR_OPEN_NOFOLLOW, err, sizeof err);
    if (*fd < 0)
        return fr_cli_input_error(COMMAND, "%s", err);
    fr_cli_note_input(path);
    return 0;
}

static int flush_sb(fr_sb *sb, FILE *out)
{
    if (sb->len && fwrite(sb->data, 1, sb->len, out) != sb->len)
        return -1;
    sb->len = 0;
    return 0;
}

/* ------------------------------------------------------------------ run */

/* Every sample of perf as a JSON object, separated by commas, to out. Returns 1 when
 * all were read, 0 when writing failed, -1 when reading failed (err says why, count
 * the events printed before it). */
static int decode_samples(fr_perf *perf, FILE *out, char *err, size_t errcap, uint64_t *count_out)
{
    fr_sb sb = {0};
    time_cache tc = {.second = INT64_MIN};
    uint64_t count = 0;
    bool write_failed = false;
    fr_perf_sample s;
    int got;
    while ((got = fr_perf_next(perf, &s, err, errcap)) > 0) {
        char meta[200];
        fr_perf_clock clock = fr_perf_clock_of(perf);
        sample_meta(meta, &s, &clock, &tc);
        size_t mark = sb.len;
        fr_sb_puts(&sb, count ? ",\n  " : "\n  ");
        char why[400];
        if (sample_json(&s, meta, &sb, why, sizeof why) < 0) {
            sb.len = mark;
            snprintf(err, errcap, "byte %llu: %s", (unsigned long long)s.offset, why);
            got = -1;
            break;
        }
        if (sb.failed) {
            snprintf(err, errcap, "out of memory");
            got = -1;
            break;
        }
        count++;
        if (sb.len >= 1 << 16 && flush_sb(&sb, out) < 0) {
            write_failed = true;
            break;
        }
    }
    if (flush_sb(&sb, out) < 0)
        write_failed = true;
    fr_sb_free(&sb);
    *count_out = count;
    return write_failed ? 0 : got < 0 ? -1 : 1;
}

/* ------------------------------------------------------------------ parse */

const fr_cli_command fr_cmd_decode_perf = {
    .name = "decode-perf",
    .summary = "tracepoint samples of a perf.data file (user_events too) as JSON",
    .run = cmd_decode_perf,
    .head = "usage: flightrec decode-perf [--object] [-o OUT] FILE\n"
            "Prints every tracepoint sample of a perf.data file (perf record; file or pipe\n"
            "mode, FILE '-' for standard input) as JSON in the style of the reference\n"
            "decoder: EventHeader user_events field by field, other tracepoints from the\n"
            "formats the file stores, and a \"meta\" object per event (time, cpu, pid, tid,\n"
            "then the EventHeader level, keyword, opcode...). The time is UTC with\n"
            "nanoseconds when the file has perf's clock data (perf record -k CLOCK), else\n"
            "seconds on perf's clock (since boot). A sample perf record wrote twice (its\n"
            "ring-buffer read race: a CPU's last sample of one pass again as its first of\n"
            "the next, byte for byte) is printed once, and a note on standard error says\n"
            "how many copies were left out.\n",
    .options = fr_decode_json_options,
    .column = 22,
    .tail = "",
    .bad_option = fr_cli_bad_option_named,
};

/* ------------------------------------------------------------------ the command */

int cmd_decode_perf(int argc, char **argv)
{
    struct fr_decode_json_opts o = {.format = "json"};
    fr_cli_operands files;
    int rc = fr_cli_parse(&fr_cmd_decode_perf, argc, argv, &o, &files);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    if (files.n > 1)
        return fr_cli_usage_error(COMMAND, "one FILE only ('%s' is a second)", files.v[1]);
    if (files.n < 1)
        return fr_cli_usage_error(COMMAND, "no FILE (a perf.data file, or - for standard input)");
    const char *path = files.v[0], *output = o.output;

    int fd;
    rc = open_input(path, &fd);
    if (rc)
        return rc;
    char err[600];
    fr_perf *perf = fr_perf_open(fd, err, sizeof err);
    if (!perf)
        return fr_cli_input_error(COMMAND, "%s: %s", path, err);
    FILE *out = fr_cli_open_output(COMMAND, output);
    if (!out) {
        fr_perf_close(perf);
        return FR_EXIT_BAD_INPUT;
    }
    const char *base = strrchr(path, '/');
    base = !strcmp(path, "-") ? "stdin" : base ? base + 1 : path;
    fr_decode_json_begin(out, &o, base);
    uint64_t count;
    int status = decode_samples(perf, out, err, sizeof err, &count);
    fr_decode_json_end(out, &o);
    rc = FR_EXIT_OK;
    if (status < 0)
        rc = fr_cli_input_error(COMMAND, "%s: %s (%llu events printed before it)", path, err,
                                (unsigned long long)count);
    else if (fr_perf_warning(perf))
        fprintf(stderr, "flightrec %s: warning: %s: %s\n", COMMAND, path, fr_perf_warning(perf));
    /* the copies left out before an error are missing from what was printed too */
    if (fr_perf_note(perf))
        fprintf(stderr, "flightrec %s: note: %s: %s\n", COMMAND, path, fr_perf_note(perf));
    fr_perf_close(perf);
    int wrc = fr_cli_close_output(COMMAND, output, out);
    return rc ? rc : wrc;
}
