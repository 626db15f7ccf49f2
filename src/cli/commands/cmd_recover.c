/*
 * cmd_recover.c - `flightrec recover BACKING -o TRACE`: the trace of a process that died
 * without writing one (SIGKILL, the OOM killer, _exit), from the backing file it
 * recorded into (option backing=PATH; docs/BACKING.md). The work is
 * src/reader/backing_recover.c; here: the file, the output, and what is said.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "backing_recover.h"
#include "cli_common.h"
#include "commands.h"
#include "fr_backing.h"
#include "regular_file.h"
#include "stream_tail.h"
#include "cli_options.h"


static int read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
    int fd = *(int *)ctx;
    uint8_t *p = buf;
    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;   /* shorter than when we looked: changed under us */
            return -1;
        }
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static const char *state_name(uint32_t s)
{
    return s == FR_BACKING_RECORDING ? "recording when it ended"
         : s == FR_BACKING_STOPPED ? "stopped, trace not written"
         : s == FR_BACKING_WRITTEN ? "it wrote its own trace" : "unknown state";
}

int fr_recover_file(const char *in_path, const char *out_path, fr_recover_report *rep_out,
                    char *errbuf, size_t errcap)
{
    fr_recover_report rep_local, *rep_p = rep_out ? rep_out : &rep_local;
    /* A regular file only, never blocking in open() on a FIFO, not through a link planted
     * where the backing file should be: the CLI's rule for every file it reads. */
    char why[512];
    int fd = fr_open_regular(in_path, FR_OPEN_NOFOLLOW, why, sizeof why);
    if (fd < 0) {
        size_t n = strlen(in_path);   /* why is "PATH: cannot open: ..."; the caller names PATH */
        snprintf(errbuf, errcap, "%s", !strncmp(why, in_path, n) && !strncmp(why + n, ": ", 2)
                                           ? why + n + 2 : why);
        return FR_RECOVER_BAD;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(errbuf, errcap, "cannot open: %s", strerror(errno));
        close(fd);
        return FR_RECOVER_BAD;
    }
    /* The trace goes to a temporary next to TRACE, renamed when whole: a failed recover
     * leaves no half trace behind. */
    int to_stdout = !strcmp(out_path, "-");
    char *tmp = NULL;
    FILE *out = stdout;
    if (!to_stdout) {
        if (asprintf(&tmp, "%s.recover-%d.tmp", out_path, (int)getpid()) < 0) {
            close(fd);
            snprintf(errbuf, errcap, "out of memory");
            return FR_RECOVER_IO;
        }
        int ofd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        out = ofd < 0 ? NULL : fdopen(ofd, "w");
        if (!out) {
            int e = errno;
            if (ofd >= 0)
                close(ofd);
            close(fd);
            free(tmp);
            snprintf(errbuf, errcap, "cannot write %s: %s", out_path, strerror(e));
            return FR_RECOVER_IO;
        }
    }
    fr_recover_input in = { .read = read_at, .ctx = &fd, .size = (uint64_t)st.st_size };
    int rc = fr_recover(&in, out, rep_p, errbuf, errcap);
    close(fd);
    if (!to_stdout) {
        if (fclose(out) != 0 && rc == FR_RECOVER_OK) {
            snprintf(errbuf, errcap, "cannot write %s: %s", out_path, strerror(errno));
            rc = FR_RECOVER_IO;
        }
        if (rc == FR_RECOVER_OK && rename(tmp, out_path) != 0) {
            snprintf(errbuf, errcap, "cannot write %s: %s", out_path, strerror(errno));
            rc = FR_RECOVER_IO;
        }
        if (rc != FR_RECOVER_OK)
            unlink(tmp);
        free(tmp);
    } else if (fflush(stdout) != 0 && rc == FR_RECOVER_OK) {
        snprintf(errbuf, errcap, "error writing standard output");
        rc = FR_RECOVER_IO;
    }
    return rc;
}

/* The streamed trace at path, open for reading and writing (a regular file, no final
 * link followed), with its size; -1 after a message in err. */
