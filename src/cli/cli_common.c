/*
 * cli_common.c - shared by the subcommands that read traces (see cli_common.h).
 *
 * Opening reads the file twice at its start: a first reader goes through the leading
 * metadata block(s) (tid 0, only typed events) so names and the clock are known before
 * the first record is handed out; the second reader then streams the whole file.
 */
#define _GNU_SOURCE
#include "cli_common.h"
#include "text_escape.h"
#include "temp_space.h"
#include "later_meta.h"
#include "regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_EVERY   65536u          /* records between clock checks */
#define PROGRESS_NS      200000000ull    /* at most five updates a second */

/* ------------------------------------------------------------------ messages */

static void vmessage(const char *command, const char *fmt, va_list ap)
{
    /* Messages quote paths and arguments, which may hold terminal controls. */
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (msg)
        vsnprintf(msg, (size_t)n + 1, fmt, again);
    va_end(again);
    fprintf(stderr, "flightrec %s: ", command);
    fr_text_put(stderr, msg ? msg : "(message lost: out of memory)");
    fputc('\n', stderr);
    free(msg);
}

static void message(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void message(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(command, fmt, ap);
    va_end(ap);
}

int fr_cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(command, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'flightrec %s --help'.\n", command);
    return FR_EXIT_USAGE;
}

int fr_cli_input_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(command, fmt, ap);
    va_end(ap);
    return FR_EXIT_BAD_INPUT;
}

/* ------------------------------------------------------------------ outputs */

FILE *fr_cli_open_output(const char *command, const char *path)
{
    if (!path || !strcmp(path, "-"))
        return stdout;
    if (fr_cli_check_output(command, path))
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f)
        fr_cli_input_error(command, "cannot write %s: %s", path, strerror(errno));
    return f;
}

int fr_cli_close_output(const char *command, const char *path, FILE *out)
{
    /* stdio keeps the errno of the write that failed: a write error seen by ferror left
     * it; fflush/fclose set it when they fail themselves. */
    int bad = ferror(out), err = bad ? errno : 0;
    if (out == stdout ? fflush(out) != 0 : fclose(out) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad)
        return fr_cli_input_error(command, "error writing %s%s%s",
                                  path && strcmp(path, "-") ? path : "standard output",
                                  err ? ": " : "", err ? strerror(err) : "");
    return 0;
}

void fr_cli_json_string(FILE *out, const char *s)
{
    putc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t n;
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(out, "\\u%04x", *p);
        } else if (*p < 0x80) {
            putc(*p, out);
        } else if ((n = fr_utf8_length(p)) != 0) {
            fwrite(p, 1, n, out);
            p += n - 1;
        } else {
            fputs("\\ufffd", out);   /* JSON is UTF-8: a byte that is not, as U+FFFD */
        }
    }
    putc('"', out);
}

/* --demangle's mode for the traces this process opens (one command a process). */
static fr_demangle_mode demangle_mode = FR_DEMANGLE_FULL;

int fr_cli_parse_demangle(const char *command, const char *mode)
{
    if (mode && !strcmp(mode, "full"))
        demangle_mode = FR_DEMANGLE_FULL;
    else if (mode && !strcmp(mode, "simple"))
        demangle_mode = FR_DEMANGLE_SIMPLE;
    else if (mode && !strcmp(mode, "no"))
        demangle_mode = FR_DEMANGLE_NO;
    else {
        fr_cli_usage_error(command, "--demangle: expected full, simple or no, found '%s'", mode ? mode : "");
        return -1;
    }
    return 0;
}

int fr_cli_parse_color(const char *command, const char *when, int *mode)
{
    if (!when || !strcmp(when, "auto"))
        *mode = FR_COLOR_AUTO;
    else if (!strcmp(when, "always"))
        *mode = FR_COLOR_ALWAYS;
    else if (!strcmp(when, "never"))
        *mode = FR_COLOR_NEVER;
    else {
        fr_cli_usage_error(command, "--color: expected auto, always or never, found '%s'", when);
        return -1;
    }
    return 0;
}

bool fr_cli_use_color(int mode, FILE *out)
{
    if (mode != FR_COLOR_AUTO)
        return mode == FR_COLOR_ALWAYS;
    const char *term = getenv("TERM"), *no = getenv("NO_COLOR");
    return isatty(fileno(out)) && term && strcmp(term, "dumb") && !(no && *no);
}

