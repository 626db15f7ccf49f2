/*
 * crash_shortwrite.c - an LD_PRELOAD shim for tests/crash_faults.sh: write(2) and
 * pwrite(2) on regular files write at most 77 bytes per call and fail with EINTR on
 * every third call, as a slow or interrupted device may. The trace written through it
 * (at exit, by a crash dump, by a snapshot, streamed) must be the same valid file.
 * Regular files only: crash_prog's worker signals main through a pipe with one write
 * that does not retry, and with stream=1 the writer thread's writes move the count, so
 * that write got EINTR now and then and main waited for ever (CI: exit 124).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned calls;

static int regular_file(int fd)
{
    struct stat st;
    return syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode);
}

static int interrupt_now(void)
{
    return __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % 3 == 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    if (regular_file(fd)) {
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
    if (regular_file(fd)) {
        if (interrupt_now()) {
            errno = EINTR;
            return -1;
        }
        if (len > 77)
            len = 77;
    }
    return syscall(SYS_pwrite64, fd, buf, len, off);
}
