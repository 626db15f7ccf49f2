/*
 * cmd_record.c - `flightrec record [options] -- PROGRAM [ARGS...]`: run an instrumented
 * program with tracing on, and say where its trace went.
 *
 * The program is checked first (program_facts.h): it must carry function instrumentation
 * (an xray_instr_map section, or calls to __cyg_profile_func_enter); otherwise nothing
 * would be recorded and we say why instead of running it. A program that links
 * libflightrec runs as it is; one that does not (clang -fxray-instrument
 * -fnoxray-link-deps, gcc -finstrument-functions against nothing, clang's default
 * compiler-rt XRay runtime) runs with our libflightrec.so.0 in LD_PRELOAD: its sleds
 * and hooks are patched and served by our runtime (compiler-rt's, if present, stays
 * unused). A statically linked program without libflightrec cannot be preloaded: we say
 * so. All options are validated with the runtime's own parser before the program runs.
 * The options reach the runtime through FLIGHTREC_OPTIONS (start=1 output=... patch=...),
 * appended after the caller's own FLIGHTREC_OPTIONS so ours win.
 *
 * One trace per process: with an output name without %p, every process writes
 * OUTPUT.PID (children inherit the options, exec'd or forked) and the recorded
 * process's file is renamed to OUTPUT at the end; the others are listed.
 * The program runs as our child (fork + exec); its exit status is ours (128+N when
 * killed by signal N).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <time.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sched_perf.h"
#include "backing_recover.h"
#include "commands.h"
#include "core/options.h"
#include "core/pool_budget.h"
#include "program_facts.h"
#include "cli_options.h"

#ifndef FLIGHTREC_BUILD_LIBDIR
#define FLIGHTREC_BUILD_LIBDIR ""
#endif
#ifndef FLIGHTREC_INSTALL_LIBDIR_REL
#define FLIGHTREC_INSTALL_LIBDIR_REL "lib"
#endif

/* ---------------------------------------------------------------- options */

/* Option values travel in a space/comma-separated list: they may not contain either. */
/* A value the runtime's option syntax can carry: not empty, and with spaces or commas
 * only when one kind of quote is free to quote it with (append_option). */
static int plain_value(const char *s)
{
    return s && *s && (!strpbrk(s, " ,\t\n") || !strchr(s, '"') || !strchr(s, '\''));
}

/* Appends " key=value" to *buf, the value quoted when it has spaces or commas (a path
 * under a directory named "My Traces": options.c takes "..." and '...' values). */
static int append_option(char **buf, const char *key, const char *value)
{
    char *next;
    const char *q = !strpbrk(value, " ,\t\n") ? "" : strchr(value, '"') ? "'" : "\"";
    if (asprintf(&next, "%s%s%s=%s%s%s", *buf ? *buf : "", *buf && **buf ? " " : "", key, q,
                 value, q) < 0)
        return -1;
    free(*buf);
    *buf = next;
    return 0;
}

/* The library directory that belongs to this flightrec: the build tree's when we run from
 * it, else <our dir>/../<libdir> (an installed flightrec must not point its program at a
 * build tree that may be stale or gone). */
static char *own_library_dir(void)
{
    char exe[PATH_MAX], build[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    if (FLIGHTREC_BUILD_LIBDIR[0] && realpath(FLIGHTREC_BUILD_LIBDIR, build) && !strcmp(build, exe))
        return strdup(exe);
    char *dir;
    return asprintf(&dir, "%s/../%s", exe, FLIGHTREC_INSTALL_LIBDIR_REL) < 0 ? NULL : dir;
}

/* DIR/name in our own library directory, if it exists there; malloc'ed. */
static char *own_library_file(const char *name)
{
    char *dir = own_library_dir(), *path = NULL, real[PATH_MAX];
    if (dir && asprintf(&path, "%s/%s", dir, name) >= 0 && realpath(path, real)) {
        free(path);
        path = strdup(real);
    } else {
        free(path);
        path = NULL;
    }
    free(dir);
    return path;
}

/* s as one shell word: as it is when it has only characters no shell treats
 * specially, else in single quotes (a quote inside as '\''). */
static void put_shell_word(FILE *out, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        "_./+,:@%-") == strlen(s)) {
        fputs(s, out);
        return;
    }
    putc('\'', out);
    for (; *s; s++)
        fputs(*s == '\'' ? "'\\''" : (char[2]){*s, 0}, out);
    putc('\'', out);
}

/* The traces of the other processes (children that run instrumented code): TRACE.PID
 * files written since the run started. Says how many and names the first few. */
static void report_other_processes(const char *trace, time_t started)
{
    char *copy = strdup(trace);
    if (!copy)
        return;
    char *slash = strrchr(copy, '/');
    const char *dir = slash ? (slash == copy ? "/" : copy) : ".";
    const char *base = slash ? slash + 1 : copy;
    if (slash)
        *slash = 0;
    size_t blen = strlen(base);
    DIR *d = opendir(dir);
    if (!d) {
        free(copy);
        return;
    }
    unsigned n = 0;
    char shown[512] = "";
    size_t used = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name;
        if (strncmp(name, base, blen) || name[blen] != '.' || !name[blen + 1] ||
            strspn(name + blen + 1, "0123456789") != strlen(name + blen + 1))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
            st.st_mtime < started - 1)
            continue;
        if (n < 4 && used + strlen(name) + 3 < sizeof shown)
            used += (size_t)snprintf(shown + used, sizeof shown - used, "%s%s", n ? ", " : "",
                                     name);
        n++;
    }
    closedir(d);
    if (n)
        fprintf(stderr, "flightrec record: %u other process%s wrote %s own trace%s: %s%s "
                        "(in %s)\n", n, n == 1 ? "" : "es", n == 1 ? "its" : "their",
                n == 1 ? "" : "s", shown, n > 4 ? ", ..." : "", dir);
    /* the command that puts them on one timeline (convert takes 256 files at most) */
    if (n && n < 256) {
        fputs("flightrec record: all on one timeline: flightrec convert ", stderr);
        put_shell_word(stderr, trace);
        putc(' ', stderr);
        put_shell_word(stderr, trace);
        fputs(".[0-9]* --format perfetto -o ", stderr);
        put_shell_word(stderr, trace);
        fputs(".pftrace\n", stderr);
    }
    free(copy);
}

