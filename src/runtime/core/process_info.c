/*
 * process_info.c - the process facts of FR_TE_PROCESS, read from /proc at init so that a
 * crash-time writer needs no I/O beyond the trace file itself.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>
#include "core/process_info.h"
#include "core/session.h"

static size_t read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t n = 0;
    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    return n;
}

void fr_process_info_read(void)
{
    struct fr_process_info *p = &fr_session.process;
    p->pid = (uint32_t)getpid();
    p->ppid = (uint32_t)getppid();
    size_t n = read_file("/proc/self/comm", p->name, sizeof p->name);
    while (n && (p->name[n - 1] == '\n' || p->name[n - 1] == 0))
        n--;
    p->name_len = (uint16_t)n;
    ssize_t e = readlink("/proc/self/exe", p->exe, sizeof p->exe);
    p->exe_len = e > 0 ? (uint16_t)e : 0;
    n = read_file("/proc/self/cmdline", p->cmdline, sizeof p->cmdline);
    while (n && p->cmdline[n - 1] == 0) /* no trailing separator */
        n--;
    p->cmdline_len = (uint16_t)n;
}
