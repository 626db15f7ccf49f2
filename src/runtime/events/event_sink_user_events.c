/*
 * event_sink_user_events.c - the Linux user_events sink (Linux 6.4+).
 *
 * Every call site registers its own enable word with the kernel (DIAG_IOCSREG on
 * user_events_data): the command names the site's tracepoint,
 * "Provider_L5K0 u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level",
 * so all sites of one (provider, level, keyword) share one kernel tracepoint and one
 * write index, while the kernel sets bit 0 of each site's own `enabled` word whenever a
 * tracer attaches. That keeps a call site's test a single load. Events are written with
 * one writev on the registering descriptor: the u32 write index, then the event.
 *
 * If user_events_data cannot be opened (kernel without user_events, tracefs not mounted,
 * no permission), the sink stays off: no enable bit is ever set, so events cost nothing
 * more for it. Whether that is said on stderr is the user_events= option's choice
 * (core/options.h), read from FLIGHTREC_OPTIONS' parse at the first registration (providers
 * usually register before fr_init runs): auto (default) is silent, since most kernels
 * lack user_events and a program that merely has providers should not print about it;
 * on says it once per process; off never opens the kernel's file at all.
 *
 * Test seam: fr_ue_set_backend routes open/ioctl/writev to a test's functions, which
 * see the exact registration commands and iovecs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "events/events_internal.h"
#include "core/fd_guard.h"
#include "core/options.h"

#define DIAG_IOC_MAGIC '*'
#define FR_DIAG_IOCSREG   _IOWR(DIAG_IOC_MAGIC, 0, struct fr_user_reg *)
#define FR_DIAG_IOCSUNREG _IOW(DIAG_IOC_MAGIC, 2, struct fr_user_unreg *)

static const char *const data_paths[] = {
    "/sys/kernel/tracing/user_events_data",
    "/sys/kernel/debug/tracing/user_events_data",
};

/* ------------------------------------------------------------------ the kernel backend */

static dev_t ue_dev;   /* the data file's device and inode (fd_guard.h) */
static ino_t ue_ino;

static int kernel_open(void *ctx)
{
    (void)ctx;
    int fd = -1;
    for (size_t i = 0; i < sizeof data_paths / sizeof data_paths[0] && fd < 0; i++)
        fd = open(data_paths[i], O_WRONLY | O_CLOEXEC);
    /* Kept for the process's life and written on the hot path without a check: above the
     * numbers the program's own open() calls take (fd_guard.h). */
    return fd >= 0 ? fr_fd_keep(fd, &ue_dev, &ue_ino) : fd;
}

static int kernel_reg(void *ctx, int fd, struct fr_user_reg *reg)
{
    (void)ctx;
    return ioctl(fd, FR_DIAG_IOCSREG, reg);
}

static int kernel_unreg(void *ctx, int fd, struct fr_user_unreg *unreg)
{
    (void)ctx;
    return ioctl(fd, FR_DIAG_IOCSUNREG, unreg);
}

static ssize_t kernel_writev(void *ctx, int fd, const struct iovec *iov, int iovcnt)
{
    (void)ctx;
    return writev(fd, iov, iovcnt);
}

static const fr_ue_backend kernel_backend = {kernel_open, kernel_reg, kernel_unreg, kernel_writev, NULL};

/* ------------------------------------------------------------------ state */

enum { UE_UNKNOWN, UE_OPEN, UE_UNAVAILABLE };
static const fr_ue_backend *backend = &kernel_backend;
static int ue_state = UE_UNKNOWN;   /* changed under the registry lock */
static int ue_fd = -1;
static bool reported;
static int ue_mode = -1;            /* FR_USER_EVENTS_*, -1: not read yet */

void fr_ue_set_backend(const fr_ue_backend *b)
{
    backend = b ? b : &kernel_backend;
    ue_state = UE_UNKNOWN;
    ue_fd = -1;
    reported = false;
    ue_mode = -1;
}

/* user_events= from FLIGHTREC_OPTIONS (secure_getenv: not in a setuid process); bad
 * pairs are lifecycle's to report, not ours. */
static int mode(void)
{
    if (ue_mode < 0) {
        struct fr_options o;
        fr_options_from_env(&o, NULL);
        ue_mode = o.user_events;
    }
    return ue_mode;
}

static void report_once(const char *what, int err)
{
    if (reported || mode() != FR_USER_EVENTS_ON)
        return;
    reported = true;
    fprintf(stderr, "flightrec: Linux user_events unavailable (%s: %s); structured events "
            "go to the flight recorder only\n", what, strerror(err));
}

static bool ensure_open(void)
{
    if (ue_state == UE_UNKNOWN && mode() == FR_USER_EVENTS_OFF)
        ue_state = UE_UNAVAILABLE;
    if (ue_state == UE_UNKNOWN) {
        ue_fd = backend->open_data(backend->ctx);
        if (ue_fd >= 0) {
            ue_state = UE_OPEN;
        } else {
            ue_state = UE_UNAVAILABLE;
            report_once(data_paths[0], errno);
        }
    }
    return ue_state == UE_OPEN;
}

/* ------------------------------------------------------------------ registration */

int fr_ue_register_site(fr_event_site *site, struct fr_tracepoint *tp)
{
    if (site->registered)
        return 0;
    if (!ensure_open())
        return -1;
    char command[FR_EH_NAME_MAX + sizeof FR_EH_COMMAND_TYPES + 1];
    snprintf(command, sizeof command, "%s %s", tp->name, FR_EH_COMMAND_TYPES);
    struct fr_user_reg reg = {
        .size = sizeof reg,
        .enable_bit = 0,                       /* FR_SITE_USER_EVENTS */
        .enable_size = sizeof site->enabled,
        .enable_addr = (uint64_t)(uintptr_t)&site->enabled,
        .name_args = (uint64_t)(uintptr_t)command,
    };
    if (backend->reg(backend->ctx, ue_fd, &reg) < 0) {
        int err = errno;
        if (err == ENOTTY || err == EINVAL || err == EPERM || err == EACCES) {
            report_once("DIAG_IOCSREG", err);
        } else if (!reported) {
            reported = true;
            fprintf(stderr, "flightrec: user_events registration of %s failed: %s\n",
                    tp->name, strerror(err));
        }
        return -1;
    }
    tp->write_index = reg.write_index;
    site->registered = 1;
    return 0;
}

void fr_ue_unregister_site(fr_event_site *site)
{
    if (ue_state != UE_OPEN || !site->registered)
        return;
    site->registered = 0;
    struct fr_user_unreg unreg = {
        .size = sizeof unreg,
        .disable_bit = 0,
        .disable_addr = (uint64_t)(uintptr_t)&site->enabled,
    };
    backend->unreg(backend->ctx, ue_fd, &unreg);
    __atomic_fetch_and(&site->enabled, ~FR_SITE_USER_EVENTS, __ATOMIC_RELAXED);
}

void fr_ue_forget_after_fork(void)
{
    /* (a number the program took since is its own: not closed) */
    if (ue_state == UE_OPEN && backend == &kernel_backend && fr_fd_is(ue_fd, ue_dev, ue_ino))
        close(ue_fd);
    ue_fd = -1;
    ue_state = UE_UNKNOWN;
}

/* ------------------------------------------------------------------ hot path */

void fr_ue_write(struct fr_tracepoint *tp, struct iovec *iov, int iovcnt)
{
    iov[0].iov_base = &tp->write_index;
    iov[0].iov_len = sizeof tp->write_index;
    int saved = errno;             /* tracing must not disturb the program's errno */
    backend->writev(backend->ctx, ue_fd, iov, iovcnt);
    errno = saved;
}