static void add_library_path(void)
{
    char *own = own_library_dir();
    const char *dirs[] = {own ? own : ""};
    const char *old = getenv("LD_LIBRARY_PATH");
    char *value = old && *old ? strdup(old) : strdup("");
    for (size_t i = 0; value && i < sizeof dirs / sizeof dirs[0]; i++) {
        struct stat st;
        if (!dirs[i][0] || stat(dirs[i], &st) || !S_ISDIR(st.st_mode))
            continue;
        char *next;
        if (asprintf(&next, "%s%s%s", value, *value ? ":" : "", dirs[i]) < 0)
            break;
        free(value);
        value = next;
    }
    if (value && *value)
        setenv("LD_LIBRARY_PATH", value, 1);
    free(value);
    free(own);
}

/* OUTPUT with %p replaced by PID (and %% by %), as the runtime does. */
static char *expand_output(const char *output, pid_t pid)
{
    size_t cap = strlen(output) + 64, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = output; *p; p++) {
        if (n + 24 >= cap && !(out = realloc(out, cap *= 2)))
            return NULL;
        if (p[0] == '%' && p[1] == 'p') {
            n += (size_t)sprintf(out + n, "%d", (int)pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            out[n++] = '%';
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = 0;
    return out;
}

/* A record option's value, checked by the runtime's own parser (core/options.c) so that
 * what it would refuse at start-up is refused here, before the program runs. */
struct record_option {
    const char *flag, *key, *hint;
    const char *value;
};

static int check_option(const struct record_option *o)
{
    struct fr_options opts;
    fr_options_defaults(&opts);
    char *pair;
    if (!plain_value(o->value)) {
        fprintf(stderr, "flightrec record: %s: the value may not be empty, nor hold both kinds "
                        "of quote with a space or a comma\n", o->flag);
        return -1;
    }
    pair = NULL;
    if (append_option(&pair, o->key, o->value) < 0)
        return -1;
    int bad = fr_options_parse(&opts, pair, NULL) != 0;
    free(pair);
    if (bad)
        fprintf(stderr, "flightrec record: %s: '%s' is not valid (%s)\n", o->flag, o->value,
                o->hint);
    return bad ? -1 : 0;
}

/* The directory of path must exist and be writable: else the trace would be lost at the
 * end of the run, after the program did its work. */
/* The longest name the runtime makes from OUTPUT's last component: "%p" as the largest
 * pid (7 digits), ".PID" added without a %p, and its temporary file "." NAME ".XXXXXXXX.tmp"
 * (log_writer.c). */
static size_t longest_file_name(const char *base)
{
    size_t n = 0;
    bool has_pid = false;
    for (const char *p = base; *p; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            n += 7;
            has_pid = true;
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            n += 1;
            p++;
        } else {
            n += 1;
        }
    }
    return n + (has_pid ? 0 : 8) + 14;
}

/* The directory part of a path, in `copy` (a strdup of it, cut at its last '/'): "/" for
 * a file at the root, "." for a bare name. */
static const char *directory_of(char *copy)
{
    char *slash = strrchr(copy, '/');
    return slash ? (slash == copy ? "/" : (*slash = 0, copy)) : ".";
}

static int check_output_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    const char *dir = directory_of(copy);
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    int ok = access(dir, W_OK | X_OK) == 0;
    if (!ok)
        fprintf(stderr, "flightrec record: cannot write the trace into %s: %s\n", dir,
                strerror(errno));
    long name_max = ok ? pathconf(dir, _PC_NAME_MAX) : -1;
    size_t longest = longest_file_name(base);
    if (ok && name_max > 0 && longest > (size_t)name_max) {
        fprintf(stderr, "flightrec record: -o %s: the file name is too long for %s (up to %zu "
                        "bytes with the process id and the temporary file's suffix; at most "
                        "%ld)\n", base, dir, longest, name_max);
        ok = 0;
    }
    free(copy);
    return ok ? 0 : -1;
}

/* The directory of a backing=PATH given in FLIGHTREC_OPTIONS exists and can be written. */
static int check_backing_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    const char *dir = directory_of(copy);
    int ok = access(dir, W_OK | X_OK) == 0;
    if (!ok)
        fprintf(stderr, "flightrec record: FLIGHTREC_OPTIONS backing=%s: cannot make the backing "
                        "file in %s: %s\n", path, dir, strerror(errno));
    free(copy);
    return ok ? 0 : -1;
}

/* The runtime refuses a pool larger than the process may have (pool_budget.c) and the
 * program then runs untraced: the same check here, before it runs. */
static int check_pool_fits(const struct fr_options *o)
{
    struct fr_pool_layout l;
    uint64_t room = 0;
    const char *limit = "the address space";
    if (fr_pool_layout_of(o, &l) == 0 && fr_pool_budget(l.total, &room, &limit) == 0)
        return 0;
    fprintf(stderr, "flightrec record: a buffer pool of %u buffers of %zu bytes (%llu MiB with "
                    "its descriptors) does not fit: %s leaves %llu MiB; use fewer buffers "
                    "(--buffers) or smaller ones (--buffer-size)\n", (unsigned)o->buffers,
            o->buffer_size, (unsigned long long)(l.total >> 20), limit,
            (unsigned long long)(room >> 20));
    return -1;
}

/* ---------------------------------------------------------------- special outputs */

