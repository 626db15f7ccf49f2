/*
 * output_path.c - the trace file's name from the output= pattern: "%p" is the pid, so
 * that each process of a program that forks or execs writes its own file.
 */
#define _GNU_SOURCE   /* secure_getenv */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/output_path.h"
#include "core/text_out.h"

int fr_expand_output(char *out, size_t cap, const char *pattern, int32_t pid, int force_pid)
{
    size_t n = 0;
    int had_pid = 0;
    char num[16];
    size_t numlen = 0;
    fr_fmt_u64(num, sizeof num, &numlen, (uint64_t)(uint32_t)pid);
    num[numlen] = 0;
    for (const char *p = pattern; *p; p++) {
        const char *piece = p;
        size_t len = 1;
        if (p[0] == '%' && p[1] == 'p') {
            piece = num;
            len = numlen;
            had_pid = 1;
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            p++;
        }
        if (n + len >= cap)
            return -1;
        memcpy(out + n, piece, len);
        n += len;
    }
    if (force_pid && !had_pid) {
        if (n + 1 + numlen >= cap)
            return -1;
        out[n++] = '.';
        memcpy(out + n, num, numlen);
        n += numlen;
    }
    out[n] = 0;
    return 0;
}

int fr_pattern_absolute(char *pattern, size_t cap, const char *option)
{
    if (!pattern[0] || pattern[0] == '/')
        return 0;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd) || cwd[0] != '/')
        return 0;   /* unknown ("(unreachable)", too long): relative, as before */
    char out[4096];
    size_t n = 0;
    for (const char *p = cwd; *p; p++) {   /* '%' doubled: expanded back to itself */
        if (n + 2 >= sizeof out)
            goto too_long;
        if (*p == '%')
            out[n++] = '%';
        out[n++] = *p;
    }
    if (n > 1)   /* ("/" itself ends with the separator) */
        out[n++] = '/';
    size_t plen = strlen(pattern);
    if (n + plen >= cap || n + plen >= sizeof out)
        goto too_long;
    memcpy(out + n, pattern, plen + 1);
    memcpy(pattern, out, n + plen + 1);
    return 0;
too_long:;
    char msg[160];
    size_t len = 0;
    fr_fmt_str(msg, sizeof msg, &len, "flightrec: ");
    fr_fmt_str(msg, sizeof msg, &len, option);
    fr_fmt_str(msg, sizeof msg, &len, "= path too long once the working directory is put before it\n");
    fr_write_stderr(msg, len);
    return -1;
}

int fr_output_shared_by_run(const char *pattern, int32_t pid)
{
    for (const char *p = pattern; *p; p++) {
        if (p[0] == '%' && p[1] == 'p')
            return 0;
        if (p[0] == '%' && p[1])
            p++;
    }
    char own[16];
    size_t len = 0;
    fr_fmt_u64(own, sizeof own, &len, (uint64_t)(uint32_t)pid);
    own[len] = 0;
    const char *run = secure_getenv("FLIGHTREC_RUN_PID");
    if (!run || !*run) {
        setenv("FLIGHTREC_RUN_PID", own, 1);   /* (at init: no recording thread reads it) */
        return 0;
    }
    if (!strcmp(run, own))
        return 0;   /* the run's first process, after an exec */
    char msg[4096 + 256];   /* a pattern is at most FR_OPTIONS_PATH_MAX */
    size_t n = 0;
    fr_fmt_str(msg, sizeof msg, &n, "flightrec: output=");
    fr_fmt_str(msg, sizeof msg, &n, pattern);
    fr_fmt_str(msg, sizeof msg, &n, " has no %p and is the trace of process ");
    fr_fmt_str(msg, sizeof msg, &n, run);
    fr_fmt_str(msg, sizeof msg, &n, ": process ");
    fr_fmt_str(msg, sizeof msg, &n, own);
    fr_fmt_str(msg, sizeof msg, &n, " writes its own, with .");
    fr_fmt_str(msg, sizeof msg, &n, own);
    fr_fmt_str(msg, sizeof msg, &n, " added\n");
    fr_write_stderr(msg, n);
    return 1;
}
