/*
 * crash_shortwrite.c - an LD_PRELOAD shim for tests/crash_faults.sh: write(2) and
 * pwrite(2) on files (fd > 2) write at most 77 bytes per call and fail with EINTR on
 * every third call, as a slow or interrupted device may. The trace written through it
 * (at exit, by a crash dump, by a snapshot) must be the same valid file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned calls;

static int interrupt_now(void)
{
    return __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % 3 == 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    if (fd > 2) {
        if (interrupt_now()) {
            errno = EINTR;
            return -1;
        }
        if (len > 77)
            len = 77;
    }
    return syscall(SYS_write, fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    if (fd > 2) {
        if (interrupt_now()) {
            errno = EINTR;
            return -1;
        }
        if (len > 77)
            len = 77;
    }
    return syscall(SYS_pwrite64, fd, buf, len, off);
}