/* Writes the file `from` into the existing non-regular OUTPUT in place (no O_CREAT, no
 * O_TRUNC: the device or FIFO stays what it is) and removes `from`. Bytes written, or -1
 * with a message. */
static long long copy_into_special(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    int out = in < 0 ? -1 : open(to, O_WRONLY | O_CLOEXEC);
    long long total = 0;
    char buf[65536];
    ssize_t n = 0;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                n = -1;
                break;
            }
            off += w;
            total += w;
        }
        if (n < 0)
            break;
    }
    int err = errno;
    bool ok = in >= 0 && out >= 0 && n == 0;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        fprintf(stderr, "flightrec record: cannot write the trace into %s: %s (it stays in %s)\n",
                to, strerror(err), from);
        return -1;
    }
    unlink(from);
    return total;
}

/* ---------------------------------------------------------------- backing files */

/* A private directory (0700) flightrec-record-XXXXXX in the first of /dev/shm (when
 * `shm`), $TMPDIR, /tmp with room for `need` bytes. NULL if none could be made. */
static char *private_dir(bool shm, unsigned long long need)
{
    const char *tmpdir = getenv("TMPDIR");
    const char *cands[] = {shm ? "/dev/shm" : NULL, tmpdir && *tmpdir ? tmpdir : NULL, "/tmp"};
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        char *dir;
        struct statvfs vfs;
        if (!cands[i] || !plain_value(cands[i]) ||   /* it travels in FLIGHTREC_OPTIONS */
            (need && (statvfs(cands[i], &vfs) != 0 ||
                      (unsigned long long)vfs.f_bavail * vfs.f_frsize < need)) ||
            asprintf(&dir, "%s/flightrec-record-XXXXXX", cands[i]) < 0)
            continue;
        if (mkdtemp(dir))
            return dir;
        free(dir);
    }
    return NULL;
}

/* The pid in a backing file's name "PID.bk" or "PID.bk.N" (an exec'd image of the same
 * pid); 0 if the name is not one. */
static pid_t backing_pid(const char *name)
{
    char *end;
    long pid = strtol(name, &end, 10);
    if (pid <= 0 || end == name || strncmp(end, ".bk", 3) || (end[3] && (end[3] != '.' || !end[4])))
        return 0;
    return (pid_t)pid;
}

/* True when PATH was modified after START (less the 10 ms a file system's coarse clock
 * may lag). With a %p in -o, the runtime writes the trace under its final name: a file of
 * that name from before the run is not this run's trace. (Without %p, the trace is this
 * run's only when OUTPUT.PID was renamed to it.) */
static bool written_since(const char *path, const struct timespec *start, struct stat *st)
{
    if (stat(path, st) != 0)
        return false;
    long long m = (long long)st->st_mtim.tv_sec * 1000000000ll + st->st_mtim.tv_nsec;
    long long s = (long long)start->tv_sec * 1000000000ll + start->tv_nsec;
    return m >= s - 10000000ll;
}

/* A process that left its backing file wrote no trace (the file goes when the trace is
 * written): its trace is recovered to where the process would have written it (TRACE
 * for the recorded process after the rename below, PATTERN with its pid for others; a
 * name taken already gets ".recovered"); an image that an exec replaced, beside it
 * (OWN_TRACE, the recorded process's final name, when it is renamed). Recovered files
 * are removed, then the directory. */
static bool recover_leftovers(const char *dir, const char *pattern, time_t started, pid_t own,
                              const char *own_trace)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    int kept = 0;
    bool own_failed = false;   /* the recorded process's trace could not be recovered */
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char *bk = NULL, *target = NULL;
        pid_t pid = backing_pid(e->d_name);
        if (!pid || asprintf(&bk, "%s/%s", dir, e->d_name) < 0 ||
            !(target = expand_output(pattern, pid))) {
            free(bk);
            kept++;
            continue;
        }
        /* An image of this pid before an exec: the process went on (the exec'd image has
         * the next name, PID.bk.N+1, or wrote its trace already). The image wrote no
         * trace (an exec ends it without a flush): its history is recovered to a file of
         * its own, TARGET.before-exec (PID.bk.N: TARGET.before-exec.N). */
        const char *suffix = strstr(e->d_name, ".bk") + 3;
        char *next = NULL;
        struct stat st;
        int later = asprintf(&next, "%s/%d.bk.%ld", dir, (int)pid,
                             *suffix ? strtol(suffix + 1, NULL, 10) + 1 : 1) >= 0 &&
                    stat(next, &st) == 0;
        free(next);
        /* A trace of this run at TARGET: written (the process ended it), or streamed
         * (stream=1) by a process that died before appending its end: then the rest
         * of the run, in its backing file, is appended to it. */
        bool this_run = !later && stat(target, &st) == 0 && st.st_mtime >= started - 1;
        bool onto = this_run && fr_trace_unfinished(target) == 1;
        bool exec_image = later || (this_run && !onto);
        if (exec_image) {
            char *pre;
            /* the recorded process's own trace is renamed to its final name: beside it */
            const char *base = pid == own && own_trace ? own_trace : target;
            if (asprintf(&pre, "%s.before-exec%s", base, suffix) < 0) {
                free(bk);
                free(target);
                kept++;
                continue;
            }
            free(target);
            target = pre;
        }
        fr_recover_report rep;
        char err[512];
        int rc = onto ? fr_recover_onto(bk, target, &rep, err, sizeof err)
                      : fr_recover_file(bk, target, &rep, err, sizeof err);
        if (rc == FR_RECOVER_OK && exec_image && rep.records <= rep.fork_entries) {
            unlink(target);   /* an image that made no record before its exec but the
                                 entries of the calls open at its fork (a fork child
                                 that execs at once): nothing to keep */
            unlink(bk);
        } else if (rc == FR_RECOVER_OK) {
            if (exec_image)
                fprintf(stderr, "flightrec record: process %d exec'd another program: the "
                                "history of the image before the exec (%llu records of %u "
                                "thread%s) was recovered from its backing file to %s",
                        (int)pid, (unsigned long long)rep.records, rep.threads,
                        rep.threads == 1 ? "" : "s", target);
            else if (onto)
                fprintf(stderr, "flightrec record: process %d died while streaming its trace: "
                                "recovered %llu more records of %u thread%s from its backing "
                                "file onto it", (int)pid, (unsigned long long)rep.records,
                        rep.threads, rep.threads == 1 ? "" : "s");
            else
                fprintf(stderr, "flightrec record: process %d wrote no trace: recovered %llu "
                                "records of %u thread%s from its backing file",
                        (int)pid, (unsigned long long)rep.records, rep.threads,
                        rep.threads == 1 ? "" : "s");
            if (rep.torn || rep.lost_records)
                fprintf(stderr, " (%llu torn, %llu unreadable records cut)",
                        (unsigned long long)rep.torn, (unsigned long long)rep.lost_records);
            fprintf(stderr, "\n");
            unlink(bk);
        } else {
            fprintf(stderr, "flightrec record: process %d wrote no trace and its backing file %s "
                            "could not be recovered: %s (kept)\n", (int)pid, bk, err);
            kept++;
            own_failed |= pid == own;
        }
        free(bk);
        free(target);
    }
    closedir(d);
    if (!kept)
        rmdir(dir);
    return own_failed;
}