static int open_streamed(const char *path, uint64_t *size, char *err, size_t errcap)
{
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errcap, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

int fr_trace_unfinished(const char *path)
{
    char err[256];
    uint64_t size;
    int fd = open_streamed(path, &size, err, sizeof err);
    if (fd < 0)
        return -1;
    fr_stream_tail *t = fr_stream_tail_scan(fd, size, err, sizeof err);
    close(fd);
    int r = t && !fr_stream_tail_finished(t);
    fr_stream_tail_free(t);
    return r;
}

int fr_recover_onto(const char *in_path, const char *trace_path, fr_recover_report *rep_out,
                    char *errbuf, size_t errcap)
{
    fr_recover_report rep_local, *rep_p = rep_out ? rep_out : &rep_local;
    memset(rep_p, 0, sizeof *rep_p);
    char why[512];
    int fd = fr_open_regular(in_path, FR_OPEN_NOFOLLOW, why, sizeof why);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(errbuf, errcap, "%s", fd < 0 ? why : strerror(errno));
        if (fd >= 0)
            close(fd);
        return FR_RECOVER_BAD;
    }
    uint64_t size;
    int tfd = open_streamed(trace_path, &size, errbuf, errcap);
    if (tfd < 0) {
        close(fd);
        return FR_RECOVER_IO;
    }
    char terr[256];
    fr_stream_tail *t = fr_stream_tail_scan(tfd, size, terr, sizeof terr);
    int rc = FR_RECOVER_BAD;
    FILE *out = NULL;
    if (!t) {
        snprintf(errbuf, errcap, "%s: %s", trace_path, terr);
    } else if (fr_stream_tail_finished(t)) {
        snprintf(errbuf, errcap, "%s has its end already (the process wrote it): nothing to "
                                 "recover onto it", trace_path);
    } else {
        uint64_t end = fr_stream_tail_end(t);
        /* the torn block goes; the rest is appended where it began */
        if ((end < size && ftruncate(tfd, (off_t)end) != 0) ||
            !(out = fdopen(tfd, "r+")) || fseeko(out, (off_t)end, SEEK_SET) != 0) {
            snprintf(errbuf, errcap, "cannot write %s: %s", trace_path, strerror(errno));
            rc = FR_RECOVER_IO;
        } else {
            fr_recover_stream s;
            fr_stream_tail_recover_input(t, &s);
            fr_recover_input in = { .read = read_at, .ctx = &fd, .size = (uint64_t)st.st_size,
                                    .stream = &s };
            rc = fr_recover(&in, out, rep_p, errbuf, errcap);
            if (fflush(out) != 0 && rc == FR_RECOVER_OK) {
                snprintf(errbuf, errcap, "cannot write %s: %s", trace_path, strerror(errno));
                rc = FR_RECOVER_IO;
            }
            if (rc != FR_RECOVER_OK && ftruncate(tfd, (off_t)end) != 0)
                rc = FR_RECOVER_IO;   /* (what was appended goes: the file as it was) */
        }
    }
    fr_stream_tail_free(t);
    if (out)
        fclose(out);   /* (closes tfd) */
    else
        close(tfd);
    close(fd);
    return rc;
}

/* ---------------------------------------------------------------- parse */

struct recover_opts {
    const char *out_path, *onto;
    bool        quiet;
};

static const fr_cli_opt recover_options[] = {
    FR_CLI_OPT_OUTPUT(struct recover_opts, out_path, " TRACE",
                      "the trace file to write ('-': standard output)"),
    {.name = "onto", .arg = " STREAMED", .set = fr_cli_set_string,
     .offset = offsetof(struct recover_opts, onto),
     .help = "the process streamed its trace (stream=1) to STREAMED and\n"
             "died before its end: complete STREAMED in place (its torn\n"
             "last block cut, the buffers not streamed yet and the end\n"
             "appended), so it holds the whole run"},
    FR_CLI_OPT_FLAG("quiet", 'q', struct recover_opts, quiet, "print nothing on success"),
    {0},   /* -h, --help: taken, not listed */
};

const fr_cli_command fr_cmd_recover = {
    .name = "recover",
    .summary = "the trace of a killed process, from its backing file",
    .run = cmd_recover,
    .head = "usage: flightrec recover BACKING -o TRACE\n"
            "       flightrec recover BACKING --onto STREAMED\n"
            "Writes the trace of a process that died without writing its own (SIGKILL, the\n"
            "OOM killer, _exit) from the backing file it recorded into (the runtime's\n"
            "backing=PATH option; flightrec record uses one by default and recovers by\n"
            "itself). Whole records only: a record the process was writing when it died is\n"
            "cut; what could not be recovered is counted (printed, and in the trace's drop\n"
            "counts as 'unfinished').\n",
    .options = recover_options,
    .column = 23,
    .tail = "Exit status: 0 written, 1 not a usable backing file (truncated, corrupt, not\n"
            "one) or the trace cannot be written, 2 bad usage.\n",
    .bad_option = fr_cli_bad_option_named,
};