int fr_cli_check_color_format(const char *command, int mode, const char *format)
{
    if (mode == FR_COLOR_ALWAYS && strcmp(format, "text"))
        return fr_cli_usage_error(command, "--color=always applies to the text format, not '%s'", format);
    return 0;
}

fr_cli_colors fr_cli_colors_for(bool on)
{
    if (!on)
        return (fr_cli_colors){"", "", "", "", "", "", ""};
    return (fr_cli_colors){"\033[1m", "\033[32m", "\033[34m", "\033[33m", "\033[35m",
                           "\033[2m", "\033[0m"};
}

/* ------------------------------------------------------------------ time */

typedef __int128 i128;

/* round(num / den) for den > 0, halves away from zero */
static i128 div_round(i128 num, i128 den)
{
    return num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
}

static i128 pow10i(int e)
{
    i128 v = 1;
    while (e-- > 0)
        v *= 10;
    return v;
}

int64_t fr_cli_ticks_to_ns(int64_t ticks, uint64_t tps)
{
    if (!tps)
        return ticks;
    return (int64_t)div_round((i128)ticks * 1000000000, (i128)tps);
}

char *fr_cli_format_ticks(char *buf, size_t size, int64_t ticks, uint64_t tps, int unit_exp,
                          int decimals)
{
    if (!tps) {
        snprintf(buf, size, "%lld", (long long)ticks);
        return buf;
    }
    if (decimals < 0)
        decimals = 0;
    if (decimals > 18)
        decimals = 18;
    /* value * 10^decimals, in units of 10^-unit_exp seconds, rounded once */
    i128 scaled = div_round((i128)ticks * pow10i(unit_exp + decimals), (i128)tps);
    bool neg = scaled < 0;
    if (neg)
        scaled = -scaled;
    i128 p = pow10i(decimals);
    unsigned long long whole = (unsigned long long)(scaled / p);
    unsigned long long frac = (unsigned long long)(scaled % p);
    if (decimals)
        snprintf(buf, size, "%s%llu.%0*llu", neg ? "-" : "", whole, decimals, frac);
    else
        snprintf(buf, size, "%s%llu", neg ? "-" : "", whole);
    return buf;
}

int fr_cli_parse_duration(const char *s, uint64_t tps, int64_t *ticks)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    i128 mant = 0;
    int decimals = 0, digits = 0;
    bool dot = false;
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++) {
        if (*p == '.') {
            dot = true;
            continue;
        }
        if (digits >= 30)
            return -1;
        mant = mant * 10 + (*p - '0');
        digits++;
        if (dot)
            decimals++;
    }
    if (!digits)
        return -1;
    int unit_exp; /* the value is in 10^-unit_exp seconds */
    if (!*p || !strcmp(p, "us"))
        unit_exp = 6;
    else if (!strcmp(p, "ns"))
        unit_exp = 9;
    else if (!strcmp(p, "ms"))
        unit_exp = 3;
    else if (!strcmp(p, "s"))
        unit_exp = 0;
    else
        return -1;
    if (!tps)
        tps = 1000000000; /* unknown frequency: treat ticks as nanoseconds */
    i128 v = div_round(mant * (i128)tps, pow10i(unit_exp + decimals));
    if (v > INT64_MAX)
        return -1;
    *ticks = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* ------------------------------------------------------------------ opening */

static bool is_metadata_block_record(const fr_record *r)
{
    return r->tid == 0 && (r->kind == FR_REC_BLOCK || r->kind == FR_REC_TYPED ||
                           r->kind == FR_REC_CUSTOM);
}

/* Every trace file this run opened (device and inode): -o must not name one of them, or
 * opening the output would truncate a trace that is being read or is still to be read. */
static struct fr_cli_input_id { dev_t dev; ino_t ino; } *inputs;
static size_t n_inputs, cap_inputs;

