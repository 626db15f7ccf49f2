/*
 * convert_perf.c - a perf.data file as an input of `flightrec convert --format
 * perfetto|chrome` beside traces (convert.h, "perf.data inputs"): its tracepoint samples
 * decoded (EventHeader user_events by the EventHeader decoder, other tracepoints from
 * their formats) with their pid, tid and CLOCK_MONOTONIC time, for the converters to
 * write as they write the trace's own structured events.
 *
 * The clock: a perf session's timestamps are on perf's own clock (the kernel's local
 * clock) unless it was recorded with `perf record -k monotonic`, which makes every
 * timestamp a CLOCK_MONOTONIC reading: the recorder's clock event anchors a trace to the
 * same clock, so both land on one timeline with no estimate. A file recorded otherwise
 * is refused: perf's clock and CLOCK_MONOTONIC differ by an offset that nothing in the
 * file states exactly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "eventheader_fields.h"
#include "perf_data.h"
#include "regular_file.h"
#include "tracefs_format.h"

struct cv_perf_input {
    fr_perf *perf;
    const char *path;
    fr_sb fields;
    bool have_pending;          /* a sample read while checking the clock, not given yet */
    fr_perf_sample pending;
    const fr_cli_tids *tids;    /* --tid: only these threads' samples */
    uint64_t given;
};

bool cv_is_perf_data(const char *path)
{
    char err[256];
    int fd = fr_open_regular(path, FR_OPEN_NOFOLLOW, err, sizeof err);
    if (fd < 0)
        return false;
    char magic[8];
    bool yes = read(fd, magic, 8) == 8 && !memcmp(magic, "PERFILE2", 8);
    close(fd);
    return yes;
}

int cv_perf_open(const char *path, const fr_cli_tids *tids, cv_perf_input **out)
{
    char err[600];
    int fd = fr_open_regular(path, FR_OPEN_NOFOLLOW, err, sizeof err);
    if (fd < 0)
        return fr_cli_input_error("convert", "%s", err);
    fr_cli_note_input(path);
    cv_perf_input *in = calloc(1, sizeof *in);
    if (!in) {
        close(fd);
        return fr_cli_input_error("convert", "out of memory");
    }
    in->path = path;
    in->tids = tids;
    in->fields.floats_marked = true;   /* Perfetto types a field by its text: 1.0 stays a double */
    in->perf = fr_perf_open(fd, err, sizeof err);
    if (!in->perf) {
        free(in);
        return fr_cli_input_error("convert", "%s: %s", path, err);
    }
    /* In pipe mode the attributes (and so the clock) arrive as records: read up to the
     * first sample to know it. */
    if (fr_perf_pipe_mode(in->perf)) {
        int got = fr_perf_next(in->perf, &in->pending, err, sizeof err);
        if (got < 0) {
            cv_perf_close(in);
            return fr_cli_input_error("convert", "%s: %s", path, err);
        }
        in->have_pending = got > 0;
    }
    fr_perf_clock clock = fr_perf_clock_of(in->perf);
    if (clock.clockid != CLOCK_MONOTONIC) {
        cv_perf_close(in);
        return fr_cli_input_error("convert", "%s: its times are on %s, not CLOCK_MONOTONIC: record "
                                  "it with 'perf record -k monotonic' to put it on the trace's "
                                  "timeline", path,
                                  clock.clockid < 0 ? "perf's own clock" : "another clock (perf record -k)");
    }
    *out = in;
    return FR_EXIT_OK;
}

void cv_perf_close(cv_perf_input *in)
{
    if (!in)
        return;
    fr_perf_close(in->perf);
    fr_sb_free(&in->fields);
    free(in);
}

const char *cv_perf_path(const cv_perf_input *in) { return in->path; }

uint64_t cv_perf_given(const cv_perf_input *in) { return in->given; }

const char *cv_perf_note(cv_perf_input *in) { return fr_perf_note(in->perf); }

int cv_perf_next(cv_perf_input *in, cv_perf_event *e)
{
    fr_perf_sample s;
    char err[600];
    for (;;) {
        if (in->have_pending) {
            s = in->pending;
            in->have_pending = false;
        } else {
            int got = fr_perf_next(in->perf, &s, err, sizeof err);
            if (got < 0) {
                fr_cli_input_error("convert", "%s: %s", in->path, err);
                return -1;
            }
            if (got == 0)
                return 0;
        }
        /* --tid: a sample with no tid belongs to no thread asked for */
        if (!in->tids->n || (s.has_tid && fr_cli_tids_has(in->tids, (int32_t)s.tid)))
            break;
    }
    in->given++;
    memset(e, 0, sizeof *e);
    e->pid = s.has_tid ? (int32_t)s.pid : -1;
    e->tid = s.has_tid ? (int32_t)s.tid : -1;
    e->ns = s.has_time ? s.time : 0;
    in->fields.len = 0;
    in->fields.failed = false;
    const fr_tp_format *f = s.format;
    int rc = 0;
    if (f && f->eventheader_offset >= 0 && (uint32_t)f->eventheader_offset <= s.raw_size) {
        size_t at = (size_t)f->eventheader_offset;
        rc = fr_eh_decode(f->name, s.raw + at, s.raw_size - at, &e->ev, e->err, sizeof e->err);
        if (rc == 0) {
            e->eventheader = true;
            bool need_comma = false;
            rc = fr_eh_fields_to_json(&e->ev, &in->fields, &need_comma, e->err, sizeof e->err);
        }
        if (rc < 0) {       /* shown as an undecodable instant named by its tracepoint */
            e->eventheader = false;
            e->name = f->full_name;
            e->category = f->system;
        }
    } else if (f) {
        e->name = f->full_name;
        e->category = f->system;
        rc = fr_tp_fields_to_json(f, s.raw, s.raw_size, &in->fields, e->err, sizeof e->err);
    } else {
        e->name = "unknown tracepoint";
        e->category = "perf";
        snprintf(e->err, sizeof e->err, "no format for tracepoint id %llu in the file",
                 (unsigned long long)s.tracepoint_id);
        rc = -1;
    }
    if (rc == 0 && in->fields.failed) {
        snprintf(e->err, sizeof e->err, "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        const char *p = in->fields.data ? in->fields.data : "";
        size_t n = in->fields.len;
        if (n >= 2 && p[0] == ',' && p[1] == ' ') {   /* tracefs_format's members start ", " */
            p += 2;
            n -= 2;
        }
        e->fields = p;
        e->fields_len = n;
    }
    return 1;
}
