/*
 * user_events_probe.c - see user_events_probe.h.
 *
 * The runtime's sink opens user_events_data for writing at the first registration; the
 * probe does the same (and closes it: opening registers nothing). When that fails, the
 * reason is found from the outside in: the file exists but this user may not write it;
 * tracefs is not mounted (then whether the kernel has user_events at all comes from its
 * config file, or its symbol table); the kernel is older than 6.4 or built without
 * CONFIG_USER_EVENTS (every Debian kernel up to 7.3 is, for one).
 */
#define _GNU_SOURCE
#include "user_events_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

static const char *const data_paths[] = {
    "/sys/kernel/tracing/user_events_data",
    "/sys/kernel/debug/tracing/user_events_data",
};

enum { UNKNOWN, YES, NO };

/* CONFIG_USER_EVENTS in the running kernel's config (/boot/config-RELEASE, else
 * /proc/config.gz; zlib reads plain and gzip'ed files alike). A config without the line
 * is a kernel that has no such option. */
static int kernel_config(const char *release, char *source, size_t n)
{
    char path[320];
    snprintf(path, sizeof path, "/boot/config-%s", release);
    gzFile f = access(path, R_OK) == 0 ? gzopen(path, "rb") : NULL;
    if (!f) {
        snprintf(path, sizeof path, "/proc/config.gz");
        f = gzopen(path, "rb");
    }
    if (!f)
        return UNKNOWN;
    snprintf(source, n, "%s", path);
    char line[512];
    int state = NO;
    while (gzgets(f, line, sizeof line))
        if (!strncmp(line, "CONFIG_USER_EVENTS=y", 20))
            state = YES;
    gzclose(f);
    return state;
}

/* Without a config file: the kernel's symbols name user_events' functions if it has
 * them (names are listed to every user; addresses only to root). */
static int kernel_symbols(void)
{
    FILE *f = fopen("/proc/kallsyms", "re");
    if (!f)
        return UNKNOWN;
    char line[512];
    int state = NO;
    while (state == NO && fgets(line, sizeof line, f))
        if (strstr(line, " user_event"))
            state = YES;
    fclose(f);
    return state;
}

static bool tracefs_mounted(void)
{
    FILE *f = fopen("/proc/self/mounts", "re");
    if (!f)
        return true;   /* cannot tell: say nothing about mounting */
    char dev[256], dir[512], type[64];
    bool found = false;
    while (!found && fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
        found = !strcmp(type, "tracefs");
    fclose(f);
    return found;
}

static void kernel_lacks(char *d, size_t n, const char *release, int has, const char *source)
{
    unsigned major = 0, minor = 0;
    if (sscanf(release, "%u.%u", &major, &minor) == 2 && (major < 6 || (major == 6 && minor < 4)))
        snprintf(d, n, "kernel %s is older than 6.4, the first with user_events", release);
    else if (has == NO && *source)
        snprintf(d, n, "kernel %s is built without CONFIG_USER_EVENTS (%s)", release, source);
    else
        snprintf(d, n, "kernel %s has no user_events (no user_events_data in its tracefs: "
                 "built without CONFIG_USER_EVENTS)", release);
}

bool fr_user_events_probe(char *detail, size_t n)
{
    const char *refused = NULL;
    int refused_errno = 0;
    for (size_t i = 0; i < sizeof data_paths / sizeof *data_paths; i++) {
        int fd = open(data_paths[i], O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            snprintf(detail, n, "%s", data_paths[i]);
            return true;
        }
        if (errno != ENOENT && errno != ENOTDIR && !refused) {
            refused = data_paths[i];
            refused_errno = errno;
        }
    }
    char reason[400];
    struct utsname u;
    if (uname(&u) != 0)
        snprintf(u.release, sizeof u.release, "?");
    char source[320] = "";
    if (refused && (refused_errno == EACCES || refused_errno == EPERM)) {
        snprintf(reason, sizeof reason, "%s: %s: this user may not register events (the "
                 "file's owner and mode decide; root only by default)", refused,
                 strerror(refused_errno));
    } else if (refused) {
        snprintf(reason, sizeof reason, "%s: %s", refused, strerror(refused_errno));
    } else {
        int has = kernel_config(u.release, source, sizeof source);
        if (has == UNKNOWN)
            has = kernel_symbols();
        if (!tracefs_mounted() && has != NO)
            snprintf(reason, sizeof reason, "tracefs is not mounted (mount -t tracefs nodev "
                     "/sys/kernel/tracing)%s", has == YES ? "; the kernel has user_events" : "");
        else
            kernel_lacks(reason, sizeof reason, u.release, has, source);
    }
    snprintf(detail, n, "%s; structured events still reach the flight recorder", reason);
    return false;
}