void fr_cli_note_input(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    for (size_t i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
            return;
    if (n_inputs == cap_inputs) {
        size_t cap = cap_inputs ? 2 * cap_inputs : 8;
        struct fr_cli_input_id *p = realloc(inputs, cap * sizeof *p);
        if (!p)
            return;
        inputs = p;
        cap_inputs = cap;
    }
    inputs[n_inputs++] = (struct fr_cli_input_id){st.st_dev, st.st_ino};
}

int fr_cli_check_distinct(const char *command, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) {
            struct stat a, b;
            if (!strcmp(paths[i], paths[j]) ||
                (stat(paths[i], &a) == 0 && stat(paths[j], &b) == 0 && a.st_dev == b.st_dev &&
                 a.st_ino == b.st_ino))
                return fr_cli_usage_error(command, "'%s' is given twice", paths[i]);
        }
    return FR_EXIT_OK;
}

int fr_cli_check_output(const char *command, const char *path)
{
    struct stat st;
    if (!path || !strcmp(path, "-") || stat(path, &st) != 0)
        return FR_EXIT_OK;
    for (size_t i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
            return fr_cli_input_error(command, "cannot write %s: it is the trace being read "
                                      "(-o would truncate it)", path);
    return FR_EXIT_OK;
}

static fr_reader *open_reader(fr_cli_trace *t, char *err, size_t errlen)
{
    if (t->spool)
        return fr_reader_open_memory(t->spool, t->spool_size, t->path, err, errlen);
    return fr_reader_open(t->path, err, errlen);
}

/* What '-' copies of standard input before it reads the copy: the first bytes are read as
 * a trace as soon as they have arrived, so that a stream that is no trace (/dev/zero,
 * with or without a valid file header) is refused there, not copied for ever. */
#define SPOOL_CHECK_BYTES (1u << 20)
/* The copy leaves its file system the reserve of temp_space.h, so that a stream that
 * never ends stops with a message instead of filling the disk (or, on a tmpfs, memory).
 * Free space is looked at again every 64 MiB. */
#define SPOOL_RECHECK     (64ull << 20)

/* 0 when the first len bytes of standard input read as the start of a trace (a cut at
 * len is fine), else FR_EXIT_BAD_INPUT after the reader's message. */
static int spool_check_prefix(const char *command, const void *bytes, size_t len)
{
    char err[768];
    fr_reader *r = fr_reader_open_memory(bytes, len, "<stdin>", err, sizeof err);
    if (!r)
        return fr_cli_input_error(command, "%s", err);
    fr_record rec;
    fr_read_status s;
    while ((s = fr_reader_next(r, &rec)) == FR_READ_OK)
        ;
    int rc = s == FR_READ_ERROR ? fr_cli_input_error(command, "%s", fr_reader_error(r)) : 0;
    fr_reader_close(r);
    return rc;
}

/* Standard input ("-") copied to an unlinked temporary file and mapped: the trace is
 * read twice (metadata ahead, then all), and a pipe can be read only once. The copy is
 * in $TMPDIR (or /tmp), so memory does not grow with the trace. The copy is bounded:
 * its first MiB must read as a trace (SPOOL_CHECK_BYTES), it leaves its file system a
 * reserve (fr_temp_room), and a copy larger than ulimit -f is an error, not a SIGXFSZ. */
static int spool_copy(fr_cli_trace *t, int fd, const char *dir, uint64_t *copied)
{
    static char buf[1 << 16];
    static uint8_t head[SPOOL_CHECK_BYTES];
    uint64_t total = 0, reserve, room = fr_temp_room(fd, &reserve), next_check = SPOOL_RECHECK;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fr_cli_input_error(t->command, "reading standard input: %s", strerror(errno));
        if (n == 0)
            break;
        if (total < sizeof head) {
            size_t k = sizeof head - (size_t)total;
            k = k < (size_t)n ? k : (size_t)n;
            memcpy(head + total, buf, k);
            /* The file header alone is checked at once, the first MiB when it is in. */
            if ((total < FR_XRAY_HEADER_SIZE && total + k >= FR_XRAY_HEADER_SIZE &&
                 spool_check_prefix(t->command, head, FR_XRAY_HEADER_SIZE)) ||
                (total + k == sizeof head && spool_check_prefix(t->command, head, sizeof head)))
                return FR_EXIT_BAD_INPUT;
        }
        if (total >= next_check) {
            room = total + fr_temp_room(fd, &reserve);
            next_check = total + SPOOL_RECHECK;
        }
        if (room != UINT64_MAX && total + (uint64_t)n > room)
            return fr_cli_input_error(t->command, "standard input: stopped after copying %" PRIu64
                                      " MiB to %s: more would leave less than %" PRIu64 " MiB "
                                      "free there (a trace on standard input is copied there "
                                      "first); give the trace as a file, or set TMPDIR",
                                      total >> 20, dir, reserve >> 20);
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0 && errno == EFBIG)
                return fr_cli_input_error(t->command, "standard input: stopped after copying "
                                          "%" PRIu64 " bytes to %s: its copy may not be larger "
                                          "(ulimit -f); give the trace as a file",
                                          total + (uint64_t)off, dir);
            if (w <= 0)
                return fr_cli_input_error(t->command, "copying standard input to %s: %s", dir,
                                          w < 0 ? strerror(errno) : "short write");
            off += w;
        }
        total += (uint64_t)n;
    }
    *copied = total;
    return FR_EXIT_OK;
}