/* The recorded program, for pass_on_signal. */
static volatile pid_t recorded_pid;

static void pass_on_signal(int sig)
{
    int saved = errno;
    if (recorded_pid > 0)
        kill(recorded_pid, sig);
    errno = saved;
}

/* ---------------------------------------------------------------- parse */

enum { OUTPUT, POLICY, BUFFER_SIZE, BUFFERS, THRESHOLD, FILTER, EXCLUDE, MAX_DEPTH, N_OPTIONS };

struct record_opts {
    struct record_option opt[N_OPTIONS];   /* each checked by the runtime's parser */
    bool no_check, no_backing, sched, libcalls;
};

#define RECORD_VALUE(slot, name_, letter_, arg_, text)                                        \
    {.name = (name_), .letter = (letter_), .arg = (arg_), .help = (text),                      \
     .set = fr_cli_set_string, .offset = offsetof(struct record_opts, opt[slot].value)}

static const fr_cli_opt record_options[] = {
    RECORD_VALUE(OUTPUT, "output", 'o', " FILE", "trace file"),
    RECORD_VALUE(POLICY, "policy", 0, " P",
                 "when a thread's buffers are full: overwrite (keep the\n"
                 "newest, default) or discard (keep the oldest)"),
    RECORD_VALUE(BUFFER_SIZE, "buffer-size", 0, " N",
                 "bytes per buffer (default 4096; the largest record)"),
    RECORD_VALUE(BUFFERS, "buffers", 0, " N", "buffers in the pool (default 4096)"),
    RECORD_VALUE(THRESHOLD, "threshold-us", 0, " N",
                 "calls shorter than N microseconds leave no records\n"
                 "(uftrace -t, time-filter)"),
    RECORD_VALUE(FILTER, "filter", 0, " PATTERN",
                 "record only these functions (uftrace -F, filter):\n"
                 "items separated by ':', each a name glob (e.g.\n"
                 "'parse_*'), an XRay id or an id range N-M; a C++ name\n"
                 "matches as written ('ns::Box::get',\n"
                 "'ns::Box<long>::get(int) const') or as linked\n"
                 "('_ZNK2ns3BoxIlE3getEi'); '::' is no separator"),
    RECORD_VALUE(EXCLUDE, "exclude", 0, " PATTERN",
                 "never record these functions (uftrace -N, notrace);\n"
                 "PATTERN as for --filter"),
    RECORD_VALUE(MAX_DEPTH, "max-depth", 0, " N",
                 "record calls only down to depth N of each thread\n"
                 "(uftrace -D, depth); deeper calls leave no record\n"
                 "and are not counted as dropped"),
    FR_CLI_OPT_FLAG("sched", 0, struct record_opts, sched,
                    "scheduling marks: when each thread was off the CPU\n"
                    "(its context switches, perf_event_open; uftrace's\n"
                    "linux:schedule), shown by replay and convert"),
    FR_CLI_OPT_FLAG("libcalls", 0, struct record_opts, libcalls,
                    "record calls into shared libraries (malloc, write...)\n"
                    "made through the PLT of instrumented objects, with the\n"
                    "library function's name (uftrace's PLT hooking, on\n"
                    "by default there)"),
    FR_CLI_OPT_FLAG("no-check", 0, struct record_opts, no_check,
                    "run PROGRAM even if it seems to have no\n"
                    "instrumentation or cannot be traced"),
    FR_CLI_OPT_FLAG("no-backing", 0, struct record_opts, no_backing,
                    "no backing file: a process killed by SIGKILL (or the\n"
                    "OOM killer) or ending with _exit leaves no trace"),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

/* record's words for a bad option: "unknown option 'ARG'" and the Try line, or
 * "ARG needs a value" alone. */
static int record_bad_option(const fr_cli_command *cmd, const char *arg, bool missing)
{
    if (missing) {
        fprintf(stderr, "flightrec %s: %s needs a value\n", cmd->name, arg);
        return FR_EXIT_USAGE;
    }
    fprintf(stderr, "flightrec %s: unknown option '%s'\n", cmd->name, arg);
    fprintf(stderr, "Try 'flightrec %s --help'.\n", cmd->name);
    return FR_EXIT_USAGE;
}

const fr_cli_command fr_cmd_record = {
    .name = "record",
    .summary = "run a program with tracing on and write its trace",
    .run = cmd_record,
    .head = "usage: flightrec record [-o FILE] [--policy overwrite|discard] [--buffer-size N]\n"
            "                        [--buffers N] [--threshold-us N] [--filter PATTERN]\n"
            "                        [--exclude PATTERN] [--max-depth N] [--libcalls]\n"
            "                        [--sched] [--no-check] [--no-backing] -- PROGRAM [ARGS...]\n"
            "Runs PROGRAM with tracing on and writes its trace to FILE (default\n"
            "flightrec-%p.fr; %p is the program's pid). PROGRAM is built with clang\n"
            "-fxray-instrument -fxray-instruction-threshold=1 (with or without\n"
            "-fnoxray-link-deps) or gcc -finstrument-functions; if it does not link\n"
            "libflightrec, libflightrec.so is preloaded (LD_PRELOAD), so a dynamically\n"
            "linked PROGRAM needs no relinking.\n"
            "The filters (--filter, --exclude, --max-depth, --threshold-us) act at record\n"
            "time on both kinds of build: an XRay function filtered out is not patched, a\n"
            "gcc-instrumented one costs a table look-up per call.\n"
            "Child processes that run instrumented code write their own traces: with\n"
            "-o FILE (no %p), PROGRAM's trace is FILE and each other process's FILE.PID.\n",
    .options = record_options,
    .column = 24,
    .tail = "Each process records into a backing file in a private directory (/dev/shm, or\n"
            "$TMPDIR, /tmp): when one dies without writing its trace (SIGKILL, the OOM\n"
            "killer, _exit), its trace is recovered from that file at the end (as\n"
            "'flightrec recover' does); the history of a process image that an exec\n"
            "replaced, to TRACE.before-exec.\n"
            "'flightrec snapshot PID' makes a recorded process write a snapshot (record\n"
            "gives it snapshot_signal=SIGRTMAX-1; snapshot_signal=0 in FLIGHTREC_OPTIONS\n"
            "turns that off).\n"
            "Every option is checked before PROGRAM runs (a bad value: exit 2), and so is\n"
            "the caller's FLIGHTREC_OPTIONS; a buffer pool larger than the memory the\n"
            "program may have is refused (exit 1).\n"
            "Exit status: PROGRAM's (128+N if killed by signal N); 1 when PROGRAM cannot be\n"
            "traced, 2 for bad usage.\n",
    .options_end_at_operand = true,
    .bad_option = record_bad_option,
};

/* What a run of record holds from its checks to its report. */
struct record_run {
    const char      *output;        /* -o, made absolute (abs_output) */
    const char      *env;           /* the caller's FLIGHTREC_OPTIONS, or NULL */
    struct fr_options est;          /* the pool the runtime will map */
    char           **prog_argv;
    char            *program, *preload, *abs_output;
    bool             per_process;   /* OUTPUT.PID per process (no %p in OUTPUT) */
    char            *staging;       /* OUTPUT a device or FIFO: the traces are made here */
    const char      *out_base;      /* OUTPUT's last component */
    char            *pattern;       /* the runtime's output= */
    char            *backing_dir, *options;
    time_t           started;
    struct timespec  started_ns;
};

static void record_run_free(struct record_run *r)
{
    free(r->pattern);
    free(r->preload);
    free(r->options);
    free(r->abs_output);
    free(r->program);
    free(r->backing_dir);
    free(r->staging);
}

/* ---------------------------------------------------------------- check */

/* The options and the caller's FLIGHTREC_OPTIONS, as the runtime would take them; the
 * output's directory; the pool against the memory the program may have. 0, or an exit
 * code after a message. */
static int check_options(struct record_opts *o, struct record_run *r)
{
    struct record_option *opt = o->opt;
    if (!opt[OUTPUT].value)
        opt[OUTPUT].value = "flightrec-%p.fr";
    for (int k = 0; k < N_OPTIONS; k++)
        if (opt[k].value && check_option(&opt[k]))
            return FR_EXIT_USAGE;
    /* --libcalls: the runtime refuses libcalls=1 on a CPU whose port has no library-call
     * stubs; its message says so. */
    struct fr_options flags;
    fr_options_defaults(&flags);
    if (o->libcalls && fr_options_parse(&flags, "libcalls=1", "record --libcalls") != 0)
        return FR_EXIT_USAGE;
    /* The caller's own FLIGHTREC_OPTIONS reach the program too: refuse them now if the
     * runtime would (its message names the bad pair). */
    const char *env = r->env = getenv("FLIGHTREC_OPTIONS");
    struct fr_options *est = &r->est;   /* parsed once: checked here, the pool estimated below */
    fr_options_defaults(est);
    if (env && *env) {
        if (fr_options_parse(est, env, "FLIGHTREC_OPTIONS") != 0)
            return FR_EXIT_USAGE;
        /* Its backing= file and directory too: the runtime would not start without them. */
        const char *problem = !est->backing[0] || strchr(est->backing, '%') ? NULL
                              : fr_backing_path_problem(est->backing);
        if (problem) {
            fprintf(stderr, "flightrec record: FLIGHTREC_OPTIONS backing=%s: %s\n", est->backing,
                    problem);
            return FR_EXIT_USAGE;
        }
        if (est->backing[0] && check_backing_dir(est->backing))
            return FR_EXIT_BAD_INPUT;
    }
    const char *output = r->output = opt[OUTPUT].value;
    if (!strcmp(output, "-")) {
        /* /dev/stdout is written in place, after the program's own output on it */
        fprintf(stderr, "flightrec record: -o -: the trace goes to a file (standard output is "
                        "the program's); name one (/dev/stdout only for a PROGRAM that prints "
                        "nothing there: its output and the trace would mix)\n");
        fprintf(stderr, "Try 'flightrec record --help'.\n");
        return FR_EXIT_USAGE;
    }
    if (check_output_dir(output))
        return FR_EXIT_BAD_INPUT;
    /* The pool the runtime will map: the caller's FLIGHTREC_OPTIONS, then our flags. */
    char pair[96];
    if (opt[BUFFER_SIZE].value &&
        snprintf(pair, sizeof pair, "buffer_size=%s", opt[BUFFER_SIZE].value) > 0)
        fr_options_parse(&r->est, pair, NULL);
    if (opt[BUFFERS].value && snprintf(pair, sizeof pair, "buffers=%s", opt[BUFFERS].value) > 0)
        fr_options_parse(&r->est, pair, NULL);
    if (check_pool_fits(&r->est))
        return FR_EXIT_BAD_INPUT;
    return 0;
}

/* PROGRAM: found, instrumented and traceable (unless --no-check); r->preload set when
 * it does not link libflightrec. 0, or FR_EXIT_BAD_INPUT after a message. */
static int check_program(struct record_run *r, bool check)
{
    char *program = r->program = fr_program_resolve(r->prog_argv[0]);
    if (!program) {
        fprintf(stderr, "flightrec record: %s: command not found\n", r->prog_argv[0]);
        return FR_EXIT_BAD_INPUT;
    }
    fr_program_facts facts;
    char err[1024];
    int inspected = fr_program_inspect(program, &facts, err, sizeof err) == 0;
    if (check) {
        const char *why = NULL;
        if (!inspected)
            fprintf(stderr, "flightrec record: %s\n", err);
        else if (!facts.has_sleds && !facts.has_cyg_hooks)
            why = "has no function instrumentation (no xray_instr_map section, no "
                  "__cyg_profile_func_enter calls): build it with clang -fxray-instrument "
                  "-fxray-instruction-threshold=1 or gcc -finstrument-functions (if it "
                  "loads instrumented libraries with dlopen, pass --no-check: their calls "
                  "are recorded)";
        else if (facts.setid)
            why = "is set-user-ID or set-group-ID: the loader and libflightrec ignore "
                  "LD_PRELOAD and FLIGHTREC_OPTIONS in such a program (secure execution), "
                  "so nothing would be recorded; record a copy without the bit";
        else if (!facts.links_flightrec && !facts.dynamic)
            why = "is statically linked without libflightrec, so libflightrec.so cannot be "
                  "preloaded into it: relink it with libflightrec (pkg-config --static --libs "
                  "flightrec), or link it dynamically";
        if (why)
            fprintf(stderr, "flightrec record: %s %s (or pass --no-check)\n", program, why);
        if (!inspected || why)
            return FR_EXIT_BAD_INPUT;
    }
    /* clang instruments only functions of 200+ instructions (or with loops) unless told
     * -fxray-instruction-threshold=1: most of a program's calls then leave no record. */
    if (inspected && facts.has_sleds && facts.program_functions >= 4 &&
        facts.sled_functions * 2 < facts.program_functions)
        fprintf(stderr, "flightrec record: warning: %s has sleds in only %llu function%s for "
                        "%llu global functions: compile with -fxray-instruction-threshold=1 "
                        "(pkg-config --variable=xray_cflags flightrec) to trace them all\n",
                program, (unsigned long long)facts.sled_functions,
                facts.sled_functions == 1 ? "" : "s", (unsigned long long)facts.program_functions);
    /* A program that does not link libflightrec (clang -fnoxray-link-deps, gcc
     * -finstrument-functions against nothing, compiler-rt's own XRay runtime) is traced
     * with libflightrec.so preloaded: its sleds and hooks need nothing else. */
    if (inspected && !facts.links_flightrec && facts.dynamic) {
        r->preload = own_library_file("libflightrec.so.0");
        if (!r->preload) {
            fprintf(stderr, "flightrec record: %s does not link libflightrec and "
                            "libflightrec.so.0 was not found next to flightrec to preload "
                            "(an incomplete installation?)\n", program);
            return FR_EXIT_BAD_INPUT;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- run */

/* Where the traces go: OUTPUT made absolute, per process or not, through a private
 * directory when OUTPUT is a device or FIFO; r->pattern is the runtime's output=. 0, or
 * an exit code after a message. */
static int place_traces(struct record_run *r)
{
    const char *output = r->output;
    if (output[0] != '/') {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd) || asprintf(&r->abs_output, "%s/%s", cwd, output) < 0) {
            fprintf(stderr, "flightrec record: cannot resolve the current directory\n");
            return FR_EXIT_BAD_INPUT;
        }
        output = r->output = r->abs_output;
    }
    /* One file per process: the runtime writes OUTPUT.PID in every process (children
     * exec'd or forked inherit the options), and the recorded process's own file is
     * renamed to OUTPUT when it ends. A pattern with %p is the user's own rule: kept. */
    bool per_process = r->per_process = !strstr(output, "%p");
    /* OUTPUT an existing device or FIFO: the processes write their files in a private
     * directory, and the recorded process's trace is copied into OUTPUT at the end.
     * OUTPUT.PID cannot be made beside a device (in /dev, as root) and a rename over
     * OUTPUT would replace the device with a file. */
    struct stat out_st;
    if (per_process && stat(output, &out_st) == 0 && !S_ISREG(out_st.st_mode)) {
        if (S_ISDIR(out_st.st_mode)) {
            fprintf(stderr, "flightrec record: %s is a directory; -o names the trace file\n",
                    output);
            return FR_EXIT_USAGE;
        }
        r->staging = private_dir(false, 0);
        if (!r->staging) {
            fprintf(stderr, "flightrec record: cannot make a directory for the traces before "
                            "they are written into %s: %s\n", output, strerror(errno));
            return FR_EXIT_BAD_INPUT;
        }
    }
    const char *out_base = r->out_base = strrchr(output, '/') ? strrchr(output, '/') + 1 : output;
    if (r->staging ? asprintf(&r->pattern, "%s/%s.%%p", r->staging, out_base) < 0
                   : asprintf(&r->pattern, per_process ? "%s.%%p" : "%s", output) < 0) {
        fprintf(stderr, "flightrec record: out of memory\n");
        return FR_EXIT_BAD_INPUT;
    }
    return 0;
}

/* --sched: whether the kernel gives a thread its own context switches (tried here, so
 * that a refusal is said once, not by every process of the program). */
static bool sched_allowed(void)
{
    int fd = fr_sched_perf_open();
    if (fd >= 0) {
        close(fd);
        return true;
    }
    int err = errno;
    char paranoid[16];
    fr_sched_paranoid(paranoid);
    fprintf(stderr, "flightrec record: --sched: the kernel refuses perf_event_open (%s; "
                    "kernel.perf_event_paranoid=%s): recording without scheduling marks\n",
            strerror(err), paranoid);
    return false;
}

/* The snapshot signal a recorded program gets (fr_options_signal's spelling). */
#define RECORD_SNAPSHOT_SIGNAL "SIGRTMAX-1"

/* The environment the program runs in: FLIGHTREC_OPTIONS (ours, the caller's, then the
 * flags), the library path, LD_PRELOAD. 0, or FR_EXIT_BAD_INPUT after a message. */
static int prepare_environment(struct record_run *r, const struct record_opts *o)
{
    const char *env = r->env;
    const char *policy = o->opt[POLICY].value, *buffer_size = o->opt[BUFFER_SIZE].value,
               *buffers = o->opt[BUFFERS].value, *threshold = o->opt[THRESHOLD].value,
               *filter = o->opt[FILTER].value, *exclude = o->opt[EXCLUDE].value,
               *max_depth = o->opt[MAX_DEPTH].value;
    bool backing = !o->no_backing;
    /* Crash dumps and the flush on SIGTERM/SIGINT/SIGHUP are on under record; first, so
     * that the caller's FLIGHTREC_OPTIONS (crash_dump=0, signal_flush=0) can turn them off. */
    /* Backing files too (a caller's backing= in FLIGHTREC_OPTIONS comes later and wins;
     * backing=0 turns them off). */
    unsigned long long backing_need = 0;
    if (backing) {
        /* Under `ulimit -f` smaller than a backing file the runtime could not make one
         * (and would not start): the run goes on without them. */
        unsigned long long need = (unsigned long long)r->est.buffers * (r->est.buffer_size + 64) +
                                  (8ull << 20);
        backing_need = need;
        struct rlimit rl;
        if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            rl.rlim_cur < need) {
            fprintf(stderr, "flightrec record: note: no backing files under ulimit -f (%llu "
                            "bytes, they need %llu): a process killed by SIGKILL will leave "
                            "no trace\n", (unsigned long long)rl.rlim_cur, need);
            backing = 0;
        }
    }
    /* tmpfs first when it has room for a process's file: a mapping of a disk file costs
     * page faults after each writeback. None: record runs without backing files. */
    char *backing_dir = r->backing_dir = backing ? private_dir(true, backing_need) : NULL;
    if (backing && !backing_dir)
        fprintf(stderr, "flightrec record: warning: no directory with room for backing files "
                        "(%llu bytes each) in /dev/shm, $TMPDIR or /tmp: a process killed by "
                        "SIGKILL will leave no trace\n", backing_need);
    /* A snapshot signal too, so that `flightrec snapshot PID` works on the program
     * (it reads the signal from the program's environment): a real-time one, which
     * programs seldom use (SIGUSR1/2 often have handlers of their own); the caller's
     * snapshot_signal= wins, snapshot_signal=0 turns it off. */
    char *options = strdup("crash_dump=1 signal_flush=1 snapshot_signal=" RECORD_SNAPSHOT_SIGNAL),
         *bk_pattern = NULL;
    if (options && backing_dir && (asprintf(&bk_pattern, "%s/%%p.bk", backing_dir) < 0 ||
                                   append_option(&options, "backing", bk_pattern) < 0)) {
        free(options);
        options = NULL;
    }
    free(bk_pattern);
    if (options && env && *env) {   /* the caller's own, as written: it comes later and wins */
        char *with;
        if (asprintf(&with, "%s %s", options, env) < 0)
            with = NULL;
        free(options);
        options = with;
    }
    int bad = append_option(&options, "start", "1") || append_option(&options, "output", r->pattern) ||
              append_option(&options, "patch", filter ? filter : "all");
    if (policy)
        bad |= append_option(&options, "policy", policy);
    if (buffer_size)
        bad |= append_option(&options, "buffer_size", buffer_size);
    if (buffers)
        bad |= append_option(&options, "buffers", buffers);
    if (threshold)
        bad |= append_option(&options, "threshold_us", threshold);
    if (o->sched && sched_allowed())
        bad |= append_option(&options, "sched", "1");
    if (exclude)
        bad |= append_option(&options, "exclude", exclude);
    if (max_depth)
        bad |= append_option(&options, "max_depth", max_depth);
    if (o->libcalls)
        bad |= append_option(&options, "libcalls", "1");
    r->options = options;
    if (bad || setenv("FLIGHTREC_OPTIONS", options, 1)) {
        fprintf(stderr, "flightrec record: out of memory\n");
        return FR_EXIT_BAD_INPUT;
    }
    add_library_path();
    if (r->preload) {
        const char *old = getenv("LD_PRELOAD");
        char *value;
        if (asprintf(&value, "%s%s%s", r->preload, old && *old ? ":" : "", old && *old ? old : "") < 0 ||
            setenv("LD_PRELOAD", value, 1)) {
            fprintf(stderr, "flightrec record: out of memory\n");
            return FR_EXIT_BAD_INPUT;
        }
        free(value);
    }
    return 0;
}

/* Runs PROGRAM as our child and waits for it; its exit status (128+N when killed by
 * signal N) and its pid in *child, or FR_EXIT_BAD_INPUT after a message. */
static int run_program(struct record_run *r, pid_t *child)
{
    const char *program = r->program;
    r->started = time(NULL);
    clock_gettime(CLOCK_REALTIME, &r->started_ns);
    /* SIGTERM and SIGHUP sent to record (kill PID, a service manager) are passed on to
     * the program: it writes its trace and ends, and record finishes its work (rename,
     * recovery) instead of dying and leaving the program running. Blocked across fork so
     * that none arrives before the parent knows the child. */
    sigset_t fwd, old_mask;
    sigemptyset(&fwd);
    sigaddset(&fwd, SIGTERM);
    sigaddset(&fwd, SIGHUP);
    sigprocmask(SIG_BLOCK, &fwd, &old_mask);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "flightrec record: fork: %s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        return FR_EXIT_BAD_INPUT;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        execv(program, r->prog_argv);
        fprintf(stderr, "flightrec record: cannot run %s: %s\n", program, strerror(errno));
        _exit(127);
    }
    recorded_pid = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pass_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    /* The terminal's ^C goes to the program; we wait for it to finish its trace. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "flightrec record: waitpid: %s\n", strerror(errno));
            return FR_EXIT_BAD_INPUT;
        }
    int rc;
    if (WIFEXITED(status)) {
        rc = WEXITSTATUS(status);
    } else {
        rc = 128 + WTERMSIG(status);
        fprintf(stderr, "flightrec record: %s was killed by signal %d (%s)\n", program,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    }
    *child = pid;
    return rc;
}

/* ---------------------------------------------------------------- report */

/* After the run: the traces of processes that died recovered, the program's trace named
 * OUTPUT (renamed, or copied into a device), and where every trace went, on stderr. */
static void report(struct record_run *r, pid_t pid)
{
    const char *output = r->output, *pattern = r->pattern, *out_base = r->out_base;
    const char *staging = r->staging;
    bool per_process = r->per_process;
    time_t started = r->started;
    bool own_unrecovered = false;
    char *trace = expand_output(output, pid), *own = expand_output(pattern, pid);
    if (r->backing_dir)
        own_unrecovered = recover_leftovers(r->backing_dir, pattern, started, pid,
                                            per_process && !staging ? trace : NULL);
    struct stat st;
    bool renamed = false;
    if (staging) {
        long long n = own && stat(own, &st) == 0 ? copy_into_special(own, output) : -2;
        if (n >= 0)
            fprintf(stderr, "flightrec record: trace written into %s (%lld bytes)\n", output, n);
        else if (n == -2)
            fprintf(stderr, "flightrec record: no trace for %s (the program ended before its "
                            "trace was flushed, or disabled flushing)\n", output);
        char *beside = NULL;
        if (asprintf(&beside, "%s/%s", staging, out_base) >= 0)
            report_other_processes(beside, started);
        free(beside);
        rmdir(staging);   /* left when other processes' traces (or ours, unwritten) are in it */
        free(trace);
        trace = NULL;
    } else if (per_process && trace && own && stat(own, &st) == 0) {
        renamed = rename(own, trace) == 0;
        if (!renamed)
            fprintf(stderr, "flightrec record: cannot rename %s to %s: %s\n", own, trace,
                    strerror(errno));
    }
    /* The runtime's own messages name the file it wrote (OUTPUT.PID): say where it is. */
    const char *own_base = own && strrchr(own, '/') ? strrchr(own, '/') + 1 : own;
    if (staging)
        ;   /* said above */
    else if (trace && (per_process ? renamed : written_since(trace, &r->started_ns, &st)))
        fprintf(stderr, "flightrec record: trace written to %s (%lld bytes%s%s)\n", trace,
                (long long)st.st_size, renamed ? ", renamed from " : "",
                renamed ? own_base : "");
    else
        fprintf(stderr, "flightrec record: no trace at %s (%s)\n", trace ? trace : output,
                own_unrecovered ? "it could not be written: see above"
                                : "the program ended before its trace was flushed, disabled "
                                  "flushing, or its recorder did not start: see its messages "
                                  "above");
    if (per_process && trace)
        report_other_processes(trace, started);
    free(trace);
    free(own);
}

/* ---------------------------------------------------------------- the command */

int cmd_record(int argc, char **argv)
{
    struct record_opts o = {.opt = {
        [OUTPUT]      = {"--output", "output", "a path", NULL},
        [POLICY]      = {"--policy", "policy", "overwrite or discard", NULL},
        [BUFFER_SIZE] = {"--buffer-size", "buffer_size",
                         "bytes per buffer, 1024 to 1G, K/M/G suffixes allowed", NULL},
        [BUFFERS]     = {"--buffers", "buffers", "1 to 4194304", NULL},
        [THRESHOLD]   = {"--threshold-us", "threshold_us",
                         "microseconds, 0 to 3600000000", NULL},
        [FILTER]      = {"--filter", "patch", "name globs, ids or id ranges separated by ':'",
                         NULL},
        [EXCLUDE]     = {"--exclude", "exclude", "name globs, ids or id ranges separated by ':'",
                         NULL},
        [MAX_DEPTH]   = {"--max-depth", "max_depth", "1 to 65535", NULL},
    }};
    fr_cli_operands ops;
    int rc = fr_cli_parse(&fr_cmd_record, argc, argv, &o, &ops);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    if (ops.n < 1) {
        fprintf(stderr, "flightrec record: no PROGRAM given\n");
        fprintf(stderr, "Try 'flightrec record --help'.\n");
        return FR_EXIT_USAGE;
    }
    struct record_run r = {.prog_argv = ops.v};
    pid_t pid = 0;
    if (!(rc = check_options(&o, &r)) && !(rc = check_program(&r, !o.no_check)) &&
        !(rc = place_traces(&r)) && !(rc = prepare_environment(&r, &o))) {
        rc = run_program(&r, &pid);
        if (pid > 0)
            report(&r, pid);
    }
    record_run_free(&r);
    return rc;
}