/* ---------------------------------------------------------------- report */

/* What was recovered from in_path into out_path, and what was not, on stderr. */
static void report(const char *in_path, const char *out_path, fr_recover_report *r)
{
    int to_stdout = !strcmp(out_path, "-");
    for (char *c = r->exe; *c; c++)   /* a path from the file: no terminal controls */
        if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
            *c = '?';
    fprintf(stderr, "flightrec recover: %s: process %u (%s), %s\n", in_path, r->pid,
            r->exe[0] ? r->exe : "?", state_name(r->state));
    fprintf(stderr, "flightrec recover: %llu records of %u thread%s from %llu buffers (%llu being "
                    "written) -> %s\n", (unsigned long long)r->records, r->threads,
            r->threads == 1 ? "" : "s", (unsigned long long)r->buffers,
            (unsigned long long)r->current_buffers, to_stdout ? "standard output" : out_path);
    if (r->torn || r->lost_records || r->bad_buffers || r->bytes_cut)
        fprintf(stderr, "flightrec recover: not recovered: %llu torn last record%s cut, %llu "
                        "records unreadable, %llu buffer%s skipped, %llu bytes cut\n",
                (unsigned long long)r->torn, r->torn == 1 ? "" : "s",
                (unsigned long long)r->lost_records, (unsigned long long)r->bad_buffers,
                r->bad_buffers == 1 ? "" : "s", (unsigned long long)r->bytes_cut);
    if (r->meta_missing)
        fprintf(stderr, "flightrec recover: the process left no metadata (it died during its "
                        "start-up?): no function names, clock and process from the header\n");
    else if (r->meta_ignored)
        fprintf(stderr, "flightrec recover: %llu bytes of metadata left out (not whole "
                        "records)\n", (unsigned long long)r->meta_ignored);
    if (r->sites_ignored)
        fprintf(stderr, "flightrec recover: %llu bytes of event sites left out (not whole "
                        "FR_TE_EVENT_SITE records): events of a site not described read as "
                        "undecoded\n", (unsigned long long)r->sites_ignored);
}

/* ---------------------------------------------------------------- the command */

int cmd_recover(int argc, char **argv)
{
    struct recover_opts o = {0};
    fr_cli_operands ops;
    int prc = fr_cli_parse(&fr_cmd_recover, argc, argv, &o, &ops);
    if (prc)
        return prc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : prc;
    if (ops.n > 1)
        return fr_cli_usage_error("recover", "one backing file at a time ('%s' and '%s')",
                                  ops.v[0], ops.v[1]);
    if (ops.n < 1)
        return fr_cli_usage_error("recover", "no backing file given");
    const char *in_path = ops.v[0], *out_path = o.out_path, *onto = o.onto;
    if (out_path && onto)
        return fr_cli_usage_error("recover", "-o and --onto: one or the other");
    if (!out_path && !onto)
        return fr_cli_usage_error("recover", "no output given (-o TRACE, or --onto STREAMED)");

    /* -o naming the backing file itself would replace it: refused, as for the traces
     * the other commands read. */
    fr_cli_note_input(in_path);
    if (fr_cli_check_output("recover", onto ? onto : out_path))
        return FR_EXIT_BAD_INPUT;
    fr_recover_report rep;
    char err[512] = "";
    int rc = onto ? fr_recover_onto(in_path, onto, &rep, err, sizeof err)
                  : fr_recover_file(in_path, out_path, &rep, err, sizeof err);
    if (rc != FR_RECOVER_OK)
        return fr_cli_input_error("recover", "%s: %s", in_path, err);
    if (onto)
        out_path = onto;
    if (rep.pid && (kill((pid_t)rep.pid, 0) == 0 || errno == EPERM) && rep.state == FR_BACKING_RECORDING)
        fprintf(stderr, "flightrec recover: warning: process %u is still running (or its pid "
                        "was reused): the trace is a view of a moving target\n", rep.pid);
    if (!o.quiet)
        report(in_path, out_path, &rep);
    return FR_EXIT_OK;
}