static int spool_stdin(fr_cli_trace *t)
{
    if (isatty(STDIN_FILENO))
        return fr_cli_usage_error(t->command, "'-' reads a trace from standard input, "
                                  "which is a terminal here");
    /* Closed, it would be the temporary file below (descriptor 0), read as an empty input. */
    if (fcntl(STDIN_FILENO, F_GETFD) < 0)
        return fr_cli_input_error(t->command, "'-' reads a trace from standard input, "
                                  "which is closed");
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        char tmpl[4096];
        snprintf(tmpl, sizeof tmpl, "%s/flightrec-stdin-XXXXXX", dir);
        fd = mkostemp(tmpl, O_CLOEXEC);
        if (fd >= 0)
            unlink(tmpl);
    }
    if (fd < 0)
        return fr_cli_input_error(t->command, "cannot create a temporary file in %s for "
                                  "standard input: %s", dir, strerror(errno));
    /* Past ulimit -f a write fails with EFBIG (said so) instead of killing us. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &old);
    uint64_t total = 0;
    int rc = spool_copy(t, fd, dir, &total);
    sigaction(SIGXFSZ, &old, NULL);
    if (rc) {
        close(fd);
        return rc;
    }
    static const char empty[1];
    if (total == 0) {
        t->spool = (void *)empty;
    } else {
        void *p = mmap(NULL, total, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            close(fd);
            return fr_cli_input_error(t->command, "mapping standard input's copy: %s",
                                      strerror(errno));
        }
        t->spool = p;
    }
    t->spool_size = total;
    close(fd);
    return FR_EXIT_OK;
}

/* The smallest timestamp of the records from r's position on (and of first). */
static uint64_t earliest_tsc(fr_reader *r, uint64_t first)
{
    uint64_t min = first;
    fr_function_record fns[1024];
    fr_record rec;
    for (;;) {
        int32_t tid;
        size_t n = fr_reader_next_functions(r, fns, 1024, &tid);
        for (size_t i = 0; i < n; i++)
            min = fns[i].tsc < min ? fns[i].tsc : min;
        if (n)
            continue;
        if (fr_reader_next(r, &rec) != FR_READ_OK)
            return min;
        min = rec.tsc < min ? rec.tsc : min;
    }
}

/* Feeds t->meta the metadata blocks after offset from (later_meta.h). */
static void feed_later_metadata(fr_cli_trace *t, uint64_t from)
{
    if (t->spool) {
        fr_trace_meta_feed_later_blocks(&t->meta, t->spool, -1, t->spool_size, from);
        return;
    }
    char err[512];
    int fd = fr_open_regular(t->path, FR_OPEN_NOFOLLOW, err, sizeof err);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size > 0)
        fr_trace_meta_feed_later_blocks(&t->meta, NULL, fd, (uint64_t)st.st_size, from);
    close(fd);
}

/* Reads the leading metadata blocks; returns the offset where they end. Notes the
 * first thread block's TSC. */
