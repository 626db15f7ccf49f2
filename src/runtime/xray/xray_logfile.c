/*
 * xray_logfile.c - compiler-rt's log file: "<xray_logfile_base><program>.XXXXXX" where
 * <program> is argv[0] without its directory (not the executable's name: a program run
 * through a symlink or with exec -a is named as it was called), created by mkstemp
 * (0600, O_EXCL: never an existing file or a planted link). The base may hold a
 * directory ("/tmp/traces/run1-"). A base that cannot be used is reported with
 * compiler-rt's message at every verbosity and nothing is logged: no silent fall-back
 * to another directory.
 */
#define _GNU_SOURCE
#include "xray/xray_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char argv0_name[256];
static int have_argv0;

void xr_set_argv0(const char *argv0)
{
    if (!argv0 || have_argv0)
        return;
    const char *slash = strrchr(argv0, '/');
    snprintf(argv0_name, sizeof argv0_name, "%s", slash ? slash + 1 : argv0);
    have_argv0 = 1;
}

const char *xr_progname(void)
{
    if (!have_argv0) {
        /* Loaded before we could see argv (dlopen'ed): argv[0] is cmdline's first string. */
        char buf[4096];
        int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n > 0) {
            buf[n] = 0;
            xr_set_argv0(buf);
        }
    }
    return have_argv0 ? argv0_name : "(unknown)";
}

int xr_open_logfile(char *path, size_t cap)
{
    xr_flags_init();
    int need = snprintf(path, cap, "%s%s.XXXXXX", xr_flags.xray_logfile_base, xr_progname());
    if (need < 0 || (size_t)need >= cap) {
        xr_report("XRay log file name too long (%d): %s\n", need, path);
        return -1;
    }
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        xr_report("XRay: Failed opening temporary file '%s'; not logging events.\n", path);
        return -1;
    }
    if (xr_verbose())
        xr_report("XRay: Log file in '%s'\n", path);
    return fd;
}
