/*
 * cmd_snapshot.c - `flightrec snapshot PID`: asks a running traced process for a
 * snapshot by sending it its snapshot_signal (the runtime writes the file and goes on
 * recording). The signal is read from FLIGHTREC_OPTIONS in the process's environment
 * (/proc/PID/environ, as it was at exec) unless --signal names it: a process that does
 * not handle the signal would be killed by it, so nothing is sent without knowing it, and
 * nothing to a process that does not catch it (SigCgt of /proc/PID/status: the option in
 * its environment does not mean that a recorder runs in it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_start.h"
#include "commands.h"
#include "cli_common.h"
#include "core/options.h"
#include "cli_options.h"
#include "signal_name.h"

/* FLIGHTREC_OPTIONS from /proc/PID/environ, parsed by the runtime's own parser. */
static int signal_from_environment(long pid, int *sig)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t cap = 1 << 16, len = 0;
    char *env = malloc(cap + 1);
    if (!env) {
        close(fd);
        return -ENOMEM;
    }
    for (;;) {
        if (len == cap) {
            char *bigger = cap < (1u << 26) ? realloc(env, 2 * cap + 1) : NULL;
            if (!bigger)
                break;
            env = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, env + len, cap - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    env[len] = 0;
    struct fr_options o;
    fr_options_defaults(&o);
    for (size_t i = 0; i < len; i += strlen(env + i) + 1)
        if (!strncmp(env + i, "FLIGHTREC_OPTIONS=", 18))
            fr_options_parse(&o, env + i + 18, NULL);
    free(env);
    *sig = o.snapshot_signal;
    return 0;
}

/* 1 when process pid catches sig (a handler is installed), 0 when not, -errno when its
 * status cannot be read. */
static int catches_signal(long pid, int sig)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = 0;
    ssize_t n;
    while (len < sizeof buf - 1 && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)n;
    close(fd);
    buf[len] = 0;
    const char *p = strstr(buf, "\nSigCgt:");
    if (!p)
        return -ENODATA;
    unsigned long long mask = strtoull(p + 8, NULL, 16);
    return sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

/* ---------------------------------------------------------------- parse */

struct snapshot_opts {
    const char *sig_text;
};

static const fr_cli_opt snapshot_options[] = {
    {.name = "signal", .arg = " SIG", .set = fr_cli_set_string,
     .offset = offsetof(struct snapshot_opts, sig_text),
     .help = "the signal to send (SIGUSR1, SIGUSR2, SIGRTMIN+N or a number),\n"
             "when the process set snapshot_signal= through fr_init"},
    {0},   /* -h, --help: taken, not listed */
};

const fr_cli_command fr_cmd_snapshot = {
    .name = "snapshot",
    .summary = "make a running traced process write a snapshot",
    .run = cmd_snapshot,
    .head = "usage: flightrec snapshot PID [--signal SIG]\n"
            "Makes the traced process PID write a snapshot of its history (it goes on\n"
            "recording): sends it the signal of its snapshot_signal= option, read from\n"
            "FLIGHTREC_OPTIONS in its environment. The file is named by its snapshot_output=\n"
            "option (default: its trace's name followed by .N).\n",
    .options = snapshot_options,
    .column = 17,
    .tail = "Nothing is sent to a process that does not catch the signal (it would kill it).\n"
            "Exit status: 0 sent, 1 no such process / no snapshot signal known or caught,\n"
            "2 bad usage.\n",
    .bad_option = fr_cli_bad_option_named,
};

/* ---------------------------------------------------------------- check */

/* The signal to send: --signal's, else the process's snapshot_signal= option. 0, or an
 * exit code after a message. */
static int choose_signal(long pid, const char *sig_text, int *sig)
{
    const char *cmd = "snapshot";
    *sig = 0;
    if (sig_text) {
        *sig = fr_options_signal(sig_text, strlen(sig_text));
        if (!*sig)
            return fr_cli_usage_error(cmd, "--signal %s: not SIGUSR1, SIGUSR2 or a real-time signal",
                                      sig_text);
        return 0;
    }
    int r = signal_from_environment(pid, sig);
    if (r == -ENOENT || r == -ESRCH) {
        fprintf(stderr, "flightrec snapshot: no process %ld\n", pid);
        return FR_EXIT_BAD_INPUT;
    }
    if (r < 0) {
        fprintf(stderr, "flightrec snapshot: cannot read the environment of process %ld: %s "
                        "(pass --signal SIG)\n", pid, strerror(-r));
        return FR_EXIT_BAD_INPUT;
    }
    if (!*sig) {
        fprintf(stderr, "flightrec snapshot: process %ld was not started with snapshot_signal= "
                        "in FLIGHTREC_OPTIONS; nothing sent (pass --signal SIG if it set one "
                        "through fr_init)\n", pid);
        return FR_EXIT_BAD_INPUT;
    }
    return 0;
}

/* ---------------------------------------------------------------- the command */

int cmd_snapshot(int argc, char **argv)
{
    const char *cmd = "snapshot";
    struct snapshot_opts o = {0};
    const char *pid_text;
    char name[FR_SIGNAL_NAME_MAX];
    int rc = fr_cli_parse_one(&fr_cmd_snapshot, argc, argv, &o, "process", "no process id given",
                              &pid_text);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    char *end;
    errno = 0;
    long pid = strtol(pid_text, &end, 10);
    if (errno || *end || pid <= 0 || pid > 0x7fffffff)
        return fr_cli_usage_error(cmd, "'%s' is not a process id", pid_text);
    int sig;
    if ((rc = choose_signal(pid, o.sig_text, &sig)) != 0)
        return rc;
    int caught = catches_signal(pid, sig);
    if (caught == -ENOENT || caught == -ESRCH) {
        fprintf(stderr, "flightrec snapshot: no process %ld\n", pid);
        return FR_EXIT_BAD_INPUT;
    }
    if (caught == 0) {
        fprintf(stderr, "flightrec snapshot: process %ld does not catch signal %d (%s): no "
                        "recorder with that snapshot_signal runs in it; nothing sent (the "
                        "signal would kill it)\n", pid, sig, fr_signal_name(sig, name));
        return FR_EXIT_BAD_INPUT;
    }
    if (kill((pid_t)pid, sig) != 0) {
        fprintf(stderr, "flightrec snapshot: cannot signal process %ld: %s\n", pid, strerror(errno));
        return FR_EXIT_BAD_INPUT;
    }
    fprintf(stderr, "flightrec snapshot: sent signal %d (%s) to process %ld\n", sig,
            fr_signal_name(sig, name), pid);
    return FR_EXIT_OK;
}