static uint64_t prescan_metadata(fr_cli_trace *t, bool find_origin)
{
    char err[512];
    fr_reader *r = open_reader(t, err, sizeof err);
    if (!r)
        return 0;
    fr_record rec;
    uint64_t end = 0;
    fr_read_status s;
    while ((s = fr_reader_next(r, &rec)) == FR_READ_OK && is_metadata_block_record(&rec)) {
        fr_trace_meta_feed(&t->meta, &rec);
        end = fr_reader_position(r);
    }
    if (s == FR_READ_OK && rec.kind == FR_REC_BLOCK) {
        /* The first thread block: its start is the time origin unless a clock says else. */
        t->start_tsc = rec.tsc;
        t->has_start = true;
        /* Without our clock event (compiler-rt's files), the first block in the file is
         * not always the earliest (a thread that started first may flush its buffer
         * last): then the origin is the earliest timestamp in the file, found by a first
         * pass, so that no time is negative. */
        if (!t->meta.has_clock && find_origin)
            t->start_tsc = earliest_tsc(r, rec.tsc);
    }
    fr_reader_close(r);
    /* A file without a summary up front is streamed (or a snapshot of a streamed
     * session): what became known after its start, gcc-instrumented functions' names
     * among it, is in metadata blocks further on. */
    if (t->meta.has_clock && !t->meta.has_summary)
        feed_later_metadata(t, end);
    fr_trace_meta_finish(&t->meta);
    return end;
}

static int open_trace(fr_cli_trace *t, const char *command, const char *path, const char *binary,
                      bool find_origin)
{
    memset(t, 0, sizeof *t);
    t->command = command;
    t->path = path;
    fr_trace_meta_init(&t->meta);

    char err[768];
    if (!strcmp(path, "-")) {
        int rc = spool_stdin(t);
        if (rc)
            return rc;
        t->path = "<stdin>";
    }
    t->reader = open_reader(t, err, sizeof err);
    if (!t->reader) {
        fr_cli_close(t);
        return fr_cli_input_error(command, "%s", err);
    }
    if (!t->spool)
        fr_cli_note_input(t->path);
    t->info = fr_reader_info(t->reader);
    /* An empty file has no metadata block to read. */
    if (t->info->file_size > 0)
        t->meta_end = prescan_metadata(t, find_origin);

    t->symbols = fr_symbols_new();
    if (!t->symbols) {
        fr_cli_close(t);
        return fr_cli_input_error(command, "out of memory");
    }
    fr_symbols_set_demangle(t->symbols, demangle_mode);
    fr_symbols_add_trace_meta(t->symbols, &t->meta);
    if (binary) {
        if (fr_symbols_load_binary(t->symbols, binary, err, sizeof err) != 0) {
            fr_cli_close(t);
            return fr_cli_input_error(command, "%s", err);
        }
        /* Another program's symbols would name every function wrongly, silently. */
        if (fr_symbols_check_binary(t->symbols, err, sizeof err) != 0) {
            fr_cli_input_error(command, "--binary %s is not the traced program%s%s: %s",
                               binary, t->meta.executable ? ", " : "",
                               t->meta.executable ? t->meta.executable : "", err);
            fr_cli_close(t);
            return FR_EXIT_BAD_INPUT;
        }
        fr_symbols_prefer_binary(t->symbols);
        t->binary = binary;
    } else if (t->meta.executable && t->meta.executable[0] &&
               access(t->meta.executable, R_OK) == 0 &&
               fr_symbols_load_binary(t->symbols, t->meta.executable, err, sizeof err) == 0 &&
               fr_symbols_check_binary(t->symbols, err, sizeof err) != 0) {
        /* The recorded executable was rebuilt or replaced since: the trace's own names
         * stand, its symbols (file:line) would be another program's. */
        message(command, "warning: %s changed since it was recorded (%s): its symbols are "
                         "not used", t->meta.executable, err);
        fr_symbols_drop_binary(t->symbols);
    }

    t->ticks_per_second = t->meta.has_clock && t->meta.ticks_per_second
                              ? t->meta.ticks_per_second : t->info->ticks_per_second;
    if (t->meta.has_clock) {
        t->start_tsc = t->meta.base_tsc;
        t->has_start = true;
    }
    t->progress = isatty(STDERR_FILENO) && t->info->file_size > 0;
    return FR_EXIT_OK;
}

int fr_cli_open(fr_cli_trace *t, const char *command, const char *path, const char *binary)
{
    return open_trace(t, command, path, binary, true);
}

int fr_cli_open_durations(fr_cli_trace *t, const char *command, const char *path,
                          const char *binary)
{
    return open_trace(t, command, path, binary, false);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void show_progress(fr_cli_trace *t)
{
    uint64_t now = now_ns();
    if (!t->progress_next_ns) {
        /* Short runs print nothing: the first update comes after a while. */
        t->progress_next_ns = now + PROGRESS_NS;
        return;
    }
    if (now < t->progress_next_ns)
        return;
    t->progress_next_ns = now + PROGRESS_NS;
    uint64_t pos = fr_reader_position(t->reader), size = t->info->file_size;
    fprintf(stderr, "\rflightrec %s: reading %s: %3u%% (%.1f of %.1f MB)\033[K", t->command,
            t->path, (unsigned)(size ? pos * 100 / size : 0), pos / 1e6, size / 1e6);
    t->progress_tick = 1;
}

int fr_cli_next(fr_cli_trace *t, fr_record *rec)
{
    for (;;) {
        fr_read_status s = fr_reader_next(t->reader, rec);
        if (s == FR_READ_ERROR) {
            if (!t->failed) {
                if (t->progress_tick)
                    fputs("\r\033[K", stderr);
                t->progress_tick = 0;
                fr_cli_input_error(t->command, "%s", fr_reader_error(t->reader));
            }
            t->failed = true;
            return s;
        }
        if (s != FR_READ_OK) {
            uint64_t at;
            const char *cut = fr_reader_truncation(t->reader, &at);
            if (cut && !t->truncated) {
                /* A cut trace is what a flight recorder leaves after a crash or a full
                 * disk: what it holds is shown, and the exit status stays 0. */
                if (t->progress_tick)
                    fputs("\r\033[K", stderr);
                t->progress_tick = 0;
                message(t->command, "warning: %s; every whole record before offset %" PRIu64
                                    " was read (the trace was cut short)", cut, at);
                t->truncated = true;
                t->truncated_at = at;
            }
            return s;
        }
        if (t->progress && !(t->records % PROGRESS_EVERY))
            show_progress(t);
        if (!t->has_start && rec->kind == FR_REC_BLOCK && rec->tid != 0) {
            t->start_tsc = rec->tsc;
            t->has_start = true;
        }
        if (rec->kind == FR_REC_TYPED && rec->event_type >= FR_TE_FIRST &&
            rec->event_type <= FR_TE_LAST && rec->event_type != FR_TE_EVENT &&
            rec->event_type != FR_TE_EVENT_RUN) {
            if (rec->offset >= t->meta_end)
                fr_trace_meta_feed(&t->meta, rec);
            if (!t->return_meta)
                continue;
        }
        if (t->only_tids.n && rec->tid != 0) {
            if (!fr_cli_tid_selected(t, rec->tid))
                continue;   /* --tid: another thread's record (the metadata block's are kept) */
            t->tid_records++;
        }
        t->records++;
        return s;
    }
}

bool fr_cli_tids_has(const fr_cli_tids *tids, int32_t tid)
{
    if (!tids->n)
        return true;
    for (size_t i = 0; i < tids->n; i++)
        if (tids->ids[i] == tid)
            return true;
    return false;
}

bool fr_cli_tid_selected(const fr_cli_trace *t, int32_t tid)
{
    return fr_cli_tids_has(&t->only_tids, tid);
}

/* The progress line, when a batch of n records read passes one of its marks. */
static void batch_progress(fr_cli_trace *t, size_t n)
{
    if (t->progress && n && (t->records + n) / PROGRESS_EVERY != t->records / PROGRESS_EVERY)
        show_progress(t);
}

size_t fr_cli_next_functions(fr_cli_trace *t, fr_function_record *out, size_t max, int32_t *tid)
{
    /* No block, metadata or typed records here: only the count and the progress line. */
    for (;;) {
        size_t n = fr_reader_next_functions(t->reader, out, max, tid);
        batch_progress(t, n);
        if (n && t->only_tids.n) {
            if (!fr_cli_tid_selected(t, *tid))
                continue;   /* --tid: another thread's batch */
            t->tid_records += n;
        }
        t->records += n;
        return n;
    }
}

size_t fr_cli_function_bytes(fr_cli_trace *t, const uint8_t **at, int32_t *tid, uint64_t *tsc)
{
    return t->only_tids.n ? 0 : fr_reader_function_bytes(t->reader, at, tid, tsc);
}

void fr_cli_take_functions(fr_cli_trace *t, size_t n, uint64_t tsc)
{
    fr_reader_take_functions(t->reader, n, tsc);
    batch_progress(t, n);
    t->records += n;
}

int fr_cli_tids_matched(const char *command, const fr_cli_tids *tids, uint64_t matched)
{
    if (!tids->n || matched)
        return 0;
    char list[FR_CLI_TIDS_LIST_MAX];
    fr_cli_tids_list(tids, list);
    return fr_cli_input_error(command, "warning: no record matched --tid %s", list);
}

void fr_cli_tids_list(const fr_cli_tids *tids, char buf[FR_CLI_TIDS_LIST_MAX])
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < tids->n; i++)   /* each at most 11 bytes: fits */
        len += (size_t)snprintf(buf + len, FR_CLI_TIDS_LIST_MAX - len, "%s%d", i ? "," : "",
                                (int)tids->ids[i]);
}

int fr_cli_parse_tids(const char *command, const char *arg, fr_cli_tids *tids)
{
    const char *p = arg;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > INT32_MAX || (*end && *end != ','))
            return fr_cli_usage_error(command, "--tid '%s': expected thread ids (1234 or 12,34)", arg);
        if (tids->n == FR_CLI_MAX_TIDS)
            return fr_cli_usage_error(command, "--tid: at most %d threads", FR_CLI_MAX_TIDS);
        tids->ids[tids->n++] = (int32_t)v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

const char *fr_cli_name(fr_cli_trace *t, uint32_t function_id)
{
    return fr_symbols_name(t->symbols, function_id);
}

int fr_cli_close(fr_cli_trace *t)
{
    if (t->progress_tick)
        fputs("\r\033[K", stderr);
    int rc = t->failed ? FR_EXIT_BAD_INPUT : FR_EXIT_OK;
    uint32_t first, map_size, unmapped;
    if (t->binary && t->symbols &&
        (unmapped = fr_symbols_unmapped(t->symbols, &first, &map_size)) != 0)
        rc = fr_cli_input_error(t->command, "warning: %u function id%s of %s (the first: %u) "
                                "%s not in the instrumentation map of --binary %s (ids 1 to "
                                "%u): is it the traced program?", unmapped,
                                unmapped == 1 ? "" : "s", t->path, first,
                                unmapped == 1 ? "is" : "are", t->binary, map_size);
    fr_reader_close(t->reader);
    fr_symbols_free(t->symbols);
    fr_trace_meta_free(&t->meta);
    if (t->spool && t->spool_size)
        munmap(t->spool, t->spool_size);
    memset(t, 0, sizeof *t);
    return rc;
}

void fr_cli_losses_add(fr_cli_losses *l, const fr_cli_trace *t)
{
    const fr_trace_meta *m = &t->meta;
    if (t->only_tids.n) {
        l->of_selected = true;
        for (size_t i = 0; i < m->n_thread_stats; i++)
            for (size_t k = 0; k < t->only_tids.n; k++)
                if (m->thread_stats[i].tid == t->only_tids.ids[k])
                    l->records += m->thread_stats[i].records_dropped;
        return;
    }
    if (m->has_summary) {
        l->records += m->records_dropped;
    } else {
        for (size_t i = 0; i < m->n_thread_stats; i++)
            l->records += m->thread_stats[i].records_dropped;
    }
    if (m->has_drops)
        for (unsigned k = 0; k < FR_DROP_NCAUSES; k++)
            l->by_cause[k] += m->drops[k];
}

void fr_cli_losses_note(const fr_cli_losses *l, const char *command)
{
    if (!l->records)
        return;
    char causes[512] = "";
    size_t len = 0;
    for (unsigned k = 0; k < FR_DROP_NCAUSES && !l->of_selected; k++)
        if (l->by_cause[k] && len < sizeof causes)
            len += (size_t)snprintf(causes + len, sizeof causes - len, "%s%s: %" PRIu64,
                                    len ? ", " : " (", fr_drop_cause_name(k).text, l->by_cause[k]);
    if (len && len < sizeof causes - 1)
        strcat(causes, ")");
    fprintf(stderr, "flightrec %s: note: the trace lost %" PRIu64 " records%s before it was "
            "written%s; these figures cover what it kept\n", command, l->records,
            l->of_selected ? " of the selected threads" : "", causes);
}
